"""Checks of exercise 43 shared by the public cases, the browser's tiny variant and the hidden suite.

A verification is judged on its structure exactly (the accepted tokens are the draft tokens, one
replacement or bonus token follows them, then only the pad -1) and statistically against
``theory.py``: the number accepted, the token emitted at each draft position (given that the row
reaches it) and the bonus token each get one G-test (``K + 2`` ``fit``s per run), with the known
mistakes as alternatives.
"""

from __future__ import annotations

import math
from contextlib import nullcontext

import torch

from judge.checks.base import CheckFailed, diagnosed, fail
from judge.checks.distributions import best_alternative, expect_distribution, expect_support
from judge.checks.draw_sites import expect_every_draw_site
from judge.checks.exact import expect, expect_close, expect_tensor
from judge.checks.generator_contract import SEEDS_DIAGNOSIS, expect_seed_contract
from judge.checks.independence import expect_independent_across_rows, expect_independent_within_row
from judge.checks.tails import chi2_sf
from judge.i18n import Bilingual, in_language

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
# in N; both get their own exact signature (the certain-rejection case, ``_threshold_decisions``).
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
    # Counting the emitted tokens makes num_accepted >= 1 in every row: a row with N = 0 that emits nothing
    # is a missing token, not that mistake.
    expect(
        batch == 0 or not bool((emitted == num).all()),
        f"{what}: every row emits exactly num_accepted tokens; it must emit num_accepted + 1",
        diagnosis=MISTAKES["num_counts_emitted"] if bool((num >= 1).all()) else None,
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
        # A wrong pad: one constant other than -1 after the emitted tokens, in two rows or more, where some of
        # those positions held another draft token (so the constant is no draft continued). A verification
        # that goes on: most positions after the emitted ones hold the draft token there.
        values = tokens[after]
        pad = int(values[0])
        rows_after = int(after.any(dim=1).sum())
        other_drafts = bool((after[:, :k] & (drafts != pad)).any())
        last = tokens.gather(1, num.clamp(0, k).unsqueeze(1)).squeeze(1)
        other_tokens = bool((after.any(dim=1) & (last != pad)).any())  # not the row's own token repeated
        emitted_ok = bool(((last >= 0) & (last < vocab)).all())  # position N holds a token: only the pad is off
        constant = bool((values == pad).all()) and rows_after >= 2 and other_drafts and other_tokens and emitted_ok
        expect(
            not constant,
            f"{what}: every position after the emitted tokens holds {pad}; the pad value is -1",
            diagnosis=MISTAKES["pad_not_minus_one"],
            rule=_fail_rule("pad value is not -1", "填充值不是 -1"),
        )
        # A verification that goes on fills every position of every row with a token (a draft or a
        # replacement, then a bonus) whatever N is: no pad anywhere, where some row stopped early.
        # Not one constant (a pad of another value), and not every one of them a copy of a token earlier in
        # its row (positions written from the wrong index): drafts and replacements drawn on.
        copied = torch.stack(
            [
                (tokens[:, j : j + 1] == tokens[:, :j]).any(dim=1) if j else torch.zeros_like(num, dtype=torch.bool)
                for j in range(k + 1)
            ],
            dim=1,
        )
        filled = (
            bool(((tokens >= 0) & (tokens < vocab)).all())
            and bool((num < k).any())
            and not bool((values == pad).all())
            and not bool(copied[after].all())
        )
        n = int(num[row])
        expect(
            False,
            f"{what}: row {row}: num_accepted is {n} but positions after {n} hold {tokens[row, n + 1 :].tolist()}; "
            "everything after the first rejection must be the pad -1",
            diagnosis=MISTAKES["continues_after_rejection"] if filled else None,
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


def _threshold_decisions(num: torch.Tensor, drafts: torch.Tensor, ps: list, qs: list, *, what: str) -> None:
    """The acceptances must not follow one threshold on p/q at every draft position.

    At position i, among the rows that reach it with 0 < p_i(x)/q_i(x) < 1, independent uniforms accept
    each with probability p/q; one uniform shared by the rows (or none at all) makes the decisions a
    threshold on the ratio: every row above some value accepted, every row below rejected. When that holds
    at every position and a correct verify does it with probability below 1e-30 (negligible next to the
    budget; otherwise this check is skipped), the case fails: named as rows sharing their uniforms where
    some threshold lies inside the ratios, as acceptance without a uniform where every threshold sits above
    them all and a shared uniform would do that with probability below 1e-3, else unnamed."""
    log_chance, log_shared_top, all_top = 0.0, 0.0, True
    k = len(qs)
    for i in range(k):
        reach = num >= i
        xs, accepted = drafts[reach, i].tolist(), (num[reach] > i).tolist()
        groups: dict[float, list[bool]] = {}
        for x, a in zip(xs, accepted, strict=True):
            p, q = ps[i][x], qs[i][x]
            if 0 < p < q:
                groups.setdefault(p / q, []).append(a)
        if not groups:
            continue
        ratios = sorted(groups)
        decisions = [set(groups[r]) for r in ratios]
        if any(len(d) > 1 for d in decisions):
            return  # rows of one ratio decided both ways: no threshold
        flags = [d.pop() for d in decisions]
        if flags != sorted(flags):
            return  # an accepted ratio below a rejected one
        all_top = all_top and not any(flags)
        # P(a monotone pattern) for independent uniforms: sum over the cuts of the ratios
        counts = [len(groups[r]) for r in ratios]
        terms = []
        for cut in range(len(ratios) + 1):
            terms.append(
                sum(n * math.log1p(-r) for r, n in zip(ratios[:cut], counts[:cut], strict=True))
                + sum(n * math.log(r) for r, n in zip(ratios[cut:], counts[cut:], strict=True))
            )
        top = max(terms)
        log_chance += top + math.log(sum(math.exp(t - top) for t in terms))
        log_shared_top += math.log1p(-ratios[-1])
    if log_chance > math.log(NEVER_ACCEPTED_BELOW):
        return
    if not all_top:
        diagnosis = MISTAKES["rows_not_independent"]
    elif log_shared_top < math.log(1e-3):
        diagnosis = MISTAKES["accept_without_uniform"]
    else:
        diagnosis = None
    fail(
        f"{what}: at every draft position the rows' acceptances follow one threshold on p_i(x)/q_i(x) (each row "
        "whose ratio is above some value accepted, each one below it rejected); a token with 0 < p < q must be "
        f"accepted with probability p/q by a uniform of its own row (a correct verify does this with probability "
        f"{math.exp(log_chance):.3g})",
        diagnosis=diagnosis,
        rule=_fail_rule("the acceptances follow one threshold on p/q", "接受与否只取决于 p/q 是否超过同一个阈值"),
        kind="value",
    )


ROW_OUTCOME = Bilingual("row outcome", "行结果")


def outcome_ids(tokens: torch.Tensor, num: torch.Tensor, vocab: int) -> torch.Tensor:
    """Each row's whole outcome as one id, ``N * V + token at position N`` (``theory.final_law``'s ids);
    the structure must have been checked first (``check_structure``)."""
    return num * vocab + tokens.gather(1, num.unsqueeze(1)).squeeze(1)


DEPENDENCE_EVIDENCE = 1e-6  # a contingency test of the pairs this far out names the rows' dependence
EVIDENCE_CLASSES = 6  # outcome classes for it: the five likeliest alone, the rest together


def _classes(outcomes: torch.Tensor, law: list[float]) -> torch.Tensor:
    order = sorted(range(len(law)), key=lambda i: -law[i])
    group = [EVIDENCE_CLASSES - 1] * len(law)
    for rank, index in enumerate(order[: EVIDENCE_CLASSES - 1]):
        group[index] = rank
    return torch.tensor(group, dtype=torch.int64)[outcomes.clamp(0, len(law) - 1)]


def _dependent(pairs: list[tuple[torch.Tensor, torch.Tensor]]) -> bool:
    """Whether some pairing's pairs of classes depend on each other, judged against the product of their
    own observed margins (a G-test of independence in a contingency table, not a fit to the target): a
    row law that is merely wrong leaves this test alone, rows that share random numbers do not."""
    for first, second in pairs:
        if first.numel() < 20:
            continue
        # In plain Python: the browser's torch subset has no index_put_ (and the table is tiny).
        table = [[0] * EVIDENCE_CLASSES for _ in range(EVIDENCE_CLASSES)]
        for a, b in zip(first.tolist(), second.tolist(), strict=True):
            table[a][b] += 1
        rows = [sum(row) for row in table]
        columns = [sum(column) for column in zip(*table, strict=True)]
        total = sum(rows)
        statistic = 2.0 * sum(
            n * math.log(n * total / (rows[a] * columns[b]))
            for a, row in enumerate(table)
            for b, n in enumerate(row)
            if n > 0
        )
        df = (sum(r > 0 for r in rows) - 1) * (sum(c > 0 for c in columns) - 1)
        if df > 0 and chi2_sf(statistic, df) < DEPENDENCE_EVIDENCE:
            return True
    return False


def _about_rows(failed: CheckFailed, label: str, pairs: list[tuple[torch.Tensor, torch.Tensor]]) -> CheckFailed:
    """A failed pair test on the rows of a batch, said as what it is; named as rows that are not independent
    only on the evidence of dependence itself (``_dependent``): a wrong law of each row fails the pair
    test too, and is not that mistake."""
    failed.diagnosis = MISTAKES["rows_not_independent"] if _dependent(pairs) else None
    failed.message = f"{failed.message}. The {label} are rows of one batch: each row needs random numbers of its own"
    failed.args = (failed.message,)
    return failed


def expect_rows_independent(ctx, outcomes: torch.Tensor, law: list[float], *, label: str, public: str) -> None:
    """The outcomes of the rows of one context in one call, read in batch order as one sequence, must be
    independent: neighbours, rows half a batch apart, mirrored rows (one ``pairs``). An outcome of
    probability 0 skips the test: the support checks that follow it (``expect_outcome_support``) fail the
    case with their own evidence."""
    what = f"{label}: the rows' outcomes (N and the token at N) in batch order"
    if bool((_f64(law)[outcomes] == 0).any()):
        return
    try:
        expect_independent_within_row(
            ctx,
            outcomes,
            _f64(law),
            label=what,
            public=Bilingual(f"{public}, rows of one batch", f"{in_language(public, 'zh')}，同一批中的各行"),
            outcome=ROW_OUTCOME,
        )
    except CheckFailed as failed:
        classes = _classes(outcomes, law)
        n, half = classes.shape[0], classes.shape[0] // 2
        pairs = [
            (classes[0 : 2 * half : 2], classes[1 : 2 * half : 2]),
            (classes[:half], classes[half : 2 * half]),
            (classes[:half], classes[n - half :].flip(0)),
        ]
        raise _about_rows(failed, "draws", pairs) from None


def expect_outcome_support(outcomes: torch.Tensor, law: list[float], *, label: str) -> None:
    """Every row's outcome (N and the token at N) has positive probability under ``law``."""
    expect_support(
        outcomes.unsqueeze(0),
        _f64([law]),
        what=f"{label}: the rows' outcomes (N and the token at N)",
        why_excluded=lambda row, outcome: "that number accepted with that token has probability 0",
        outcome=ROW_OUTCOME,
    )


def expect_rows_independent_across(
    ctx, first: torch.Tensor, second: torch.Tensor, laws: tuple[list[float], list[float]], *, label: str, public: str
) -> None:
    """The outcomes of two contexts interleaved in one batch, paired row by row, must be independent
    (one ``pairs``); each already checked against its law's support."""
    try:
        expect_independent_across_rows(
            ctx,
            first,
            second,
            _f64(laws[0]),
            _f64(laws[1]),
            label=f"{label}: the outcomes of the two contexts' rows",
            public=Bilingual(f"{public}, rows of two contexts", f"{in_language(public, 'zh')}，两个上下文的各行"),
            outcome=ROW_OUTCOME,
        )
    except CheckFailed as failed:
        pairs = [(_classes(first, laws[0]), _classes(second, laws[1]))]
        raise _about_rows(failed, "two rows", pairs) from None


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
    joint_alternatives: list[dict[str, list[float]]] | None = None,
    rows_law: list[float] | None = None,
) -> None:
    """Structure, acceptances that follow one threshold (``_threshold_decisions``), support, then K + 2 fits:
    N, the token at each draft position i (rows with N >= i), the bonus token (rows with N = K); last, with
    ``rows_law`` (the law of a row's outcome), the rows' independence (one ``pairs``): after the fits, so
    that a wrong law is named by them, not taken for a dependence. A mistake named at a draft position must
    also explain how the tokens there came out (``joint_alternatives``, ``_confirmed``)."""
    k, vocab = len(qs), len(ps[0])
    check_structure(tokens, num, drafts, vocab, what=label)
    _threshold_decisions(num, drafts, ps, qs, what=label)
    joints = joint_alternatives or [{} for _ in range(k)]
    first = tokens[:, 0].clone()
    with _confirmed(tokens, num, 0, ps, qs, joints[0]):
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
    with _confirmed(tokens, num, 0, ps, qs, joints[0]):
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
        with _confirmed(tokens, num, i, ps, qs, joints[i]):
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
    if rows_law is not None:
        expect_rows_independent(ctx, outcome_ids(tokens, num, vocab), rows_law, label=label, public=public)


class _confirmed:
    """Inside it, a failure named at draft position ``i`` keeps its name only when that mistake, among
    ``joints`` (name -> the law of the token there together with how it came out, ``theory.emitted_joint``),
    is the one the rows that reach position i name (``best_alternative``: it fits, and 1000 times better
    than the rule and every other): the law of the emitted token alone mixes the accepted drafts and the
    replacements, so a residual of another shape can pass for a listed one."""

    def __init__(self, tokens, num, i: int, ps, qs, joints: dict[str, list[float]]) -> None:
        self.tokens, self.num, self.i, self.ps, self.qs, self.joints = tokens, num, i, ps, qs, joints

    def __enter__(self):
        return self

    def __exit__(self, kind, failed, trace) -> bool:
        if not isinstance(failed, CheckFailed) or failed.diagnosis is None:
            return False
        names = {MISTAKES[m]: m for m in self.joints}
        if failed.diagnosis not in names:
            return False  # not a mistake of how a position's token comes out: its own evidence stands
        i, vocab = self.i, len(self.ps[0])
        reached = self.num >= i
        at = self.tokens[reached, i].clamp(0, vocab - 1)
        ids = torch.where(self.num[reached] > i, at, at + vocab)
        counts = torch.bincount(ids, minlength=2 * vocab)
        truth = theory.emitted_joint(self.ps[i], self.qs[i])
        named = best_alternative(counts, {MISTAKES[m]: _f64(law) for m, law in self.joints.items()}, truth=_f64(truth))
        if named != failed.diagnosis:
            failed.diagnosis = None
        return False


RESIDUAL_SHAPES = ("resample_from_p", "residual_swapped", "residual_unnormalised", "residual_abs")


def verify_alternatives(ps, qs, residual_shapes: bool = True) -> dict:
    """The alternatives for a verification whose drafts come from q: first token, N, bonus; and each
    position's joint law of the emitted token with how it came out, that confirms a name given there.
    Without ``residual_shapes`` the mistakes of the residual's shape are left out: where q is close to p
    (a close draft) any residual of another shape, (p + q) / 2 say, looks like one of them."""
    k = len(qs)
    first = [m for m in FIRST_MISTAKES if residual_shapes or m not in RESIDUAL_SHAPES]
    return {
        "joint_alternatives": [
            {
                **{m: theory.emitted_joint(ps[i], qs[i], m) for m in first},
                **(
                    {
                        "residual_wrong_position": theory.emitted_joint(
                            ps[i], qs[i], "residual_wrong_position", first=(ps[0], qs[0])
                        )
                    }
                    if i
                    else {}
                ),
            }
            for i in range(k)
        ],
        "first_alternatives": {m: theory.emitted(ps[0], qs[0], m) for m in first},
        "count_alternatives": {m: theory.accepted_count(ps[:k], qs, m) for m in COUNT_MISTAKES},
        "bonus_alternatives": {m: theory.bonus(ps, qs, m) for m in BONUS_MISTAKES},
        "middle_alternatives": [
            {
                **{m: theory.emitted(ps[i], qs[i], m) for m in first},
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


def run_verify(
    sub, ctx, ps, qs, rows: int, dtype, *, label: str, public: str, seed: int, residual_shapes: bool = True
) -> None:
    """The judge drafts ``rows`` rows from q, the learner verifies them; judged by ``check_run``
    (``residual_shapes``: see ``verify_alternatives``)."""
    k = len(qs)
    generator = torch.Generator().manual_seed(seed)
    drafts = draw_drafts(qs, rows, generator)
    value = sub.verify(expand(ps, rows, dtype), expand(qs, rows, dtype), drafts.clone(), generator=ctx.generator())
    tokens, num = unpack(ctx, value, name="verify", batch=rows, k=k)
    check_run(
        ctx,
        tokens,
        num,
        drafts,
        ps,
        qs,
        label=label,
        public=public,
        rows_law=theory.final_law(ps, qs),
        **verify_alternatives(ps, qs, residual_shapes),
    )


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
        "joint_alternatives": [
            {
                "step_unfiltered_q": theory.emitted_joint(ps[i], qs[i], verify_q=raw_qs[i]),
                "step_unfiltered_p": theory.emitted_joint(ps[i], qs[i], verify_p=raw_ps[i]),
                "temperature_multiplied": theory.emitted_joint(times_ps[i], times_qs[i]),
                **(
                    {
                        "residual_wrong_position": theory.emitted_joint(
                            ps[i], qs[i], "residual_wrong_position", first=(ps[0], qs[0])
                        )
                    }
                    if i
                    else {}
                ),
            }
            for i in range(k)
        ],
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
    """speculative_step on ``rows`` copies of one context; drafts are the learner's, drawn from q. The drafts'
    support, then for each position the draft token with its acceptance (``expect_draft_acceptance``:
    K fits), then ``check_run`` with the rows' independence (one ``pairs`` and K + 2 fits)."""
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
    check_structure(tokens, num, drafts, len(ps[0]), what=label)
    for i in range(k):
        expect_draft_acceptance(ctx, drafts, num, i, ps, qs, raw_ps, raw_qs, times, label=label, public=public)
    check_run(
        ctx,
        tokens,
        num,
        drafts,
        ps,
        qs,
        label=label,
        public=public,
        rows_law=theory.final_law(ps, qs),
        **step_alternatives(ps, qs, raw_ps, raw_qs, times),
    )


def expect_draft_acceptance(ctx, drafts, num, i: int, ps, qs, raw_ps, raw_qs, times, *, label, public) -> None:
    """Among the rows that reach position i, the draft token x_i and whether it is accepted: x_i follows q_i
    and is accepted with probability min(1, p_i(x_i)/q_i(x_i)), independently of how x_i was drawn (one
    ``fit``, outcome ``2 x + accepted``). Its alternatives: acceptance with the unfiltered p or q, the
    temperature multiplied, the ratio's own mistakes, and the draft's uniform reused as u_i (x_i by inverse
    CDF in token order)."""
    reached = num >= i
    joint = (drafts[:, i] * 2 + (num > i).to(torch.int64))[reached].clone()
    times_ps, times_qs = times
    alternatives = {
        "draft_uniform_reused": theory.accept_joint(ps[i], qs[i], "draft_uniform_reused"),
        "step_unfiltered_q": theory.accept_joint(ps[i], qs[i], verify_q=raw_qs[i]),
        "step_unfiltered_p": theory.accept_joint(ps[i], qs[i], verify_p=raw_ps[i]),
        "temperature_multiplied": theory.accept_joint(times_ps[i], times_qs[i]),
        **{
            m: theory.accept_joint(ps[i], qs[i], m)
            for m in ("ratio_inverted", "ratio_over_max", "accept_without_uniform")
        },
    }
    law = theory.accept_joint(ps[i], qs[i])
    expect_support(
        joint.unsqueeze(0),
        _f64([law]),
        what=f"{label}, draft tokens at position {i} with their acceptance",
        why_excluded=lambda row, pair: "a draft token of filtered probability 0 or, accepted, of target probability 0",
        alternatives=_alternatives(alternatives, rows=True),
        outcome=Bilingual("(draft token, accepted) pair", "（草稿 token，是否接受）组合"),
    )
    expect_distribution(
        ctx,
        joint,
        _f64(law),
        label=f"{label}: draft token at position {i} and its acceptance (rows that reach it)",
        public=f"{public}: draft token at position {i} and its acceptance",
        alternatives=_alternatives(alternatives),
        outcome=Bilingual("(draft token, accepted) pair", "（草稿 token，是否接受）组合"),
    )


def verify_seed_contract(sub, ctx, ps, qs, draft: list[int], rows: int, *, label: str) -> None:
    """The generator contract of ``verify`` itself, on ``rows`` copies of one context whose draft
    tokens are all ``draft`` (fixed by the judge, so only verify's own random numbers vary): the
    token at position 0 is x_0 with probability min(1, p_0/q_0), else a residual token.

    Rows that share their uniforms make every call constant over the rows, and two such calls agree
    about half the time whatever the seed: a seed failure whose calls were all constant over the rows
    names the rows' dependence (a correct verify makes them constant with chance sum law^rows), not the
    generator."""
    p, q, x = ps[0], qs[0], draft[0]
    accept = min(1.0, p[x] / q[x])
    law = [(1 - accept) * r + (accept if t == x else 0.0) for t, r in enumerate(theory.residual(p, q))]
    drafts = torch.tensor([draft] * rows)
    target, source_q = expand(ps, rows, torch.float32), expand(qs, rows, torch.float32)
    constant: list[bool] = []

    def draw(source, generator):
        value = source.verify(target, source_q, drafts.clone(), generator=generator)
        tokens = unpack(ctx, value, name="verify", batch=rows, k=len(qs))[0]
        first = expect_tensor(tokens[:, 0].clone(), name="verify tokens[:, 0]", shape=(rows,), dtype=torch.int64)
        constant.append(len(set(first.tolist())) == 1)
        return first

    try:
        expect_seed_contract(sub, ctx, draw, _f64(law), label=label)
    except CheckFailed as failure:
        if str(failure.diagnosis) == str(SEEDS_DIAGNOSIS) and constant and all(constant):
            failure.diagnosis = MISTAKES["rows_not_independent"]
            failure.message += (
                f" Every call gave one token to all {rows} rows alike: the rows do not draw their own random numbers."
            )
        raise


# --- exact values: acceptance rate, total variation, filtering ---------------------------------------

TOLERANCE = {torch.float32: (1e-5, 1e-6), torch.float64: (1e-12, 1e-13)}


def expect_values(
    ctx, value, expected: list, dtype, *, name: str, shape, what: str, mistakes: dict[str, list] | None = None
) -> None:
    """A learner's float tensor of ``shape`` and ``dtype`` against the float64 ``expected`` (nested lists);
    ``mistakes``: mistake name -> what that mistake returns (same nesting)."""
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


def _k_one_rows(k: int):
    """Three rows whose outcome is certain, with K = k draft positions: the first position decides
    (p_0 = q_0: accepted; p_0(x_0) = 0: rejected, a one-token residual), later positions have p = q one-hot
    on another token than p_K (so a bonus drawn from q_{K-1} or p_{K-1} comes out wrong, certainly), and
    p_K is one-hot. Returns (p, q, drafts, expected tokens, expected num_accepted)."""
    vocab = 3
    heads = [
        ([0.2, 0.3, 0.5], [0.2, 0.3, 0.5], 1),
        ([0.0, 0.0, 1.0], [0.5, 0.5, 0.0], 0),
        ([0.6, 0.1, 0.3], [0.6, 0.1, 0.3], 2),
    ]
    last = [2, 0, 1]
    p, q, drafts, tokens, num = [], [], [], [], []
    for (p0, q0, x0), bonus in zip(heads, last, strict=True):
        middle = (bonus + 1) % vocab
        same = [1.0 if t == middle else 0.0 for t in range(vocab)]
        p.append([p0] + [same] * (k - 1) + [[1.0 if t == bonus else 0.0 for t in range(vocab)]])
        q.append([q0] + [same] * (k - 1))
        drafts.append([x0] + [middle] * (k - 1))
        if p0 == q0:
            tokens.append([x0] + [middle] * (k - 1) + [bonus])
            num.append(k)
        else:
            tokens.append([2] + [-1] * k)
            num.append(0)
    return torch.tensor(p), torch.tensor(q), torch.tensor(drafts), tokens, num


def run_one_draft(sub, ctx, *, batches: tuple[int, ...]) -> None:
    """verify with K = 1 on certain rows (the first ``b`` rows of ``_k_one_rows``, for each ``b`` of
    ``batches``): exactly the expected tokens. A failure is named a lost dimension of size 1 only when the
    same rows with a second, certain draft position come out right (K = 1 alone fails)."""
    for batch in batches:
        p, q, drafts, want_tokens, want_num = _k_one_rows(1)
        p, q, drafts = p[:batch], q[:batch], drafts[:batch]
        value = sub.verify(p, q, drafts.clone(), generator=ctx.generator())
        tokens, num = unpack(ctx, value, name="verify", batch=batch, k=1)
        check_structure(tokens, num, drafts, 3, what=f"verify(K = 1, B = {batch})")
        if tokens.tolist() == want_tokens[:batch] and num.tolist() == want_num[:batch]:
            continue
        p2, q2, drafts2, want2, num2 = _k_one_rows(2)
        tokens2, got2 = unpack(
            ctx, sub.verify(p2, q2, drafts2.clone(), generator=ctx.generator()), name="verify", batch=3, k=2
        )
        expect(
            False,
            f"verify(K = 1, B = {batch}) returned tokens {tokens.tolist()}, num_accepted {num.tolist()}; expected "
            f"{want_tokens[:batch]} and {want_num[:batch]}",
            diagnosis=MISTAKES["k_one_shape"] if tokens2.tolist() == want2 and got2.tolist() == num2 else None,
            rule=Bilingual("wrong result with K = 1", "K = 1 时结果错误"),
            kind="value",
        )


def run_zero_uniforms(sub, ctx, ps, qs, rows: int, *, label: str) -> None:
    """verify fed uniforms of exactly 0 (``with_extreme_uniforms``): a draft token of target
    probability 0 must still be rejected. The same call with ordinary uniforms first: a token of target
    probability 0 accepted there is not about u = 0, and names nothing. Structure and support only (no
    budget)."""
    generator = torch.Generator().manual_seed(ctx.fresh_seed(f"{label} drafts"))
    drafts = draw_drafts(qs, rows, generator)

    def run(source, what: str, diagnoses: tuple[str | None, str | None]) -> None:
        value = source.verify(
            expand(ps, rows, torch.float32), expand(qs, rows, torch.float32), drafts.clone(), generator=ctx.generator()
        )
        tokens, num = unpack(ctx, value, name="verify", batch=rows, k=len(qs))
        check_structure(tokens, num, drafts, len(ps[0]), what=what)
        # A zero-probability token kept as an accepted draft is the u <= p/q mistake; drawn as the
        # replacement (N = 0), it is the residual's sampler failing on an extreme uniform.
        expect_support(
            tokens[:, 0][num > 0].clone(),
            _f64(ps[0]),
            what=f"{what}, position 0 (accepted draft tokens)",
            why_excluded=lambda row, token: "its target probability p_0 is 0, so it must be rejected whatever u is",
            diagnosis=diagnoses[0],
        )
        expect_support(
            tokens[:, 0][num == 0].clone(),
            _f64(theory.residual(ps[0], qs[0])),
            what=f"{what}, position 0 (replacement tokens)",
            why_excluded=lambda row, token: "its residual probability max(0, p_0 - q_0) is 0",
            diagnosis=diagnoses[1],
        )

    run(sub, f"{label}, ordinary uniforms", (None, None))
    run(
        sub.with_extreme_uniforms(ctx.fresh_seed(f"{label} uniforms")),
        label,
        (MISTAKES["accept_le"], MISTAKES["residual_zero_uniform"]),
    )


def check_certain(
    what: str,
    tokens: torch.Tensor,
    num: torch.Tensor,
    drafts: torch.Tensor,
    p: torch.Tensor,
    q: torch.Tensor,
    *,
    residual_support: bool = True,
) -> None:
    """What no uniform in [0, 1) can change in one verification of ``p`` [B, K+1, V] and ``q`` [B, K, V]
    (float64, the values verified; the structure checked first): a draft token with p > q is accepted where
    reached (u q < q < p), one with p = 0 never is; the token after the accepted ones has positive probability
    in what it is drawn from: the residual (p_i where the residual is 0 everywhere) with ``residual_support``,
    else p_i; the bonus token in p_K."""
    rows, k = drafts.shape
    public = in_language(what, "zh") if isinstance(what, Bilingual) else what
    for row in range(rows):
        n = int(num[row])
        for i in range(min(n + 1, k)):
            x = int(drafts[row, i])
            target, draft = float(p[row, i, x]), float(q[row, i, x])
            if i < n:
                expect(
                    target > 0,
                    f"{what}: row {row} accepted draft token {x} at position {i}, whose target probability is 0",
                    rule=Bilingual(
                        f"{what}: a token of target probability 0 was accepted",
                        f"{public}：接受了目标概率为 0 的 token",
                    ),
                    kind="value",
                )
            else:
                expect(
                    target <= draft,
                    f"{what}: row {row} rejected draft token {x} at position {i} although p_{i}(x) > q_{i}(x): "
                    "u q < q < p accepts it whatever u is",
                    rule=Bilingual(f"{what}: a token with p > q was rejected", f"{public}：拒绝了 p > q 的 token"),
                    kind="value",
                )
        last = int(tokens[row, n])
        if n < k:
            source = p[row, n]
            if residual_support:
                rest = (p[row, n] - q[row, n]).clamp(min=0)
                source = rest if bool((rest > 0).any()) else p[row, n]
            emitted = f"the replacement at position {n}"
        else:
            source, emitted = p[row, k], "the bonus token"
        expect(
            float(source[last]) > 0,
            f"{what}: row {row}: {emitted} is token {last}, of probability 0 in the distribution it is drawn from",
            rule=Bilingual(f"{what}: a token of probability 0 was emitted", f"{public}：输出了概率为 0 的 token"),
            kind="value",
        )


def run_draw_sites(sub, ctx, ps, qs, drafts: list[list[int]], *, label: str) -> int:
    """``expect_verify_draw_sites`` on copies of one context (``ps``, ``qs`` lists of rows), one row per
    draft list in ``drafts``, float32."""
    rows = torch.tensor(drafts)
    return expect_verify_draw_sites(
        sub,
        ctx,
        expand(ps, rows.shape[0], torch.float32),
        expand(qs, rows.shape[0], torch.float32),
        rows,
        label=label,
    )


def expect_verify_draw_sites(
    sub,
    ctx,
    p: torch.Tensor,
    q: torch.Tensor,
    drafts: torch.Tensor,
    *,
    label: str,
    high_diagnosis: str | None = None,
    diagnosis: str | None = None,
) -> int:
    """verify on ``p``, ``q``, ``drafts``, run once ordinarily and then with each of its draw sites (its calls
    of torch.rand and the like) pushed in turn to 0.0 and to the largest float below 1
    (``expect_every_draw_site``): the structure and what no uniform can change (``check_certain``) in every
    run. A failure of a pushed run alone is a draw site failing at an extreme (``diagnosis``, by default the
    judge's); ``high_diagnosis`` names a value that fails only at the highest uniform. No budget; returns
    the number of draw sites pushed."""
    rows, k = drafts.shape
    vocab = p.shape[-1]
    p64, q64 = p.to(torch.float64), q.to(torch.float64)

    def call(source, generator):
        return source.verify(p.clone(), q.clone(), drafts.clone(), generator=generator)

    def check(value, what: str) -> None:
        tokens, num = unpack(ctx, value, name="verify", batch=rows, k=k)
        check_structure(tokens, num, drafts, vocab, what=what)
        at_top = high_diagnosis is not None and "its highest value" in what
        with diagnosed(high_diagnosis) if at_top else nullcontext():
            check_certain(what, tokens, num, drafts, p64, q64)

    # Ordinary uniforms on many copies first: a failure there is not about an extreme, and names nothing.
    many = [t.repeat(ORDINARY_COPIES, *([1] * (t.dim() - 1))) for t in (p, q, drafts)]
    value = sub.verify(many[0], many[1], many[2].clone(), generator=ctx.generator())
    tokens, num = unpack(ctx, value, name="verify", batch=rows * ORDINARY_COPIES, k=k)
    check_structure(tokens, num, many[2], vocab, what=f"{label}, {ORDINARY_COPIES} copies, ordinary uniforms")
    check_certain(f"{label}, {ORDINARY_COPIES} copies", tokens, num, many[2], *(t.to(torch.float64) for t in many[:2]))
    options = {} if diagnosis is None else {"diagnosis": diagnosis}
    return expect_every_draw_site(sub, ctx, call, check, label=label, **options)


ORDINARY_COPIES = 32  # copies of a draw-site case's rows run with ordinary uniforms before the pushed runs


def halved(p: torch.Tensor, q: torch.Tensor, drafts: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``p`` with each row's first draft token at half its draft probability (the other half moved to the
    row's largest other entry): rejected at the largest uniforms like the vanishing rows, but leaving a
    residual: a control for them."""
    p = p.clone()
    for row in range(p.shape[0]):
        x = int(drafts[row, 0])
        half = q[row, 0, x] / 2
        others = p[row, 0].clone()
        others[x] = -1.0
        p[row, 0, int(others.argmax())] += p[row, 0, x] - half
        p[row, 0, x] = half
    return p, q


def expect_step_draw_sites(sub, ctx, target: torch.Tensor, draft: torch.Tensor, temperature, top_k, *, label: str):
    """speculative_step on the logits ``target`` [B, K+1, V] and ``draft`` [B, K, V], run ordinarily and with
    each draw site pushed to each end: the drafts keep positive filtered draft probability, the structure
    holds, and the emitted tokens have positive filtered target probability (float64 filters of the logits
    as given). No budget; returns the number of draw sites pushed."""
    rows, k, vocab = draft.shape
    p1 = torch.tensor([[theory.filtered(z, temperature, top_k) for z in r] for r in target.to(torch.float64).tolist()])
    q1 = torch.tensor([[theory.filtered(z, temperature, top_k) for z in r] for r in draft.to(torch.float64).tolist()])

    def call(source, generator, copies: int = 1):
        return source.speculative_step(
            target.repeat(copies, 1, 1),
            draft.repeat(copies, 1, 1),
            temperature=temperature,
            top_k=top_k,
            generator=generator,
        )

    def check(value, what: str, copies: int = 1) -> None:
        tokens, num, drafted = unpack(ctx, value, name="speculative_step", batch=rows * copies, k=k, parts=3)
        p, q = p1.repeat(copies, 1, 1), q1.repeat(copies, 1, 1)
        for i in range(k):
            expect_support(
                drafted[:, i : i + 1].clone(),
                q[:, i],
                what=f"{what}, draft tokens at position {i}",
                why_excluded=lambda row, token: "temperature and top-k give it draft probability 0",
            )
        check_structure(tokens, num, drafted, vocab, what=what)
        # p > q decides an acceptance only by a margin: the learner's filter rounds where this one does not
        decided = torch.where(p[:, :k] > q * (1 + 1e-3), p[:, :k], torch.minimum(p[:, :k], q))
        check_certain(what, tokens, num, drafted, torch.cat([decided, p[:, k:]], dim=1), q, residual_support=False)

    # Ordinary uniforms on many copies first: a failure there is not about an extreme, and names nothing.
    check(
        call(sub, ctx.generator(), ORDINARY_COPIES),
        f"{label}, {ORDINARY_COPIES} copies, ordinary uniforms",
        ORDINARY_COPIES,
    )
    return expect_every_draw_site(sub, ctx, call, check, label=label)
