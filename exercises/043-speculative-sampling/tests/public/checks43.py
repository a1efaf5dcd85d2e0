"""Checks of exercise 43 shared by the public cases, the browser's tiny variant and the hidden suite.

A verification is judged on its structure exactly (the accepted tokens are the draft tokens, one
replacement or bonus token follows them, then only the pad -1) and statistically against
``theory.py``: the number accepted, the token emitted at each draft position (given that the row
reaches it) and the bonus token each get one G-test (``K + 2`` ``fit``s per run), with the known
mistakes as alternatives.
"""

from __future__ import annotations

import torch

from judge.checks import expect, expect_distribution, expect_support, expect_tensor
from judge.i18n import Bilingual

from . import theory
from .diagnoses import MISTAKES

PAD = -1
FIRST_MISTAKES = (
    "resample_from_p",
    "residual_swapped",
    "residual_unnormalised",
    "ratio_inverted",
    "ratio_over_max",
    "accept_without_uniform",
)
COUNT_MISTAKES = (
    "ratio_inverted",
    "ratio_over_max",
    "positions_share_uniform",
    "num_counts_all_acceptances",
)
# Left out of the fits' alternatives on purpose: |p - q| is close to p itself on these contexts
# (resample_from_p would be misnamed), and acceptance without a uniform is close to ratio_over_max
# in N; both get their own exact signature (the certain-rejection case, ``_never_accepts_below_one``).
NEVER_ACCEPTED_BELOW = 1e-30
BONUS_MISTAKES = ("bonus_previous_p", "bonus_from_q")


def _f64(row) -> torch.Tensor:
    return torch.tensor(row, dtype=torch.float64)


def unpack(ctx, value, *, name: str, batch: int, k: int, parts: int = 2):
    """(tokens int64 [B, K+1], num_accepted int64 [B][, draft_tokens int64 [B, K]]), checked."""
    expect(
        isinstance(value, (list, tuple)) and len(value) == parts,
        f"{name} must return a tuple of {parts} tensors, got {type(value).__name__}",
        rule=Bilingual(f"{name}: did not return a tuple of {parts}", f"{name}：返回的不是 {parts} 元组"),
    )
    tokens = expect_tensor(value[0], name=f"{name} tokens", shape=(batch, k + 1), dtype=torch.int64, device=ctx.device)
    num = expect_tensor(value[1], name=f"{name} num_accepted", shape=(batch,), dtype=torch.int64, device=ctx.device)
    if parts == 2:
        return tokens, num
    drafts = expect_tensor(
        value[2], name=f"{name} draft_tokens", shape=(batch, k), dtype=torch.int64, device=ctx.device
    )
    return tokens, num, drafts


def _fail_rule(en: str, zh: str) -> Bilingual:
    return Bilingual(en, zh)


