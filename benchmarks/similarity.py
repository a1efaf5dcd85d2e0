#!/usr/bin/env python3
"""Similarity of submissions: does the token engine find disguised copies and spare independent work?

    .venv/bin/python benchmarks/similarity.py [--copies 3] [--threshold 0.5] [--quick] [--seed N]
        [--behaviour] [--json PATH]

The corpus, per exercise: ``solutions/NNN-*/reference.py``, ``solutions/NNN-*/correct/*.py`` and
``benchmarks/similarity_corpus/NNN-*/*.py`` (correct solutions written for this benchmark), all
correct, each written by an author on purpose differently. Many of the catalogue's correct
solutions were made by editing the reference (only the sampling step differs); a pair whose lines
match at ``difflib`` ratio >= ``DERIVED`` is counted as **derived**, not independent, and reported
apart: they do share most of their code.

Three kinds of pairs, each exercise's sources compared together (``compare_sources``, the
starter as the boilerplate, as the site compares one exercise's submissions):

* **copies**: each source against ``--copies`` disguised copies of itself
  (``benchmarks/similarity_obfuscator.py``: every identifier renamed, black-like or compact layout,
  docstrings reworded, comments added, functions reordered, dead code added), each under its own seed;
  and, to see which disguise costs what, each disguise alone. Recall: the share at or above the threshold.
* **independent**: two different sources of one exercise that are not derived. False-positive
  rate: the share at or above the threshold.
* **cross-exercise**: every pair of sources from two different exercises, compared in one pool
  (every starter the boilerplate). They must score low.

``--behaviour`` adds the behavioural signal of ``judge.similarity.behaviour`` (written separately:
issue 35's sim-fingerprint) where that module exists: a pair is flagged when its token similarity
reaches the threshold OR its behaviour match is strong. See ``behaviour_hook``.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import itertools
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rich.table import Table  # noqa: E402

from benchmarks._common import console as make_console  # noqa: E402
from benchmarks._common import machine, write_json  # noqa: E402
from benchmarks.similarity_obfuscator import DISGUISES, obfuscate  # noqa: E402
from judge.exercises.exercise import Exercise, load_all  # noqa: E402
from judge.similarity import Source, compare_sources  # noqa: E402
from judge.similarity.text import SUGGESTED_THRESHOLD, WINDOW, K  # noqa: E402

CORPUS = ROOT / "benchmarks" / "similarity_corpus"
DERIVED = 0.5  # difflib line ratio at or above which two catalogue solutions count as one edited from the other
ENGINE: dict = {}  # compare_sources' options from the command line (--k, --window, --no-rarity)
PADDED = "all + padding"  # every disguise, and another exercise's reference appended first
THRESHOLDS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7)


@dataclass(frozen=True)
class Solution:
    exercise: Exercise
    name: str  # "reference", "correct/x", "corpus/x"
    path: Path

    @property
    def key(self) -> str:
        return f"{self.exercise.number:03d}:{self.name}"

    @property
    def text(self) -> str:
        return self.path.read_text(encoding="utf-8")


def solutions(exercise: Exercise) -> list[Solution]:
    found = [Solution(exercise, "reference", exercise.reference_path)]
    found += [Solution(exercise, f"correct/{p.stem}", p) for p in exercise.correct_solutions()]
    found += [Solution(exercise, f"corpus/{p.stem}", p) for p in sorted((CORPUS / exercise.folder).glob("*.py"))]
    return [s for s in found if s.path.is_file()]


def derived(a: Solution, b: Solution) -> bool:
    """Whether one was written by editing the other (or both from a third): most of their lines are the same."""
    return difflib.SequenceMatcher(None, a.text.splitlines(), b.text.splitlines()).ratio() >= DERIVED


def keep_names(exercise: Exercise) -> frozenset[str]:
    """The exercise's declared functions and their parameters: a copy that must still pass keeps them."""
    return frozenset(itertools.chain.from_iterable((f.name, *f.params) for f in exercise.functions))


def exercise_scores(exercise: Exercise, seeds: list[int], disguises: dict[str, tuple[str, ...]], padding: str):
    """One pool per exercise: its sources and their disguised copies, compared together.

    ``padding``: unrelated code (another exercise's reference) appended to the PADDED copies before
    they are disguised (measured, not judged: the padded program need not run). Returns the copies'
    similarities by disguise, the independent and derived pairs, the seconds, the pool's size, and
    the containment (PairScore.containment) of the copies by disguise and of the independent pairs.
    """
    own = solutions(exercise)
    pool = [Source(s.key, s.text) for s in own]
    copies: dict[str, list[tuple[str, str]]] = {}  # disguise set name -> [(original key, copy key)]
    for label, chosen in [*disguises.items(), (PADDED, DISGUISES)]:
        for s in own:
            for seed in seeds:
                key = f"{s.key}~{label}~{seed}"
                text = s.text + "\n\n" + padding if label == PADDED else s.text
                pool.append(Source(key, obfuscate(text, seed, keep=keep_names(exercise), disguises=chosen)))
                copies.setdefault(label, []).append((s.key, key))
    boilerplate = [exercise.starter_path.read_text(encoding="utf-8")]
    started = time.perf_counter()
    found = {(p.left, p.right): p for p in compare_sources(pool, boilerplate, **ENGINE)}
    elapsed = time.perf_counter() - started
    scores = {pair: p.similarity for pair, p in found.items()}
    copy_scores = {label: [scores[tuple(sorted(pair))] for pair in pairs] for label, pairs in copies.items()}
    contained = {label: [found[tuple(sorted(pair))].containment for pair in pairs] for label, pairs in copies.items()}
    independent, edited, independent_contained = [], [], []
    for a, b in itertools.combinations(own, 2):
        pair = tuple(sorted((a.key, b.key)))
        (edited if derived(a, b) else independent).append((a.key, b.key, scores[pair]))
        if not derived(a, b):
            independent_contained.append(found[pair].containment)
    return copy_scores, independent, edited, elapsed, len(pool), contained, independent_contained


