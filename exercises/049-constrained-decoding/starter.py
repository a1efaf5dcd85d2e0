"""Exercise 49: constrained decoding with a token automaton."""

# [cli en] The full contract and how you are judged: `python practice/judge.py show 49`.
# [cli en] Judge your work with `python practice/judge.py test 49`.
# [cli zh] 完整的要求和评测方式：`python practice/judge.py show 49 --lang zh`。
# [cli zh] 用 `python practice/judge.py test 49 --lang zh` 评测你的代码。

from __future__ import annotations

import torch


def allowed_mask(transitions: torch.Tensor, states: torch.Tensor) -> torch.Tensor:
    """Which tokens each row's state allows.

    Args:
        transitions: int64 tensor [S, V]: transitions[s, v] is the state after token v in state s, or -1 when
            v is not allowed in s.
        states: int64 tensor [B] of states in [0, S).

    Returns:
        bool tensor [B, V]: transitions[states[b], v] >= 0 (a dead state gives a row of False).

    Raises:
        ValueError: transitions not a 2-D int64 tensor or holding an entry below -1 or >= S; states not a 1-D
            int64 tensor or holding a value outside [0, S).
    """
    # [en] One indexing operation, transitions[states], gives every row's row of the automaton.
    # [zh] 一次下标操作 transitions[states] 就能取出每一行对应的自动机那一行。
    raise NotImplementedError("allowed_mask: look up each row's state here")


def constrained_probs(
    logits: torch.Tensor,
    transitions: torch.Tensor,
    states: torch.Tensor,
    temperature: float | torch.Tensor = 1.0,
    top_k: int | torch.Tensor = 0,
    top_p: float | torch.Tensor = 1.0,
) -> torch.Tensor:
    """The distribution each row is drawn from: mask, temperature, softmax, top-k, top-p, renormalizing.

    Args:
        logits: float32 or float64 tensor [B, V]; -inf allowed, never NaN or +inf.
        transitions, states: as in allowed_mask.
        temperature, top_k, top_p: a number, or a 1-D tensor [B] with one value per row (exercise 39).

    Returns:
        [B, V] of the dtype and device of logits, each row summing to 1, 0 on disallowed and filtered tokens.

    Raises:
        ValueError: the refusals of the statement, and a row where no allowed token has a finite logit.
    """
    # [en] Mask first with torch.where(mask, logits, -inf); top-k and top-p then only see allowed tokens.
    # [zh] 先用 torch.where(mask, logits, -inf) 做掩码，这样 top-k 和 top-p 只会看到允许的 token。
    raise NotImplementedError("constrained_probs: mask, filter and renormalize here")


def sample_constrained(
    logits: torch.Tensor,
    transitions: torch.Tensor,
    states: torch.Tensor,
    temperature: float | torch.Tensor = 1.0,
    top_k: int | torch.Tensor = 0,
    top_p: float | torch.Tensor = 1.0,
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """One token per row from constrained_probs, and the state it leads to.

    Returns:
        (tokens, next_states): int64 tensors [B] on the device of logits, with
        next_states[b] = transitions[states[b], tokens[b]] (never -1).

    Raises:
        ValueError: as constrained_probs.
    """
    # [en] Draw from constrained_probs; a token of probability 0 must never come out, even at u = 0 or u near 1.
    # [zh] 从 constrained_probs 抽样；概率为 0 的 token 绝不能抽出，u = 0 或 u 接近 1 时也一样。
    raise NotImplementedError("sample_constrained: draw one token per row here")


def generate_constrained(
    state_logits: torch.Tensor,
    transitions: torch.Tensor,
    start_states: torch.Tensor,
    num_steps: int,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """num_steps tokens per row from the toy model whose logits in state s are state_logits[s].

    Args:
        state_logits: float32 or float64 tensor [S, V]; -inf allowed, never NaN or +inf.
        transitions: as in allowed_mask.
        start_states: int64 tensor [B] of states in [0, S).
        num_steps: an int >= 1.
        generator: the only source of randomness; torch's default generator when None.

    Returns:
        int64 tensor [B, num_steps]: step t's token in column t (temperature 1, no top-k, no top-p).

    Raises:
        ValueError: the refusals of the statement, and a row that reaches a state where nothing can be drawn.
    """
    # [en] Each step: the current states' logits, one constrained draw, then move every row to its next state.
    # [zh] 每一步：取当前状态的 logits，做一次受约束的抽样，再把每一行移到它的下一个状态。
    raise NotImplementedError("generate_constrained: loop over the steps here")
