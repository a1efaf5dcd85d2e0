"""The tiny variant of exercise 43: what "Run" judges in the browser, after the public cases.

The same checks as the hidden suite (``checks43.py``), a clause of the statement each, at sizes the
browser's pure-Python torch runs quickly: ``verify`` with K = 1 on certain rows; ``verify`` on 800 copies of
one context (K = 2, V = 4) whose draft tokens the judge draws from q, its rows' independence included;
600 rows fed uniforms of exactly 0; ``speculative_step`` on 800 copies of one context (K = 2, V = 5,
temperature 1.5, top_k = 3), each draft with its acceptance; the seed contracts of ``speculative_step`` and
of ``verify``; top_k = 1 and top_k above V; and one bad input of each kind the statement refuses.
"""

from __future__ import annotations

from contextlib import nullcontext

import torch

from judge.checks.base import diagnosed
from judge.checks.budget import BudgetDeclaration
from judge.checks.exact import expect, expect_close, expect_tensor
from judge.checks.generator_contract import expect_seed_contract
from judge.checks.refusals import BadCall, expect_calls_refused

from . import checks43, contexts, theory
from .contexts import PS, QS, ZERO_P, ZERO_Q
from .diagnoses import MISTAKES

# Two runs with K = 2 (N, positions 0 and 1, the bonus; their rows: one pairs each), the step also each draft
# with its acceptance (2 fits); the seed contracts of speculative_step and of verify (2 seeds each).
BUDGET = BudgetDeclaration(fit=10, pairs=2, seeds=4)

ROWS = 800
SEED_ROWS = 48

STEP_TARGET = [[2.0, 1.2, 0.4, 1.5, 0.0], [0.2, 1.8, 1.0, 0.0, 1.4], [1.5, 0.0, 0.3, 2.0, 1.0]]
STEP_DRAFT = [[1.2, 2.0, 0.2, 1.6, 0.8], [0.9, 1.7, 0.2, 0.3, 1.5]]
TEMPERATURE, TOP_K = 1.5, 3

# filtered_probs at the edges of top-k (T = 0.5): top_k = 1 keeps the largest logit alone, a tie at the
# k-th keeps both, top_k above V keeps every token, -inf gets probability 0.
EDGE_LOGITS = [[0.5, 2.0, -1.0, 1.5], [1.0, 0.25, 1.0, -0.5], [0.0, float("-inf"), 1.0, -2.0]]
EDGE_TOP_K = (1, 1, 7)
# Two float32 logits one ulp apart whose quotients by 0.7 round to the same float: top_k = 1 keeps the larger.
ULP_LOGITS = [[2.9157915115356445, 2.9157917499542236, -1.0, 0.5]]
# Rows that sum to 1 only up to rounding (about 2e-5 short): 1 - TV is not the acceptance rate there.
ROUNDED_P = [[0.39999, 0.29999, 0.19999, 0.09999], [0.1, 0.2, 0.3, 0.39998]]
ROUNDED_Q = [[0.24999, 0.25, 0.24999, 0.24999], [0.4, 0.3, 0.2, 0.09998]]


def test_tiny_one_draft(sub, ctx):
    """verify with K = 1: three rows whose outcome is certain give exactly the expected tokens

    zh: verify 在 K = 1 时：结果确定的三行给出的 token 与预期完全一致
    """
    checks43.run_one_draft(sub, ctx, batches=(3,))


def test_tiny_verify(sub, ctx):
    """verify: 800 rows drafted from q; the number accepted, the tokens, the bonus and the rows' independence fit theory

    zh: verify：800 行草稿从 q 抽取；接受个数、各位置的 token、奖励 token 与各行的独立性都符合理论
    """  # noqa: E501 - a case's title is its docstring's first line: it cannot wrap
    checks43.run_verify(sub, ctx, PS, QS, ROWS, torch.float32, label="verify (tiny)", public="verify", seed=43_501)


