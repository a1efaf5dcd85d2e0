"""The known mistakes of exercise 53 and the diagnosis a learner reads for each (English, Chinese).

Shared by the hidden tests and the browser's tiny variant; it holds no answers.
"""

from __future__ import annotations

from judge.i18n import Bilingual

MISTAKES: dict[str, Bilingual] = {
    "residual_not_updated": Bilingual(
        "every candidate is tried against the target p: after a rejection the residual must become "
        "max(r - q, 0) renormalised before the next candidate is tried",
        "每个候选都拿目标分布 p 来检验：每次拒绝之后，应先把残差更新为归一化的 max(r - q, 0)，再检验下一个候选",
    ),
    "residual_unnormalised": Bilingual(
        "after a rejection the residual max(r - q, 0) is not renormalised: the next candidate's ratio "
        "r(x)/q(x) is too small",
        "拒绝之后残差 max(r - q, 0) 没有重新归一化：下一个候选的比值 r(x)/q(x) 偏小",
    ),
    "original_p": Bilingual(
        "after a rejection the acceptance ratio still uses the original p instead of the current residual",
        "拒绝之后，接受比值仍然用原来的 p，而不是当前的残差",
    ),
    "final_from_p": Bilingual(
        "when every candidate is rejected the token is drawn from p instead of the final residual",
        "所有候选都被拒绝时，token 是从 p 抽的，而不是从最终的残差抽",
    ),
    "duplicates_skipped": Bilingual(
        "a candidate that repeats an earlier (rejected) sibling's token is skipped: i.i.d. candidates "
        "must each be tried, duplicates included",
        "与前面（已被拒绝的）兄弟节点 token 相同的候选被跳过了：独立同分布的候选必须逐个检验，重复的也不例外",
    ),
    "without_replacement": Bilingual(
        "after a rejection q is renormalised without the rejected token (the without-replacement rule of "
        "SpecTr/EAGLE-2), but the candidates were drawn with replacement",
        "拒绝后把被拒绝的 token 从 q 中去掉再归一化（SpecTr/EAGLE-2 的无放回规则），但候选是有放回地抽出的",
    ),
    "shared_uniform": Bilingual(
        "one uniform serves every candidate of a node: each candidate needs a uniform of its own",
        "同一节点的所有候选共用一个均匀随机数：每个候选都需要自己的均匀随机数",
    ),
    "accept_le": Bilingual(
        "a candidate is accepted when u * q(x) <= r(x): with u = 0 a token of residual 0 is accepted; "
        "accept only when u * q(x) < r(x)",
        "在 u * q(x) <= r(x) 时就接受了候选：u = 0 时残差为 0 的 token 也会被接受；应只在 u * q(x) < r(x) 时接受",
    ),
    "stop_at_first": Bilingual(
        "only the first child of a node is tried (the chain rule of exercise 43): its siblings must be "
        "tried in turn after a rejection",
        "每个节点只检验了第一个子节点（第 43 题的链式规则）：被拒绝后还要依次检验它的兄弟节点",
    ),
    "first_child_always": Bilingual(
        "the walk moves into the node's first child whichever child was accepted",
        "无论接受的是哪个子节点，都走进了第一个子节点",
    ),
    "leaf_residual": Bilingual(
        "at a leaf the bonus token is drawn from max(p - q, 0) instead of the leaf's target p: nothing was "
        "rejected there",
        "到达叶子时奖励 token 是从 max(p - q, 0) 抽的，而不是从叶子的目标分布 p 抽：那里并没有发生拒绝",
    ),
    "last_node_row": Bilingual(
        "last_node is the probability row of the node (node + 1) instead of the node's index",
        "last_node 给出的是节点的概率行号（节点编号 + 1），而不是节点编号",
    ),
    "acceptance_independent": Bilingual(
        "acceptance_probability treats the k candidates as independent tries against p, "
        "1 - (1 - alpha)^k: after a rejection the residual changes",
        "acceptance_probability 把 k 个候选当成对 p 的独立尝试，即 1 - (1 - alpha)^k：拒绝之后残差会改变",
    ),
    "acceptance_capped": Bilingual(
        "acceptance_probability stops at k = V candidates: drawn with replacement, candidates beyond V still "
        "each have their chance",
        "acceptance_probability 在 k = V 个候选处截断了：候选是有放回抽的，超过 V 个之后每个候选仍有被接受的机会",
    ),
    "q_zero_accepted": Bilingual(
        "a candidate or tree token of draft probability 0 is accepted instead of refused with ValueError",
        "草稿概率为 0 的候选或树上 token 没有抛出 ValueError，反而被接受了",
    ),
    "sampler_past_cdf_end": Bilingual(
        "an inverse-CDF draw runs past the end of its cumulative sum (u is scaled by sum(), which can exceed the "
        "cumulative sum's last entry): at a uniform just below 1 it emits the last token even where its "
        "probability is 0; compare u times the cumulative sum's own last entry",
        "逆 CDF 抽样越过了累积和的末端（u 乘的是 sum()，它可能比累积和的最后一项大）：均匀数接近 1 时，"
        "即使最后一个 token 的概率为 0 也会输出它；应让 u 乘以累积和自己的最后一项",
    ),
    "rows_share_uniforms": Bilingual(
        "the rows of a batch share their random numbers: each row must draw its own",
        "一批中的各行共用了随机数：每一行都必须自己抽取",
    ),
}
