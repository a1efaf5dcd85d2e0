"""sample_surrogate judged through its draws, shared by the hidden suite and the browser's tiny suite (at
its own sizes).

With ``group_size = 1`` an estimate is g(x) of the one response drawn, and the targets below give their
responses distinct values of g, so each estimate reads back as the response behind it. Every check reads
the draws first: a statistical check only ever sees draws that are draws, and an estimate that is no
value of g fails as such (named only when every estimate of the call is a known mistake's value). The
response with q = 0 stands last in one target and first in the other, where inverse-CDF searches fall
off an end.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import torch

from judge.checks.base import fail
from judge.checks.distributions import expect_distribution, expect_support
from judge.checks.draw_sites import expect_every_draw_site
from judge.checks.estimators import expect_unbiased
from judge.checks.exact import expect_tensor
from judge.checks.generator_contract import expect_generator_contract
from judge.i18n import Bilingual

from .diagnoses import MISTAKES

F64 = torch.float64
NAME = "sample_surrogate"
CLIP = 0.2  # sample_surrogate's default clip_eps
# Each target: (p, q, A). Rows sum to 1; the response with q = 0 has p = 0 too (drawing from p never picks it).
TARGETS = (
    ((0.1, 0.35, 0.2, 0.1, 0.25, 0.0), (0.3, 0.25, 0.2, 0.15, 0.1, 0.0), (1.0, -0.5, 2.0, -1.5, 0.7, 3.0)),
    ((0.0, 0.3, 0.3, 0.2, 0.1, 0.1), (0.0, 0.1, 0.2, 0.3, 0.25, 0.15), (-2.0, 1.5, -1.0, 0.5, -0.4, 1.2)),
)


def table(p: Sequence[float], q: Sequence[float], a: Sequence[float], *, clip: bool = True) -> torch.Tensor:
    """g(x) per response in float64 (NaN where q = 0: no estimate may read as it)."""
    pt, qt, at = (torch.tensor(v, dtype=F64) for v in (p, q, a))
    r = pt / qt.clamp(min=1e-300)
    g = torch.minimum(r * at, r.clamp(1 - CLIP, 1 + CLIP) * at) if clip else r * at
    return torch.where(qt > 0, g, torch.full_like(g, float("nan")))


def expected_value(p, q, a, *, clip: bool = True, draw_from=None) -> float:
    """E[g(x)] for x drawn from ``draw_from`` (q by default)."""
    weights = torch.tensor(q if draw_from is None else draw_from, dtype=F64)
    values = table(p, q, a, clip=clip)
    return float((weights * torch.nan_to_num(values)).sum() / weights.sum())


def without_replacement_value(p, q, a, group_size: int) -> float:
    """E[the group's mean of g] when a group's responses are drawn one by one without replacement, each in
    proportion to q among those left (every ordered group enumerated: V is 6 here)."""
    values = torch.nan_to_num(table(p, q, a)).tolist()
    live = [x for x, w in enumerate(q) if w > 0]
    total = 0.0
    for group in itertools.permutations(live, group_size):
        chance, left = 1.0, 1.0
        for x in group:
            chance *= q[x] / left
            left -= q[x]
        total += chance * sum(values[x] for x in group) / group_size
    return total


def standard_deviation(p, q, a) -> float:
    weights = torch.tensor(q, dtype=F64)
    values = torch.nan_to_num(table(p, q, a))
    mean = (weights * values).sum()
    return float(((weights * (values - mean) ** 2).sum()) ** 0.5)


def batch(order: Sequence[int], dtype: torch.dtype = F64) -> dict:
    """One row per entry of ``order`` (a target's index), as sample_surrogate's tensors; ``clip_eps`` is left
    to its default, 0.2 (the statement's signature), which the tables assume."""
    p = torch.tensor([TARGETS[t][0] for t in order], dtype=dtype)
    q = torch.tensor([TARGETS[t][1] for t in order], dtype=dtype)
    a = torch.tensor([TARGETS[t][2] for t in order], dtype=dtype)
    return {"p_new": p, "p_old": q, "advantages": a}


def read(ctx, value, order: Sequence[int], dtype: torch.dtype, what: str) -> torch.Tensor:
    """The response behind each estimate of a group_size = 1 call, int64 [len(order)]."""
    value = expect_tensor(value, name=NAME, shape=(len(order),), dtype=dtype, device=ctx.device).to(F64)
    tolerance = 1e-5 if dtype == torch.float32 else 1e-10
    tables = torch.stack([table(*TARGETS[t]) for t in order])
    hits = (value.unsqueeze(1) - tables).abs() <= tolerance * (1 + tables.abs())
    readable = hits.any(dim=1)
    if not bool(readable.all()):
        row = int((~readable).nonzero()[0])
        diagnosis = None
        unclipped = torch.stack([table(*TARGETS[t], clip=False) for t in order])
        if bool(((value.unsqueeze(1) - unclipped).abs() <= tolerance * (1 + unclipped.abs())).any(dim=1).all()):
            diagnosis = MISTAKES["sample_unclipped"]
        fail(
            f"{what}: with group_size=1 every estimate must be g(x) of one response x with q(x) > 0; row {row} "
            f"returned {float(value[row])!r}, which is none of {[round(float(v), 6) for v in tables[row]]}",
            diagnosis=diagnosis,
            rule=Bilingual(
                f"{NAME}: with group_size=1 an estimate is no value g(x) of a response with q(x) > 0",
                f"{NAME}：group_size=1 时，估计值不是任何 q(x) > 0 的回答的 g(x)",
            ),
            kind="value",
        )
    return hits.to(torch.int64).argmax(dim=1)


def check_draws(sub, ctx, copies: int, dtype: torch.dtype = F64) -> None:
    """``copies`` rows of each target, interleaved, group_size = 1: each target's responses follow q."""
    order = [t for _ in range(copies) for t in range(len(TARGETS))]
    what = f"{NAME}({copies} rows of each of {len(TARGETS)} targets, group_size=1, {dtype})"
    value = sub.sample_surrogate(**batch(order, dtype), group_size=1, generator=ctx.generator())
    ids = read(ctx, value, order, dtype, what)
    for t, (p, q, _) in enumerate(TARGETS):
        draws = ids[t :: len(TARGETS)]
        label = f"{what}, target {t}"
        probs = torch.tensor(q, dtype=F64)
        expect_support(
            draws.unsqueeze(0),
            probs.unsqueeze(0),
            what=label,
            why_excluded=lambda row, x: f"response {x} has q = 0 and is never drawn",
            outcome=("response", "回答"),
        )
        expect_distribution(
            ctx,
            draws,
            probs,
            label=label,
            public=Bilingual(f"{NAME}: the responses drawn", f"{NAME}：抽到的回答"),
            alternatives={MISTAKES["samples_from_p"]: torch.tensor(p, dtype=F64)},
            outcome=("response", "回答"),
        )


def check_unbiased(sub, ctx, rows: int, group_size: int, target: int = 0) -> None:
    """``rows`` rows of one target (weights scaled off 1), ``group_size`` draws each: the estimates average to
    E_q[g], not to E_p[A] (no clipping) nor E_p[g] (drawn from p)."""
    p, q, a = TARGETS[target]
    kwargs = batch([target] * rows)
    kwargs["p_new"] = kwargs["p_new"] * 3.0
    kwargs["p_old"] = kwargs["p_old"] * 0.5
    what = f"{NAME}({rows} rows of target {target}, group_size={group_size}, weights not summing to 1)"
    value = sub.sample_surrogate(**kwargs, group_size=group_size, generator=ctx.generator())
    value = expect_tensor(value, name=NAME, shape=(rows,), dtype=F64, device=ctx.device)
    raw = table([3.0 * v for v in p], [0.5 * v for v in q], a)
    mistakes = {
        MISTAKES["sample_unclipped"]: expected_value(p, q, a, clip=False),
        **(
            {MISTAKES["draws_without_replacement"]: without_replacement_value(p, q, a, group_size)}
            if group_size <= sum(w > 0 for w in q)
            else {}
        ),
        MISTAKES["samples_from_p"]: expected_value(p, q, a, draw_from=p),
        MISTAKES["weights_not_normalized"]: float((torch.tensor(q, dtype=F64) * torch.nan_to_num(raw)).sum()),
    }
    expect_unbiased(
        ctx,
        value,
        expected_value(p, q, a),
        std=standard_deviation(p, q, a) / group_size**0.5,
        label=what,
        public=Bilingual(f"{NAME}: the mean of the estimates", f"{NAME}：估计值的平均"),
        mistakes=mistakes,
    )


def check_extremes(sub, ctx, dtypes: Sequence[torch.dtype] = (F64, torch.float32)) -> int:
    """Each draw site pushed to 0 and to the largest float below 1: every estimate still reads as a
    response with q > 0."""
    pushed = 0
    order = [0, 1, 1, 0]
    for dtype in dtypes:
        label = f"{NAME}(4 rows, group_size=1, {dtype})"

        def call(source, generator, dtype=dtype):
            return source.sample_surrogate(**batch(order, dtype), group_size=1, generator=generator)

        def check(value, what, dtype=dtype):
            read(ctx, value, order, dtype, what)

        pushed += expect_every_draw_site(sub, ctx, call, check, label=label)
    return pushed


CONTRACT_ORDER = (0, 0, 1)  # rows 0 and 1 are twins


def contract_probs() -> torch.Tensor:
    return torch.tensor([TARGETS[t][1] for t in CONTRACT_ORDER], dtype=F64)


def check_generator(sub, ctx, copies: int, position_copies: int, *, positions: bool = True) -> None:
    """The whole generator contract on the responses read off the estimates (rows' positions and the twin
    rows' independence with ``positions``)."""
    count = len(CONTRACT_ORDER)

    def draw(source, generator, rows=None):
        chosen = list(range(count)) if rows is None else list(rows)
        many = copies if rows is None else position_copies
        order = [CONTRACT_ORDER[chosen[i]] for _ in range(many) for i in range(count)]
        what = f"{NAME}({count} targets x {many} rows, group_size=1)"
        value = source.sample_surrogate(**batch(order), group_size=1, generator=generator)
        ids = read(ctx, value, order, F64, what)
        return ids.reshape(many, count).T.contiguous()

    expect_generator_contract(
        sub,
        ctx,
        draw,
        contract_probs(),
        label=f"{NAME}(group_size=1)",
        public=Bilingual(NAME, NAME),
        positions=positions,
        twins=(0, 1) if positions else None,
        outcome=("response", "回答"),
    )
