"""Similarity of learners' source texts, one exercise at a time, and what a course makes of it.

The engine is copydetect's winnowing (PyPI ``copydetect``, MIT licence; Schleimer, Wilkerson and
Aiken, "Winnowing", SIGMOD 2003) over our own Python-aware token stream
(:mod:`judge.similarity.tokens`): every run of :data:`K` tokens is hashed, and in every window of
:data:`WINDOW` consecutive hashes the smallest is kept as a fingerprint, so a common run of at least
``K + WINDOW - 1`` tokens is always found, and one shorter than ``K`` never is. Hashes are stable
(no per-process salt): the same sources give the same scores in every process.

What the exercise brings (docs/similarity.md says why and with which figures):

- **boilerplate** (:func:`boilerplate_for`): every ``K``-token run of the starter, the reference,
  the correct and the catalogued wrong solutions is removed from every source before comparing.
  A learner pasting the starter shares nothing with another who did.
- **rare fragments weigh more**: short correct samplers converge on the same few lines (sort,
  cumsum, mask, renormalise). A fingerprint found in ``df`` of the ``N`` sources compared together
  weighs ``log((N + 1) / df)``: one that every source has weighs almost nothing, one that only the
  pair shares weighs the most.

The similarity of a pair is the weighted Dice coefficient of their fingerprint sets,
``2 W(A ∩ B) / (W(A) + W(B))``: 1 for two copies, 0 for two sources sharing no rare run.

Across a course, :func:`across_exercises` gathers a pair's exercises above the threshold, and
:func:`clusters` groups learners linked by suspicious pairs. Nothing here reads the database or
knows about the site: keys are the caller's.
"""

from __future__ import annotations

import math
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING

from judge.exercises.exercise import Exercise
from judge.exercises.folders import ExerciseError
from judge.similarity.tokens import Token, normalised_tokens

if TYPE_CHECKING:
    import numpy as np

K = 12  # tokens per hashed run: shorter common runs (one call, one expression) are noise
WINDOW = 6  # winnowing window: any common run of K + WINDOW - 1 = 17 tokens is always found
# The similarity at or above which a pair is worth an instructor's look (benchmarks/similarity.py;
# docs/similarity.md has the figures). Callers choose their own; the engine's default reports every pair.
SUGGESTED_THRESHOLD = 0.4
SUGGESTED_CONTAINMENT = 0.7  # the same for PairScore.containment: padded copies (docs/similarity.md)
_HASH_BITS = 52  # copydetect's pure-Python winnow compares hashes as floats: keep them exact in a double


@dataclass(frozen=True)
class Source:
    """One learner's code for one exercise: the caller's id (a submission id as text) and its text."""

    key: str
    text: str


@dataclass(frozen=True)
class Fragment:
    """A run of code found in both sources: ``[start, end)`` character offsets in each one's text."""

    left: tuple[int, int]
    right: tuple[int, int]


@dataclass(frozen=True)
class PairScore:
    """Two sources (``left < right``, their keys), how similar they are (0..1) and the code they share."""

    left: str
    right: str
    similarity: float  # 0..1, the weighted share of the two sources' rare fingerprints they share
    fragments: tuple[Fragment, ...]  # by position in the left source
    # The weighted share of the smaller side's rare fingerprints found in the other: a copy padded
    # with unrelated code keeps it high while its similarity falls (docs/similarity.md, "Limits").
    containment: float = 0.0


@dataclass(frozen=True)
class ExercisePair:
    """Two learners' similarity on one exercise (``a < b``, the caller's learner keys)."""

    exercise: str
    a: str
    b: str
    similarity: float


@dataclass(frozen=True)
class CoursePair:
    """Two learners across a course: the exercises where they are above the threshold, and a score to rank by."""

    a: str
    b: str
    exercises: tuple[str, ...]  # where the pair is at or above the threshold, sorted
    score: float  # the sum of those similarities; ranked after the number of exercises (across_exercises)


@dataclass(frozen=True)
class _Prints:
    """A source's fingerprints (boilerplate removed): hash -> token positions where its run starts."""

    tokens: list[Token]
    positions: dict[int, list[int]]


