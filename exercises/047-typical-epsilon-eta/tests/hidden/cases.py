"""Exercise 47's frozen cases: the hidden batches (one method each, float32 and float64) and the inputs of
the browser's tiny batches, whose expected values and mistaken outputs are frozen in
``public/frozen47.py`` (``frozen_values`` computes them; tests/exercises/test_047_typical_epsilon_eta.py
holds the file to it and rewrites it with ``--write``).

Each batch is built so that every known mistake that touches its method moves some probability past
the tolerance and no two mistakes return the same batch (the diagnosis is never ambiguous): the
typical rows drop the most likely token, split a tie group at tau only if ties are broken by index,
and reach a float32 running total of 1 before a token of probability 5e-14 (tau = 1); the epsilon rows
hold a tie at the top below epsilon; the eta rows have -inf logits and temperatures that move the
threshold past a token. Every decision keeps the oracle's margin (``oracle.MARGIN``).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import torch

from judge.checks.base import Label
from judge.i18n import Bilingual

from .oracle import Call, mistakes_that_differ, target

NEG_INF = -math.inf


@dataclass(frozen=True)
class Batch:
    """One call of a frozen case: its inputs, row labels, exact target, and the mistakes that differ."""

    call: Call
    labels: tuple[Label, ...]
    exact: torch.Tensor
    per_row: bool = True

    def arguments(self) -> dict:
        """The call's keyword arguments: per-row float64 tensors (``per_row``), else the numbers."""
        if self.per_row:
            return {
                "logits": self.call.logits,
                "method": self.call.method,
                "param": torch.tensor(self.call.params, dtype=torch.float64),
                "temperature": torch.tensor(self.call.temperatures, dtype=torch.float64),
            }
        return {
            "logits": self.call.logits,
            "method": self.call.method,
            "param": self.call.params[0],
            "temperature": self.call.temperatures[0],
        }

    def mistakes(self) -> dict:
        return mistakes_that_differ(self.call, self.exact)


def _label(method: str, param: float, temperature: float, note: str, note_zh: str) -> Label:
    text = f"{method} {param:g}, temperature {temperature:g}" + (f", {note}" if note else "")
    public = Bilingual(f"{method}" + (f", {note}" if note else ""), f"{method}" + (f"，{note_zh}" if note_zh else ""))
    return Label(text, public)


def batch(rows, method: str, params, temperatures, notes, dtype=torch.float32, *, per_row=True) -> Batch:
    call = Call(torch.tensor(rows, dtype=dtype), method, tuple(params), tuple(temperatures))
    labels = tuple(_label(method, p, t, en, zh) for p, t, (en, zh) in zip(params, temperatures, notes, strict=True))
    return Batch(call, labels, target(call), per_row)


# --- the browser's tiny batches (inputs; their values are frozen in public/frozen47.py) ------------------

TINY = {
    "typical": (
        [
            [2.0, 1.0, 1.0, 0.0, -1.0, NEG_INF],
            [1.0, 1.0, 1.0, 0.2, -0.5, -2.0],
            [0.3, -0.4, 1.5, 0.9, -1.2, 0.0],
            [0.0, 0.0, -30.0, NEG_INF, NEG_INF, NEG_INF],
            [-0.5, 0.6, 0.1, -1.5, 0.9, 0.4],
        ],
        "typical",
        [0.3, 0.3, 0.3, 1.0, 0.9],
        [1.0, 1.0, 0.7, 1.0, 0.7],
    ),
    "epsilon": (
        [
            [0.5, 0.5, 0.4, 0.3, 0.2, 0.1],
            [2.0, 0.1, -0.3, 0.6, -1.0, 1.2],
            [1.1, -0.2, 0.4, NEG_INF, 0.0, 0.9],
            [-0.5, 0.6, 0.1, -1.5, 0.9, 0.4],
        ],
        "epsilon",
        [0.3, 0.1, 0.2, 0.1],
        [1.0, 0.7, 2.0, 1.5],
    ),
    "eta": (
        [
            [2.0, 1.0, 1.0, 0.0, -1.0, NEG_INF],
            [0.3, -0.4, 1.5, 0.9, -1.2, 0.0],
            [1.1, -0.2, 0.4, NEG_INF, 0.0, 0.9],
            [-0.5, 0.6, 0.1, -1.5, 0.9, 0.4],
        ],
        "eta",
        [0.2, 0.8, 0.8, 0.1],
        [1.5, 0.7, 2.0, 0.5],
    ),
    # The same rows sampled (temperature 0.8), then rows 0 and 2 greedy: a tie at the top of row 0.
    "greedy": (
        [[1.0, 2.5, 0.5, 2.5, -1.0, 0.0], [0.3, -0.4, 1.5, 0.9, -1.2, 0.0], [0.2, -0.1, 0.5, 0.0, 0.3, NEG_INF]],
        "eta",
        [0.1, 0.1, 0.1],
        [0.0, 1.3, 0.0],
    ),
    # Every probability of rows 0 and 2 below epsilon = 0.5 (no tie at their top); row 1 keeps one token.
    "above_top": (
        [[0.2, -0.1, 0.5, 0.0, 0.3, -0.4], [3.0, 0.0, 0.0, -1.0, 0.5, NEG_INF], [0.9, 0.1, -0.6, 0.4, NEG_INF, 0.0]],
        "epsilon",
        [0.5, 0.5, 0.5],
        [1.0, 1.0, 1.0],
    ),
}
# What each tiny batch's companion call changes first (the same rows without the twist: it must pass before
# the twist's call is judged, so the twist's failure is evidence of the twist alone).
TINY_PLAIN = {"greedy": ([0.1, 0.1, 0.1], [0.8, 1.3, 0.8]), "above_top": ([0.02, 0.02, 0.02], [1.0, 1.0, 1.0])}


