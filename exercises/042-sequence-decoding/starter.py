"""Exercise 42: sequence probability, greedy decoding and beam search."""

# [cli en] The full contract and how you are judged: `python practice/judge.py show 42`.
# [cli en] Judge your work with `python practice/judge.py test 42`.
# [cli zh] 完整的要求和评测方式：`python practice/judge.py show 42 --lang zh`。
# [cli zh] 用 `python practice/judge.py test 42 --lang zh` 评测你的代码。

from __future__ import annotations

import torch


def sequence_log_prob(logits: torch.Tensor, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Return log P of each row's real tokens.

    Args:
        logits: float32 or float64 tensor [B, T, V]; logits[b, t] scores tokens[b, t] (no shift).
        tokens: int64 tensor [B, T]; at padded positions any integer (e.g. -100).
        mask: bool tensor [B, T]; True for a real token. Padded logits may be NaN or inf.

    Returns:
        Tensor [B] with the dtype and device of `logits`: the sum over real positions of
        log_softmax(logits[b, t])[tokens[b, t]] (over the vocabulary); 0 for a row without one.

    Raises:
        ValueError: logits not floating 3-D, tokens not int64 [B, T], mask not bool [B, T],
            or a real token outside [0, V).
    """
    # [en] TODO: log_softmax over the last axis, gather the tokens, select the real positions.
    # [zh] TODO：在最后一维上做 log_softmax，取出各 token 的值，只保留真实位置。
    raise NotImplementedError


def greedy_decode(
    start_logits: torch.Tensor, transition_logits: torch.Tensor, eos_id: int, max_len: int, pad_id: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Always take the most likely next token (the lowest id among tied maxima).

    Args:
        start_logits: float tensor [B, V], logits of the first token.
        transition_logits: float tensor [B, V, V]; [b, i, j] is the logit of next token j after
            token i (normalize over the last axis).
        eos_id: the end-of-sequence token, an int in [0, V); it counts as a token.
        max_len: at most this many tokens, EOS included (an int >= 1).
        pad_id: fills every position after the sequence (any int of int64's range; never read it back).

    Returns:
        (tokens, scores): int64 [B, max_len] and [B] (dtype of the logits), the log-probability
        of the returned sequence.

    Raises:
        ValueError: bad shapes or dtypes, V < 2, non-finite logits, eos_id not an int in [0, V), max_len
            not an int >= 1 (a bool or a float such as 2.0 is not an int here).
    """
    # TODO
    raise NotImplementedError


def beam_search(
    start_logits: torch.Tensor,
    transition_logits: torch.Tensor,
    eos_id: int,
    max_len: int,
    pad_id: int,
    beam_width: int,
    length_penalty: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The statement's shrinking beam search; the best finished hypothesis per row.

    The beam starts with one empty prefix. At each step keep the k = beam_width - finished
    candidates with the highest log-probability (ties: lexicographically smaller sequence);
    those ending with EOS (and, at the last step, all of them) are finished. Score each finished
    hypothesis as log p / L ** length_penalty, L counting EOS; return the best.

    Returns:
        (tokens, scores): int64 [B, max_len] padded with pad_id, and [B] (dtype of the logits).

    Raises:
        ValueError: as greedy_decode, plus beam_width not an int in [1, V], or a negative, NaN or
            infinite length_penalty (an int or a float).
    """
    # TODO
    raise NotImplementedError
