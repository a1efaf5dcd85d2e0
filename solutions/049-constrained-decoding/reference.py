"""Reference solution for exercise 49: constrained decoding with a token automaton.

The automaton is a tensor ``transitions`` [S, V] of int64: ``transitions[s, v]`` is the state after token v
in state s, or -1 when v is not allowed there. Masking comes first (disallowed logits become -inf), then
temperature, softmax, top-k and top-p on what is left, each followed by renormalizing; then the draw.
"""

import torch


def _per_row(value, batch, name, device):
    """A parameter as a float64 [B, 1] column: a Python number, or a 1-D tensor with one value per row."""
    if isinstance(value, torch.Tensor):
        if value.dim() != 1 or value.shape[0] != batch:
            raise ValueError(f"{name} must be a number or a 1-D tensor of length {batch}, got {list(value.shape)}")
        column = value.to(device=device, dtype=torch.float64)
    else:
        column = torch.full((batch,), float(value), dtype=torch.float64, device=device)
    if not torch.isfinite(column).all():
        raise ValueError(f"{name} must be finite, got NaN or infinity")
    return column.unsqueeze(1)


def _check_automaton(transitions, states, name="states"):
    if not isinstance(transitions, torch.Tensor) or transitions.dim() != 2 or transitions.dtype != torch.int64:
        raise ValueError("transitions must be a 2-D int64 tensor [S, V]")
    num_states = transitions.shape[0]
    if ((transitions < -1) | (transitions >= num_states)).any():
        raise ValueError(f"transitions entries must be -1 or a state in [0, {num_states})")
    if not isinstance(states, torch.Tensor) or states.dim() != 1 or states.dtype != torch.int64:
        raise ValueError(f"{name} must be a 1-D int64 tensor [B]")
    if ((states < 0) | (states >= num_states)).any():
        raise ValueError(f"{name} must lie in [0, {num_states}); -1 is not a state")


def _check_logits(logits, transitions, states, name="logits"):
    if not isinstance(logits, torch.Tensor) or logits.dim() != 2:
        raise ValueError(f"{name} must be a 2-D tensor")
    if logits.dtype not in (torch.float32, torch.float64):
        raise ValueError(f"{name} must be float32 or float64, got {logits.dtype}")
    if logits.shape[1] != transitions.shape[1]:
        raise ValueError(f"{name} has {logits.shape[1]} tokens, transitions has {transitions.shape[1]}")
    if torch.isnan(logits).any() or torch.isposinf(logits).any():
        raise ValueError(f"{name} contains NaN or +inf")


def allowed_mask(transitions, states):
    """bool [B, V]: True where token v is allowed in row b's state (a dead state gives a row of False)."""
    _check_automaton(transitions, states)
    return transitions[states] >= 0


def _masked_logits(logits, transitions, states):
    """The logits with every disallowed token at -inf; raises for a row where nothing can be drawn."""
    mask = allowed_mask(transitions, states)
    dead = ~(mask & torch.isfinite(logits)).any(dim=1)
    if dead.any():
        rows = dead.nonzero().flatten().tolist()
        raise ValueError(f"no allowed token with a finite logit in row(s) {rows}: nothing can be drawn")
    return torch.where(mask, logits, torch.full_like(logits, float("-inf")))


def constrained_probs(logits, transitions, states, temperature=1.0, top_k=0, top_p=1.0):
    """The distribution each row is drawn from: [B, V], dtype and device of ``logits``."""
    _check_automaton(transitions, states)
    _check_logits(logits, transitions, states)
    if logits.shape[0] != states.shape[0]:
        raise ValueError(f"logits has {logits.shape[0]} rows, states has {states.shape[0]}")
    batch, vocab, device, dtype = logits.shape[0], logits.shape[1], logits.device, logits.dtype
    t = _per_row(temperature, batch, "temperature", device)
    k = _per_row(top_k, batch, "top_k", device)
    p = _per_row(top_p, batch, "top_p", device)
    if (t < 0).any():
        raise ValueError("temperature must be >= 0")
    if (k < 0).any() or (k != k.round()).any():
        raise ValueError("top_k must be a non-negative whole number")
    if ((p <= 0) | (p > 1)).any():
        raise ValueError("top_p must be in (0, 1]")
    t, k, p = t.to(dtype), k.long(), p.to(dtype)

    masked = _masked_logits(logits, transitions, states)
    greedy = t == 0
    shifted = masked - masked.max(dim=-1, keepdim=True).values
    probs = torch.softmax(shifted / torch.where(greedy, torch.ones_like(t), t), dim=-1)

    # top-k counts allowed tokens only: every disallowed one has probability 0 and sorts last.
    sorted_probs, _ = torch.sort(probs, dim=-1, descending=True, stable=True)
    k_active = (k > 0) & (k < vocab)
    kth = sorted_probs.gather(1, k.clamp(1, vocab) - 1)
    keep = ~k_active | (probs >= kth)
    probs = torch.where(keep, probs, torch.zeros_like(probs))
    probs = probs / probs.sum(dim=-1, keepdim=True)

    # top-p: keep a token while the mass strictly before it is below top_p.
    sorted_probs, order = torch.sort(probs, dim=-1, descending=True, stable=True)
    mass_before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
    keep_sorted = (mass_before < p) | (p >= 1)
    keep = torch.zeros_like(keep_sorted).scatter(1, order, keep_sorted)
    probs = torch.where(keep, probs, torch.zeros_like(probs))
    probs = probs / probs.sum(dim=-1, keepdim=True)

    # Greedy rows: one-hot at the first largest allowed logit.
    one_hot = torch.zeros_like(probs).scatter(1, masked.argmax(dim=-1, keepdim=True), 1.0)
    return torch.where(greedy, one_hot, probs)


def sample_constrained(logits, transitions, states, temperature=1.0, top_k=0, top_p=1.0, generator=None):
    """One token per row and the state it leads to: (tokens, next_states), two int64 tensors [B]."""
    probs = constrained_probs(logits, transitions, states, temperature, top_k, top_p)
    tokens = torch.multinomial(probs, 1, replacement=True, generator=generator).squeeze(1)
    return tokens, transitions[states, tokens]


def generate_constrained(state_logits, transitions, start_states, num_steps, generator=None):
    """num_steps tokens per row from the toy model whose logits in state s are state_logits[s]: int64 [B, num_steps]."""
    _check_automaton(transitions, start_states, name="start_states")
    _check_logits(state_logits, transitions, start_states, name="state_logits")
    if state_logits.shape[0] != transitions.shape[0]:
        raise ValueError(f"state_logits has {state_logits.shape[0]} states, transitions has {transitions.shape[0]}")
    if isinstance(num_steps, bool) or not isinstance(num_steps, int) or num_steps < 1:
        raise ValueError(f"num_steps must be an int >= 1, got {num_steps!r}")
    states, steps = start_states, []
    for _ in range(num_steps):
        tokens, states = sample_constrained(state_logits[states], transitions, states, generator=generator)
        steps.append(tokens)
    return torch.stack(steps, dim=1)
