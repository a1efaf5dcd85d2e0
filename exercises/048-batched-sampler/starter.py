"""Exercise 48: a batched sampler with per-request seeds."""

# [cli en] The full contract and how you are judged: `python practice/judge.py show 48`.
# [cli en] Judge your work with `python practice/judge.py test 48`.
# [cli zh] 完整的要求和评测方式：`python practice/judge.py show 48 --lang zh`。
# [cli zh] 用 `python practice/judge.py test 48 --lang zh` 评测你的代码。

from __future__ import annotations

import torch


def sample_batch(
    logits: torch.Tensor,
    seeds: torch.Tensor,
    offsets: torch.Tensor,
    temperature: float | torch.Tensor = 1.0,
    top_k: int | torch.Tensor = 0,
    top_p: float | torch.Tensor = 1.0,
    min_p: float | torch.Tensor = 0.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Draw one token per row, each request from its own (seed, offset), and its log-probability.

    Args:
        logits: float32 or float64 tensor [B, V]; may hold -inf (never +inf or NaN), but every row
            has at least one finite value.
        seeds: int64 tensor [B], values in [0, 2**63): each request's seed.
        offsets: int64 tensor [B], values in [0, 2**63): how many tokens each request drew before.
        temperature, top_k, top_p, min_p: numbers or 1-D tensors [B], exactly as in exercise 39
            (temperature 0 is greedy: the lowest index among the row's largest logits).

    Returns:
        (tokens, logprobs): tokens int64 [B]; logprobs [B] in the dtype of logits, the log of the
        chosen token's probability in the processed distribution (after temperature, filters and
        renormalization), exactly 0.0 on greedy rows. Both on the device of logits.

    The token of row b depends only on logits[b], its parameters, seeds[b] and offsets[b]: never on
    the other rows, its position, earlier calls or torch's global generator (never used, never
    re-seeded). Distinct (seed, offset) pairs give independent draws.

    Raises:
        ValueError: logits not 2-D, holding NaN or +inf, or a row without a finite logit; seeds or
            offsets not an int64 tensor of shape [B], or holding a negative value; a temperature
            negative, NaN or infinite; top_p outside (0, 1]; min_p outside [0, 1); top_k negative;
            a parameter tensor that is not 1-D of length B. Greedy rows' parameters are checked too.
    """
    # [en] First build every row's processed distribution q [B, V], as exercise 39's sampling_probs does.
    # [zh] 先像第 39 题的 sampling_probs 那样，算出每一行的处理后分布 q [B, V]。
    # [en] Then, per row: hash (seed, offset) into one 64-bit seed, e.g. hashlib.blake2b(f"{seed}:{offset}".encode(),
    # [en] digest_size=8), seed a torch.Generator of that row's own with it, and draw the row's token with it.
    # [zh] 然后逐行处理：把 (seed, offset) 哈希成一个 64 位种子，例如 hashlib.blake2b(f"{seed}:{offset}".encode(),
    # [zh] digest_size=8)，用它给这一行自己的 torch.Generator 设种子，再用这个生成器抽出这一行的 token。
    # [en] Never one generator for the whole batch, never torch's global one.
    # [zh] 绝不要整批共用一个生成器，也绝不要用 torch 的全局生成器。
    raise NotImplementedError("sample_batch: draw each row's token from its own generator here")
