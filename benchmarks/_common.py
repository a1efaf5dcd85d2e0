"""Helpers shared by the benchmark scripts (not a benchmark itself).

Each script in ``benchmarks/`` puts the project root on ``sys.path`` and then imports this
module as ``benchmarks._common``. Nothing here is used by the judge.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import math
import os
import platform
import statistics
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

EXERCISE_ID = "39"


def machine() -> dict[str, Any]:
    """What the figures were measured on: date, versions, CPU count, load."""
    import torch

    info: dict[str, Any] = {
        "date": _dt.date.today().isoformat(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
    }
    try:
        info["load_average_1m"] = round(os.getloadavg()[0], 2)
    except OSError:
        pass
    try:
        import scipy

        info["scipy"] = scipy.__version__
    except ImportError:
        pass
    return info


def console():
    """A rich console that stays readable when the output is a file or a pipe (120 columns)."""
    from rich.console import Console

    probe = Console()
    return probe if probe.is_terminal else Console(width=120)


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolation percentile, ``q`` in [0, 100] (numpy's default method)."""
    data = sorted(values)
    if not data:
        return math.nan
    position = (len(data) - 1) * q / 100.0
    low = math.floor(position)
    high = min(low + 1, len(data) - 1)
    return data[low] + (data[high] - data[low]) * (position - low)


def median(values: Iterable[float]) -> float:
    data = list(values)
    return statistics.median(data) if data else math.nan


def write_json(path: str | Path, data: dict[str, Any]) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(_plain(data), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _plain(value: Any) -> Any:
    """JSON has no NaN/inf; write them as strings (as judge/reports/report.py does)."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def load_exercise_tests(exercise):
    """Import the exercise's public and hidden suites the way the runner does; return the tests package name.

    After this, ``sys.modules[package + ".hidden.cases"]`` and ``.hidden.oracle`` are the very
    modules the suites use (same caches), so a benchmark sees exactly the frozen cases the judge sees.
    """
    from judge.exercises.suites import load_suite, suites_package

    for suite in ("public", "hidden"):
        load_suite(exercise, suite)
    return suites_package(exercise)


def fmt_ms(value: float) -> str:
    return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"


def fmt_p(value: float) -> str:
    if value == 0:
        return "0"
    if value >= 1e-3:
        return f"{value:.3f}"
    return f"{value:.2e}"


# --- catalogues of deterministic judges (power_042.py, power_045.py) -----------------------------


def spaced_seeds(count: int, base: int) -> list[int]:
    """``count`` master seeds from ``base``, spaced by a prime."""
    return [base + 7919 * i for i in range(count)]


@contextlib.contextmanager
def warm_launcher(launcher=None) -> Iterator[Any]:
    """``launcher``, or a :class:`~judge.sandbox.launchers.WarmLocalLauncher` closed on the way out:
    a catalogue's learner processes are forked from one server instead of importing torch each."""
    if launcher is not None:
        yield launcher
        return
    from judge.sandbox.launchers import WarmLocalLauncher

    with WarmLocalLauncher() as warm:
        yield warm


def catalogue_kills(exercise, seeds: list[int], launcher=None) -> list[dict]:
    """For a deterministic judge (exercises 42, 45): each known-wrong solution under ``seeds``,
    the check that kills it, the case that names it, and P(kill with the promised diagnosis).
    ``launcher`` starts the learner processes (default: a warm one for this call)."""
    from judge.authoring.catalogue import diagnosis_found, judge_under_seeds, normalized_diagnosis, parse_wrong_solution
    from judge.verdicts import Verdict

    rows = []
    with warm_launcher(launcher) as launcher:
        judged = {p: judge_under_seeds(exercise, p, seeds, launcher=launcher) for p in exercise.wrong_solutions()}
    for path, reports in judged.items():
        solution = parse_wrong_solution(path)
        killed = [r.verdict != Verdict.AC for r in reports]
        diagnosed = [diagnosis_found(r, solution.diagnosis, prefix=solution.diagnosis.prefix) for r in reports]
        first = reports[0]
        failing = [c for c in first.cases if c.verdict != Verdict.AC]
        promised = normalized_diagnosis(solution.diagnosis)
        naming = [
            c
            for c in failing
            if c.diagnosis
            and (
                normalized_diagnosis(c.diagnosis) == promised
                or (solution.diagnosis.prefix and normalized_diagnosis(c.diagnosis).startswith(promised))
            )
        ]
        rows.append(
            {
                "mistake": solution.name,
                "verdict": first.verdict.value,
                "killed_by": f"{failing[0].suite}: {failing[0].title}" if failing else "",
                "diagnosed_by": f"{naming[0].suite}: {naming[0].name}" if naming else "",
                "failing_cases": len(failing),
                "cases": len(first.cases),
                "killed_every_seed": all(killed),
                "diagnosed_every_seed": all(diagnosed),
                "p_kill": sum(k and d for k, d in zip(killed, diagnosed, strict=True)) / len(reports),
                "diagnosis": str(solution.diagnosis),
            }
        )
    return rows


def reference_runs(exercise, seeds: list[int], launcher=None) -> dict:
    """The reference under ``seeds``: its failures (0 for a deterministic judge) and its suite time.
    ``launcher`` starts the learner processes (default: a warm one for this call)."""
    from judge.authoring.catalogue import judge_under_seeds
    from judge.verdicts import Verdict

    with warm_launcher(launcher) as launcher:
        reports = judge_under_seeds(exercise, exercise.solutions_root / "reference.py", seeds, launcher=launcher)
    failures = sum(r.verdict != Verdict.AC for r in reports)
    totals_ms = [sum(c.time_ms for c in r.cases) for r in reports]
    cpu_ms = [sum(c.cpu_ms or 0.0 for c in r.cases) for r in reports]
    slowest = max(reports[-1].cases, key=lambda c: c.time_ms)
    return {
        "seeds": len(seeds),
        "failures": failures,
        "suite_ms_median": sorted(totals_ms)[len(totals_ms) // 2],
        "suite_cpu_ms_median": sorted(cpu_ms)[len(cpu_ms) // 2],
        "slowest_case": f"{slowest.suite}: {slowest.title} ({slowest.time_ms:.0f} ms)",
    }
