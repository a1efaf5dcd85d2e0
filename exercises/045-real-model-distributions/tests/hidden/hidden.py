"""Hidden tests of exercise 45. Never shown to learners; run in the judge's process only.

Every case is built at run time on the real logits and weights of the shipped tiny Qwen3
(``cases.py``, through ``judge.exercises.models``): the learner's functions get tensors, never the model.
Nothing here is random: the answers are computed in float64 by ``oracle.py`` from the same
tensors the learner gets, and the ``tokens_for_mass`` decisions are verified, when the cases are
built, to lie at least 1e-4 from flipping. A failure names the known mistake that reproduces the
output. The quantized draft of the acceptance cases is built with the oracle's quantizer, so a
wrong quantizer is named by the quantizer's cases only. With the optional SmolLM2 installed,
two more cases run on its logits (deterministic: they change no budget).

Then the cases drawn under the run's seed (``instances.py``, ``specs.py``): rows that are not nice
(exact ties, non-dyadic weights, 1e-25 beside exact zeros, tiny and huge weights, exact halves,
disjoint supports, temperatures of every form and dtype), every function with its defaults, every
bad input the statement's refusal lists name (each accepted one names its mistake), and the legal
corners of every argument, each checked against the oracle.
"""

from __future__ import annotations

import random

import torch

from judge.checks.arguments import expect_contract_accepts
from judge.checks.base import CheckFailed, rule
from judge.checks.budget import BudgetDeclaration
from judge.checks.exact import expect
from judge.checks.refusals import BadCall, expect_calls_refused
from judge.checks.testing import lane_weight
from judge.exercises import models
from judge.i18n import Bilingual
from judge.learner.interface import LearnerRaised

from ..public.checking import (
    check_counts,
    check_identity,
    check_quantized,
    check_values,
    entropy_non_finite,
    entropy_overflow_values,
    refused,
)
from ..public.diagnoses import (
    ACCEPTANCE,
    ENTROPY,
    GROUP_SIZE_REFUSED,
    NOT_INCREASING,
    QUANTIZE,
    TOKENS_FOR_MASS,
    TOTAL_VARIATION,
    VALID_REFUSED,
)
from . import cases, instances, oracle, specs

BUDGET = BudgetDeclaration()  # no statistical check: every answer is exact


def prepare():
    """Load the model and build every case before the first one starts (the runner calls this
    outside every case's clock): loading takes seconds, far more on a busy machine, and must not
    count against any case's wall clock."""
    cases.prepare_all(smollm2=models.available("smollm2"))


def _named(table, found):
    return {table[key]: value for key, value in found.items() if key in table}


# --- tokens_for_mass ------------------------------------------------------------------------------


def _mass(sub, ctx, case: cases.MassCase, what: str) -> None:
    with refused():
        value = sub.tokens_for_mass(case.rows.logits, temperature=case.rows.temperature, mass=case.mass)
    check_counts(
        ctx,
        value,
        case.expected,
        what=what,
        labels=case.rows.labels,
        mistakes=lambda: _named(TOKENS_FOR_MASS, case.mistakes()),
    )


def test_mass_real(sub, ctx):
    """tokens_for_mass: the real model at 24 (position, temperature) rows, T = 0.5, 1 or 1.5 per row, mass 0.9

    zh: tokens_for_mass：真实模型的 24 个（位置，温度）行，逐行温度 T = 0.5、1 或 1.5，mass 0.9
    """
    _mass(sub, ctx, cases.mass_real(), "tokens_for_mass on real logits (mass 0.9)")


def test_mass_half(sub, ctx):
    """tokens_for_mass: the real model at six positions, one temperature 0.8 for all rows, mass 0.5

    zh: tokens_for_mass：真实模型在六个位置上，所有行同一温度 0.8，mass 0.5
    """
    _mass(sub, ctx, cases.mass_half(), "tokens_for_mass on real logits (mass 0.5)")


