"""Check an exercise's browser variant the way the browser runs it: reference AC, wrong ones caught.

    python -m judge.browser.catalogue 39 [--seed S]

Runs in a fresh interpreter with the torch subset installed as ``torch`` (so nothing of real
torch can help), judges the reference and every known-wrong solution on the browser variant,
and prints one JSON object per solution: ``{"name", "verdict", "diagnosis", "expected_diagnosis",
"diagnosed", "undetectable"}``. The exercise's ``[browser.undetectable]`` list must hold exactly
the wrong solutions that pass (tests/exercises/test_browser_variants.py checks it).
"""

from __future__ import annotations

import argparse
import json
import sys


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m judge.browser.catalogue")
    parser.add_argument("exercise")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)

    import judge.browser.torchlike as subset

    subset.install()  # before anything imports torch
    from judge.browser.run import run_browser_variant
    from judge.catalogue import diagnosis_found, parse_wrong_solution
    from judge.exercise import resolve

    exercise = resolve(args.exercise)
    if exercise.browser is None:
        print(f"exercise {exercise.number} has no browser variant", file=sys.stderr)
        return 2
    report = json.loads(run_browser_variant(str(exercise.root), exercise.reference_path.read_text(), args.seed))
    print(json.dumps({"name": "reference", "verdict": report["verdict"], "message": report.get("message")}))
    for path in exercise.wrong_solutions():
        wrong = parse_wrong_solution(path)
        report = json.loads(run_browser_variant(str(exercise.root), path.read_text(), args.seed))
        print(json.dumps({"name": path.stem, "verdict": report["verdict"], "diagnosis": report.get("diagnosis"),
                          "expected_diagnosis": wrong.diagnosis,
                          "diagnosed": diagnosis_found(report, wrong.diagnosis),
                          "undetectable": exercise.browser.undetectable.get(path.stem)}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
