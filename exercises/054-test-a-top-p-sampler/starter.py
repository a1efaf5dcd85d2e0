"""Exercise 54: write the statistical test of a top-p sampler."""

# [cli en] The full contract and how you are judged: `python practice/judge.py show 54`.
# [cli en] Judge your work with `python practice/judge.py test 54`.
# [cli zh] 完整的要求和评测方式：`python practice/judge.py show 54 --lang zh`。
# [cli zh] 用 `python practice/judge.py test 54 --lang zh` 评测你的代码。

from __future__ import annotations

from collections.abc import Callable

import torch


def test_sampler(sample_fn: Callable[..., torch.Tensor]) -> bool:
    """Return True when `sample_fn` follows the top-p contract, False when it does not.

    Args:
        sample_fn: `sample_fn(logits, num_samples, top_p)` -> int64 tensor [B, num_samples] on the
            CPU. `logits`: float32 or float64 [B, V] on the CPU (1 <= B <= 64, 2 <= V <= 1024,
            B * V <= 65536), -inf allowed; `top_p`: a number in (0, 1] or a 1-D tensor [B].
            Each run may call it at most 20 times and draw at most 100 000 tokens in total;
            beyond that it raises RuntimeError and the run fails.

    Returns:
        A Python bool. A correct sampler must get False with probability at most 0.05; each
        listed mistake must get False with probability at least 0.9.
    """
    # [en] Pick logits and top_p where the mistakes differ: a likely crossing token, rows with
    # [en] different top_p in one call, two identical rows. Compute each row's exact law in float64.
    # [zh] 挑选能让各种错误显出差别的 logits 和 top_p：越过阈值的 token 概率要大，一次调用里
    # [zh] 放几行不同的 top_p，再放两行相同的 logits。用 float64 算出每一行准确的分布。
    # [en] A token outside the kept set is a sure failure; test the counts (chi-square or G) and the
    # [en] independence of neighbours and of identical rows, splitting alpha = 0.05 between the checks.
    # [zh] 抽到保留集合之外的 token 必定是错；对计数做卡方或 G 检验，再检验相邻结果之间、
    # [zh] 相同两行之间的独立性，并把 alpha = 0.05 分给这几项检查。
    raise NotImplementedError("test_sampler: write your test here")