def check_structure(tokens: torch.Tensor, num: torch.Tensor, drafts: torch.Tensor, vocab: int, *, what: str) -> None:
    """Exactly: N in [0, K]; positions < N hold the drafts, position N a token, the rest PAD."""
    batch, k = drafts.shape
    emitted = (tokens != PAD).sum(dim=1)

    def first(mask: torch.Tensor) -> int | None:
        rows = mask.nonzero()
        return None if rows.numel() == 0 else int(rows[0, 0])

    row = first((num < 0) | (num > k))
    if row is not None:
        n = int(num[row])
        expect(
            False,
            f"{what}: row {row}: num_accepted is {n}, outside [0, K] = [0, {k}]",
            diagnosis=MISTAKES["num_counts_emitted"] if n == k + 1 else None,
            rule=_fail_rule("num_accepted outside [0, K]", "num_accepted 超出 [0, K]"),
        )
    short_rows_fine = bool(((num == k) | (emitted == num + 1)).all())
    row = first((num == k) & (tokens[:, k] == PAD))
    expect(
        row is None or not short_rows_fine,
        f"{what}: row {row}: all {k} draft tokens are accepted but position {k} holds the pad, not a bonus token",
        diagnosis=MISTAKES["no_bonus"],
        rule=_fail_rule("no bonus token after K acceptances", "K 个全部接受后没有奖励 token"),
    )
    expect(
        batch == 0 or not bool((emitted == num).all()),
        f"{what}: every row emits exactly num_accepted tokens; it must emit num_accepted + 1",
        diagnosis=MISTAKES["num_counts_emitted"],
        rule=_fail_rule("num_accepted is off by one", "num_accepted 差了 1"),
    )
    row = first((num == k) & (tokens[:, k] == PAD))
    expect(
        row is None,
        f"{what}: row {row}: all {k} draft tokens are accepted but position {k} holds the pad, not a bonus token",
        rule=_fail_rule("no bonus token after K acceptances", "K 个全部接受后没有奖励 token"),
    )
    positions = torch.arange(k + 1).unsqueeze(0)
    after = positions > num.unsqueeze(1)
    row = first((after & (tokens != PAD)).any(dim=1))
    if row is not None:
        # One constant other than -1 everywhere after the emitted tokens, never a draft token continued
        # there: a wrong pad value, not a verification that goes on.
        values = tokens[after]
        pad = int(values[0])
        continued = after[:, :k] & (drafts == pad)
        expect(
            values.numel() < 2 or not bool((values == pad).all()) or bool(continued.any()),
            f"{what}: every position after the emitted tokens holds {pad}; the pad value is -1",
            diagnosis=MISTAKES["pad_not_minus_one"],
            rule=_fail_rule("pad value is not -1", "填充值不是 -1"),
        )
        n = int(num[row])
        expect(
            False,
            f"{what}: row {row}: num_accepted is {n} but positions after {n} hold {tokens[row, n + 1 :].tolist()}; "
            "everything after the first rejection must be the pad -1",
            diagnosis=MISTAKES["continues_after_rejection"],
            rule=_fail_rule("tokens after the first rejection", "第一次拒绝之后仍有 token"),
        )
    row = first(((positions[:, :k] < num.unsqueeze(1)) & (tokens[:, :k] != drafts)).any(dim=1))
    if row is not None:
        n = int(num[row])
        expect(
            False,
            f"{what}: row {row}: the first {n} tokens are {tokens[row, :n].tolist()}, but the accepted draft "
            f"tokens are {drafts[row, :n].tolist()}",
            rule=_fail_rule("accepted tokens differ from the draft tokens", "被接受的 token 与草稿 token 不同"),
        )
    last = tokens.gather(1, num.unsqueeze(1)).squeeze(1)
    row = first((last < 0) | (last >= vocab))
    expect(
        row is None,
        f"{what}: row {row}: the position after the accepted tokens holds {None if row is None else int(last[row])}, "
        f"not a token id in [0, {vocab})",
        rule=_fail_rule("the token after the accepted ones is missing", "被接受的 token 之后缺少一个 token"),
    )


def _never_accepts_below_one(num: torch.Tensor, drafts: torch.Tensor, p: list, q: list, *, what: str) -> None:
    """Among the rows whose first draft x has 0 < p(x) < q(x), at least one is accepted, when a
    correct verify accepts none of them with probability prod (1 - p/q) below 1e-30 (then this
    check's false failures are negligible next to the budget; otherwise it is skipped)."""
    ratios = [p[x] / q[x] if 0 < p[x] < q[x] else None for x in range(len(p))]
    firsts = drafts[:, 0].tolist()
    rows = [i for i, x in enumerate(firsts) if ratios[x] is not None]
    chance = 1.0
    for i in rows:
        chance *= 1.0 - ratios[firsts[i]]
    if not rows or chance > NEVER_ACCEPTED_BELOW:
        return
    accepted = num[torch.tensor(rows)] > 0
    expect(
        bool(accepted.any()),
        f"{what}: none of the {len(rows)} rows whose first draft token has 0 < p_0(x) < q_0(x) was accepted; "
        f"each is accepted with probability p_0(x)/q_0(x) (a correct verify rejects them all with probability "
        f"{chance:.3g})",
        diagnosis=MISTAKES["accept_without_uniform"],
        rule=_fail_rule("tokens with p < q are never accepted", "p < q 的 token 从未被接受"),
    )


