"""Hidden tests of exercise 43. Never shown to learners; run in the judge's process only.

Each clause of the statement is judged on instances drawn under the case's own seed (``generated.py``,
``specs.py``); the frozen inputs of ``cases.py`` stay as examples. First the exact functions against
float64 oracles: the rates on rows that sum to 1 only up to rounding, the filter and the top-k rate with
ties made in several ways, -inf and very large logits; their generated bad inputs and legal corners. Then
``verify``: certain rows (p = q, K = 1, B = 1), two contexts whose draft tokens the judge draws from q
(the rows' independence with them), two contexts interleaved in one batch, uniforms of exactly 0, every
draw site pushed to each end on nice and on nasty inputs (cumulative sums that end early, residuals that
vanish after a rejection), the generator contract, generated bad inputs and legal corners. Then
``speculative_step`` the same way, and the hand-written table of bad inputs as examples.
"""

from __future__ import annotations

import random
from contextlib import nullcontext

import torch

from judge.checks.arguments import Variant, contract_refusals, legal_inputs, public_call
from judge.checks.base import Label, diagnosed, fail
from judge.checks.budget import BudgetDeclaration
from judge.checks.distributions import expect_distribution
from judge.checks.evidence import Evidence
from judge.checks.exact import expect, expect_close, expect_tensor
from judge.checks.generator_contract import expect_generator_contract, generator_contract_budget
from judge.checks.refusals import BadCall, BadInput, expect_bad_inputs_refused, expect_calls_refused
from judge.checks.testing import lane_weight
from judge.i18n import Bilingual
from judge.learner.interface import LearnerRaised

from ..public import checks43, theory
from ..public.checks43 import TOLERANCE, expect_values
from ..public.contexts import ZERO_P, ZERO_Q
from ..public.diagnoses import MISTAKES
from . import cases, generated, specs

GENERATOR_CONTEXTS = 3  # rows of the generator contracts: contexts 0 and 1 identical (the twins)
# K + 2 fits per statistical verify run (N, the token at each draft position, the bonus) and one pairs
# (its rows' independence): two runs with K = 3; the step adds a fit per position (the draft token with
# its acceptance) and the step with its defaults 2; the interleaved contexts spend 3 pairs; each generator
# contract 4 seeds, a fit per
# context and one independence (the twins).
BUDGET = (
    BudgetDeclaration(fit=5 + 5 + 6 + 2, pairs=1 + 1 + 3 + 1)
    + generator_contract_budget(GENERATOR_CONTEXTS, positions=True, twins=(0, 1))
    + generator_contract_budget(GENERATOR_CONTEXTS, positions=True, twins=(0, 1))
)

# The weakest kill per run needs well under a tenth of these rows (benchmarks/power_043.py).
DISAGREE_ROWS = 3_000
CLOSE_ROWS = 2_000
PAIRED_ROWS = 2_000  # per context, interleaved: 4 000 rows
ZERO_ROWS = 1_000
STEP_ROWS = 3_000
DEFAULT_ROWS = 2_000  # speculative_step with its default temperature and top_k
CONTRACT_COPIES = 16  # per context, for the seed clauses (a repeat by chance below 1e-12)
POSITION_COPIES = 600  # per context, for the fits of the positions clause


def test_rates(sub, ctx):
    """acceptance_rate and total_variation: random rows, p = q, disjoint supports, float32 and float64

    zh: acceptance_rate 与 total_variation：随机行、p = q、支撑不相交，float32 与 float64
    """
    for dtype_name in ("float32", "float64"):
        case = cases.rate_case(dtype_name)
        p, q = case.tensors()
        expected, mistakes = case.expected(), case.mistakes()
        for name in ("acceptance_rate", "total_variation"):
            value = getattr(sub, name)(p.clone(), q.clone())
            expect_values(
                ctx,
                value,
                expected[name],
                case.dtype,
                name=name,
                shape=(len(case.p),),
                what=f"{name} ({dtype_name})",
                mistakes=mistakes[name],
            )


def _labels(kinds: list[str]) -> list[Label]:
    return [Label(kind, Bilingual(kind, kind)) for kind in kinds]


@lane_weight(4)
def test_rates_generated(sub, ctx):
    """acceptance_rate and total_variation: generated rows summing to 1 up to rounding, tiny next to zero, float32 and float64

    zh: acceptance_rate 与 total_variation：生成的各行（和只在舍入意义上为 1、极小值挨着 0），float32 与 float64
    """  # noqa: E501 - a case's title is its docstring's first line: it cannot wrap
    rng = random.Random(ctx.fresh_seed("rates"))
    for dtype in (torch.float32, torch.float64):
        for vocab in (rng.randint(5, 13), rng.randint(300, 600)):
            rows = generated.rate_rows(rng, dtype, vocab)
            p, q = rows.tensors()
            expected, mistaken = rows.expected(), rows.mistakes()
            rtol, atol = TOLERANCE[dtype]
            for name in ("acceptance_rate", "total_variation"):
                value = getattr(sub, name)(p.clone(), q.clone())
                actual = expect_tensor(value, name=name, shape=(len(rows.p),), dtype=dtype, device=ctx.device)
                expect_close(
                    actual.to(torch.float64),
                    torch.tensor(expected[name], dtype=torch.float64),
                    rtol=rtol,
                    atol=atol,
                    what=f"{name} ({dtype}, V = {vocab}, generated rows)",
                    row_labels=_labels(rows.kinds),
                    mistakes={MISTAKES[m]: torch.tensor(v, dtype=torch.float64) for m, v in mistaken[name].items()},
                    per_row=True,
                )