def test_tiny_zero_uniforms(sub, ctx):
    """verify with uniforms of exactly 0: a draft token of target probability 0 is still rejected

    zh: 均匀数恰为 0 时，目标概率为 0 的草稿 token 仍被拒绝
    """
    checks43.run_zero_uniforms(sub, ctx, ZERO_P, ZERO_Q, 600, label="verify (tiny, uniforms of 0)")


# K = 1 rows drafting tokens 0, 1, 2 in turn (THRESHOLD_ROWS of each), at p/q = 0.9999, 0.8 and 0.2: one uniform
# shared by the rows decides them by one threshold, inside the ratios but with chance 1e-4.
THRESHOLD_P = [[0.249975, 0.2, 0.05, 0.500025], [0.25, 0.25, 0.25, 0.25]]
THRESHOLD_Q = [[0.25, 0.25, 0.25, 0.25]]
THRESHOLD_ROWS = 200


def test_tiny_rows_own_uniforms(sub, ctx):
    """verify: each row accepts its draft token with a uniform of its own, not by one threshold shared by the batch

    zh: verify：每一行用自己的均匀数决定是否接受草稿 token，而不是整个批次共用一个阈值
    """  # noqa: E501 - a case's title is its docstring's first line: it cannot wrap
    batch = 3 * THRESHOLD_ROWS
    drafts = torch.tensor([[row % 3] for row in range(batch)])
    p = checks43.expand(THRESHOLD_P, batch, torch.float32)
    q = checks43.expand(THRESHOLD_Q, batch, torch.float32)
    value = sub.verify(p, q, drafts.clone(), generator=ctx.generator())
    tokens, num = checks43.unpack(ctx, value, name="verify", batch=batch, k=1)
    checks43.check_structure(tokens, num, drafts, 4, what="verify (tiny, one threshold)")
    # A correct verify decides the 600 rows by one threshold with chance below 1e-30 (no budget spent).
    checks43._threshold_decisions(num, drafts, THRESHOLD_P, THRESHOLD_Q, what="verify (tiny, one threshold)")


def test_tiny_step(sub, ctx):
    """speculative_step: temperature 1.5 and top_k = 3 on both sides, 800 rows

    zh: speculative_step：两边都用温度 1.5 与 top_k = 3，800 行
    """
    checks43.run_step(
        sub,
        ctx,
        STEP_TARGET,
        STEP_DRAFT,
        TEMPERATURE,
        TOP_K,
        ROWS,
        torch.float32,
        label="speculative_step (tiny)",
        public="speculative_step",
    )


def test_tiny_seeds(sub, ctx):
    """speculative_step and verify: the generator decides the tokens; without one, torch.manual_seed does

    zh: speculative_step 与 verify：由 generator 决定结果；不传 generator 时由 torch.manual_seed 决定
    """
    target = checks43.expand(STEP_TARGET, SEED_ROWS, torch.float32)
    draft = checks43.expand(STEP_DRAFT, SEED_ROWS, torch.float32)
    first = theory.filtered(STEP_TARGET[0], TEMPERATURE, TOP_K)

    def draw(source, generator):
        value = source.speculative_step(target, draft, temperature=TEMPERATURE, top_k=TOP_K, generator=generator)
        tokens = checks43.unpack(ctx, value, name="speculative_step", batch=SEED_ROWS, k=2, parts=3)[0]
        return expect_tensor(
            tokens[:, 0].clone(), name="speculative_step tokens[:, 0]", shape=(SEED_ROWS,), dtype=torch.int64
        )

    expect_seed_contract(sub, ctx, draw, torch.tensor(first, dtype=torch.float64), label="speculative_step")
    # Draft token 1 at position 0 has p/q = 5/12: the replacement comes from verify's own random numbers.
    checks43.verify_seed_contract(sub, ctx, PS, QS, [1, 2], SEED_ROWS, label="verify (fixed drafts)")


