"""Hidden tests of exercise 40. Never shown to learners; run in the judge's process only.

First the noise forms, token for token against the float64 oracle, on inputs generated under each
case's seed (``cases.py`` draws them and verifies their margins): the inverse CDF on steps exact in
float64 (u on them and on their float32 rounding), rows whose float32 sum stops short of 1, weights
whose sum() differs from the last cumulative sum, mixed dtypes, subnormal weights between zeros
(the support only); Gumbel-max and the exponential race in every dtype pairing, with all-zero,
subnormal and extreme uniforms, ties made several ways, tiny and subnormal weights; alias tables of
every kind judged by their implied distribution; alias draws on any in-range table, with coins of 0
and equal to accept and columns at cell edges. Then ``sample``
per method: fits, pairs within a row at three distances, rows independent of each other, extreme
uniforms, every draw site pushed to each end, the generator contract (the batch's rows in another
order too); then bad inputs generated from the statement's refusal list, and its legal corners.
"""

from __future__ import annotations

import contextlib
import random

import torch

from judge.checks.arguments import expect_contract_accepts
from judge.checks.base import diagnosed
from judge.checks.budget import BudgetDeclaration
from judge.checks.distributions import expect_support, expect_tokens_in_range
from judge.checks.evidence import Evidence
from judge.checks.exact import expect_tensor
from judge.checks.generator_contract import generator_contract_budget
from judge.checks.refusals import expect_calls_refused
from judge.checks.testing import lane_weight
from judge.i18n import Bilingual
from judge.learner.interface import LearnerRaised

from ..public import checks40
from ..public.checks40 import expect_alias_table, expect_tokens
from ..public.diagnoses import MISTAKES
from . import cases, oracle, specs

# Per method: 3 fits, 2 pairs (within the twin rows, across two other rows), 1 independence (check_sample);
# the generator contract (check_seeds): 4 seeds and, with the rows in another order, one fit per row.
CONTRACT = generator_contract_budget(cases.sample_rows(), positions=True)
BUDGET = BudgetDeclaration(fit=12, pairs=8, independence=4) + CONTRACT + CONTRACT + CONTRACT + CONTRACT

# Per row: the weakest statistical kill (wrong-sign Gumbel noise, p * E, one uniform for the alias
# column and coin) needs about 512 to 590 draws for P >= 0.999 (benchmarks/power_040.py): 7x room.
SAMPLE_DRAWS = 4_000
SEED_DRAWS = 32
# Per row, with the batch's rows in another order: enough for a row that follows another row's target.
POSITION_DRAWS = 1_000
# Per row of the extreme and tiny rows, and of the draw-site runs (hard checks only).
EXTREME_DRAWS = 2_000
SITE_DRAWS = 64


def _rng(ctx, label: str) -> random.Random:
    return random.Random(ctx.fresh_seed(label))


def _show(value: float, digits: int) -> str:
    """A uniform for a message: enough digits that the largest float below 1 does not read as 1."""
    text = f"{value:.{digits}g}"
    return f"{value:.17g}" if text == "1" else text


def _uniform_note(u: torch.Tensor):
    def note(row: int, draw: int) -> str:
        return f"u = {_show(float(u[row, draw]), 17 if u.dtype == torch.float64 else 9)}"

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


def _dtypes(first: torch.Tensor, u: torch.Tensor) -> str:
    names = [str(t.dtype).removeprefix("torch.") for t in (first, u)]
    return names[0] if names[0] == names[1] else f"{names[0]} with {names[1]} uniforms"


# --- inverse CDF ----------------------------------------------------------------------------------


def _inverse(sub, ctx, case: cases.Case, what: str, public: Bilingual) -> None:
    _run(sub, ctx, "inverse_cdf", case, what=what, note=_uniform_note(case.kwargs["u"]), public=public)


def test_inverse_cdf_steps(sub, ctx):
    """inverse_cdf: u = 0, u on steps exact in float64 and on their float32 rounding, u = 1 - 2^-24, 1 - 2^-53

    zh: inverse_cdf：u = 0、u 恰在 float64 中精确的台阶上及其 float32 舍入值上、u = 1 - 2^-24 与 1 - 2^-53
    """
    for case, kind in zip(cases.cdf_steps(_rng(ctx, "cdf steps")), ("float64", "float32"), strict=True):
        _inverse(
            sub,
            ctx,
            case,
            f"inverse_cdf on rows with exact steps ({kind} u)",
            Bilingual(
                f"inverse_cdf at exact steps and boundary uniforms ({kind} u)",
                f"inverse_cdf：精确台阶与边界均匀数（{kind} 的 u）",
            ),
        )


