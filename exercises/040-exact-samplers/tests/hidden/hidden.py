"""Hidden tests of exercise 40. Never shown to learners; run in the judge's process only.

First the noise forms, token for token against the float64 oracle (``cases.py`` freezes the
inputs and verifies their margins): the inverse CDF on exact steps, u = 0 and 1 - 2^-24, rows
whose float32 sum stops short of 1, weights and float64; Gumbel-max and the exponential race
with all-zero and extreme uniforms; alias tables judged by their implied distribution; alias
draws with coins of 0 on empty cells. Then ``sample`` with a generator, per method: fits,
pairs within a row, two identical rows, extreme uniforms, the generator contract (the batch's rows
in another order too); then bad inputs.
"""

from __future__ import annotations

import torch

from judge.budget import BudgetDeclaration
from judge.checks import generator_contract_budget
from judge.i18n import Bilingual
from judge.testing import lane_weight

from ..public import checks40
from ..public.checks40 import expect_alias_table, expect_tokens
from ..public.diagnoses import MISTAKES
from . import cases, oracle

# Per method: 3 fits, 1 pairs, 1 independence (check_sample); the generator contract (check_seeds):
# 4 seeds and, with the rows in another order, one fit per row of cases.sample_rows().
CONTRACT = generator_contract_budget(cases.sample_rows(), positions=True)
BUDGET = BudgetDeclaration(fit=12, pairs=4, independence=4) + CONTRACT + CONTRACT + CONTRACT + CONTRACT

# Per row: the weakest statistical kill (wrong-sign Gumbel noise, p * E, one uniform for the alias
# column and coin) needs about 512 to 590 draws for P >= 0.999 (benchmarks/power_040.py): 7x room.
SAMPLE_DRAWS = 4_000
SEED_DRAWS = 32
# Per row, with the batch's rows in another order: enough for a row that follows another row's target.
POSITION_DRAWS = 1_000


def _show(value: float, digits: int) -> str:
    """A uniform for a message: enough digits that the largest float below 1 does not read as 1."""
    text = f"{value:.{digits}g}"
    return f"{value:.17g}" if text == "1" else text


def _uniform_note(u: torch.Tensor):
    def note(row: int, draw: int) -> str:
        return f"u = {_show(float(u[row, draw]), 9)}"

    return note


def _vector_note(u: torch.Tensor):
    def note(row: int, draw: int) -> str:
        values = u[row, draw]
        if bool((values == 0).all()):
            return "every uniform of this draw is 0"
        return "uniforms " + ", ".join(_show(float(v), 6) for v in values)

    return note


def _run(sub, ctx, function: str, case: cases.Case, *, what: str, public: Bilingual, note=None, diagnose=None):
    value = getattr(sub, function)(**case.arguments())
    expect_tokens(
        ctx,
        value,
        case.expected,
        name=function,
        what=what,
        public=public,
        mistaken=case.mistaken,
        noise=note,
        diagnose=diagnose,
    )


def _tie_diagnosis(scores: torch.Tensor, expected: torch.Tensor):
    """For the tie cases: every token that differs scores exactly as much as the expected one, so the
    learner broke a tie another way (topk, a descending sort, a reversed argmax)."""

    def diagnose(draws: torch.Tensor) -> str | None:
        if draws.min() < 0 or draws.max() >= scores.shape[2]:
            return None
        got = scores.gather(2, draws.unsqueeze(2)).squeeze(2)
        want = scores.gather(2, expected.unsqueeze(2)).squeeze(2)
        return MISTAKES["ties_not_first"] if bool((got == want).all()) else None

    return diagnose


# --- inverse CDF ----------------------------------------------------------------------------------


def test_inverse_cdf_steps(sub, ctx):
    """inverse_cdf: u = 0, u exactly on a step, u = 1 - 2^-24, zeros first, inside and last

    zh: inverse_cdf：u = 0、u 恰在台阶上、u = 1 - 2^-24，概率为 0 的 token 在开头、中间和末尾
    """
    case = cases.cdf_dyadic()
    _run(
        sub,
        ctx,
        "inverse_cdf",
        case,
        what="inverse_cdf on dyadic rows",
        note=_uniform_note(case.kwargs["u"]),
        public=Bilingual("inverse_cdf at exact steps and boundary uniforms", "inverse_cdf：精确台阶与边界均匀数"),
    )