def test_rates_refusals(sub, ctx):
    """acceptance_rate and total_variation: generated bad inputs (not a floating tensor, shapes, dtypes) raise ValueError

    zh: acceptance_rate 与 total_variation：生成的非法输入（非浮点张量、形状、dtype）都抛出 ValueError
    """  # noqa: E501 - a case's title is its docstring's first line: it cannot wrap
    calls = []
    for name in ("acceptance_rate", "total_variation"):
        rng = random.Random(ctx.fresh_seed(f"contract refusals: {name}"))
        for call in contract_refusals(
            getattr(sub, name), specs.good_rate_call(rng), specs.RATE_ARGUMENTS, rng, name=name
        ):
            shape = "dimension" in str(call.public)  # one dimension fewer or more: only the two shapes compared
            calls.append(_with_diagnosis(call, MISTAKES["rate_shapes_unchecked"]) if shape else call)
        good = specs.good_rate_call(rng)
        for text, change in (("1-D", lambda t: t[0].clone()), ("3-D", lambda t: t.unsqueeze(0).clone())):
            kwargs = {key: change(value) for key, value in good.items()}
            calls.append(
                BadCall(
                    getattr(sub, name),
                    f"{name}() with both tensors {text}, of shape {list(kwargs['target_probs'].shape)}",
                    kwargs=kwargs,
                    public=Bilingual(f"{name}() with both tensors {text}", f"{name}() 收到两个{text}张量时"),
                    diagnosis=MISTAKES["rate_shapes_unchecked"],
                )
            )
    _refused(calls)


def _with_diagnosis(call: BadCall, diagnosis: str) -> BadCall:
    return BadCall(call.function, call.call, call.args, call.kwargs, call.public, diagnosis)


def _refused(calls: list[BadCall]) -> int:
    """``expect_calls_refused`` with the calls that name no mistake first: a mistake is named by a bad
    input it lets through only when every other bad input was refused (its own evidence, not a code that
    refuses nothing)."""
    return expect_calls_refused(sorted(calls, key=lambda call: call.diagnosis is not None))


@lane_weight(2)
def test_rates_corners(sub, ctx):
    """acceptance_rate and total_variation: legal corners (exact zeros, weights, B = 1, V = 1, float32 and float64)

    zh: acceptance_rate 与 total_variation：合法的边界情况（精确 0、权重、B = 1、V = 1、float32 与 float64）
    """  # noqa: E501 - a case's title is its docstring's first line: it cannot wrap
    for name in ("acceptance_rate", "total_variation"):
        rng = random.Random(ctx.fresh_seed(f"contract corners: {name}"))
        _accepts(
            getattr(sub, name),
            name,
            legal_inputs(specs.good_rate_call(rng), specs.RATE_ARGUMENTS, rng),
            specs.rate_corner_check(ctx, name),
        )


def _accepts(function, name: str, variants, check, diagnoses: dict | None = None, extra=None) -> None:
    """Each legal call must return normally and pass ``check(value, variant)``; a raise on the corner of kind
    K names ``diagnoses[K]`` (its own evidence: the same call without that corner is the good call)."""
    for variant in variants:
        try:
            value = function(**variant.kwargs, **(extra() if extra else {}))
        except LearnerRaised as raised:
            if raised.memory or raised.not_implemented:
                raise
            public = public_call(name, variant)
            fail(
                f"{name}() with {variant.description} must return normally: the statement allows it; it raised "
                f"{raised.described()}: {raised.message}",
                rule=Bilingual(
                    f"{public}: raised an exception on an input the statement allows",
                    f"{public.zh}：对题面允许的输入抛出了异常",
                ),
                kind=Evidence.RAISED,
                diagnosis=(diagnoses or {}).get(variant.kind),
            )
        check(value, variant)


def test_filtered_probs(sub, ctx):
    """filtered_probs: temperature and top-k on [B, K, V] logits, ties at the k-th logit kept

    zh: filtered_probs：对 [B, K, V] 的 logits 做温度与 top-k，与第 k 大并列的都保留
    """
    case = cases.topk_case("float32", 0.7, 2, 43_201)
    logits = torch.tensor(case.target, dtype=case.dtype).reshape(2, 4, 8)
    value = sub.filtered_probs(logits, temperature=case.temperature, top_k=case.top_k)
    expect_values(
        ctx,
        value,
        torch.tensor(case.filtered(), dtype=torch.float64).reshape(2, 4, 8).tolist(),
        case.dtype,
        name="filtered_probs",
        shape=(2, 4, 8),
        what="filtered_probs(temperature=0.7, top_k=2)",
        mistakes={
            m: torch.tensor(case.filtered(m), dtype=torch.float64).reshape(2, 4, 8).tolist()
            for m in ("topk_not_renormalised", "topk_k_plus_one", "topk_strict", "temperature_multiplied")
        },
    )
    kept = (value.reshape(8, 8) > 0).sum(dim=1).tolist()
    expect(
        kept[6] == 4,
        f"filtered_probs(top_k=2) kept {kept[6]} tokens of a row whose 2nd largest logit is shared by three tokens; "
        "all four must stay",
        diagnosis=MISTAKES["topk_exact_k"],
    )


FILTER_MISTAKES = (
    "topk_k_plus_one",
    "topk_strict",
    "topk_not_renormalised",
    "temperature_multiplied",
    "ties_after_division",
)


