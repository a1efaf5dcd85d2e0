"""``solutions/NNN-slug/mutants.toml``: the mutants of the reference that no correct test can kill.

An equivalent mutant behaves exactly like the reference on every input the statement allows (a
``<`` that becomes ``<=`` where the two sides are never equal, a ``.contiguous()`` left out before
a call that does not need it). The author lists each one, by its id
(:mod:`judge.authoring.mutation.mutants`), with a one-line reason::

    [equivalent]
    "cmp.lt-le:1f3a9c0e:0" = "u < min(1, p/q) and u <= ... differ only where u * q == p, probability 0"

``make mutation`` counts the listed mutants as equivalent, and fails when a listed id is no longer
among the reference's mutants (a stale entry: the line changed, so its reason must be looked at
again) or when the suites kill a listed mutant (then it was not equivalent).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from pathlib import Path

from judge.authoring.mutation.mutants import ID_PATTERN
from judge.exercises.folders import ExerciseError

EQUIVALENTS_FILE = "mutants.toml"
SECTION = "equivalent"


def load_equivalents(path: Path) -> dict[str, str]:
    """The listed equivalent mutants of ``path`` (a ``mutants.toml``): id -> reason, in the file's
    order; none when the file does not exist. Raises :class:`~judge.exercises.folders.ExerciseError`,
    naming the file, for TOML it cannot read, a key other than ``[equivalent]``, an id that is not
    of the form ``OPERATOR:HASH:K``, or a reason that is empty or not one line of text."""
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ExerciseError(f"{path}: {error}") from None
    unknown = sorted(set(data) - {SECTION})
    if unknown:
        raise ExerciseError(f"{path}: unknown key(s) {', '.join(unknown)}; the file holds one table, [{SECTION}]")
    table = data.get(SECTION, {})
    if not isinstance(table, dict):
        raise ExerciseError(f'{path}: [{SECTION}] must be a table of "mutant id" = "reason"')
    problems = []
    for mutant_id, reason in table.items():
        if not ID_PATTERN.match(mutant_id):
            problems.append(f"{mutant_id!r} is not a mutant id (OPERATOR:HASH:K, as make mutation prints them)")
        elif not isinstance(reason, str) or not reason.strip() or "\n" in reason.strip():
            problems.append(f"{mutant_id}: the reason must be one line of text")
    if problems:
        raise ExerciseError(f"{path}: " + "; ".join(problems))
    return {mutant_id: " ".join(reason.split()) for mutant_id, reason in table.items()}


def stale_entries(listed: Iterable[str], mutant_ids: Iterable[str]) -> list[str]:
    """The listed ids that are not among ``mutant_ids`` (the reference's mutants now), in listed order."""
    present = set(mutant_ids)
    return [mutant_id for mutant_id in listed if mutant_id not in present]


def entry_line(mutant_id: str, reason: str = "TODO: why no correct test can tell it from the reference") -> str:
    """One line of ``[equivalent]`` for ``mutant_id``, ready to paste."""
    escaped = reason.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{mutant_id}" = "{escaped}"'
