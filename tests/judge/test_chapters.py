"""Chapters and sections: exercises listed in the handbook's order, with clear errors for bad places."""

from __future__ import annotations

import shutil

import pytest

from judge import cli
from judge.exercises.chapters import ChaptersError, chapters_file, group, load_chapters
from judge.exercises.exercise import load_all, load_exercise
from judge.exercises.folders import EXERCISES_DIR, ExerciseError

CHAPTERS = """
[[chapter]]
id = "probability-and-sampling"
en = "Probability and sampling"
zh = "概率与采样"

[[chapter.section]]
id = "first"
en = "First section"
zh = "第一节"

[[chapter.section]]
id = "second"
en = "Second section"
zh = "第二节"
"""


def _pack(tmp_path, chapters: str | None, places: dict[str, str | None]):
    """A pack with copies of exercises 1 and 39 placed in the given sections."""
    pack = tmp_path / "exercises"
    pack.mkdir(parents=True)
    if chapters is not None:
        (pack / "chapters.toml").write_text(chapters, encoding="utf-8")
    for folder, section in places.items():
        target = pack / folder
        shutil.copytree(EXERCISES_DIR / folder, target)
        toml = target / "exercise.toml"
        lines = [line for line in toml.read_text(encoding="utf-8").splitlines() if not line.startswith("section =")]
        if section is not None:
            lines.insert(1, f'section = "{section}"')
        toml.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return pack


def test_the_repository_places_every_exercise_in_a_section_of_its_chapter():
    chapters = load_chapters(EXERCISES_DIR)
    assert chapters and chapters[0].id == "probability-and-sampling"
    for found in group(load_all(EXERCISES_DIR)):
        assert found.chapter is not None and found.section is not None, [e.folder for e in found.exercises]
    for chapter in chapters:
        for section in chapter.sections:
            assert section.title.zh.strip() and str(section.title).strip()


def test_groups_follow_the_book_not_the_numbers(tmp_path):
    pack = _pack(tmp_path, CHAPTERS, {"001-weighted-coin": "second", "039-sampling": "first"})
    groups = group(load_all(pack))
    assert [g.section.id for g in groups] == ["first", "second"]
    assert [[e.number for e in g.exercises] for g in groups] == [[39], [1]]
    assert groups[0].title.zh == "第一节"
    assert [g.opens_chapter for g in groups] == [True, False]  # the chapter's heading goes above its first section


def test_exercises_without_a_place_come_last_or_under_their_chapter(tmp_path):
    pack = _pack(tmp_path, CHAPTERS, {"001-weighted-coin": None, "039-sampling": "second"})
    groups = group(load_all(pack))
    assert [(g.chapter.id if g.chapter else None, g.section.id if g.section else None) for g in groups] == [
        ("probability-and-sampling", None),
        ("probability-and-sampling", "second"),
    ]
    other = CHAPTERS.replace('id = "probability-and-sampling"', 'id = "another-book"').replace(
        "Probability and sampling", "Another book")
    unplaced = _pack(tmp_path / "unplaced", other, {"001-weighted-coin": None, "039-sampling": None})
    (only,) = group(load_all(unplaced))
    assert only.chapter is None and str(only.title) == "Other exercises" and len(only.exercises) == 2


def test_a_pack_without_chapters_takes_the_repositorys_and_refuses_an_unknown_section(tmp_path):
    """A course's pack with no chapters.toml is placed by the book's (exercises/chapters.toml): its
    exercises are grouped under those chapters, and a section none of them has is refused, as an
    exercise of the repository's own would be."""
    bare = _pack(tmp_path, None, {"001-weighted-coin": "distributions", "039-sampling": None})
    assert chapters_file(bare) == EXERCISES_DIR / "chapters.toml"
    assert [c.id for c in load_chapters(bare)] == [c.id for c in load_chapters(EXERCISES_DIR)]
    groups = group(load_all(bare))
    assert [(g.chapter.id, g.section.id if g.section else None) for g in groups] == [
        ("probability-and-sampling", None),
        ("probability-and-sampling", "distributions"),
    ]
    toml = bare / "001-weighted-coin" / "exercise.toml"
    toml.write_text(toml.read_text().replace('section = "distributions"', 'section = "anything"'))
    with pytest.raises(ExerciseError, match=r"section 'anything' is not a section of 'probability-and-sampling'"
                       r".*'truncation'.* \(as .*exercises/chapters.toml lists them\)"):
        load_exercise(bare / "001-weighted-coin")
    (bare / "chapters.toml").write_text(CHAPTERS, encoding="utf-8")  # its own list wins
    assert chapters_file(bare) == bare / "chapters.toml"
    with pytest.raises(ExerciseError, match=r"choose one of 'first', 'second'"):
        load_exercise(bare / "001-weighted-coin")


def test_a_section_its_chapter_lacks_is_refused_with_the_choices(tmp_path):
    pack = _pack(tmp_path, CHAPTERS, {"001-weighted-coin": "third"})
    with pytest.raises(ExerciseError, match=r"section 'third' is not a section of 'probability-and-sampling'.*'first', 'second'"):
        load_exercise(pack / "001-weighted-coin")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[chapter]]\nid = 'c'\nen = 'C'\n", "no title in zh"),
        ("[[chapter]]\nen = 'C'\nzh = 'C'\n", "needs an id"),
        (CHAPTERS + "\n[[chapter.section]]\nid = 'first'\nen = 'again'\nzh = 'again'\n", "used twice"),
        ("[[chapter]\n", "chapters.toml"),
    ],
)
def test_a_malformed_chapters_file_is_a_clear_error(tmp_path, text, message):
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "chapters.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ChaptersError, match=message):
        load_chapters(pack)


def test_list_prints_chapter_and_section_headings_in_order(capsys, tmp_path, monkeypatch):
    pack = _pack(tmp_path, CHAPTERS, {"001-weighted-coin": "second", "039-sampling": "first"})
    monkeypatch.setenv("PROBJUDGE_EXERCISES", str(pack))
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    order = [out.index(text) for text in ("Probability and sampling", "First section", "039", "Second section", "001")]
    assert order == sorted(order)
    assert cli.main(["list", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert out.index("第一节") < out.index("第二节")


def test_where_no_chapters_toml_exists_at_all_sections_are_not_checked(tmp_path, monkeypatch):
    """The browser is sent exercise.toml and tests/public/ only, never a chapters.toml: there the
    exercise loads as it is (its place was checked where the judge has the lists)."""
    import judge.exercises.chapters

    # Where chapters_file() looks for the repository's chapters.toml.
    monkeypatch.setattr(judge.exercises.chapters, "EXERCISES_DIR", tmp_path / "no-repository")
    bare = _pack(tmp_path, None, {"001-weighted-coin": "anything"})
    assert chapters_file(bare) is None and load_chapters(bare) == ()
    assert load_exercise(bare / "001-weighted-coin").section == "anything"