def test_filtered_generated(sub, ctx):
    """filtered_probs: generated rows with ties made several ways and -inf logits, then the same rows plus 1000

    zh: filtered_probs：生成的各行（以多种方式构造的并列、-inf logits），再加上 1000 后重测
    """
    rng = random.Random(ctx.fresh_seed("filter"))
    for dtype in (torch.float32, torch.float64):
        temperature, top_k = rng.choice((0.7, 0.9, 1.3)), rng.randint(2, 4)
        rows = generated.filter_rows(rng, dtype, temperature, top_k, vocab=8)
        what = f"filtered_probs({dtype}, temperature={temperature}, top_k={top_k}, generated rows)"
        rtol, atol = TOLERANCE[dtype]
        expected = torch.tensor(rows.expected(), dtype=torch.float64)
        value = sub.filtered_probs(rows.tensor(), temperature=temperature, top_k=top_k)
        actual = expect_tensor(
            value, name="filtered_probs", shape=(len(rows.logits), 8), dtype=dtype, device=ctx.device
        )
        expect_close(
            actual.to(torch.float64),
            expected,
            rtol=rows.rtol(rtol),
            atol=atol,
            what=what,
            row_labels=_labels(rows.kinds),
            mistakes={MISTAKES[m]: torch.tensor(rows.mistaken(m), dtype=torch.float64) for m in FILTER_MISTAKES},
        )
        shifted = [[v + 1000.0 for v in z] for z in rows.logits]
        large = generated.FilterRows(generated.rounded(shifted, dtype), rows.kinds, temperature, top_k, dtype)
        value = sub.filtered_probs(large.tensor(), temperature=temperature, top_k=top_k)
        actual = expect_tensor(
            value, name="filtered_probs", shape=(len(rows.logits), 8), dtype=dtype, device=ctx.device
        )
        # The same rows passed at their own size: NaN or infinity now is the softmax overflowing.
        expect(
            bool(torch.isfinite(actual).all()),
            f"{what} plus 1000: the result holds NaN or infinity, where the same rows 1000 lower came out right",
            diagnosis=MISTAKES["softmax_overflow"],
            rule=Bilingual(
                "filtered_probs with large logits: NaN or infinity", "filtered_probs 在 logit 很大时：出现 NaN 或无穷大"
            ),
            kind=Evidence.VALUE,
        )
        expect_close(
            actual.to(torch.float64),
            torch.tensor(large.expected(), dtype=torch.float64),
            rtol=large.rtol(rtol),
            atol=atol,
            what=f"{what} plus 1000",
            row_labels=_labels(rows.kinds),
        )


def test_filter_refusals(sub, ctx):
    """filtered_probs: generated bad logits, temperatures and top_k raise ValueError

    zh: filtered_probs：生成的非法 logits、温度与 top_k 都抛出 ValueError
    """
    rng = random.Random(ctx.fresh_seed("contract refusals: filtered_probs"))
    good = specs.good_filter_call(rng)
    calls = contract_refusals(sub.filtered_probs, good, specs.FILTER_ARGUMENTS, rng, name="filtered_probs")
    finite = {"nan", "posinf", "neginf"}
    calls = [
        _with_diagnosis(c, MISTAKES["temperature_not_finite_accepted"])
        if "temperature" in str(c.public) and any(word in str(c.public) for word in ("NaN", "infin"))
        else c
        for c in calls
    ]
    del finite
    _refused(calls + specs.extra_parameter_refusals(sub.filtered_probs, "filtered_probs", good))


def test_filter_corners(sub, ctx):
    """filtered_probs: legal corners (-inf, large logits, int temperature, top_k = 0, 1, V, > V, 1-D and 3-D, defaults)

    zh: filtered_probs：合法的边界情况（-inf、很大的 logit、int 温度、top_k 为 0、1、V、大于 V，一维与三维，默认参数）
    """  # noqa: E501 - a case's title is its docstring's first line: it cannot wrap
    rng = random.Random(ctx.fresh_seed("contract corners: filtered_probs"))
    good = specs.good_filter_call(rng)
    check = specs.filter_corner_check(ctx)
    _accepts(sub.filtered_probs, "filtered_probs", legal_inputs(good, specs.FILTER_ARGUMENTS, rng), check)
    for kwargs, public in specs.more_filter_corners(good):
        variant = _variant(kwargs, public)
        with diagnosed(MISTAKES["topk_above_vocab_crashes"], raised_only=True) if ">" in str(public) else nullcontext():
            value = sub.filtered_probs(**kwargs)
        check(value, _full(variant))


def _variant(kwargs: dict, public: Bilingual):
    return Variant("call", "extra", kwargs, str(public), public)


def _full(variant):
    """``variant`` with the defaults of filtered_probs written out (the oracle reads them)."""
    kwargs = {"temperature": 1.0, "top_k": 0, **variant.kwargs}
    return Variant(variant.argument, variant.kind, kwargs, variant.description, variant.public)


def test_topk_acceptance_rate(sub, ctx):
    """topk_acceptance_rate: top_k = 2 with ties, top_k = 4, no top-k, top_k = V and > V, float32 and float64

    zh: topk_acceptance_rate：带并列的 top_k = 2、top_k = 4、不截断、top_k 等于与大于 V，float32 与 float64
    """
    for dtype_name, temperature, top_k, seed in (
        ("float32", 0.7, 2, 43_201),
        ("float64", 1.6, 4, 43_202),
        ("float32", 1.0, 0, 43_203),
        ("float64", 0.5, 8, 43_204),
        ("float32", 1.3, 11, 43_205),
    ):
        case = cases.topk_case(dtype_name, temperature, top_k, seed)
        target, draft = case.tensors()
        # A crash is about top_k only where top_k reaches the vocabulary (the smaller ones ran first).
        beyond = top_k >= target.shape[-1]
        with diagnosed(MISTAKES["topk_above_vocab_crashes"], raised_only=True) if beyond else nullcontext():
            value = sub.topk_acceptance_rate(target, draft, temperature=temperature, top_k=top_k)
        expect_values(
            ctx,
            value,
            case.expected(),
            case.dtype,
            name="topk_acceptance_rate",
            shape=(len(case.target),),
            what=f"topk_acceptance_rate({dtype_name}, temperature={temperature}, top_k={top_k})",
            mistakes=case.mistakes() if 0 < top_k < 8 else None,
        )


TOPK_RATE_MISTAKES = ("topk_target_only", "topk_not_renormalised", "topk_k_plus_one", "topk_strict")


