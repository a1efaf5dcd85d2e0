"""The tiny variant of exercise 40: what "Run" judges in the browser, after the public cases.

No hidden input, no oracle: the inputs are small, and the exact answers and what each known
mistake returns on them were computed with the server's float64 oracle and frozen here
(tests/exercises/test_040_exact_samplers.py checks them against it). One check per clause of the
contract, as far as a few rows allow. The noise forms are judged token for token (a dyadic row with
zeros, a float32 row summing below 1, a row whose steps are exact in float64 but not in float32,
float64 weights whose sum() differs from the last cumulative sum, and subnormal weights between zeros
(the support only), for the inverse CDF; all-zero, zero, subnormal and 0.99999994 uniforms and ties
for Gumbel-max and the race, and subnormal weights that must not let a zero-probability token win;
tables with empty cells, a coin equal to accept and columns just below a cell edge for the alias
draw); alias tables by their implied distribution.
``sample`` gets small statistical checks per method (two identical rows of 600 draws: one fit, pairs
within the rows, the rows independent), extreme uniforms, every draw site pushed to each end, tiny
weights, the generator contract, and a bad input of each kind. What it cannot see is listed in
``[browser.undetectable]``.
"""

from __future__ import annotations

import contextlib

import torch

from judge.checks.base import diagnosed
from judge.checks.budget import BudgetDeclaration
from judge.checks.distributions import expect_support, expect_tokens_in_range
from judge.checks.evidence import Evidence
from judge.checks.exact import expect_tensor
from judge.i18n import Bilingual

from . import checks40
from .checks40 import expect_alias_table, expect_tokens
from .diagnoses import MISTAKES

# Per method: 1 fit, 1 pairs, 1 independence (check_sample), 4 seeds (check_seeds: the generator contract).
BUDGET = BudgetDeclaration(fit=4, pairs=4, independence=4, seeds=16)

NEG_INF = float("-inf")
TOP32 = 1.0 - 2.0**-24

CDF_PROBS = [[0.0, 0.25, 0.0, 0.25, 0.5], [0.5, 0.25, 0.25 - 2.0**-23, 0.0, 0.0]]
CDF_U = [[0.0, 0.25, 0.5, TOP32, 0.7, 0.1], [TOP32, 0.0, 0.75, 0.6, 0.3, 0.9]]
CDF_EXPECTED = [[1, 3, 4, 4, 4, 1], [2, 0, 1, 1, 0, 2]]
CDF_MISTAKEN = {
    "cdf_off_by_one": [[0, 1, 3, 4, 4, 1], [2, 0, 1, 1, 0, 2]],
    "sorted_not_mapped_back": [[0, 0, 1, 2, 1, 0], [2, 0, 1, 1, 0, 2]],
    "float32_cumsum_short": [[1, 3, 4, 4, 4, 1], [5, 0, 2, 1, 0, 2]],
    "float32_cumsum_clamped": [[1, 3, 4, 4, 4, 1], [4, 0, 2, 1, 0, 2]],
}

