"""Hidden tests of exercise 51. Never shown to learners; run in the judge's process only.

The four deterministic functions against exact float64 targets on inputs generated under the seed
(``generated.py``: padding anywhere, all-padding rows, log-probabilities far below -100, advantages per
sequence and per token, equal groups whose mean rounds, zeros in p_old under negative advantages), each
miss named after the one known mistake that reproduces it (``oracle.py``); every refusal sentence and
every legal corner generated from the specs (``specs.py``); sample_surrogate judged by the responses
read off its estimates (``draws51``): their law, their mean (the clipped value, not E_p[A]), every draw
site at its extremes, and the generator contract. Sizes and power: benchmarks/power_051.py.
"""

from __future__ import annotations

import random

import torch

from judge.checks.arguments import Variant, expect_contract_accepts, expect_contract_refusals
from judge.checks.budget import BudgetDeclaration
from judge.checks.generator_contract import generator_contract_budget
from judge.checks.refusals import expect_calls_refused
from judge.checks.testing import lane_weight

from ..public import checks51, draws51, examples51
from . import generated, oracle, specs

DRAW_COPIES, UNBIASED_ROWS, UNBIASED_GROUP = 1500, 5000, 8
# Groups smaller than the responses with q > 0: drawn without replacement, their mean moves by 0.08.
SMALL_GROUP_ROWS, SMALL_GROUP = 4000, 4
CONTRACT_COPIES, POSITION_COPIES = 8, 400

# fit: one per target of the draws; unbiased: the mean; the generator contract with its positions and twins.
BUDGET = BudgetDeclaration(fit=len(draws51.TARGETS), unbiased=2) + generator_contract_budget(
    draws51.contract_probs(), positions=True, twins=(0, 1)
)
DTYPES = (torch.float32, torch.float64)


def _rng(ctx, label: str) -> random.Random:
    return random.Random(ctx.fresh_seed(label))


def _check_ratios(sub, ctx, case: dict, what: str) -> None:
    kwargs = generated.ratios_kwargs(case)
    new, old, mask = kwargs["logp_new"], kwargs["logp_old"], kwargs["mask"]
    checks51.check_ratios(
        sub, ctx, kwargs, oracle.token_ratios(new, old, mask), oracle.ratio_mistakes(new, old, mask), what=what
    )


def _check_objective(sub, ctx, case: dict, what: str) -> None:
    args = (case["logp_new"], case["logp_old"], case["advantages"], case["mask"], case["clip_eps"], case["aggregation"])
    checks51.check_objective(
        sub,
        ctx,
        case,
        oracle.ppo_objective(*args),
        oracle.ppo_scale(*args),
        oracle.ppo_mistakes(*args),
        what=f"{what}, {case['aggregation']}",
    )


def _check_grpo(sub, ctx, case: dict, what: str) -> None:
    rewards, eps = case["rewards"], case["eps"]
    checks51.check_grpo(
        sub, ctx, case, oracle.grpo_advantages(rewards, eps), oracle.grpo_mistakes(rewards, eps), what=what
    )


def _check_bias(sub, ctx, case: dict, what: str) -> None:
    args = (case["p_new"], case["p_old"], case["advantages"], case["clip_eps"])
    checks51.check_bias(
        sub,
        ctx,
        case,
        oracle.clipping_bias(*args),
        oracle.bias_scale(*args),
        oracle.bias_mistakes(*args),
        what=what,
    )


def test_ratios_generated(sub, ctx):
    """token_ratios: generated batches, padding anywhere, log-probabilities far below -100, both dtypes

    zh: token_ratios：随机生成的批，填充在任意位置，对数概率远小于 -100，两种 dtype
    """
    rng = _rng(ctx, "ratios")
    for dtype in DTYPES:
        _check_ratios(sub, ctx, generated.token_case(rng, dtype), f"token_ratios(generated, {dtype})")
        _check_ratios(
            sub, ctx, generated.token_case(rng, dtype, empty_row=True), f"token_ratios(an all-padding row, {dtype})"
        )
        _check_ratios(
            sub,
            ctx,
            generated.token_case(rng, dtype, deep=True),
            f"token_ratios(log-probabilities below -100, {dtype})",
        )


