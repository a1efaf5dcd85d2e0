"""The checks of exercise 1, shared by the browser's tiny suite and the hidden suite.

Public on purpose: nothing here is secret (the targets are just [1 - p, p]), and the browser
needs it. ``tiny.py`` and ``../hidden/hidden.py`` call these functions with their own sizes.
"""

from __future__ import annotations

import torch

from judge.checks.distributions import expect_distribution, expect_tokens_in_range
from judge.checks.exact import expect, expect_tensor
from judge.checks.generator_contract import expect_generator_contract, generator_contract_budget
from judge.checks.independence import expect_independent_rows
from judge.checks.refusals import BadInput, expect_bad_inputs_refused
from judge.i18n import Bilingual

SIDE = ("side", "面")  # the noun of one outcome in messages: "side 1", not "token 1"

SWAPPED = Bilingual(
    "the sides are swapped: 1 comes up with probability 1 - p instead of p",
    "两面弄反了：1 出现的概率是 1 - p，而不是 p",
)
ROUNDED = Bilingual(
    "the flips do not depend on chance: p is rounded (or compared with 0.5) instead of drawn against",
    "结果与随机无关：p 被四舍五入（或与 0.5 比较），而不是拿随机数去和它比较",
)
REPEATED = Bilingual(
    "each row repeats one flip n times instead of flipping n times", "每行只抛了一次再重复 n 次，而不是抛 n 次"
)
ZERO_GIVES_ONE = Bilingual(
    "p = 0 can still give a 1 (a uniform of exactly 0.0 passes u <= p; compare with u < p)",
    "p = 0 时仍可能得到 1（均匀随机数恰为 0.0 时 u <= p 成立；应当比较 u < p）",
)
ONE_GIVES_ZERO = Bilingual(
    "p = 1 can still give a 0 (a uniform of exactly 0.0 fails u > 1 - p; compare with u < p)",
    "p = 1 时仍可能得到 0（均匀随机数恰为 0.0 时 u > 1 - p 不成立；应当比较 u < p）",
)


def probs_of(p: list[float]) -> torch.Tensor:
    """The exact target of each row, float64 [B, 2]: side 0 with 1 - p, side 1 with p (p as float32 holds it)."""
    heads = torch.tensor(p, dtype=torch.float32).to(torch.float64)
    return torch.stack([1.0 - heads, heads], dim=1)


def flips(source, ctx, p: list[float], n: int, generator) -> torch.Tensor:
    """One call of ``flip``, its value checked: int64 [B, n] of 0s and 1s."""
    value = source.flip(torch.tensor(p, dtype=torch.float32), n, generator=generator)
    draws = expect_tensor(value, name="flip", shape=(len(p), n), dtype=torch.int64, device=ctx.device)
    expect_tokens_in_range(draws, 2, what="flip", outcome=SIDE)
    return draws


def check_rows_vary(sub, ctx, rows: int, n: int) -> None:
    """``rows`` fair coins flipped ``n`` times: a correct flip makes a constant row with chance 2**(1 - n)."""
    draws = flips(sub, ctx, [0.5] * rows, n, ctx.generator())
    constant = (draws == draws[:, :1]).all(dim=1)
    if not bool(constant.all()):
        return
    same = bool((draws == draws[0, 0]).all())
    expect(
        False,
        f"flip(p = 0.5 in all {rows} rows, n = {n}): every row holds one side only"
        + (f" (side {int(draws[0, 0])} everywhere)" if same else "")
        + "; fair flips vary",
        diagnosis=ROUNDED if same else REPEATED,
    )


