"""Token similarity of sources (the interface of sim-engine's module).

# STAND-IN: replaced by sim-engine at merge. A throwaway k-gram overlap over normalized tokens
(names, strings and numbers replaced by their kind, so a renamed copy is still a copy), written
only so that the site's similarity pages run and are tested before the real engine merges.
"""

from __future__ import annotations

import io
import itertools
import tokenize
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from keyword import iskeyword

from judge.exercises.exercise import Exercise

K = 6  # tokens per k-gram


@dataclass(frozen=True)
class Source:
    key: str
    text: str


@dataclass(frozen=True)
class Fragment:
    left: tuple[int, int]
    right: tuple[int, int]


@dataclass(frozen=True)
class PairScore:
    left: str
    right: str
    similarity: float
    fragments: tuple[Fragment, ...]


@dataclass(frozen=True)
class ExercisePair:
    exercise: str
    a: str
    b: str
    similarity: float


@dataclass(frozen=True)
class CoursePair:
    a: str
    b: str
    exercises: tuple[str, ...]
    score: float


def boilerplate_for(exercise: Exercise) -> list[str]:
    """The starter's code: what every learner was given."""
    try:
        return [exercise.starter_path.read_text(encoding="utf-8")]
    except OSError:
        return []


def _tokens(text: str) -> list[tuple[str, int, int]]:
    lines = text.splitlines(keepends=True)
    starts = [0, *itertools.accumulate(len(line) for line in lines)]
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
                continue
            if token.type == tokenize.ENDMARKER:
                break
            kind = token.string
            if token.type == tokenize.NAME and not iskeyword(token.string):
                kind = "V"
            elif token.type == tokenize.STRING:
                kind = "S"
            elif token.type == tokenize.NUMBER:
                kind = "N"
            (row, col), (end_row, end_col) = token.start, token.end
            found.append((kind, starts[row - 1] + col, starts[end_row - 1] + end_col))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return found


def _grams(text: str) -> dict[tuple[str, ...], tuple[int, int]]:
    tokens = _tokens(text)
    grams: dict[tuple[str, ...], tuple[int, int]] = {}
    for i in range(len(tokens) - K + 1):
        window = tokens[i : i + K]
        grams.setdefault(tuple(kind for kind, _, _ in window), (window[0][1], window[-1][2]))
    return grams


def compare_sources(
    sources: Sequence[Source], boilerplate: Sequence[str] = (), *, threshold: float = 0.0
) -> list[PairScore]:
    common = set().union(*(_grams(text) for text in boilerplate)) if boilerplate else set()
    grams = [(source.key, {g: s for g, s in _grams(source.text).items() if g not in common}) for source in sources]
    scores = []
    for (left, a), (right, b) in itertools.combinations(grams, 2):
        if not a or not b:
            continue
        shared = a.keys() & b.keys()
        similarity = 2 * len(shared) / (len(a) + len(b))
        if similarity >= threshold and shared:
            fragments = tuple(Fragment(a[g], b[g]) for g in shared)
            scores.append(PairScore(left, right, similarity, fragments))
    return scores


def across_exercises(pairs: Iterable[ExercisePair], *, threshold: float) -> list[CoursePair]:
    by_pair: dict[tuple[str, str], list[ExercisePair]] = {}
    for pair in pairs:
        if pair.similarity >= threshold:
            by_pair.setdefault(tuple(sorted((pair.a, pair.b))), []).append(pair)  # type: ignore[arg-type]
    found = [
        CoursePair(a, b, tuple(p.exercise for p in group), sum(p.similarity for p in group))
        for (a, b), group in by_pair.items()
    ]
    return sorted(found, key=lambda pair: -pair.score)


def clusters(pairs: Iterable[tuple[str, str]]) -> list[frozenset[str]]:
    groups: list[set[str]] = []
    for a, b in pairs:
        touching = [group for group in groups if a in group or b in group]
        merged = {a, b}.union(*touching)
        groups = [group for group in groups if group not in touching] + [merged]
    return [frozenset(group) for group in groups]
