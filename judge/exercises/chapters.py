"""The handbook's chapters and their sections: how exercises are grouped when they are listed.

A pack may hold a ``chapters.toml`` beside its exercise folders, listing its chapters and each
chapter's sections in the book's order, with titles in every language (a pack without one is
placed by the repository's ``exercises/chapters.toml``, the book's chapters: :func:`chapters_file`):

    [[chapter]]
    id = "probability-and-sampling"
    en = "Probability and sampling"
    zh = "概率与采样"

    [[chapter.section]]
    id = "sampling-algorithms"
    en = "Exact sampling algorithms"
    zh = "精确采样算法"

An exercise names its chapter (``chapter = "..."``, the id or the English title) and its section
(``section = "sampling-algorithms"``) in its ``exercise.toml``. :func:`group` orders exercises by
chapter and section as the book does (the CLI's ``list`` and the site's exercise list use it);
exercises without a known place come last, under "Other exercises". A section an exercise names
that its chapter lacks is an :class:`~judge.exercises.folders.ExerciseError` when the exercise is loaded.

This module reads chapters and places anything that names one (:class:`Placed`: an exercise, to
:mod:`judge.exercises.exercise`, which checks each exercise's place here when it loads one); it
never imports the exercise module back.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Protocol, TypeVar

from judge.exercises.folders import EXERCISES_DIR
from judge.i18n import LANGUAGES, Bilingual

CHAPTERS_FILE = "chapters.toml"
OTHER = Bilingual("Other exercises", "其他练习")


class Placed(Protocol):
    """What chapters need of an exercise to place it (:class:`judge.exercises.exercise.Exercise` is one)."""

    @property
    def number(self) -> int: ...

    @property
    def chapter(self) -> str: ...  # the chapter's id or English title; "" for none

    @property
    def section(self) -> str: ...  # the section's id; "" for none

    @property
    def pack(self) -> Path: ...  # the folder of exercises it belongs to (whose chapters.toml places it)


Exercise = TypeVar("Exercise", bound=Placed)  # what a Group holds is what group() was given


class ChaptersError(ValueError):
    """A malformed ``chapters.toml``: the message names the file and the entry."""


@dataclass(frozen=True)
class Section:
    id: str
    title: Bilingual


@dataclass(frozen=True)
class Chapter:
    id: str
    title: Bilingual
    sections: tuple[Section, ...]

    def matches(self, name: str) -> bool:
        """An exercise's ``chapter`` field names this chapter by id or by English title."""
        return name.strip().lower() in (self.id, str(self.title).lower())

    def section(self, section_id: str) -> Section | None:
        return next((s for s in self.sections if s.id == section_id), None)


@dataclass(frozen=True)
class Group(Generic[Exercise]):
    """Exercises of one section (``section`` None: of the chapter, or of no known chapter)."""

    chapter: Chapter | None
    section: Section | None
    exercises: tuple[Exercise, ...]
    opens_chapter: bool = False  # the first group of its chapter: where a list shows the chapter's heading

    @property
    def title(self) -> Bilingual:
        if self.chapter is None:
            return OTHER
        if self.section is None:
            return self.chapter.title
        return self.section.title


def _titled(entry: object, path: Path, what: str) -> tuple[str, Bilingual]:
    if not isinstance(entry, dict) or not isinstance(entry.get("id"), str) or not entry["id"]:
        raise ChaptersError(f"{path}: every {what} needs an id (a non-empty string); got {entry!r}")
    missing = [lang for lang in LANGUAGES if not isinstance(entry.get(lang), str) or not entry[lang].strip()]
    if missing:
        raise ChaptersError(f"{path}: {what} {entry['id']!r} has no title in {', '.join(missing)}")
    return entry["id"], Bilingual(entry["en"], entry["zh"])


@functools.cache
def _load(path: Path, mtime_ns: int) -> tuple[Chapter, ...]:  # noqa: ARG001 - the cache key: a changed file is read again
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ChaptersError(f"{path}: {exc}") from None
    chapters = []
    seen: set[str] = set()
    for entry in data.get("chapter", []):
        chapter_id, title = _titled(entry, path, "chapter")
        sections = []
        for item in entry.get("section", []):
            section_id, section_title = _titled(item, path, "section")
            if section_id in seen:
                raise ChaptersError(f"{path}: section id {section_id!r} is used twice")
            seen.add(section_id)
            sections.append(Section(section_id, section_title))
        chapters.append(Chapter(chapter_id, title, tuple(sections)))
    return tuple(chapters)


def chapters_file(pack: Path) -> Path | None:
    """The ``chapters.toml`` that places the exercises of ``pack``: the pack's own, else the
    repository's (``exercises/chapters.toml``, the book's chapters); None when neither exists."""
    for path in (Path(pack) / CHAPTERS_FILE, EXERCISES_DIR / CHAPTERS_FILE):
        if path.is_file():
            return path
    return None


def load_chapters(pack: Path) -> tuple[Chapter, ...]:
    """The chapters of ``pack``: those of :func:`chapters_file` (the pack's ``chapters.toml``, or the
    repository's for a pack without one); none when there is no such file.

    Raises :class:`ChaptersError` for a file that is not TOML, an entry without an id or without a
    title in every language, or a section id used twice.
    """
    path = chapters_file(pack)
    if path is None:
        return ()
    try:
        mtime = path.stat().st_mtime_ns
    except FileNotFoundError:
        return ()
    return _load(path, mtime)


def place(exercise: Placed, chapters: Sequence[Chapter]) -> tuple[Chapter | None, Section | None]:
    """The chapter and section ``exercise`` names, as found in ``chapters`` (None where unknown)."""
    chapter = next((c for c in chapters if exercise.chapter and c.matches(exercise.chapter)), None)
    if chapter is None:
        return None, None
    return chapter, chapter.section(exercise.section) if exercise.section else None


def group(exercises: Iterable[Exercise]) -> list[Group[Exercise]]:
    """``exercises`` grouped by chapter and section in the book's order (each pack's
    ``chapters.toml``; the first pack that lists a chapter gives its order), numbers ascending
    inside a group; a chapter's exercises without a section first, unplaced ones last."""
    exercises = sorted(exercises, key=lambda e: e.number)
    chapters: list[Chapter] = []
    for exercise in exercises:
        for listed in load_chapters(exercise.pack):
            if all(c.id != listed.id for c in chapters):
                chapters.append(listed)
    slots: dict[tuple[int, int], list[Exercise]] = {}
    for exercise in exercises:
        chapter, section = place(exercise, chapters)
        if chapter is None:
            key = (len(chapters), -1)
        else:
            key = (chapters.index(chapter), -1 if section is None else chapter.sections.index(section))
        slots.setdefault(key, []).append(exercise)
    groups: list[Group[Exercise]] = []
    for (chapter_index, section_index), members in sorted(slots.items()):
        chapter_or_none = chapters[chapter_index] if chapter_index < len(chapters) else None
        section_or_none = chapter_or_none.sections[section_index] if chapter_or_none and section_index >= 0 else None
        opens = chapter_or_none is not None and (not groups or groups[-1].chapter != chapter_or_none)
        groups.append(Group(chapter_or_none, section_or_none, tuple(members), opens))
    return groups
