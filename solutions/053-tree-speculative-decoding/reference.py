"""Reference solution for exercise 53: tree speculative decoding.

The multi-candidate rule (recursive rejection sampling, with replacement): the k candidates of a
node were drawn i.i.d. from the draft q; they are tried in order, candidate x accepted when
u * q(x) < r(x), r the current residual (first the target p as given); after each rejection
r <- max(r - q, 0) renormalised (kept as it is where that is 0 at every token). If all k are
rejected, one token is drawn from the final r. ``verify_tree`` applies the rule at the root, walks
into the accepted child and repeats; it ends with one token drawn from the final residual of the
last node reached, or from its target p when that node is a leaf.
"""

import torch

PAD = -1
FLOATS = (torch.float32, torch.float64)


def _check_probs(p, q, rank):
    for name, value in (("target_probs", p), ("draft_probs", q)):
        if not isinstance(value, torch.Tensor) or value.dim() != rank or value.dtype not in FLOATS:
            raise ValueError(f"{name} must be a {rank}-D float32 or float64 tensor")
    if p.dtype != q.dtype:
        raise ValueError("target_probs and draft_probs must have the same dtype")
    if p.shape != q.shape:
        raise ValueError("target_probs and draft_probs must have the same shape")
    for name, value in (("target_probs", p), ("draft_probs", q)):
        if not torch.isfinite(value).all() or (value < 0).any():
            raise ValueError(f"{name} must be finite and non-negative")
    if (p.sum(dim=-1) <= 0).any():
        raise ValueError("every row of target_probs needs a positive entry")


def _check_tokens(tokens, name, batch, vocab):
    if not isinstance(tokens, torch.Tensor) or tokens.dim() != 2 or tokens.dtype != torch.int64:
        raise ValueError(f"{name} must be a 2-D int64 tensor")
    if tokens.shape[0] != batch or tokens.shape[1] < 1:
        raise ValueError(f"{name} must be [B, n] with the batch of the probabilities and n >= 1")
    if ((tokens < 0) | (tokens >= vocab)).any():
        raise ValueError(f"{name} must lie in [0, V)")


def _next_residual(r, q):
    """max(r - q, 0) renormalised; r itself where that is 0 at every token (never 0 / 0)."""
    mass = (r - q).clamp(min=0)
    total = mass.sum(dim=-1, keepdim=True)
    return torch.where(total > 0, mass / torch.where(total > 0, total, 1.0), r)


def acceptance_probability(target_probs, draft_probs, num_candidates):
    """P(one of k i.i.d. candidates is accepted) = 1 - prod_j sum_x max(r_j(x) - q(x), 0)."""
    _check_probs(target_probs, draft_probs, 2)
    if isinstance(num_candidates, bool) or not isinstance(num_candidates, int) or num_candidates < 1:
        raise ValueError("num_candidates must be an int >= 1")
    r, q = target_probs, draft_probs
    all_rejected = torch.ones(r.shape[0], dtype=r.dtype, device=r.device)
    for _ in range(num_candidates):
        all_rejected = all_rejected * (r - q).clamp(min=0).sum(dim=-1)
        r = _next_residual(r, q)
    return 1 - all_rejected


def _try_candidates(r, q, candidates, uniforms, active):
    """The rule on every active row: (accepted index or -1, final residual)."""
    index = torch.full(candidates.shape[:1], -1, dtype=torch.int64, device=r.device)
    for i in range(candidates.shape[1]):
        x = candidates[:, i : i + 1]
        waiting = active & (index < 0)
        accept = waiting & (uniforms[:, i] * q.gather(1, x).squeeze(1) < r.gather(1, x).squeeze(1))
        index = torch.where(accept, i, index)
        r = torch.where((waiting & ~accept).unsqueeze(1), _next_residual(r, q), r)
    return index, r


