"""Mistake: the length in the penalty is counted on the padded output, as the positions that differ from pad_id;
right when pad_id is -1, wrong when pad_id is EOS or a real token that the sequence uses.

Diagnosis: the length in the penalty is read back from the padded tokens (positions != pad_id), so it is wrong
when pad_id equals EOS or a real token; count the tokens of the hypothesis itself
"""

import math

import torch


def sequence_log_prob(logits, tokens, mask):
    if not isinstance(logits, torch.Tensor) or logits.dim() != 3 or not logits.is_floating_point():
        raise ValueError("logits must be a floating tensor [B, T, V]")
    batch, length, vocab = logits.shape
    if not isinstance(tokens, torch.Tensor) or tokens.dtype != torch.int64 or tuple(tokens.shape) != (batch, length):
        raise ValueError("tokens must be int64 [B, T]")
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool or tuple(mask.shape) != (batch, length):
        raise ValueError("mask must be bool [B, T]")
    ids, real = tokens.tolist(), mask.tolist()
    out = torch.zeros(batch, dtype=logits.dtype, device=logits.device)
    for b in range(batch):
        positions = [t for t in range(length) if real[b][t]]
        for t in positions:
            if not 0 <= ids[b][t] < vocab:
                raise ValueError(f"row {b}, position {t}: token {ids[b][t]} outside [0, {vocab})")
        if positions:
            index = torch.tensor(positions, device=logits.device)
            rows = logits[b].index_select(0, index)  # only the real positions: padding never enters
            chosen = torch.tensor([ids[b][t] for t in positions], device=logits.device)
            picked = rows.gather(1, chosen.unsqueeze(1)).squeeze(1)
            out[b] = (picked - torch.logsumexp(rows, dim=1)).sum()
    return out


def _validate(start_logits, transition_logits, eos_id, max_len):
    if not isinstance(start_logits, torch.Tensor) or start_logits.dim() != 2 or not start_logits.is_floating_point():
        raise ValueError("start_logits must be a floating [B, V] tensor")
    batch, vocab = start_logits.shape
    if (
        not isinstance(transition_logits, torch.Tensor)
        or transition_logits.dtype != start_logits.dtype
        or tuple(transition_logits.shape) != (batch, vocab, vocab)
    ):
        raise ValueError("transition_logits must be [B, V, V] with the dtype of start_logits")
    if vocab < 2:
        raise ValueError("V must be at least 2")
    if not torch.isfinite(start_logits).all() or not torch.isfinite(transition_logits).all():
        raise ValueError("every logit must be finite")
    if type(eos_id) is not int or not 0 <= eos_id < vocab:
        raise ValueError("eos_id must be an int in [0, V)")
    if type(max_len) is not int or max_len < 1:
        raise ValueError("max_len must be an int >= 1")


def _tables(start_logits, transition_logits, b):
    start = torch.log_softmax(start_logits[b].double(), dim=-1).tolist()
    trans = torch.log_softmax(transition_logits[b].double(), dim=-1).tolist()
    return start, trans


def greedy_decode(start_logits, transition_logits, eos_id, max_len, pad_id):
    _validate(start_logits, transition_logits, eos_id, max_len)
    batch = start_logits.shape[0]
    tokens, scores = [], []
    for b in range(batch):
        start, trans = _tables(start_logits, transition_logits, b)
        row, seq, total = start, [], 0.0
        while len(seq) < max_len:
            best = max(range(len(row)), key=lambda v: (row[v], -v))
            seq.append(best)
            total += row[best]
            if best == eos_id:
                break
            row = trans[best]
        tokens.append(seq + [pad_id] * (max_len - len(seq)))
        scores.append(total)
    device = start_logits.device
    return torch.tensor(tokens, dtype=torch.int64, device=device), torch.tensor(
        scores, dtype=start_logits.dtype, device=device
    )


def beam_search(start_logits, transition_logits, eos_id, max_len, pad_id, beam_width=4, length_penalty=1.0):
    _validate(start_logits, transition_logits, eos_id, max_len)
    batch, vocab = start_logits.shape
    if type(beam_width) is not int or not 1 <= beam_width <= vocab:
        raise ValueError("beam_width must be an int in [1, V]")
    alpha = float(length_penalty)
    if not (alpha >= 0 and math.isfinite(alpha)):
        raise ValueError("length_penalty must be finite and >= 0")
    tokens, scores = [], []
    for b in range(batch):
        start, trans = _tables(start_logits, transition_logits, b)
        beam, finished = [(0.0, ())], []
        for step in range(max_len):
            candidates = [
                (lp + (start if not seq else trans[seq[-1]])[v], seq + (v,)) for lp, seq in beam for v in range(vocab)
            ]
            kept = sorted(candidates, key=lambda c: (-c[0], c[1]))[: beam_width - len(finished)]
            last = step == max_len - 1
            finished += [c for c in kept if c[1][-1] == eos_id or last]
            beam = [c for c in kept if c[1][-1] != eos_id and not last]
            if not beam:
                break

        def padded(seq):
            return list(seq) + [pad_id] * (max_len - len(seq))

        def length(seq):  # the mistake: the length read back from the padded row
            return max(sum(1 for x in padded(seq) if x != pad_id), 1)

        lp, best = min(finished, key=lambda c: (-(c[0] / length(c[1]) ** alpha), c[1]))
        tokens.append(padded(best))
        scores.append(lp / length(best) ** alpha)
    device = start_logits.device
    return torch.tensor(tokens, dtype=torch.int64, device=device), torch.tensor(
        scores, dtype=start_logits.dtype, device=device
    )