def test_objective_generated(sub, ctx):
    """ppo_clip_objective: both aggregations, advantages per sequence and per token, all-padding rows

    zh: ppo_clip_objective：两种聚合方式，按序列与按 token 的优势，全是填充的行
    """
    examples51.check_objectives(sub, ctx, "deep")  # the frozen batch: an all-padding row that moves the mean
    rng = _rng(ctx, "objective")
    for dtype in DTYPES:
        for aggregation in ("token-mean", "sequence-mean"):
            for per_token in (False, True):
                for empty_row in (False, True):
                    case = generated.token_case(rng, dtype, per_token=per_token, empty_row=empty_row)
                    case["aggregation"] = aggregation
                    kind = "per token" if per_token else "per sequence"
                    _check_objective(sub, ctx, case, f"ppo_clip_objective(advantages {kind}, {dtype})")


def test_objective_deep(sub, ctx):
    """ppo_clip_objective: log-probabilities far below -100, where exp of each side underflows

    zh: ppo_clip_objective：对数概率远小于 -100，对两边分别取 exp 会下溢
    """
    rng = _rng(ctx, "objective deep")
    for dtype in DTYPES:
        case = generated.token_case(rng, dtype, deep=True)
        _check_objective(sub, ctx, case, f"ppo_clip_objective(log-probabilities below -100, {dtype})")


def test_grpo_rounding_means(sub, ctx):
    """grpo_advantages: equal rewards whose mean rounds (0.1 three times), one group or several, eps = 0 and 1e-6

    zh: grpo_advantages：均值会舍入的相等奖励（三个 0.1），单独一组或多组，eps = 0 与 1e-6
    """
    for dtype in DTYPES:
        rows = [[v] * g for v, g in ((0.1, 3), (0.5, 3), (0.7, 3), (0.1, 7), (0.25, 7), (0.6, 6), (0.3, 7))]
        width = max(len(r) for r in rows)
        # Pad each group to one width with a second equal-reward row of the same value: all rows equal.
        rewards = torch.tensor([r + [r[0]] * (width - len(r)) for r in rows], dtype=torch.float64).to(dtype)
        for narrow in (3, 6, 7):
            for eps in (0.0, 1e-6):
                case = {"rewards": rewards[:, :narrow].contiguous(), "eps": eps}
                _check_grpo(sub, ctx, case, f"grpo_advantages(equal groups of {narrow}, eps = {eps}, {dtype})")
        for eps in (0.0, 1e-6):
            checks51.check_single_equal_groups(sub, ctx, dtype, eps)


def test_grpo_generated(sub, ctx):
    """grpo_advantages: generated groups, groups of equal rewards, eps = 0, both dtypes

    zh: grpo_advantages：随机生成的组，奖励全相等的组，eps = 0，两种 dtype
    """
    rng = _rng(ctx, "grpo")
    for dtype in DTYPES:
        for equal_rows in (0, 1, 3):
            _check_grpo(
                sub, ctx, generated.rewards_case(rng, dtype, equal_rows=equal_rows), f"grpo_advantages({dtype})"
            )
        case = generated.rewards_case(rng, dtype, equal_rows=2) | {"eps": 0.0}
        _check_grpo(sub, ctx, case, f"grpo_advantages(eps = 0, {dtype})")


def test_bias_generated(sub, ctx):
    """clipping_bias: weights not summing to 1, zeros in p_old and p_new, both dtypes

    zh: clipping_bias：和不为 1 的权重，p_old 与 p_new 中的零，两种 dtype
    """
    rng = _rng(ctx, "bias")
    for dtype in DTYPES:
        for _ in range(3):
            _check_bias(sub, ctx, generated.bandit_case(rng, dtype), f"clipping_bias({dtype})")