def _alternatives(table: dict[str, list[float]], rows: bool = False) -> dict:
    """Mistake name -> distribution, as the checks want it: [V] for a fit, [1, V] for a support check."""
    return {MISTAKES[name]: _f64([row] if rows else row) for name, row in table.items()}


def check_run(
    ctx,
    tokens: torch.Tensor,
    num: torch.Tensor,
    drafts: torch.Tensor,
    ps: list[list[float]],
    qs: list[list[float]],
    *,
    label: str,
    public: str,
    first_alternatives: dict[str, list[float]],
    count_alternatives: dict[str, list[float]],
    bonus_alternatives: dict[str, list[float]],
    middle_alternatives: list[dict[str, list[float]]],
) -> None:
    """Structure, support, then K + 2 fits: N, the token at each draft position i (rows with N >= i),
    the bonus token (rows with N = K)."""
    k, vocab = len(qs), len(ps[0])
    check_structure(tokens, num, drafts, vocab, what=label)
    _never_accepts_below_one(num, drafts, ps[0], qs[0], what=label)
    first = tokens[:, 0].clone()
    expect_support(
        first.unsqueeze(0),
        _f64([ps[0]]),
        what=f"{label}, position 0",
        why_excluded=lambda row, token: "its target probability p_0 is 0",
        alternatives=_alternatives(first_alternatives, rows=True),
    )
    counts = theory.accepted_count(ps[:k], qs)
    expect_distribution(
        ctx,
        num.clone(),
        _f64(counts),
        label=f"{label}: number accepted",
        public=f"{public}: number accepted",
        alternatives=_alternatives(count_alternatives),
        outcome=Bilingual("number accepted", "接受个数"),
    )
    expect_distribution(
        ctx,
        first,
        _f64(ps[0]),
        label=f"{label}: token at position 0",
        public=f"{public}: token at position 0",
        alternatives=_alternatives(first_alternatives),
    )
    for i in range(1, k):
        reached = tokens[:, i][num >= i].clone()
        expect_support(
            reached.unsqueeze(0),
            _f64([ps[i]]),
            what=f"{label}, position {i}",
            why_excluded=lambda row, token, i=i: f"its target probability p_{i} is 0",
            alternatives=_alternatives(middle_alternatives[i - 1], rows=True),
        )
        expect_distribution(
            ctx,
            reached,
            _f64(ps[i]),
            label=f"{label}: token at position {i} (rows that reach it)",
            public=f"{public}: token at position {i}",
            alternatives=_alternatives(middle_alternatives[i - 1]),
        )
    full = num == k
    bonus = tokens[:, k][full].clone()
    expect_support(
        bonus.unsqueeze(0),
        _f64([ps[k]]),
        what=f"{label}, bonus token",
        why_excluded=lambda row, token: "its target probability p_K is 0",
        alternatives=_alternatives(bonus_alternatives, rows=True),
    )
    expect_distribution(
        ctx,
        bonus,
        _f64(ps[k]),
        label=f"{label}: bonus token",
        public=f"{public}: bonus token",
        alternatives=_alternatives(bonus_alternatives),
    )


def verify_alternatives(ps, qs) -> dict:
    """The alternatives for a verification whose drafts come from q: first token, N, bonus."""
    k = len(qs)
    return {
        "first_alternatives": {m: theory.emitted(ps[0], qs[0], m) for m in FIRST_MISTAKES},
        "count_alternatives": {m: theory.accepted_count(ps[:k], qs, m) for m in COUNT_MISTAKES},
        "bonus_alternatives": {m: theory.bonus(ps, qs, m) for m in BONUS_MISTAKES},
        "middle_alternatives": [
            {
                **{m: theory.emitted(ps[i], qs[i], m) for m in FIRST_MISTAKES},
                "residual_wrong_position": theory.emitted(
                    ps[i], qs[i], "residual_wrong_position", first=(ps[0], qs[0])
                ),
            }
            for i in range(1, k)
        ],
    }