def test_inverse_cdf_short_sums(sub, ctx):
    """inverse_cdf: float32 rows that add up to less than 1, then zeros

    zh: inverse_cdf：和小于 1 的 float32 行，末尾是概率为 0 的 token
    """
    case = cases.cdf_short(_rng(ctx, "cdf short"))
    _inverse(
        sub,
        ctx,
        case,
        "inverse_cdf on rows summing below 1 - 2^-24",
        Bilingual("inverse_cdf on float32 rows whose sum stops short of 1", "inverse_cdf：和不足 1 的 float32 行"),
    )


def test_inverse_cdf_sums(sub, ctx):
    """inverse_cdf: weights whose sum() differs from the last cumulative sum, ending in zeros, u up to 1 - 2^-53

    zh: inverse_cdf：sum() 与累积和最后一项不同、末尾为 0 的权重，u 最大到 1 - 2^-53
    """
    for case in cases.cdf_sums(_rng(ctx, "cdf sums")):
        kind = _dtypes(case.kwargs["probs"], case.kwargs["u"])
        _inverse(
            sub,
            ctx,
            case,
            f"inverse_cdf on weights ({kind})",
            Bilingual(f"inverse_cdf on weights ({kind})", f"inverse_cdf：权重（{kind}）"),
        )


def test_inverse_cdf_random_rows(sub, ctx):
    """inverse_cdf: random rows of 40 tokens, float32, then float32 and float64 mixed

    zh: inverse_cdf：40 个 token 的随机行，float32，以及 float32 与 float64 混用
    """
    for case in cases.cdf_random(_rng(ctx, "cdf random")):
        kind = _dtypes(case.kwargs["probs"], case.kwargs["u"])
        _inverse(
            sub,
            ctx,
            case,
            f"inverse_cdf on random rows ({kind})",
            Bilingual(f"inverse_cdf on random rows ({kind})", f"inverse_cdf：随机行（{kind}）"),
        )


def test_inverse_cdf_subnormal(sub, ctx):
    """inverse_cdf: subnormal weights between zeros, u = 0, near 1 and the largest float below 1 (support only)

    zh: inverse_cdf：夹在 0 之间的次正规数权重，u = 0、接近 1 与小于 1 的最大浮点数（只检查支撑集）
    """
    for case in cases.cdf_subnormal(_rng(ctx, "cdf subnormal")):
        probs, u = case.kwargs["probs"], case.kwargs["u"]
        what = f"inverse_cdf on subnormal weights between zeros ({_dtypes(probs, u)} uniforms)"
        value = sub.inverse_cdf(**case.arguments())
        draws = expect_tensor(value, name="inverse_cdf", shape=tuple(u.shape), dtype=torch.int64, device=ctx.device)
        # Named only when the whole output is that of comparing C(x) with u * C(V-1) (its own formula).
        named = checks40._matching(draws.cpu(), case.expected, case.mistaken)
        with diagnosed(named, evidence=[Evidence.STRUCTURAL, Evidence.VALUE]) if named else contextlib.nullcontext():
            expect_tokens_in_range(draws, probs.shape[1], what=what)
            expect_support(
                draws,
                oracle.distribution(probs),
                what=what,
                why_excluded=lambda row, token: "its probability is 0, however small the others",
            )


# --- Gumbel-max and the exponential race -------------------------------------------------------------

# (first argument, u): float64 with float64 is covered by each of the mixed pairs' own dtype.
PAIRINGS = ((torch.float32, torch.float32), (torch.float64, torch.float32), (torch.float32, torch.float64))


def _noise_cases(ctx, function: str) -> list[tuple[cases.Case, str]]:
    rng = _rng(ctx, function)
    build = cases.gumbel_case if function == "gumbel_max" else cases.race_case
    out = [(build(rng, first, second), "") for first, second in PAIRINGS]
    out.append((cases.ties_case(rng, function), ", tied best values"))
    if function == "exponential_race":
        out.append((cases.race_tiny(rng), ", tiny weights next to zeros"))
    return out


def _noise_test(sub, ctx, function: str) -> None:
    gumbel = function == "gumbel_max"
    for case, extra in _noise_cases(ctx, function):
        first = case.kwargs["logits" if gumbel else "probs"]
        u = case.kwargs["u"]
        kind = _dtypes(first, u) + extra
        diagnose = None
        if extra.startswith(", tied"):
            scores = oracle.gumbel_scores(first, u) if gumbel else oracle.race_log_scores(first, u)
            diagnose = _tie_diagnosis(scores, case.expected)
        _run(
            sub,
            ctx,
            function,
            case,
            what=f"{function} ({kind})",
            note=_vector_note(u),
            diagnose=diagnose,
            public=Bilingual(f"{function} ({kind})", f"{function}（{kind}）"),
        )


