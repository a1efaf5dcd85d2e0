"""Exact distributions for exercise 43's statistical checks, in plain Python floats.

For a verification whose draft tokens x_i are drawn from q_i: the distribution of the number
accepted N, of the token emitted at a draft position (given that it is emitted), and of the
bonus token; for the correct algorithm and for each known mistake. The same code runs on the
server and in the browser (no torch needed), so the tiny variant uses it too. The formulas follow
the statement; nothing here is an answer a learner could copy.
"""

from __future__ import annotations

Row = list[float]


def _norm(values: Row) -> Row:
    """``values`` over their sum; all zeros where nothing is left (a mistake that keeps no token)."""
    total = sum(values)
    return [v / total for v in values] if total > 0 else [0.0] * len(values)


def acceptance(p: Row, q: Row) -> float:
    """sum_x min(p(x), q(x))."""
    return sum(min(a, b) for a, b in zip(p, q, strict=True))


def residual(p: Row, q: Row) -> Row:
    """max(0, p - q) renormalised (p itself when it is all zero, which needs p == q)."""
    diff = [max(0.0, a - b) for a, b in zip(p, q, strict=True)]
    return _norm(diff) if sum(diff) > 0 else list(p)


def _ratio_accept(p: Row, q: Row, mistake: str | None) -> Row:
    """P(draft is x and x is accepted), per token x, for the acceptance rule of ``mistake``."""
    if mistake == "ratio_inverted":
        return [b if a == 0 else b * min(1.0, b / a) for a, b in zip(p, q, strict=True)]
    if mistake == "ratio_over_max":
        top = max(a / b for a, b in zip(p, q, strict=True) if b > 0) or 1.0  # no mass where q is: accept none
        return [a / top if b > 0 else 0.0 for a, b in zip(p, q, strict=True)]
    if mistake == "accept_without_uniform":
        return [b if a >= b else 0.0 for a, b in zip(p, q, strict=True)]
    return [min(a, b) for a, b in zip(p, q, strict=True)]


def position_rate(p: Row, q: Row, mistake: str | None = None, verify_q: Row | None = None) -> float:
    """The chance that one draft token (drawn from q) is accepted."""
    if verify_q is not None:  # drafted from q, verified as if drafted from verify_q
        return sum(b * min(1.0, a / c) if c > 0 else b for a, b, c in zip(p, q, verify_q, strict=True))
    return sum(_ratio_accept(p, q, mistake))


def _parts(
    p: Row,
    q: Row,
    mistake: str | None = None,
    verify_q: Row | None = None,
    first: tuple[Row, Row] | None = None,
    verify_p: Row | None = None,
) -> tuple[Row, Row]:
    """(P(the draft is x and is accepted) per x, the replacement's law) at one draft position whose draft
    is drawn from q, for the rule or ``mistake``; ``verify_q``/``verify_p``: what the acceptance and the
    residual use instead of q or p (a step that verifies with unfiltered distributions)."""
    if verify_q is not None or verify_p is not None:
        vp, vq = verify_p or p, verify_q or q
        accepted = [b * min(1.0, a / c) if c > 0 else b for a, b, c in zip(vp, q, vq, strict=True)]
        return accepted, residual(vp, vq)
    accepted = _ratio_accept(p, q, mistake)
    rest = residual(p, q)
    if mistake == "resample_from_p":
        rest = list(p)
    elif mistake == "residual_swapped":
        rest = residual(q, p)
    elif mistake == "residual_abs":
        rest = _norm([abs(a - b) for a, b in zip(p, q, strict=True)])
    elif mistake == "residual_wrong_position" and first is not None:
        rest = residual(*first)
    elif mistake == "residual_unnormalised":
        raw = [max(0.0, a - b) for a, b in zip(p, q, strict=True)]
        rest = raw[:-1] + [raw[-1] + 1.0 - sum(raw)]
    return accepted, rest


def emitted(
    p: Row,
    q: Row,
    mistake: str | None = None,
    verify_q: Row | None = None,
    first: tuple[Row, Row] | None = None,
    verify_p: Row | None = None,
) -> Row:
    """The distribution of the token emitted at a draft position, given that it is emitted
    (``first``: position 0's (p, q), which ``residual_wrong_position`` takes the residual from)."""
    accepted, rest = _parts(p, q, mistake, verify_q, first, verify_p)
    rejected = 1.0 - sum(accepted)
    return [a + rejected * r for a, r in zip(accepted, rest, strict=True)]


def emitted_joint(
    p: Row,
    q: Row,
    mistake: str | None = None,
    verify_q: Row | None = None,
    first: tuple[Row, Row] | None = None,
    verify_p: Row | None = None,
) -> Row:
    """The law of the emitted token together with how it came out, over ``2 V`` ids: ``x`` for the draft
    token accepted, ``V + t`` for the replacement t (given that the position is reached)."""
    accepted, rest = _parts(p, q, mistake, verify_q, first, verify_p)
    rejected = 1.0 - sum(accepted)
    return accepted + [rejected * r for r in rest]


def _expected_min(levels: list[list[tuple[float, float]]]) -> float:
    """E[min_i A_i] for independent A_i in [0, 1], each given as (value, probability) pairs."""
    cuts = sorted({0.0, 1.0, *(v for level in levels for v, _ in level)})
    total = 0.0
    for low, high in zip(cuts, cuts[1:], strict=False):
        above = 1.0
        for level in levels:
            above *= sum(w for v, w in level if v > low)
        total += (high - low) * above
    return total


