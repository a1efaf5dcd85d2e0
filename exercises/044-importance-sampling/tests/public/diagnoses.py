"""The known mistakes of exercise 44 and the diagnosis a learner reads for each (English, Chinese).

Shared by the hidden tests (whose oracle computes what each mistake returns) and the tiny
variant that runs in the browser. It holds no answers.
"""

from __future__ import annotations

from judge.i18n import Bilingual

# Mistake name -> the diagnosis shown to a learner whose output matches it.
MISTAKES: dict[str, Bilingual] = {
    # Every function: the weights themselves.
    "inverted_log_weights": Bilingual(
        "the weights are inverted: the log-weight is log q - log p (the weight q/p); an importance weight is "
        "p/q, the target over the distribution the samples came from",
        "权重取反了：对数权重用了 log q - log p（即 q/p）；重要性权重是 p/q，即目标分布除以抽样所用的分布",
    ),
    "naive_exp": Bilingual(
        "the weights overflow: exp(log p - log q) is taken before subtracting the row's largest log-weight, so "
        "log-weights in the hundreds give inf and then NaN (inf / inf); subtract the row maximum first "
        "(or use torch.logsumexp / torch.softmax)",
        "权重溢出了：在减去该行最大对数权重之前就取了 exp(log p - log q)，对数权重达到几百时得到 inf，"
        "进而得到 NaN（inf / inf）；应先减去每行的最大值（或用 torch.logsumexp / torch.softmax）",
    ),
    # importance_estimates.
    "ordinary_is_self_normalized": Bilingual(
        "the ordinary estimate divides by the sum of the weights: that is the self-normalized estimate; the "
        "ordinary one divides sum w f by the number of samples N",
        "普通估计除以了权重之和：那是自归一化估计；普通估计应当把 sum w f 除以样本数 N",
    ),
    "ordinary_softmax_mean": Bilingual(
        "the ordinary estimate averages softmax(log-weights) * f: the softmax already divides by the sum of the "
        "weights, so this is the self-normalized estimate divided by N again",
        "普通估计对 softmax(对数权重) * f 取了平均：softmax 已经除以了权重之和，这相当于自归一化估计又除以了一次 N",
    ),
    "sn_is_ordinary": Bilingual(
        "the self-normalized estimate divides sum w f by N instead of by sum w: it is then the ordinary "
        "estimate, wrong whenever log p is unnormalized (the weights do not average to 1)",
        "自归一化估计把 sum w f 除以了 N，而不是 sum w：这就成了普通估计，log p 未归一化（权重平均不为 1）时就错了",
    ),
    # effective_sample_size.
    "ess_unnormalized": Bilingual(
        "the effective sample size is 1 / sum w^2 with the raw weights: that formula needs weights normalized "
        "to sum to 1 (ESS = (sum w)^2 / sum w^2 is the same thing for any scale)",
        "有效样本数用原始权重算成了 1 / sum w^2：这个公式要求权重先归一化到和为 1"
        "（ESS = (sum w)^2 / sum w^2 对任何尺度都成立）",
    ),
    "ess_n_over_mean_square": Bilingual(
        "the effective sample size is N / mean(w^2) with the raw weights: that holds only for weights "
        "normalized to mean 1; (sum w)^2 / sum w^2 is invariant to the scale of w",
        "有效样本数用原始权重算成了 N / mean(w^2)：只有权重归一化到均值为 1 时才成立；"
        "(sum w)^2 / sum w^2 与 w 的尺度无关",
    ),
    "ess_numerator_not_squared": Bilingual(
        "the effective sample size is sum w / sum w^2: the sum in the numerator must be squared, "
        "ESS = (sum w)^2 / sum w^2",
        "有效样本数算成了 sum w / sum w^2：分子的和要平方，ESS = (sum w)^2 / sum w^2",
    ),
    # truncated_estimate.
    "clip_after_normalizing": Bilingual(
        "the cap is applied to normalized weights (N * softmax of the log-weights): it applies to the raw "
        "ratios p/q, before any normalization",
        "截断作用在了归一化后的权重（N * softmax(对数权重)）上：截断应当作用于原始比值 p/q，在任何归一化之前",
    ),
    "clip_floor": Bilingual(
        "the weights are clamped from below (max(w, cap), a floor) instead of from above: truncation is min(w, cap)",
        "权重被从下方截断了（max(w, cap)，一个下限），而不是从上方：截断是 min(w, cap)",
    ),
    "clip_log_cap": Bilingual(
        "the log-weight is clamped at cap instead of log(cap): in log space the cap is log(cap), so "
        "min(w, cap) = exp(min(log w, log cap))",
        "对数权重被截断在 cap 而不是 log(cap)：在对数空间中上限是 log(cap)，即 min(w, cap) = exp(min(log w, log cap))",
    ),
    # sample_estimate.
    "samples_from_p": Bilingual(
        "the estimates are biased: the draws come from p instead of q; importance sampling draws from q and "
        "reweights by p/q (drawing from p and weighting by p/q estimates E_p[(p/q) f])",
        "估计有偏：样本是从 p 抽的，而不是 q；重要性采样从 q 抽样，再乘以权重 p/q"
        "（从 p 抽样又乘 p/q 估计的是 E_p[(p/q) f]）",
    ),
    "sampler_self_normalized": Bilingual(
        "sample_estimate returns the self-normalized estimate (sum w f / sum w over the draws): p and q are "
        "normalized here, so the ordinary estimate (sum w f / n) is the unbiased one the statement asks for",
        "sample_estimate 返回的是自归一化估计（抽样上的 sum w f / sum w）：这里 p 和 q 都已归一化，"
        "题目要求的是无偏的普通估计（sum w f / n）",
    ),
    "sampler_ignores_cap": Bilingual(
        "with a cap the estimates do not move: the weights are not truncated at cap (min(p/q, cap)), so the "
        "estimates average to E_p[f] instead of the truncated target E_q[min(p/q, cap) f]",
        "给了 cap 估计值却没有变化：权重没有在 cap 处截断（min(p/q, cap)），所以估计值的平均是 E_p[f]，"
        "而不是截断后的目标 E_q[min(p/q, cap) f]",
    ),
    "se_divides_by_n": Bilingual(
        "the standard error divides by n instead of sqrt(n) (error bars far too narrow)",
        "标准误除以了 n，而不是 sqrt(n)（误差条窄得多）",
    ),
    "se_unweighted": Bilingual(
        "the standard error is computed from the values f of the draws, without their weights: the estimate "
        "is the mean of w f, so its error is the standard deviation of w f over sqrt(n)",
        "标准误是由抽样的 f 值算的，没有乘权重：估计值是 w f 的均值，所以误差是 w f 的标准差除以 sqrt(n)",
    ),
    "se_population_variance": Bilingual(
        "population vs sample variance: the variance of w f divides by n; the sample variance divides by n - 1",
        "总体方差与样本方差混淆：w f 的方差除以了 n；样本方差应当除以 n - 1",
    ),
    "not_an_estimate_of_draws": Bilingual(
        "the estimate is not the average of w(x) f(x) over num_samples draws x from q, with w = p/q "
        "(min(p/q, cap) with a cap)",
        "估计值不是对从 q 抽出的 num_samples 个样本 x 求 w(x) f(x) 的平均（w = p/q，有 cap 时为 min(p/q, cap)）",
    ),
}
