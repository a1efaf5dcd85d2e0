"""Mistake: generate_constrained checks every state reachable within num_steps - 1 moves up front and raises
if any has nothing to draw, even when no row happens to go there (red team, issue 36).

Diagnosis: generate_constrained raised ValueError in every call for a dead state that a row reaches only along
some paths: decide from the state each row is really in at each step, not from the states it could reach
"""

from __future__ import annotations

import torch


def _check_transitions(transitions):
    if not isinstance(transitions, torch.Tensor) or transitions.dim() != 2 or transitions.dtype != torch.int64:
        raise ValueError("transitions must be a 2-D int64 tensor")
    S, V = transitions.shape
    if S < 1 or V < 1:
        raise ValueError("transitions must have S >= 1 and V >= 1")
    if transitions.numel() and (bool((transitions < -1).any()) or bool((transitions >= S).any())):
        raise ValueError("transitions holds an entry below -1 or >= S")
    return S, V


def _check_states(states, S, name="states"):
    if not isinstance(states, torch.Tensor) or states.dim() != 1 or states.dtype != torch.int64:
        raise ValueError(f"{name} must be a 1-D int64 tensor")
    if states.numel() and (bool((states < 0).any()) or bool((states >= S).any())):
        raise ValueError(f"{name} holds a value outside [0, S)")
    return states.shape[0]


def _check_logits(logits, shape, name="logits"):
    if not isinstance(logits, torch.Tensor) or logits.dim() != 2 or logits.dtype not in (torch.float32, torch.float64):
        raise ValueError(f"{name} must be a 2-D float32 or float64 tensor")
    if tuple(logits.shape) != tuple(shape):
        raise ValueError(f"{name} has shape {tuple(logits.shape)}, expected {tuple(shape)}")
    if bool(torch.isnan(logits).any()):
        raise ValueError(f"{name} contains NaN")
    if bool((logits == float("inf")).any()):
        raise ValueError(f"{name} contains +inf")


def _param(x, B, name, device, dtype):
    if isinstance(x, torch.Tensor):
        if x.dim() != 1 or x.shape[0] != B:
            raise ValueError(f"{name} tensor must be 1-D of length {B}")
        return x.to(device=device, dtype=dtype).clone()
    return torch.full((B,), float(x), dtype=dtype, device=device)


def _params(B, device, temperature, top_k, top_p):
    t = _param(temperature, B, "temperature", device, torch.float64)
    k = _param(top_k, B, "top_k", device, torch.float64)
    p = _param(top_p, B, "top_p", device, torch.float64)
    if bool(torch.isnan(t).any()) or bool(torch.isinf(t).any()) or bool((t < 0).any()):
        raise ValueError("temperature must be finite and >= 0")
    if bool(torch.isnan(k).any()) or bool((k < 0).any()):
        raise ValueError("top_k must be >= 0")
    if bool(torch.isnan(p).any()) or bool((p <= 0).any()) or bool((p > 1).any()):
        raise ValueError("top_p must lie in (0, 1]")
    return t, k, p


def allowed_mask(transitions, states):
    S, V = _check_transitions(transitions)
    _check_states(states, S)
    return transitions[states] >= 0