def boilerplate_for(exercise: Exercise) -> list[str]:
    """The starter, the reference, every correct solution and every catalogued (wrong) solution's
    text: code every learner is given or may converge on, excluded from matching.

    Files that are missing are skipped, and so is a wrong solution whose patch no longer applies
    (an authoring problem ``check`` reports; it must not stop a similarity check).
    """
    paths = [exercise.starter_path, exercise.reference_path, *exercise.correct_solutions()]
    try:
        paths += exercise.wrong_solutions()
    except ExerciseError:
        paths += [p for p in exercise.wrong_solution_files() if p.suffix == ".py"]
    return [path.read_text(encoding="utf-8") for path in paths if path.is_file()]


def compare_sources(
    sources: Sequence[Source],
    boilerplate: Sequence[str] = (),
    *,
    threshold: float = 0.0,
    containment_threshold: float | None = None,
    k: int = K,
    window: int = WINDOW,
    rarity: bool = True,
) -> list[PairScore]:
    """Every pair of ``sources`` whose similarity is at or above ``threshold``, most similar first
    (ties by keys), each with the fragments the two share. With ``containment_threshold``, a pair
    whose containment reaches it is kept too (a copy padded with unrelated code).

    ``sources`` are one exercise's submissions: the rarity of a fingerprint is counted among them.
    ``boilerplate`` texts (:func:`boilerplate_for`) never count. ``rarity=False`` weighs every
    fingerprint alike (the benchmark's comparison; the site keeps the default). A source shorter than ``k`` tokens,
    or made of boilerplate only, has no fingerprints and scores 0 with every other.

    Raises ValueError for two sources with one key, a threshold outside [0, 1], or ``k`` or
    ``window`` below 1; ImportError where copydetect (the ``site`` extra) is not installed, which
    :func:`judge.extras.missing_extra` turns into the line that says how to install it.
    """
    for name, value in (("threshold", threshold), ("containment_threshold", containment_threshold)):
        if value is not None and not 0.0 <= value <= 1.0:
            raise ValueError(f"{name} must be within [0, 1], not {value!r}")
    if k < 1 or window < 1:
        raise ValueError(f"k and window must be at least 1, not {k!r} and {window!r}")
    keys = [source.key for source in sources]
    repeated = sorted(key for key, count in Counter(keys).items() if count > 1)
    if repeated:
        raise ValueError(f"each source needs its own key; repeated: {', '.join(repeated)}")
    excluded = set().union(*(_run_hashes(normalised_tokens(text), k) for text in boilerplate))
    prints = {source.key: _fingerprints(source.text, excluded, k, window) for source in sources}
    frequency = Counter(h for found in prints.values() for h in found.positions)
    weight = {h: math.log((len(sources) + 1) / df) if rarity else 1.0 for h, df in frequency.items()}
    totals = {key: sum(weight[h] for h in found.positions) for key, found in prints.items()}
    scores = []
    for left, right in combinations(sorted(prints), 2):
        shared = prints[left].positions.keys() & prints[right].positions.keys()
        common = sum(weight[h] for h in shared)
        both, smaller = totals[left] + totals[right], min(totals[left], totals[right])
        similarity = min(2 * common / both, 1.0) if both else 0.0  # min: float rounding over identical sets
        containment = min(common / smaller, 1.0) if smaller else 0.0
        if similarity < threshold and (containment_threshold is None or containment < containment_threshold):
            continue
        fragments = _fragments(prints[left], prints[right], shared, k) if shared else ()
        scores.append(PairScore(left, right, similarity, fragments, containment))
    scores.sort(key=lambda score: (-score.similarity, score.left, score.right))
    return scores


def _token_ids(tokens: list[Token]) -> list[int]:
    return [zlib.crc32(tok.text.encode("utf-8")) for tok in tokens]


def _run_hashes(tokens: list[Token], k: int) -> np.ndarray:
    """The stable hash of every run of ``k`` tokens, in order (empty for fewer than ``k`` tokens).

    A tuple of ints hashes the same in every process (only str and bytes hashes are salted).
    """
    import numpy as np

    ids = _token_ids(tokens)
    mask = (1 << _HASH_BITS) - 1
    return np.array([hash(tuple(ids[i : i + k])) & mask for i in range(len(ids) - k + 1)], dtype=np.int64)