def test_gumbel_max(sub, ctx):
    """gumbel_max: every pairing of float32 and float64, -inf logits, uniforms of 0, subnormal and near 1, ties

    zh: gumbel_max：float32 与 float64 的各种搭配，含 -inf 的 logits，为 0、次正规数或接近 1 的均匀数，并列
    """
    _noise_test(sub, ctx, "gumbel_max")


@lane_weight(2)
def test_exponential_race(sub, ctx):
    """exponential_race: dtype pairings, zero and tiny probabilities, extreme uniforms, ties, subnormal weights

    zh: exponential_race：各种 dtype 搭配，概率为 0 或极小，极端均匀数，并列，次正规数权重
    """
    _noise_test(sub, ctx, "exponential_race")
    case = cases.race_subnormal(_rng(ctx, "race subnormal"))
    probs, u = case.kwargs["probs"], case.kwargs["u"]
    value = sub.exponential_race(**case.arguments())
    what = "exponential_race on subnormal weights between zeros"
    draws = expect_tensor(
        value, name="exponential_race", shape=tuple(u.shape[:2]), dtype=torch.int64, device=ctx.device
    )
    expect_tokens_in_range(draws, probs.shape[1], what=what)
    zero = probs.gather(1, draws) == 0
    underflow = bool(zero.any()) and bool(oracle.race_underflows(probs, u)[zero].all())
    expect_support(
        draws,
        oracle.distribution(probs),
        what=what,
        why_excluded=lambda row, token: "its probability is 0, however small the others",
        diagnosis=MISTAKES["race_zero_underflow"] if underflow else None,
    )


# --- the alias method ------------------------------------------------------------------------------


