"""Checks shared by exercise 53's suites: the outputs' structure, and their laws against the exact ones.

An output of ``verify_candidates`` is decided by its pair (index, token), one of ``verify_tree`` by
(last_node, final token): each is coded as one outcome, ``(first + 1) * V + token``, whose exact law
:mod:`theory53` gives for fixed candidates. A known mistake's law is offered as an alternative, so
a fit that fails names the mistake whose law the counts follow.
"""

from __future__ import annotations

import math

import torch

from judge.checks.base import Evidence, fail
from judge.checks.distributions import expect_distribution, expect_support
from judge.checks.exact import expect, expect_close, expect_tensor
from judge.checks.independence import expect_independent_rows
from judge.i18n import Bilingual

from . import theory53 as theory
from .diagnoses import MISTAKES

PAD = -1
NODE_RULES = (
    "residual_not_updated",
    "residual_unnormalised",
    "original_p",
    "final_from_p",
    "duplicates_skipped",
    "without_replacement",
    "shared_uniform",
)
TREE_RULES = (*NODE_RULES, "stop_at_first", "first_child_always", "leaf_residual")
TOLERANCE = {torch.float32: (1e-5, 1e-6), torch.float64: (1e-10, 1e-12)}


def f64(rows) -> torch.Tensor:
    return torch.tensor(rows, dtype=torch.float64)


def expand(rows: list, batch: int, dtype: torch.dtype) -> torch.Tensor:
    """``batch`` copies of a nested list of rows, as one tensor."""
    one = torch.tensor(rows, dtype=dtype)
    return one.unsqueeze(0).expand(batch, *one.shape).contiguous()


def _pair(ctx, value, name: str, parts: int):
    expect(
        isinstance(value, (list, tuple)) and len(value) == parts,
        f"{name} must return a tuple of {parts} tensors, got {type(value).__name__}",
        rule=Bilingual(f"{name}: did not return a tuple of {parts}", f"{name}：返回的不是 {parts} 元组"),
    )
    return value


