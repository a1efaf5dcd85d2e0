"""Exercise 40: exact samplers (inverse CDF, Gumbel-max, exponential race, alias method).

Rows are batched: `probs` is [B, V] (non-negative weights, each row with a positive sum; they
need not add up to exactly 1, every method draws from probs / probs.sum(dim=1)). Results stay on
the device of the inputs. Bad inputs raise ValueError with a message.
"""

# [cli en] The full contract and how you are judged: `python practice/judge.py show 40`.
# [cli en] Judge your work with `python practice/judge.py test 40`.
# [cli zh] 完整的要求和评测方式：`python practice/judge.py show 40 --lang zh`。
# [cli zh] 用 `python practice/judge.py test 40 --lang zh` 评测你的代码。

from __future__ import annotations

import torch


def inverse_cdf(probs: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """Invert each row's CDF at the given uniforms.

    Args:
        probs: float32 or float64 [B, V], non-negative, finite, each row with a positive sum.
        u: float32 or float64 [B, n], every value in [0, 1).

    Returns:
        int64 [B, n]: for each u, the first token x with F(x) > u, where
        F(x) = C(x) / C(V - 1) and C is the cumulative sum of the row in float64.
        A token of probability 0 is never returned.
    """
    raise NotImplementedError("inverse_cdf: cumulative sum in float64, normalise, search")


def gumbel_max(logits: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """argmax over tokens of logits + G, with G = -log(E) and E = -log(max(u, tiny)).

    Args:
        logits: float32 or float64 [B, V]; may hold -inf, never NaN or +inf; each row has a
            finite value.
        u: float32 or float64 [B, n, V] in [0, 1); tiny is torch.finfo(u.dtype).tiny.

    Returns:
        int64 [B, n]; ties go to the first index.
    """
    raise NotImplementedError("gumbel_max")


def exponential_race(probs: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """argmax over tokens of p / E, with E = -log(max(u, tiny)) (the first clock E / p to ring).

    Args:
        probs: as for inverse_cdf.
        u: float32 or float64 [B, n, V] in [0, 1).

    Returns:
        int64 [B, n]; ties go to the first index; a token of probability 0 never wins.
    """
    raise NotImplementedError("exponential_race")


def build_alias(probs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Build one alias table per row.

    Returns:
        (accept float64 [B, V] in [0, 1], alias int64 [B, V] of token ids) such that cell i
        gives token i with probability accept[i] / V and token alias[i] with (1 - accept[i]) / V,
        and these add up to probs / probs.sum(dim=1) for every token (float64 rounding aside).
    """
    raise NotImplementedError("build_alias")


def alias_draw(accept: torch.Tensor, alias: torch.Tensor, column_u: torch.Tensor, coin_u: torch.Tensor) -> torch.Tensor:
    """Draw from given tables: column = floor(column_u * V) (in float64), then the column itself
    if coin_u < accept[column], else alias[column].

    Args:
        accept: float64 [B, V] in [0, 1]; alias: int64 [B, V] in [0, V).
        column_u, coin_u: float32 or float64 [B, n] in [0, 1).

    Returns:
        int64 [B, n].
    """
    raise NotImplementedError("alias_draw")


def sample(
    probs: torch.Tensor, num_samples: int, method: str, generator: torch.Generator | None = None
) -> torch.Tensor:
    """Draw num_samples tokens per row with method "inverse_cdf", "gumbel", "race" or "alias".

    Every random number comes from `generator` (torch's default generator when None); each row
    and each draw gets its own. Must be right for every value torch.rand can return, 0.0 and the
    largest float below 1 included.

    Returns:
        int64 [B, num_samples].
    """
    # [en] Make the uniform numbers with generator, then call the functions above.
    # [zh] 用 generator 生成均匀随机数，然后调用上面的函数。
    raise NotImplementedError("sample")
