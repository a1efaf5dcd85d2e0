"""Behavioural fingerprints of gradings (the interface of sim-fingerprint's module).

# STAND-IN: replaced by sim-fingerprint at merge: a throwaway comparison of two fingerprints
(probe name → hash of what the code drew), so that the site's pages run before the real one merges.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from judge.exercises.exercise import Exercise


@dataclass(frozen=True)
class BehaviourMatch:
    compared: int
    identical: int
    strong: bool


def behaviour_match(
    a: Mapping[str, str],
    b: Mapping[str, str],
    *,
    common: Mapping[str, set[str]] = {},  # noqa: B006
) -> BehaviourMatch:
    probes = [probe for probe in a.keys() & b.keys() if a[probe] not in common.get(probe, set())]
    identical = sum(1 for probe in probes if a[probe] == b[probe])
    return BehaviourMatch(len(probes), identical, len(probes) >= 3 and identical == len(probes))


def common_hashes(exercise: Exercise) -> dict[str, set[str]]:
    return {}
