"""Exercise 47: truncation beyond top-p: locally typical, epsilon and eta sampling."""

# [cli en] The full contract and how you are judged: `python practice/judge.py show 47`.
# [cli en] Judge your work with `python practice/judge.py test 47`.
# [cli zh] 完整的要求和评测方式：`python practice/judge.py show 47 --lang zh`。
# [cli zh] 用 `python practice/judge.py test 47 --lang zh` 评测你的代码。

from __future__ import annotations

import torch


def truncated_probs(
    logits: torch.Tensor,
    method: str,
    param: float | torch.Tensor,
    temperature: float | torch.Tensor = 1.0,
) -> torch.Tensor:
    """Return the distribution that `sample_truncated` draws from, one row per row of `logits`.

    Args:
        logits: float32 or float64 tensor [B, V] on any device; may hold -inf (never +inf or
            NaN), but every row has at least one finite value.
        method: "typical", "epsilon" or "eta" (every row).
        param: number or 1-D tensor [B]: the mass tau in (0, 1] for "typical" (1 keeps every
            token with p > 0), epsilon in [0, 1) or eta in [0, 1) (0 keeps every token).
        temperature: number or 1-D tensor [B]; 0 means greedy (one-hot of the lowest index
            among the row's largest logits).

    Order: temperature, softmax, entropy H in nats of the tempered distribution (0 log 0 = 0),
    cut, renormalize.
      typical: score |-log p - H|; keep token j when the tokens of strictly smaller score hold
               less than tau (ties kept or dropped together).
      epsilon: keep p >= epsilon, and the most probable token(s).
      eta:     keep p >= min(eta, sqrt(eta) * exp(-H)), and the most probable token(s).

    Returns:
        Tensor [B, V] with the dtype and device of `logits`; every row sums to 1; exactly 0
        for cut tokens, positive for the others.

    Raises:
        ValueError: logits not a 2-D float32/float64 tensor, holding NaN or +inf, or a row
            without a finite logit; an unknown method; a param outside its range or NaN; a
            temperature negative, NaN or infinite; a parameter tensor not 1-D of length B.
    """
    # [en] Compute log-probabilities once: they give p, the entropy and the surprisals.
    # [zh] 先算一次对数概率：概率、熵和惊奇度都从它得到。
    raise NotImplementedError("truncated_probs: build the truncated distribution here")


def sample_truncated(
    logits: torch.Tensor,
    num_samples: int,
    method: str,
    param: float | torch.Tensor,
    temperature: float | torch.Tensor = 1.0,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Draw `num_samples` independent tokens per row from `truncated_probs(...)`.

    Args:
        logits, method, param, temperature: as in `truncated_probs`.
        num_samples: draws per row, an int >= 1.
        generator: the only source of randomness; torch's default generator when None.
            Same seed, same tokens; each call continues its stream.

    Returns:
        int64 tensor [B, num_samples] of token indices, on the device of `logits`.
        Must stay correct for every value torch.rand can return, 0.0 included.

    Raises:
        ValueError: everything `truncated_probs` rejects, and num_samples not an int >= 1.
    """
    # [en] Truncate each row once, then draw all num_samples tokens in one go.
    # [zh] 每行只截断一次，然后一次抽完 num_samples 个 token。
    raise NotImplementedError("sample_truncated: draw tokens from the truncated distribution here")