@lane_weight(2)
def test_mass_exact_boundary(sub, ctx):
    """tokens_for_mass: generated rows: exact ties of logits 0 at masses j/16, and rows that keep the margin

    zh: tokens_for_mass：生成的行：恰好落在 j/16 上的 0 logit 并列，以及保持间距的各种行
    """
    rng = random.Random(ctx.fresh_seed("generated tokens_for_mass"))
    for instance in instances.mass_instances(rng):
        with refused():
            value = sub.tokens_for_mass(instance.logits, temperature=instance.temperature, mass=instance.mass)
        check_counts(
            ctx,
            value,
            instance.expected,
            what=Bilingual("tokens_for_mass on generated rows", "tokens_for_mass 在生成的行上"),
            labels=instance.labels,
            mistakes=lambda i=instance: _named(
                TOKENS_FOR_MASS,
                {k: v.tolist() for k, v in oracle.tokens_for_mass_mistakes(i.logits, i.temperatures, i.mass).items()},
            ),
        )


# --- entropy --------------------------------------------------------------------------------------


def _entropy(sub, ctx, rows: cases.Rows, what: str, *, dtype=torch.float32) -> torch.Tensor:
    logits = rows.logits.to(dtype)
    with refused():
        value = sub.entropy(logits, temperature=rows.temperature)
    return check_values(
        ctx,
        value,
        oracle.entropy(logits, rows.temperatures).tolist(),
        dtype,
        name="entropy",
        what=what,
        labels=rows.labels,
        mistakes=lambda: {
            **_named(ENTROPY, oracle.entropy_mistakes(logits, rows.temperatures)),
            **entropy_overflow_values(logits, rows.temperature),
        },
        non_finite=entropy_non_finite(logits, rows.temperature),
    )


def test_entropy_real(sub, ctx):
    """entropy: the real model at six positions and five temperatures; it grows with T at each position

    zh: entropy：真实模型在六个位置、五个温度下的熵；同一位置上熵随温度升高而增大
    """
    rows = cases.entropy_real()
    out = _entropy(sub, ctx, rows, "entropy on real logits")
    per_position = out.to(torch.float64).reshape(len(cases.ENTROPY_POSITIONS), len(cases.ENTROPY_TEMPERATURES))
    for i, position in enumerate(cases.ENTROPY_POSITIONS):
        values = per_position[i].tolist()
        expect(
            all(a < b for a, b in zip(values, values[1:], strict=False)),
            f"entropy at position {position}: {[round(v, 4) for v in values]} at T = {list(cases.ENTROPY_TEMPERATURES)}"
            " does not grow with the temperature",
            diagnosis=NOT_INCREASING,
            rule=rule("entropy on real logits", "does not grow with the temperature", "没有随温度升高而增大"),
        )


def test_entropy_low_temperature(sub, ctx):
    """entropy: the real model at T = 0.02 in float32 (logits / T in the hundreds)

    zh: entropy：真实模型在 T = 0.02、float32 下的熵（logits / T 达到几百）
    """
    _entropy(sub, ctx, cases.entropy_low(), "entropy at a low temperature")


def test_entropy_masked(sub, ctx):
    """entropy: real rows filtered to their top 40 tokens, the others -inf

    zh: entropy：只保留前 40 个 token、其余为 -inf 的真实分布
    """
    _entropy(sub, ctx, cases.entropy_masked(), "entropy with -inf logits")


def test_entropy_float64(sub, ctx):
    """entropy: float64 logits give a float64 answer at double precision

    zh: entropy：float64 的 logits 得到双精度的 float64 结果
    """
    _entropy(sub, ctx, cases.entropy_real(), "entropy in float64", dtype=torch.float64)
    # A number that float32 cannot hold (0.7): float64 logits must be tempered by 0.7 itself.
    _entropy(sub, ctx, cases.entropy_warm(), "entropy in float64 at T = 0.7 (a number)", dtype=torch.float64)


def test_entropy_generated(sub, ctx):
    """entropy: generated rows (ties, 1e-25 beside -inf, one token, low T), every form of temperature

    zh: entropy：生成的行（并列、与 -inf 相邻的 1e-25、只有一个 token、低温），各种形式的温度
    """
    rng = random.Random(ctx.fresh_seed("generated entropy"))
    for instance in instances.entropy_instances(rng):
        logits, temperature, temps = instance.logits, instance.temperature, instance.temperatures
        with refused():
            value = sub.entropy(logits, temperature=temperature)
        check_values(
            ctx,
            value,
            oracle.entropy(logits, temps).tolist(),
            logits.dtype,
            name="entropy",
            what=Bilingual("entropy on generated rows", "entropy 在生成的行上"),
            labels=instance.labels,
            mistakes=lambda lg=logits, t=temperature, ts=temps: {
                **_named(ENTROPY, oracle.entropy_mistakes(lg, ts)),
                **entropy_overflow_values(lg, t),
            },
            non_finite=entropy_non_finite(logits, temperature),
        )