def test_inverse_cdf_short_sums(sub, ctx):
    """inverse_cdf: float32 rows that add up to less than 1, then zeros

    zh: inverse_cdf：和小于 1 的 float32 行，末尾是概率为 0 的 token
    """
    case = cases.cdf_short()
    _run(
        sub,
        ctx,
        "inverse_cdf",
        case,
        what="inverse_cdf on rows summing below 1 - 2^-24",
        note=_uniform_note(case.kwargs["u"]),
        public=Bilingual(
            "inverse_cdf on float32 rows whose sum stops short of 1", "inverse_cdf：和不足 1 的 float32 行"
        ),
    )


def test_inverse_cdf_weights_float64(sub, ctx):
    """inverse_cdf: float64 weights that do not sum to 1, u up to 1 - 2^-53

    zh: inverse_cdf：和不为 1 的 float64 权重，u 最大到 1 - 2^-53
    """
    case = cases.cdf_weights()
    _run(
        sub,
        ctx,
        "inverse_cdf",
        case,
        what="inverse_cdf on float64 weights",
        note=_uniform_note(case.kwargs["u"]),
        public=Bilingual("inverse_cdf on float64 weights", "inverse_cdf：float64 权重"),
    )


def test_inverse_cdf_random_rows(sub, ctx):
    """inverse_cdf: eight random rows of 40 tokens

    zh: inverse_cdf：八行随机的 40 个 token
    """
    case = cases.cdf_random()
    _run(
        sub,
        ctx,
        "inverse_cdf",
        case,
        what="inverse_cdf on random rows",
        note=_uniform_note(case.kwargs["u"]),
        public=Bilingual("inverse_cdf on random rows", "inverse_cdf：随机行"),
    )


# --- Gumbel-max and the exponential race -------------------------------------------------------------


def test_gumbel_max(sub, ctx):
    """gumbel_max: float32 and float64, -inf logits, uniforms of 0 and of the largest float below 1, ties

    zh: gumbel_max：float32 与 float64，含 -inf 的 logits，均匀数为 0 或小于 1 的最大浮点数，并列
    """
    ties = cases.gumbel_ties()
    tied = _tie_diagnosis(oracle.gumbel_scores(ties.kwargs["logits"], ties.kwargs["u"]), ties.expected)
    for case, dtype in (
        (cases.gumbel_float32(), "float32"),
        (cases.gumbel_float64(), "float64"),
        (cases.gumbel_ties(), "float32, tied logits"),
        (cases.gumbel_mixed(), "float64 logits, float32 uniforms"),
    ):
        _run(
            sub,
            ctx,
            "gumbel_max",
            case,
            what=f"gumbel_max ({dtype})",
            note=_vector_note(case.kwargs["u"]),
            diagnose=tied if case is ties else None,
            public=Bilingual(f"gumbel_max ({dtype})", f"gumbel_max（{dtype}）"),
        )


def test_exponential_race(sub, ctx):
    """exponential_race: float32 and float64, zero probabilities, uniforms of 0 and near 1, ties

    zh: exponential_race：float32 与 float64，概率为 0 的 token，均匀数为 0 或接近 1，并列
    """
    ties = cases.race_ties()
    tied = _tie_diagnosis(oracle.race_scores(ties.kwargs["probs"], ties.kwargs["u"]), ties.expected)
    for case, dtype in (
        (cases.race_float32(), "float32"),
        (cases.race_float64(), "float64"),
        (cases.race_ties(), "float64, tied probabilities"),
        (cases.race_mixed(), "float64 probabilities, float32 uniforms"),
    ):
        _run(
            sub,
            ctx,
            "exponential_race",
            case,
            what=f"exponential_race ({dtype})",
            note=_vector_note(case.kwargs["u"]),
            diagnose=tied if case is ties else None,
            public=Bilingual(f"exponential_race ({dtype})", f"exponential_race（{dtype}）"),
        )


