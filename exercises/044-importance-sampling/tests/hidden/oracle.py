"""Exact answers of exercise 44, computed in the judge's process (float64, row by row with math.fsum).

Written apart from the reference solution (which uses torch): each row's log-weights are taken as
the input tensors hold them, shifted by their maximum, and summed with ``math.fsum``. Also what
each known mistake returns, for the diagnoses: the overflowing ones computed as the mistake would,
in the input's dtype.
"""

from __future__ import annotations

import math

import torch

from judge.i18n import Bilingual

from ..public.checks44 import WeightCase, tolerance

NAN = float("nan")


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _sum(terms) -> float:
    """math.fsum, or the plain sum (inf or NaN) when a term or the sum is not finite."""
    terms = list(terms)
    try:
        return math.fsum(terms)
    except (OverflowError, ValueError):
        return sum(terms)


def _row(lw: list[float], f: list[float], cap: float, dtype: torch.dtype) -> dict[str, float]:
    """The answers of one row (``ordinary`` NaN where not judged) and each mistake's, keyed output/mistake."""
    n = len(lw)
    top = max(lw)
    s = [math.exp(v - top) for v in lw]
    total = math.fsum(s)
    weighted = math.fsum(a * b for a, b in zip(s, f, strict=True))
    sn = weighted / total
    info = torch.finfo(dtype)
    # "below 0.6 times the dtype's largest value and above e^40 times its smallest normal value, and the
    # estimate below half the largest value": evaluated on the log-weights as the dtype holds them.
    judged = math.log(info.tiny) + 40 < top < math.log(0.6 * info.max)
    ordinary = _exp(top) * (weighted / n)
    if judged and abs(ordinary) >= info.max / 2:
        judged = False
    squares = math.fsum(v * v for v in s)
    ess = total * total / squares
    log_cap = math.log(cap)  # any cap, a huge int too
    cap = _exp(log_cap) if isinstance(cap, int) and log_cap > 709 else float(cap)  # as a float (inf past its range)
    capped = [math.exp(min(v, log_cap)) if min(v, log_cap) < 709 else math.inf for v in lw]
    truncated = _sum(c * b for c, b in zip(capped, f, strict=True)) / n
    # "judged on rows where sum_i min(w_i, c) |f(x_i)| is below half the dtype's largest value"
    truncated_judged = _sum(c * abs(b) for c, b in zip(capped, f, strict=True)) < info.max / 2
    # Each row's scale, which its rounding error is relative to (the statement's "right to rounding").
    absolute = math.fsum(a * abs(b) for a, b in zip(s, f, strict=True))
    scales = {
        "ordinary": _exp(top) * (absolute / n) if judged else NAN,
        "self_normalized": absolute / total,
        "ess": ess,
        "truncated": _sum(c * abs(b) for c, b in zip(capped, f, strict=True)) / n if truncated_judged else NAN,
    }
    # What the mistakes below compute from the same numbers.
    sum_w = _exp(top) * total  # the weights' sum, as exp(logsumexp) gives it: inf past the dtype's range
    overflowed = math.copysign(math.inf, sn) if sn != 0 else NAN
    sum_overflow = overflowed if sum_w > info.max else sum_w * sn / n
    normalized = [v / total for v in s]
    entropy = -math.fsum(v * math.log(v) for v in normalized if v > 0)
    scaled = [n * v for v in normalized]  # mean 1
    cv_sample = n / (1 + math.fsum((v - 1) ** 2 for v in scaled) / (n - 1)) if n > 1 else 1.0
    capped_total = _sum(capped)
    truncated_sn = _sum(a * b for a, b in zip(capped, f, strict=True)) / capped_total if capped_total else NAN
    # Sums of w f taken in log space, logsumexp(log w + log f): the log of a negative f is NaN.
    log_f = NAN if min(f) < 0 else None
    # exp(row max) times the sum of the shifted w f, in the dtype, before dividing by N: inf once that
    # product overflows (the other form of the overflowing ordinary estimate).
    product = _exp(top) * weighted
    product_overflow = math.copysign(math.inf, product) if abs(product) > info.max else product / n
    out = {
        "ordinary": ordinary if judged else NAN,
        "raw_ordinary": ordinary,  # what the formula gives where it is not judged (for the inverted mistake)
        "self_normalized": sn,
        "ess": ess,
        "truncated": truncated if truncated_judged else NAN,
        "raw_truncated": truncated,
        **{f"scale/{key}": value for key, value in scales.items()},
        # Mistakes (computed in float64, overflowing to inf where the mistake would).
        "ordinary/ordinary_is_self_normalized": sn,
        "ordinary/ordinary_softmax_mean": sn / n,
        "ordinary/ordinary_sum_overflows": sum_overflow,
        "ordinary/ordinary_sum_overflows_product": product_overflow,
        "ordinary/log_of_f": ordinary if log_f is None else log_f,
        "self_normalized/log_of_f": sn if log_f is None else log_f,
        "self_normalized/sn_is_ordinary": ordinary,
        "ess/ess_unnormalized": 1.0 / (_exp(2 * top) * squares) if _exp(2 * top) * squares > 0 else math.inf,
        "ess/ess_n_over_mean_square": n * n / (_exp(2 * top) * squares) if _exp(2 * top) * squares > 0 else math.inf,
        "ess/ess_numerator_not_squared": total / squares,
        "ess/ess_entropy": math.exp(entropy),
        "ess/ess_cv_sample_variance": cv_sample,
        "truncated/clip_after_normalizing": math.fsum(min(n * v / total, cap) * b for v, b in zip(s, f, strict=True))
        / n,
        "truncated/clip_after_max_shift": math.fsum(min(v, cap) * b for v, b in zip(s, f, strict=True)) / n,
        "truncated/truncated_self_normalized": truncated_sn,
        "truncated/clip_floor": _sum(max(_exp(v), cap) * b for v, b in zip(lw, f, strict=True)) / n,
        "truncated/clip_log_cap": _sum(_exp(min(v, cap)) * b for v, b in zip(lw, f, strict=True)) / n,
        "truncated/cap_ignored": ordinary,
        "truncated/clip_two_sided": _sum(_exp(max(min(v, log_cap), -log_cap)) * b for v, b in zip(lw, f, strict=True))
        / n,
        "truncated/cap_on_product": _sum(min(_exp(v) * b, cap) for v, b in zip(lw, f, strict=True)) / n,
    }
    return out