def test_defaults(sub, ctx):
    """every function called without its optional arguments: clip_eps = 0.2, token-mean, eps = 1e-6

    zh: 不传可选参数调用每个函数：clip_eps = 0.2、token-mean、eps = 1e-6
    """
    rng = _rng(ctx, "defaults")
    for dtype in DTYPES:
        case = generated.token_case(rng, dtype) | {"clip_eps": 0.2, "aggregation": "token-mean"}
        args = [case[k] for k in ("logp_new", "logp_old", "advantages", "mask", "clip_eps", "aggregation")]
        short = {k: case[k] for k in ("logp_new", "logp_old", "advantages", "mask")}
        checks51.check_objective(
            sub,
            ctx,
            short,
            oracle.ppo_objective(*args),
            oracle.ppo_scale(*args),
            oracle.ppo_mistakes(*args),
            what=f"ppo_clip_objective(defaults, {dtype})",
        )
        rewards = generated.rewards_case(rng, dtype)["rewards"]
        checks51.check_grpo(
            sub,
            ctx,
            {"rewards": rewards},
            oracle.grpo_advantages(rewards, 1e-6),
            oracle.grpo_mistakes(rewards, 1e-6),
            what=f"grpo_advantages(default eps, {dtype})",
        )
        bandit = generated.bandit_case(rng, dtype)
        args = [bandit["p_new"], bandit["p_old"], bandit["advantages"], 0.2]
        checks51.check_bias(
            sub,
            ctx,
            {k: bandit[k] for k in ("p_new", "p_old", "advantages")},
            oracle.clipping_bias(*args),
            oracle.bias_scale(*args),
            oracle.bias_mistakes(*args),
            what=f"clipping_bias(default clip_eps, {dtype})",
        )


def test_generated_bad_inputs(sub, ctx):
    """every function: each bad input the statement names, generated, raises ValueError

    zh: 每个函数：按题面生成的各种非法输入都抛出 ValueError
    """
    rng = _rng(ctx, "bad inputs")
    expect_contract_refusals(sub.token_ratios, ctx, good=specs.good_ratios(rng), arguments=specs.RATIOS)
    for per_token, arguments in ((False, specs.OBJECTIVE_PER_SEQUENCE), (True, specs.OBJECTIVE_PER_TOKEN)):
        good = specs.good_objective(rng, per_token=per_token)
        expect_contract_refusals(sub.ppo_clip_objective, ctx, good=good, arguments=arguments)
    expect_calls_refused(specs.empty_mask_calls(sub, rng))
    expect_contract_refusals(sub.grpo_advantages, ctx, good=specs.good_grpo(rng), arguments=specs.GRPO)
    expect_contract_refusals(sub.clipping_bias, ctx, good=specs.good_bias(rng), arguments=specs.BIAS)
    expect_contract_refusals(
        sub.sample_surrogate,
        ctx,
        good=specs.good_sample(rng),
        arguments=specs.SAMPLE,
        extra=lambda: {"generator": ctx.generator()},
    )


def _corner_check(ctx, kind: str):
    def check(value, variant: Variant) -> None:
        kwargs = dict(variant.kwargs)
        what = f"{variant.description}"
        if kind == "ratios":
            new, old, mask = kwargs["logp_new"], kwargs["logp_old"], kwargs["mask"]
            checks51.check_ratios(_Returned(value), ctx, kwargs, oracle.token_ratios(new, old, mask), what=what)
        elif kind == "objective":
            args = [kwargs[k] for k in ("logp_new", "logp_old", "advantages", "mask", "clip_eps", "aggregation")]
            checks51.check_objective(
                _Returned(value), ctx, kwargs, oracle.ppo_objective(*args), oracle.ppo_scale(*args), what=what
            )
        elif kind == "grpo":
            checks51.check_grpo(
                _Returned(value), ctx, kwargs, oracle.grpo_advantages(kwargs["rewards"], kwargs["eps"]), what=what
            )
        else:
            args = [kwargs[k] for k in ("p_new", "p_old", "advantages", "clip_eps")]
            checks51.check_bias(
                _Returned(value), ctx, kwargs, oracle.clipping_bias(*args), oracle.bias_scale(*args), what=what
            )

    return check