def _probs(logits, transitions, states, temperature, top_k, top_p):
    S, V = _check_transitions(transitions)
    B = _check_states(states, S)
    _check_logits(logits, (B, V))
    t, k, p = _params(B, logits.device, temperature, top_k, top_p)
    mask = transitions[states] >= 0
    dtype = logits.dtype
    neg = torch.tensor(float("-inf"), dtype=dtype, device=logits.device)
    z = torch.where(mask, logits, neg)
    finite = torch.isfinite(z)
    bad = ~finite.any(dim=1)
    if bool(bad.any()):
        r = int(bad.nonzero()[0, 0])
        raise ValueError(f"row {r}: no allowed token has a finite logit (state {int(states[r])})")
    zmax = z.max(dim=1, keepdim=True).values
    greedy = t == 0
    tt = torch.where(greedy, torch.ones_like(t), t).to(dtype).unsqueeze(1)
    e = torch.exp((z - zmax) / tt)
    probs = e / e.sum(dim=1, keepdim=True)
    # top-k
    sp, idx = probs.sort(dim=1, descending=True, stable=True)
    kk = k.clone()
    use_k = (kk > 0) & (kk < V)
    kidx = torch.clamp(kk, 1, V).long() - 1
    kth = sp.gather(1, kidx.unsqueeze(1))
    keep = torch.where(use_k.unsqueeze(1), probs >= kth, torch.ones_like(mask))
    probs = torch.where(keep, probs, torch.zeros_like(probs))
    probs = probs / probs.sum(dim=1, keepdim=True)
    # top-p
    sp, idx = probs.sort(dim=1, descending=True, stable=True)
    before = sp.cumsum(dim=1) - sp
    keep_sorted = before < p.to(dtype).unsqueeze(1)
    keep_sorted = keep_sorted | (p == 1).unsqueeze(1)
    keep_sorted[:, 0] = True
    keep = torch.zeros_like(keep_sorted).scatter(1, idx, keep_sorted)
    probs = torch.where(keep, probs, torch.zeros_like(probs))
    probs = probs / probs.sum(dim=1, keepdim=True)
    # greedy
    if bool(greedy.any()):
        am = z == zmax
        first = am.to(torch.int64).argmax(dim=1)  # lowest index of max
        onehot = torch.zeros_like(probs).scatter(1, first.unsqueeze(1), 1.0)
        probs = torch.where(greedy.unsqueeze(1), onehot, probs)
    return probs


def constrained_probs(logits, transitions, states, temperature=1.0, top_k=0, top_p=1.0):
    return _probs(logits, transitions, states, temperature, top_k, top_p)


def _draw(probs, generator):
    B, V = probs.shape
    u = torch.rand(B, 1, dtype=probs.dtype, device=probs.device, generator=generator)
    cdf = probs.cumsum(dim=1)
    total = cdf[:, -1:]
    # strictly greater than u*total: a zero-probability token never gets hit at u=0
    tok = (cdf <= u * total).sum(dim=1)
    # clamp to the last positive token in case of rounding
    last_pos = V - 1 - (probs > 0).flip(1).to(torch.int64).argmax(dim=1)
    tok = torch.minimum(tok, last_pos)
    return tok


def sample_constrained(logits, transitions, states, temperature=1.0, top_k=0, top_p=1.0, generator=None):
    probs = _probs(logits, transitions, states, temperature, top_k, top_p)
    tok = _draw(probs, generator)
    nxt = transitions[states, tok]
    return tok.to(torch.int64), nxt.to(torch.int64)


def generate_constrained(state_logits, transitions, start_states, num_steps, generator=None):
    S, V = _check_transitions(transitions)
    B = _check_states(start_states, S, "start_states")
    _check_logits(state_logits, (S, V), "state_logits")
    if not isinstance(num_steps, int) or isinstance(num_steps, bool) or num_steps < 1:
        raise ValueError("num_steps must be an int >= 1")
    ok = (transitions >= 0) & torch.isfinite(state_logits)
    drawable = ok.any(dim=1)
    frontier = torch.zeros(S, dtype=torch.bool, device=transitions.device)
    frontier[start_states] = True
    seen = frontier.clone()
    for _ in range(num_steps - 1):
        nxt = torch.zeros_like(frontier)
        for s_ in frontier.nonzero().flatten().tolist():
            tgt = transitions[s_][ok[s_]]
            nxt[tgt] = True
        frontier = nxt & ~seen
        seen |= nxt
    if bool((seen & ~drawable).any()):
        raise ValueError(f"state {int((seen & ~drawable).nonzero()[0, 0])} is reachable and has nothing to draw")
    out = torch.empty((B, num_steps), dtype=torch.int64, device=state_logits.device)
    s = start_states.clone()
    for t in range(num_steps):
        tok, s = sample_constrained(state_logits[s], transitions, s, generator=generator)
        out[:, t] = tok
    return out
