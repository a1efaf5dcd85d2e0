"""Exercise 50: variance reduction for a Monte Carlo estimate of E_p[f]."""

# [cli en] The full contract and how you are judged: `python practice/judge.py show 50`.
# [cli en] Judge your work with `python practice/judge.py test 50`.
# [cli zh] 完整的要求和评测方式：`python practice/judge.py show 50 --lang zh`。
# [cli zh] 用 `python practice/judge.py test 50 --lang zh` 评测你的代码。

from __future__ import annotations

import torch


def plain_estimate(
    probs: torch.Tensor, values: torch.Tensor, num_samples: int, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Plain Monte Carlo: the mean of f over num_samples independent draws from each row, and its standard error.

    Args:
        probs: float32 or float64 tensor [B, V], >= 0, each row with a positive sum (row b is probs[b] / sum).
        values: like probs: f, the value of each token.
        num_samples: n >= 2.
        generator: the only source of randomness; torch's default generator when None.

    Returns:
        (estimate, se): tensors [B] of the dtype and device of probs: the mean of the n values and
        s / sqrt(n), s the sample standard deviation (n - 1).

    Raises:
        ValueError: inputs not 2-D floating, shapes or dtypes that differ, NaN or inf, a negative
            probability, a row summing to 0, num_samples not an int >= 2.
    """
    # [en] Inverse CDF: the token is the smallest v with u < cumsum(p)[v]; clamp to the last token of positive p.
    # [zh] 逆 CDF：token 是满足 u < cumsum(p)[v] 的最小 v；超出末端时取最后一个概率为正的 token。
    raise NotImplementedError("plain_estimate: draw, average and take the standard error here")


def antithetic_estimate(
    probs: torch.Tensor, values: torch.Tensor, num_samples: int, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """num_samples / 2 antithetic pairs (u, 1 - u) per row: the mean of all values, the pair means' standard error.

    Raises:
        ValueError: as plain_estimate, or num_samples odd or below 4.
    """
    # [en] The pair means are the independent units: the standard error is theirs, over sqrt(n / 2).
    # [zh] 每对的均值才是独立的单位：标准误按它们算，再除以 sqrt(n / 2)。
    raise NotImplementedError("antithetic_estimate: draw pairs u, 1 - u here")


def stratified_estimate(
    probs: torch.Tensor, values: torch.Tensor, num_samples: int, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """K = num_samples / 2 equal strata [k/K, (k+1)/K) with two uniforms each: the mean and its standard error.

    Returns:
        (estimate, se): the mean of the n values, and sqrt(sum_k (y_k1 - y_k2)^2) / (2 K).

    Raises:
        ValueError: as plain_estimate, or num_samples odd or below 4.
    """
    # [en] u = (k + v) / K with v uniform; the two draws of a stratum give its variance estimate.
    # [zh] u = (k + v) / K，v 为均匀随机数；同一层的两次抽样给出该层方差的估计。
    raise NotImplementedError("stratified_estimate: draw two uniforms in each stratum here")


def control_variate_estimate(
    probs: torch.Tensor,
    values: torch.Tensor,
    control: torch.Tensor,
    num_samples: int,
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The control-variate estimate mean(f) - beta (mean(g) - E_p[g]), beta fitted on the same draws, and its error.

    Args:
        control: like probs: g, whose exact mean under probs you compute.
        num_samples: n >= 3.

    Returns:
        (estimate, se): the mean of h = f - beta (g - E_p[g]) and sqrt(sum (h - mean h)^2 / (n (n - 2))).

    Raises:
        ValueError: as plain_estimate, for control too, or num_samples not an int >= 3.
    """
    # [en] beta = sum((f - mean f)(g - mean g)) / sum((g - mean g)^2), and 0 when every drawn g is the same.
    # [zh] beta = sum((f - mean f)(g - mean g)) / sum((g - mean g)^2)；抽到的 g 全都相同时取 0。
    raise NotImplementedError("control_variate_estimate: fit beta and correct the mean here")