# --- fake_quantize_int4 ---------------------------------------------------------------------------


def _quantize(sub, ctx, weight: torch.Tensor, group_size: int, what: str, zero_groups=None) -> None:
    expected, alternative, _ = oracle.quantize(weight, group_size)
    with refused():
        value = sub.fake_quantize_int4(weight, group_size=group_size)
    check_quantized(
        ctx,
        value,
        weight,
        expected=expected,
        alternative=alternative,
        scales=oracle.group_scales(weight, group_size),
        what=what,
        mistakes=lambda: _named(QUANTIZE, oracle.quantize_mistakes(weight, group_size)),
        zero_groups=zero_groups,
    )


# @lane_weight: a heavy case's share of a grading's work, so that two lanes finish together;
# measured with `python practice/judge.py lanes 45` (docs/authoring.md): two runs of 3 and 5 gradings
# at load 7 to 8 agreed on these to within 1.
@lane_weight(6)
def test_quantize_decoder(sub, ctx):
    """fake_quantize_int4: the model's 14 decoder weights, group_size 32

    zh: fake_quantize_int4：模型解码器的 14 个权重矩阵，group_size 32
    """
    for name, weight in cases.decoder_weights():
        _quantize(sub, ctx, weight, 32, f"fake_quantize_int4({name}, group_size=32)")


@lane_weight(2)
def test_quantize_group_sizes(sub, ctx):
    """fake_quantize_int4: real weights with group_size 64, 128 and 16

    zh: fake_quantize_int4：真实权重，group_size 为 64、128 和 16
    """
    weights = dict(cases.decoder_weights())
    for name, group_size in (
        ("layers.0.mlp.down_proj", 64),
        ("layers.1.self_attn.k_proj", 128),
        ("layers.1.mlp.up_proj", 16),
    ):
        _quantize(sub, ctx, weights[name], group_size, f"fake_quantize_int4({name}, group_size={group_size})")


def test_quantize_zero_groups(sub, ctx):
    """fake_quantize_int4: a real weight with some all-zero groups, which must stay zero

    zh: fake_quantize_int4：含有若干全零组的真实权重，全零的组必须保持为零
    """
    weight, mask = cases.zeroed(dict(cases.decoder_weights())["layers.0.self_attn.v_proj"], 32)
    _quantize(sub, ctx, weight, 32, "fake_quantize_int4 with all-zero groups", zero_groups=mask)


def test_quantize_halves(sub, ctx):
    """fake_quantize_int4: weights exactly halfway between two levels round to the even one

    zh: fake_quantize_int4：恰好位于两个量化级中间的权重舍入到偶数
    """
    for dtype in (torch.float32, torch.float64):
        weight = cases.HALVES.to(dtype)
        expected = oracle.quantize(weight, 8)[0]
        with refused():
            value = sub.fake_quantize_int4(weight, group_size=8)
        check_quantized(
            ctx,
            value,
            weight,
            expected=expected,
            alternative=expected,  # exact halves: only the even neighbour is right
            scales=oracle.group_scales(weight, 8),
            what=f"fake_quantize_int4 on exact halves ({dtype})",
            mistakes=lambda w=weight: _named(QUANTIZE, oracle.quantize_mistakes(w, 8)),
        )


def test_quantize_generated(sub, ctx):
    """fake_quantize_int4: generated weights of every scale, exact halves, zero groups, odd group sizes

    zh: fake_quantize_int4：生成的各种量级的权重、恰好的中间值、全零的组、不是 2 的幂的 group_size
    """
    rng = random.Random(ctx.fresh_seed("generated fake_quantize_int4"))
    for instance in instances.weight_instances(rng):
        _quantize(
            sub,
            ctx,
            instance.weight,
            instance.group_size,
            Bilingual("fake_quantize_int4 on a generated weight", "fake_quantize_int4 作用于生成的权重"),
            zero_groups=instance.zero_groups,
        )


# --- acceptance_rate and total_variation ----------------------------------------------------------


