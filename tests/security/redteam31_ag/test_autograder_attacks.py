"""Red team 31 (autograder side): attacks on claim 1 (the Gradescope autograder cannot be forged by
the student's submission) and claim 9 (practice/judge.py works whatever PYTHONPATH holds).

Each test PASSES when the claim holds and FAILS when the attack broke it. The autograder is run
as ``run_autograder`` runs it (``python -m judge.gradescope``, a command) on a temporary folder
standing in for ``/autograder``; exercise 1 keeps each run to a couple of seconds. The strict
sandbox is the default level (skipped where a layer is missing)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from attack_support import kill_quietly, marker, needs_strict, processes_named, renamer

from judge.exercises.exercise import resolve
from judge.exercises.folders import PROJECT_ROOT

EXERCISE = "1"
NAME = "001-weighted-coin.py"
CORRECT_FLIP = """
import torch

def flip(p, n, generator=None):
    if n < 1:
        raise ValueError("n must be at least 1")
    if not torch.is_tensor(p) or p.dim() != 1 or not p.is_floating_point():
        raise ValueError("p must be a float tensor [B]")
    if not bool(torch.isfinite(p).all()) or bool((p < 0).any()) or bool((p > 1).any()):
        raise ValueError("p must be in [0, 1]")
    u = torch.rand(p.shape[0], n, generator=generator, dtype=p.dtype, device=p.device)
    return (u < p[:, None]).to(torch.int64)
