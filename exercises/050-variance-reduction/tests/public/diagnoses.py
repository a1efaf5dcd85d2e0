"""The known mistakes of exercise 50 and the diagnosis a learner reads for each (English, Chinese).

Shared by the hidden tests and the public ones. It holds no answers.
"""

from __future__ import annotations

from judge.i18n import Bilingual

MISTAKES: dict[str, Bilingual] = {
    "plain_se_population": Bilingual(
        "plain_estimate's standard error divides the sum of squares by n: the sample variance divides by n - 1",
        "plain_estimate 的标准误把平方和除以了 n：样本方差应除以 n - 1",
    ),
    "antithetic_se_iid": Bilingual(
        "antithetic_estimate's standard error treats the n draws as independent (s / sqrt(n) over all n values): "
        "the two draws of a pair are dependent, so the error bar must come from the n / 2 pair means",
        "antithetic_estimate 的标准误把 n 次抽样当成了相互独立（对全部 n 个值算 s / sqrt(n)）："
        "同一对的两次抽样相互依赖，误差条必须由 n / 2 个对均值算出",
    ),
    "antithetic_not_mirrored": Bilingual(
        "the second draw of an antithetic pair does not come from 1 - u: a pair's two tokens must be F^-1(u) "
        "and F^-1(1 - u) for one uniform u (not u twice, not two uniforms, not the token index mirrored)",
        "对偶变量一对中的第二次抽样不是由 1 - u 得到的：一对的两个 token 必须是同一个均匀随机数 u 的 "
        "F^-1(u) 与 F^-1(1 - u)（不是用两次 u，不是两个独立的均匀随机数，也不是把 token 下标镜像）",
    ),
    "stratified_plain_se": Bilingual(
        "stratified_estimate's standard error is the plain formula s / sqrt(n) over the n draws: that counts the "
        "spread between strata, which stratification removed; use the gaps within each stratum",
        "stratified_estimate 的标准误用了朴素公式 s / sqrt(n)：它把层与层之间的差异也算了进去，而分层恰恰消除了"
        "这部分；应当用每层内两次抽样之差",
    ),
    "stratified_outside_strata": Bilingual(
        "a stratified draw falls outside its stratum: the two uniforms of stratum k must be (k + v) / K with "
        "K = n / 2 strata covering [0, 1)",
        "分层抽样的某次抽样落在了它所在层之外：第 k 层的两个均匀随机数必须是 (k + v) / K，"
        "K = n / 2 个层正好覆盖 [0, 1)",
    ),
    "zero_probability_drawn": Bilingual(
        "a token of probability 0 was drawn: the inverse CDF must take the smallest v with u < c_v (strictly), "
        "and clamp to the last token of positive probability at the end of the cumulative sum",
        "抽到了概率为 0 的 token：逆 CDF 必须取满足 u < c_v（严格小于）的最小 v，"
        "并在累积和末端取最后一个概率为正的 token",
    ),
    "unnormalized_cdf": Bilingual(
        "only rows of probs that do not sum to 1 go wrong: the cumulative sum must be divided by the row's sum "
        "(or u multiplied by it), and so must the known mean of the control",
        "只有和不为 1 的 probs 行出错：累积和必须除以该行之和（或把 u 乘以该行之和），控制变量的已知均值也一样",
    ),
    "cv_sample_mean": Bilingual(
        "the control variate is centred on the sample mean of g instead of its known mean E_p[g]: the correction "
        "then cancels, the estimate is plain Monte Carlo's and its error bar too narrow",
        "控制变量用 g 的样本均值代替了已知均值 E_p[g]：修正项互相抵消，估计值就成了朴素蒙特卡洛的结果，误差条也过窄",
    ),
    "cv_beta_sign": Bilingual(
        "the control-variate correction has the wrong sign: h = f + beta (g - E_p[g]) doubles the error the "
        "control was meant to remove; subtract it",
        "控制变量的修正项符号反了：h = f + beta (g - E_p[g]) 反而把控制变量本该消除的误差加倍了；应当减去它",
    ),
    "cv_constant_control": Bilingual(
        "when every drawn value of g is the same, beta must be 0: dividing by their spread gives 0 / 0 = NaN, or "
        "rounding noise over rounding noise; compare the values themselves, not their computed spread",
        "抽到的 g 全都相同时 beta 必须取 0：除以它们的离差平方和会得到 0 / 0 = NaN，或者舍入噪声除以舍入噪声；"
        "应直接比较这些值本身，而不是算出来的离差",
    ),
    "odd_count_accepted": Bilingual(
        "an odd num_samples is accepted: antithetic pairs and two draws per stratum need an even count; raise "
        "ValueError",
        "接受了奇数的 num_samples：对偶的成对抽样和每层两次抽样都需要偶数次；应抛出 ValueError",
    ),
    "stratified_shared_offsets": Bilingual(
        "the strata share their uniforms (the same v in every stratum, systematic sampling): each stratum needs "
        "its own two independent uniforms, or the standard error from the gaps no longer holds",
        "各层共用了同一组均匀随机数（每层用同一个 v，即系统抽样）：每一层都需要自己独立的两个均匀随机数，"
        "否则由层内之差算出的标准误不再成立",
    ),
    "cv_beta_ddof": Bilingual(
        "beta mixes two normalizations (a covariance divided by n - 1 over a variance divided by n, or the "
        "reverse): the ratio of the two sums needs no division at all",
        "beta 混用了两种归一化（协方差除以 n - 1、方差除以 n，或者反过来）：两个和直接相除即可，无需再除",
    ),
    "one_pass_variance": Bilingual(
        "the standard error loses its digits when the values are large next to their spread: the one-pass "
        "formula sum(y^2) - n mean^2 cancels catastrophically in float32; subtract the mean first (two passes)",
        "数值远大于其离散程度时，标准误丢失了有效数字：一遍公式 sum(y^2) - n mean^2 在 float32 下发生灾难性抵消；"
        "应先减去均值（两遍计算）",
    ),
    "no_variance_reduction": Bilingual(
        "the estimates spread as much as (or more than) plain Monte Carlo's: the variance reduction the "
        "statement promises is missing (check the pairing, the strata or the sign and size of beta)",
        "估计值的离散程度与朴素蒙特卡洛相当（甚至更大）：缺少了题面承诺的方差缩减"
        "（检查配对、分层，或 beta 的符号与大小）",
    ),
}