def draw_drafts(qs: list[list[float]], rows: int, generator: torch.Generator) -> torch.Tensor:
    """The judge's own draft tokens: rows x K, position i drawn from qs[i]."""
    columns = [torch.multinomial(_f64(q), rows, replacement=True, generator=generator) for q in qs]
    return torch.stack(columns, dim=1)


def expand(rows: list[list[float]], batch: int, dtype) -> torch.Tensor:
    """[len(rows), V] repeated over a batch: [batch, len(rows), V]."""
    return torch.tensor(rows, dtype=dtype).unsqueeze(0).repeat(batch, 1, 1)


def run_verify(sub, ctx, ps, qs, rows: int, dtype, *, label: str, public: str, seed: int) -> None:
    """The judge drafts ``rows`` rows from q, the learner verifies them; judged by ``check_run``."""
    k = len(qs)
    generator = torch.Generator().manual_seed(seed)
    drafts = draw_drafts(qs, rows, generator)
    value = sub.verify(expand(ps, rows, dtype), expand(qs, rows, dtype), drafts.clone(), generator=ctx.generator())
    tokens, num = unpack(ctx, value, name="verify", batch=rows, k=k)
    check_run(ctx, tokens, num, drafts, ps, qs, label=label, public=public, **verify_alternatives(ps, qs))


def step_distributions(target_logits, draft_logits, temperature: float, top_k: int):
    """Filtered and unfiltered targets and drafts of a speculative step, as lists of rows, and both
    filtered at temperature 1/T (what multiplying the logits by T gives)."""
    ps = [theory.filtered(z, temperature, top_k) for z in target_logits]
    qs = [theory.filtered(z, temperature, top_k) for z in draft_logits]
    raw_ps = [theory.filtered(z, temperature, 0) for z in target_logits]
    raw_qs = [theory.filtered(z, temperature, 0) for z in draft_logits]
    times = (
        [theory.filtered(z, temperature, top_k, "temperature_multiplied") for z in target_logits],
        [theory.filtered(z, temperature, top_k, "temperature_multiplied") for z in draft_logits],
    )
    return ps, qs, raw_ps, raw_qs, times


def step_alternatives(ps, qs, raw_ps, raw_qs, times) -> dict:
    k = len(qs)
    times_ps, times_qs = times
    return {
        "first_alternatives": {
            "step_unfiltered_q": theory.emitted(ps[0], qs[0], verify_q=raw_qs[0]),
            "step_unfiltered_p": raw_ps[0],
            "temperature_multiplied": times_ps[0],
        },
        "count_alternatives": {
            "step_unfiltered_q": theory.accepted_count(ps[:k], qs, verify_qs=raw_qs),
            "step_unfiltered_p": theory.accepted_count(raw_ps[:k], qs),
            "temperature_multiplied": theory.accepted_count(times_ps[:k], times_qs),
        },
        "bonus_alternatives": {"step_unfiltered_p": raw_ps[k], "temperature_multiplied": times_ps[k]},
        "middle_alternatives": [
            {
                "step_unfiltered_q": theory.emitted(ps[i], qs[i], verify_q=raw_qs[i]),
                "step_unfiltered_p": raw_ps[i],
                "temperature_multiplied": times_ps[i],
                "residual_wrong_position": theory.emitted(
                    ps[i], qs[i], "residual_wrong_position", first=(ps[0], qs[0])
                ),
            }
            for i in range(1, k)
        ],
    }


def run_step(sub, ctx, target_logits, draft_logits, temperature, top_k, rows: int, dtype, *, label, public) -> None:
    """speculative_step on ``rows`` copies of one context; drafts are the learner's, drawn from q."""
    k = len(draft_logits)
    ps, qs, raw_ps, raw_qs, times = step_distributions(target_logits, draft_logits, temperature, top_k)
    value = sub.speculative_step(
        expand(target_logits, rows, dtype),
        expand(draft_logits, rows, dtype),
        temperature=temperature,
        top_k=top_k,
        generator=ctx.generator(),
    )
    tokens, num, drafts = unpack(ctx, value, name="speculative_step", batch=rows, k=k, parts=3)
    for i in range(k):
        expect_support(
            drafts[:, i].clone().unsqueeze(0),
            _f64([qs[i]]),
            what=f"{label}, draft tokens at position {i}",
            why_excluded=lambda row, token: "temperature and top-k give it draft probability 0",
        )
    check_run(
        ctx, tokens, num, drafts, ps, qs, label=label, public=public, **step_alternatives(ps, qs, raw_ps, raw_qs, times)
    )