def test_topk_rate_generated(sub, ctx):
    """topk_acceptance_rate: generated pairs of rows with ties made several ways and -inf logits, float32 and float64

    zh: topk_acceptance_rate：生成的成对的行（以多种方式构造的并列、-inf logits），float32 与 float64
    """  # noqa: E501 - a case's title is its docstring's first line: it cannot wrap
    rng = random.Random(ctx.fresh_seed("topk rate"))
    for dtype in (torch.float32, torch.float64):
        temperature, top_k = rng.choice((0.7, 0.9, 1.3)), rng.randint(2, 4)
        target = generated.filter_rows(rng, dtype, temperature, top_k, vocab=8)
        draft = generated.filter_rows(rng, dtype, temperature, top_k, vocab=8)
        rows = list(zip(target.logits, draft.logits, strict=True))
        want = [
            theory.acceptance(generated.filtered64(a, temperature, top_k), generated.filtered64(b, temperature, top_k))
            for a, b in rows
        ]
        mistakes = {
            MISTAKES[m]: torch.tensor(
                checks43.topk_rate(target.logits, draft.logits, temperature, top_k, m), dtype=torch.float64
            )
            for m in TOPK_RATE_MISTAKES
        }
        value = sub.topk_acceptance_rate(target.tensor(), draft.tensor(), temperature=temperature, top_k=top_k)
        actual = expect_tensor(value, name="topk_acceptance_rate", shape=(len(rows),), dtype=dtype, device=ctx.device)
        rtol, atol = TOLERANCE[dtype]
        expect_close(
            actual.to(torch.float64),
            torch.tensor(want, dtype=torch.float64),
            rtol=max(target.rtol(rtol), draft.rtol(rtol)),
            atol=atol,
            what=f"topk_acceptance_rate({dtype}, temperature={temperature}, top_k={top_k}, generated rows)",
            row_labels=_labels([f"target: {a}; draft: {b}" for a, b in zip(target.kinds, draft.kinds, strict=True)]),
            mistakes=mistakes,
            per_row=True,
        )


@lane_weight(2)
def test_topk_rate_contract(sub, ctx):
    """topk_acceptance_rate: generated bad inputs raise ValueError; legal corners work

    zh: topk_acceptance_rate：生成的非法输入都抛出 ValueError；合法的边界情况都能正常运行
    """
    rng = random.Random(ctx.fresh_seed("contract refusals: topk_acceptance_rate"))
    good = specs.good_topk_rate_call(rng)
    calls = contract_refusals(
        sub.topk_acceptance_rate, good, specs.TOPK_RATE_ARGUMENTS, rng, name="topk_acceptance_rate"
    )
    _refused(calls + specs.extra_parameter_refusals(sub.topk_acceptance_rate, "topk_acceptance_rate", good))
    rng = random.Random(ctx.fresh_seed("contract corners: topk_acceptance_rate"))
    good = specs.good_topk_rate_call(rng)
    check = specs.topk_rate_corner_check(ctx)
    _accepts(
        sub.topk_acceptance_rate, "topk_acceptance_rate", legal_inputs(good, specs.TOPK_RATE_ARGUMENTS, rng), check
    )
    defaults = {"target_logits": good["target_logits"], "draft_logits": good["draft_logits"]}
    check(sub.topk_acceptance_rate(**defaults), _full(_variant(defaults, Bilingual("the defaults", "默认参数"))))


def test_verify_same_distributions(sub, ctx):
    """verify with p = q at every draft position: all K tokens accepted, then one bonus token

    zh: verify 在每个草稿位置都有 p = q：K 个全部接受，然后一个奖励 token
    """
    rng = random.Random(43_300)
    batch, k, vocab = 40, 4, 30
    rows = [[[rng.random() ** 2 + 0.01 for _ in range(vocab)] for _ in range(k + 1)] for _ in range(batch)]
    for dtype in (torch.float32, torch.float64):
        p = torch.tensor(rows, dtype=dtype)
        p = p / p.sum(dim=2, keepdim=True)
        q = p[:, :k].clone()
        drafts = torch.multinomial(
            q.reshape(-1, vocab).to(torch.float64), 1, generator=torch.Generator().manual_seed(7)
        )
        drafts = drafts.reshape(batch, k)
        value = sub.verify(p, q, drafts.clone(), generator=ctx.generator())
        tokens, num = checks43.unpack(ctx, value, name="verify", batch=batch, k=k)
        checks43.check_structure(tokens, num, drafts, vocab, what=f"verify(p = q, {dtype})")
        expect(
            bool((num == k).all()),
            f"verify(p = q, {dtype}): num_accepted is {num.tolist()}; with p = q every draft token is accepted",
            rule=Bilingual("rejected a token although p = q", "p = q 时仍有拒绝"),
        )


def test_verify_one_draft(sub, ctx):
    """verify with K = 1 (and B = 1): rows whose outcome is certain give exactly the expected tokens

    zh: verify 在 K = 1（以及 B = 1）时：结果确定的各行给出的 token 与预期完全一致
    """
    checks43.run_one_draft(sub, ctx, batches=(3, 1))


def test_verify_disagreeing_draft(sub, ctx):
    """verify: 3 000 rows drafted by the judge from a draft far from the target (float32)

    zh: verify：评测方从一个与目标相差很远的草稿分布抽 3 000 行（float32）
    """
    checks43.run_verify(
        sub,
        ctx,
        cases.DISAGREE_P,
        cases.DISAGREE_Q,
        DISAGREE_ROWS,
        torch.float32,
        label="verify (disagreeing draft)",
        public="verify, disagreeing draft",
        seed=ctx.fresh_seed("disagree"),
    )


def test_verify_close_draft(sub, ctx):
    """verify: 2 000 rows drafted by the judge from a close draft, most reaching the bonus (float64)

    zh: verify：评测方从一个接近目标的草稿分布抽 2 000 行，多数行会得到奖励 token（float64）
    """
    checks43.run_verify(
        sub,
        ctx,
        cases.CLOSE_P,
        cases.CLOSE_Q,
        CLOSE_ROWS,
        torch.float64,
        label="verify (close draft)",
        public="verify, close draft",
        seed=ctx.fresh_seed("close"),
        residual_shapes=False,
    )


