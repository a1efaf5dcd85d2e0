"""Red team 31, third round (autograder side): claim 1 attacks on the fix that refuses links.

The fix (judge/gradescope.py ``plain_file``) refuses a submitted ``.py`` that is a symbolic link.
A hard link is a regular file (``lstat`` says S_IFREG) yet it is the very inode of its target, so
root reading "the student's file" reads the target. Each test PASSES when the claim holds."""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attack_support import needs_strict  # noqa: E402

from judge.exercises.exercise import resolve  # noqa: E402
from tests.security.redteam31_ag.test_autograder_attacks import EXERCISE, NAME, all_text, autograde, results, submission  # noqa: E402


@needs_strict
def test_claim1_a_hard_link_to_the_reference_is_not_graded_full_marks(tmp_path):
    """The student's 001-weighted-coin.py is a hard link to the reference solution (same file system):
    a regular file by lstat, so the link check lets it through, and the reference is judged."""
    reference = resolve(EXERCISE).reference_path.resolve()
    os.link(reference, submission(tmp_path) / NAME)
    done = autograde(tmp_path)
    assert done.returncode == 0, done.stderr
    found = results(tmp_path)
    assert found["score"] == 0, f"the reference, hard-linked, was graded {found['score']}"


@needs_strict
def test_claim1_a_hard_link_to_the_hidden_tests_leaks_none_of_them(tmp_path):
    hidden = (resolve(EXERCISE).root / "tests" / "hidden" / "hidden.py").resolve()
    os.link(hidden, submission(tmp_path) / NAME)
    assert autograde(tmp_path).returncode == 0
    text = all_text(results(tmp_path))
    lines = [line.strip() for line in hidden.read_text(encoding="utf-8").splitlines() if len(line.strip()) > 25]
    leaked = [line for line in lines if line in text]
    assert leaked == [], f"lines of the hidden tests reached the results: {leaked[:3]}"


@needs_strict
def test_claim1_a_hard_link_to_a_root_only_file_leaks_none_of_it(tmp_path):
    secret = tmp_path / "secret"
    secret.mkdir(mode=0o700)
    (secret / "token.txt").write_text("api token pj-secret-31-r3-0123456789 do not share\n")
    os.chmod(secret / "token.txt", 0o600)
    os.link(secret / "token.txt", submission(tmp_path) / NAME)
    assert autograde(tmp_path).returncode == 0
    assert "pj-secret-31-r3-0123456789" not in all_text(results(tmp_path))


@needs_strict
def test_claim1_a_plain_file_in_a_linked_subfolder_cannot_import_the_reference(tmp_path):
    """A regular 001-weighted-coin.py that imports from a subfolder which is a link to the
    exercise's solutions folder (a .py that is a regular file, whose parent folder is a link)."""
    folder = submission(tmp_path)
    reference = resolve(EXERCISE).reference_path.resolve()
    (folder / "lib").symlink_to(reference.parent)
    (folder / NAME).write_text(
        "import importlib.util, pathlib\n"
        f"_p = pathlib.Path(__file__).parent / 'lib' / {reference.name!r}\n"
        "_s = importlib.util.spec_from_file_location('ref', _p)\n"
        "_m = importlib.util.module_from_spec(_s); _s.loader.exec_module(_m)\n"
        "flip = _m.flip\n",
        encoding="utf-8",
    )
    assert autograde(tmp_path).returncode == 0
    assert results(tmp_path)["score"] == 0