def test_tiny_filter_edges(sub, ctx):
    """filtered_probs: top_k = 1 keeps one token (two where they tie), top_k above V keeps all, -inf gets 0

    zh: filtered_probs：top_k = 1 只留一个 token（并列时留两个），top_k 大于 V 时全部保留，-inf 的概率为 0
    """
    expected = torch.tensor(
        [theory.filtered(z, 0.5, k) for z, k in zip(EDGE_LOGITS, EDGE_TOP_K, strict=True)], dtype=torch.float64
    )
    for row, (logits, top_k) in enumerate(zip(EDGE_LOGITS, EDGE_TOP_K, strict=True)):
        beyond = top_k >= len(logits)
        with diagnosed(MISTAKES["topk_above_vocab_crashes"], raised_only=True) if beyond else nullcontext():
            value = sub.filtered_probs(torch.tensor([logits]), temperature=0.5, top_k=top_k)
        value = expect_tensor(value, name="filtered_probs", shape=(1, 4), dtype=torch.float32, device=ctx.device)
        expect_close(
            value.to(torch.float64),
            expected[row : row + 1],
            rtol=1e-5,
            atol=1e-6,
            what=f"filtered_probs({logits}, temperature=0.5, top_k={top_k})",
            mistakes={
                MISTAKES[m]: torch.tensor([theory.filtered(logits, 0.5, top_k, m)], dtype=torch.float64)
                for m in ("topk_k_plus_one", "topk_strict", "topk_not_renormalised", "temperature_multiplied")
            },
        )
    # Ties are judged on the logits: two logits one ulp apart stay apart, even where z / T rounds alike.
    value = sub.filtered_probs(torch.tensor(ULP_LOGITS), temperature=0.7, top_k=1)
    value = expect_tensor(value, name="filtered_probs", shape=(1, 4), dtype=torch.float32, device=ctx.device)
    expect_close(
        value.to(torch.float64),
        torch.tensor([[0.0, 1.0, 0.0, 0.0]], dtype=torch.float64),
        rtol=1e-5,
        atol=1e-6,
        what="filtered_probs(two logits one ulp apart, temperature=0.7, top_k=1)",
        mistakes={MISTAKES["ties_after_division"]: torch.tensor([[0.5, 0.5, 0.0, 0.0]], dtype=torch.float64)},
    )
    # The first rows 1000 higher: the same answer, or the softmax overflows.
    large = torch.tensor(EDGE_LOGITS[:2]) + 1000.0
    value = sub.filtered_probs(large, temperature=0.5, top_k=1)
    value = expect_tensor(value, name="filtered_probs", shape=(2, 4), dtype=torch.float32, device=ctx.device)
    expect(
        bool(torch.isfinite(value).all()),
        "filtered_probs(logits near 1000, temperature=0.5, top_k=1) holds NaN or infinity; the same rows 1000 lower "
        "came out right",
        diagnosis=MISTAKES["softmax_overflow"],
        kind="value",
    )
    expect_close(
        value.to(torch.float64),
        expected[:2],
        rtol=1e-5 + 2.0**-22 * 2004,
        atol=1e-6,
        what="filtered_probs(logits near 1000, temperature=0.5, top_k=1)",
    )


def test_tiny_rates(sub, ctx):
    """acceptance_rate and total_variation on rows that sum to 1 only up to rounding, each from its own formula

    zh: 在和只在舍入意义上为 1 的行上计算 acceptance_rate 与 total_variation，各按自己的公式
    """
    p, q = torch.tensor(ROUNDED_P), torch.tensor(ROUNDED_Q)
    ps, qs = p.to(torch.float64).tolist(), q.to(torch.float64).tolist()  # what the learner receives
    rates = [theory.acceptance(a, b) for a, b in zip(ps, qs, strict=True)]
    tvs = [0.5 * sum(abs(x - y) for x, y in zip(a, b, strict=True)) for a, b in zip(ps, qs, strict=True)]
    for name, want, wrong in (
        ("acceptance_rate", rates, {"rate_from_tv": [1 - t for t in tvs], "rate_sum_max": [1 + t for t in tvs]}),
        ("total_variation", tvs, {"tv_from_rate": [1 - r for r in rates], "tv_no_half": [2 * t for t in tvs]}),
    ):
        value = expect_tensor(getattr(sub, name)(p, q), name=name, shape=(2,), dtype=torch.float32, device=ctx.device)
        expect_close(
            value.to(torch.float64),
            torch.tensor(want, dtype=torch.float64),
            rtol=1e-5,
            atol=1e-6,
            what=f"{name} (rows summing to 1 up to rounding)",
            mistakes={MISTAKES[m]: torch.tensor(v, dtype=torch.float64) for m, v in wrong.items()},
            per_row=True,
        )


