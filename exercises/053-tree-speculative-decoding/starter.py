"""Exercise 53: tree speculative decoding. Replace every NotImplementedError; see the statement."""

# [cli en] The full contract and how you are judged: `python practice/judge.py show 53`.
# [cli en] Judge your work with `python practice/judge.py test 53`.
# [cli zh] 完整的要求和评测方式：`python practice/judge.py show 53 --lang zh`。
# [cli zh] 用 `python practice/judge.py test 53 --lang zh` 评测你的代码。

PAD = -1  # fills the positions after the last emitted token


def acceptance_probability(target_probs, draft_probs, num_candidates):
    """P(one of num_candidates i.i.d. draft candidates is accepted), per row.
    [B, V] and [B, V] -> [B], in the inputs' dtype."""
    # [en] Each factor of the product is the chance to reject one candidate with the current residual.
    # [zh] 乘积中的每个因子，是用当前残差拒绝一个候选的概率。
    raise NotImplementedError


def verify_candidates(target_probs, draft_probs, candidates, generator=None):
    """The multi-candidate rule once per row.

    target_probs [B, V], draft_probs [B, V], candidates int64 [B, k].
    Returns (index int64 [B], the accepted candidate's position or -1; token int64 [B]).
    Every random number comes from ``generator``.
    """
    # [en] Try the candidates in order against the CURRENT residual r (first r = p); after each
    # [en] rejection r <- max(r - q, 0) renormalised; if all are rejected, draw from the final r.
    # [zh] 按顺序用【当前】残差 r（最初 r = p）检验各个候选；每次拒绝后令 r <- max(r - q, 0)
    # [zh] 并重新归一化；若全部被拒绝，就从最终的 r 中抽一个 token。
    raise NotImplementedError


def verify_tree(parents, tree_tokens, target_probs, draft_probs, generator=None):
    """Walk a draft tree down from the root.

    parents int64 [N] (-1: a child of the root), tree_tokens int64 [B, N],
    target_probs and draft_probs [B, N+1, V] (row 0: the root, row n+1: node n).
    Returns (tokens int64 [B, D+1] padded with -1, num_accepted int64 [B], last_node int64 [B]).
    """
    # [en] At each node, the children (in index order) are the candidates of the rule; a leaf
    # [en] ends with a bonus token from its own target row.
    # [zh] 在每个节点上，它的子节点（按编号顺序）就是规则的候选；走到叶子时，
    # [zh] 从叶子自己的目标行抽一个奖励 token 结束。
    raise NotImplementedError