def _acceptance(sub, ctx, temperatures, what: str) -> None:
    target, draft, rows = cases.acceptance_rows(temperatures)
    with refused():
        accept = sub.acceptance_rate(target, draft, temperature=rows.temperature)
    accept = check_values(
        ctx,
        accept,
        oracle.acceptance(target, draft, rows.temperatures).tolist(),
        torch.float32,
        name="acceptance_rate",
        what=f"acceptance_rate, {what}",
        labels=rows.labels,
        mistakes=lambda: _named(ACCEPTANCE, oracle.acceptance_mistakes(target, draft, rows.temperatures)),
    )
    with refused():
        tv = sub.total_variation(target, draft, temperature=rows.temperature)
    tv = check_values(
        ctx,
        tv,
        oracle.total_variation(target, draft, rows.temperatures).tolist(),
        torch.float32,
        name="total_variation",
        what=f"total_variation, {what}",
        labels=rows.labels,
        mistakes=lambda: _named(TOTAL_VARIATION, oracle.total_variation_mistakes(target, draft, rows.temperatures)),
    )
    check_identity(ctx, accept, tv, what=f"acceptance_rate and total_variation, {what}", labels=rows.labels)


@lane_weight(9)
def test_acceptance_real(sub, ctx):
    """acceptance_rate and total_variation: the real model against its int4 draft at all 263 positions

    zh: acceptance_rate 与 total_variation：真实模型与其 int4 草稿模型在全部 263 个位置上
    """
    _acceptance(sub, ctx, None, "every passage position, T = 1")


@lane_weight(5)
def test_acceptance_tempered(sub, ctx):
    """acceptance_rate and total_variation: T = 0.7 for all rows, then T = 0.5 and 1.5 per row

    zh: acceptance_rate 与 total_variation：所有行 T = 0.7，然后逐行 T = 0.5 与 1.5
    """
    _acceptance(sub, ctx, (0.7,), "every fourth position, T = 0.7")
    _acceptance(sub, ctx, cases.ACCEPTANCE_TEMPERATURES, "every fourth position, T = 0.5 and 1.5 per row")


@lane_weight(2)
def test_acceptance_generated(sub, ctx):
    """acceptance_rate and total_variation: generated rows with equal, disjoint and nested supports

    zh: acceptance_rate 与 total_variation：支撑集相同、不相交或相互包含的生成行
    """
    rng = random.Random(ctx.fresh_seed("generated acceptance"))
    for instance in instances.pair_instances(rng):
        target, draft, temps = instance.logits, instance.draft, instance.temperatures
        what = Bilingual("on generated rows", "在生成的行上")
        with refused():
            accept = sub.acceptance_rate(target, draft, temperature=instance.temperature)
        accept = check_values(
            ctx,
            accept,
            oracle.acceptance(target, draft, temps).tolist(),
            target.dtype,
            name="acceptance_rate",
            what=Bilingual(f"acceptance_rate {what}", f"acceptance_rate {what.zh}"),
            labels=instance.labels,
            mistakes=lambda t=target, d=draft, ts=temps: _named(ACCEPTANCE, oracle.acceptance_mistakes(t, d, ts)),
        )
        with refused():
            tv = sub.total_variation(target, draft, temperature=instance.temperature)
        tv = check_values(
            ctx,
            tv,
            oracle.total_variation(target, draft, temps).tolist(),
            target.dtype,
            name="total_variation",
            what=Bilingual(f"total_variation {what}", f"total_variation {what.zh}"),
            labels=instance.labels,
            mistakes=lambda t=target, d=draft, ts=temps: _named(
                TOTAL_VARIATION, oracle.total_variation_mistakes(t, d, ts)
            ),
        )
        check_identity(
            ctx,
            accept,
            tv,
            what=Bilingual(
                f"acceptance_rate and total_variation {what}", f"acceptance_rate 与 total_variation {what.zh}"
            ),
            labels=instance.labels,
        )


# --- every function with its defaults ------------------------------------------------------------


