"""practice/judge.py new: a small working exercise, written into a pack, that check passes as written."""

from __future__ import annotations

import os

import pytest

from judge import cli
from judge.exercises.exercise import resolve
from judge.exercises.folders import EXERCISES_DIR

EXERCISE_FILES = {"exercise.toml", "statement.en.md", "statement.zh.md", "starter.py", "tests/public/public.py",
                  "tests/hidden/hidden.py", "tests/hidden/contract.toml"}
SOLUTION_FILES = {"reference.py", "explanation.en.md", "explanation.zh.md", "wrong/ignores_generator.py"}


@pytest.fixture
def pack(tmp_path, monkeypatch):
    """A private pack read before the repository's exercises (as a course would configure it)."""
    folder = tmp_path / "course" / "exercises"
    folder.mkdir(parents=True)
    monkeypatch.setenv("PROBJUDGE_EXERCISES", os.pathsep.join([str(folder), str(EXERCISES_DIR)]))
    return folder


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _files(root) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def test_new_writes_a_small_exercise_that_check_passes(pack, capsys):
    code, out, err = run_cli(capsys, "new", "950", "beam-search", "--title-en", "Beam search", "--title-zh", "束搜索")
    assert code == 0, err
    assert "check 950" in out
    root, solutions = pack / "950-beam-search", pack.parent / "solutions" / "950-beam-search"
    assert _files(root) == EXERCISE_FILES and _files(solutions) == SOLUTION_FILES
    exercise = resolve("950")
    assert exercise.root == root and exercise.titles == {"en": "Beam search", "zh": "束搜索"}
    for lang in ("en", "zh"):  # the author's markers, in both languages
        assert "TODO" in exercise.statement(lang) and "TODO" in (solutions / f"explanation.{lang}.md").read_text()
    code, out, err = run_cli(capsys, "check", "950", "--seed", "5")
    assert code == 0, out + err
    assert "6/6 as expected" in out and "diagnosed" in out
    assert "starter" in out and "params" in out  # the untouched starter names no mistake; params match
    assert "contract" in out  # the statement's binding sentences are listed with their checks
    assert "lanes: 2 lanes" in out and "python practice/judge.py lanes 950" in out  # advice, never a failure
    code, out, err = run_cli(capsys, "test", "950", str(solutions / "reference.py"), "--seed", "5", "--json")
    assert code == 0, err
    assert '"verdict": "AC"' in out


def test_new_writes_into_the_first_pack_by_default(pack, capsys):
    code, _, err = run_cli(capsys, "new", "951", "coin-toss")
    assert code == 0, err
    assert (pack / "951-coin-toss" / "exercise.toml").is_file()
    assert resolve("coin-toss").titles["en"] == "Coin toss" and "TODO" in resolve("951").titles["zh"]


@pytest.mark.parametrize("number, slug, message", [
    ("39", "fresh-slug", "number 39 is taken by"),         # the repository's pack
    ("952", "sampling", "slug 'sampling' is taken by"),
    ("0", "fresh-slug", "from 1 to 999"),
    ("1000", "fresh-slug", "from 1 to 999"),
    ("12a", "fresh-slug", "from 1 to 999"),
    ("952", "Beam_Search", "bad slug"),
    ("952", "beam--search", "bad slug"),
    ("952", "beam-", "bad slug"),
    ("952", "beam search", "bad slug"),
])
def test_new_refuses_bad_or_taken_numbers_and_slugs(pack, capsys, number, slug, message):
    before = _files(pack.parent)
    code, _, err = run_cli(capsys, "new", number, slug)
    assert code == cli.USAGE_ERROR
    assert message in " ".join(err.split())
    assert _files(pack.parent) == before  # nothing written


def test_new_refuses_a_number_or_slug_taken_in_the_private_pack(pack, capsys):
    assert run_cli(capsys, "new", "953", "first")[0] == 0
    for args, message in ((("953", "second"), "number 953 is taken"), (("954", "first"), "slug 'first' is taken")):
        code, _, err = run_cli(capsys, "new", *args)
        assert code == cli.USAGE_ERROR and message in " ".join(err.split())


def test_new_never_overwrites_an_existing_folder(pack, capsys):
    mine = pack.parent / "solutions" / "955-mine"
    mine.mkdir(parents=True)
    (mine / "notes.md").write_text("my notes")
    code, _, err = run_cli(capsys, "new", "955", "mine")
    assert code == cli.USAGE_ERROR and "exists" in err and "never overwrites" in " ".join(err.split())
    assert (mine / "notes.md").read_text() == "my notes" and _files(mine) == {"notes.md"}
    assert not (pack / "955-mine").exists()
    (pack / "956-started").mkdir()  # a folder begun by hand, without exercise.toml yet
    code, _, err = run_cli(capsys, "new", "956", "other")
    assert code == cli.USAGE_ERROR and "956" in err and not (pack / "956-other").exists()


def test_new_into_a_folder_that_does_not_exist_is_refused(pack, capsys, tmp_path):
    code, _, err = run_cli(capsys, "new", "957", "nowhere", "--into", str(tmp_path / "missing"))
    assert code == cli.USAGE_ERROR and "no such folder" in " ".join(err.split())


def test_new_into_another_pack_writes_its_solutions_beside_it(pack, capsys, tmp_path):
    other = tmp_path / "other" / "exercises"
    other.mkdir(parents=True)
    code, out, err = run_cli(capsys, "new", "958", "elsewhere", "--into", str(other))
    assert code == 0, err
    assert (other / "958-elsewhere" / "exercise.toml").is_file()
    assert (other.parent / "solutions" / "958-elsewhere" / "reference.py").is_file()
    assert "PROBJUDGE_EXERCISES" in " ".join(out.split())  # that pack is not read yet: say how to add it


def test_new_into_a_pack_without_chapters_says_where_its_sections_come_from(pack, capsys):
    code, out, err = run_cli(capsys, "new", "959", "placed")
    assert code == 0, err
    # Without any whitespace: the console folds a long path anywhere, even inside a folder's name.
    bare = "".join(out.split())
    assert f"{pack}hasnochapters.toml" in bare and str(EXERCISES_DIR / "chapters.toml") in bare
    toml = pack / "959-placed" / "exercise.toml"
    text = toml.read_text()
    assert '# section = "sampling-algorithms"' in text
    toml.write_text(text.replace('# section = "sampling-algorithms"', 'section = "sampling-algorithms"'))
    assert resolve("959").section == "sampling-algorithms"  # a section of the book's chapter: placed
    toml.write_text(text.replace('# section = "sampling-algorithms"', 'section = "beam-search"'))
    code, _, err = run_cli(capsys, "list")
    assert code == cli.USAGE_ERROR and "section 'beam-search' is not a section of" in " ".join(err.split())
    (pack / "chapters.toml").write_text(
        '[[chapter]]\nid = "decoding"\nen = "Probability and sampling"\nzh = "解码"\n\n'
        '[[chapter.section]]\nid = "beam-search"\nen = "Beam search"\nzh = "束搜索"\n', encoding="utf-8")
    assert resolve("959").section == "beam-search"  # the pack's own chapters.toml places it now
    code, out, err = run_cli(capsys, "new", "960", "second")
    assert code == 0 and "has no chapters.toml" not in out
