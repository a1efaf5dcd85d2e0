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
    "not_an_int": Bilingual(
        "samples_needed must return a Python int (a count), not a float or a tensor",
        "samples_needed 必须返回 Python int（一个个数），而不是浮点数或张量",
    ),
}
