"""Hidden tests of exercise 45. Never shown to learners; run in the judge's process only.

Every case is built at run time on the real logits and weights of the shipped tiny Qwen3
(``cases.py``, through ``judge.models``): the learner's functions get tensors, never the model.
Nothing here is random: the answers are computed in float64 by ``oracle.py`` from the same
tensors the learner gets, and the ``tokens_for_mass`` decisions are verified, when the cases are
built, to lie at least 1e-4 from flipping. A failure names the known mistake that reproduces the
output. The quantized draft of the acceptance cases is built with the oracle's quantizer, so a
wrong quantizer is named by the quantizer's cases only. With the optional SmolLM2 installed,
two more cases run on its logits (deterministic: they change no budget).
"""

from __future__ import annotations

import torch

from judge import models
from judge.budget import BudgetDeclaration
from judge.checks import BadInput, expect, expect_bad_inputs_refused, rule
from judge.testing import lane_weight

from ..public.checking import check_counts, check_identity, check_quantized, check_values, refused
from ..public.diagnoses import (
    ACCEPTANCE,
    ENTROPY,
    GROUP_SIZE_REFUSED,
    NOT_INCREASING,
    OVERFLOW,
    QUANTIZE,
    TOKENS_FOR_MASS,
    TOTAL_VARIATION,
    ZERO_LOG_ZERO,
)
from . import cases, oracle

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


def test_mass_exact_boundary(sub, ctx):
    """tokens_for_mass: two or four tied tokens (the rest -inf) whose cumulative mass hits the target exactly

    zh: tokens_for_mass：两个或四个并列的 token（其余为 -inf），累计概率恰好等于目标
    """
    inf = float("inf")
    rows = [
        ([0.0, 0.0, 0.0, 0.0, -inf, -inf, -inf, -inf], 0.5, 2.0),
        ([1.5, -inf, 1.5, 1.5, -inf, 1.5, -inf, -inf], 0.75, 1.0),
        ([-inf, 2.0, -inf, 2.0, -inf, 2.0, -inf, 2.0], 0.25, 0.5),
        ([-inf, 3.0, 3.0, -inf, -inf, -inf, -inf, -inf], 0.5, 3.0),
    ]
    logits = torch.tensor([r[0] for r in rows], dtype=torch.float32)
    for dtype in (torch.float32, torch.float64):
        for mass in (0.5, 0.75, 0.25):
            temps = torch.tensor([r[2] for r in rows], dtype=torch.float64)
            labels = [f"{int(torch.isfinite(logits[i]).sum())} tied tokens, T = {r[2]}" for i, r in enumerate(rows)]
            expected = oracle.tokens_for_mass(logits, temps, mass).tolist()
            with refused():
                value = sub.tokens_for_mass(logits.to(dtype), temperature=temps.to(dtype), mass=mass)
            check_counts(
                ctx,
                value,
                expected,
                what=f"tokens_for_mass with exact ties ({dtype}, mass {mass})",
                labels=labels,
                mistakes=lambda m=mass, t=temps: _named(
                    TOKENS_FOR_MASS, {k: v.tolist() for k, v in oracle.tokens_for_mass_mistakes(logits, t, m).items()}
                ),
            )


# --- entropy --------------------------------------------------------------------------------------