def test_verify_rows_independent(sub, ctx):
    """verify: two contexts interleaved in one batch (2 x 2 000 rows): neighbours, rows half a batch apart and the two contexts independent

    zh: verify：两个上下文在同一批中交错排列（2 x 2 000 行）：相邻的行、相隔半批的行以及两个上下文之间都相互独立
    """  # noqa: E501 - a case's title is its docstring's first line: it cannot wrap
    # The first context accepts every draft token with probability 1/2: rows that tie their uniforms
    # decide together (or oppositely) at every position.
    generator = torch.Generator().manual_seed(ctx.fresh_seed("paired drafts"))
    contexts = ((cases.HALF_P, cases.HALF_Q), (cases.DISAGREE_P, cases.DISAGREE_Q))
    drafts = [checks43.draw_drafts(qs, PAIRED_ROWS, generator) for _, qs in contexts]
    p = torch.stack([checks43.expand(ps, PAIRED_ROWS, torch.float64) for ps, _ in contexts], dim=1).flatten(0, 1)
    q = torch.stack([checks43.expand(qs, PAIRED_ROWS, torch.float64) for _, qs in contexts], dim=1).flatten(0, 1)
    x = torch.stack(drafts, dim=1).flatten(0, 1)
    k, vocab = x.shape[1], p.shape[-1]
    tokens, num = checks43.unpack(
        ctx, sub.verify(p, q, x.clone(), generator=ctx.generator()), name="verify", batch=2 * PAIRED_ROWS, k=k
    )
    label = "verify (two contexts interleaved)"
    checks43.check_structure(tokens, num, x, vocab, what=label)
    outcomes = checks43.outcome_ids(tokens, num, vocab)
    laws = [theory.final_law(ps, qs) for ps, qs in contexts]
    for index in range(2):
        checks43.expect_outcome_support(outcomes[index::2].clone(), laws[index], label=label)
    for index, name in enumerate(("fair-coin", "disagreeing")):
        checks43.expect_rows_independent(
            ctx, outcomes[index::2].clone(), laws[index], label=f"{label}, the {name} context's rows", public="verify"
        )
    checks43.expect_rows_independent_across(
        ctx, outcomes[0::2].clone(), outcomes[1::2].clone(), (laws[0], laws[1]), label=label, public="verify"
    )


def test_verify_zero_uniforms(sub, ctx):
    """verify with uniforms of exactly 0: a draft token of target probability 0 is still rejected

    zh: 均匀数恰为 0 时，目标概率为 0 的草稿 token 仍被拒绝
    """
    checks43.run_zero_uniforms(sub, ctx, ZERO_P, ZERO_Q, ZERO_ROWS, label="verify (uniforms of 0)")


@lane_weight(2)
def test_verify_draw_sites(sub, ctx):
    """verify with each draw site in turn at 0 and at the largest float below 1

    zh: verify 的每个抽样点依次取 0 与小于 1 的最大浮点数
    """
    checks43.run_draw_sites(
        sub, ctx, cases.SITES_P, cases.SITES_Q, cases.SITES_DRAFTS, label="verify (every draw site at its extremes)"
    )


@lane_weight(4)
def test_verify_draw_sites_past_end(sub, ctx):
    """verify: every draw site at both ends on rows whose cumulative sums end early, with zeros at the end and 1e-25

    zh: verify：在累积和提前结束（末尾为 0、含 1e-25）的各行上，每个抽样点取两个端点
    """
    rng = random.Random(ctx.fresh_seed("past the end"))
    for dtype in (torch.float32, torch.float64):
        rows = generated.past_end_rows(rng, dtype)
        checks43.expect_verify_draw_sites(
            sub,
            ctx,
            *rows.tensors(),
            label=f"verify ({dtype}, cumulative sums that end early)",
            high_diagnosis=MISTAKES["sampler_past_cdf_end"],
        )


@lane_weight(5)
def test_verify_draw_sites_vanishing_residual(sub, ctx):
    """verify: every draw site at both ends where a rejection leaves a residual that is 0 at every token

    zh: verify：拒绝后残差在每个 token 上都为 0 时，每个抽样点取两个端点
    """
    rng = random.Random(ctx.fresh_seed("vanishing residual"))
    for dtype in (torch.float32, torch.float64):
        rows = generated.vanishing_residual_rows(rng, dtype)
        # The same rows with the draft token at half its draft probability: rejected alike at the top, with a
        # residual left. A failure there is not about a residual of 0, and names that mistake no more.
        p, q, x = rows.tensors()
        checks43.expect_verify_draw_sites(
            sub, ctx, *checks43.halved(p, q, x), x, label=f"verify ({dtype}, the control of the vanishing residual)"
        )
        checks43.expect_verify_draw_sites(
            sub,
            ctx,
            *rows.tensors(),
            label=f"verify ({dtype}, p(x)/q(x) one ulp below 1, p = q elsewhere)",
            high_diagnosis=MISTAKES["residual_zero_sum"],
            diagnosis=MISTAKES["residual_zero_sum"],
        )


# Three K = 2 contexts (V = 5) with fixed drafts: 0 and 1 identical (the twins), 2 another. Each draws
# its last token from a residual of two or three tokens or from p_K.
CONTRACT_P = [
    [[0.10, 0.45, 0.05, 0.25, 0.15], [0.30, 0.10, 0.20, 0.15, 0.25], [0.05, 0.40, 0.25, 0.20, 0.10]],
    [[0.35, 0.05, 0.30, 0.10, 0.20], [0.15, 0.25, 0.05, 0.40, 0.15], [0.30, 0.10, 0.10, 0.15, 0.35]],
]
CONTRACT_Q = [
    [[0.30, 0.15, 0.25, 0.10, 0.20], [0.10, 0.30, 0.15, 0.25, 0.20]],
    [[0.10, 0.35, 0.10, 0.30, 0.15], [0.30, 0.10, 0.25, 0.15, 0.20]],
]
CONTRACT_DRAFTS = [[2, 1], [1, 3]]
CONTRACT_LAYOUT = (0, 0, 1)  # context of each of the GENERATOR_CONTEXTS rows


def _interleaved(per_context: list[torch.Tensor], order: list[int], copies: int) -> torch.Tensor:
    """``copies`` copies of each row of ``order``, interleaved: copy j of row r at batch row j * R + r."""
    return torch.stack([per_context[r].expand(copies, *per_context[r].shape) for r in order], dim=1).flatten(0, 1)