def verify_seed_contract(sub, ctx, ps, qs, draft: list[int], rows: int, *, label: str) -> None:
    """The generator contract of ``verify`` itself, on ``rows`` copies of one context whose draft
    tokens are all ``draft`` (fixed by the judge, so only verify's own random numbers vary): the
    token at position 0 is x_0 with probability min(1, p_0/q_0), else a residual token."""
    from judge.checks import expect_seed_contract

    p, q, x = ps[0], qs[0], draft[0]
    accept = min(1.0, p[x] / q[x])
    law = [(1 - accept) * r + (accept if t == x else 0.0) for t, r in enumerate(theory.residual(p, q))]
    drafts = torch.tensor([draft] * rows)
    target, source_q = expand(ps, rows, torch.float32), expand(qs, rows, torch.float32)

    def draw(source, generator):
        value = source.verify(target, source_q, drafts.clone(), generator=generator)
        tokens = unpack(ctx, value, name="verify", batch=rows, k=len(qs))[0]
        return expect_tensor(tokens[:, 0].clone(), name="verify tokens[:, 0]", shape=(rows,), dtype=torch.int64)

    expect_seed_contract(sub, ctx, draw, _f64(law), label=label)


# --- exact values: acceptance rate, total variation, filtering ---------------------------------------

TOLERANCE = {torch.float32: (1e-5, 1e-6), torch.float64: (1e-12, 1e-13)}


def expect_values(
    ctx, value, expected: list, dtype, *, name: str, shape, what: str, mistakes: dict[str, list] | None = None
) -> None:
    """A learner's float tensor of ``shape`` and ``dtype`` against the float64 ``expected`` (nested lists);
    ``mistakes``: mistake name -> what that mistake returns (same nesting)."""
    from judge.checks import expect_close

    actual = expect_tensor(value, name=name, shape=tuple(shape), dtype=dtype, device=ctx.device)
    rtol, atol = TOLERANCE[dtype]
    want = _f64(expected)
    table = {MISTAKES[m]: _f64(v) for m, v in (mistakes or {}).items()}
    if want.dim() == 3:  # filtered_probs on [B, K, V]: compare as [B * K, V]
        actual, want = actual.reshape(-1, want.shape[-1]), want.reshape(-1, want.shape[-1])
        table = {d: v.reshape(-1, want.shape[-1]) for d, v in table.items()}
    # One value per row (an acceptance rate, a total variation): messages name the row alone.
    per_row = want.dim() == 1
    expect_close(
        actual.to(torch.float64), want, rtol=rtol, atol=atol, what=what, mistakes=table or None, per_row=per_row
    )


def rate_mistakes(ps: list, qs: list) -> dict[str, dict[str, list]]:
    """For acceptance_rate / total_variation on rows ps, qs: each function's mistaken outputs."""
    return {
        "acceptance_rate": {
            "rate_sum_max": [sum(max(a, b) for a, b in zip(p, q, strict=True)) for p, q in zip(ps, qs, strict=True)],
            "rate_unclipped": [
                sum(b * (a / b) if b > 0 else 0.0 for a, b in zip(p, q, strict=True))
                for p, q in zip(ps, qs, strict=True)
            ],
        },
        "total_variation": {
            "tv_no_half": [sum(abs(a - b) for a, b in zip(p, q, strict=True)) for p, q in zip(ps, qs, strict=True)]
        },
    }


def topk_rate(target_logits: list, draft_logits: list, temperature: float, top_k: int, mistake: str | None = None):
    """topk_acceptance_rate's value per row, and the value of each filtering mistake."""
    out = []
    for zt, zd in zip(target_logits, draft_logits, strict=True):
        if mistake == "topk_target_only":
            p, q = theory.filtered(zt, temperature, top_k), theory.softmax(zd)
        else:
            p, q = theory.filtered(zt, temperature, top_k, mistake), theory.filtered(zd, temperature, top_k, mistake)
        out.append(theory.acceptance(p, q))
    return out


