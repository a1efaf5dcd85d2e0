"""Correct, another algorithm: one row at a time in plain Python floats (float64), a uniform per tried
candidate from ``torch.rand``, and an inverse CDF over the row's own cumulative sum for the final draw
(clamped to the last token of positive mass, so no uniform reaches a token of probability 0).

It keeps the residual as a list and walks the tree with an explicit stack of children; slower than the
vectorised reference, but every step is the statement's sentence as written.
"""

import torch

PAD = -1
FLOATS = (torch.float32, torch.float64)


def _probabilities(target_probs, draft_probs, rank):
    for value in (target_probs, draft_probs):
        if not isinstance(value, torch.Tensor) or value.dim() != rank or value.dtype not in FLOATS:
            raise ValueError("probabilities must be float32 or float64 tensors of the documented rank")
    if target_probs.dtype != draft_probs.dtype or target_probs.shape != draft_probs.shape:
        raise ValueError("target_probs and draft_probs must share dtype and shape")
    for value in (target_probs, draft_probs):
        if bool(torch.isnan(value).any()) or bool(torch.isinf(value).any()) or bool((value < 0).any()):
            raise ValueError("probabilities must be finite and >= 0")
    if bool((target_probs.amax(dim=-1) <= 0).any()):
        raise ValueError("a target row has no positive entry")
    return target_probs.detach().cpu().double().tolist(), draft_probs.detach().cpu().double().tolist()


def _ids(tokens, batch, vocab):
    if not isinstance(tokens, torch.Tensor) or tokens.dtype != torch.int64 or tokens.dim() != 2:
        raise ValueError("token ids must be a 2-D int64 tensor")
    if tokens.shape[0] != batch or tokens.shape[1] == 0:
        raise ValueError("token ids must be [B, n] with n >= 1")
    ids = tokens.cpu().tolist()
    if any(t < 0 or t >= vocab for line in ids for t in line):
        raise ValueError("token ids must lie in [0, V)")
    return ids


def _residual(r, q):
    mass = [max(0.0, a - b) for a, b in zip(r, q)]
    total = sum(mass)
    return [m / total for m in mass] if total > 0 else r


def _pick(row, u):
    """Inverse CDF of ``row`` normalised by its own sum, never past its last positive entry."""
    total = sum(row)
    last = max(i for i, v in enumerate(row) if v > 0)
    running = 0.0
    for i, v in enumerate(row):
        running += v
        if v > 0 and u * total < running:
            return i
    return last


def acceptance_probability(target_probs, draft_probs, num_candidates):
    p, q = _probabilities(target_probs, draft_probs, 2)
    if type(num_candidates) is not int or num_candidates < 1:
        raise ValueError("num_candidates must be an int >= 1")
    out = []
    for r, d in zip(p, q):
        rejected = 1.0
        for _ in range(num_candidates):
            rejected *= sum(max(0.0, a - b) for a, b in zip(r, d))
            r = _residual(r, d)
        out.append(1.0 - rejected)
    return torch.tensor(out, dtype=target_probs.dtype, device=target_probs.device)


def _rule(r, q, tokens, uniform):
    """(index of the accepted candidate or -1, the final residual)."""
    for i, x in enumerate(tokens):
        if uniform() * q[x] < r[x]:
            return i, r
        r = _residual(r, q)
    return -1, r


def verify_candidates(target_probs, draft_probs, candidates, generator=None):
    p, q = _probabilities(target_probs, draft_probs, 2)
    batch, vocab = target_probs.shape
    ids = _ids(candidates, batch, vocab)
    if any(q[b][x] <= 0 for b in range(batch) for x in ids[b]):
        raise ValueError("a candidate has draft probability 0")
    device = target_probs.device

    def uniform():
        return float(torch.rand((), dtype=torch.float64, device=device, generator=generator))

    index, token = [], []
    for b in range(batch):
        i, r = _rule(p[b], q[b], ids[b], uniform)
        index.append(i)
        token.append(ids[b][i] if i >= 0 else _pick(r, uniform()))
    return torch.tensor(index, device=device), torch.tensor(token, device=device)


def verify_tree(parents, tree_tokens, target_probs, draft_probs, generator=None):
    p, q = _probabilities(target_probs, draft_probs, 3)
    batch, rows, vocab = target_probs.shape
    ids = _ids(tree_tokens, batch, vocab)
    size = len(ids[0])
    if not isinstance(parents, torch.Tensor) or parents.dtype != torch.int64 or parents.dim() != 1:
        raise ValueError("parents must be a 1-D int64 tensor")
    parent = parents.cpu().tolist()
    if len(parent) != size or rows != size + 1:
        raise ValueError("parents [N], tree_tokens [B, N], probabilities [B, N+1, V]")
    if any(a < -1 or a >= n for n, a in enumerate(parent)):
        raise ValueError("parents[n] must lie in [-1, n-1]")
    if any(q[b][parent[n] + 1][ids[b][n]] <= 0 for b in range(batch) for n in range(size)):
        raise ValueError("a tree token has draft probability 0")
    children = [[n for n in range(size) if parent[n] + 1 == row] for row in range(size + 1)]
    depth = []
    for a in parent:
        depth.append(1 if a < 0 else depth[a] + 1)
    device = target_probs.device

    def uniform():
        return float(torch.rand((), dtype=torch.float64, device=device, generator=generator))

    tokens, num, last = [], [], []
    for b in range(batch):
        row, path = 0, []
        while True:
            kids = children[row]
            if not kids:
                final = _pick(p[b][row], uniform())
                break
            i, r = _rule(p[b][row], q[b][row], [ids[b][n] for n in kids], uniform)
            if i < 0:
                final = _pick(r, uniform())
                break
            row = kids[i] + 1
            path.append(ids[b][kids[i]])
        line = [*path, final] + [PAD] * (max(depth) - len(path))
        tokens.append(line)
        num.append(len(path))
        last.append(row - 1)
    return (
        torch.tensor(tokens, dtype=torch.int64, device=device),
        torch.tensor(num, dtype=torch.int64, device=device),
        torch.tensor(last, dtype=torch.int64, device=device),
    )
