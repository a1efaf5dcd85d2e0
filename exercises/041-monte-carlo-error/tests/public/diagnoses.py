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
        "the variance is computed as E[x^2] - E[x]^2 (one pass), which loses every digit in float32 when the mean "
        "is large next to the spread, and most of them in float64 too; subtract the mean first (two passes, or "
        "torch.var)",
        "方差按 E[x^2] - E[x]^2（一遍公式）计算，均值远大于离散程度时，在 float32 下有效数字全部丢失，"
        "在 float64 下也丢掉大半；应先减去均值（两遍计算，或用 torch.var）",
    ),
    "float32_running_mean": Bilingual(
        "the mean stops short: a running mean updated value by value in float32 (Welford's one pass) loses every "
        "update d / i below half a unit in its last place, so far from 0 it stalls; use the whole row's mean "
        "(samples.mean(dim=1)) and two passes, or accumulate in float64",
        "均值停在了半路：在 float32 下逐个更新的滑动均值（Welford 一遍算法）会把小于末位半个单位的增量 d / i 全部舍掉，"
        "数值远离 0 时它就停滞不前；应直接求整行均值（samples.mean(dim=1)）再做第二遍，或用 float64 累加",
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
    "se_nan_when_certain": Bilingual(
        "the standard error is NaN where the estimate is 0 or 1 (every row at num_samples = 1): torch.std of one "
        "indicator, or a divisor n - 1 = 0, gives 0 / 0; there the standard error is exactly 0",
        "估计值为 0 或 1 的行（num_samples = 1 时每一行都是）标准误成了 NaN：对单个指示变量调用 torch.std，"
        "或分母 n - 1 = 0，都会得到 0 / 0；这时标准误恰好是 0",
    ),
    "zero_weight_counted": Bilingual(
        "a token of weight 0 was counted: a row whose event holds only tokens of weight 0 did not estimate "
        "exactly 0 (or its complement exactly 1), so a draw landed on a token that must never be drawn",
        "计入了权重为 0 的 token：事件只含权重为 0 的 token 的行没有恰好估计为 0（或其补事件没有恰好估计为 1），"
        "说明有抽样落在了永远不该被抽到的 token 上",
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
    "float_bound": Bilingual(
        "the bound is computed in floats as 2 * (num_se * sigma / delta) ** 2, which rounds at each step: a bound "
        "that is exactly a whole number N for the floats given (samples_needed(0.7, 0.7, 3.0): 18) comes out just "
        "below N and the answer is one short; compute it with fractions.Fraction",
        "界按浮点数 2 * (num_se * sigma / delta) ** 2 计算，每一步都有舍入：对所给的浮点数恰为整数 N 的界"
        "（samples_needed(0.7, 0.7, 3.0) 的界是 18）会算成略小于 N，答案少 1；应当用 fractions.Fraction 计算",
    ),
    "decimal_fraction": Bilingual(
        "the arguments are read as their shortest decimals (Fraction(str(x)) or Decimal), not as the exact values "
        "the floats hold: where the floats give a bound of exactly N the decimals give just below N, and the "
        "answer is one short; use Fraction(x) or x.as_integer_ratio()",
        "参数被当成了最短的十进制小数（Fraction(str(x)) 或 Decimal），而不是浮点数真正存的精确值："
        "浮点数给出的界恰为 N 时，十进制给出的略小于 N，答案少 1；应当用 Fraction(x) 或 x.as_integer_ratio()",
    ),
    "inexact_arithmetic": Bilingual(
        "the bound is not computed exactly: at some bounds that are exactly a whole number N the answer is N, "
        "while other whole-number bounds come out right, so rounding decides; take each float's exact value "
        "(Fraction(x)) and compute 2 (num_se sigma / delta)^2 exactly",
        "界没有被精确计算：有些恰为整数 N 的界给出的答案是 N，而另一些整数界却是对的，说明结果取决于舍入；"
        "应取每个浮点数的精确值（Fraction(x)），精确计算 2 (num_se sigma / delta)^2",
    ),
    "bool_accepted": Bilingual(
        "a bool is accepted as a number: True is an int in Python, but the statement refuses bools "
        "(test isinstance(x, bool) before isinstance(x, int))",
        "bool 被当成了数：在 Python 中 True 是 int，但题面要求拒绝 bool"
        "（先判断 isinstance(x, bool)，再判断 isinstance(x, int)）",
    ),
    "count_type_not_value_error": Bilingual(
        "num_samples that is not a Python int raises another exception than ValueError (torch.multinomial raises "
        "TypeError for a float): check isinstance(num_samples, int), and not bool, first, and raise ValueError",
        "不是 Python int 的 num_samples 抛出的不是 ValueError（torch.multinomial 对浮点数抛出 TypeError）："
        "应先检查 isinstance(num_samples, int) 且不是 bool，再抛出 ValueError",
    ),
    "float_count_accepted": Bilingual(
        "num_samples given as a float (such as 10.0) is accepted: it must be a Python int, and anything else "
        "raises ValueError",
        "浮点数形式的 num_samples（例如 10.0）被接受了：它必须是 Python 的 int，其他类型都要抛出 ValueError",
    ),
    "number_type_not_value_error": Bilingual(
        "an argument that is not a number (a string, None, a list, a tensor) raises another exception than "
        "ValueError (math.isfinite or Fraction raise TypeError): check the type first, and raise ValueError",
        "不是数的参数（字符串、None、列表、张量）抛出的不是 ValueError（math.isfinite 或 Fraction 会抛出 TypeError）："
        "应先检查类型，再抛出 ValueError",
    ),
    "not_an_int": Bilingual(
        "samples_needed must return a Python int (a count), not a float or a tensor",
        "samples_needed 必须返回 Python int（一个个数），而不是浮点数或张量",
    ),
}
