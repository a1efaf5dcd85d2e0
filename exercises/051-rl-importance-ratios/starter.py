"""Exercise 51: importance ratios in RL, PPO clipping and GRPO advantages."""

# [cli en] The full contract and how you are judged: `python practice/judge.py show 51`.
# [cli en] Judge your work with `python practice/judge.py test 51`.
# [cli zh] 完整的要求和评测方式：`python practice/judge.py show 51 --lang zh`。
# [cli zh] 用 `python practice/judge.py test 51 --lang zh` 评测你的代码。

from __future__ import annotations

import torch


def token_ratios(logp_new: torch.Tensor, logp_old: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """pi_new / pi_old per token: [B, T] in logp_new's dtype, exactly 1 at padding (mask False).

    Raises:
        ValueError: not float32/float64 [B, T] tensors of one shape and dtype, NaN or an infinity,
            or a mask that is not a bool tensor of that shape.
    """
    # [en] Exponentiate the difference of the log-probabilities, never each side on its own.
    # [zh] 对两个对数概率的差取指数，不要对两边分别取指数。
    raise NotImplementedError("token_ratios: write it here")


def ppo_clip_objective(
    logp_new: torch.Tensor,
    logp_old: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    clip_eps: float = 0.2,
    aggregation: str = "token-mean",
) -> torch.Tensor:
    """PPO's clipped surrogate objective (to maximize), averaged over real tokens: a 0-d tensor.

    advantages: [B] (one per sequence) or [B, T] (one per token). aggregation: "token-mean" or
    "sequence-mean" (all-padding rows left out).

    Raises:
        ValueError: bad tensors (as token_ratios), clip_eps not in (0, 1), an unknown aggregation,
            or a mask with no real token.
    """
    # [en] min(r * A, clip(r, 1 - eps, 1 + eps) * A) at each real token; padding never counts.
    # [zh] 每个真实 token 处取 min(r * A, clip(r, 1 - eps, 1 + eps) * A)；填充位置永远不计入。
    raise NotImplementedError("ppo_clip_objective: write it here")


def grpo_advantages(rewards: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """(reward - group mean) / (group sample std + eps) per row of [B, G]; 0 for a group of equal rewards.

    Raises:
        ValueError: not a float32/float64 [B, G] tensor of finite values, G < 2, or eps not a
            finite number >= 0.
    """
    # [en] Normalize each row by its own statistics; decide "all equal" by comparing the rewards.
    # [zh] 每一行用它自己的统计量归一化；“全部相等”要通过比较奖励本身来判断。
    raise NotImplementedError("grpo_advantages: write it here")


def clipping_bias(
    p_new: torch.Tensor, p_old: torch.Tensor, advantages: torch.Tensor, clip_eps: float = 0.2
) -> torch.Tensor:
    """E_q[min(r A, clip(r) A)] - E_p[A] per row: [B], p and q the rows of p_new and p_old normalized.

    Raises:
        ValueError: not float32/float64 [B, V] tensors of one shape and dtype, NaN or an infinity,
            a negative weight, a row summing to 0, or clip_eps not in (0, 1).
    """
    # [en] A response with q(x) = 0 adds nothing to E_q: keep 0 * inf out of the sum.
    # [zh] q(x) = 0 的回答对 E_q 没有贡献：别让 0 * inf 混进求和。
    raise NotImplementedError("clipping_bias: write it here")


def sample_surrogate(
    p_new: torch.Tensor,
    p_old: torch.Tensor,
    advantages: torch.Tensor,
    group_size: int,
    clip_eps: float = 0.2,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """The mean of min(r A, clip(r) A) over `group_size` responses drawn from q per row: [B].

    generator: the only source of randomness; torch's default generator when None.

    Raises:
        ValueError: bad inputs as clipping_bias, or group_size not an int >= 1.
    """
    # [en] Draw the responses from q (p_old), never from p: the estimate's mean is E_q[g].
    # [zh] 回答要从 q（p_old）中抽，而不是从 p 中抽：估计的期望是 E_q[g]。
    raise NotImplementedError("sample_surrogate: write it here")
