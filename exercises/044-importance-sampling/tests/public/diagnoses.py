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
    "exp_each_side": Bilingual(
        "p and q are exponentiated separately (exp(log p) / exp(log q), or each shifted by its own maximum): "
        "log-probabilities far below 0, like a long sequence's -200, underflow to 0 and give 0 / 0 = NaN even "
        "though log p - log q is small; exponentiate the difference log p - log q, shifted by its row maximum",
        "p 和 q 被分别取了指数（exp(log p) / exp(log q)，或各自减去自己的最大值）：远小于 0 的对数概率"
        "（比如长序列的 -200）会下溢为 0，得到 0 / 0 = NaN，尽管 log p - log q 很小；"
        "应对差 log p - log q 取指数，并先减去该行的最大值",
    ),
    # importance_estimates.
    "log_of_f": Bilingual(
        "the sums of w f are taken in log space, logsumexp(log w + log f): f may be negative (or 0), and the "
        "log of a negative number is NaN; shift the log-weights by their maximum and sum w f in linear space",
        "w f 的求和放在了对数空间里做（logsumexp(log w + log f)）：f 可以为负（或为 0），负数的对数是 NaN；"
        "应先把对数权重减去最大值，再在线性空间中对 w f 求和",
    ),
    "ordinary_sum_overflows": Bilingual(
        "the ordinary estimate overflows: a sum over the N samples (sum w, exp of a logsumexp, or the sum of the "
        "shifted weights times f) is multiplied by the weights' scale before dividing by N, and that product "
        "exceeds the dtype although every weight and the answer fit; take the mean of the shifted weights "
        "times f first, then multiply by exp(row maximum)",
        "普通估计溢出了：在除以 N 之前，就把对 N 个样本的某个和（sum w、logsumexp 再取 exp，或减去最大值后的"
        "权重乘 f 之和）乘上了权重的尺度，这个积超出了 dtype 的范围，尽管每个权重和结果本身都放得下；应先对减去"
        "最大值后的权重乘 f 取平均，再乘以 exp(该行最大值)",
    ),
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
    "ess_entropy": Bilingual(
        "the effective sample size is exp(entropy) of the normalized weights (a perplexity): that is another "
        "diagnostic; the one asked for is (sum w)^2 / sum w^2, i.e. 1 / sum of the squared normalized weights",
        "有效样本数算成了归一化权重的 exp(熵)（困惑度）：那是另一种诊断量；题目要求的是 (sum w)^2 / sum w^2，"
        "即 1 / 归一化权重的平方和",
    ),
    "ess_cv_sample_variance": Bilingual(
        "the effective sample size is N / (1 + cv^2) with the sample variance (torch.var divides by N - 1 by "
        "default): the identity (sum w)^2 / sum w^2 = N / (1 + cv^2) needs the population variance "
        "(unbiased=False), or compute (sum w)^2 / sum w^2 directly",
        "有效样本数用 N / (1 + cv^2) 计算，却用了样本方差（torch.var 默认除以 N - 1）：恒等式 "
        "(sum w)^2 / sum w^2 = N / (1 + cv^2) 需要总体方差（unbiased=False），或者直接计算 (sum w)^2 / sum w^2",
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
    "clip_after_max_shift": Bilingual(
        "the cap is applied to the weights divided by the row's largest one (exp(log w - max)): the shift is "
        "for stability only; the cap applies to the raw ratio, min(w, cap) = exp(min(log w, log cap))",
        "截断作用在了除以该行最大权重之后的权重（exp(log w - max)）上：减去最大值只是为了数值稳定；"
        "截断应作用于原始比值，min(w, cap) = exp(min(log w, log cap))",
    ),
    "truncated_self_normalized": Bilingual(
        "the truncated estimate divides by the sum of the truncated weights: truncated importance sampling "
        "here is the ordinary estimate with capped weights, (1/N) sum min(w, cap) f",
        "截断估计除以了截断后权重之和：这里的截断重要性采样是用截断权重的普通估计，(1/N) sum min(w, cap) f",
    ),
    "int_cap_refused": Bilingual(
        "truncated_estimate refused an integer cap (cap = 2): the cap is any finite number > 0, an int included",
        "truncated_estimate 拒绝了整数 cap（cap = 2）：cap 可以是任意大于 0 的有限数，包括 int",
    ),
    "clip_floor": Bilingual(
        "the weights are clamped from below (max(w, cap), a floor) instead of from above: truncation is min(w, cap)",
        "权重被从下方截断了（max(w, cap)，一个下限），而不是从上方：截断是 min(w, cap)",
    ),
    "cap_ignored": Bilingual(
        "truncated_estimate returns the untruncated estimate: the cap is never applied; the weights must become "
        "min(w, cap) = exp(min(log w, log cap)) before averaging",
        "truncated_estimate 返回的是未截断的估计：cap 根本没有起作用；求平均之前权重必须变成 "
        "min(w, cap) = exp(min(log w, log cap))",
    ),
    "clip_two_sided": Bilingual(
        "the weights are clipped on both sides, to [1/cap, cap] (PPO's ratio clip): truncation only caps from "
        "above, min(w, cap); weights below 1/cap stay as they are",
        "权重被两侧裁剪到了 [1/cap, cap]（PPO 的比值裁剪）：截断只从上方限制，min(w, cap)；小于 1/cap 的权重保持不变",
    ),
    "cap_on_product": Bilingual(
        "the cap is applied to the weighted value w f (min(w f, cap)) instead of to the weight: truncation "
        "caps the ratio, min(w, cap) f",
        "截断作用在了加权值 w f 上（min(w f, cap)），而不是权重上：截断限制的是比值，min(w, cap) f",
    ),
    "float32_precision": Bilingual(
        "float64 inputs get an answer right only to float32 precision (about 1e-7): the computation runs in "
        "float32 somewhere and is cast back; keep the inputs' dtype throughout",
        "float64 输入得到的结果只有 float32 的精度（约 1e-7）：计算中某处用了 float32 再转换回来；"
        "应全程保持输入的 dtype",
    ),
    "output_dtype": Bilingual(
        "the output's dtype is not the inputs' (a float64 result for float32 inputs, say): compute in another "
        "dtype if you like, but cast the result back to the inputs' dtype",
        "输出的 dtype 与输入不同（例如 float32 输入得到 float64 结果）：中间可以用别的 dtype 计算，"
        "但结果要转换回输入的 dtype",
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
    "rejects_zero_probabilities": Bilingual(
        "sample_estimate refused a zero in p or q: p = 0 where q > 0 is allowed (the weight is 0), and so is "
        "p = q = 0 (that outcome is never drawn); only q = 0 where p > 0 is an error",
        "sample_estimate 拒绝了 p 或 q 中的 0：q > 0 处 p = 0 是允许的（权重为 0），p = q = 0 也允许"
        "（该结果永远不会被抽到）；只有 p > 0 处 q = 0 才是错误",
    ),
    "zero_weight_nan": Bilingual(
        "a token with p = q = 0 gets the weight 0 / 0 = NaN (or log 0 - log 0), and it reaches the result "
        "(a sum over all tokens, counts times w f): its weight is 0; compute p / q only where q > 0",
        "p = q = 0 的结果得到了权重 0 / 0 = NaN（或 log 0 - log 0），并进入了结果"
        "（对所有结果求和、次数乘 w f）：它的权重是 0；只在 q > 0 处计算 p / q",
    ),
    "zero_q_drawn": Bilingual(
        "an outcome with q = 0 is drawn when a uniform is at an extreme (0, or the largest float below 1): "
        "an inverse CDF must land on an outcome with q > 0 for every value torch.rand can return: search "
        "with right=True (u = 0 must skip leading zeros) and scale u by the row's own total, u * cdf[-1] "
        "(a cumulative sum may end below 1 although the row sums to 1)",
        "均匀随机数取到极端值（0 或小于 1 的最大浮点数）时抽到了 q = 0 的结果：逆 CDF 必须对 torch.rand "
        "可能返回的每个值都落在 q > 0 的结果上：用 right=True 查找（u = 0 必须跳过开头的 0），并把 u 乘以"
        "该行自己的总和 u * cdf[-1]（即使一行的和为 1，累积和的最后一项也可能小于 1）",
    ),
    "draws_without_replacement": Bilingual(
        "the draws of a row are made without replacement (torch.multinomial defaults to replacement=False): "
        "no outcome is drawn twice, and n larger than the number of outcomes fails; importance sampling "
        "draws n independent outcomes, with replacement",
        "同一行的抽样是无放回的（torch.multinomial 默认 replacement=False）：没有哪个结果会被抽到两次，"
        "n 大于结果数时还会出错；重要性采样要有放回地独立抽取 n 个结果",
    ),
    "antithetic_draws": Bilingual(
        "the draws of a row come in antithetic pairs (u and 1 - u): they are not independent, and the "
        "standard error, which assumes independent draws, is wrong; every draw needs its own random number",
        "同一行的抽样成对使用了对偶的随机数（u 与 1 - u）：它们并不独立，而假定抽样独立的标准误因此是错的；"
        "每次抽样都要用自己独立的随机数",
    ),
    "batch_of_one_squeezed": Bilingual(
        "a batch of one row gave outputs of shape [] instead of [1]: .squeeze() also drops the batch "
        "dimension when B = 1; reduce with dim=1 (or squeeze(1) only)",
        "只有一行的批返回了形状为 [] 而不是 [1] 的结果：B = 1 时 .squeeze() 连批维度也一起去掉了；"
        "应沿 dim=1 归约（或只用 squeeze(1)）",
    ),
    "not_an_estimate_of_draws": Bilingual(
        "the estimate is not the average of w(x) f(x) over num_samples draws x from q, with w = p/q "
        "(min(p/q, cap) with a cap)",
        "估计值不是对从 q 抽出的 num_samples 个样本 x 求 w(x) f(x) 的平均（w = p/q，有 cap 时为 min(p/q, cap)）",
    ),
}


# A bad input the statement refuses, accepted: named by the refusal sentence it breaks (the call returned
# normally: its own evidence). Keyed by a name of the group (judge/checks/arguments' flaws map onto them).
REFUSALS: dict[str, Bilingual] = {
    "not_2d_floating": Bilingual(
        "an input that is not a 2-D floating tensor (a 1-D tensor, an integer or bool tensor, a list) is not "
        "refused with ValueError: check that every input is a torch.Tensor with dim() == 2 and is_floating_point()",
        "不是二维浮点张量的输入（一维张量、整数或布尔张量、列表）没有以 ValueError 拒绝：应检查每个输入都是 "
        "dim() == 2 且 is_floating_point() 的 torch.Tensor",
    ),
    "shapes_or_dtypes": Bilingual(
        "inputs whose shapes or dtypes differ are not refused with ValueError: every tensor input of one call "
        "must have one shape and one dtype",
        "形状或 dtype 不一致的输入没有以 ValueError 拒绝：同一次调用的所有张量输入必须形状相同、dtype 相同",
    ),
    "no_sample": Bilingual(
        "rows of no sample (N = 0) are not refused with ValueError: N >= 1",
        "每行没有样本（N = 0）的输入没有以 ValueError 拒绝：N >= 1",
    ),
    "not_finite": Bilingual(
        "a NaN or an infinity in an input is not refused with ValueError: check every input, f included, with "
        "torch.isfinite",
        "含 NaN 或无穷大的输入没有以 ValueError 拒绝：应用 torch.isfinite 检查每个输入，包括 f",
    ),
    "bad_cap": Bilingual(
        "a cap that is not a finite number > 0 (0, a negative number, NaN, inf, a bool, a string or None) is not "
        "refused with ValueError",
        "不是大于 0 的有限数的 cap（0、负数、NaN、inf、布尔值、字符串或 None）没有以 ValueError 拒绝",
    ),
    "negative_probability": Bilingual(
        "a negative value in p or q is not refused with ValueError: probabilities are >= 0",
        "p 或 q 中的负值没有以 ValueError 拒绝：概率必须 >= 0",
    ),
    "q_does_not_cover_p": Bilingual(
        "q = 0 where p > 0 is not refused with ValueError: the weight p/q is undefined there, q must cover p",
        "p > 0 处 q = 0 的输入没有以 ValueError 拒绝：那里的权重 p/q 没有定义，q 必须覆盖 p",
    ),
    "zero_row_of_q": Bilingual(
        "a row of q with no positive value (V = 0 included) is not refused with ValueError: nothing can be "
        "drawn from it",
        "没有正值的 q 行（包括 V = 0）没有以 ValueError 拒绝：无法从中抽样",
    ),
    "bad_num_samples": Bilingual(
        "num_samples that is not an int >= 2 (1, 0, a negative int, a float such as 5.0, a bool, a string) is "
        "not refused with ValueError",
        "不是 >= 2 的 int 的 num_samples（1、0、负整数、5.0 这样的浮点数、布尔值、字符串）没有以 ValueError 拒绝",
    ),
}
