"""Reference solution for exercise 42: sequence log-probability, greedy decoding and beam search."""

import torch


def sequence_log_prob(logits, tokens, mask):
    """log P(tokens) per row: the sum over real positions of log_softmax(logits[b, t])[tokens[b, t]]."""
    if not isinstance(logits, torch.Tensor) or logits.dim() != 3 or not logits.is_floating_point():
        raise ValueError("logits must be a floating tensor [B, T, V]")
    batch, length, vocab = logits.shape
    if not isinstance(tokens, torch.Tensor) or tokens.dtype != torch.int64 or tuple(tokens.shape) != (batch, length):
        raise ValueError(f"tokens must be an int64 tensor of shape [{batch}, {length}]")
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool or tuple(mask.shape) != (batch, length):
        raise ValueError(f"mask must be a bool tensor of shape [{batch}, {length}]")
    if vocab == 0:
        raise ValueError("the vocabulary must not be empty")
    outside = mask & ((tokens < 0) | (tokens >= vocab))
    if bool(outside.any()):
        raise ValueError("a real (unmasked) token lies outside [0, V)")
    log_probs = torch.log_softmax(logits, dim=-1)  # over the vocabulary, in log space
    safe = torch.where(mask, tokens, torch.zeros_like(tokens))  # padded ids may be anything
    picked = log_probs.gather(2, safe.unsqueeze(-1)).squeeze(-1)
    # select, never multiply: padded positions may hold NaN or inf, and NaN * 0 is NaN
    return torch.where(mask, picked, torch.zeros_like(picked)).sum(dim=1)


def _check_model(start_logits, transition_logits, eos_id, max_len):
    if not isinstance(start_logits, torch.Tensor) or start_logits.dim() != 2 or not start_logits.is_floating_point():
        raise ValueError("start_logits must be a floating tensor [B, V]")
    batch, vocab = start_logits.shape
    if (
        not isinstance(transition_logits, torch.Tensor)
        or transition_logits.dtype != start_logits.dtype
        or tuple(transition_logits.shape) != (batch, vocab, vocab)
    ):
        raise ValueError(f"transition_logits must be a tensor [{batch}, {vocab}, {vocab}] of the dtype of start_logits")
    if vocab < 2:
        raise ValueError("the vocabulary needs at least two tokens")
    if not bool(torch.isfinite(start_logits).all()) or not bool(torch.isfinite(transition_logits).all()):
        raise ValueError("logits must be finite")
    if isinstance(eos_id, bool) or not isinstance(eos_id, int) or not 0 <= eos_id < vocab:
        raise ValueError(f"eos_id must be an int in [0, {vocab})")
    if isinstance(max_len, bool) or not isinstance(max_len, int) or max_len < 1:
        raise ValueError("max_len must be an int >= 1")
    return batch, vocab


def greedy_decode(start_logits, transition_logits, eos_id, max_len, pad_id):
    """The most likely next token at every step (the lowest id among tied maxima), until EOS or max_len."""
    batch, vocab = _check_model(start_logits, transition_logits, eos_id, max_len)
    device = start_logits.device
    start_lp = torch.log_softmax(start_logits, dim=-1)
    trans_lp = torch.log_softmax(transition_logits, dim=-1)  # over the NEXT token (last axis)
    tokens = torch.full((batch, max_len), pad_id, dtype=torch.int64, device=device)
    total = torch.zeros(batch, dtype=start_logits.dtype, device=device)
    done = torch.zeros(batch, dtype=torch.bool, device=device)
    previous = None
    for t in range(max_len):
        if previous is None:
            step = start_lp
        else:
            step = trans_lp.gather(1, previous.view(batch, 1, 1).expand(batch, 1, vocab)).squeeze(1)
        best = step.argmax(dim=1)  # the first maximum
        gain = step.gather(1, best.unsqueeze(1)).squeeze(1)
        tokens[:, t] = torch.where(done, torch.full_like(best, pad_id), best)
        total = total + torch.where(done, torch.zeros_like(gain), gain)
        done = done | (best == eos_id)
        previous = best
        if bool(done.all()):
            break
    return tokens, total


def _lexicographic_first(sequences, scores):
    """Per row, the index of the best score; equal scores go to the lexicographically smaller sequence."""
    batch, width, length = sequences.shape
    order = torch.arange(width, device=sequences.device).expand(batch, width)
    for column in reversed(range(length)):  # least significant column first: a radix sort
        keys = sequences[:, :, column].gather(1, order)
        order = order.gather(1, torch.sort(keys, dim=1, stable=True).indices)
    ranked = scores.gather(1, order)
    order = order.gather(1, torch.sort(ranked, dim=1, descending=True, stable=True).indices)
    return order[:, 0]