def _by_context(outcomes: torch.Tensor, rows: int, copies: int) -> torch.Tensor:
    """Batch-ordered outcomes back to ``[rows, copies]``."""
    return outcomes.reshape(copies, rows).t().contiguous()


@lane_weight(2)
def test_verify_generator(sub, ctx):
    """verify: the generator contract (same seed, other seed, two calls in a row, generator=None, global RNG left alone, rows independent of their position)

    zh: verify：生成器的约定（相同种子、不同种子、连续两次调用、generator=None、不动全局随机数、行的结果与其位置无关）
    """  # noqa: E501 - a case's title is its docstring's first line: it cannot wrap
    ps = [torch.tensor(CONTRACT_P[c]) for c in CONTRACT_LAYOUT]
    qs = [torch.tensor(CONTRACT_Q[c]) for c in CONTRACT_LAYOUT]
    xs = [torch.tensor(CONTRACT_DRAFTS[c]) for c in CONTRACT_LAYOUT]
    laws = [theory.final_law(CONTRACT_P[c], CONTRACT_Q[c], CONTRACT_DRAFTS[c]) for c in CONTRACT_LAYOUT]
    vocab = ps[0].shape[-1]

    def draw(source, generator, rows=None):
        order, copies = (list(range(GENERATOR_CONTEXTS)), CONTRACT_COPIES) if rows is None else (rows, POSITION_COPIES)
        x = _interleaved(xs, order, copies)
        value = source.verify(
            _interleaved(ps, order, copies), _interleaved(qs, order, copies), x.clone(), generator=generator
        )
        tokens, num = checks43.unpack(ctx, value, name="verify", batch=x.shape[0], k=x.shape[1])
        checks43.check_structure(tokens, num, x, vocab, what="verify (generator contract)")
        return _by_context(checks43.outcome_ids(tokens, num, vocab), len(order), copies)

    expect_generator_contract(
        sub,
        ctx,
        draw,
        torch.tensor(laws, dtype=torch.float64),
        label="verify",
        positions=True,
        twins=(0, 1),
        outcome=checks43.ROW_OUTCOME,
    )


@lane_weight(3)
def test_verify_refusals(sub, ctx):
    """verify: generated bad inputs raise ValueError (shapes, K = 0, dtypes, token ids, bad probabilities, q(x) = 0 anywhere)

    zh: verify：生成的非法输入都抛出 ValueError（形状、K = 0、dtype、token 编号、非法概率、任意位置的 q(x) = 0）
    """  # noqa: E501 - a case's title is its docstring's first line: it cannot wrap
    rng = random.Random(ctx.fresh_seed("contract refusals: verify"))
    good = specs.good_verify_call(rng)

    def extra():
        return {"generator": ctx.generator()}

    calls = contract_refusals(sub.verify, good, specs.VERIFY_ARGUMENTS, rng, extra=extra, name="verify")
    bad_values = ("negative", "NaN", "infin", "below")
    calls = [
        _with_diagnosis(c, MISTAKES["bad_probabilities_accepted"])
        if "probs" in str(c.public) and any(word in str(c.public) for word in bad_values)
        else c
        for c in calls
    ]
    for call in specs.verify_extra_refusals(sub.verify, good, rng, extra):
        calls.append(_with_diagnosis(call, MISTAKES["k_zero_accepted"]) if "K = 0" in call.call else call)
    both = specs.both_dtype_refusals(sub.verify, "verify", good, ("target_probs", "draft_probs"), extra)
    _refused(calls + specs.verify_shape_refusals(sub.verify, good, extra) + both)


@lane_weight(3)
def test_verify_corners(sub, ctx):
    """verify: legal corners (exact zeros, 1e-25, rows summing to 1 up to rounding, B = 1, K = 1, V = 1, ids 0 and V - 1, dtypes, the default generator)

    zh: verify：合法的边界情况（精确 0、1e-25、和只在舍入意义上为 1 的行、B = 1、K = 1、V = 1、编号 0 与 V - 1、dtype、默认生成器）
    """  # noqa: E501 - a case's title is its docstring's first line: it cannot wrap
    rng = random.Random(ctx.fresh_seed("contract corners: verify"))
    good = specs.good_verify_call(rng)
    check = specs.verify_corner_check(ctx)
    variants = legal_inputs(good, specs.VERIFY_ARGUMENTS, rng)
    _accepts(
        sub.verify,
        "verify",
        variants,
        check,
        diagnoses={"rounding": MISTAKES["sums_checked"]},
        extra=lambda: {"generator": ctx.generator()},
    )
    _accepts(
        sub.with_global_seed(ctx.fresh_seed("default generator")).verify,
        "verify",
        [_variant(good, Bilingual("the default generator", "默认生成器"))],
        check,
    )


def test_speculative_step(sub, ctx):
    """speculative_step: temperature 1.5 and top_k = 3 on both sides; 3 000 rows

    zh: speculative_step：两边都用温度 1.5 与 top_k = 3；3 000 行
    """
    checks43.run_step(
        sub,
        ctx,
        cases.STEP_TARGET,
        cases.STEP_DRAFT,
        cases.STEP_TEMPERATURE,
        cases.STEP_TOP_K,
        STEP_ROWS,
        torch.float32,
        label="speculative_step(temperature=1.5, top_k=3)",
        public="speculative_step",
    )