def test_tiny_rounded_rows(sub, ctx):
    """verify accepts rows that sum to 1 only up to rounding (it does not check the sums)

    zh: verify 接受和只在舍入意义上为 1 的行（不检查各行之和）
    """
    p = checks43.expand(PS, 4, torch.float32) * (1 - 2e-5)
    q = checks43.expand(QS, 4, torch.float32) * (1 + 2e-5)
    drafts = torch.tensor([[0, 2], [1, 3], [2, 2], [3, 0]])
    with diagnosed(MISTAKES["sums_checked"], raised_only=True):
        value = sub.verify(p, q, drafts, generator=ctx.generator())
    tokens, num = checks43.unpack(ctx, value, name="verify", batch=4, k=2)
    checks43.check_structure(tokens, num, drafts, 4, what="verify (rows summing to 1 up to rounding)")


def test_tiny_draw_sites(sub, ctx):
    """verify and speculative_step with each draw site at 0 and at the largest float below 1, on nasty rows

    zh: verify 与 speculative_step 的每个抽样点取 0 与小于 1 的最大浮点数，输入是刁钻的行
    """
    vanish = [torch.tensor(t) for t in (contexts.VANISH_P, contexts.VANISH_Q, contexts.VANISH_DRAFTS)]
    checks43.expect_verify_draw_sites(
        sub, ctx, *checks43.halved(*vanish), vanish[2], label="verify (tiny, the control of the vanishing residual)"
    )
    for p, q, drafts, label, options in (
        (
            contexts.PAST_END_P,
            contexts.PAST_END_Q,
            contexts.PAST_END_DRAFTS,
            "cumulative sums that end early",
            {"high_diagnosis": MISTAKES["sampler_past_cdf_end"]},
        ),
        (
            contexts.VANISH_P,
            contexts.VANISH_Q,
            contexts.VANISH_DRAFTS,
            "a residual that vanishes after a rejection",
            {"high_diagnosis": MISTAKES["residual_zero_sum"], "diagnosis": MISTAKES["residual_zero_sum"]},
        ),
    ):
        checks43.expect_verify_draw_sites(
            sub,
            ctx,
            torch.tensor(p),
            torch.tensor(q),
            torch.tensor(drafts),
            label=f"verify (tiny, {label})",
            **options,
        )
    checks43.expect_step_draw_sites(
        sub,
        ctx,
        torch.tensor(contexts.STEP_SITES_TARGET),
        torch.tensor(contexts.STEP_SITES_DRAFT),
        contexts.STEP_SITES_TEMPERATURE,
        contexts.STEP_SITES_TOP_K,
        label="speculative_step (tiny, top-k zeros at both ends)",
    )