def beam_search(start_logits, transition_logits, eos_id, max_len, pad_id, beam_width, length_penalty):
    """Shrinking beam search; returns the best finished hypothesis per row and its penalized score."""
    batch, vocab = _check_model(start_logits, transition_logits, eos_id, max_len)
    if isinstance(beam_width, bool) or not isinstance(beam_width, int) or not 1 <= beam_width <= vocab:
        raise ValueError(f"beam_width must be an int in [1, {vocab}]")
    alpha = float(length_penalty)
    if not alpha >= 0 or alpha == float("inf"):
        raise ValueError("length_penalty must be a finite number >= 0")
    width, device, dtype = beam_width, start_logits.device, start_logits.dtype
    start_lp = torch.log_softmax(start_logits, dim=-1)
    trans_lp = torch.log_softmax(transition_logits, dim=-1)
    neg_inf = float("-inf")

    # Alive hypotheses, kept in lexicographic order with dead slots (-inf) at the end, so that a
    # candidate's flat index (slot * V + token) orders candidates lexicographically.
    alive = torch.full((batch, width, max_len), pad_id, dtype=torch.int64, device=device)
    alive_lp = torch.full((batch, width), neg_inf, dtype=dtype, device=device)
    alive_lp[:, 0] = 0.0  # one empty prefix, never width copies of it
    pool = torch.full((batch, width + 1, max_len), pad_id, dtype=torch.int64, device=device)
    pool_lp = torch.full((batch, width + 1), neg_inf, dtype=dtype, device=device)
    pool_len = torch.ones((batch, width + 1), dtype=torch.int64, device=device)
    finished = torch.zeros(batch, dtype=torch.int64, device=device)
    slots = torch.arange(width, device=device).expand(batch, width)
    flat = width * vocab
    for t in range(max_len):
        if t == 0:
            step = start_lp.unsqueeze(1).expand(batch, width, vocab)
        else:
            last = alive[:, :, t - 1]  # step t - 1 wrote a token in [0, V) into every slot
            step = trans_lp.gather(1, last.unsqueeze(-1).expand(batch, width, vocab))
        candidates = (alive_lp.unsqueeze(-1) + step).reshape(batch, flat)
        # Stable: equal log-probabilities keep flat (= lexicographic) order.
        best = torch.sort(candidates, dim=1, descending=True, stable=True).indices[:, :width]
        wanted = slots < (width - finished).unsqueeze(1)  # the beam shrinks by one per finished hypothesis
        chosen = torch.sort(torch.where(wanted, best, torch.full_like(best, flat)), dim=1).values
        valid = chosen < flat
        chosen = chosen.clamp(max=flat - 1)
        parent, token = chosen // vocab, chosen % vocab
        lp = candidates.gather(1, chosen)
        sequences = alive.gather(1, parent.unsqueeze(-1).expand(batch, width, max_len)).clone()
        sequences[:, :, t] = token
        ended = valid & (token == eos_id)
        going = valid & (token != eos_id)
        joins = ended | going if t == max_len - 1 else ended  # the last step's survivors join the pool
        position = torch.where(
            joins, finished.unsqueeze(1) + joins.long().cumsum(1) - 1, torch.full_like(chosen, width)
        )  # slot `width` is a bin
        pool.scatter_(1, position.unsqueeze(-1).expand(batch, width, max_len), sequences)
        pool_lp.scatter_(1, position, lp)
        pool_len.scatter_(1, position, torch.full_like(position, t + 1))
        finished = finished + joins.long().sum(1)
        order = torch.sort(torch.where(going, slots, slots + width), dim=1).indices  # survivors first, in order
        alive = sequences.gather(1, order.unsqueeze(-1).expand(batch, width, max_len))
        alive_lp = torch.where(going.gather(1, order), lp.gather(1, order), torch.full_like(lp, neg_inf))
        if not bool(going.any()):
            break
    pool, pool_lp, pool_len = pool[:, :width], pool_lp[:, :width], pool_len[:, :width]
    scores = pool_lp / pool_len.to(dtype) ** alpha
    pick = _lexicographic_first(pool, scores)
    tokens = pool.gather(1, pick.view(batch, 1, 1).expand(batch, 1, max_len)).squeeze(1)
    return tokens, scores.gather(1, pick.unsqueeze(1)).squeeze(1)