def test_step_defaults(sub, ctx):
    """speculative_step with the default temperature and top_k: the drafts and the first tokens follow softmax(logits), 2 000 rows

    zh: speculative_step 使用默认的温度与 top_k：草稿和第一个 token 都服从 softmax(logits)，2 000 行
    """  # noqa: E501 - a case's title is its docstring's first line: it cannot wrap
    rows = DEFAULT_ROWS
    target = checks43.expand(cases.STEP_TARGET, rows, torch.float32)
    draft = checks43.expand(cases.STEP_DRAFT, rows, torch.float32)
    value = sub.speculative_step(target, draft, generator=ctx.generator())
    tokens, num, drafts = checks43.unpack(ctx, value, name="speculative_step", batch=rows, k=2, parts=3)
    checks43.check_structure(tokens, num, drafts, 6, what="speculative_step (defaults)")
    for what, drawn, logits in (
        ("draft tokens at position 0", drafts[:, 0], cases.STEP_DRAFT[0]),
        ("tokens at position 0", tokens[:, 0], cases.STEP_TARGET[0]),
    ):
        law = torch.tensor(theory.softmax(logits), dtype=torch.float64)
        expect_distribution(
            ctx,
            drawn.clone(),
            law,
            label=f"speculative_step with the defaults: {what}",
            public=Bilingual(f"speculative_step with the defaults: {what}", f"speculative_step 使用默认参数：{what}"),
        )


@lane_weight(3)
def test_step_draw_sites(sub, ctx):
    """speculative_step: every draw site at both ends, top-k leaving exact zeros at both ends of the drafts, residuals and p_K

    zh: speculative_step：每个抽样点取两个端点，top-k 使草稿、残差与 p_K 在词表两端都有精确的 0
    """  # noqa: E501 - a case's title is its docstring's first line: it cannot wrap
    rng = random.Random(ctx.fresh_seed("step sites"))
    for dtype in (torch.float32, torch.float64):
        target, draft, top_k = generated.step_site_logits(rng, dtype)
        temperature = rng.choice((0.7, 1.3))
        checks43.expect_step_draw_sites(
            sub,
            ctx,
            torch.tensor(target, dtype=dtype),
            torch.tensor(draft, dtype=dtype),
            temperature,
            top_k,
            label=f"speculative_step ({dtype}, temperature={temperature}, top_k={top_k})",
        )


STEP_CONTRACT_TARGET = [
    [[2.0, 1.2, 0.4, 1.5, 0.0], [0.2, 1.8, 1.0, 0.0, 1.4], [1.5, 0.0, 0.3, 2.0, 1.0]],
    [[0.3, 2.2, 1.1, 0.5, 1.6], [1.9, 0.1, 1.4, 0.9, 0.2], [0.4, 1.0, 2.1, 0.2, 1.7]],
]
STEP_CONTRACT_DRAFT = [
    [[1.2, 2.0, 0.2, 1.6, 0.8], [0.9, 1.7, 0.2, 0.3, 1.5]],
    [[1.0, 1.9, 0.4, 1.8, 0.3], [0.2, 0.5, 1.6, 1.2, 1.9]],
]
STEP_CONTRACT_TEMPERATURE, STEP_CONTRACT_TOP_K = 1.3, 3


@lane_weight(2)
def test_step_generator(sub, ctx):
    """speculative_step: the generator contract (same seed, other seed, two calls in a row, generator=None, global RNG left alone, rows independent of their position)

    zh: speculative_step：生成器的约定（相同种子、不同种子、连续两次调用、generator=None、不动全局随机数、行的结果与其位置无关）
    """  # noqa: E501 - a case's title is its docstring's first line: it cannot wrap
    temperature, top_k = STEP_CONTRACT_TEMPERATURE, STEP_CONTRACT_TOP_K
    targets = [torch.tensor(STEP_CONTRACT_TARGET[c]) for c in CONTRACT_LAYOUT]
    drafts = [torch.tensor(STEP_CONTRACT_DRAFT[c]) for c in CONTRACT_LAYOUT]
    laws = []
    for c in CONTRACT_LAYOUT:
        ps = [theory.filtered(z, temperature, top_k) for z in STEP_CONTRACT_TARGET[c]]
        qs = [theory.filtered(z, temperature, top_k) for z in STEP_CONTRACT_DRAFT[c]]
        laws.append(theory.final_law(ps, qs))
    k, vocab = drafts[0].shape

    def draw(source, generator, rows=None):
        order, copies = (list(range(GENERATOR_CONTEXTS)), CONTRACT_COPIES) if rows is None else (rows, POSITION_COPIES)
        value = source.speculative_step(
            _interleaved(targets, order, copies),
            _interleaved(drafts, order, copies),
            temperature=temperature,
            top_k=top_k,
            generator=generator,
        )
        tokens, num, drafted = checks43.unpack(
            ctx, value, name="speculative_step", batch=len(order) * copies, k=k, parts=3
        )
        checks43.check_structure(tokens, num, drafted, vocab, what="speculative_step (generator contract)")
        return _by_context(checks43.outcome_ids(tokens, num, vocab), len(order), copies)

    expect_generator_contract(
        sub,
        ctx,
        draw,
        torch.tensor(laws, dtype=torch.float64),
        label="speculative_step",
        positions=True,
        twins=(0, 1),
        outcome=checks43.ROW_OUTCOME,
    )


def test_step_refusals(sub, ctx):
    """speculative_step: generated bad inputs raise ValueError (shapes, K = 0, dtypes, temperature, top_k)

    zh: speculative_step：生成的非法输入都抛出 ValueError（形状、K = 0、dtype、温度、top_k）
    """
    rng = random.Random(ctx.fresh_seed("contract refusals: speculative_step"))
    good = specs.good_step_call(rng)

    def extra():
        return {"generator": ctx.generator()}

    calls = contract_refusals(
        sub.speculative_step, good, specs.STEP_ARGUMENTS, rng, extra=extra, name="speculative_step"
    )
    zero = {
        **good,
        "target_logits": good["target_logits"][:, :1].clone(),
        "draft_logits": good["draft_logits"][:, :0].clone(),
        **extra(),
    }
    calls.append(
        BadCall(
            sub.speculative_step,
            "speculative_step() with K = 0",
            kwargs=zero,
            public=Bilingual("speculative_step() with K = 0", "speculative_step() 收到 K = 0 时"),
        )
    )
    calls += specs.extra_parameter_refusals(sub.speculative_step, "speculative_step", good, extra())
    calls += specs.both_dtype_refusals(
        sub.speculative_step, "speculative_step", good, ("target_logits", "draft_logits"), extra
    )
    _refused(calls)