def _entropy(sub, ctx, rows: cases.Rows, what: str, *, dtype=torch.float32, nan_diagnosis=None) -> torch.Tensor:
    with refused():
        value = sub.entropy(rows.logits.to(dtype), temperature=rows.temperature)
    return check_values(
        ctx,
        value,
        oracle.entropy(rows.logits.to(dtype), rows.temperatures).tolist(),
        dtype,
        name="entropy",
        what=what,
        labels=rows.labels,
        mistakes=lambda: _named(ENTROPY, oracle.entropy_mistakes(rows.logits.to(dtype), rows.temperatures)),
        nan_diagnosis=nan_diagnosis,
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
    _entropy(sub, ctx, cases.entropy_low(), "entropy at a low temperature", nan_diagnosis=OVERFLOW)


def test_entropy_masked(sub, ctx):
    """entropy: real rows filtered to their top 40 tokens, the others -inf

    zh: entropy：只保留前 40 个 token、其余为 -inf 的真实分布
    """
    _entropy(sub, ctx, cases.entropy_masked(), "entropy with -inf logits", nan_diagnosis=ZERO_LOG_ZERO)


def test_entropy_float64(sub, ctx):
    """entropy: float64 logits give a float64 answer at double precision

    zh: entropy：float64 的 logits 得到双精度的 float64 结果
    """
    _entropy(sub, ctx, cases.entropy_real(), "entropy in float64", dtype=torch.float64)


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
# measured with `python practice/judge.py lanes 45` on a quiet machine (docs/authoring.md).
@lane_weight(4)
def test_quantize_decoder(sub, ctx):
    """fake_quantize_int4: the model's 14 decoder weights, group_size 32

    zh: fake_quantize_int4：模型解码器的 14 个权重矩阵，group_size 32
    """
    for name, weight in cases.decoder_weights():
        _quantize(sub, ctx, weight, 32, f"fake_quantize_int4({name}, group_size=32)")


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


def test_quantize_bad_inputs(sub, ctx):
    """fake_quantize_int4: an input dimension that group_size does not divide raises ValueError

    zh: fake_quantize_int4：输入维不能被 group_size 整除时抛出 ValueError
    """
    weight = dict(cases.decoder_weights())["layers.0.self_attn.q_proj"]
    expect_bad_inputs_refused(
        sub.fake_quantize_int4,
        [
            BadInput("in = 128, group_size = 48", {"weight": weight, "group_size": 48}, diagnosis=GROUP_SIZE_REFUSED),
            BadInput(
                "in = 100, group_size = 32", {"weight": weight[:, :100], "group_size": 32}, diagnosis=GROUP_SIZE_REFUSED
            ),
            BadInput("a 1-D weight", {"weight": weight[0], "group_size": 32}),
        ],
        name="fake_quantize_int4",
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


@lane_weight(7)
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


def test_bad_inputs(sub, ctx):
    """tokens_for_mass, entropy, acceptance_rate: bad temperatures, masses and shapes raise ValueError

    zh: tokens_for_mass、entropy、acceptance_rate：非法的温度、mass 与形状抛出 ValueError
    """
    logits = cases.target_logits()[:3]
    draft = cases.draft_logits()[:3]
    expect_bad_inputs_refused(
        sub.tokens_for_mass,
        [
            ("temperature 0", {"logits": logits, "temperature": 0.0, "mass": 0.9}),
            ("temperature -1", {"logits": logits, "temperature": -1.0, "mass": 0.9}),
            ("mass 0", {"logits": logits, "temperature": 1.0, "mass": 0.0}),
            ("mass 1", {"logits": logits, "temperature": 1.0, "mass": 1.0}),
            ("mass 1.5", {"logits": logits, "temperature": 1.0, "mass": 1.5}),
            ("1-D logits", {"logits": logits[0], "temperature": 1.0, "mass": 0.9}),
            ("a [2] temperature for 3 rows", {"logits": logits, "temperature": torch.ones(2), "mass": 0.9}),
        ],
        name="tokens_for_mass",
    )
    expect_bad_inputs_refused(
        sub.entropy,
        [
            ("temperature 0", {"logits": logits, "temperature": 0.0}),
            ("a temperature tensor with a 0", {"logits": logits, "temperature": torch.tensor([1.0, 0.0, 1.0])}),
        ],
        name="entropy",
    )
    expect_bad_inputs_refused(
        sub.acceptance_rate,
        [
            ("draft logits of another shape", {"target_logits": logits, "draft_logits": draft[:2], "temperature": 1.0}),
            ("temperature 0", {"target_logits": logits, "draft_logits": draft, "temperature": 0.0}),
        ],
        name="acceptance_rate",
    )


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