def cross_scores(exercises: list[Exercise]) -> list[float]:
    """Every pair of sources from two different exercises, in one pool with every starter as boilerplate."""
    everything = [s for e in exercises for s in solutions(e)]
    boilerplate = [e.starter_path.read_text(encoding="utf-8") for e in exercises]
    scores = compare_sources([Source(s.key, s.text) for s in everything], boilerplate, **ENGINE)
    return [p.similarity for p in scores if p.left.split(":")[0] != p.right.split(":")[0]]


def share_at(values: list[float], threshold: float) -> float:
    return sum(v >= threshold for v in values) / len(values) if values else float("nan")


def behaviour_hook(exercises: list[Exercise], seeds: list[int], threshold: float, console) -> dict | None:
    """THE BEHAVIOUR HOOK (--behaviour): the behavioural signal of ``judge.similarity.behaviour``.

    Each pair is compared as a site compares two learners: the hashes every *other* catalogued
    solution draws are common (dropped when both sides share them), the pair's own are not. Copies
    are one disguised copy of each source with every disguise, plain and padded with another
    exercise's reference (the padded program must still run: the padding is appended, so it only
    defines more functions). Returns, per kind of pair, (flagged by the token similarity, strong by
    behaviour, flagged by either, pairs).
    """
    if importlib.util.find_spec("judge.similarity.behaviour") is None:
        console.print("[yellow]--behaviour: judge.similarity.behaviour is not here yet; token figures only[/yellow]")
        return None
    from judge.similarity import behaviour

    counts: dict[str, list[int]] = {"copies": [0, 0, 0, 0], "copies + padding": [0, 0, 0, 0],
                                    "independent": [0, 0, 0, 0]}

    def count(kind: str, token: float, strong: bool) -> None:
        row = counts[kind]
        row[0] += token >= threshold
        row[1] += strong
        row[2] += token >= threshold or strong
        row[3] += 1

    with tempfile.TemporaryDirectory() as folder:
        for number, exercise in enumerate(exercises):
            own = solutions(exercise)
            prints = {s.key: behaviour.fingerprint_file(exercise, s.path) for s in own}

            def common_without(*keys: str) -> dict[str, set[str]]:
                common: dict[str, set[str]] = {}
                for key, fingerprint in prints.items():
                    if key not in keys:
                        for probe, digest in fingerprint.items():
                            common.setdefault(probe, set()).add(digest)
                return common

            padding = exercises[(number + 1) % len(exercises)].reference_path.read_text(encoding="utf-8")
            boilerplate = [exercise.starter_path.read_text(encoding="utf-8")]
            for s in own:
                for kind, text in (("copies", s.text), ("copies + padding", s.text + "\n\n" + padding)):
                    copy = Path(folder) / f"{exercise.number:03d}_{seeds[0]}_{s.path.stem}.py"
                    copy.write_text(obfuscate(text, seeds[0], keep=keep_names(exercise)), encoding="utf-8")
                    token = compare_sources([Source("a", s.text), Source("b", copy.read_text())], boilerplate)
                    match = behaviour.behaviour_match(
                        prints[s.key], behaviour.fingerprint_file(exercise, copy), common=common_without(s.key)
                    )
                    count(kind, token[0].similarity if token else 0.0, match.strong)
            pool = compare_sources([Source(s.key, s.text) for s in own], boilerplate)
            token_of = {(p.left, p.right): p.similarity for p in pool}
            for a, b in itertools.combinations(own, 2):
                if derived(a, b):
                    continue
                match = behaviour.behaviour_match(prints[a.key], prints[b.key], common=common_without(a.key, b.key))
                count("independent", token_of.get(tuple(sorted((a.key, b.key))), 0.0), match.strong)
    return {kind: tuple(row) for kind, row in counts.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=3, help="disguised copies of each source (default 3)")
    parser.add_argument(
        "--threshold",
        type=float,
        default=SUGGESTED_THRESHOLD,
        help=f"the similarity that flags a pair (default {SUGGESTED_THRESHOLD})",
    )
    parser.add_argument("--quick", action="store_true", help="--copies 1, all disguises together only")
    parser.add_argument("--seed", type=int, default=20_261_207, help="first seed of the obfuscator")
    parser.add_argument(
        "--behaviour",
        action="store_true",
        help="add judge.similarity.behaviour's signal where that module exists (behaviour_hook)",
    )
    parser.add_argument("--k", type=int, default=K, help=f"tokens per hashed run (default {K})")
    parser.add_argument("--window", type=int, default=WINDOW, help=f"winnowing window (default {WINDOW})")
    parser.add_argument("--no-rarity", action="store_true", help="weigh every fingerprint alike (no rarity weighting)")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    ENGINE.update(k=args.k, window=args.window, rarity=not args.no_rarity)
    copies = 1 if args.quick else args.copies
    seeds = [args.seed + i for i in range(copies)]
    disguises = {"all": DISGUISES}
    if not args.quick:
        disguises |= {name: (name,) for name in DISGUISES}
    console = make_console()
    exercises = [e for e in load_all() if solutions(e)]
    console.print(
        f"[bold]similarity[/bold]: {len(exercises)} exercises, {copies} copies per source and disguise, "
        f"threshold {args.threshold}, engine {ENGINE}"
    )
    copy_scores: dict[str, list[float]] = {}
    independent: list[tuple[str, str, float]] = []
    edited: list[tuple[str, str, float]] = []
    containment: dict[str, list[float]] = {}  # "copies: all", ... -> PairScore.containment values
    per_exercise = Table(title="per exercise (all disguises together)")
    for column in (
        "exercise",
        "sources",
        "pool",
        "copies flagged",
        "lowest copy",
        "independent pairs",
        "flagged",
        "highest independent",
        "derived pairs",
        "compare s",
    ):
        per_exercise.add_column(column, justify="right" if column != "exercise" else "left")
    for number, exercise in enumerate(exercises):
        padding = exercises[(number + 1) % len(exercises)].reference_path.read_text(encoding="utf-8")
        found, alone, edits, elapsed, pool_size, contained, alone_contained = exercise_scores(
            exercise, seeds, disguises, padding
        )
        for label in ("all", PADDED):
            containment.setdefault(f"containment, copies: {label}", []).extend(contained[label])
        containment.setdefault("containment, independent (FP)", []).extend(alone_contained)
        for label, values in found.items():
            copy_scores.setdefault(label, []).extend(values)
        independent += alone
        edited += edits
        all_copies = found["all"]
        per_exercise.add_row(
            exercise.folder,
            str(len(solutions(exercise))),
            str(pool_size),
            f"{sum(v >= args.threshold for v in all_copies)}/{len(all_copies)}",
            f"{min(all_copies):.3f}",
            str(len(alone)),
            str(sum(v >= args.threshold for _, _, v in alone)),
            f"{max((v for _, _, v in alone), default=float('nan')):.3f}",
            str(len(edits)),
            f"{elapsed:.2f}",
        )
    console.print(per_exercise)
    cross = cross_scores(exercises)
    independent_values = [v for _, _, v in independent]
    edited_values = [v for _, _, v in edited]

    table = Table(title=f"flagged share by threshold (token similarity alone; chosen: {args.threshold})")
    table.add_column("pairs")
    table.add_column("n", justify="right")
    for threshold in THRESHOLDS:
        table.add_column(f">= {threshold}", justify="right")
    table.add_column("median", justify="right")
    rows = [(f"copies: {label}", values) for label, values in copy_scores.items()]
    rows += [
        ("independent (FP)", independent_values),
        ("derived (edited reference)", edited_values),
        ("cross-exercise (FP)", cross),
        *containment.items(),
    ]
    for label, values in rows:
        table.add_row(
            label,
            str(len(values)),
            *(f"{share_at(values, t):.3f}" for t in THRESHOLDS),
            f"{statistics.median(values):.3f}" if values else "-",
        )
    console.print(table)
    worst = sorted(independent, key=lambda row: -row[2])[:5]
    console.print("highest independent pairs: " + "; ".join(f"{a} ~ {b} {v:.3f}" for a, b, v in worst))
    figures = {
        "machine": machine(),
        "threshold": args.threshold,
        "copies": copies,
        "seed": args.seed,
        "recall": {label: share_at(values, args.threshold) for label, values in copy_scores.items()},
        "independent_fp": share_at(independent_values, args.threshold),
        "independent_pairs": len(independent_values),
        "derived_flagged": share_at(edited_values, args.threshold),
        "derived_pairs": len(edited_values),
        "cross_fp": share_at(cross, args.threshold),
        "cross_pairs": len(cross),
        "worst_independent": worst,
    }
    if args.behaviour:
        figures["behaviour"] = behaviour_hook(exercises, seeds, args.threshold, console)
        if figures["behaviour"]:
            console.print(
                "pairs flagged by token similarity / strong by behaviour / either, of all: "
                + "; ".join(
                    f"{kind} {token}/{strong}/{either} of {n}"
                    for kind, (token, strong, either, n) in figures["behaviour"].items()
                )
            )
    if args.json:
        write_json(args.json, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
