"""Hidden tests of exercise 43. Never shown to learners; run in the judge's process only.

First the exact functions against the float64 oracle (``cases.py``): the acceptance rate and the
total variation on rows of every kind, the filter and the top-k acceptance rate with ties at the
k-th logit (top_k up to above V), float32 and float64. Then ``verify`` on p = q, on certain rows
with K = 1 and B = 1, on contexts whose draft tokens the judge draws from q (a strongly
disagreeing draft, a close one), uniforms of exactly 0, every draw site pushed to each extreme;
then ``speculative_step`` with temperature and top-k, the seed contracts of ``speculative_step``
and of ``verify`` (fixed drafts), and bad inputs.
"""

from __future__ import annotations

import random
from contextlib import nullcontext

import torch

from judge.budget import BudgetDeclaration
from judge.checks import (
    BadInput,
    diagnosed,
    expect,
    expect_bad_inputs_refused,
    expect_seed_contract,
    expect_tensor,
)
from judge.i18n import Bilingual

from ..public import checks43, theory
from ..public.checks43 import expect_values
from ..public.contexts import ZERO_P, ZERO_Q
from ..public.diagnoses import MISTAKES
from . import cases

# K + 2 fits per statistical run (N, the token at each draft position, the bonus): two verify
# contexts with K = 3 and one speculative step with K = 2; 2 seeds each for speculative_step and verify.
BUDGET = BudgetDeclaration(fit=14, seeds=4)

# The weakest kill per run needs well under a tenth of these rows (benchmarks/power_043.py).
DISAGREE_ROWS = 3_000
CLOSE_ROWS = 2_000
ZERO_ROWS = 1_000
STEP_ROWS = 3_000
SEED_ROWS = 64


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


def _k_one_rows(k: int):
    """Three rows whose outcome is certain, with K = k draft positions: the first position decides
    (p_0 = q_0: accepted; p_0(x_0) = 0: rejected, a one-token residual), later positions have p = q,
    and p_K is one-hot. Returns (p, q, drafts, expected tokens, expected num_accepted)."""
    vocab = 3
    heads = [
        ([0.2, 0.3, 0.5], [0.2, 0.3, 0.5], 1),
        ([0.0, 0.0, 1.0], [0.5, 0.5, 0.0], 0),
        ([0.6, 0.1, 0.3], [0.6, 0.1, 0.3], 2),
    ]
    last = [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    same = [1 / vocab] * vocab
    p, q, drafts, tokens, num = [], [], [], [], []
    for (p0, q0, x0), bonus in zip(heads, last, strict=True):
        p.append([p0] + [same] * (k - 1) + [bonus])
        q.append([q0] + [same] * (k - 1))
        drafts.append([x0] + [0] * (k - 1))
        if p0 == q0:
            tokens.append([x0] + [0] * (k - 1) + [bonus.index(1.0)])
            num.append(k)
        else:
            tokens.append([2] + [-1] * k)
            num.append(0)
    return torch.tensor(p), torch.tensor(q), torch.tensor(drafts), tokens, num


def test_verify_one_draft(sub, ctx):
    """verify with K = 1 (and B = 1): rows whose outcome is certain give exactly the expected tokens

    zh: verify 在 K = 1（以及 B = 1）时：结果确定的各行给出的 token 与预期完全一致
    """
    for batch in (3, 1):
        p, q, drafts, want_tokens, want_num = _k_one_rows(1)
        p, q, drafts = p[:batch], q[:batch], drafts[:batch]
        value = sub.verify(p, q, drafts.clone(), generator=ctx.generator())
        tokens, num = checks43.unpack(ctx, value, name="verify", batch=batch, k=1)
        checks43.check_structure(tokens, num, drafts, 3, what=f"verify(K = 1, B = {batch})")
        if tokens.tolist() == want_tokens[:batch] and num.tolist() == want_num[:batch]:
            continue
        # The same rows with a second, certain (p = q) draft position: right there means K = 1 alone fails.
        p2, q2, drafts2, want2, num2 = _k_one_rows(2)
        tokens2, got2 = checks43.unpack(
            ctx, sub.verify(p2, q2, drafts2.clone(), generator=ctx.generator()), name="verify", batch=3, k=2
        )
        expect(
            False,
            f"verify(K = 1, B = {batch}) returned tokens {tokens.tolist()}, num_accepted {num.tolist()}; expected "
            f"{want_tokens[:batch]} and {want_num[:batch]}",
            diagnosis=MISTAKES["k_one_shape"] if tokens2.tolist() == want2 and got2.tolist() == num2 else None,
            rule=Bilingual("wrong result with K = 1", "K = 1 时结果错误"),
        )


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
    )


def test_verify_zero_uniforms(sub, ctx):
    """verify with uniforms of exactly 0: a draft token of target probability 0 is still rejected

    zh: 均匀数恰为 0 时，目标概率为 0 的草稿 token 仍被拒绝
    """
    checks43.run_zero_uniforms(sub, ctx, ZERO_P, ZERO_Q, ZERO_ROWS, label="verify (uniforms of 0)")


def test_verify_draw_sites(sub, ctx):
    """verify with each draw site in turn at 0 and at the largest float below 1

    zh: verify 的每个抽样点依次取 0 与小于 1 的最大浮点数
    """
    checks43.run_draw_sites(
        sub, ctx, cases.SITES_P, cases.SITES_Q, cases.SITES_DRAFTS, label="verify (every draw site at its extremes)"
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


def test_seeds(sub, ctx):
    """speculative_step: the generator decides the tokens; without one, torch.manual_seed does

    zh: speculative_step：由 generator 决定结果；不传 generator 时由 torch.manual_seed 决定
    """
    target = checks43.expand(cases.STEP_TARGET, SEED_ROWS, torch.float32)
    draft = checks43.expand(cases.STEP_DRAFT, SEED_ROWS, torch.float32)
    first = theory.filtered(cases.STEP_TARGET[0], cases.STEP_TEMPERATURE, cases.STEP_TOP_K)

    def draw(source, generator):
        value = source.speculative_step(
            target, draft, temperature=cases.STEP_TEMPERATURE, top_k=cases.STEP_TOP_K, generator=generator
        )
        tokens = checks43.unpack(ctx, value, name="speculative_step", batch=SEED_ROWS, k=2, parts=3)[0]
        return expect_tensor(
            tokens[:, 0].clone(), name="speculative_step tokens[:, 0]", shape=(SEED_ROWS,), dtype=torch.int64
        )

    expect_seed_contract(sub, ctx, draw, torch.tensor(first, dtype=torch.float64), label="speculative_step")


def test_verify_seeds(sub, ctx):
    """verify with fixed draft tokens: the generator decides the rest; without one, torch.manual_seed does

    zh: 草稿 token 固定时，verify 的其余随机性由 generator 决定；不传时由 torch.manual_seed 决定
    """
    # Draft token 3 has p_0 = 0: every row draws its replacement from the residual (three tokens).
    checks43.verify_seed_contract(
        sub, ctx, cases.DISAGREE_P, cases.DISAGREE_Q, [3, 0, 0], SEED_ROWS, label="verify (fixed drafts)"
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
