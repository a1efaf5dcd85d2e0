"""The figure a failed check of a visible case carries: what the front doors draw.

Pure functions from counts and probabilities (plain Python numbers, no torch) to the JSON dict
that :attr:`judge.reports.report.CheckRecord.figure` holds, so the server, the CLI and the browser's
Pyodide build make the same figure from the same counts. ``docs/report.md`` documents the shapes;
the front doors are the site and the browser's Run (``web/frontend``) and the terminal
(:mod:`judge.reports.render`).

A figure is made only for a check that failed in a case whose suite is not hidden (the checks
ask :attr:`judge.checks.testing.Context.visible`): the counts of a hidden case are its inputs' shadow.
Its size is bounded: at most :data:`MAX_BARS` bars plus the worst cells among the rest (at most
:data:`WORST_CELLS`), and one pooled bar for every other outcome.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

MAX_BARS = 24  # the most probable outcomes drawn one bar each; the others are pooled in one
WORST_CELLS = 3  # at most this many cells are marked worst
WORST_RESIDUAL = 3.0  # a cell is marked worst only when |observed - expected| / sqrt(expected) reaches this
DISTRIBUTION, CALIBRATION = "distribution", "calibration"  # the figures' ``type``


def _rounded(value: float | None) -> float | None:
    """``value`` to 3 decimals (what a picture can show), None as it is."""
    return round(value, 3) if value is not None and math.isfinite(value) else value


def distribution_figure(
    counts: Sequence[int], probs: Sequence[float], *, outcome: str = "token", outcome_zh: str | None = None
) -> dict[str, Any]:
    """The ``distribution`` figure of one row's draws against its target.

    ``counts``: how often each outcome was drawn, ``[V]`` ints (``counts[i]`` for outcome id ``i``);
    ``probs``: its target, ``[V]`` floats >= 0 summing to 1; ``outcome``/``outcome_zh``: the noun of
    an outcome (``token``, ``number accepted``) in English and Chinese (English when not given).

    Returns ``{"type": "distribution", "outcome", "outcome_zh", "n", "bars", "rest", "worst"}``:

    - ``n``: the number of draws (the sum of ``counts``);
    - ``bars``: ``{"id", "target", "observed", "expected", "residual", "worst"}`` for the
      :data:`MAX_BARS` outcomes of largest target (ties by id), and any worst cell not among them,
      all sorted by target, largest first (ties by id); ``observed`` a count, ``expected`` =
      ``n * target``, ``residual`` = ``(observed - expected) / sqrt(expected)`` (None when
      ``expected`` is 0: an outcome the target excludes);
    - ``rest``: ``{"count", "target", "observed", "expected"}`` pooling every other outcome of
      positive target or positive count (``count`` of them), or None when there is none;
    - ``worst``: the ids of up to :data:`WORST_CELLS` worst cells: outcomes drawn although their
      target is 0 first (most drawn first), then those of largest ``|residual|`` that reach
      :data:`WORST_RESIDUAL`.

    Outcomes of target 0 that were never drawn appear nowhere. Raises ValueError when the two
    sequences differ in length.
    """
    if len(counts) != len(probs):
        raise ValueError(f"counts has {len(counts)} outcomes, probs {len(probs)}")
    n = sum(int(c) for c in counts)
    cells = [i for i in range(len(probs)) if probs[i] > 0 or counts[i] > 0]

    def residual(i: int) -> float | None:
        expected = n * float(probs[i])
        return (int(counts[i]) - expected) / math.sqrt(expected) if expected > 0 else None

    residuals = {i: residual(i) for i in cells}
    excluded_drawn = sorted((i for i in cells if probs[i] <= 0 and counts[i] > 0), key=lambda i: (-counts[i], i))
    large = sorted(
        (i for i in cells if (r := residuals[i]) is not None and abs(r) >= WORST_RESIDUAL),
        key=lambda i: (-abs(residuals[i] or 0.0), i),
    )
    worst = (excluded_drawn + large)[:WORST_CELLS]
    by_target = sorted(cells, key=lambda i: (-float(probs[i]), i))
    shown = set(by_target[:MAX_BARS]) | set(worst)
    marked = set(worst)
    bars = [
        {
            "id": i,
            "target": float(probs[i]),
            "observed": int(counts[i]),
            "expected": _rounded(n * float(probs[i])),
            "residual": _rounded(residuals[i]),
            "worst": i in marked,
        }
        for i in by_target
        if i in shown
    ]
    others = [i for i in by_target if i not in shown]
    rest = None
    if others:
        target = math.fsum(float(probs[i]) for i in others)
        rest = {
            "count": len(others),
            "target": target,
            "observed": sum(int(counts[i]) for i in others),
            "expected": _rounded(n * target),
        }
    return {
        "type": DISTRIBUTION,
        "outcome": outcome,
        "outcome_zh": outcome_zh or outcome,
        "n": n,
        "bars": bars,
        "rest": rest,
        "worst": worst,
    }


def calibration_figure(n: int, levels: Sequence[tuple[float, int, float, float, bool]]) -> dict[str, Any]:
    """The ``calibration`` figure of one call of error bars: their coverage per multiplier z.

    ``n``: how many intervals were checked; ``levels``: ``(z, covered, low, high, passed)`` per z,
    in the call's order: ``covered`` of the ``n`` intervals ``estimate +- z * error`` covered the
    truth; a correct procedure covers with probability in ``[low, high]`` (``low == high`` when it
    is known exactly); ``passed``: whether that z's test passed.

    Returns ``{"type": "calibration", "n", "levels"}``, each level ``{"z", "covered", "expected",
    "passed"}``: ``expected`` is the coverage a correct procedure has (a probability), and, for a
    coverage only bounded, the point of ``[low, high]`` nearest the observed share ``covered / n``
    (the level also carries ``low`` and ``high`` then).
    """
    shown = []
    for z, covered, low, high, passed in levels:
        share = covered / n if n else 0.0
        level: dict[str, Any] = {
            "z": float(z),
            "covered": int(covered),
            "expected": float(min(max(share, low), high)),
            "passed": bool(passed),
        }
        if low != high:
            level["low"], level["high"] = float(low), float(high)
        shown.append(level)
    return {"type": CALIBRATION, "n": int(n), "levels": shown}
