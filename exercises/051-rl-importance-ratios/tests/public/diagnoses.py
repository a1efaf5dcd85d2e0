"""The known mistakes of exercise 51 and the diagnosis a learner reads for each (English, Chinese).

Shared by the hidden tests (whose oracle computes what each mistake returns) and the tiny variant that
runs in the browser. It holds no answers.
"""

from __future__ import annotations

from judge.i18n import Bilingual

# Mistake name -> the diagnosis shown to a learner whose output matches it.
MISTAKES: dict[str, Bilingual] = {
    # token_ratios.
    "exp_each_side": Bilingual(
        "the ratio is computed as exp(logp_new) / exp(logp_old): for log-probabilities far below -100 both "
        "exponentials underflow to 0 and the ratio is NaN (or 0 or inf); take exp(logp_new - logp_old)",
        "比率按 exp(logp_new) / exp(logp_old) 计算：对数概率远小于 -100 时，两个指数都下溢为 0，比率变成 NaN"
        "（或 0、inf）；应计算 exp(logp_new - logp_old)",
    ),
    "ratio_inverted": Bilingual(
        "the ratio is inverted: exp(logp_old - logp_new) is pi_old / pi_new; the importance ratio is "
        "pi_new / pi_old = exp(logp_new - logp_old)",
        "比率颠倒了：exp(logp_old - logp_new) 是 pi_old / pi_new；重要性比率应为 pi_new / pi_old = "
        "exp(logp_new - logp_old)",
    ),
    "padding_zero": Bilingual(
        "padding positions get ratio 0 (the ratios multiplied by the mask): a padding position's ratio must be "
        "exactly 1; use torch.where(mask, ratio, 1)",
        "填充位置的比率成了 0（比率乘上了 mask）：填充位置的比率必须恰好为 1；应使用 torch.where(mask, ratio, 1)",
    ),
    "padding_arithmetic": Bilingual(
        "padding is set by arithmetic on the mask (ratio * mask + (1 - mask)): where a padding position's ratio "
        "overflows to inf, inf * 0 is NaN; select with torch.where(mask, ratio, 1)",
        "填充位置是用 mask 的算术设置的（ratio * mask + (1 - mask)）：当某个填充位置的比率溢出为 inf 时，inf * 0 "
        "就是 NaN；应当用 torch.where(mask, ratio, 1) 来选取",
    ),
    # ppo_clip_objective.
    "max_instead_of_min": Bilingual(
        "the objective takes the max of the clipped and unclipped terms: PPO keeps the pessimistic one, "
        "min(r A, clip(r) A)",
        "目标在截断项与未截断项中取了 max：PPO 保留的是悲观的那一项，即 min(r A, clip(r) A)",
    ),
    "clip_without_min": Bilingual(
        "the objective uses clip(r, 1 - eps, 1 + eps) * A alone, without the min: for A < 0 a large ratio is "
        "clipped into an optimistic term; take min(r A, clip(r) A)",
        "目标只用了 clip(r, 1 - eps, 1 + eps) * A，没有取 min：当 A < 0 时，一个很大的比率被截断成了过于乐观的项；"
        "应取 min(r A, clip(r) A)",
    ),
    "clip_log_ratio": Bilingual(
        "the log-ratio is clipped to [-eps, eps] instead of the ratio to [1 - eps, 1 + eps]: the bounds become "
        "exp(-eps) and exp(eps); clip the ratio itself",
        "被截断的是对数比率（截到 [-eps, eps]），而不是把比率截到 [1 - eps, 1 + eps]：边界变成了 exp(-eps) 和 "
        "exp(eps)；应截断比率本身",
    ),
    "objective_as_loss": Bilingual(
        "the function returns the loss, minus the objective: ppo_clip_objective is the objective to maximize, "
        "without a minus sign",
        "函数返回的是损失，即目标取负：ppo_clip_objective 是要最大化的目标，没有负号",
    ),
    "padding_in_mean": Bilingual(
        "the padding positions are counted in the mean (the sum divided by B * T, or by each row's full "
        "length): divide by the number of real tokens only",
        "平均时把填充位置也算进去了（总和除以 B * T，或除以每行的完整长度）：只应除以真实 token 的个数",
    ),
    "aggregations_swapped": Bilingual(
        '"token-mean" and "sequence-mean" are swapped: token-mean averages over all real tokens of the batch, '
        "sequence-mean averages each row's mean over the rows",
        '"token-mean" 和 "sequence-mean" 弄反了：token-mean 是对整批所有真实 token 求平均，sequence-mean 是先求'
        "每行的平均，再对各行求平均",
    ),
    "empty_rows_counted": Bilingual(
        '"sequence-mean" counts an all-padding row as a sequence with mean 0 (its length clamped to 1): such a '
        "row has no tokens and is left out of the average",
        '"sequence-mean" 把全是填充的行当成平均值为 0 的序列计入了（长度被截到 1）：这样的行没有 token，不参加平均',
    ),
    # grpo_advantages.
    "grpo_population_std": Bilingual(
        "the group's standard deviation divides by G (the population one): the statement's is the sample "
        "standard deviation, dividing by G - 1 (torch.std's default)",
        "组内标准差除的是 G（总体标准差）：题面要求的是样本标准差，除以 G - 1（torch.std 的默认做法）",
    ),
    "grpo_batch_statistics": Bilingual(
        "the rewards are normalized by the mean and standard deviation of the whole batch: each group is "
        "normalized by its own mean and standard deviation",
        "奖励是用整批的均值和标准差归一化的：每一组应当用它自己的均值和标准差归一化",
    ),
    "grpo_equal_group_nan": Bilingual(
        "a group of equal rewards gives NaN (0 / 0 with eps = 0) or values that are not exactly 0: a group "
        "whose rewards are all equal must get advantages of exactly 0",
        "奖励全部相等的组得到了 NaN（eps = 0 时的 0 / 0）或不恰为 0 的值：奖励全相等的组，其优势必须恰好为 0",
    ),
    "grpo_std_zero_test": Bilingual(
        "equal groups are detected by testing the standard deviation against 0: the mean of equal floats can be "
        "off by one rounding, the standard deviation is then a tiny positive number and the advantages are not "
        "0; compare the rewards themselves",
        "判断一组是否全相等用的是标准差是否为 0：相等浮点数的均值可能差一次舍入，此时标准差是一个极小的正数，"
        "优势也就不为 0；应直接比较奖励本身",
    ),
    # clipping_bias and sample_surrogate.
    "bias_sign": Bilingual(
        "the bias has the wrong sign: clipping_bias is E_q[g] - E_p[A], the clipped surrogate's expected value "
        "minus the true objective",
        "偏差的符号反了：clipping_bias 是 E_q[g] - E_p[A]，即截断代理目标的期望减去真实目标",
    ),
    "zero_q_nan": Bilingual(
        "a response with q(x) = 0 turns the result into NaN (0 * inf from p / q): such a response is never "
        "drawn and adds nothing to E_q[g]",
        "q(x) = 0 的回答让结果变成了 NaN（p / q 得到 inf，再乘以 0）：这样的回答永远抽不到，对 E_q[g] 没有贡献",
    ),
    "weights_not_normalized": Bilingual(
        "p_new and p_old are used as given, not divided by their row sums: the rows need not sum to 1; "
        "normalize each row first",
        "p_new 和 p_old 被原样使用，没有除以各自的行和：行和不必为 1；应先把每一行归一化",
    ),
    "samples_from_p": Bilingual(
        "the responses are drawn from p (p_new) instead of q (p_old): the group comes from the old policy",
        "回答是从 p（p_new）而不是 q（p_old）中抽的：这一组回答来自旧策略",
    ),
    "draws_without_replacement": Bilingual(
        "the responses of a group are drawn without replacement (distinct responses): a group is group_size "
        "independent draws from q, and a response may come up more than once",
        "一组回答是不放回抽取的（各不相同）：一组应是从 q 中独立抽取的 group_size 个回答，同一个回答可以出现多次",
    ),
    "sample_unclipped": Bilingual(
        "the sampled estimate averages r * A without clipping: its mean is E_p[A], not the clipped surrogate E_q[g]",
        "抽样估计平均的是未截断的 r * A：它的期望是 E_p[A]，而不是截断后的代理目标 E_q[g]",
    ),
}
