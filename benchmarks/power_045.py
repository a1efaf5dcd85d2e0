#!/usr/bin/env python3
"""Power of exercise 45's suite: which check kills each known-wrong solution, its margins, its time.

    .venv/bin/python benchmarks/power_045.py [--seeds 5] [--reference-seeds 20] [--quick] [--json PATH]

Exercise 45 is deterministic: no case draws anything (the hidden cases are the real model's
logits and weights, computed at run time), so there is no sample size to tune and no
statistical power to estimate. A wrong solution is either killed by a hard check (a token that
differs, a value outside the tolerance, an exception, an accepted bad input) or it is not, and
the master seed cannot change that. This script measures what that claim needs:

* every file of ``solutions/045-real-model-distributions/wrong/`` is judged (public + hidden) under
  ``--seeds`` master seeds; reported: the verdict, the first case that fails (the check that
  kills it), how many cases fail, and whether the judge's diagnosis equals the file's promised
  ``Diagnosis:``. P(kill) is 1 when every seed kills it with the promised diagnosis;
* the reference is judged under ``--reference-seeds`` seeds: it must pass every one (false
  failures: 0, as a deterministic judge allows), and its per-case time and CPU time give the
  suite's time.

And what is particular to 45: the margins (the smallest distance of any hidden
``tokens_for_mass`` decision from flipping, in units of ``judge.exercises.models.LOGIT_TOLERANCE``), and
the time to load the model once (import transformers, from_pretrained, the passage's logits,
the quantized draft's) against the cost of the hidden suite once it is loaded; and, over the
master seeds, what the generated cases hold (``hidden/instances.py``, ``hidden/specs.py``): the
smallest margin of a generated ``tokens_for_mass`` row that is not one of the statement's exact
ties, how many rows land exactly on the mass, the group scales just under a 1e-8 clamp and of
exact halves, and how many bad calls and legal corners each function gets.

``--quick`` uses 1 seed per wrong solution and 3 for the reference (about a minute on two busy
cores: each judged file starts one learner process, which imports torch; the seed cannot change
a verdict here, so one is enough for a smoke test). Exits 1 if a wrong
solution survives a seed or gets another diagnosis, or if the reference fails a seed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._common import (  # noqa: E402
    catalogue_kills,
    console,
    machine,
    reference_runs,
    spaced_seeds,
    warm_launcher,
    write_json,
)
from judge.exercises.exercise import resolve  # noqa: E402

EXERCISE_ID = "45"


def model_figures(exercise) -> dict:
    """The one-time load, the warm cost of building every hidden case again, and the margins."""
    from judge.exercises import models
    from judge.exercises.suites import load_suite, suites_module

    started = time.perf_counter()
    import transformers  # noqa: F401  # the import alone is most of the load

    imported = time.perf_counter()
    models.tiny_qwen3()
    loaded = time.perf_counter()
    load_suite(exercise, "hidden")
    cases = suites_module(exercise, "hidden.cases")
    cases.target_logits()
    cases.draft_logits()
    built = time.perf_counter()
    builders = [cases.mass_real, cases.mass_half, cases.entropy_real, cases.entropy_low, cases.entropy_masked]
    for builder in builders:
        builder()
    warm_start = time.perf_counter()
    for builder in (*builders, cases.target_logits, cases.draft_logits, cases.decoder_weights):
        builder.cache_clear()
    for builder in builders:  # logits and the draft again, from the loaded model
        builder()
    warm = time.perf_counter()
    margin = min(cases.mass_real().margin, cases.mass_half().margin)
    return {
        "import_transformers_s": imported - started,
        "from_pretrained_s": loaded - imported,
        "logits_and_draft_s": built - loaded,
        "rebuild_cases_warm_s": warm - warm_start,
        "smallest_mass_margin": margin,
        "margin_in_logit_tolerances": margin / models.LOGIT_TOLERANCE,
    }


def generated_figures(exercise, seeds: list[int]) -> dict:
    """What the generated cases hold over ``seeds`` (each seed's draws as the suite makes them)."""
    import random

    from judge.checks.arguments import bad_inputs, legal_inputs
    from judge.exercises.suites import load_suite, suites_module

    load_suite(exercise, "hidden")
    instances = suites_module(exercise, "hidden.instances")
    oracle = suites_module(exercise, "hidden.oracle")
    specs = suites_module(exercise, "hidden.specs")
    margins, exact, small, halves = [], 0, 0, 0
    calls: dict[str, list[int]] = {}
    for seed in seeds:
        rng = random.Random(seed)
        for instance in instances.mass_instances(rng):
            found = oracle.mass_margin(instance.logits, instance.temperatures, instance.mass).tolist()
            margins += [m for row, m in enumerate(found) if row not in instance.exact_rows]
            exact += len(instance.exact_rows)
        for instance in instances.weight_instances(rng):
            scales = oracle.group_scales(instance.weight, instance.group_size)
            small += int(((scales > 1e-9) & (scales < 1e-8)).sum()) // instance.group_size
            halves += int(oracle.exact_scales(instance.weight, instance.group_size).sum()) // instance.group_size
        for name, good_call, arguments in (
            ("tokens_for_mass", specs.good_mass_call, specs.MASS_ARGUMENTS),
            ("entropy", specs.good_entropy_call, specs.ENTROPY_ARGUMENTS),
            ("acceptance_rate", specs.good_pair_call, specs.PAIR_ARGUMENTS),
        ):
            good = good_call(rng)
            bad = sum(len(bad_inputs(good_call(rng, form), arguments, rng)) for form in ("number", "tensor"))
            calls.setdefault(f"{name}: bad calls", []).append(bad)
            calls.setdefault(f"{name}: corners", []).append(len(legal_inputs(good, arguments, rng)))
        good = specs.good_quantize_call(rng)
        arguments = specs.quantize_arguments(good["group_size"])
        bad = len(bad_inputs(good, arguments, rng)) + len(specs.quantize_refusals(print, good, rng)) + 2
        calls.setdefault("fake_quantize_int4: bad calls", []).append(bad)
        calls.setdefault("fake_quantize_int4: corners", []).append(len(legal_inputs(good, arguments, rng)))
    return {
        "seeds": len(seeds),
        "smallest_generated_margin": min(margins),
        "exact_tie_rows": exact,
        "groups_under_the_clamp": small,
        "groups_of_exact_scale": halves,
        "calls": {k: (min(v), max(v)) for k, v in calls.items()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="master seeds per wrong solution")
    parser.add_argument("--reference-seeds", type=int, default=20, help="master seeds for the reference")
    parser.add_argument("--quick", action="store_true", help="1 seed per wrong solution, 3 for the reference")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.seeds, args.reference_seeds = 1, 3
    exercise = resolve(EXERCISE_ID)
    started = time.monotonic()
    figures = model_figures(exercise)
    generated = generated_figures(exercise, spaced_seeds(max(args.seeds, 20), 450))
    with warm_launcher() as launcher:  # one fork server for every learner process of the run
        rows = catalogue_kills(exercise, spaced_seeds(args.seeds, 45_000), launcher)
        reference = reference_runs(exercise, spaced_seeds(args.reference_seeds, 4_500_000), launcher)
    out = console()
    from rich.table import Table

    table = Table(title=f"Exercise 45: every known mistake under {args.seeds} seeds")
    for column in ("mistake", "verdict", "killed by (first failing case)", "failing", "P(kill)", "diagnosed"):
        table.add_column(column)
    for row in rows:
        table.add_row(
            row["mistake"],
            row["verdict"],
            row["killed_by"],
            f"{row['failing_cases']}/{row['cases']}",
            f"{row['p_kill']:.0f}",
            "yes" if row["diagnosed_every_seed"] else "NO",
        )
    out.print(table)
    out.print(
        f"reference: {reference['failures']} failures in {reference['seeds']} seeds; suite "
        f"{reference['suite_ms_median']:.0f} ms wall, {reference['suite_cpu_ms_median']:.0f} ms CPU of the "
        f"learner (median); slowest case {reference['slowest_case']}"
    )
    out.print(
        f"model: import transformers {figures['import_transformers_s']:.1f} s, from_pretrained "
        f"{figures['from_pretrained_s']:.2f} s, passage and draft logits {figures['logits_and_draft_s']:.2f} s; "
        f"every case rebuilt warm {1000 * figures['rebuild_cases_warm_s']:.0f} ms; smallest tokens_for_mass margin "
        f"{figures['smallest_mass_margin']:.2e} ({figures['margin_in_logit_tolerances']:.1f} x LOGIT_TOLERANCE)"
    )
    out.print(
        f"generated cases over {generated['seeds']} seeds: smallest margin of a tokens_for_mass row "
        f"{generated['smallest_generated_margin']:.2e} (exact ties aside: {generated['exact_tie_rows']} rows land "
        f"on the mass), {generated['groups_under_the_clamp']} groups of scale in (1e-9, 1e-8), "
        f"{generated['groups_of_exact_scale']} groups of exact scale; calls per case (min, max): "
        + ", ".join(f"{k} {lo}-{hi}" for k, (lo, hi) in generated["calls"].items())
    )
    out.print(f"measured in {time.monotonic() - started:.0f} s")
    bad = [r["mistake"] for r in rows if not (r["killed_every_seed"] and r["diagnosed_every_seed"])]
    if args.json:
        write_json(
            args.json,
            {
                "machine": machine(),
                "wrong": rows,
                "reference": reference,
                "seeds": args.seeds,
                "model": figures,
                "generated": generated,
            },
        )
    if bad or reference["failures"]:
        out.print(f"[red]not killed with the promised diagnosis: {bad}; reference failures: {reference['failures']}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