def _fingerprints(text: str, excluded: set[int], k: int, window: int) -> _Prints:
    """The winnowed fingerprints of ``text`` less the ``excluded`` (boilerplate) ones."""
    from copydetect.utils import winnow  # imports matplotlib: only when a comparison runs

    tokens = normalised_tokens(text)
    hashes = _run_hashes(tokens, k)
    positions: dict[int, list[int]] = defaultdict(list)
    if len(hashes):
        selected, where = winnow(hashes, window_size=window, remove_duplicates=False)
        for value, position in zip(selected.tolist(), where.tolist(), strict=True):
            if value not in excluded:
                positions[value].append(position)
    return _Prints(tokens, dict(positions))


def _fragments(left: _Prints, right: _Prints, shared: set[int], k: int) -> tuple[Fragment, ...]:
    """The shared fingerprints grown into fragments: matches on one diagonal (the same shift between
    the two sources) whose runs touch or overlap are one fragment; a fragment inside another is dropped.

    Every fragment covers token runs equal on both sides (hash collisions aside): two matches are
    joined only when the gap between their starts is at most ``k``, so no unmatched token lies between.
    """
    matches = sorted(
        (b - a, a) for h in shared for a in left.positions[h][:4] for b in right.positions[h][:4]
    )  # [:4]: a fingerprint repeated many times in both adds matches, not information
    runs: list[tuple[int, int, int]] = []  # (shift, first token, last run's start) on the left
    for shift, start in matches:
        if runs and runs[-1][0] == shift and start - runs[-1][2] <= k:
            runs[-1] = (shift, runs[-1][1], start)
        else:
            runs.append((shift, start, start))
    spans = [(first, last + k, shift) for shift, first, last in runs]
    kept = [
        span
        for span in spans
        if not any(o != span and o[0] <= span[0] and span[1] <= o[1] and o[1] - o[0] > span[1] - span[0] for o in spans)
    ]
    fragments = {
        Fragment(
            (left.tokens[first].start, left.tokens[end - 1].end),
            (right.tokens[first + shift].start, right.tokens[end - 1 + shift].end),
        )
        for first, end, shift in kept
    }
    return tuple(sorted(fragments, key=lambda f: (f.left, f.right)))


def across_exercises(pairs: Iterable[ExercisePair], *, threshold: float) -> list[CoursePair]:
    """The pairs of learners at or above ``threshold`` on at least one exercise, ranked by how many
    exercises, then by their score (the sum of those exercises' similarities), then by keys: a pair
    similar on three exercises ranks above one similar on one, whatever the threshold (the sum alone
    would only promise it for thresholds above 1/3). A pair given as ``(b, a)`` counts as ``(a, b)``;
    an exercise given twice for one pair keeps its highest similarity."""
    best: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for pair in pairs:
        if pair.similarity < threshold or pair.a == pair.b:
            continue
        key = (min(pair.a, pair.b), max(pair.a, pair.b))
        seen = best[key].get(pair.exercise, -1.0)
        best[key][pair.exercise] = max(seen, pair.similarity)
    course = [CoursePair(a, b, tuple(sorted(found)), sum(found.values())) for (a, b), found in best.items()]
    course.sort(key=lambda pair: (-len(pair.exercises), -pair.score, pair.a, pair.b))
    return course


def clusters(pairs: Iterable[tuple[str, str]]) -> list[frozenset[str]]:
    """The connected components (two or more members) of the graph whose edges are ``pairs``:
    learners linked by a chain of suspicious pairs. Largest first, then by their smallest member."""
    parent: dict[str, str] = {}

    def root(node: str) -> str:
        parent.setdefault(node, node)
        while parent[node] != node:
            parent[node] = parent[parent[node]]  # path halving keeps the trees flat
            node = parent[node]
        return node

    for a, b in pairs:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[str, set[str]] = defaultdict(set)
    for node in parent:
        groups[root(node)].add(node)
    found = [frozenset(group) for group in groups.values() if len(group) >= 2]
    return sorted(found, key=lambda group: (-len(group), min(group)))