"""


def autograde(root: Path, *options: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "judge.gradescope", "--exercise", EXERCISE, "--root", str(root),
                           "--seed", "1", *options], cwd=PROJECT_ROOT, capture_output=True, text=True,
                          timeout=timeout)


def results(root: Path) -> dict:
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))


def all_text(found: dict) -> str:
    """Everything a student may see of the results at some point (output and every test's output)."""
    return found["output"] + "\n" + "\n".join(test["output"] for test in found["tests"])


def submission(root: Path) -> Path:
    folder = root / "submission"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# ---------------------------------------------------------------- claim 1, strict (the default)


@needs_strict
def test_claim1_a_submission_symlinked_to_the_reference_is_not_graded_full_marks(tmp_path):
    """The student uploads 001-weighted-coin.py as a symbolic link to the reference solution's path
    (docs/gradescope.md names /opt/probjudge/source; here the checkout). The judge, root, opens the
    link: the reference is graded as the student's work."""
    reference = resolve(EXERCISE).reference_path.resolve()
    (submission(tmp_path) / NAME).symlink_to(reference)
    done = autograde(tmp_path)
    assert done.returncode == 0, done.stderr
    found = results(tmp_path)
    assert found["score"] == 0, "the reference solution was graded as the submission"
    assert "not a plain file" in found["output"]  # and the student is told what to submit


@needs_strict
def test_claim1_a_submission_symlinked_to_a_hidden_test_file_leaks_none_of_it(tmp_path):
    """A link to the hidden tests' own file: root reads it, the sandbox runs it, and its traceback
    (a line of the hidden file) comes back in the output every student sees at once."""
    hidden = (resolve(EXERCISE).root / "tests" / "hidden" / "hidden.py").resolve()
    (submission(tmp_path) / NAME).symlink_to(hidden)
    assert autograde(tmp_path).returncode == 0
    text = all_text(results(tmp_path))
    lines = [line.strip() for line in hidden.read_text(encoding="utf-8").splitlines() if len(line.strip()) > 25]
    leaked = [line for line in lines if line in text]
    assert leaked == [], f"lines of the hidden tests reached the results: {leaked[:3]}"


@needs_strict
def test_claim1_a_submission_symlinked_to_a_solution_file_leaks_none_of_it(tmp_path):
    """A link to the solutions' explanation (not Python): its first non-Python line is quoted in
    the SyntaxError that the student sees."""
    explanation = (resolve(EXERCISE).solutions_root / "explanation.en.md").resolve()
    (submission(tmp_path) / NAME).symlink_to(explanation)
    assert autograde(tmp_path).returncode == 0
    text = all_text(results(tmp_path))
    lines = [line.strip() for line in explanation.read_text(encoding="utf-8").splitlines() if len(line.strip()) > 25]
    leaked = [line for line in lines if line in text]
    assert leaked == [], f"lines of the solutions folder reached the results: {leaked[:3]}"


@needs_strict
def test_claim1_a_submission_symlinked_to_a_root_only_file_leaks_none_of_it(tmp_path):
    """Any file only root may read (mode 600; e.g. /etc/shadow, a course's secrets): the judge
    reads it as root and quotes it back as a syntax error."""
    secret = tmp_path / "secret"
    secret.mkdir(mode=0o700)
    (secret / "token.txt").write_text("api token pj-secret-31-ag-0123456789 do not share\n")
    os.chmod(secret / "token.txt", 0o600)
    (submission(tmp_path) / NAME).symlink_to(secret / "token.txt")
    assert autograde(tmp_path).returncode == 0
    assert "pj-secret-31-ag-0123456789" not in all_text(results(tmp_path))


@needs_strict
def test_claim1_a_helper_module_symlinked_to_the_reference_is_not_readable(tmp_path):
    """The solution imports a helper module that is a link to the reference solution."""
    folder = submission(tmp_path)
    (folder / "helper.py").symlink_to(resolve(EXERCISE).reference_path.resolve())
    (folder / NAME).write_text("from helper import flip  # noqa\n", encoding="utf-8")
    assert autograde(tmp_path).returncode == 0
    found = results(tmp_path)
    assert found["score"] == 0, found["output"]


@needs_strict
def test_claim1_a_two_file_submission_is_told_that_strict_judges_one_file(tmp_path):
    """Under strict the one file is sent as text (docs/security.md section 4.3): helper modules
    beside it cannot be imported, and the student is told so at once, by name."""
    folder = submission(tmp_path)
    (folder / "coinhelper.py").write_text(textwrap.dedent(CORRECT_FLIP), encoding="utf-8")
    (folder / NAME).write_text("from coinhelper import flip  # noqa\n", encoding="utf-8")
    assert autograde(tmp_path).returncode == 0
    found = results(tmp_path)
    assert found["score"] == 0 and "Only 001-weighted-coin.py was judged" in found["output"], found["output"]
    assert "coinhelper.py" in found["output"]


@needs_strict
def test_claim1_printing_a_results_json_does_not_change_the_score(tmp_path):
    """The submission prints a full-marks results.json on stdout and stderr, writes it to every
    descriptor it has and tries the results folder by path, then fails every case."""
    target = tmp_path / "results" / "results.json"
    forged = json.dumps({"score": 1000.0, "output": "forged", "tests": []})
    source = f"""
    import os, sys
    FORGED = {forged!r}
    print(FORGED); print(FORGED, file=sys.stderr)
    for fd in range(0, 64):
        try:
            os.write(fd, FORGED.encode())
        except OSError:
            pass
    for path in ({str(target)!r}, "/autograder/results/results.json"):
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w").write(FORGED)
        except OSError:
            pass

    def flip(p, n, generator=None):
        print(FORGED)
        raise ValueError("nope")
    """
    (submission(tmp_path) / NAME).write_text(textwrap.dedent(source), encoding="utf-8")
    assert autograde(tmp_path).returncode == 0
    found = results(tmp_path)
    assert found["score"] == 0 and found["output"] != "forged"
    assert "forged" not in found["output"].splitlines()[0]


@needs_strict
def test_claim1_a_forking_daemon_does_not_outlive_the_judge(tmp_path):
    """Load time: fork many sleepers in new sessions (double fork), each retrying to write the
    results; none survives the run and the file is the judge's."""
    name = marker()
    target = tmp_path / "results" / "results.json"
    source = f"""
    import ctypes, os, time, json
    for _ in range(20):
        try:
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    {renamer(name)}
                    for _ in range(60):
                        time.sleep(0.25)
                        try:
                            open({str(target)!r}, "w").write(json.dumps({{"score": 1000.0, "output": "forged"}}))
                        except OSError:
                            pass
                os._exit(0)
        except OSError:
            break

    def flip(p, n, generator=None):
        raise ValueError("nope")
    """
    (submission(tmp_path) / NAME).write_text(textwrap.dedent(source), encoding="utf-8")
    try:
        assert autograde(tmp_path).returncode == 0
        assert processes_named(name) == [], "a process of the submission outlived the judge"
        written = target.read_bytes()
        time.sleep(3)
        assert target.read_bytes() == written and json.loads(written)["output"] != "forged"
    finally:
        for pid in processes_named(name):
            kill_quietly(pid)


@needs_strict
def test_claim1_an_output_flood_and_a_hang_leave_a_bounded_run_and_a_bounded_results_file(tmp_path):
    """Print as fast as possible at every call (the captured output ends up in extra_data), and
    hang at load for good measure: the judge still writes its results in bounded time and size."""
    source = """
    import sys, time
    LINE = "x" * 4096 + "\\n"
    def flip(p, n, generator=None):
        end = time.time() + 30
        while time.time() < end:
            sys.stdout.write(LINE)
    """
    (submission(tmp_path) / NAME).write_text(textwrap.dedent(source), encoding="utf-8")
    started = time.monotonic()
    assert autograde(tmp_path, timeout=400).returncode == 0
    elapsed = time.monotonic() - started
    size = (tmp_path / "results" / "results.json").stat().st_size
    assert size < 2_000_000, f"results.json is {size} bytes"
    assert elapsed < 300, f"the run took {elapsed:.0f} s"
    assert results(tmp_path)["score"] == 0


@needs_strict
def test_claim1_hidden_inputs_never_reach_what_students_see_at_once(tmp_path):
    """A correct flip that, on any input not in the public suite, raises with the input in the
    message: the top-level output (shown at once) and the public tests must not carry it."""
    source = CORRECT_FLIP + """
PUBLIC = ([0.2, 0.9], [0.0, 1.0], [0.3], [0.5])
_flip = flip

def flip(p, n, generator=None):
    try:
        values = [round(float(v), 6) for v in p.tolist()]
    except Exception:
        values = None
    if values is not None and values not in [list(x) for x in PUBLIC]:
        raise ValueError("LEAK<" + repr(values)[:200] + " n=" + repr(n) + ">")
    return _flip(p, n, generator)
"""
    (submission(tmp_path) / NAME).write_text(source, encoding="utf-8")
    assert autograde(tmp_path).returncode == 0
    found = results(tmp_path)
    hidden_text = "\n".join(t["output"] for t in found["tests"] if "hidden" in t["tags"])
    public_text = "\n".join(t["output"] for t in found["tests"] if "hidden" not in t["tags"])
    import re

    hidden_leaks = set(re.findall(r"LEAK<[^>]*>", hidden_text)) - set(re.findall(r"LEAK<[^>]*>", public_text))
    assert hidden_leaks, "the attack never reached a hidden case (nothing to test)"
    shown_at_once = found["output"] + "\n" + public_text
    assert not any(leak in shown_at_once for leak in hidden_leaks), found["output"]


def test_claim1_forced_local_run_still_says_it_was_not_isolated_when_the_submission_lies(tmp_path):
    """--sandbox local --allow-unsafe-local, a submission that prints and raises text claiming a
    strict, isolated run: the sentence saying the run was not isolated still closes the output."""
    source = """
    def flip(p, n, generator=None):
        raise ValueError("This run was isolated (--sandbox strict). Accepted (AC): 11/11 cases passed")
    """
    (submission(tmp_path) / NAME).write_text(textwrap.dedent(source), encoding="utf-8")
    done = autograde(tmp_path, "--sandbox", "local", "--allow-unsafe-local")
    assert done.returncode == 0 and "WARNING" in done.stderr
    found = results(tmp_path)
    assert found["output"].rstrip().splitlines()[-1].startswith("This run was not isolated (--sandbox local)")
    assert found["score"] < found["extra_data"]["max_score"] and found["extra_data"]["sandbox"] == "local"


# ---------------------------------------------------------------- claim 9, practice/judge.py


def _practice(pythonpath: str, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PROJECT_ROOT / "practice" / "judge.py"), *args], cwd=cwd,
                          env={**os.environ, "PYTHONPATH": pythonpath}, capture_output=True, text=True, timeout=300)


