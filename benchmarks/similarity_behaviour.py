#!/usr/bin/env python3
"""The behavioural signal of similarity, validated on the catalogue (docs/similarity-behaviour.md).

    .venv/bin/python benchmarks/similarity_behaviour.py [--exercises 1,39] [--no-cost] [--json PATH]

For each exercise: the fingerprint (judge.engine.probing) of its reference and of every
``solutions/*/correct/*.py``; then, for every pair of them, the probes with identical hashes out
of the probes compared, with the hashes of the *other* catalogued solutions (the reference's
included, unless it is one of the pair) dropped as common, as a site drops the whole catalogue's
(judge.similarity.behaviour.behaviour_match). A pair of independent solutions that comes out
``strong`` is a false positive of the signal, unless the two draw the same stream by the same
algorithm: the script lists every pair with an identical probe for that reading. Then the cost:
the reference judged with ``fingerprint=True`` on public + hidden, the probes' learner CPU against
the cases' learner CPU.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from judge.engine.runner import judge_file  # noqa: E402
from judge.exercises.exercise import load_all  # noqa: E402
from judge.similarity.behaviour import behaviour_match, fingerprint_file  # noqa: E402


def _label(path: Path) -> str:
    return "reference" if path.name == "reference.py" else path.stem


def validate(exercise, cost: bool = True) -> dict:
    paths = [exercise.reference_path, *exercise.correct_solutions()]
    prints = {_label(p): fingerprint_file(exercise, p) for p in paths}
    pairs = []
    for a, b in itertools.combinations(prints, 2):
        common: dict[str, set[str]] = {}
        for other, fingerprint in prints.items():
            if other not in (a, b):
                for probe, digest in fingerprint.items():
                    common.setdefault(probe, set()).add(digest)
        raw = behaviour_match(prints[a], prints[b])
        match = behaviour_match(prints[a], prints[b], common=common)
        pairs.append(
            {
                "pair": [a, b],
                "raw_identical": raw.identical,
                "raw_compared": raw.compared,
                "identical": match.identical,
                "compared": match.compared,
                "strong": match.strong,
            }
        )
    result = {
        "exercise": exercise.number,
        "probes": len(exercise.similarity.probes),
        "solutions": len(paths),
        "fingerprints": prints,
        "pairs": pairs,
    }
    if cost:
        result["cost"] = _cost(exercise)
    return result


def _cost(exercise) -> dict:
    """The reference judged on public + hidden with the probes: their learner CPU against the cases'."""
    report = judge_file(exercise, exercise.reference_path, seed=1, fingerprint=True)
    cases_cpu = sum(c.cpu_ms or 0.0 for c in report.cases)
    probe_cpu = report.timing.get("fingerprint_cpu_ms", 0.0)
    return {
        "verdict": report.verdict.value,
        "cases_cpu_ms": round(cases_cpu, 1),
        "probe_cpu_ms": round(probe_cpu, 1),
        "probe_wall_ms": round(report.timing.get("fingerprint_ms", 0), 1),
        "grading_wall_ms": round(report.time_ms, 1),
        "cpu_ratio": round(probe_cpu / cases_cpu, 4) if cases_cpu else None,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--exercises", default="", help="numbers, comma-separated (default: every exercise)")
    parser.add_argument("--no-cost", action="store_true", help="skip judging the references (the cost)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    wanted = {int(n) for n in args.exercises.split(",") if n}
    results = [validate(e, not args.no_cost) for e in load_all() if not wanted or e.number in wanted]
    for result in results:
        cost = result.get("cost")
        strong = sum(pair["strong"] for pair in result["pairs"])
        print(
            f"exercise {result['exercise']}: {result['probes']} probes, {result['solutions']} solutions, "
            f"{len(result['pairs'])} pairs, {strong} strong"
            + (
                f"; probes {cost['probe_cpu_ms']} ms CPU vs cases {cost['cases_cpu_ms']} ms ({cost['cpu_ratio']})"
                if cost
                else ""
            )
        )
        for pair in result["pairs"]:
            if pair["raw_identical"]:
                print(
                    f"  {' ~ '.join(pair['pair'])}: {pair['raw_identical']}/{pair['raw_compared']} identical; "
                    f"{pair['identical']}/{pair['compared']} after the others' hashes, strong={pair['strong']}"
                )
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