def test_tiny_bad_inputs(sub, ctx):
    """One bad input of each kind the statement refuses raises ValueError

    zh: 题面拒绝的每一类非法输入各取一个，都抛出 ValueError
    """
    p = checks43.expand(PS, 2, torch.float32)
    q = checks43.expand(QS, 2, torch.float32)
    x = torch.tensor([[1, 2], [0, 3]])
    certain = p.clone()
    certain[0, 0] = torch.tensor([0.625, 0.0, 0.25, 0.125])  # x_0 = 1 is rejected whatever u is
    zero_q = q.clone()
    zero_q[0, 1] = torch.tensor([0.2, 0.1, 0.0, 0.7])  # ... and x_1 = 2, after it, has q = 0
    poked = p.clone()
    poked[1, 0, 1] = -0.125  # a token the residual clamps: only a check refuses it
    nan = q.clone()
    nan[0, 1, 0] = float("nan")
    logits = torch.tensor([[1.0, 2.0, 0.5]])
    bad = MISTAKES["bad_probabilities_accepted"]
    verify = [
        (
            "K = 0",
            {"target_probs": p[:, :1], "draft_probs": q[:, :0], "draft_tokens": x[:, :0]},
            MISTAKES["k_zero_accepted"],
        ),
        ("target_probs with K positions", {"target_probs": p[:, :2], "draft_probs": q, "draft_tokens": x}, None),
        (
            "float32 target_probs with float64 draft_probs",
            {"target_probs": p, "draft_probs": q.double(), "draft_tokens": x},
            None,
        ),
        ("int32 draft tokens", {"target_probs": p, "draft_probs": q, "draft_tokens": x.int()}, None),
        ("a draft token equal to V", {"target_probs": p, "draft_probs": q, "draft_tokens": x.clamp(max=2) + 2}, None),
        ("a draft token of -1", {"target_probs": p, "draft_probs": q, "draft_tokens": x - 1}, None),
        ("a negative target probability", {"target_probs": poked, "draft_probs": q, "draft_tokens": x}, bad),
        ("a NaN draft probability", {"target_probs": p, "draft_probs": nan, "draft_tokens": x}, bad),
        (
            "a draft token of draft probability 0 after a certain rejection",
            {"target_probs": certain, "draft_probs": zero_q, "draft_tokens": x},
            MISTAKES["q_zero_accepted"],
        ),
    ]
    calls = [
        BadCall(sub.verify, f"verify() with {what}", kwargs={**kwargs, "generator": ctx.generator()}, diagnosis=why)
        for what, kwargs, why in verify
    ]
    not_finite = MISTAKES["temperature_not_finite_accepted"]
    for what, kwargs, why in (
        ("temperature = 0", {"temperature": 0.0}, None),
        ("temperature = nan", {"temperature": float("nan")}, not_finite),
        ("temperature = inf", {"temperature": float("inf")}, not_finite),
        ("temperature = True", {"temperature": True}, None),
        ("top_k = -1", {"top_k": -1}, None),
        ("top_k = 2.0", {"top_k": 2.0}, None),
        ("top_k = True", {"top_k": True}, None),
        ("int64 logits", {"logits": torch.tensor([[1, 2, 0]])}, None),
    ):
        call = {"logits": logits, "temperature": 1.0, "top_k": 0, **kwargs}
        calls.append(BadCall(sub.filtered_probs, f"filtered_probs() with {what}", kwargs=call, diagnosis=why))
    rates = MISTAKES["rate_shapes_unchecked"]
    for what, kwargs, why in (
        ("two 1-D tensors", {"target_probs": p[0, 0], "draft_probs": q[0, 0]}, rates),
        ("float32 and float64", {"target_probs": p[:, 0], "draft_probs": q[:, 0].double()}, None),
        ("[2, 4] and [2, 3]", {"target_probs": p[:, 0], "draft_probs": q[:, 0, :3]}, None),
    ):
        calls.append(BadCall(sub.acceptance_rate, f"acceptance_rate() with {what}", kwargs=kwargs, diagnosis=why))
        calls.append(BadCall(sub.total_variation, f"total_variation() with {what}", kwargs=kwargs, diagnosis=why))
    target, draft = checks43.expand(STEP_TARGET, 2, torch.float32), checks43.expand(STEP_DRAFT, 2, torch.float32)
    for what, kwargs in (
        ("K = 0", {"target_logits": target[:, :1], "draft_logits": draft[:, :0]}),
        ("float32 and float64 logits", {"target_logits": target, "draft_logits": draft.double()}),
        ("top_k = -1", {"target_logits": target, "draft_logits": draft, "top_k": -1}),
    ):
        calls.append(
            BadCall(
                sub.speculative_step, f"speculative_step() with {what}", kwargs={**kwargs, "generator": ctx.generator()}
            )
        )
    expect_calls_refused(calls)