def frozen_values(name: str) -> dict:
    """A tiny batch's inputs, exact target and mistaken outputs, as the literals public/frozen47.py holds."""
    rows, method, params, temperatures = TINY[name]
    call = Call(torch.tensor(rows, dtype=torch.float32), method, tuple(params), tuple(temperatures))
    exact = target(call)

    def literal(t: torch.Tensor) -> list[list[float]]:
        return [[float(f"{v:.12g}") for v in row] for row in t.tolist()]

    out = {
        "logits": rows,
        "method": method,
        "params": params,
        "temperatures": temperatures,
        "expected": literal(exact),
        "mistakes": {},
    }
    from ..public.diagnoses import MISTAKES

    keys = {str(text): key for key, text in MISTAKES.items()}
    for diagnosis, wrong in mistakes_that_differ(call, exact).items():
        out["mistakes"][keys[str(diagnosis)]] = literal(wrong)
    if name in TINY_PLAIN:
        plain_params, plain_temperatures = TINY_PLAIN[name]
        plain = Call(call.logits, method, tuple(plain_params), tuple(plain_temperatures))
        out["plain"] = {"params": plain_params, "temperatures": plain_temperatures, "expected": literal(target(plain))}
    return out


# --- the hidden suite's frozen batches -----------------------------------------------------------------


@functools.cache
def typical_rows(dtype: torch.dtype = torch.float64) -> Batch:
    """Typical sampling at temperature 1 and below/above it: the most likely token dropped, a tie group kept
    whole at the cut, -inf logits, tau = 1 with a running total that reaches 1 early."""
    return batch(
        [
            [2.0, 1.0, 1.0, 0.0, -1.0, NEG_INF, -0.5, 0.4],
            [1.0, 1.0, 1.0, 0.2, -0.5, -2.0, 0.6, -1.0],
            [0.3, -0.4, 1.5, 0.9, -1.2, 0.0, NEG_INF, 1.1],
            [0.0, 0.0, -30.0, NEG_INF, NEG_INF, NEG_INF, NEG_INF, NEG_INF],
            [-0.5, 0.6, 0.1, -1.5, 0.9, 0.4, 0.45, -0.2],
            [3.0, 0.5, 0.5, 0.5, -0.7, 1.8, NEG_INF, -2.5],
        ],
        "typical",
        [0.3, 0.35, 0.55, 1.0, 0.9, 0.6],
        [1.0, 1.0, 0.7, 1.0, 0.7, 1.6],
        [
            ("the most likely token dropped", "最可能的 token 被丢掉"),
            ("a tie group at the cut", "截断处有一组并列"),
            ("a -inf logit", "含 -inf logit"),
            ("tau = 1 after a running total of 1", "tau = 1，累计和提前到 1"),
            ("", ""),
            ("a tie group", "一组并列"),
        ],
        dtype,
    )
