"""The known mistakes of exercise 41 and the diagnosis a learner reads for each (English, Chinese).

Shared by the hidden tests (whose oracle computes what each mistake returns) and the tiny
variant that runs in the browser. It holds no answers.
"""

from __future__ import annotations

from judge.i18n import Bilingual

# Mistake name -> the diagnosis shown to a learner whose output matches it.
MISTAKES: dict[str, Bilingual] = {
    # mean_and_standard_error and estimate_probability: the formula of the standard error.
    "se_divides_by_n": Bilingual(
        "the standard error divides by n instead of sqrt(n) (error bars far too narrow)",
        "标准误除以了 n，而不是 sqrt(n)（误差条窄得多）",
    ),
    "population_variance": Bilingual(
        "population vs sample variance: the variance divides by n; the sample variance divides by n - 1",
        "总体方差与样本方差混淆：方差除以了 n；样本方差应当除以 n - 1",
    ),
    "se_is_variance": Bilingual(
        "the standard error is missing its square root (you returned the variance of the mean)",
        "标准误少开了平方根（返回的是均值的方差）",
    ),
    "se_not_divided": Bilingual(
        "the standard error is the standard deviation of one sample: it is not divided by sqrt(n)",
        "标准误用的是单个样本的标准差：没有除以 sqrt(n)",
    ),
    "naive_variance": Bilingual(
        "the variance is computed as E[x^2] - E[x]^2, which loses every digit in float32 when the mean is "
        "large next to the spread; subtract the mean first (two passes, or torch.var)",
        "方差按 E[x^2] - E[x]^2 计算，均值远大于离散程度时在 float32 下有效数字全部丢失；"
        "应先减去均值（两遍计算，或用 torch.var）",
    ),
    "float32_running_mean": Bilingual(
        "the mean drifts: a running mean updated value by value in float32 (Welford's one pass) rounds at "
        "every step, and over many values near 10 000 that adds up beyond float32 accuracy; use the whole "
        "row's mean (samples.mean(dim=1)) and two passes, or accumulate in float64",
        "均值漂移了：在 float32 下逐个更新的滑动均值（Welford 一遍算法）每一步都有舍入，"
        "对许多接近 10 000 的值累积起来就超出了 float32 的精度；应直接求整行均值（samples.mean(dim=1)）"
        "再做第二遍，或用 float64 累加",
    ),
    # estimate_probability only.
    "wide_error_bars": Bilingual(
        "the error bars are too wide: the standard error uses p = 0.5 (the worst case) instead of the estimate",
        "误差条过宽：标准误用了 p = 0.5（最坏情形），而不是估计值",
    ),
    "se_times_z": Bilingual(
        "the standard error is multiplied by 1.96: return the standard error itself, not the half-width of "
        "a 95 % interval",
        "标准误乘了 1.96：应返回标准误本身，而不是 95% 置信区间的半宽",
    ),
    "smoothed_estimate": Bilingual(
        "the estimate is biased: (k + 1) / (n + 2) (add-one smoothing) instead of the frequency k / n",
        "估计有偏：用了 (k + 1) / (n + 2)（加一平滑），而不是频率 k / n",
    ),
    "softmax_of_probs": Bilingual(
        "the estimates miss P(event): the draws come from softmax(probs), but probs are probabilities already, "
        "not logits",
        "估计值偏离了 P(event)：抽样来自 softmax(probs)，但 probs 本身已经是概率，不是 logits",
    ),
    "not_a_frequency": Bilingual(
        "the estimate is not the frequency of the event in the draws (k / num_samples for a whole number k): "
        "it must come from the samples, not from probs directly",
        "估计值不是事件在抽样中出现的频率（k / num_samples，k 为整数）：它必须来自抽样，而不是直接由 probs 算出",
    ),
    "estimate_divides_by_n_minus_1": Bilingual(
        "the estimate divides the count by num_samples - 1: the frequency is k / num_samples (only the variance "
        "may divide by n - 1)",
        "估计值把次数除以了 num_samples - 1：频率是 k / num_samples（只有方差可以除以 n - 1）",
    ),
    "unnormalized_probs": Bilingual(
        "the estimates miss P(event) on rows whose probs do not sum to 1: a row's distribution is "
        "probs[b] / probs[b].sum(), so normalize each row (torch.multinomial does it for you)",
        "在 probs 之和不为 1 的行上估计值偏离 P(event)：每行的分布是 probs[b] / probs[b].sum()，"
        "要按行归一化（torch.multinomial 会替你做）",
    ),
    "event_of_row_0": Bilingual(
        "every row is counted with the event of row 0: row b's event is event[b] (gather the draws of each row "
        "from its own row of event)",
        "每一行都用第 0 行的事件计数：第 b 行的事件是 event[b]（用每行自己的 event 行取各自的抽样）",
    ),
    "complement_event": Bilingual(
        "the estimates are about 1 - P(event): the count is of draws outside the event (the mask is inverted)",
        "估计值约为 1 - P(event)：数的是落在事件之外的抽样（掩码取反了）",
    ),
    "se_true_p": Bilingual(
        "the standard error uses the true probability P(event) computed from probs, not the estimate: an error "
        "bar must come from the samples, sqrt(p_hat (1 - p_hat) / n)",
        "标准误用了由 probs 算出的真实概率 P(event)，而不是估计值：误差条必须来自样本，即 sqrt(p_hat (1 - p_hat) / n)",
    ),
    "draws_not_independent": Bilingual(
        "the counts do not vary like those of num_samples independent draws (Binomial(n, p)): the draws of a "
        "row are not independent (stratified or quasi-random draws, draws repeated, or fewer draws than "
        "num_samples)",
        "次数的波动不像 num_samples 次独立抽样（Binomial(n, p)）：同一行内的抽样并不独立"
        "（分层或准随机抽样、重复使用抽样，或抽样次数少于 num_samples）",
    ),
    "dtype_of_probs": Bilingual(
        "the outputs do not keep the dtype of probs (float64 probs give float64 estimates and errors): cast the "
        "count with .to(probs.dtype), not .float()",
        "输出没有保持 probs 的 dtype（float64 的 probs 应给出 float64 的估计值与标准误）："
        "用 .to(probs.dtype) 转换次数，而不是 .float()",
    ),
    "default_generator_unused": Bilingual(
        "with generator=None the draws do not come from torch's default generator (a private generator, "
        "a fixed seed, or another source of randomness)",
        "generator=None 时抽样没有使用 torch 的默认生成器（用了私有生成器、固定种子或其他随机源）",
    ),
    # samples_needed.
    "one_sample": Bilingual(
        "the standard error of one mean was used: the difference of two independent means has standard error "
        "sqrt(2) sigma / sqrt(n), so the bound is 2 (num_se sigma / delta)^2",
        "用了单个均值的标准误：两个独立均值之差的标准误是 sqrt(2) sigma / sqrt(n)，所以界是 2 (num_se sigma / delta)^2",
    ),
    "not_squared": Bilingual(
        "the bound is not squared: n grows with the square of num_se sigma / delta",
        "界没有平方：n 随 num_se sigma / delta 的平方增长",
    ),
    "rounds_down": Bilingual(
        "n is rounded down: the smallest whole n above the bound is floor(bound) + 1",
        "n 向下取整了：大于界的最小整数是 floor(bound) + 1",
    ),
    "not_strict": Bilingual(
        "the inequality is not strict: when the bound is a whole number n = bound gives a difference of exactly "
        "num_se standard errors, which does not exceed it (use floor(bound) + 1, not ceil(bound))",
        "不等式不是严格的：界恰为整数时，n = 界 给出的差恰好等于 num_se 个标准误，并没有超过它"
        "（应当用 floor(bound) + 1，而不是 ceil(bound)）",
    ),
    "inexact_bound": Bilingual(
        "the bound is computed in floats through sqrt(2), which rounds: at a whole-number bound the answer is off "
        "by one; compute 2 (num_se sigma / delta)^2 exactly (fractions.Fraction)",
        "界经由 sqrt(2) 用浮点数计算，带有舍入：界恰为整数时答案差 1；应精确计算 2 (num_se sigma / delta)^2"
        "（fractions.Fraction）",
    ),
    "not_an_int": Bilingual(
        "samples_needed must return a Python int (a count), not a float or a tensor",
        "samples_needed 必须返回 Python int（一个个数），而不是浮点数或张量",
    ),
}