TOP64 = 1.0 - 2.0**-53
# float64 weights: two random rows whose sum() (torch's order) exceeds the last cumulative sum, integer
# weights whose probs / sum, accumulated, ends at 1 - 2^-52, and integers where every form is exact. F
# normalised by a sum (or by probs / sum accumulated) ends below 1 in the first three: u = 1 - 2^-53 runs
# past it (or is clamped onto a zero-probability token); rounded to float32, u is 1.0 in all four.
CDF_SUM_PROBS = [
    [2.098, 0.565, 1.046, 2.706, 1.603, 0.0],
    [1.774, 2.89, 0.312, 0.174, 0.47, 0.0],
    [5.0, 8.0, 5.0, 1.0, 0.0, 0.0],
    [1.0, 2.0, 1.0, 0.0, 0.0, 0.0],
]
CDF_SUM_U = [
    [TOP64, 0.0, 0.410305, TOP64],
    [TOP64, 0.0, 0.404754, TOP64],
    [TOP64, 0.0, 0.911932, TOP64],
    [TOP64, 0.0, 0.862261, TOP64],
]
CDF_SUM_EXPECTED = [[4, 0, 2, 4], [4, 0, 1, 4], [3, 0, 2, 3], [2, 0, 2, 2]]
# A sum other than F's own last entry: torch's sum() in float64 or in probs' dtype, or correctly
# rounded (the browser's torch subset sums with math.fsum). u = 1 - 2^-53 twice per row, so a form
# that moves one row's last draw differs at two draws, enough to name it.
CDF_SUM_MISTAKEN = {
    "normalised_cumsum": (
        [[6, 0, 2, 6], [6, 0, 1, 6], [6, 0, 2, 6], [2, 0, 2, 2]],
        [[6, 0, 2, 6], [6, 0, 1, 6], [3, 0, 2, 3], [2, 0, 2, 2]],
        [[6, 0, 2, 6], [4, 0, 1, 4], [6, 0, 2, 6], [2, 0, 2, 2]],
        [[6, 0, 2, 6], [4, 0, 1, 4], [3, 0, 2, 3], [2, 0, 2, 2]],
    ),
    "normalised_cumsum_clamped": (
        [[5, 0, 2, 5], [5, 0, 1, 5], [5, 0, 2, 5], [2, 0, 2, 2]],
        [[5, 0, 2, 5], [5, 0, 1, 5], [3, 0, 2, 3], [2, 0, 2, 2]],
        [[5, 0, 2, 5], [4, 0, 1, 4], [5, 0, 2, 5], [2, 0, 2, 2]],
        [[5, 0, 2, 5], [4, 0, 1, 4], [3, 0, 2, 3], [2, 0, 2, 2]],
    ),
    "float32_cumsum_normalised": (
        [[6, 0, 2, 6], [6, 0, 1, 6], [6, 0, 2, 6], [6, 0, 2, 6]],
        [[5, 0, 2, 5], [5, 0, 1, 5], [5, 0, 2, 5], [5, 0, 2, 5]],
    ),
}

# float32 weights, multiples of 2^-26 summing to 1: every step of F is exact in float64, not in float32.
# u on each step's float32 rounding (a float32 CDF equals u there, and picks the next token).
CDF_EXACT_PROBS = [
    [0.24998515844345093, 0.1467425674200058, 0.24485275149345398, 0.15250104665756226, 0.20591847598552704, 0.0],
    [0.23578868806362152, 0.24854186177253723, 0.16290460526943207, 0.20614461600780487, 0.1466202288866043, 0.0],
]
CDF_EXACT_U = [
    [0.24998515844345093, 0.3967277407646179, 0.6415804624557495, 0.7940815091133118, 0.0, TOP32],
    [0.23578868806362152, 0.48433053493499756, 0.6472351551055908, 0.8533797860145569, 0.0, TOP32],
]
CDF_EXACT_EXPECTED = [[1, 2, 2, 3, 0, 4], [1, 1, 3, 4, 0, 4]]
CDF_EXACT_MISTAKEN = {"float32_cumsum_normalised": [[1, 2, 3, 4, 0, 4], [1, 2, 3, 4, 0, 4]]}
# Subnormal weights between zeros (float64): u * C(V-1) rounds up to C(V-1) itself (only the support is judged).
CDF_SUBNORMAL_PROBS = [[0.0, 5e-324, 0.0, 1e-323, 0.0]]
CDF_SUBNORMAL_U = [[0.0, 0.5, 0.9, TOP64]]
CDF_SUBNORMAL_EXPECTED = [[1, 3, 3, 3]]
CDF_SUBNORMAL_MISTAKEN = {"cdf_scaled_compare": ([[1, 3, 5, 5]], [[1, 3, 4, 4]])}