class _Returned:
    """Stands for the submission in the shared checks, returning a value already computed."""

    def __init__(self, value):
        self._value = value

    def __getattr__(self, name):
        return lambda **kwargs: self._value


def test_legal_corners(sub, ctx):
    """every function: the legal corners (all-padding rows, exact zeros, eps = 0, both dtypes) give exact values

    zh: 每个函数：合法的边界输入（全是填充的行、恰为 0 的值、eps = 0、两种 dtype）给出精确的值
    """
    rng = _rng(ctx, "corners")
    expect_contract_accepts(
        sub.token_ratios, ctx, good=specs.good_ratios(rng), arguments=specs.RATIOS, check=_corner_check(ctx, "ratios")
    )
    for per_token, arguments in ((False, specs.OBJECTIVE_PER_SEQUENCE), (True, specs.OBJECTIVE_PER_TOKEN)):
        good = specs.good_objective(rng, per_token=per_token)
        expect_contract_accepts(
            sub.ppo_clip_objective, ctx, good=good, arguments=arguments, check=_corner_check(ctx, "objective")
        )
    expect_contract_accepts(
        sub.grpo_advantages, ctx, good=specs.good_grpo(rng), arguments=specs.GRPO, check=_corner_check(ctx, "grpo")
    )
    expect_contract_accepts(
        sub.clipping_bias, ctx, good=specs.good_bias(rng), arguments=specs.BIAS, check=_corner_check(ctx, "bias")
    )
    expect_contract_accepts(
        sub.sample_surrogate,
        ctx,
        good=specs.good_sample(rng),
        arguments=specs.SAMPLE,
        extra=lambda: {"generator": ctx.generator()},
    )


@lane_weight(2)
def test_sample_draws(sub, ctx):
    """sample_surrogate: with group_size = 1 the responses drawn follow q, never a response with q = 0

    zh: sample_surrogate：group_size = 1 时抽到的回答服从 q，绝不会抽到 q = 0 的回答
    """
    draws51.check_draws(sub, ctx, DRAW_COPIES)


@lane_weight(2)
def test_sample_unbiased(sub, ctx):
    """sample_surrogate: the estimates average to the clipped surrogate E_q[g], not to E_p[A]

    zh: sample_surrogate：估计值的平均等于截断代理目标 E_q[g]，而不是 E_p[A]
    """
    draws51.check_unbiased(sub, ctx, UNBIASED_ROWS, UNBIASED_GROUP)


@lane_weight(2)
def test_sample_small_groups(sub, ctx):
    """sample_surrogate: groups of 4 among 5 possible responses are independent draws, repeats allowed

    zh: sample_surrogate：在 5 个可能的回答中抽 4 个的组是独立抽样，允许重复
    """
    draws51.check_unbiased(sub, ctx, SMALL_GROUP_ROWS, SMALL_GROUP, target=1)


def test_sample_extreme_uniforms(sub, ctx):
    """sample_surrogate: every draw site at 0 and at the largest float below 1 never draws where q = 0

    zh: sample_surrogate：每个抽样点取 0 或小于 1 的最大浮点数时，也绝不抽到 q = 0 的回答
    """
    draws51.check_extremes(sub, ctx)


@lane_weight(3)
def test_sample_generator(sub, ctx):
    """sample_surrogate: the generator contract (seeds, the stream advances, the default generator, rows)

    zh: sample_surrogate：生成器的约定（种子、随机数流向前推进、默认生成器、各行）
    """
    draws51.check_generator(sub, ctx, CONTRACT_COPIES, POSITION_COPIES)