def unpack_candidates(ctx, value, *, batch: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(index int64 [B], token int64 [B]), checked for type, shape, dtype and device."""
    value = _pair(ctx, value, "verify_candidates", 2)
    index = expect_tensor(
        value[0], name="verify_candidates index", shape=(batch,), dtype=torch.int64, device=ctx.device
    )
    token = expect_tensor(
        value[1], name="verify_candidates token", shape=(batch,), dtype=torch.int64, device=ctx.device
    )
    return index, token


def unpack_tree(ctx, value, *, batch: int, depth: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(tokens int64 [B, D+1], num_accepted int64 [B], last_node int64 [B]), checked."""
    value = _pair(ctx, value, "verify_tree", 3)
    tokens = expect_tensor(
        value[0], name="verify_tree tokens", shape=(batch, depth + 1), dtype=torch.int64, device=ctx.device
    )
    num = expect_tensor(value[1], name="verify_tree num_accepted", shape=(batch,), dtype=torch.int64, device=ctx.device)
    last = expect_tensor(value[2], name="verify_tree last_node", shape=(batch,), dtype=torch.int64, device=ctx.device)
    return tokens, num, last


def _first_bad(mask: torch.Tensor) -> int | None:
    rows = mask.nonzero()
    return None if rows.numel() == 0 else int(rows[0, 0])


def _rule(en: str, zh: str) -> Bilingual:
    return Bilingual(en, zh)


def check_candidates_structure(index, token, candidates: torch.Tensor, vocab: int, *, what: str) -> None:
    """index in [-1, k-1], an accepted index's candidate is the token, every token in [0, V)."""
    k = candidates.shape[1]
    bad = _first_bad((index < -1) | (index >= k))
    expect(
        bad is None,
        f"{what}: row {bad} has index {int(index[bad]) if bad is not None else 0}, outside [-1, {k - 1}]",
        rule=_rule(f"{what}: an index outside [-1, k-1]", f"{what}：index 超出 [-1, k-1]"),
        kind=Evidence.STRUCTURAL,
    )
    chosen = candidates.gather(1, index.clamp(min=0).unsqueeze(1)).squeeze(1)
    bad = _first_bad((index >= 0) & (token != chosen))
    expect(
        bad is None,
        f"{what}: row {bad} accepted candidate {int(index[bad]) if bad is not None else 0} but emitted another token",
        rule=_rule(f"{what}: the token is not the accepted candidate", f"{what}：输出的 token 不是被接受的候选"),
        kind=Evidence.STRUCTURAL,
    )
    bad = _first_bad((token < 0) | (token >= vocab))
    expect(
        bad is None,
        f"{what}: row {bad} emitted token {int(token[bad]) if bad is not None else 0}, outside [0, {vocab})",
        rule=_rule(f"{what}: a token outside the vocabulary", f"{what}：token 超出词表"),
        kind=Evidence.STRUCTURAL,
    )


def path_table(parents: list[int], tree_tokens: torch.Tensor) -> tuple[list[int], torch.Tensor]:
    """(the depth of each row's nodes with 0 for -1 first, [B, N+1, D] the path tokens to each node)."""
    depth = [0, *theory.depths(parents)]
    longest = max(depth)
    batch = tree_tokens.shape[0]
    table = torch.full((batch, len(parents) + 1, longest), PAD, dtype=torch.int64)
    for n in range(len(parents)):
        node, d = n, depth[n + 1]
        while node >= 0:
            d -= 1
            table[:, n + 1, d] = tree_tokens[:, node]
            node = parents[node]
    return depth, table


def check_tree_structure(tokens, num, last, parents: list[int], tree_tokens: torch.Tensor, vocab: int, *, what: str):
    """last_node a node or -1, num_accepted its depth, the path's tokens, one token in [0, V), then -1."""
    depth, table = path_table(parents, tree_tokens)
    wrong = _node_mismatch(last, num, depth)
    shifted = _node_mismatch(last - 1, num, depth)
    bad = _first_bad(wrong)
    expect(
        bad is None,
        f"{what}: row {bad} has last_node {int(last[bad]) if bad is not None else 0} and num_accepted "
        f"{int(num[bad]) if bad is not None else 0}: last_node must be a node in [-1, {len(parents) - 1}] "
        "whose depth is num_accepted",
        rule=_rule(
            f"{what}: last_node is not a node at depth num_accepted",
            f"{what}：last_node 不是深度为 num_accepted 的节点",
        ),
        kind=Evidence.STRUCTURAL,
        diagnosis=MISTAKES["last_node_row"] if not bool(shifted.any()) else None,
    )
    longest = tokens.shape[1] - 1
    path = table[torch.arange(tokens.shape[0]), last + 1]  # [B, D]
    positions = torch.arange(longest).unsqueeze(0)
    on_path = positions < num.unsqueeze(1)
    bad = _first_bad((on_path & (tokens[:, :longest] != path)).any(dim=1))
    expect(
        bad is None,
        f"{what}: row {bad} emitted {tokens[bad].tolist() if bad is not None else []}, whose first tokens are not "
        f"the path to its last_node {int(last[bad]) if bad is not None else 0}",
        rule=_rule(
            f"{what}: the accepted tokens are not the path to last_node",
            f"{what}：被接受的 token 不是通往 last_node 的路径",
        ),
        kind=Evidence.STRUCTURAL,
    )
    final = tokens.gather(1, num.unsqueeze(1)).squeeze(1)
    bad = _first_bad((final < 0) | (final >= vocab))
    expect(
        bad is None,
        f"{what}: row {bad} has {int(final[bad]) if bad is not None else 0} after its path, "
        f"not a token in [0, {vocab})",
        rule=_rule(f"{what}: no token after the accepted path", f"{what}：被接受的路径之后没有 token"),
        kind=Evidence.STRUCTURAL,
    )
    after = torch.arange(longest + 1).unsqueeze(0) > num.unsqueeze(1)
    bad = _first_bad((after & (tokens != PAD)).any(dim=1))
    expect(
        bad is None,
        f"{what}: row {bad} emitted {tokens[bad].tolist() if bad is not None else []}: after the final token "
        "every position must be -1",
        rule=_rule(f"{what}: positions after the final token are not -1", f"{what}：最终 token 之后的位置不是 -1"),
        kind=Evidence.STRUCTURAL,
    )
    return final


def _node_mismatch(last: torch.Tensor, num: torch.Tensor, depth: list[int]) -> torch.Tensor:
    """Rows whose last_node is not a node (or -1) at depth num_accepted."""
    inside = (last >= -1) & (last < len(depth) - 1)
    depth_of = torch.tensor(depth, dtype=torch.int64)[(last + 1).clamp(0, len(depth) - 1)]
    return ~inside | (num != depth_of)


def _law_vector(law: dict[tuple[int, int], float], firsts: int, vocab: int) -> list[float]:
    """A law over (first, token) as a list over ``(first + 1) * V + token``; first from -1."""
    out = [0.0] * ((firsts + 1) * vocab)
    for (first, token), mass in law.items():
        out[(first + 1) * vocab + token] += mass
    return out


def candidates_law(p, q, candidates: list[int], rule: str | None = None) -> list[float]:
    """The law of (index, token) for fixed candidates, coded as (index + 1) * V + token."""
    accepted, final = theory.node_law(p, q, candidates, rule)
    law: dict[tuple[int, int], float] = {}
    for i, (x, chance) in enumerate(zip(candidates, accepted, strict=True)):
        law[i, x] = law.get((i, x), 0.0) + chance
    for t, mass in enumerate(final):
        law[-1, t] = law.get((-1, t), 0.0) + mass
    return _law_vector(law, len(candidates), len(p))


def tree_law(parents, tokens, ps, qs, rule: str | None = None) -> list[float]:
    """The law of (last_node, final token) for a fixed tree, coded as (last_node + 1) * V + token."""
    return _law_vector(theory.tree_law(parents, tokens, ps, qs, rule), len(parents), len(ps[0]))


def separation(truth: list[float], law: list[float], rows: int) -> float:
    """The G-test's noncentrality for ``rows`` draws of ``law`` against ``truth`` (inf: outside the support)."""
    total = 0.0
    for t, m in zip(truth, law, strict=True):
        if t <= 0:
            if m > 1e-12:
                return float("inf")
            continue
        total += (m - t) ** 2 / t
    return rows * total


NEEDED = 120.0  # noncentrality that a G-test at about 1e-8 rejects with probability above 0.999
SAME = 0.5  # below this a mistake's law cannot fail the fit: it is the truth's, for these rows
APART = 60.0  # two mistakes' laws this far apart: the counts name one of them, 1000 times likelier


def separated(truth: list[float], laws: dict[str, list[float]], rows: int, aim) -> bool:
    """Whether these rows name each mistake of ``aim``: its law is far from the truth's, and far from
    the law of every other mistake that the fit could see at all."""
    gaps = {name: separation(truth, law, rows) for name, law in laws.items()}
    for name in aim:
        if gaps[name] < NEEDED:
            return False
        for other, law in laws.items():
            if other != name and gaps[other] > SAME:
                if min(separation(laws[name], law, rows), separation(law, laws[name], rows)) < APART:
                    return False
    return True


def _alternatives(truth: list[float], table: dict[str, list[float]]) -> dict:
    """The mistakes whose law differs from the truth, as the checks want them."""
    return {
        MISTAKES[name]: f64(law)
        for name, law in table.items()
        if max(abs(a - b) for a, b in zip(law, truth, strict=True)) > 1e-9
    }


OUTCOME_CANDIDATES = Bilingual("(index, token) pair", "（index，token）组合")
OUTCOME_TREE = Bilingual("(last_node, final token) pair", "（last_node，最终 token）组合")


def expect_law(
    ctx, outcomes: torch.Tensor, truth: list[float], table: dict[str, list[float]], *, label: str, public, outcome
):
    """The outcomes' support, then their fit to ``truth`` with the mistakes of ``table`` as alternatives."""
    alternatives = _alternatives(truth, table)
    # Every row alike, where neither the rule nor a known mistake makes that likelier than 1e-12: such
    # counts fit no law, and a mistake's law could fit them best by chance of its shape, so the case
    # fails here naming nothing (rows that share their uniforms, a rule that ignores them, a walk that
    # never moves: the independence case and the structure tell them apart).
    rows = outcomes.shape[0]
    alike = not bool((outcomes != outcomes[0]).any())
    if alike and all(rows * math.log(max(law)) < math.log(1e-12) for law in (truth, *table.values())):
        fail(
            f"{label}: all {rows} copies of one row gave the same outcome {int(outcomes[0])}, which the rule "
            "makes less likely than 1e-12",
            rule=_rule(f"{label}: every copy of the row gave the same outcome", f"{label}：该行的所有副本结果都相同"),
            kind=Evidence.VALUE,
        )
    expect_support(
        outcomes.unsqueeze(0),
        f64([truth]),
        what=label,
        why_excluded=lambda row, o: "this outcome has probability 0 under the rule",
        alternatives={d: v.unsqueeze(0) for d, v in alternatives.items()},
        outcome=outcome,
    )
    expect_distribution(
        ctx, outcomes, f64(truth), label=label, public=public, alternatives=alternatives, outcome=outcome
    )


def run_candidates_law(
    sub, ctx, p: list[float], q: list[float], candidates: list[int], *, rows: int, dtype, label: str, public
) -> None:
    """verify_candidates on ``rows`` copies of one row: structure, then the law of (index, token)."""
    cands = torch.tensor([candidates] * rows)
    value = sub.verify_candidates(expand(p, rows, dtype), expand(q, rows, dtype), cands, generator=ctx.generator())
    index, token = unpack_candidates(ctx, value, batch=rows)
    check_candidates_structure(index, token, cands, len(p), what=label)
    truth = candidates_law(p, q, candidates)
    table = {rule: candidates_law(p, q, candidates, rule) for rule in NODE_RULES}
    outcomes = (index + 1) * len(p) + token
    expect_law(ctx, outcomes, truth, table, label=label, public=public, outcome=OUTCOME_CANDIDATES)


def run_tree_law(
    sub, ctx, parents: list[int], tokens: list[int], ps: list, qs: list, *, rows: int, dtype, label: str, public
) -> None:
    """verify_tree on ``rows`` copies of one tree: structure, then the law of (last_node, final token)."""
    tree = torch.tensor([tokens] * rows)
    value = sub.verify_tree(
        torch.tensor(parents), tree, expand(ps, rows, dtype), expand(qs, rows, dtype), generator=ctx.generator()
    )
    out, num, last = unpack_tree(ctx, value, batch=rows, depth=max(theory.depths(parents)))
    final = check_tree_structure(out, num, last, parents, tree, len(ps[0]), what=label)
    truth = tree_law(parents, tokens, ps, qs)
    table = {rule: tree_law(parents, tokens, ps, qs, rule) for rule in TREE_RULES}
    outcomes = (last + 1) * len(ps[0]) + final
    expect_law(ctx, outcomes, truth, table, label=label, public=public, outcome=OUTCOME_TREE)


def expect_probabilities(ctx, value, p: list, q: list, k: int, dtype, *, what: str) -> None:
    """acceptance_probability's [B] against the float64 formula, naming the mistakes that reproduce it."""
    actual = expect_tensor(value, name="acceptance_probability", shape=(len(p),), dtype=dtype, device=ctx.device)

    def formula(rule: str | None) -> torch.Tensor:
        return f64([theory.acceptance_probability(a, b, k, rule) for a, b in zip(p, q, strict=True)])

    want = formula(None)
    rtol, atol = TOLERANCE[dtype]
    mistakes = {}
    for rule in ("acceptance_independent", "residual_unnormalised", "acceptance_capped"):
        if (formula(rule) - want).abs().max() > 1e-6:
            mistakes[MISTAKES[rule]] = formula(rule)
    expect_close(
        actual.to(torch.float64), want, rtol=rtol, atol=atol, what=what, mistakes=mistakes or None, per_row=True
    )


def expect_not_constant(outcomes: torch.Tensor, law: list[float], *, label: str) -> None:
    """Rows all alike, where the law makes that unlikelier than 1e-15, fail naming nothing: a rule that
    does not use its uniforms is not a generator mistake."""
    rows = outcomes.shape[0]
    alike = not bool((outcomes != outcomes[0]).any())
    expect(
        not (alike and rows * math.log(max(law)) < math.log(1e-15)),
        f"{label}: all {rows} identical rows gave the same outcome {int(outcomes[0])}",
        rule=_rule(f"{label}: every row gave the same outcome", f"{label}：所有行的结果都相同"),
        kind=Evidence.VALUE,
    )


# Calls made after one whose rows all gave one outcome: a shared-uniform sampler whose commonest
# outcome has chance a repeats it in all of them with chance a**MORE_CALLS (0.5: 1.5e-5).
MORE_CALLS = 16


def expect_halves_independent(ctx, call, law: list[float], *, label: str, outcome) -> None:
    """The two halves of a call's identical rows must not agree more than chance allows; ``call()`` makes
    one call and returns its outcomes. When every row of a call gives one outcome (which chance never
    does), up to :data:`MORE_CALLS` more calls tell why: one that gives other outcomes means the rows
    draw shared random numbers (named); every call alike and the same comes from a rule that does not
    use its uniforms (named nothing)."""
    outcomes = call()
    rows = outcomes.shape[0]
    if not bool((outcomes != outcomes[0]).any()) and rows * math.log(max(law)) < math.log(1e-15):
        for _ in range(MORE_CALLS):
            again = call()
            expect(
                not bool((again != outcomes[0]).any()),
                f"{label}: a call gave all {rows} identical rows the outcome {int(outcomes[0])}, and another "
                f"call gave others: the rows draw the same random numbers",
                diagnosis=MISTAKES["rows_share_uniforms"],
                rule=_rule(
                    f"{label}: every row of a call gave the same outcome", f"{label}：同一次调用的所有行结果都相同"
                ),
                kind=Evidence.VALUE,
            )
        expect_not_constant(outcomes, law, label=label)
    expect_independent_rows(
        ctx,
        outcomes[: rows // 2].clone(),
        outcomes[rows // 2 :].clone(),
        f64(law),
        label=label,
        outcome=outcome,
        diagnosis=MISTAKES["rows_share_uniforms"],
    )