def verify_candidates(target_probs, draft_probs, candidates, generator=None):
    """Verify k candidates per row: (accepted index int64 [B] or -1, emitted token int64 [B])."""
    p, q = target_probs, draft_probs
    _check_probs(p, q, 2)
    batch, vocab = p.shape
    _check_tokens(candidates, "candidates", batch, vocab)
    if (q.gather(1, candidates) <= 0).any():
        raise ValueError("a candidate has draft probability 0: it cannot have been drawn from q")
    u = torch.rand(candidates.shape, dtype=p.dtype, device=p.device, generator=generator)
    active = torch.ones(batch, dtype=torch.bool, device=p.device)
    index, residual = _try_candidates(p, q, candidates, u, active)
    drawn = torch.multinomial(residual, 1, generator=generator).squeeze(1)
    chosen = candidates.gather(1, index.clamp(min=0).unsqueeze(1)).squeeze(1)
    return index, torch.where(index >= 0, chosen, drawn)


def _tree_shape(parents, size):
    if not isinstance(parents, torch.Tensor) or parents.dim() != 1 or parents.dtype != torch.int64:
        raise ValueError("parents must be a 1-D int64 tensor [N]")
    if parents.shape[0] != size or size < 1:
        raise ValueError("parents must have one entry per tree node, N >= 1")
    parent = parents.tolist()
    if any(not -1 <= a < n for n, a in enumerate(parent)):
        raise ValueError("parents[n] must be -1 or an earlier node (in [-1, n-1])")
    depth = []
    for a in parent:
        depth.append(1 if a < 0 else depth[a] + 1)
    return parent, depth


def verify_tree(parents, tree_tokens, target_probs, draft_probs, generator=None):
    """Walk a draft tree from the root: (tokens [B, D+1], num_accepted [B], last_node [B])."""
    p, q = target_probs, draft_probs
    _check_probs(p, q, 3)
    batch, rows, vocab = p.shape
    _check_tokens(tree_tokens, "tree_tokens", batch, vocab)
    size = tree_tokens.shape[1]
    if rows != size + 1:
        raise ValueError("target_probs and draft_probs must be [B, N+1, V] for N tree nodes")
    parent, depth = _tree_shape(parents, size)
    node_rows = torch.tensor([a + 1 for a in parent], dtype=torch.int64, device=p.device)
    q_nodes = q.index_select(1, node_rows)  # [B, N, V]: the draft each node was drawn from
    if (q_nodes.gather(2, tree_tokens.unsqueeze(2)) <= 0).any():
        raise ValueError("a tree token has draft probability 0: it cannot have been drawn from q")

    u = torch.rand(batch, size, dtype=p.dtype, device=p.device, generator=generator)
    at = torch.zeros(batch, dtype=torch.int64, device=p.device)  # the row of the node reached
    final = p[:, 0].clone()
    for row in range(size + 1):
        here = at == row
        kids = [n for n, a in enumerate(parent) if a + 1 == row]
        if not kids:
            final = torch.where(here.unsqueeze(1), p[:, row], final)  # a leaf: the bonus from p
            continue
        index, residual = _try_candidates(p[:, row], q[:, row], tree_tokens[:, kids], u[:, kids], here)
        final = torch.where((here & (index < 0)).unsqueeze(1), residual, final)
        child_rows = torch.tensor(kids, dtype=torch.int64, device=p.device) + 1
        at = torch.where(here & (index >= 0), child_rows[index.clamp(min=0)], at)
    extra = torch.multinomial(final, 1, generator=generator).squeeze(1)

    last_node = at - 1
    depth_of = torch.tensor([0, *depth], dtype=torch.int64, device=p.device)
    num_accepted = depth_of[at]
    longest = max(depth)
    path = [[PAD] * longest]  # path[row][j]: the node at depth j + 1 on the way to that row
    for n, a in enumerate(parent):
        above = path[a + 1][: depth[n] - 1]
        path.append([*above, n] + [PAD] * (longest - depth[n]))
    nodes = torch.tensor(path, dtype=torch.int64, device=p.device)[at]  # [B, D]
    walked = tree_tokens.gather(1, nodes.clamp(min=0))
    tokens = torch.full((batch, longest + 1), PAD, dtype=torch.int64, device=p.device)
    tokens[:, :longest] = torch.where(nodes >= 0, walked, PAD)
    tokens.scatter_(1, num_accepted.unsqueeze(1), extra.unsqueeze(1))
    return tokens, num_accepted, last_node
