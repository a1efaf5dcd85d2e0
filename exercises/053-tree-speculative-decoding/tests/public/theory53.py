"""Exact laws for exercise 53's statistical checks, in plain Python floats.

Given one row's tree (its parents, its tokens, and the target and draft rows of every node), the
law of what ``verify_tree`` returns, as a map (last accepted node, final token) -> probability:
the pair decides the whole output. Also the multi-candidate rule at one node, given its
candidates, and its acceptance probability when the candidates are drawn i.i.d. from q. No torch
is needed, so the browser's tiny suite uses the same code. ``rule`` selects a known mistake's law
(``None``: the statement's rule).
"""

from __future__ import annotations

Row = list[float]


def normalised(values: Row) -> Row:
    """``values`` over their sum (all zeros where the sum is 0)."""
    total = sum(values)
    return [v / total for v in values] if total > 0 else [0.0] * len(values)


def next_residual(r: Row, q: Row, unnormalised: bool = False) -> Row:
    """max(r - q, 0) renormalised; r itself where that is 0 at every token."""
    mass = [max(0.0, a - b) for a, b in zip(r, q, strict=True)]
    if sum(mass) <= 0:
        return list(r)
    return mass if unnormalised else normalised(mass)


def node_law(p: Row, q: Row, candidates: list[int], rule: str | None = None) -> tuple[Row, Row]:
    """(P(candidate i is the one accepted) per i, P(all rejected and token t drawn) per t)."""
    if rule == "shared_uniform":
        return _shared_uniform(p, q, candidates)
    r, q_now = list(p), list(q)
    reach = 1.0
    accepted = []
    tried: set[int] = set()
    for x in candidates:
        if rule == "duplicates_skipped" and x in tried:
            accepted.append(0.0)
            continue
        tried.add(x)
        current = p if rule == "original_p" else r
        chance = min(1.0, current[x] / q_now[x]) if q_now[x] > 0 else float(current[x] > 0)
        accepted.append(reach * chance)
        reach *= 1.0 - chance
        if rule != "residual_not_updated":
            r = next_residual(r, q_now, unnormalised=rule == "residual_unnormalised")
        if rule == "without_replacement":
            q_now = normalised([0.0 if t == x else v for t, v in enumerate(q_now)])
    final = normalised(p if rule == "final_from_p" else r)
    return accepted, [reach * f for f in final]


def _shared_uniform(p: Row, q: Row, candidates: list[int]) -> tuple[Row, Row]:
    """One uniform u for every candidate of a node: candidate i is accepted when u is below its ratio
    and not below any earlier one (the residuals along the way do not depend on u)."""
    r = list(p)
    top = 0.0
    accepted = []
    for x in candidates:
        ratio = min(1.0, r[x] / q[x])
        accepted.append(max(0.0, ratio - top))
        top = max(top, ratio)
        r = next_residual(r, q)
    return accepted, [(1.0 - top) * f for f in normalised(r)]


def acceptance_probability(p: Row, q: Row, k: int, rule: str | None = None) -> float:
    """1 - prod_j sum_x max(r_j(x) - q(x), 0), r_0 = p as given; ``rule``: "acceptance_independent"
    (the residual never changes), "residual_unnormalised" or "acceptance_capped" (k cut to V)."""
    r = list(p)
    all_rejected = 1.0
    for _ in range(min(k, len(p)) if rule == "acceptance_capped" else k):
        all_rejected *= sum(max(0.0, a - b) for a, b in zip(r, q, strict=True))
        if rule != "acceptance_independent":
            r = next_residual(r, q, unnormalised=rule == "residual_unnormalised")
    return 1.0 - all_rejected


def children(parents: list[int]) -> dict[int, list[int]]:
    """Tree node indices under each probability row (row 0: the root context, row n+1: node n)."""
    kids: dict[int, list[int]] = {row: [] for row in range(len(parents) + 1)}
    for n, a in enumerate(parents):
        kids[a + 1].append(n)
    return kids


def tree_law(
    parents: list[int], tokens: list[int], p: list[Row], q: list[Row], rule: str | None = None
) -> dict[tuple[int, int], float]:
    """P(last accepted node, final token) for one row; node -1: nothing accepted at the root."""
    kids = children(parents)
    law: dict[tuple[int, int], float] = {}

    def walk(row: int, mass: float) -> None:
        under = kids[row]
        if not under:
            leaf = next_residual(p[row], q[row]) if rule == "leaf_residual" else p[row]
            for t, f in enumerate(normalised(leaf)):
                if f > 0:
                    law[row - 1, t] = law.get((row - 1, t), 0.0) + mass * f
            return
        tried = under[:1] if rule == "stop_at_first" else under
        accepted, final = node_law(p[row], q[row], [tokens[n] for n in tried], rule)
        for n, chance in zip(tried, accepted, strict=True):
            if chance > 0:
                walk((under[0] if rule == "first_child_always" else n) + 1, mass * chance)
        for t, f in enumerate(final):
            if f > 0:
                law[row - 1, t] = law.get((row - 1, t), 0.0) + mass * f

    walk(0, 1.0)
    return law


def depths(parents: list[int]) -> list[int]:
    """The depth of each tree node (a child of the root has depth 1)."""
    depth: list[int] = []
    for a in parents:
        depth.append(1 if a < 0 else depth[a] + 1)
    return depth


def path_tokens(parents: list[int], tokens: list[int], node: int) -> list[int]:
    """The tokens from the root down to ``node`` (empty for -1)."""
    path = []
    while node >= 0:
        path.append(tokens[node])
        node = parents[node]
    return path[::-1]