LOGITS = [[NEG_INF, 0.5, -0.25, 1.0], [0.0, NEG_INF, 0.75, 0.75]]
RACE_PROBS = [[0.0, 0.3, 0.2, 0.5], [0.2, 0.0, 0.4, 0.4]]
NOISE = [  # [B, n, V]; draw 0 of each row all zeros, draw 3 of row 1 all 0.5 (ties broken by the first best token)
    [[0.0, 0.0, 0.0, 0.0], [0.49, 0.8, 0.91, 0.04], [0.34, TOP32, 0.26, 0.0], [0.33, 0.63, 0.18, 0.51]],
    [[0.0, 0.0, 0.0, 0.0], [0.62, 0.0, 0.11, 0.48], [TOP32, 0.33, 0.1, 0.72], [0.5, 0.5, 0.5, 0.5]],
]
GUMBEL_EXPECTED = [[3, 2, 1, 3], [2, 3, 0, 2]]
GUMBEL_MISTAKEN = {
    "gumbel_wrong_sign": [[3, 3, 3, 3], [2, 2, 2, 2]],
    "gumbel_on_probs": [[3, 2, 1, 1], [2, 0, 0, 2]],
    "log_zero_at_u0": [[0, 2, 1, 3], [0, 3, 0, 2]],
    "ties_not_first": [[3, 2, 1, 3], [3, 3, 0, 3]],
}
RACE_EXPECTED = [[3, 2, 1, 3], [2, 3, 0, 2]]
RACE_MISTAKEN = {
    "race_multiplies": [[3, 3, 3, 2], [2, 2, 2, 2]],
    "race_argmin": [[0, 0, 0, 0], [1, 1, 1, 1]],
    "log_zero_at_u0": [[0, 2, 1, 3], [0, 3, 0, 2]],
    "race_one_minus_u": [[0, 3, 2, 2], [1, 1, 2, 2]],
    "ties_not_first": [[3, 2, 1, 3], [3, 3, 0, 3]],
}

# Row 0: tokens 1 and 3 share the best score and every token gets the same noise (ties go to token 1).
# Rows 1 and 2: draw 0 all zero; draws 1 and 2 put u = 0 on the best token and a uniform on the runner-up
# whose score is 0.002 above (draw 1) or below (draw 2) it in log space: a clamp other than tiny flips one.
EDGE_LOGITS = [[0.5, 1.0, NEG_INF, 1.0], [NEG_INF, 1.0, 0.25, -0.5], [0.3, 1.2, NEG_INF, 0.9]]
EDGE_RACE_PROBS = [[0.2, 0.35, 0.1, 0.35], [0.0, 0.6, 0.3, 0.1], [0.25, 0.45, 0.0, 0.3]]
EDGE_GUMBEL_NOISE = [
    [[0.0] * 4, [0.5] * 4, [TOP32] * 4],
    [[0.0] * 4, [0.0, 0.0, 1.3153415612439267e-18, 0.0], [0.0, 0.0, 1.1152480186334212e-18, 0.0]],
    [[0.0] * 4, [0.0, 0.0, 0.0, 9.058791447504543e-29], [0.0, 0.0, 0.0, 6.993167183866717e-29]],
]
EDGE_RACE_NOISE = [
    [[0.0] * 4, [0.5] * 4, [TOP32] * 4],
    [[0.0] * 4, [0.0, 0.0, 1.1830474122522356e-19, 0.0], [0.0, 0.0, 9.934420415951109e-20, 0.0]],
    [[0.0] * 4, [0.0, 0.0, 0.0, 5.807682731088926e-26], [0.0, 0.0, 0.0, 4.60104756158748e-26]],
]
EDGE_EXPECTED = [[1, 1, 1], [1, 2, 1], [1, 3, 1]]  # the same for gumbel_max and exponential_race
EDGE_MISTAKEN = {
    "ties_not_first": [[3, 3, 3], [1, 2, 1], [1, 3, 1]],
    # a floor above tiny; the float64 tiny (or only u == 0 replaced: these zeros are exact, so not that)
    "clamp_not_tiny": ([[1, 1, 1], [1, 1, 1], [1, 1, 1]], [[1, 1, 1], [1, 2, 2], [1, 3, 3]]),
    "log_zero_at_u0": [[0, 1, 1], [0, 2, 2], [0, 3, 3]],  # also a float64 tiny applied to a float32 u (it rounds to 0)
}

