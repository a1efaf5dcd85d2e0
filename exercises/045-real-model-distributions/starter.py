"""Exercise 45: a real model's next-token distributions, measured.

Every function is batched over rows and must keep its results on the device of its inputs.
"""

# [cli en] The full contract and how you are judged: `python practice/judge.py show 45`.
# [cli en] Judge your work with `python practice/judge.py test 45`.
# [cli zh] 完整的要求和评测方式：`python practice/judge.py show 45 --lang zh`。
# [cli zh] 用 `python practice/judge.py test 45 --lang zh` 评测你的代码。

from __future__ import annotations

import torch


def tokens_for_mass(logits: torch.Tensor, temperature=1.0, mass: float = 0.9) -> torch.Tensor:
    """How many of the most probable tokens it takes to hold ``mass`` of the probability.

    Args:
        logits: float32 or float64 tensor [B, V]; -inf marks an impossible token (each row has a
            finite one).
        temperature: a number > 0 (every row's), or a floating tensor [B] of numbers > 0.
        mass: a number in (0, 1).

    Returns:
        int64 tensor [B]: for each row, the smallest k such that the k largest probabilities of
        softmax(logits / T) add up to at least ``mass``.

    Raises:
        ValueError: logits not floating 2-D, a temperature <= 0 (or a tensor not of shape [B]),
            mass outside (0, 1).
    """
    # [en] TODO: softmax(logits / T) stably, sort descending, cumulative sum, count.
    # [zh] TODO：稳定地计算 softmax(logits / T)，降序排序，累加，计数。
    raise NotImplementedError


def entropy(logits: torch.Tensor, temperature=1.0) -> torch.Tensor:
    """The Shannon entropy of softmax(logits / T), in nats, per row.

    Returns a tensor [B] with the dtype of ``logits``. Tokens with a -inf logit contribute 0
    (0 x log 0 = 0). Must stay finite at low temperatures (logits / T in the hundreds).
    Raises ValueError like ``tokens_for_mass`` (there is no mass here).
    """
    # [en] TODO: work from log_softmax; never exponentiate logits / T directly.
    # [zh] TODO：从 log_softmax 出发；不要直接对 logits / T 取指数。
    raise NotImplementedError


def fake_quantize_int4(weight: torch.Tensor, group_size: int = 32) -> torch.Tensor:
    """Symmetric per-group int4 fake quantization of a linear layer's weight.

    Args:
        weight: float32 or float64 tensor [out, in]; each row is cut into groups of
            ``group_size`` consecutive entries (along the input dimension).
        group_size: a positive int that divides ``in``.

    Returns:
        A tensor of the shape and dtype of ``weight``: q x scale, with scale = max|w| / 7 over
        the group and q = round(w / scale) (torch.round: halves to even). An all-zero group
        stays zero.

    Raises:
        ValueError: weight not floating 2-D, or ``in`` not a multiple of ``group_size``.
    """
    # [en] TODO: reshape to [out, in // group_size, group_size], one scale per group.
    # [zh] TODO：reshape 成 [out, in // group_size, group_size]，每组一个 scale。
    raise NotImplementedError


def acceptance_rate(target_logits: torch.Tensor, draft_logits: torch.Tensor, temperature=1.0) -> torch.Tensor:
    """Speculative decoding's acceptance rate per row: sum_x min(p(x), q(x)).

    p = softmax(target_logits / T), q = softmax(draft_logits / T); both [B, V] of one dtype.
    Returns a tensor [B] with the dtype of the logits. Raises ValueError for logits of different
    shapes or dtypes, or a bad temperature.
    """
    # TODO
    raise NotImplementedError


def total_variation(target_logits: torch.Tensor, draft_logits: torch.Tensor, temperature=1.0) -> torch.Tensor:
    """The total variation distance per row: 1/2 sum_x |p(x) - q(x)|, p and q as in acceptance_rate."""
    # TODO
    raise NotImplementedError
