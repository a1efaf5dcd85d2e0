"""The known mistakes of exercise 39 and the diagnosis a learner reads for each (English, Chinese).

Shared by the hidden tests (through the oracle, which computes what each mistake returns) and
the tiny variant that runs in the browser (which holds frozen values). It holds no answers.
"""

from __future__ import annotations

from judge.i18n import Bilingual

# Mistake name -> the diagnosis shown to a learner whose output matches it.
MISTAKES: dict[str, Bilingual] = {
    "temperature_multiplied": Bilingual(
        "the logits are multiplied by the temperature instead of divided by it", "logits 乘以了温度，而不是除以温度"
    ),
    "temperature_ignored": Bilingual(
        "the temperature has no effect (applied after softmax, or not at all)",
        "温度没有起作用（在 softmax 之后才使用，或者根本没用）",
    ),
    "no_greedy": Bilingual(
        "temperature 0 is not treated as greedy (always the first argmax)",
        "温度为 0 时没有按贪心处理（应当总是取第一个最大值）",
    ),
    "greedy_ties_split": Bilingual(
        "temperature 0 is not treated as greedy: tied maxima must go to the first one",
        "温度为 0 时没有按贪心处理：并列最大值必须取下标最小的那个",
    ),
    "top_k_plus_one": Bilingual("top-k keeps one token too many (k+1)", "top-k 多保留了一个 token（k+1 个）"),
    "top_p_drops_crossing": Bilingual(
        "top-p drops the token that crosses the threshold", "top-p 丢掉了使累计概率越过阈值的那个 token"
    ),
    "top_p_one_extra": Bilingual(
        "top-p keeps one token more than the nucleus", "top-p 比核（nucleus）多保留了一个 token"
    ),
    "top_p_unsorted": Bilingual(
        "top-p adds up probabilities in vocabulary order instead of sorted order",
        "top-p 按词表顺序而不是按概率从大到小的顺序累加",
    ),
    "min_p_absolute": Bilingual(
        "min-p is used as an absolute threshold instead of relative to the largest probability",
        "min-p 被当成了绝对阈值，而不是相对于最大概率的比例",
    ),
    "filters_reordered": Bilingual(
        "the filters are applied in the wrong order: top-p before top-k, or top-p on "
        "probabilities not renormalized after top-k (the order is top-k, top-p, min-p)",
        "过滤顺序错误：top-p 在 top-k 之前，或者 top-k 之后没有重新归一化就做 top-p（正确顺序是 top-k、top-p、min-p）",
    ),
    "min_p_first": Bilingual(
        "the filters are applied in the wrong order (min-p first; the order is top-k, top-p, min-p)",
        "过滤顺序错误（先做了 min-p；正确顺序是 top-k、top-p、min-p）",
    ),
    "no_filtering": Bilingual("top-k, top-p and min-p have no effect", "top-k、top-p 和 min-p 没有起作用"),
    "row0_params": Bilingual("the parameters of row 0 are used for every row", "所有行都用了第 0 行的参数"),
    "top_k_drops_ties": Bilingual(
        "top-k keeps exactly k tokens and drops those tied with the k-th "
        "(with top_k=1: only the first maximum instead of every tied maximum)",
        "top-k 只保留恰好 k 个 token，丢掉了与第 k 个并列的 token"
        "（top_k=1 时只留下第一个最大值，而不是所有并列的最大值）",
    ),
    "top_k_one_ignored": Bilingual(
        "top_k = 1 is treated as 'no top-k' (only 0 and values of V or more turn it off)",
        "top_k = 1 被当成了“不做 top-k”（只有 0 和不小于 V 的值才关闭它）",
    ),
    # Mistakes the browser's tiny variant diagnoses by the rule they break (tests/tiny.py, BY_RULE).
    "sample_shape_squeezed": Bilingual(
        "sample returns shape [B] when num_samples is 1 (the default): the result "
        "must keep its num_samples dimension, [B, 1]",
        "num_samples 为 1（默认值）时 sample 返回了形状 [B]：结果必须保留 num_samples 这一维，即 [B, 1]",
    ),
    "top_k_at_least_vocab": Bilingual(
        "the code fails when top_k is larger than the vocabulary (top_k >= V must turn "
        "top-k off; torch.topk needs k <= V)",
        "top_k 大于词表大小时代码出错（top_k >= V 应当关闭 top-k；torch.topk 要求 k <= V）",
    ),
    "extreme_uniforms": Bilingual(
        "the sampler fails when torch.rand returns 0.0 or the largest float below 1 "
        "(an inverse CDF must never run past the last allowed token)",
        "当 torch.rand 返回 0.0 或小于 1 的最大浮点数时采样出错（逆 CDF 不能越过最后一个允许的 token）",
    ),
    "log_of_zero": Bilingual(
        "the Gumbel or exponential noise takes log(0) when torch.rand returns exactly 0.0, so "
        "every token scores -inf (or inf) and an excluded one wins; keep u away from 0, e.g. "
        "u.clamp(min=torch.finfo(u.dtype).tiny)",
        "torch.rand 恰好返回 0.0 时，Gumbel 噪声或指数噪声里出现了 log(0)，所有 token 的得分都成了 "
        "-inf（或 inf），被排除的 token 反而被选中；让 u 远离 0，例如 "
        "u.clamp(min=torch.finfo(u.dtype).tiny)",
    ),
    "default_generator_unused": Bilingual(
        "with generator=None the draws do not come from torch's default generator (a private generator, "
        "a fixed seed, or another source of randomness)",
        "generator=None 时抽样没有使用 torch 的默认生成器（用了私有生成器、固定种子或其他随机源）",
    ),
    "bad_shape_accepted": Bilingual(
        "a parameter tensor of the wrong shape (such as [B, 1]) is accepted: a per-row "
        "parameter must be a 1-D tensor of length B",
        "接受了形状错误的参数张量（例如 [B, 1]）：逐行参数必须是长度为 B 的一维张量",
    ),
    "bad_row_accepted": Bilingual(
        "a bad value in one row of a per-row parameter is not refused: every row must be checked",
        "逐行参数中某一行的非法值没有被拒绝：每一行都必须检查",
    ),
    # Mistakes the hidden suite names from frozen and generated rows (the oracle computes each).
    "temperature_after_filters": Bilingual(
        "the temperature is applied after the filters: top-k, top-p and min-p cut the temperature-1 "
        "distribution (the temperature comes first)",
        "温度放在了过滤之后：top-k、top-p、min-p 剪的是温度为 1 时的分布（应当先做温度）",
    ),
    "top_k_max_for_all_rows": Bilingual(
        "one top_k (the largest of the batch) is used for every row instead of each row's own",
        "所有行都用了同一个 top_k（批中最大的那个），而不是各行自己的 top_k",
    ),
    "top_p_mask_unsorted": Bilingual(
        "top-p's keep mask is computed in sorted order but applied to the tokens in vocabulary order "
        "(it is not mapped back through the sort)",
        "top-p 的保留掩码是按排序后的顺序算的，却按词表顺序套在了 token 上（没有按排序的下标映射回去）",
    ),
    "min_p_softmax_max": Bilingual(
        "min-p compares with the largest probability before top-k and top-p renormalized it (the "
        "maximum must be taken over the current probabilities)",
        "min-p 用的是 top-k、top-p 重新归一化之前的最大概率（最大值应当取自当前的概率）",
    ),
    "top_k_ignored": Bilingual("top-k has no effect", "top-k 没有起作用"),
    "top_p_ignored": Bilingual("top-p has no effect", "top-p 没有起作用"),
    "min_p_ignored": Bilingual("min-p has no effect", "min-p 没有起作用"),
    "top_k_minus_one": Bilingual("top-k keeps one token too few (k-1)", "top-k 少保留了一个 token（k-1 个）"),
    "top_k_unsorted": Bilingual(
        "top-k's threshold is read from the probabilities in vocabulary order, not from the sorted ones",
        "top-k 的阈值是按词表顺序读出的概率，而不是排序后的第 k 大概率",
    ),
    "top_p_ascending": Bilingual(
        "top-p adds up the probabilities from the least likely token instead of the most likely",
        "top-p 从概率最小的 token 开始累加，而不是从概率最大的开始",
    ),
    # Mistakes a rule shows (the zeros of sampling_probs, its dtype, refused inputs).
    "tail_cut": Bilingual(
        "tokens still in play get probability 0 although no filter removes them (with top_p = 1 "
        "nothing may be cut, even after a floating-point running total reaches 1)",
        "没有被任何过滤器去掉的 token 概率却成了 0（top_p = 1 时一个都不能剪，即使浮点累计和已经到了 1）",
    ),
    "filtered_not_zero": Bilingual(
        "filtered-out tokens keep a small non-zero probability (they must be exactly 0)",
        "被过滤掉的 token 还留着很小的非零概率（必须恰好为 0）",
    ),
    "greedy_rows_unchecked": Bilingual(
        "the parameters of greedy rows (temperature 0) are not checked: an invalid one must raise "
        "ValueError as on any other row",
        "贪心行（温度为 0）的参数没有检查：参数非法时应当和其他行一样抛出 ValueError",
    ),
    "greedy_dtype": Bilingual(
        "when every row is greedy, sampling_probs returns another dtype than the logits' (build the "
        "one-hot with dtype=logits.dtype; torch.zeros alone gives float32)",
        "所有行都是贪心时，sampling_probs 返回的 dtype 与 logits 不同（构造 one-hot 时要写 "
        "dtype=logits.dtype；只写 torch.zeros 得到的是 float32）",
    ),
    "temperature_accepted": Bilingual(
        "a negative, NaN or infinite temperature is accepted: it must raise ValueError",
        "接受了为负、为 NaN 或为无穷大的 temperature：应当抛出 ValueError",
    ),
    "top_k_accepted": Bilingual(
        "a negative top_k is accepted: it must raise ValueError",
        "接受了为负的 top_k：应当抛出 ValueError",
    ),
    "top_p_accepted": Bilingual(
        "a top_p outside (0, 1] (0, NaN or above 1) is accepted: it must raise ValueError",
        "接受了不在 (0, 1] 内的 top_p（0、NaN 或大于 1）：应当抛出 ValueError",
    ),
    "min_p_accepted": Bilingual(
        "a min_p outside [0, 1) (1, NaN or negative) is accepted: it must raise ValueError",
        "接受了不在 [0, 1) 内的 min_p（1、NaN 或负数）：应当抛出 ValueError",
    ),
    "logits_values_accepted": Bilingual(
        "logits holding NaN or +inf, or a row without a finite logit, are accepted: they must raise ValueError",
        "接受了含 NaN 或 +inf 的 logits，或没有任何有限值的行：应当抛出 ValueError",
    ),
    "logits_type_accepted": Bilingual(
        "logits that are not a 2-D tensor are accepted: they must raise ValueError",
        "接受了不是二维张量的 logits：应当抛出 ValueError",
    ),
    "num_samples_accepted": Bilingual(
        "a num_samples that is not an int of at least 1 is accepted: it must raise ValueError",
        "接受了不是至少为 1 的 int 的 num_samples：应当抛出 ValueError",
    ),
}
