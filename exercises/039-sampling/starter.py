"""Exercise 39: temperature, top-k, top-p and min-p sampling."""

# [cli en] The full contract and how you are judged: `python practice/judge.py show 39`.
# [cli en] Judge your work with `python practice/judge.py test 39`.
# [cli zh] 完整的要求和评测方式：`python practice/judge.py show 39 --lang zh`。
# [cli zh] 用 `python practice/judge.py test 39 --lang zh` 评测你的代码。

from __future__ import annotations

import torch


def sampling_probs(
    logits: torch.Tensor,
    temperature: float | torch.Tensor = 1.0,
    top_k: int | torch.Tensor = 0,
    top_p: float | torch.Tensor = 1.0,
    min_p: float | torch.Tensor = 0.0,
) -> torch.Tensor:
    """Return the distribution that `sample` draws from, one row per row of `logits`.

    Args:
        logits: float32 or float64 tensor [B, V] on any device; may hold -inf (never +inf or
            NaN), but every row has at least one finite value.
        temperature: number or 1-D tensor [B]; 0 means greedy (one-hot of the lowest index
            among the row's maxima); any T > 0 samples, however small.
        top_k: whole number or 1-D tensor [B]; 0 or >= V disables it. Ties with the k-th
            largest probability are kept.
        top_p: number or 1-D tensor [B] in (0, 1]; 1 disables it (nothing is cut). The token
            that carries the running total across top_p is kept.
        min_p: number or 1-D tensor [B] in [0, 1); 0 disables it. Relative to the row's
            largest probability.

    Order: temperature, softmax, top-k, renormalize, top-p, renormalize, min-p, renormalize.

    Returns:
        Tensor [B, V] with the dtype and device of `logits`; every row sums to 1; exactly 0
        for filtered tokens, positive for the others.

    Raises:
        ValueError: a temperature negative, NaN or infinite; top_k negative or not a whole
            number; top_p outside (0, 1]; min_p outside [0, 1); logits not a 2-D float32 or
            float64 tensor, holding NaN or +inf, or a row without a finite logit; a parameter
            tensor that is not 1-D of length B. Greedy rows' parameters are checked too.
    """
    # [en] Temperature and softmax first, then the three filters in order, renormalizing after each.
    # [zh] 先做温度和 softmax，再按顺序做三个过滤器，每一步之后重新归一化。
    raise NotImplementedError("sampling_probs: build the filtered distribution here")


def sample(
    logits: torch.Tensor,
    num_samples: int = 1,
    temperature: float | torch.Tensor = 1.0,
    top_k: int | torch.Tensor = 0,
    top_p: float | torch.Tensor = 1.0,
    min_p: float | torch.Tensor = 0.0,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Draw `num_samples` independent tokens per row from `sampling_probs(...)`.

    Args:
        logits: float32 or float64 tensor [B, V] on any device (see `sampling_probs`).
        num_samples: draws per row, at least 1.
        temperature, top_k, top_p, min_p: as in `sampling_probs`.
        generator: the only source of randomness; torch's default generator when None.
            When given, it lives on the device of `logits`. Same seed, same tokens; each
            call continues its stream.

    Returns:
        int64 tensor [B, num_samples] of token indices, on the device of `logits`.
        Must stay correct for every value torch.rand can return, 0.0 included.

    Raises:
        ValueError: everything `sampling_probs` rejects, and num_samples not an int >= 1.
    """
    # [en] Filter each row once, then draw all num_samples tokens in one go.
    # [zh] 每行只过滤一次，然后一次抽完 num_samples 个 token。
    raise NotImplementedError("sample: draw tokens from the filtered distribution here")