ALIAS_PROBS = [[0.1, 0.2, 0.0, 0.3, 0.4], [3.0, 0.0, 1.0, 2.0, 1.0]]  # float32; row 1 holds weights
ALIAS_MISTAKEN = {  # the implied distributions of known bad tables (float64)
    "alias_off_by_one_cell": [
        [0.2999999992549419, 0.1999999985098839, 0.0, 0.10000000521540635, 0.3999999970197678],
        [0.6285714285714286, 0.0, 0.14285714285714285, 0.08571428571428572, 0.14285714285714285],
    ],
    "alias_unnormalised": [[0.10000000149011612, 0.2, 0.0, 0.2999999985098839, 0.4], [0.4, 0.0, 0.2, 0.2, 0.2]],
}
# Subnormal weights between zeros (float64): a plain p / E underflows to 0 and ties the zero tokens.
RACE_SUBNORMAL_PROBS = [[0.0, 5e-324, 0.0, 1e-323, 0.0], [1e-320, 0.0, 0.0, 0.0, 3e-321]]
RACE_SUBNORMAL_NOISE = [
    [[0.0] * 5, [0.3, 0.6, 0.9, 0.2, 0.5], [0.7, 0.1, 0.4, 0.8, 0.05]],
    [[0.0] * 5, [0.45, 0.2, 0.65, 0.35, 0.9], [0.15, 0.55, 0.25, 0.95, 0.6]],
]

DRAW_TABLE = ([[1.0, 0.0, 0.5, 1.0]], [[3, 0, 3, 3]])  # a table of [0.5, 0, 0.125, 0.375]
DRAW_COLUMN_U = [[0.3, 0.0, 0.6, TOP32, 0.8, 0.55, 0.27]]
DRAW_COIN_U = [[0.0, 0.7, 0.2, 0.9, 0.99, 0.3, 0.0]]
DRAW_EXPECTED = [[0, 0, 2, 3, 3, 2, 0]]
DRAW_MISTAKEN = {
    "alias_coin_le": [[1, 0, 2, 3, 3, 2, 1]],
    "alias_swapped": [[1, 3, 3, 3, 3, 3, 1]],
    "alias_one_uniform": [[0, 0, 3, 3, 3, 3, 0]],
}

# Any in-range table of 11 cells; float32 columns just below the cell edges 5/11 and 10/11 (a float32
# product rounds them up into the next cell), 0 and 0.99999994; a coin of 0.5 on the cell whose accept
# is 0.5 (the alias: the comparison is strict), a coin of 0 on an empty cell.
CELL_TABLE = (
    [[1.0, 0.0, 0.5, 0.25, 1.0, 0.75, 0.0, 0.5, 1.0, 0.375, 0.625]],
    [[3, 2, 8, 0, 4, 1, 9, 10, 7, 5, 6]],
)
CELL_COLUMN_U = [[0.45454543828964233, 0.9090908765792847, 0.0, TOP32, 2.5 / 11, 1.5 / 11, 0.6, 0.3]]
CELL_COIN_U = [[0.3, 0.9, 0.5, 0.2, 0.5, 0.0, 0.41, 0.77]]
CELL_EXPECTED = [[4, 5, 0, 10, 8, 2, 9, 0]]
CELL_MISTAKEN = {
    "alias_coin_le": [[4, 5, 0, 10, 2, 1, 9, 0]],
    "alias_swapped": [[4, 9, 3, 6, 2, 1, 6, 3]],
    "alias_one_uniform": [[4, 5, 0, 6, 2, 2, 9, 0]],
    "alias_column_float32": [[5, 6, 0, 10, 8, 2, 9, 0]],
}