def check_distribution(sub, ctx, p: list[float], n: int, *, pair: tuple[int, int]) -> None:
    """Each row of ``n`` flips follows [1 - p, p] (one fit per row); rows ``pair`` (equal p) are independent."""
    draws = flips(sub, ctx, p, n, ctx.generator())
    target = probs_of(p)
    for row, value in enumerate(p):
        expect_distribution(
            ctx,
            draws[row],
            target[row],
            label=f"flip, row {row} (p = {value})",
            outcome=SIDE,
            public=Bilingual(f"flip, row {row}", f"flip，第 {row} 行"),
            alternatives={SWAPPED: target[row].flip(0)},
        )
    first, second = pair
    expect_independent_rows(
        ctx,
        draws[first],
        draws[second],
        target[first],
        outcome=SIDE,
        label=f"flip, rows {first} and {second} (both p = {p[first]})",
        public=Bilingual(f"flip, rows {first} and {second}", f"flip，第 {first} 行与第 {second} 行"),
    )


def check_edges(sub, ctx, n: int) -> None:
    """p = 0 gives only 0s and p = 1 only 1s, also when torch.rand returns exactly 0.0 or 0.99999994."""
    p = [0.0, 1.0, 0.0, 1.0]
    extreme = sub.with_extreme_uniforms(ctx.fresh_seed("edges"))
    for source, how in ((sub, ""), (extreme, " with torch.rand returning exactly 0.0 and 0.99999994 at times")):
        draws = flips(source, ctx, p, n, ctx.generator())
        zero_gave_one = bool((draws[0::2] != 0).any())
        one_gave_zero = bool((draws[1::2] != 1).any())
        if zero_gave_one and one_gave_zero:  # noqa: SIM108 - a branch per diagnosis reads better than nested ifs
            diagnosis = SWAPPED
        else:
            diagnosis = ZERO_GIVES_ONE if zero_gave_one else ONE_GIVES_ZERO
        expect(
            not (zero_gave_one or one_gave_zero),
            f"flip(p = [0, 1, 0, 1], n = {n}){how}: "
            + ("p = 0 gave a 1" if zero_gave_one else "")
            + (" and " if zero_gave_one and one_gave_zero else "")
            + ("p = 1 gave a 0" if one_gave_zero else "")
            + "; p = 0 must always give 0 and p = 1 always 1",
            diagnosis=diagnosis,
        )


SEED_P = [0.1, 0.5, 0.9]  # three targets: a row that follows its position's target shows it
POSITION_FLIPS = 1_000  # per row, when the rows are reordered (each row's own fit)


def check_seeds(sub, ctx, n: int) -> None:
    """The whole generator contract (``expect_generator_contract``): the seed decides, each call
    continues its stream (with a generator, or after one ``torch.manual_seed``), a generator given
    leaves torch's global generator alone, and a coin's flips follow its own p wherever it stands in
    the batch. Spends :data:`SEEDS_BUDGET`."""

    def draw(source, generator, rows=None):
        p, flips_per_row = (SEED_P, n) if rows is None else ([SEED_P[r] for r in rows], POSITION_FLIPS)
        return flips(source, ctx, p, flips_per_row, generator)

    expect_generator_contract(sub, ctx, draw, probs_of(SEED_P), label="flip", positions=True, outcome=SIDE)


SEEDS_BUDGET = generator_contract_budget(probs_of(SEED_P), positions=True)


def check_bad_inputs(sub, ctx) -> None:
    """p outside [0, 1], NaN, not a 1-D tensor, and n < 1 raise ValueError."""
    half = torch.tensor([0.5, 0.5])
    expect_bad_inputs_refused(
        sub.flip,
        [
            BadInput("p = [0.5, 1.5]", {"p": torch.tensor([0.5, 1.5]), "n": 4}, public="p above 1"),
            BadInput("p = [-0.25, 0.5]", {"p": torch.tensor([-0.25, 0.5]), "n": 4}, public="p below 0"),
            BadInput("p = [0.5, nan]", {"p": torch.tensor([0.5, float("nan")]), "n": 4}, public="p holding NaN"),
            BadInput("p of shape [2, 1]", {"p": torch.tensor([[0.5], [0.5]]), "n": 4}, public="a p that is not 1-D"),
            BadInput("n = 0", {"p": half, "n": 0}),
            BadInput("n = -3", {"p": half, "n": -3}, public="a negative n"),
        ],
        extra=lambda: {"generator": ctx.generator()},
        name="flip",
    )
