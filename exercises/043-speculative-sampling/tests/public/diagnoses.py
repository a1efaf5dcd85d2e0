"""The known mistakes of exercise 43 and the diagnosis a learner reads for each (English, Chinese).

Shared by the hidden tests and the browser's tiny variant; it holds no answers.
"""

from __future__ import annotations

from judge.i18n import Bilingual

MISTAKES: dict[str, Bilingual] = {
    "resample_from_p": Bilingual(
        "on a rejection the replacement is drawn from the target p instead of max(0, p - q) renormalised: "
        "tokens the draft proposes too often come out too often",
        "拒绝后替换 token 是从目标分布 p 抽的，而不是从归一化的 max(0, p - q) 抽：草稿模型偏爱的 token 出现得过多",
    ),
    "residual_swapped": Bilingual(
        "the residual is max(0, q - p) instead of max(0, p - q): a rejection replaces the token by one the "
        "draft already over-proposes",
        "残差分布写成了 max(0, q - p)，应为 max(0, p - q)：拒绝后补上的恰是草稿模型本就提议过多的 token",
    ),
    "residual_unnormalised": Bilingual(
        "the residual max(0, p - q) is not renormalised before it is sampled by its cumulative sum: the "
        "missing mass falls on the last token",
        "残差 max(0, p - q) 没有归一化就按累积和抽样：缺掉的概率质量全落到了最后一个 token 上",
    ),
    "ratio_inverted": Bilingual(
        "a draft token is accepted with probability min(1, q/p) instead of min(1, p/q)",
        "草稿 token 的接受概率写成了 min(1, q/p)，应为 min(1, p/q)",
    ),
    "ratio_over_max": Bilingual(
        "the ratio p/q is divided by its maximum over the vocabulary (the envelope constant of classical "
        "rejection sampling): tokens are accepted too rarely, and max(0, p - q) does not make up for the "
        "extra rejections; accept with min(1, p/q) itself",
        "把比值 p/q 除以了它在词表上的最大值（经典拒绝采样的包络常数）：接受得太少，而 max(0, p - q) "
        "补不回多出来的拒绝；应直接以 min(1, p/q) 接受",
    ),
    "accept_le": Bilingual(
        "a draft token is accepted when u <= p/q: with u = 0 a token of target probability 0 is accepted; "
        "accept only when u < p/q",
        "在 u <= p/q 时就接受了草稿 token：u = 0 时目标概率为 0 的 token 也会被接受；应只在 u < p/q 时接受",
    ),
    "positions_share_uniform": Bilingual(
        "one uniform is shared by all K positions of a row: the acceptances are not independent, so runs "
        "of accepted tokens are too long",
        "一行的 K 个位置共用了同一个均匀随机数：各位置的接受不再独立，连续接受的长度偏长",
    ),
    "no_bonus": Bilingual(
        "when all K draft tokens are accepted no bonus token is drawn from p_K: the step must emit K + 1 tokens",
        "K 个草稿 token 全部被接受时没有从 p_K 抽奖励 token：这一步应输出 K + 1 个 token",
    ),
    "continues_after_rejection": Bilingual(
        "verification goes on after the first rejection: every token after the replacement must be the pad -1",
        "第一次拒绝之后仍在继续验证：替换 token 之后的位置都必须是填充值 -1",
    ),
    "num_counts_emitted": Bilingual(
        "num_accepted counts the emitted tokens (accepted plus the replacement or bonus) instead of the "
        "accepted draft tokens: it is one too large",
        "num_accepted 数的是输出的 token（被接受的加上替换或奖励 token），而不是被接受的草稿 token：多了 1",
    ),
    "bonus_previous_p": Bilingual(
        "the bonus token is drawn from p_{K-1}, the target of the last draft position, instead of p_K",
        "奖励 token 是从最后一个草稿位置的目标分布 p_{K-1} 抽的，应当从 p_K 抽",
    ),
    "bonus_from_q": Bilingual(
        "the bonus token is drawn from the draft distribution q_{K-1} instead of the target p_K",
        "奖励 token 是从草稿分布 q_{K-1} 抽的，应当从目标分布 p_K 抽",
    ),
    "rate_sum_max": Bilingual(
        "the acceptance rate sums max(p, q) instead of min(p, q) (it comes out as 1 + TV)",
        "接受率把 max(p, q) 加了起来，应为 min(p, q)（结果成了 1 + TV）",
    ),
    "tv_no_half": Bilingual(
        "the total variation distance lacks the factor 1/2: it is (1/2) sum |p - q|, at most 1",
        "总变差距离少了 1/2 的因子：应为 (1/2) sum |p - q|，最大为 1",
    ),
    "rate_unclipped": Bilingual(
        "the acceptance rate averages the unclipped ratio p/q over q, which is always 1; average min(1, p/q)",
        "接受率按 q 平均的是未截断的比值 p/q，结果恒为 1；应平均 min(1, p/q)",
    ),
    "topk_exact_k": Bilingual(
        "top-k keeps exactly k tokens (torch.topk) and drops tokens tied with the k-th largest logit; "
        "every tied token must stay",
        "top-k 恰好保留了 k 个 token（torch.topk），丢掉了与第 k 大 logit 并列的 token；并列的都必须保留",
    ),
    "topk_target_only": Bilingual(
        "temperature and top-k are applied to the target only: the draft samples from a filtered "
        "distribution too, so both sides must be filtered",
        "只对目标分布做了温度与 top-k：草稿同样从过滤后的分布采样，两边都必须过滤",
    ),
    "topk_not_renormalised": Bilingual(
        "after top-k the kept probabilities are not renormalised (the softmax is taken before the "
        "truncation and the rest is just zeroed)",
        "top-k 之后保留的概率没有重新归一化（先做 softmax 再截断，只是把其余的置零）",
    ),
    "step_unfiltered_q": Bilingual(
        "the draft token is sampled from the filtered q but verified with the unfiltered q: the ratio and "
        "the residual must use the distribution the draft was actually sampled from",
        "草稿 token 从过滤后的 q 采样，却用未过滤的 q 验证：比值和残差必须用草稿真正采样所用的分布",
    ),
    "step_unfiltered_p": Bilingual(
        "the draft tokens are verified against the unfiltered target p: the output follows softmax(logits) "
        "instead of the filtered target (temperature and top-k applied)",
        "用未过滤的目标分布 p 验证草稿 token：输出服从 softmax(logits)，而不是过滤后（温度与 top-k）的目标分布",
    ),
    "pad_not_minus_one": Bilingual(
        "the positions after the emitted tokens hold another value instead of the pad -1 (for example a "
        "tokens tensor started with torch.zeros): fill them with -1",
        "输出 token 之后的位置填的不是填充值 -1（例如用 torch.zeros 初始化了 tokens）：应填 -1",
    ),
    "num_counts_all_acceptances": Bilingual(
        "num_accepted counts every accepted draft token (accepted.sum()) instead of the leading run before "
        "the first rejection: an acceptance after a rejection does not count",
        "num_accepted 数的是所有被接受的草稿 token（accepted.sum()），而不是第一次拒绝之前连续接受的个数："
        "拒绝之后的接受不算数",
    ),
    "residual_wrong_position": Bilingual(
        "a rejection at a later draft position draws the replacement from the residual of position 0: "
        "use max(0, p_i - q_i) of the position i where the first rejection happened",
        "在后面的草稿位置被拒绝时，替换 token 却是从第 0 个位置的残差分布抽的：应使用首次拒绝所在位置 i 的 "
        "max(0, p_i - q_i)",
    ),
    "k_one_shape": Bilingual(
        "with K = 1 the result is wrong although larger K work: a dimension of size 1 is lost (a bare "
        ".squeeze() turns [B, 1] into [B], and [B, 1] against [B] broadcasts to [B, B]); squeeze only the "
        "dimension you mean",
        "K = 1 时结果出错，而更大的 K 没问题：丢掉了一个长度为 1 的维度（不带参数的 .squeeze() 会把 [B, 1] "
        "变成 [B]，而 [B, 1] 与 [B] 广播成了 [B, B]）；只 squeeze 你想去掉的那一维",
    ),
    "residual_zero_uniform": Bilingual(
        "the replacement token's sampler breaks on a uniform of exactly 0 (or just below 1): it emitted a "
        "token whose residual probability is 0 (for example an exponential race with -log(1 - u) = 0 "
        "divides 0 by 0); every value in [0, 1) must be handled",
        "替换 token 的抽样在均匀数恰为 0（或略小于 1）时出错：输出了残差概率为 0 的 token（例如指数竞赛中 "
        "-log(1 - u) = 0 导致 0 除以 0）；[0, 1) 中的每个值都必须能处理",
    ),
    "topk_k_plus_one": Bilingual(
        "top-k cuts at the (k+1)-th largest logit (an index off by one): it keeps one token too many",
        "top-k 以第 k+1 大的 logit 为界（下标差了 1）：多保留了一个 token",
    ),
    "topk_strict": Bilingual(
        "top-k keeps only the logits strictly above the k-th largest, so the k-th token itself is dropped; "
        "keep every logit >= the k-th largest",
        "top-k 只保留严格大于第 k 大 logit 的 token，把第 k 个本身也丢掉了；应保留所有 >= 第 k 大 logit 的 token",
    ),
    "temperature_multiplied": Bilingual(
        "the logits are multiplied by the temperature instead of divided by it",
        "logits 乘以了温度，应当除以温度",
    ),
    "accept_without_uniform": Bilingual(
        "a draft token is accepted exactly when p(x) >= q(x), without a uniform: a token with p(x) < q(x) "
        "must still be accepted with probability p(x)/q(x)",
        "只在 p(x) >= q(x) 时接受草稿 token，没有用均匀随机数：p(x) < q(x) 的 token 也应以概率 p(x)/q(x) 被接受",
    ),
    "residual_abs": Bilingual(
        "the residual is |p - q| renormalised instead of max(0, p - q): tokens the draft over-proposes get "
        "replacement mass too",
        "残差分布写成了归一化的 |p - q|，应为 max(0, p - q)：草稿模型提议过多的 token 也分到了替换概率",
    ),
    "topk_above_vocab_crashes": Bilingual(
        "the code fails when top_k is larger than the vocabulary: top_k >= V keeps every token, but "
        "torch.topk needs k <= V",
        "top_k 大于词表大小时代码出错：top_k >= V 应保留所有 token，但 torch.topk 要求 k <= V",
    ),
    "k_zero_accepted": Bilingual(
        "verify accepts K = 0 draft tokens; with nothing to verify it must raise ValueError",
        "verify 接受了 K = 0 个草稿 token；没有可验证的内容时必须抛出 ValueError",
    ),
    "bad_probabilities_accepted": Bilingual(
        "verify accepts negative or non-finite probabilities; it must raise ValueError",
        "verify 接受了负数或非有限的概率；必须抛出 ValueError",
    ),
    "temperature_not_finite_accepted": Bilingual(
        "filtered_probs accepts a temperature that is not a positive finite number (NaN or infinity slip "
        "through a test like temperature <= 0); it must raise ValueError",
        "filtered_probs 接受了不是正有限数的温度（NaN 或无穷大能绕过 temperature <= 0 这样的判断）；"
        "必须抛出 ValueError",
    ),
    "rows_not_independent": Bilingual(
        "the rows of a batch are not independent (they share random numbers, or pair them as u and 1 - u): "
        "every row needs random numbers of its own",
        "同一批中的各行不相互独立（共用了随机数，或把随机数配成 u 与 1 - u）：每一行都需要自己的随机数",
    ),
    "draft_uniform_reused": Bilingual(
        "speculative_step uses the uniform that drew a draft token again as that token's acceptance uniform "
        "u_i: given the token, that uniform is no longer uniform on [0, 1), so tokens are accepted at the wrong "
        "rate; draw u_i afresh",
        "speculative_step 把抽草稿 token 所用的均匀数又当作该 token 的接受均匀数 u_i：在给定 token 的条件下，"
        "这个数已不再服从 [0, 1) 上的均匀分布，于是接受的比例不对；应重新抽取 u_i",
    ),
    "sampler_past_cdf_end": Bilingual(
        "an inverse-CDF draw runs past the end of its cumulative sum (the distribution is normalised by sum(), "
        "which can exceed the cumulative sum's last entry, or u is not scaled by that entry): at a uniform just "
        "below 1 it emits the last token even where its probability is 0; compare u times the cumulative sum's "
        "own last entry",
        "逆 CDF 抽样越过了累积和的末端（按 sum() 归一化，而 sum() 可能大于累积和的最后一项；或 u 没有乘上这一项）："
        "均匀数略小于 1 时会输出最后一个 token，即使它的概率为 0；应把 u 乘以累积和自己的最后一项再比较",
    ),
    "residual_zero_sum": Bilingual(
        "after a rejection the residual max(0, p - q) can be 0 at every token (rows that sum to 1 only up to "
        "rounding, with p(x)/q(x) just below 1), and it is divided by its zero sum instead of falling back to "
        "p_i: never divide 0 by 0",
        "拒绝之后残差 max(0, p - q) 可能在每个 token 上都为 0（各行之和只在舍入意义上为 1，且 p(x)/q(x) "
        "略小于 1），代码却用它为 0 的和去除，而没有改从 p_i 抽：绝不要算 0/0",
    ),
    "sums_checked": Bilingual(
        "verify refuses rows that sum to 1 only up to rounding (a check such as |sum - 1| <= 1e-6): the sums "
        "must not be checked, and float32 rows of a large vocabulary are often 1e-5 off",
        "verify 拒绝了只在舍入意义上和为 1 的行（例如 |sum - 1| <= 1e-6 这样的检查）：题目不要求检查各行之和，"
        "而词表很大的 float32 行常常差 1e-5",
    ),
    "ties_after_division": Bilingual(
        "top-k judges the k-th largest logit and its ties on logits / T instead of the logits as given: two "
        "different logits whose quotients round to the same float both stay; compare the logits themselves",
        "top-k 用 logits / T 而不是传入的 logits 来找第 k 大及其并列：两个不同的 logit 除以 T 后舍入成同一个"
        "浮点数，就都被保留了；应直接比较 logits 本身",
    ),
    "softmax_overflow": Bilingual(
        "the softmax is computed as exp(z/T) / sum exp(z/T) without subtracting the row's largest logit: large "
        "logits overflow to inf and the probabilities become NaN",
        "softmax 直接按 exp(z/T) / sum exp(z/T) 计算，没有先减去该行最大的 logit：logit 很大时溢出为 inf，概率变成 NaN",
    ),
    "tv_from_rate": Bilingual(
        "total_variation is computed as 1 - acceptance_rate: that identity holds only when both rows sum to "
        "exactly 1; compute (1/2) sum |p - q| itself",
        "total_variation 按 1 - acceptance_rate 计算：这个恒等式只在两行之和都恰好为 1 时成立；应直接计算 "
        "(1/2) sum |p - q|",
    ),
    "rate_from_tv": Bilingual(
        "acceptance_rate is computed as 1 - total_variation: that identity holds only when both rows sum to "
        "exactly 1; compute sum_x min(p(x), q(x)) itself",
        "acceptance_rate 按 1 - total_variation 计算：这个恒等式只在两行之和都恰好为 1 时成立；应直接计算 "
        "sum_x min(p(x), q(x))",
    ),
    "rate_shapes_unchecked": Bilingual(
        "acceptance_rate or total_variation accepts tensors that are not [B, V] (only the two shapes are "
        "compared): 1-D or 3-D inputs must raise ValueError",
        "acceptance_rate 或 total_variation 接受了不是 [B, V] 的张量（只比较了两个形状是否相同）：一维或三维输入"
        "必须抛出 ValueError",
    ),
    "q_zero_accepted": Bilingual(
        "verify does not refuse a draft token whose draft probability q_i(x_i) is 0 (at any position, also "
        "after the first rejection): such a token cannot have been drawn from q_i, so it must raise ValueError",
        "verify 没有拒绝草稿概率 q_i(x_i) 为 0 的草稿 token（无论在哪个位置，包括第一次拒绝之后）："
        "这样的 token 不可能是从 q_i 抽出的，必须抛出 ValueError",
    ),
}