SAMPLE_PROBS = [[0.0, 0.3, 0.1, 0.6], [0.0, 0.3, 0.1, 0.6]]  # identical rows: their draws must be independent
SAMPLE_ALTERNATIVES = {  # sample(method='gumbel') with the Gumbel noise added to probabilities: softmax(p)
    "gumbel_on_probs": [0.189496275, 0.2557932189, 0.2094257725, 0.3452847335],
}
EXTREME_PROBS = [[0.0, 0.4, 0.0, 0.6, 0.0], [0.0, 0.25, 0.25, 0.5 - 2.0**-23, 0.0]]
TINY_PROBS = [[0.0, 5e-324, 0.0, 1e-320, 0.0], [0.0, 3e-25, 0.0, 1.0, 7e-25]]  # float64: subnormal and tiny weights


def _mistaken(table: dict) -> dict:
    """Diagnosis -> tokens (a tuple of them for a mistake with several variants)."""

    def tokens(values):
        if isinstance(values, tuple):
            return tuple(torch.tensor(v, dtype=torch.int64) for v in values)
        return torch.tensor(values, dtype=torch.int64)

    return {MISTAKES[name]: tokens(values) for name, values in table.items()}


def test_tiny_inverse_cdf(sub, ctx):
    """inverse_cdf: u = 0, u on a step, u = 0.99999994, a float32 row summing below 1

    zh: inverse_cdf：u = 0、u 恰在台阶上、u = 0.99999994，以及和小于 1 的 float32 行
    """
    value = sub.inverse_cdf(torch.tensor(CDF_PROBS), torch.tensor(CDF_U))
    expect_tokens(
        ctx,
        value,
        torch.tensor(CDF_EXPECTED),
        name="inverse_cdf",
        what="inverse_cdf (tiny)",
        public=Bilingual("inverse_cdf (tiny)", "inverse_cdf（小规模）"),
        mistaken=_mistaken(CDF_MISTAKEN),
        noise=lambda row, draw: f"u = {CDF_U[row][draw]:.9g}",
    )
    value = sub.inverse_cdf(
        torch.tensor(CDF_SUM_PROBS, dtype=torch.float64), torch.tensor(CDF_SUM_U, dtype=torch.float64)
    )
    expect_tokens(
        ctx,
        value,
        torch.tensor(CDF_SUM_EXPECTED),
        name="inverse_cdf",
        what="inverse_cdf (tiny, float64 weights whose sum() may differ from the last cumulative sum)",
        public=Bilingual("inverse_cdf (tiny, float64 weights)", "inverse_cdf（小规模，float64 权重）"),
        mistaken=_mistaken(CDF_SUM_MISTAKEN),
        noise=lambda row, draw: f"u = {CDF_SUM_U[row][draw]:.17g}",
    )
    value = sub.inverse_cdf(torch.tensor(CDF_EXACT_PROBS), torch.tensor(CDF_EXACT_U))
    expect_tokens(
        ctx,
        value,
        torch.tensor(CDF_EXACT_EXPECTED),
        name="inverse_cdf",
        what="inverse_cdf (tiny, steps exact in float64, u on their float32 rounding)",
        public=Bilingual("inverse_cdf (tiny, exact steps)", "inverse_cdf（小规模，精确台阶）"),
        mistaken=_mistaken(CDF_EXACT_MISTAKEN),
        noise=lambda row, draw: f"u = {CDF_EXACT_U[row][draw]:.9g}",
    )

    probs, u = (
        torch.tensor(CDF_SUBNORMAL_PROBS, dtype=torch.float64),
        torch.tensor(CDF_SUBNORMAL_U, dtype=torch.float64),
    )
    value = sub.inverse_cdf(probs, u)
    what = "inverse_cdf (tiny, subnormal weights between zeros)"
    draws = expect_tensor(value, name="inverse_cdf", shape=(1, 4), dtype=torch.int64, device=ctx.device)
    # Named only when the whole output is that of comparing C(x) with u * C(V-1).
    named = checks40._matching(draws.cpu(), torch.tensor(CDF_SUBNORMAL_EXPECTED), _mistaken(CDF_SUBNORMAL_MISTAKEN))
    with diagnosed(named, evidence=[Evidence.STRUCTURAL, Evidence.VALUE]) if named else contextlib.nullcontext():
        expect_tokens_in_range(draws, 5, what=what)
        expect_support(
            draws,
            probs / probs.sum(dim=1, keepdim=True),
            what=what,
            why_excluded=lambda row, token: "its probability is 0, however small the others",
        )


