"""Exercise 41: Monte Carlo error, estimates with their error bars."""

# [cli en] The full contract and how you are judged: `python practice/judge.py show 41`.
# [cli en] Judge your work with `python practice/judge.py test 41`.
# [cli zh] 完整的要求和评测方式：`python practice/judge.py show 41 --lang zh`。
# [cli zh] 用 `python practice/judge.py test 41 --lang zh` 评测你的代码。

from __future__ import annotations

import torch


def mean_and_standard_error(samples: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The mean of each row and its standard error s / sqrt(n), s the sample standard deviation (n - 1).

    Args:
        samples: float32 or float64 tensor [B, n], n >= 2, every value finite.

    Returns:
        (mean, se): two tensors [B] of the dtype and on the device of `samples`. Keep float32
        precision when the mean is large next to the spread (subtract the mean before squaring).

    Raises:
        ValueError: samples not a 2-D floating tensor, n < 2, or a value NaN or infinite.
    """
    # [en] The mean of each row first; then sum the squared deviations, divide by n - 1, then by n, and take the root.
    # [zh] 先求每行均值，再对离差平方求和、除以 n - 1，最后除以 n 并开方。
    raise NotImplementedError("mean_and_standard_error: compute the mean and its standard error here")


def estimate_probability(
    probs: torch.Tensor, event: torch.Tensor, num_samples: int, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Estimate P(event) for each row from `num_samples` draws, with its standard error.

    Args:
        probs: float32 or float64 tensor [B, V], finite, >= 0, each row with a positive sum (a row
            is normalized by its sum).
        event: bool tensor [B, V]: event[b, v] is True when token v is in row b's event.
        num_samples: draws per row, at least 1.
        generator: the only source of randomness; torch's default generator when None.

    Returns:
        (estimate, se): two tensors [B] of the dtype and on the device of `probs`; estimate[b] =
        k / num_samples with k the number of draws of row b inside the event, and
        se[b] = sqrt(estimate (1 - estimate) / num_samples) (dividing by num_samples - 1 is accepted).

    Raises:
        ValueError: probs not 2-D floating, a value negative or not finite, a row summing to 0,
            event not a bool tensor of the shape of probs, or num_samples < 1.
    """
    # [en] Draw num_samples tokens per row with generator and count k, the draws inside the event.
    # [zh] 每行用 generator 抽 num_samples 个 token，数一数落在事件里的个数 k。
    raise NotImplementedError("estimate_probability: draw, count and return the estimate with its error")


def samples_needed(delta: float, sigma: float, num_se: float) -> int:
    """The smallest n with num_se * sqrt(2) * sigma / sqrt(n) < delta (two means, n samples each).

    Args:
        delta: the difference between the two means to resolve, > 0.
        sigma: the standard deviation of one sample (the same for both), > 0.
        num_se: how many standard errors of the difference delta must exceed, > 0.

    Returns:
        A Python int: floor(2 (num_se sigma / delta)^2) + 1, computed exactly.

    Raises:
        ValueError: an argument that is not a finite number > 0.
    """
    # [en] The standard error of a difference of two means is sqrt(2) * sigma / sqrt(n); mind the strict
    # [en] inequality when the bound is exactly a whole number.
    # [zh] 两个均值之差的标准误是 sqrt(2) * sigma / sqrt(n)；注意界恰为整数时的严格不等号。
    raise NotImplementedError("samples_needed: solve the inequality for n here")
