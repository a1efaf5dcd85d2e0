"""Exercise 1: a weighted coin."""

# [cli en] The full contract and how you are judged: `python practice/judge.py show 1`.
# [cli en] Judge your work with `python practice/judge.py test 1`.
# [cli zh] 完整的要求和评测方式：`python practice/judge.py show 1 --lang zh`。
# [cli zh] 用 `python practice/judge.py test 1 --lang zh` 评测你的代码。

from __future__ import annotations

import torch


def flip(p: torch.Tensor, n: int, generator: torch.Generator | None = None) -> torch.Tensor:
    """Flip each row's coin `n` times: 1 with probability p[b], else 0.

    Args:
        p: float32 or float64 tensor [B], every value in [0, 1].
        n: flips per row, at least 1.
        generator: the only source of randomness; torch's default generator when None.
            It lives on the device of `p`. Same seed, same flips.

    Returns:
        int64 tensor [B, n] of 0s and 1s, on the device of `p`. p = 0 must always give 0
        and p = 1 always 1, for every value torch.rand can return (0.0 included).

    Raises:
        ValueError: p not a 1-D floating tensor, a p below 0, above 1 or NaN, or n < 1.
    """
    # [en] Draw one uniform number u in [0, 1) per position; u < p gives a 1.
    # [zh] 每个位置取一个 [0, 1) 上的均匀随机数 u，u < p 时记为 1。
    raise NotImplementedError("flip: draw the coins here")