def test_defaults(sub, ctx):
    """every function called with its defaults: temperature 1, mass 0.9, group_size 32

    zh: 每个函数都用默认参数调用：温度 1、mass 0.9、group_size 32
    """
    case = cases.mass_default()
    with refused():
        value = sub.tokens_for_mass(logits=case.rows.logits)
    check_counts(
        ctx,
        value,
        case.expected,
        what="tokens_for_mass(logits) with the default temperature and mass",
        labels=case.rows.labels,
        mistakes=dict,
    )
    rows = cases.entropy_default()
    with refused():
        value = sub.entropy(logits=rows.logits)
    check_values(
        ctx,
        value,
        oracle.entropy(rows.logits, rows.temperatures).tolist(),
        torch.float32,
        name="entropy",
        what="entropy(logits) with the default temperature",
        labels=rows.labels,
        mistakes=dict,
    )
    name, weight = cases.decoder_weights()[0]
    expected, alternative, _ = oracle.quantize(weight, 32)
    with refused():
        value = sub.fake_quantize_int4(weight=weight)
    check_quantized(
        ctx,
        value,
        weight,
        expected=expected,
        alternative=alternative,
        scales=oracle.group_scales(weight, 32),
        what=f"fake_quantize_int4({name}) with the default group_size",
        mistakes=dict,
    )
    target, draft, rows = cases.acceptance_default()
    for function, exact in (("acceptance_rate", oracle.acceptance), ("total_variation", oracle.total_variation)):
        with refused():
            value = getattr(sub, function)(target_logits=target, draft_logits=draft)
        check_values(
            ctx,
            value,
            exact(target, draft, rows.temperatures).tolist(),
            torch.float32,
            name=function,
            what=f"{function}(target_logits, draft_logits) with the default temperature",
            labels=rows.labels,
            mistakes=dict,
        )


# --- bad inputs and legal corners, generated from the contract (specs.py) --------------------------


def _refusals(sub, ctx, name: str, good_call, arguments) -> None:
    """The generated bad calls from two good calls, one with a number temperature and one with a [B]
    tensor (the tensor alone would refuse 1-D logits for its length), in one round trip."""
    calls = []
    for form in ("number", "tensor"):
        good = good_call(random.Random(ctx.fresh_seed(f"good call: {name}, {form}")), form)
        rng = random.Random(ctx.fresh_seed(f"contract refusals: {name}, {form}"))
        calls += specs.generated_refusals(getattr(sub, name), name, good, arguments, rng)
    expect_calls_refused(calls)


@lane_weight(2)
def test_bad_inputs_tokens_for_mass(sub, ctx):
    """tokens_for_mass: every bad logits, temperature and mass, generated, raises ValueError

    zh: tokens_for_mass：生成的各种非法 logits、温度与 mass 都抛出 ValueError
    """
    _refusals(sub, ctx, "tokens_for_mass", specs.good_mass_call, specs.MASS_ARGUMENTS)


@lane_weight(2)
def test_bad_inputs_entropy(sub, ctx):
    """entropy: every bad input of the statement's common list, generated, raises ValueError

    zh: entropy：按题面共同列表生成的各种非法输入都抛出 ValueError
    """
    _refusals(sub, ctx, "entropy", specs.good_entropy_call, specs.ENTROPY_ARGUMENTS)


@lane_weight(7)
def test_bad_inputs_acceptance(sub, ctx):
    """acceptance_rate and total_variation: every bad input, generated, raises ValueError

    zh: acceptance_rate 与 total_variation：生成的各种非法输入都抛出 ValueError
    """
    _refusals(sub, ctx, "acceptance_rate", specs.good_pair_call, specs.PAIR_ARGUMENTS)
    _refusals(sub, ctx, "total_variation", specs.good_pair_call, specs.PAIR_ARGUMENTS)


def test_quantize_bad_inputs(sub, ctx):
    """fake_quantize_int4: every bad weight and group_size, generated, raises ValueError

    zh: fake_quantize_int4：生成的各种非法 weight 与 group_size 都抛出 ValueError
    """
    good = specs.good_quantize_call(random.Random(ctx.fresh_seed("good call: fake_quantize_int4")))
    rng = random.Random(ctx.fresh_seed("contract refusals: fake_quantize_int4"))
    arguments = specs.quantize_arguments(good["group_size"])
    calls = specs.generated_refusals(sub.fake_quantize_int4, "fake_quantize_int4", good, arguments, rng)
    weight = dict(cases.decoder_weights())["layers.0.self_attn.q_proj"]
    real = [
        BadCall(
            sub.fake_quantize_int4,
            f"fake_quantize_int4({what})",
            kwargs=kwargs,
            public=Bilingual(
                "fake_quantize_int4() with a real weight whose input dimension is not a multiple of group_size",
                "fake_quantize_int4() 收到输入维不是 group_size 倍数的真实权重时",
            ),
            diagnosis=GROUP_SIZE_REFUSED,
        )
        for what, kwargs in (
            ("in = 128, group_size = 48", {"weight": weight, "group_size": 48}),
            ("in = 100, group_size = 32", {"weight": weight[:, :100], "group_size": 32}),
        )
    ]
    # The non-multiples first, then the group sizes a Count never takes, then the generated calls.
    expect_calls_refused(real + specs.quantize_refusals(sub.fake_quantize_int4, good, rng) + calls)