def test_tiny_gumbel_and_race(sub, ctx):
    """gumbel_max and exponential_race: all-zero, zero and 0.99999994 uniforms, ties

    zh: gumbel_max 与 exponential_race：全为 0、为 0 以及为 0.99999994 的均匀数，并列
    """
    note = lambda row, draw: f"u = {NOISE[row][draw]}"  # noqa: E731 - a one-line message helper
    value = sub.gumbel_max(torch.tensor(LOGITS), torch.tensor(NOISE))
    expect_tokens(
        ctx,
        value,
        torch.tensor(GUMBEL_EXPECTED),
        name="gumbel_max",
        what="gumbel_max (tiny)",
        public=Bilingual("gumbel_max (tiny)", "gumbel_max（小规模）"),
        mistaken=_mistaken(GUMBEL_MISTAKEN),
        noise=note,
    )
    value = sub.exponential_race(torch.tensor(RACE_PROBS), torch.tensor(NOISE))
    expect_tokens(
        ctx,
        value,
        torch.tensor(RACE_EXPECTED),
        name="exponential_race",
        what="exponential_race (tiny)",
        public=Bilingual("exponential_race (tiny)", "exponential_race（小规模）"),
        mistaken=_mistaken(RACE_MISTAKEN),
        noise=note,
    )
    # float32 inputs, then float64 logits (probabilities) with the same float32 uniforms: tiny is u's.
    for function, first, noise, dtype in (
        ("gumbel_max", EDGE_LOGITS, EDGE_GUMBEL_NOISE, torch.float32),
        ("exponential_race", EDGE_RACE_PROBS, EDGE_RACE_NOISE, torch.float32),
        ("gumbel_max", EDGE_LOGITS, EDGE_GUMBEL_NOISE, torch.float64),
        ("exponential_race", EDGE_RACE_PROBS, EDGE_RACE_NOISE, torch.float64),
    ):
        value = getattr(sub, function)(torch.tensor(first, dtype=dtype), torch.tensor(noise, dtype=torch.float32))
        kind = "" if dtype == torch.float32 else ", float64 scores with float32 uniforms"
        expect_tokens(
            ctx,
            value,
            torch.tensor(EDGE_EXPECTED),
            name=function,
            what=f"{function} (tiny, ties and a zero uniform on the best token{kind})",
            public=Bilingual(f"{function} (tiny, ties and u = 0)", f"{function}（小规模，并列与 u = 0）"),
            mistaken=_mistaken(EDGE_MISTAKEN),
            noise=lambda row, draw, noise=noise: f"u = {noise[row][draw]}",
        )
    probs, noise = (
        torch.tensor(RACE_SUBNORMAL_PROBS, dtype=torch.float64),
        torch.tensor(RACE_SUBNORMAL_NOISE, dtype=torch.float64),
    )
    value = sub.exponential_race(probs, noise)
    what = "exponential_race (tiny, subnormal weights between zeros)"
    draws = expect_tensor(value, name="exponential_race", shape=(2, 3), dtype=torch.int64, device=ctx.device)
    expect_tokens_in_range(draws, 5, what=what)
    zero = probs.gather(1, draws) == 0
    underflow = bool(zero.any()) and bool(checks40.race_underflows(probs, noise)[zero].all())
    expect_support(
        draws,
        probs / probs.sum(dim=1, keepdim=True),
        what=what,
        why_excluded=lambda row, token: "its probability is 0, however small the others",
        diagnosis=MISTAKES["race_zero_underflow"] if underflow else None,
    )


