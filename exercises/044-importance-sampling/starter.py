"""Exercise 44: importance sampling from log-weights, stably."""

# [cli en] The full contract and how you are judged: `python practice/judge.py show 44`.
# [cli en] Judge your work with `python practice/judge.py test 44`.
# [cli zh] 完整的要求和评测方式：`python practice/judge.py show 44 --lang zh`。
# [cli zh] 用 `python practice/judge.py test 44 --lang zh` 评测你的代码。

from __future__ import annotations

import torch


def importance_estimates(
    log_p: torch.Tensor, log_q: torch.Tensor, f: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """The ordinary and the self-normalized importance-sampling estimates of each row.

    Args:
        log_p: float32 or float64 tensor [B, N], finite: log p(x_i), normalized or not.
        log_q: like log_p: log q(x_i) of the distribution the samples came from.
        f: like log_p: f(x_i).

    Returns:
        (ordinary, self_normalized): two tensors [B] of the inputs' dtype and device, with
        w_i = exp(log_p - log_q): ordinary = sum(w f) / N, self_normalized = sum(w f) / sum(w).
        Subtract each row's largest log-weight before exp: log-weights may be in the hundreds.

    Raises:
        ValueError: inputs not 2-D floating, shapes or dtypes that differ, NaN or inf.
    """
    # [en] Compute the log-weights log_p - log_q, subtract each row's largest, then exp.
    # [zh] 先算对数权重 log_p - log_q，减去每行最大值后再取 exp。
    raise NotImplementedError("importance_estimates: compute both estimates here")


def effective_sample_size(log_p: torch.Tensor, log_q: torch.Tensor) -> torch.Tensor:
    """(sum w)^2 / sum w^2 for each row, with w = exp(log_p - log_q), stable for any finite log-weights.

    Returns:
        A tensor [B] of the inputs' dtype and device, between 1 and N.

    Raises:
        ValueError: as importance_estimates.
    """
    # [en] The ESS does not depend on the weights' scale: you may normalize them first.
    # [zh] ESS 与权重的尺度无关：可以先把权重归一化。
    raise NotImplementedError("effective_sample_size: compute the ESS here")


def truncated_estimate(log_p: torch.Tensor, log_q: torch.Tensor, f: torch.Tensor, cap: float) -> torch.Tensor:
    """sum(min(w, cap) f) / N for each row: the cap applies to the raw ratios w = p/q, before any normalization.

    Raises:
        ValueError: as importance_estimates, or cap not a finite number > 0.
    """
    # [en] min(w, cap) = exp(min(log w, log cap)).
    # [zh] min(w, cap) = exp(min(log w, log cap))。
    raise NotImplementedError("truncated_estimate: cap the raw weights and average here")


def sample_estimate(
    p: torch.Tensor,
    q: torch.Tensor,
    f: torch.Tensor,
    num_samples: int,
    cap: float | None = None,
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Draw num_samples outcomes per row from q and return the importance-sampling estimate of E_p[f] and its
    standard error.

    Args:
        p, q: float32 or float64 tensors [B, V], each row a distribution (>= 0, summing to 1).
        f: like p: the value of each outcome.
        num_samples: n >= 2 draws per row.
        cap: None, or a finite number > 0: the weights become min(p/q, cap).
        generator: the only source of randomness; torch's default generator when None.

    Returns:
        (estimate, se): tensors [B] of the inputs' dtype and device: the mean of y = w(x) f(x) over the
        draws, and the sample standard deviation of y (n - 1) over sqrt(n).

    Raises:
        ValueError: inputs not 2-D floating, shapes or dtypes that differ, NaN or inf, a negative p or q,
            q = 0 where p > 0, num_samples < 2, or a cap that is not a finite number > 0.
    """
    # [en] Draw from q with torch.multinomial, gather each draw's w * f, then take the mean and its standard error.
    # [zh] 用 torch.multinomial 从 q 抽样，gather 出每个样本的 w * f，再求均值与标准误。
    raise NotImplementedError("sample_estimate: draw from q, weigh and average here")
