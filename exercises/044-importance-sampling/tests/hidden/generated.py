"""Batches of importance_estimates / effective_sample_size / truncated_estimate inputs drawn afresh under a
case's seed, each row a different kind of trouble, with the oracle's exact answers (:mod:`oracle`).

Rows: moderate log-weights; offsets in the hundreds (every single weight beyond the dtype, judged only
where the statement judges them); weights just below 0.6 x the dtype's largest value, whose sum overflows;
one weight dominating; ties (every log-weight equal; two equal maxima); f of mixed sign whose terms cancel;
log-densities hundreds below 0 whose difference is small; non-dyadic float64 values throughout. Caps: an
int, a float that ties with a weight, a tiny one, one near the dtype's largest value.
"""

from __future__ import annotations

import math
import random

import torch

from judge.i18n import Bilingual

from ..public.weights44 import WeightCase
from .oracle import weight_case

# Log-weight offsets the statement allows, per dtype: SN and ESS must be right at any of them.
_FAR = {torch.float64: 900.0, torch.float32: 100.0}


def _near_overflow(dtype: torch.dtype) -> float:
    """A log-weight a little below log(0.6 x the dtype's largest value): judged, and four such weights'
    sum overflows."""
    return math.log(0.6 * torch.finfo(dtype).max) - 0.05


def _row(kind: str, n: int, dtype: torch.dtype, rng: random.Random) -> tuple[list[float], list[float], list[float]]:
    """(log p, log q, f) of one row of ``kind``."""
    gauss = rng.gauss
    log_q = [gauss(-2.0, 1.5) for _ in range(n)]
    f = [gauss(0.5, 3.0) for _ in range(n)]
    if kind == "moderate":
        lw = [gauss(0.0, 2.0) for _ in range(n)]
    elif kind == "far":
        offset = rng.choice((-1, 1)) * rng.uniform(0.5, 1.0) * _FAR[dtype]
        lw = [offset + gauss(0.0, 0.2 * _FAR[dtype]) for _ in range(n)]
        lw = [max(-_FAR[dtype], min(_FAR[dtype], v)) for v in lw]
    elif kind == "near_overflow":
        top = _near_overflow(dtype)
        lw = [top - abs(gauss(0.0, 0.5)) for _ in range(n)]
        lw[rng.randrange(n)] = top
    elif kind == "dominant":
        lw = [gauss(0.0, 1.0) for _ in range(n)]
        lw[rng.randrange(n)] = 0.6 * _FAR[dtype]
    elif kind == "all_equal":
        value = gauss(0.0, 30.0)
        lw = [value] * n
    elif kind == "two_maxima":
        lw = [gauss(0.0, 3.0) for _ in range(n)]
        top = max(lw) + 1.0
        for at in rng.sample(range(n), min(2, n)):
            lw[at] = top
    elif kind == "cancelling":
        lw = [gauss(0.0, 0.1) for _ in range(n)]
        f = [(-1.0) ** i * 5.0 + gauss(0.0, 1e-3) for i in range(n)]
    elif kind == "sequences":
        log_q = [-rng.uniform(100.0, 300.0) for _ in range(n)]  # exp(log q) underflows in float32
        lw = [gauss(0.0, 1.0) for _ in range(n)]
    else:
        raise KeyError(kind)
    log_p = [a + b for a, b in zip(log_q, lw, strict=True)]
    return log_p, log_q, f


KINDS = ("moderate", "far", "near_overflow", "dominant", "all_equal", "two_maxima", "cancelling", "sequences")


def _cap(log_p: torch.Tensor, log_q: torch.Tensor, rng: random.Random) -> float | int:
    """A cap of one of the kinds the statement allows."""
    kind = rng.choice(("int", "tie", "tiny", "near_max", "float"))
    if kind == "int":
        return rng.choice((1, 2, 3))
    if kind == "tie":  # exactly a weight of the batch, as the dtype computes its log-weight
        lw = (log_p - log_q).to(torch.float64).flatten()
        moderate = lw[(lw.abs() < 20)]
        chosen = float(moderate[rng.randrange(moderate.numel())]) if moderate.numel() else 0.5
        return math.exp(chosen)
    if kind == "tiny":
        return 2.0**-30
    if kind == "near_max":  # at most the dtype's largest value (a larger cap is left open)
        return 1e300 if log_p.dtype == torch.float64 else 1e38
    return round(rng.uniform(0.3, 4.0), 3)


def generated_case(rng: random.Random, dtype: torch.dtype) -> WeightCase:
    """A batch of one row of each kind (in an order of the seed's), N from 1 to 12, in ``dtype``."""
    n = rng.choice((1, 2, 3, 5, 8, 12))
    kinds = list(KINDS)
    rng.shuffle(kinds)
    rows = [_row(kind, n, dtype, rng) for kind in kinds]
    log_p = torch.tensor([r[0] for r in rows], dtype=torch.float64).to(dtype)
    log_q = torch.tensor([r[1] for r in rows], dtype=torch.float64).to(dtype)
    f = torch.tensor([r[2] for r in rows], dtype=torch.float64).to(dtype)
    cap = _cap(log_p, log_q, rng)
    name = str(dtype).removeprefix("torch.")
    public = Bilingual(
        f"{len(rows)} generated {name} rows of {n} samples (far, near overflow, ties, cancelling, sequences)",
        f"{len(rows)} 行随机生成的 {name} 数据，每行 {n} 个样本（远离 0、接近溢出、相等值、相互抵消、序列）",
    )
    return weight_case(log_p, log_q, f, cap, public)
