"""Exercise 43: speculative sampling. Replace every NotImplementedError; see the statement."""

# [cli en] The full contract and how you are judged: `python practice/judge.py show 43`.
# [cli en] Judge your work with `python practice/judge.py test 43`.
# [cli zh] 完整的要求和评测方式：`python practice/judge.py show 43 --lang zh`。
# [cli zh] 用 `python practice/judge.py test 43 --lang zh` 评测你的代码。

PAD = -1  # fills the positions after the last emitted token


def acceptance_rate(target_probs, draft_probs):
    """sum_x min(p(x), q(x)) for each row. [B, V] and [B, V] -> [B], in the inputs' dtype."""
    raise NotImplementedError


def total_variation(target_probs, draft_probs):
    """(1/2) sum_x |p(x) - q(x)| for each row. [B, V] and [B, V] -> [B]."""
    raise NotImplementedError


def filtered_probs(logits, temperature=1.0, top_k=0):
    """softmax(logits / temperature) restricted to the top-k logits (ties with the k-th stay),
    renormalised. [..., V] -> [..., V]; top_k = 0 (or >= V) keeps every token."""
    raise NotImplementedError


def topk_acceptance_rate(target_logits, draft_logits, temperature=1.0, top_k=0):
    """The acceptance rate between the two filtered distributions. [B, V] and [B, V] -> [B]."""
    raise NotImplementedError


def verify(target_probs, draft_probs, draft_tokens, generator=None):
    """Verify K draft tokens per row.

    target_probs [B, K+1, V], draft_probs [B, K, V], draft_tokens int64 [B, K].
    Returns (tokens int64 [B, K+1] padded with -1 after the last emitted token,
    num_accepted int64 [B]). Every random number comes from ``generator``.
    """
    # [en] TODO: accept x_i when u_i < p_i(x_i) / q_i(x_i); stop at the first rejection with a token
    # [en] from max(0, p_i - q_i) renormalised; after K acceptances add a bonus token from p_K.
    # [zh] TODO：u_i < p_i(x_i) / q_i(x_i) 时接受 x_i；第一次拒绝时停下，并从归一化后的
    # [zh] max(0, p_i - q_i) 中抽一个 token；K 个全部接受后，再从 p_K 抽一个额外的 token。
    raise NotImplementedError


def speculative_step(target_logits, draft_logits, temperature=1.0, top_k=0, generator=None):
    """Draft K tokens from the filtered draft distributions and verify them with the filtered
    target. target_logits [B, K+1, V], draft_logits [B, K, V].
    Returns (tokens [B, K+1], num_accepted [B], draft_tokens [B, K])."""
    raise NotImplementedError
