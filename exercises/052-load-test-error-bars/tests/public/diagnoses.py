"""The known mistakes of exercise 52 and the diagnosis a learner reads for each (English, Chinese).

Shared by the hidden suite and the tiny browser suite. It holds no answers.
"""

from __future__ import annotations

from judge.i18n import Bilingual

MISTAKES: dict[str, Bilingual] = {
    # bootstrap_stats: what a resample is.
    "without_replacement": Bilingual(
        "the resamples are drawn without replacement (a permutation of the row): every resample holds each value "
        "once, so its mean is the data's own mean and the interval has no width; draw the n indices with "
        "replacement",
        "重抽样是无放回的（相当于把这一行打乱）：每次重抽样里每个值恰好出现一次，均值就是原数据的均值，区间宽度为零；"
        "应有放回地抽 n 个下标",
    ),
    "resample_n_minus_1": Bilingual(
        "each resample holds n - 1 values instead of n: a bootstrap resample has the size of the data",
        "每次重抽样只取了 n - 1 个值而不是 n 个：bootstrap 重抽样的大小应与原数据相同",
    ),
    "resample_half": Bilingual(
        "each resample holds n / 2 values instead of n: the bootstrap statistics spread too much and the "
        "intervals are about 1.4 times too wide",
        "每次重抽样只取了 n / 2 个值而不是 n 个：bootstrap 统计量散得太开，区间大约宽了 1.4 倍",
    ),
    "shared_draw": Bilingual(
        "one draw of indices is shared by every resample of a row: the R bootstrap statistics are all equal; "
        "each resample needs its own n fresh indices",
        "一行的所有重抽样共用了同一次抽出的下标：R 个 bootstrap 统计量全都相同；每次重抽样都要重新抽 n 个下标",
    ),
    "median_as_mean": Bilingual(
        "the median (or p90) is computed as the mean: the statistic must be the one asked for, the sample "
        "quantile by linear interpolation",
        "中位数（或 p90）算成了均值：统计量必须是所要求的那个，即按线性插值得到的样本分位数",
    ),
    "nearest_rank": Bilingual(
        "the quantile takes the nearest sorted value (no interpolation, as torch.kthvalue or "
        "interpolation='nearest'): the rule interpolates linearly at position q (m - 1)",
        "分位数取了最近的那个排序值（没有插值，像 torch.kthvalue 或 interpolation='nearest'）："
        "规则是在位置 q (m - 1) 处线性插值",
    ),
    # percentile_interval.
    "one_sided_quantiles": Bilingual(
        "the interval's ends are the quantiles at alpha and 1 - alpha instead of alpha / 2 and 1 - alpha / 2: "
        "that is an interval of level 1 - 2 alpha, too narrow",
        "区间两端取了 alpha 和 1 - alpha 处的分位数，而不是 alpha / 2 和 1 - alpha / 2：这是水平为 1 - 2 alpha "
        "的区间，太窄了",
    ),
    "position_q_times_r": Bilingual(
        "the quantile's position is q R instead of q (R - 1): with linear interpolation the sorted values sit "
        "at positions 0 to R - 1",
        "分位数的位置用了 q R 而不是 q (R - 1)：线性插值时排好序的值位于 0 到 R - 1 的位置上",
    ),
    # bca_interval.
    "bca_z0_sign": Bilingual(
        "BCa's bias correction has the wrong sign: z0 is Phi^-1 of the share of bootstrap values BELOW the estimate",
        "BCa 的偏差校正符号反了：z0 是 bootstrap 值中低于估计值的比例的 Phi^-1",
    ),
    "bca_acceleration_sign": Bilingual(
        "BCa's acceleration has the wrong sign: it sums the cubes of (mean of the jackknife values - each "
        "jackknife value), not of (each value - their mean)",
        "BCa 的加速度符号反了：求和的是 (jackknife 值的均值 - 各个 jackknife 值) 的立方，而不是 (各个值 - 均值) 的立方",
    ),
    "bca_ties_not_halved": Bilingual(
        "BCa's bias correction ignores the bootstrap values equal to the estimate (or counts them whole): "
        "they count one half each",
        "BCa 的偏差校正忽略了（或整个计入了）等于估计值的 bootstrap 值：它们每个应计一半",
    ),
    # jackknife_stats.
    "jackknife_full_sample": Bilingual(
        "the jackknife values are the statistic of the whole row: value i must leave data value i out",
        "jackknife 值用的是整行数据的统计量：第 i 个值必须去掉第 i 个数据",
    ),
    # bootstrap_ci.
    "normal_sd_interval": Bilingual(
        "the interval is estimate +- z x the data's standard deviation: the spread of one value, not of the "
        "statistic (the standard error is about sd / sqrt(n)); use the bootstrap values' quantiles",
        "区间是 估计值 +- z x 数据的标准差：这是单个值的散布，而不是统计量的散布（标准误约为 sd / sqrt(n)）；"
        "应使用 bootstrap 值的分位数",
    ),
    "bca_method_is_percentile": Bilingual(
        "bootstrap_ci(method='bca') returns the percentile interval: BCa must move both quantile levels by the "
        "bias correction z0 and the acceleration",
        "bootstrap_ci(method='bca') 返回的是百分位区间：BCa 必须用偏差校正 z0 和加速度挪动两端的分位点",
    ),
    "acceleration_rounded_mean": Bilingual(
        "equal jackknife values give a nonzero acceleration: their float mean rounds away from them (3 x 0.1 / 3 "
        "is 0.10000000000000002), so every deviation is the same tiny number and a = sign / (6 sqrt(n)); the "
        "statement sets a = 0 when all jackknife values are equal",
        "相等的 jackknife 值给出了非零的加速度：它们的浮点均值会舍入到别处（3 x 0.1 / 3 等于 0.10000000000000002），"
        "于是每个偏差都是同一个极小的数，a = 符号 / (6 sqrt(n))；题面规定所有 jackknife 值相等时 a = 0",
    ),
    # difference_ci.
    "paired_resampled_apart": Bilingual(
        "paired data are resampled as two independent samples: the pairs' shared part (the prompt) then "
        "counts as noise and the interval is far too wide; resample the pairs together",
        "成对数据被当成两个独立样本分别重抽样：两边共有的部分（同一个提示词）被当成了噪声，区间宽得多；"
        "应按对一起重抽样",
    ),
    "unpaired_shared_length": Bilingual(
        "in the unpaired comparison one sample is resampled with the other's length: a and b are each resampled "
        "with their own size, n for a and m for b",
        "不成对比较时，有一边按另一边的长度重抽样了：a 和 b 应各自按自己的大小重抽样，a 用 n，b 用 m",
    ),
    "difference_reversed": Bilingual(
        "the difference is mean(a) - mean(b): the statement asks for mean(b) - mean(a), how much larger B is",
        "差值算成了 mean(a) - mean(b)：题目要的是 mean(b) - mean(a)，即 B 比 A 大多少",
    ),
    # runs_needed.
    "runs_one_sample": Bilingual(
        "the run count uses one configuration's variance: the difference of two means has variance "
        "(sd_a^2 + sd_b^2) / n (the sqrt(2) of the chapter's answer)",
        "次数只用了一套配置的方差：两个均值之差的方差是 (sd_a^2 + sd_b^2) / n（也就是本章答案里的 sqrt(2)）",
    ),
    "runs_rounds_down": Bilingual(
        "the run count is rounded down: the smallest n that reaches the bound is the bound rounded up (ceil)",
        "次数向下取整了：达到界限的最小 n 是把界限向上取整（ceil）",
    ),
    "runs_z_not_squared": Bilingual(
        "the run count uses z instead of z^2: n = z^2 (sd_a^2 + sd_b^2) / difference^2",
        "次数里用了 z 而不是 z^2：n = z^2 (sd_a^2 + sd_b^2) / difference^2",
    ),
    "runs_strict": Bilingual(
        "the run count is floor(bound) + 1 (a strict inequality): where the bound is a whole number n, n runs "
        "already reach |difference| = z SE, and the smallest such n is the bound rounded up (ceil)",
        "次数算成了 floor(界限) + 1（严格不等式）：界限恰好是整数 n 时，跑 n 次就已经达到 |difference| = z SE，"
        "最小的这种 n 是把界限向上取整（ceil）",
    ),
    "runs_sd_sum": Bilingual(
        "the run count adds the standard deviations before squaring, (sd_a + sd_b)^2: independent variances "
        "add, sd_a^2 + sd_b^2",
        "次数在平方之前把两个标准差相加了，(sd_a + sd_b)^2：独立的方差相加，应为 sd_a^2 + sd_b^2",
    ),
}
