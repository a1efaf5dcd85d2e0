"""An exercise's starter as a learner receives it: its hints in one language, for one front door.

``starter.py`` is the one source of the starter's code. Its hint comments carry a tag saying
whom they are for, and the learner sees only the lines meant for them, with the tag removed::

    # [en] Draw one uniform number per flip; u < p gives a 1.
    # [zh] 每次抛掷取一个均匀随机数 u，u < p 时记为 1。
    # [cli en] Judge your work with `python practice/judge.py test 1`.
    # [cli zh] 用 `python practice/judge.py test 1` 评测你的代码。

``[en]`` and ``[zh]`` lines go to everyone reading that language; ``[cli en]`` and ``[cli zh]``
only to the command line (``start``), never to the site's editor, which has its own Run and Submit
buttons. Untagged lines, code, docstrings and strings included, reach everyone unchanged: only
whole comment lines are chosen, so every version of a starter is the same program
(``tests/exercises/test_starter_languages.py`` holds each one's syntax tree to the file's).
"""

from __future__ import annotations

import re
from typing import Literal

from judge.exercises.exercise import Exercise
from judge.i18n import LANGUAGES

Door = Literal["cli", "web"]
DOORS: tuple[Door, ...] = ("cli", "web")

# A whole-line comment with its tag: indentation, then "# [cli zh] text" (the space after "]" optional).
_TAGGED = re.compile(r"^(?P<indent>[ \t]*)# \[(?:(?P<door>cli) )?(?P<lang>[a-z]+)\] ?(?P<text>.*)$")


def tagged_lines(source: str) -> list[tuple[int, str | None, str]]:
    """Every tagged comment line of ``source``: (0-based line index, door or None, language)."""
    found = []
    for index, line in enumerate(source.splitlines()):
        match = _TAGGED.match(line)
        if match is not None:
            found.append((index, match["door"], match["lang"]))
    return found


def localized_starter(source: str, lang: str, door: Door) -> str:
    """``source`` (a starter's text) with the tagged comments for ``lang`` and ``door`` kept, their
    tag removed, and every other tagged line dropped; a blank line left doubled by a dropped block
    is dropped too. ``lang`` is one of :data:`judge.i18n.LANGUAGES` (anything else: ValueError)."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")
    kept: list[str] = []
    dropped_after_blank = False  # the last kept line is blank and tagged lines were dropped since
    for line in source.splitlines(keepends=True):
        match = _TAGGED.match(line.rstrip("\r\n"))
        if match is None:
            if dropped_after_blank and not line.strip():
                dropped_after_blank = False
                continue
            dropped_after_blank = False
            kept.append(line)
        elif match["lang"] == lang and match["door"] in (None, door):
            ending = line[len(line.rstrip("\r\n")) :]
            text = match["text"]
            kept.append(f"{match['indent']}# {text}{ending}" if text else f"{match['indent']}#{ending}")
            dropped_after_blank = False
        else:
            dropped_after_blank = dropped_after_blank or bool(kept) and not kept[-1].strip()
    return "".join(kept)


def starter_text(exercise: Exercise, lang: str, door: Door) -> str:
    """The starter of ``exercise`` as ``door``'s learner reading ``lang`` receives it."""
    return localized_starter(exercise.starter_path.read_text(encoding="utf-8"), lang, door)