# --- the alias method ------------------------------------------------------------------------------


# @lane_weight: a heavy case's share of a grading's work, so that two lanes finish together;
# measured with `python practice/judge.py lanes 40` on a quiet machine (docs/authoring.md).
@lane_weight(5)
def test_build_alias(sub, ctx):
    """build_alias: the table's implied distribution is the target, exactly (float64)

    zh: build_alias：表所隐含的分布与目标一致（float64 精度）
    """
    for probs, what, public in (
        (
            cases.alias_rows(),
            "build_alias on eight kinds of 12-token rows",
            Bilingual("build_alias on small rows of every kind", "build_alias：各种小行"),
        ),
        (
            cases.alias_long_rows(),
            "build_alias on two float64 rows of 300 tokens",
            Bilingual("build_alias on long float64 rows", "build_alias：较长的 float64 行"),
        ),
    ):
        value = sub.build_alias(probs.clone())
        expect_alias_table(
            ctx,
            value,
            oracle.distribution(probs),
            what=what,
            public=public,
            mistaken=lambda probs=probs: cases.alias_mistaken(probs),
        )


def test_alias_draw(sub, ctx):
    """alias_draw: given tables and uniforms, coins of 0 on empty cells, the first and last column

    zh: alias_draw：给定表与均匀数，空格子上的 coin 为 0，第一列与最后一列
    """
    case = cases.alias_draw_case()
    column_u, coin_u = case.kwargs["column_u"], case.kwargs["coin_u"]

    def note(row: int, draw: int) -> str:
        return f"column_u = {float(column_u[row, draw]):.9g}, coin_u = {float(coin_u[row, draw]):.9g}"

    _run(
        sub,
        ctx,
        "alias_draw",
        case,
        what="alias_draw",
        note=note,
        public=Bilingual("alias_draw with given tables", "alias_draw：给定的表"),
    )


# --- sample: the generator form ------------------------------------------------------------------------


def _sample(sub, ctx, method: str) -> None:
    probs = cases.sample_rows()
    checks40.check_sample(
        sub,
        ctx,
        method,
        probs,
        SAMPLE_DRAWS,
        fit_rows=[0, 1, 2],
        pair_row=1,
        twin_rows=(0, 3),
        alternatives=lambda: oracle.alternatives(probs, method),
    )
    checks40.check_extremes(sub, ctx, method, cases.extreme_rows(), 2_000, ctx.fresh_seed(f"extreme {method}"))


def test_sample_inverse_cdf(sub, ctx):
    """sample(method='inverse_cdf'): distribution, independence, extreme uniforms

    zh: sample(method='inverse_cdf')：分布、独立性、极端均匀数
    """
    _sample(sub, ctx, "inverse_cdf")


@lane_weight(2)
def test_sample_gumbel(sub, ctx):
    """sample(method='gumbel'): distribution, independence, extreme uniforms

    zh: sample(method='gumbel')：分布、独立性、极端均匀数
    """
    _sample(sub, ctx, "gumbel")


@lane_weight(2)
def test_sample_race(sub, ctx):
    """sample(method='race'): distribution, independence, extreme uniforms

    zh: sample(method='race')：分布、独立性、极端均匀数
    """
    _sample(sub, ctx, "race")


def test_sample_alias(sub, ctx):
    """sample(method='alias'): distribution, independence, extreme uniforms

    zh: sample(method='alias')：分布、独立性、极端均匀数
    """
    _sample(sub, ctx, "alias")


@lane_weight(8)
def test_seeds(sub, ctx):
    """sample: the generator decides the draws of every method and advances; without one, torch.manual_seed does

    zh: sample：每种方法都由 generator 决定抽样结果，且随机数流向前推进；不传 generator 时由 torch.manual_seed 决定
    """
    for method in checks40.METHODS:
        checks40.check_seeds(sub, ctx, method, cases.sample_rows(), SEED_DRAWS, positions=POSITION_DRAWS)


def test_bad_inputs(sub, ctx):
    """Bad inputs of every function raise ValueError

    zh: 每个函数遇到非法输入都抛出 ValueError
    """
    checks40.check_bad_inputs(sub, ctx)
