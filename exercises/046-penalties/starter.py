"""Exercise 46: repetition, frequency and presence penalties."""

# [cli en] The full contract and how you are judged: `python practice/judge.py show 46`.
# [cli en] Judge your work with `python practice/judge.py test 46`.
# [cli zh] 完整的要求和评测方式：`python practice/judge.py show 46 --lang zh`。
# [cli zh] 用 `python practice/judge.py test 46 --lang zh` 评测你的代码。

from __future__ import annotations

import torch


def apply_penalties(
    logits: torch.Tensor,
    prev_tokens: torch.Tensor,
    repetition_penalty: float | torch.Tensor = 1.0,
    frequency_penalty: float | torch.Tensor = 0.0,
    presence_penalty: float | torch.Tensor = 0.0,
    pad_id: int = -1,
) -> torch.Tensor:
    """Return the penalized logits, one row per row of `logits`.

    Args:
        logits: float32 or float64 tensor [B, V] on any device; may hold -inf (never +inf or
            NaN), but every row has at least one finite value.
        prev_tokens: int64 tensor [B, L] (L may be 0) on the device of `logits`: the tokens
            already seen by each row, padded with `pad_id` anywhere.
        repetition_penalty: number or 1-D tensor [B], finite and > 0; 1 disables it. Applied
            once to every seen token: a positive logit is divided by it, a negative one
            multiplied.
        frequency_penalty: number or 1-D tensor [B], finite; subtracted once per occurrence.
        presence_penalty: number or 1-D tensor [B], finite; subtracted once if the token occurs.
        pad_id: a Python int that is not a vocabulary id (negative, or >= V); ignored wherever
            it appears.

    Order: repetition first, then frequency and presence:
        z' = z / rho if seen and z > 0, z * rho if seen and z <= 0, z if unseen;
        result = z' - count * frequency - [count > 0] * presence.

    Returns:
        A new tensor [B, V] with the dtype and device of `logits` (the inputs are unchanged).

    Raises:
        ValueError: logits not a 2-D tensor, holding NaN or +inf, or a row
            without a finite logit; prev_tokens not a 2-D int64 tensor with B rows, on another
            device, or holding an id outside [0, V) other than pad_id; pad_id not an int or a
            vocabulary id; repetition_penalty <= 0; a penalty NaN or infinite; a parameter
            tensor that is not 1-D of length B.
    """
    # [en] Count each row's tokens once ([B, V], padding left out); the rest is element-wise.
    # [zh] 每行先统计一次各 token 的出现次数（[B, V]，不算补齐的元素），其余都是逐元素运算。
    raise NotImplementedError("apply_penalties: penalize the logits here")


def sample_with_penalties(
    logits: torch.Tensor,
    prev_tokens: torch.Tensor,
    num_samples: int = 1,
    repetition_penalty: float | torch.Tensor = 1.0,
    frequency_penalty: float | torch.Tensor = 0.0,
    presence_penalty: float | torch.Tensor = 0.0,
    pad_id: int = -1,
    temperature: float | torch.Tensor = 1.0,
    top_k: int | torch.Tensor = 0,
    top_p: float | torch.Tensor = 1.0,
    min_p: float | torch.Tensor = 0.0,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Draw `num_samples` independent tokens per row: penalties first, then exercise 39's sampler.

    Args:
        logits, prev_tokens, repetition_penalty, frequency_penalty, presence_penalty, pad_id:
            as in `apply_penalties`.
        num_samples: draws per row, a Python int >= 1.
        temperature, top_k, top_p, min_p: exactly as in exercise 39's `sample` (temperature 0
            is greedy on the penalized logits).
        generator: the only source of randomness; torch's default generator when None.
            Same seed, same tokens; each call continues its stream.

    Returns:
        int64 tensor [B, num_samples] of token indices, on the device of `logits`.
        Must stay correct for every value torch.rand can return, 0.0 included.

    Raises:
        ValueError: everything `apply_penalties` rejects, and everything exercise 39's
            `sample` rejects.
    """
    # [en] Penalize first, then temperature, top-k, top-p and min-p as in 39, then draw.
    # [zh] 先施加惩罚，再像 39 题那样做温度、top-k、top-p 和 min-p，最后抽样。
    raise NotImplementedError("sample_with_penalties: draw from the penalized distribution here")