# @lane_weight: a heavy case's share of a grading's work, so that two lanes finish together;
# measured with `python practice/judge.py lanes 40` on a quiet machine (docs/authoring.md).
@lane_weight(3)
def test_build_alias(sub, ctx):
    """build_alias: the table's implied distribution is the target, exactly (float64), for rows of every kind

    zh: build_alias：各种行的表所隐含的分布都与目标一致（float64 精度）
    """
    rng = _rng(ctx, "alias rows")
    for probs, what, public in (
        (
            cases.alias_rows(rng),
            "build_alias on ten kinds of 12-token rows",
            Bilingual("build_alias on small rows of every kind", "build_alias：各种小行"),
        ),
        (
            cases.alias_long_rows(rng),
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


@lane_weight(2)
def test_alias_draw(sub, ctx):
    """alias_draw: built and arbitrary tables, coins of 0 and equal to accept, columns at 0, near 1 and below cell edges

    zh: alias_draw：构造出的表与任意合法的表，coin 为 0 或等于 accept，列均匀数为 0、接近 1 或略低于格边界
    """
    for case, kind in zip(cases.alias_draw_cases(_rng(ctx, "alias draw")), ("built tables", "any tables"), strict=True):
        column_u, coin_u = case.kwargs["column_u"], case.kwargs["coin_u"]

        def note(row: int, draw: int, column_u=column_u, coin_u=coin_u) -> str:
            return f"column_u = {_show(float(column_u[row, draw]), 17)}, coin_u = {_show(float(coin_u[row, draw]), 9)}"

        _run(
            sub,
            ctx,
            "alias_draw",
            case,
            what=f"alias_draw ({kind})",
            note=note,
            public=Bilingual(f"alias_draw with given tables ({kind})", f"alias_draw：给定的表（{kind}）"),
        )


# --- sample: the generator form ------------------------------------------------------------------------


def _alternatives(sub, probs: torch.Tensor, method: str):
    """What each mistake of ``method`` draws from. For the alias method a draw mistake is listed only when
    the learner's own table is right, and a table mistake only when its table is the learner's: the
    evidence of the table first (asked only when a check fails)."""

    def table() -> dict:
        out = oracle.alternatives(probs, method)
        if method != "alias":
            return out
        try:
            accept, alias = sub.build_alias(probs.clone())
            learner = oracle.implied(accept.to(torch.float64), alias.to(torch.int64))
        except (LearnerRaised, AttributeError, RuntimeError, TypeError, ValueError):
            return {}
        right = torch.allclose(learner, oracle.distribution(probs), rtol=1e-9, atol=1e-12)
        builds = {MISTAKES[name] for name in ("alias_off_by_one_cell", "alias_unnormalised")}
        return {
            diagnosis: wrong
            for diagnosis, wrong in out.items()
            if (diagnosis not in builds) == right and (right or torch.allclose(learner, wrong, rtol=1e-9, atol=1e-12))
        }

    return table


def _sample(sub, ctx, method: str) -> None:
    probs = cases.sample_rows()
    checks40.check_sample(
        sub,
        ctx,
        method,
        probs,
        SAMPLE_DRAWS,
        fit_rows=[0, 1, 2],
        twin_rows=(0, 3),
        apart_rows=(1, 2),
        alternatives=_alternatives(sub, probs, method),
    )
    rng = _rng(ctx, f"extreme rows {method}")
    checks40.check_extremes(
        sub,
        ctx,
        method,
        cases.extreme_rows(rng),
        EXTREME_DRAWS,
        ctx.fresh_seed(f"extreme {method}"),
        tiny=cases.tiny_rows(rng),
    )
    checks40.check_draw_sites(sub, ctx, method, cases.extreme_rows(rng), SITE_DRAWS)


def test_sample_inverse_cdf(sub, ctx):
    """sample(method='inverse_cdf'): distribution, independence, extreme uniforms at every draw site

    zh: sample(method='inverse_cdf')：分布、独立性、每个抽样点上的极端均匀数
    """
    _sample(sub, ctx, "inverse_cdf")


@lane_weight(2)
def test_sample_gumbel(sub, ctx):
    """sample(method='gumbel'): distribution, independence, extreme uniforms at every draw site

    zh: sample(method='gumbel')：分布、独立性、每个抽样点上的极端均匀数
    """
    _sample(sub, ctx, "gumbel")


def test_sample_race(sub, ctx):
    """sample(method='race'): distribution, independence, extreme uniforms at every draw site, subnormal weights

    zh: sample(method='race')：分布、独立性、每个抽样点上的极端均匀数、次正规数权重
    """
    _sample(sub, ctx, "race")


@lane_weight(2)
def test_sample_alias(sub, ctx):
    """sample(method='alias'): distribution, independence, extreme uniforms at every draw site

    zh: sample(method='alias')：分布、独立性、每个抽样点上的极端均匀数
    """
    _sample(sub, ctx, "alias")


@lane_weight(4)
def test_seeds(sub, ctx):
    """sample: the generator decides the draws of every method and advances; without one, torch.manual_seed does

    zh: sample：每种方法都由 generator 决定抽样结果，且随机数流向前推进；不传 generator 时由 torch.manual_seed 决定
    """
    for method in checks40.METHODS:
        checks40.check_seeds(sub, ctx, method, cases.sample_rows(), SEED_DRAWS, positions=POSITION_DRAWS)


# --- the contract's refusal list and its legal corners -----------------------------------------------------


@lane_weight(8)
def test_bad_inputs(sub, ctx):
    """Every bad input the statement lists, generated for every function, raises ValueError

    zh: 按题面列出的非法输入为每个函数生成，全部抛出 ValueError
    """
    rng = _rng(ctx, "bad inputs")
    expect_calls_refused(specs.written_refusals(sub, rng, ctx.generator))
    for name, good in specs.good_calls(rng).items():
        expect_calls_refused(specs.generated_refusals(getattr(sub, name), name, good, specs.ARGUMENTS[name], rng))
    # sample: every flaw with one method, then each flaw of probs again with each other method (the
    # methods may validate on paths of their own); num_samples and method are checked before any path.
    good = specs.good_sample(rng, rng.choice(checks40.METHODS))
    calls = specs.generated_refusals(
        sub.sample, "sample", good, specs.SAMPLE_ARGUMENTS, rng, extra=lambda: {"generator": ctx.generator()}
    )
    expect_calls_refused(calls + specs.with_other_methods(calls, good["method"], ctx.generator))


@lane_weight(11)
def test_legal_corners(sub, ctx):
    """Legal corners of every function (B = 1, V = 1, n = 1, zeros, weights, dtypes, extreme u) are answered right

    zh: 每个函数的合法边角输入（B = 1、V = 1、n = 1、精确的 0、权重、另一种 dtype、极端的 u）都被接受且答案正确
    """
    rng = _rng(ctx, "legal corners")
    for name, good in specs.good_calls(rng).items():
        expect_contract_accepts(
            getattr(sub, name), ctx, good=good, arguments=specs.ARGUMENTS[name], check=specs.CORNER_CHECKS[name](ctx)
        )
    expect_contract_accepts(
        sub.sample,
        ctx,
        good=specs.good_sample(rng, rng.choice(checks40.METHODS)),
        arguments=specs.SAMPLE_ARGUMENTS,
        extra=lambda: {"generator": ctx.generator()},
        check=specs.sample_corner(ctx),
    )