def _inverted(lw: list[float], f: list[float], cap: float, dtype: torch.dtype) -> dict[str, float]:
    row = _row([-v for v in lw], f, cap, dtype)
    # The mistake computes its estimates on every row: never NaN where the right answer is not judged.
    return {"ordinary": row["raw_ordinary"], "truncated": row["raw_truncated"]} | {
        key: row[key] for key in ("self_normalized", "ess")
    }


def weight_case(log_p: torch.Tensor, log_q: torch.Tensor, f: torch.Tensor, cap: float, public: Bilingual) -> WeightCase:
    """The exact answers for these inputs (as their dtype holds them) and what each mistake returns."""
    dtype = log_p.dtype
    # log p - log q as the learner's dtype computes it (one rounding), then exact from there on.
    lw_rows = (log_p - log_q).to(torch.float64).tolist()
    f_rows = f.to(torch.float64).tolist()
    rows = [_row(lw, fr, cap, dtype) for lw, fr in zip(lw_rows, f_rows, strict=True)]
    inverted = [_inverted(lw, fr, cap, dtype) for lw, fr in zip(lw_rows, f_rows, strict=True)]

    def column(values, key):
        return torch.tensor([v[key] for v in values], dtype=torch.float64)

    answers = {key: column(rows, key) for key in ("ordinary", "self_normalized", "ess", "truncated")}
    scales = {key: column(rows, f"scale/{key}") for key in answers}
    # The naive computation, in the dtype, as such a submission would do it.
    lw = log_p - log_q
    w = lw.exp()
    naive = {
        "ordinary": (w * f).mean(dim=1),
        "self_normalized": (w * f).sum(dim=1) / w.sum(dim=1),
        "ess": w.sum(dim=1) ** 2 / (w * w).sum(dim=1),
    }
    # p and q exponentiated one by one, in the dtype: each side may underflow (0 / 0) though the ratio is fine.
    r = log_p.exp() / log_q.exp()
    each_side = {
        "ordinary": (r * f).mean(dim=1),
        "self_normalized": (r * f).sum(dim=1) / r.sum(dim=1),
        "ess": r.sum(dim=1) ** 2 / (r * r).sum(dim=1),
        "truncated": ((r.clamp(max=cap) if cap < torch.finfo(dtype).max else r) * f).mean(dim=1),
    }
    rel = tolerance(dtype, log_p, log_q)
    mistakes: dict[str, dict[str, torch.Tensor]] = {}
    for output in answers:
        options: dict[str, torch.Tensor] = {"inverted_log_weights": column(inverted, output)}
        for key in rows[0]:
            if key.startswith(output + "/"):
                options[key.split("/", 1)[1]] = column(rows, key)
        if output in naive:
            options["naive_exp"] = naive[output].to(torch.float64)
        options["exp_each_side"] = each_side[output].to(torch.float64)
        # Keep a mistake only where it differs from the answer somewhere (else it names nothing here).
        right = answers[output]
        distinct = {}
        for name, values in options.items():
            both = ~torch.isnan(right)
            gap = (values[both] - right[both]).abs() > 100 * rel * (right[both].abs() + 1)
            if bool(gap.any()) or bool((~torch.isfinite(values[both])).any()):
                distinct[name] = values
        mistakes[output] = distinct
    return WeightCase(
        log_p,
        log_q,
        f,
        answers["ordinary"],
        answers["self_normalized"],
        answers["ess"],
        answers["truncated"],
        cap,
        public,
        mistakes,
        scales,
    )