class _Watched:
    """The learner's function, noting whether its last call raised a ValueError (a legal corner refused)."""

    def __init__(self, function) -> None:
        self.function = function
        self.refused = False

    def __call__(self, **kwargs):
        self.refused = False
        try:
            return self.function(**kwargs)
        except LearnerRaised as raised:
            self.refused = raised.derives_from(ValueError) and not raised.not_implemented
            raise


def _corners(sub, ctx, name: str, good, arguments, check) -> None:
    """``expect_contract_accepts``; a legal corner refused with a ValueError names VALID_REFUSED."""
    watched = _Watched(getattr(sub, name))
    try:
        expect_contract_accepts(watched, ctx, good=good, arguments=arguments, check=check, name=name)
    except CheckFailed as failure:
        if watched.refused and failure.diagnosis is None:
            failure.diagnosis = VALID_REFUSED
        raise


@lane_weight(3)
def test_corners_tokens_for_mass(sub, ctx):
    """tokens_for_mass: every legal corner of its arguments is accepted and right

    zh: tokens_for_mass：各参数的合法边角情形都被接受且结果正确
    """
    good = specs.good_mass_call(random.Random(ctx.fresh_seed("good call: tokens_for_mass")))
    _corners(sub, ctx, "tokens_for_mass", good, specs.MASS_ARGUMENTS, specs.mass_corner_check(ctx))


@lane_weight(2)
def test_corners_entropy(sub, ctx):
    """entropy: every legal corner of its arguments is accepted and right

    zh: entropy：各参数的合法边角情形都被接受且结果正确
    """
    good = specs.good_entropy_call(random.Random(ctx.fresh_seed("good call: entropy")))
    _corners(sub, ctx, "entropy", good, specs.ENTROPY_ARGUMENTS, specs.entropy_corner_check(ctx))


@lane_weight(5)
def test_corners_acceptance(sub, ctx):
    """acceptance_rate and total_variation: every legal corner is accepted and right

    zh: acceptance_rate 与 total_variation：各参数的合法边角情形都被接受且结果正确
    """
    good = specs.good_pair_call(random.Random(ctx.fresh_seed("good call: acceptance")))
    for name in ("acceptance_rate", "total_variation"):
        _corners(sub, ctx, name, good, specs.PAIR_ARGUMENTS, specs.pair_corner_check(ctx, name))


def test_corners_quantize(sub, ctx):
    """fake_quantize_int4: every legal corner (group_size 1, one group, one row) is accepted and right

    zh: fake_quantize_int4：合法的边角情形（group_size 1、只有一组、只有一行）都被接受且结果正确
    """
    good = specs.good_quantize_call(random.Random(ctx.fresh_seed("good call: fake_quantize_int4")))
    arguments = specs.quantize_arguments(good["group_size"])
    _corners(sub, ctx, "fake_quantize_int4", good, arguments, specs.quantize_corner_check(ctx))


# --- the optional SmolLM2 tier: real cases on a 49 152-token vocabulary, only where it is installed --

if models.available("smollm2"):

    def test_smollm2_mass(sub, ctx):
        """tokens_for_mass: SmolLM2-135M's logits (49 152 tokens) at T = 0.5, 1 and 1.5, mass 0.9

        zh: tokens_for_mass：SmolLM2-135M 的 logits（49 152 个 token），T = 0.5、1、1.5，mass 0.9
        """
        _mass(sub, ctx, cases.smollm2_mass(), "tokens_for_mass on SmolLM2's logits")

    def test_smollm2_entropy(sub, ctx):
        """entropy: SmolLM2-135M's logits at five temperatures

        zh: entropy：SmolLM2-135M 在五个温度下的熵
        """
        _entropy(sub, ctx, cases.smollm2_entropy(), "entropy on SmolLM2's logits")