def test_tiny_alias(sub, ctx):
    """build_alias implies the target exactly; alias_draw follows its table, coin 0 included

    zh: build_alias 所隐含的分布与目标完全一致；alias_draw 按表抽样，包括 coin 为 0 的情形
    """
    probs = torch.tensor(ALIAS_PROBS)
    weights = probs.to(torch.float64)
    target = weights / weights.sum(dim=1, keepdim=True)
    mistaken = {MISTAKES[name]: torch.tensor(values, dtype=torch.float64) for name, values in ALIAS_MISTAKEN.items()}
    expect_alias_table(
        ctx,
        sub.build_alias(probs),
        target,
        what="build_alias (tiny)",
        public=Bilingual("build_alias (tiny)", "build_alias（小规模）"),
        mistaken=lambda: mistaken,
    )
    value = sub.alias_draw(
        torch.tensor(DRAW_TABLE[0], dtype=torch.float64),
        torch.tensor(DRAW_TABLE[1]),
        torch.tensor(DRAW_COLUMN_U),
        torch.tensor(DRAW_COIN_U),
    )
    expect_tokens(
        ctx,
        value,
        torch.tensor(DRAW_EXPECTED),
        name="alias_draw",
        what="alias_draw (tiny)",
        public=Bilingual("alias_draw (tiny)", "alias_draw（小规模）"),
        mistaken=_mistaken(DRAW_MISTAKEN),
        noise=lambda row, draw: f"column_u = {DRAW_COLUMN_U[row][draw]:.9g}, coin_u = {DRAW_COIN_U[row][draw]:.9g}",
    )
    value = sub.alias_draw(
        torch.tensor(CELL_TABLE[0], dtype=torch.float64),
        torch.tensor(CELL_TABLE[1]),
        torch.tensor(CELL_COLUMN_U),
        torch.tensor(CELL_COIN_U),
    )
    expect_tokens(
        ctx,
        value,
        torch.tensor(CELL_EXPECTED),
        name="alias_draw",
        what="alias_draw (tiny, columns just below a cell edge, a coin equal to accept)",
        public=Bilingual("alias_draw (tiny, cell edges)", "alias_draw（小规模，格边界）"),
        mistaken=_mistaken(CELL_MISTAKEN),
        noise=lambda row, draw: f"column_u = {CELL_COLUMN_U[row][draw]:.9g}, coin_u = {CELL_COIN_U[row][draw]:.9g}",
    )


def test_tiny_sample(sub, ctx):
    """sample: each method follows the distribution, rows independent, extreme uniforms harmless

    zh: sample：每种方法都服从目标分布，各行独立，极端均匀数也不出错
    """
    probs = torch.tensor(SAMPLE_PROBS)

    def gumbel_alternatives() -> dict:
        return {
            MISTAKES[name]: torch.tensor([row, row], dtype=torch.float64) for name, row in SAMPLE_ALTERNATIVES.items()
        }

    for method in checks40.METHODS:
        checks40.check_sample(
            sub,
            ctx,
            method,
            probs,
            600,
            fit_rows=[0],
            twin_rows=(0, 1),
            alternatives=gumbel_alternatives if method == "gumbel" else None,
        )
        checks40.check_extremes(
            sub,
            ctx,
            method,
            torch.tensor(EXTREME_PROBS),
            200,
            ctx.fresh_seed(f"tiny extreme {method}"),
            tiny=torch.tensor(TINY_PROBS, dtype=torch.float64),
        )
        checks40.check_draw_sites(sub, ctx, method, torch.tensor(EXTREME_PROBS), 16)


def test_tiny_seeds(sub, ctx):
    """sample: the generator decides the draws; without one, torch.manual_seed does

    zh: sample：由 generator 决定抽样结果；不传 generator 时由 torch.manual_seed 决定
    """
    for method in checks40.METHODS:
        checks40.check_seeds(sub, ctx, method, torch.tensor(SAMPLE_PROBS), 24)


def test_tiny_bad_inputs(sub, ctx):
    """Bad inputs of every function raise ValueError

    zh: 每个函数遇到非法输入都抛出 ValueError
    """
    checks40.check_bad_inputs(sub, ctx)