@lane_weight(4)
def test_step_corners(sub, ctx):
    """speculative_step: legal corners (-inf and large logits, int temperature, top_k = 0, 1, V, > V, B = 1, K = 1, V = 1, dtypes, defaults)

    zh: speculative_step：合法的边界情况（-inf 与很大的 logit、int 温度、top_k 为 0、1、V、大于 V，B = 1、K = 1、V = 1、dtype、默认参数）
    """  # noqa: E501 - a case's title is its docstring's first line: it cannot wrap
    rng = random.Random(ctx.fresh_seed("contract corners: speculative_step"))
    good = specs.good_step_call(rng)
    check = specs.step_corner_check(ctx)
    _accepts(
        sub.speculative_step,
        "speculative_step",
        legal_inputs(good, specs.STEP_ARGUMENTS, rng),
        check,
        extra=lambda: {"generator": ctx.generator()},
    )
    vocab = good["draft_logits"].shape[-1]
    more = [
        ({**good, "top_k": k}, Bilingual(f"top_k = {text}", f"top_k = {text}"))
        for k, text in ((1, "1"), (vocab, "V"), (vocab + 3, "V + 3"))
    ]
    for kwargs, public in more:
        with diagnosed(MISTAKES["topk_above_vocab_crashes"], raised_only=True) if "+" in str(public) else nullcontext():
            value = sub.speculative_step(**kwargs, generator=ctx.generator())
        check(value, _variant(kwargs, public))
    defaults = {"target_logits": good["target_logits"], "draft_logits": good["draft_logits"]}
    value = sub.with_global_seed(ctx.fresh_seed("step defaults")).speculative_step(**defaults)
    check(
        value,
        _variant(defaults, Bilingual("the default temperature, top_k and generator", "默认的温度、top_k 与生成器")),
    )


def _poked(probs: torch.Tensor, value: float) -> torch.Tensor:
    """``probs`` with entry [1, 1, 2] set to ``value`` (no bad-input row drafts token 2 there)."""
    out = probs.clone()
    out[1, 1, 2] = value
    return out


def test_bad_inputs(sub, ctx):
    """Bad inputs raise ValueError: shapes, dtypes, token ids, q(x) = 0, temperature, top_k

    zh: 非法输入抛出 ValueError：形状、dtype、token 编号、q(x) = 0、温度、top_k
    """
    p = checks43.expand(cases.CLOSE_P, 2, torch.float32)
    q = checks43.expand(cases.CLOSE_Q, 2, torch.float32)
    x = torch.tensor([[0, 1, 2], [3, 4, 5]])
    expect_bad_inputs_refused(
        sub.verify,
        [
            BadInput(
                "target_probs [B, K, V] (K positions, not K + 1)",
                {"target_probs": p[:, :3], "draft_probs": q, "draft_tokens": x},
            ),
            BadInput(
                "draft_tokens of shape [B, K - 1]", {"target_probs": p, "draft_probs": q, "draft_tokens": x[:, :2]}
            ),
            BadInput(
                "a draft token id equal to V",
                {"target_probs": p, "draft_probs": q, "draft_tokens": torch.tensor([[0, 1, 6], [3, 4, 5]])},
            ),
            BadInput(
                "a negative draft token id",
                {"target_probs": p, "draft_probs": q, "draft_tokens": torch.tensor([[0, -1, 2], [3, 4, 5]])},
            ),
            BadInput(
                "float32 target with float64 draft", {"target_probs": p, "draft_probs": q.double(), "draft_tokens": x}
            ),
            BadInput("int32 draft tokens", {"target_probs": p, "draft_probs": q, "draft_tokens": x.int()}),
            BadInput(
                "K = 0 draft tokens",
                {"target_probs": p[:, :1], "draft_probs": q[:, :0], "draft_tokens": x[:, :0]},
                diagnosis=MISTAKES["k_zero_accepted"],
            ),
            BadInput(
                "a negative target probability",
                {"target_probs": _poked(p, -0.05), "draft_probs": q, "draft_tokens": x},
                diagnosis=MISTAKES["bad_probabilities_accepted"],
            ),
            BadInput(
                "a NaN draft probability",
                {"target_probs": p, "draft_probs": _poked(q, float("nan")), "draft_tokens": x},
                diagnosis=MISTAKES["bad_probabilities_accepted"],
            ),
            BadInput(
                "a draft token whose draft probability is 0",
                {
                    "target_probs": p,
                    "draft_probs": torch.cat([q[:, :1], torch.tensor([[[1.0, 0, 0, 0, 0, 0]]] * 2), q[:, 2:]], 1),
                    "draft_tokens": x,
                },
            ),
        ],
        extra=lambda: {"generator": ctx.generator()},
        name="verify",
    )
    logits = torch.tensor([[1.0, 2.0, 0.5]])
    expect_bad_inputs_refused(
        sub.filtered_probs,
        [
            ("temperature = 0", {"logits": logits, "temperature": 0.0, "top_k": 0}),
            ("temperature = -1", {"logits": logits, "temperature": -1.0, "top_k": 0}),
            ("top_k = -1", {"logits": logits, "temperature": 1.0, "top_k": -1}),
            ("top_k = 1.5", {"logits": logits, "temperature": 1.0, "top_k": 1.5}),
            BadInput(
                "temperature = inf",
                {"logits": logits, "temperature": float("inf"), "top_k": 0},
                diagnosis=MISTAKES["temperature_not_finite_accepted"],
            ),
            BadInput(
                "temperature = nan",
                {"logits": logits, "temperature": float("nan"), "top_k": 0},
                diagnosis=MISTAKES["temperature_not_finite_accepted"],
            ),
        ],
        name="filtered_probs",
    )
    expect_bad_inputs_refused(
        sub.acceptance_rate,
        [
            (
                "p [1, 3] and q [1, 4]",
                {"target_probs": torch.full((1, 3), 1 / 3), "draft_probs": torch.full((1, 4), 0.25)},
            )
        ],
        name="acceptance_rate",
    )
