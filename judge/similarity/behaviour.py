"""The behavioural signal: do two submissions consume the generator the same way?

Each grading on the site records a fingerprint (:mod:`judge.engine.probing`): per probe of the
exercise, a short hash of its outputs under the exercise's fixed probe seeds. Two independently
written correct samplers rarely draw in the same order and shape, so equal hashes on the probes
that discriminate are evidence of shared code that renaming and reformatting do not hide.

A probe discriminates only where correct solutions may differ: a deterministic function
(``softmax``) gives every correct solution one hash, and so does the most obvious sampler (the
reference's). :func:`common_hashes` collects the hashes of the reference and of the catalogued
correct solutions; :func:`behaviour_match` drops them before it compares. The figures behind
:data:`STRONG_IDENTICAL` are in docs/similarity-behaviour.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from judge.engine.probing import run_probes
from judge.exercises.exercise import Exercise

if TYPE_CHECKING:
    from judge.sandbox.launchers import Launcher

# At least this many probes left to compare after the common hashes are dropped, and every one
# of them identical, for a strong match: one identical probe can be a short, natural stream
# (one draw of torch.multinomial); two or more whole streams over three seeds are not
# (docs/similarity-behaviour.md: no pair of independent correct solutions reaches it).
STRONG_IDENTICAL = 2


@dataclass(frozen=True)
class BehaviourMatch:
    """Two fingerprints compared."""

    compared: int  # probes both fingerprints have, after dropping the common hashes
    identical: int  # of those, probes with the same hash
    strong: bool  # identical >= STRONG_IDENTICAL and identical == compared


_NOTHING_COMMON: Mapping[str, set[str]] = {}


def behaviour_match(
    a: Mapping[str, str], b: Mapping[str, str], *, common: Mapping[str, set[str]] = _NOTHING_COMMON
) -> BehaviourMatch:
    """Compare two fingerprints (probe name -> hash, a report's ``fingerprint``).

    ``common``: probe name -> hashes every correct solution may share (the reference's, the
    catalogued correct solutions': :func:`common_hashes`). A probe is compared when both have it,
    unless the two hashes are equal and common: two submissions that both hash as the reference
    on a probe say nothing of each other's code there. Two different hashes are always compared,
    common or not: a difference is evidence of different code whichever side is the reference's.
    Values that are not strings are ignored (a stored report is data, not a promise)."""
    compared = identical = 0
    for probe, first in a.items():
        second = b.get(probe)
        if not isinstance(first, str) or not isinstance(second, str):
            continue
        if first == second and first in common.get(probe, ()):
            continue
        compared += 1
        identical += first == second
    return BehaviourMatch(compared, identical, identical >= STRONG_IDENTICAL and identical == compared)


def fingerprint_file(exercise: Exercise, path: Path, *, launcher: Launcher | None = None) -> dict[str, str]:
    """The fingerprint of the file at ``path``, as a grading would record it: a learner process on
    the CPU (``launcher``'s level, default ``local``), probed, closed. ``{}`` when it does not load."""
    from judge.engine.process import LearnerProcess
    from judge.learner.interface import LearnerSource, LoadFailed, ProcessFailed, SandboxFailure

    try:
        process = LearnerProcess(
            LearnerSource.from_file(path),
            device="cpu",
            memory_limit_mb=exercise.memory_limit_mb,
            load_timeout_s=exercise.time_limit_s,
            launcher=launcher,
        )
    except (LoadFailed, ProcessFailed, SandboxFailure):
        return {}
    try:
        return run_probes(exercise, process)
    finally:
        process.close()


def common_hashes(exercise: Exercise) -> dict[str, set[str]]:
    """Probe name -> the hashes of the reference and of every ``solutions/*/correct/*.py``: what
    correct solutions share without sharing code. Computed once per exercise content (it runs
    each solution); a fresh dict each call."""
    cached = _common(exercise.root, exercise.content_hash())
    return {probe: set(hashes) for probe, hashes in cached.items()}


@lru_cache(maxsize=64)
def _common(root: Path, content_hash: str) -> dict[str, frozenset[str]]:
    from judge.exercises.exercise import load_exercise

    exercise = load_exercise(root)
    found: dict[str, set[str]] = {}
    paths = [exercise.reference_path, *exercise.correct_solutions()]
    for path in paths:
        if not path.is_file():
            continue
        for probe, digest in fingerprint_file(exercise, path).items():
            found.setdefault(probe, set()).add(digest)
    return {probe: frozenset(hashes) for probe, hashes in found.items()}