def accepted_count(ps: list[Row], qs: list[Row], mistake: str | None = None, verify_qs: list[Row] | None = None) -> Row:
    """The distribution of N over 0..K, K = len(qs); ps[i] is the target at draft position i."""
    k = len(qs)
    if mistake == "positions_share_uniform":
        levels = [
            [(min(1.0, a / b), b) for a, b in zip(p, q, strict=True) if b > 0] for p, q in zip(ps, qs, strict=True)
        ]
        at_least = [1.0] + [_expected_min(levels[:j]) for j in range(1, k + 1)]
    elif mistake == "num_counts_all_acceptances":  # every acceptance counted: a Poisson binomial
        law = [1.0]
        for p, q in zip(ps, qs, strict=True):
            rate = position_rate(p, q)
            law = [
                (law[j] if j < len(law) else 0.0) * (1 - rate) + (law[j - 1] * rate if j else 0.0)
                for j in range(len(law) + 1)
            ]
        return law
    else:
        rates = [
            position_rate(p, q, mistake, None if verify_qs is None else verify_qs[i])
            for i, (p, q) in enumerate(zip(ps, qs, strict=True))
        ]
        at_least = [1.0]
        for rate in rates:
            at_least.append(at_least[-1] * rate)
    return [at_least[j] - (at_least[j + 1] if j < k else 0.0) for j in range(k + 1)]


def bonus(ps: list[Row], qs: list[Row], mistake: str | None = None) -> Row:
    """The distribution of the bonus token (emitted after K acceptances)."""
    if mistake == "bonus_previous_p":
        return list(ps[-2])
    if mistake == "bonus_from_q":
        return list(qs[-1])
    return list(ps[-1])


# --- filtering (temperature and top-k), on plain lists ------------------------------------------


def filtered(logits: Row, temperature: float, top_k: int, mistake: str | None = None) -> Row:
    """softmax(logits / T) over the tokens whose logit is >= the k-th largest (ties stay)."""
    import math

    keep = [True] * len(logits)
    if 0 < top_k < len(logits):
        kth = sorted(logits, reverse=True)[top_k - 1]
        keep = [z >= kth for z in logits]
        if mistake == "topk_exact_k":
            order = sorted(range(len(logits)), key=lambda i: (-logits[i], i))[:top_k]
            keep = [i in order for i in range(len(logits))]
        elif mistake == "topk_k_plus_one":  # the (k+1)-th largest logit taken as the cut
            cut = sorted(logits, reverse=True)[min(top_k, len(logits) - 1)]
            keep = [z >= cut for z in logits]
        elif mistake == "topk_strict":  # only logits strictly above the k-th largest
            keep = [z > kth for z in logits]
    top = max(logits)
    if mistake == "temperature_multiplied":
        temperature = 1.0 / temperature
    weights = [math.exp((z - top) / temperature) for z in logits]
    if mistake == "topk_not_renormalised":
        total = sum(weights)
        return [w / total if k else 0.0 for w, k in zip(weights, keep, strict=True)]
    weights = [w if k else 0.0 for w, k in zip(weights, keep, strict=True)]
    return _norm(weights)


def softmax(logits: Row) -> Row:
    return filtered(logits, 1.0, 0)


# --- joint laws: the whole outcome of a row, and a draft token with its acceptance -------------------


def final_law(ps: list[Row], qs: list[Row], drafts: list[int] | None = None) -> Row:
    """The law of a row's outcome (N, the token at position N), as one id ``N * V + token``, over
    ``(K + 1) * V`` ids: the number accepted and the replacement (N < K) or bonus (N = K) token.
    ``drafts``: fixed draft tokens (one per position); None: each drawn from its q."""
    k, vocab = len(qs), len(ps[0])
    law = [0.0] * ((k + 1) * vocab)
    reach = 1.0
    for i in range(k):
        if drafts is None:
            rate = acceptance(ps[i], qs[i])
        else:
            x = drafts[i]
            rate = min(1.0, ps[i][x] / qs[i][x])
        for token, r in enumerate(residual(ps[i], qs[i])):
            law[i * vocab + token] += reach * (1.0 - rate) * r
        reach *= rate
    total = sum(ps[k])
    for token, p in enumerate(ps[k]):
        law[k * vocab + token] += reach * p / total
    return law


def accept_joint(
    p: Row, q: Row, mistake: str | None = None, verify_p: Row | None = None, verify_q: Row | None = None
) -> Row:
    """The law of (draft token x drawn from q, whether it is accepted), as one id ``2 * x + accepted``.

    ``verify_p``/``verify_q``: the distributions the acceptance uses when they are not p and q (a step
    that verifies with unfiltered ones); ``mistake="draft_uniform_reused"``: x drawn by inverse CDF in
    token order from u, and the same u used as the acceptance uniform."""
    vp, vq = verify_p or p, verify_q or q
    law: Row = []
    below = 0.0
    for x, b in enumerate(q):
        if b <= 0:
            law += [0.0, 0.0]
            continue
        ratio = vp[x] / vq[x] if vq[x] > 0 else 1.0
        if mistake == "draft_uniform_reused":  # u uniform on [F(x-1), F(x)); accepted when u < ratio
            accept = min(1.0, max(0.0, (ratio - below) / b))
        elif mistake in ("ratio_inverted", "ratio_over_max", "accept_without_uniform"):
            accept = _ratio_accept(p, q, mistake)[x] / b
        else:
            accept = min(1.0, ratio)
        law += [b * (1.0 - accept), b * accept]
        below += b
    total = sum(law)
    return [w / total for w in law]