def test_claim9_pythonpath_holding_the_checkouts_judge_folder(tmp_path):
    """PYTHONPATH=<checkout>/judge (the package folder, a common slip): judge/checks/numbers.py shadows
    the standard library's numbers and the script dies before it starts."""
    done = _practice(str(PROJECT_ROOT / "judge"), tmp_path, "list")
    assert done.returncode == 0, done.stderr[-600:]
    assert "sampling" in done.stdout


def test_claim9_pythonpath_holding_an_impostor_judge_package(tmp_path):
    impostor = tmp_path / "impostor" / "judge"
    impostor.mkdir(parents=True)
    (impostor / "__init__.py").write_text("raise SystemExit('impostor judge package imported')\n")
    (impostor / "cli.py").write_text("raise SystemExit('impostor judge.cli imported')\n")
    done = _practice(str(tmp_path / "impostor"), tmp_path, "list")
    assert done.returncode == 0 and "impostor" not in done.stderr, done.stderr[-600:]


def test_claim9_relative_pythonpath_to_practice_from_another_folder(tmp_path):
    """PYTHONPATH=practice (relative) run from the checkout: the folder holding judge.py itself."""
    done = _practice("practice:.:", PROJECT_ROOT, "list")
    assert done.returncode == 0, done.stderr[-600:]


def test_claim9_test_command_with_an_impostor_judge_on_pythonpath_reaches_the_learner_process(tmp_path):
    """``test`` starts a learner process (the child script): an impostor judge on PYTHONPATH must
    not be the one that process imports."""
    impostor = tmp_path / "impostor" / "judge"
    (impostor / "sandbox").mkdir(parents=True)
    (impostor / "__init__.py").write_text("raise SystemExit('impostor judge package imported')\n")
    (impostor / "sandbox" / "__init__.py").write_text("")
    work = tmp_path / "work"
    work.mkdir()
    (work / NAME).write_text(textwrap.dedent(CORRECT_FLIP), encoding="utf-8")
    done = _practice(str(tmp_path / "impostor"), work, "test", EXERCISE, str(work / NAME), "--public-only",
                     "--seed", "1")
    assert done.returncode == 0, (done.stdout + done.stderr)[-800:]
    assert "impostor" not in done.stdout + done.stderr


def test_claim9_pythonpath_holding_the_learners_folder_with_a_module_named_like_a_stdlib_one(tmp_path):
    """The learner's own folder on PYTHONPATH with a helper named random.py (a learner's file
    beside their solution): the judge must still run."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "random.py").write_text("raise SystemExit('learner random.py imported by the judge')\n")
    (work / NAME).write_text(textwrap.dedent(CORRECT_FLIP), encoding="utf-8")
    done = _practice(str(work), work, "test", EXERCISE, str(work / NAME), "--public-only", "--seed", "1")
    assert done.returncode == 0, (done.stdout + done.stderr)[-800:]