TOPK_MISTAKES = ("topk_exact_k", "topk_target_only", "topk_not_renormalised", "topk_k_plus_one", "topk_strict")


def run_zero_uniforms(sub, ctx, ps, qs, rows: int, *, label: str) -> None:
    """verify fed uniforms of exactly 0 (``with_extreme_uniforms``): a draft token of target
    probability 0 must still be rejected. Structure and support only (no budget)."""
    generator = torch.Generator().manual_seed(ctx.fresh_seed(f"{label} drafts"))
    drafts = draw_drafts(qs, rows, generator)
    extreme = sub.with_extreme_uniforms(ctx.fresh_seed(f"{label} uniforms"))
    value = extreme.verify(
        expand(ps, rows, torch.float32), expand(qs, rows, torch.float32), drafts.clone(), generator=ctx.generator()
    )
    tokens, num = unpack(ctx, value, name="verify", batch=rows, k=len(qs))
    check_structure(tokens, num, drafts, len(ps[0]), what=label)
    # A zero-probability token kept as an accepted draft is the u <= p/q mistake; drawn as the
    # replacement (N = 0), it is the residual's sampler failing on an extreme uniform.
    expect_support(
        tokens[:, 0][num > 0].clone(),
        _f64(ps[0]),
        what=f"{label}, position 0 (accepted draft tokens)",
        why_excluded=lambda row, token: "its target probability p_0 is 0, so it must be rejected whatever u is",
        diagnosis=MISTAKES["accept_le"],
    )
    expect_support(
        tokens[:, 0][num == 0].clone(),
        _f64(theory.residual(ps[0], qs[0])),
        what=f"{label}, position 0 (replacement tokens)",
        why_excluded=lambda row, token: "its residual probability max(0, p_0 - q_0) is 0",
        diagnosis=MISTAKES["residual_zero_uniform"],
    )


def run_draw_sites(sub, ctx, ps, qs, drafts: list[list[int]], *, label: str) -> int:
    """verify on a few fixed rows, run once ordinarily and then with each of its draw sites (its
    calls of torch.rand and the like) pushed in turn to 0.0 and to the largest float below 1
    (``expect_every_draw_site``): the structure, the accepted draft tokens (target probability
    > 0), the replacement tokens (residual > 0) and the bonus tokens (p_K > 0) of every run. A
    failure of a pushed run alone is a draw site failing at an extreme. No budget; returns the
    number of draw sites pushed."""
    from judge.checks import expect_every_draw_site

    k, vocab = len(qs), len(ps[0])
    rows = torch.tensor(drafts)
    target, draft = expand(ps, rows.shape[0], torch.float32), expand(qs, rows.shape[0], torch.float32)
    residuals = [_f64(theory.residual(ps[i], qs[i])) for i in range(k)]

    def call(source, generator):
        return source.verify(target, draft, rows.clone(), generator=generator)

    def check(value, what: str) -> None:
        tokens, num = unpack(ctx, value, name="verify", batch=rows.shape[0], k=k)
        check_structure(tokens, num, rows, vocab, what=what)
        for i in range(k + 1):
            if i < k:
                expect_support(
                    tokens[:, i][num > i].clone(),
                    _f64(ps[i]),
                    what=f"{what}, position {i} (accepted draft tokens)",
                    why_excluded=lambda row, token, i=i: f"its target probability p_{i} is 0",
                )
            emitted = tokens[:, i][num == i].clone()
            expect_support(
                emitted,
                residuals[i] if i < k else _f64(ps[k]),
                what=f"{what}, position {i} ({'replacement' if i < k else 'bonus'} tokens)",
                why_excluded=lambda row, token, i=i: (
                    f"its residual probability max(0, p_{i} - q_{i}) is 0" if i < k else f"its probability p_{k} is 0"
                ),
            )

    return expect_every_draw_site(sub, ctx, call, check, label=label)
