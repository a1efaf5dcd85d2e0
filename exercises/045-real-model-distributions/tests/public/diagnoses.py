"""The known mistakes of exercise 45 and the diagnosis a learner reads for each (English, Chinese).

Shared by the hidden tests (whose oracle computes what each mistake returns) and the tiny
variant that runs in the browser (which holds frozen values). It holds no answers. Order
matters: when several mistakes reproduce an output, the first one listed is named.
"""

from __future__ import annotations

from judge.i18n import Bilingual

# Mistakes of tokens_for_mass.
TOKENS_FOR_MASS: dict[str, Bilingual] = {
    "strict_boundary": Bilingual(
        "the count stops only when the cumulative probability exceeds the mass strictly; reaching it exactly "
        "(>=) is enough",
        "只有累计概率严格大于 mass 时才停止计数；其实恰好达到（>=）就够了",
    ),
    "off_by_one": Bilingual(
        "off by one: the tokens before the crossing are counted, not the token that reaches the mass",
        "差一错误：只数了越过之前的 token，没有算上使累计概率达到 mass 的那个 token",
    ),
    "no_sort": Bilingual(
        "the probabilities are accumulated in vocabulary order instead of from the most probable token down",
        "按词表顺序累加概率，而不是从最可能的 token 往下累加",
    ),
    "temperature_multiplied": Bilingual(
        "the logits are multiplied by the temperature instead of divided by it",
        "logits 乘以了温度，而不是除以温度",
    ),
    "temperature_ignored": Bilingual(
        "the temperature is ignored: the count is that of softmax(logits)",
        "忽略了温度：数的是 softmax(logits) 的 token",
    ),
    "softmax_of_probs": Bilingual(
        "softmax is applied twice (to probabilities instead of logits), which flattens the distribution",
        "softmax 用了两次（对概率而不是 logits 做 softmax），分布被压平了",
    ),
}

# Mistakes of entropy.
ENTROPY: dict[str, Bilingual] = {
    "bits": Bilingual(
        "the entropy is in bits (log base 2); the contract asks for nats (natural log)",
        "熵的单位是比特（以 2 为底的对数）；题目要求奈特（自然对数）",
    ),
    "untempered": Bilingual(
        "the entropy is that of the untempered distribution softmax(logits): the temperature is ignored",
        "算的是未加温度的分布 softmax(logits) 的熵：忽略了温度",
    ),
    "temperature_multiplied": TOKENS_FOR_MASS["temperature_multiplied"],
    "minus_sign": Bilingual(
        "the minus sign is missing: sum p log p is negative, the entropy is its opposite",
        "漏了负号：sum p log p 是负数，熵是它的相反数",
    ),
}
ZERO_LOG_ZERO = Bilingual(
    "a token with a -inf logit gives 0 x log 0 = 0 x (-inf) = NaN; its term must count as 0 (select with "
    "torch.where, or use log_softmax and mask)",
    "logit 为 -inf 的 token 给出 0 x log 0 = 0 x (-inf) = NaN；这一项应当算作 0（用 torch.where 选取，"
    "或用 log_softmax 再屏蔽）",
)
OVERFLOW = Bilingual(
    "exp(logits / T) overflows at a low temperature (float32 exp overflows past 88.7): subtract each row's "
    "maximum first, or use log_softmax",
    "低温时 exp(logits / T) 溢出（float32 的 exp 超过 88.7 就溢出）：先减去每行的最大值，或者用 log_softmax",
)

# Mistakes of fake_quantize_int4.
QUANTIZE: dict[str, Bilingual] = {
    "per_tensor": Bilingual(
        "one scale for the whole tensor instead of one per group of group_size input columns",
        "整个张量只用了一个 scale，而不是每 group_size 个输入列一组、每组一个 scale",
    ),
    "output_groups": Bilingual(
        "the groups run along the output dimension (columns of group_size rows) instead of the input "
        "dimension (group_size consecutive entries of a row)",
        "分组方向错了：沿输出维（一列中连续 group_size 行）分组，而不是沿输入维（一行中连续 group_size 个元素）",
    ),
    "scale_over_8": Bilingual(
        "the scale is max|w| / 8 instead of max|w| / 7, so the largest weights are clipped at 7 x scale",
        "scale 用了 max|w| / 8 而不是 max|w| / 7，于是最大的权重被截断在 7 x scale",
    ),
    "truncation": Bilingual(
        "w / scale is truncated toward zero instead of rounded to the nearest integer",
        "w / scale 向零截断了，而不是四舍五入到最近的整数",
    ),
    "asymmetric": Bilingual(
        "asymmetric (min/max, zero-point) quantization instead of the symmetric scale max|w| / 7",
        "用了非对称量化（min/max 加零点），而不是对称的 scale = max|w| / 7",
    ),
    "half_up": Bilingual(
        "halves are rounded up (floor(x + 0.5)) instead of to the even integer (torch.round)",
        "0.5 被向上舍入（floor(x + 0.5)），而不是舍入到偶数（torch.round）",
    ),
    "half_away": Bilingual(
        "halves are rounded away from zero (sign(x) x floor(|x| + 0.5), the school rule) instead of to the even "
        "integer (torch.round)",
        "0.5 被向远离零的方向舍入（sign(x) x floor(|x| + 0.5)，即课本上的四舍五入），而不是舍入到偶数（torch.round）",
    ),
    "scale_epsilon": Bilingual(
        "a small epsilon is added to every scale (max|w| / 7 + eps) to avoid dividing by zero, which moves "
        "every level by q x eps; keep the scale exact and treat only the all-zero groups apart (torch.where)",
        "为了避免除以零，给每个 scale 都加了一个小的 epsilon（max|w| / 7 + eps），每个量化级因此偏移 q x eps；"
        "scale 应保持精确，只对全零的组单独处理（torch.where）",
    ),
    "scale_clamp": Bilingual(
        "the scale is clamped from below (max(max|w| / 7, 1e-8)) to avoid dividing by zero, which changes the "
        "scale of every group of tiny weights; keep the scale exact and treat only the all-zero groups apart "
        "(torch.where)",
        "为了避免除以零，把 scale 从下方截断了（max(max|w| / 7, 1e-8)），于是所有由极小权重组成的组的 scale 都变了；"
        "scale 应保持精确，只对全零的组单独处理（torch.where）",
    ),
    "per_row": Bilingual(
        "one scale per output row (max|w| over the whole row) instead of one per group of group_size consecutive "
        "entries",
        "每个输出行只用了一个 scale（取整行的 max|w|），而不是每 group_size 个连续元素一组、每组一个 scale",
    ),
    "strided_groups": Bilingual(
        "a group is every (in / group_size)-th entry of a row (a reshape to [out, group_size, in / group_size]) "
        "instead of group_size consecutive entries",
        "分组取的是一行中每隔 in / group_size 个元素的一组（reshape 成 [out, group_size, in / group_size]），"
        "而不是连续的 group_size 个元素",
    ),
    "signed_max": Bilingual(
        "the scale is the group's largest weight max(w) / 7 instead of its largest magnitude max|w| / 7, so "
        "negative weights larger in magnitude are clipped at -8 x scale",
        "scale 用了组内最大的权重 max(w) / 7，而不是最大的绝对值 max|w| / 7，于是绝对值更大的负权重被截断在 -8 x scale",
    ),
}
ZERO_GROUP = Bilingual(
    "an all-zero group divides by a zero scale and gives NaN; it must stay zero",
    "全零的组除以为零的 scale 得到 NaN；全零的组应当保持为零",
)
GROUP_SIZE_REFUSED = Bilingual(
    "an input dimension that is not a multiple of group_size is accepted instead of raising ValueError",
    "输入维不是 group_size 的倍数时没有抛出 ValueError",
)
GROUP_SIZE_NOT_CHECKED = Bilingual(
    "a group_size that is not a positive int (0, a negative divisor of in, a float, a bool) is accepted instead of "
    "raising ValueError",
    "group_size 不是正的 int（0、能整除 in 的负数、浮点数、bool）时没有抛出 ValueError",
)
WEIGHT_NOT_CHECKED = Bilingual(
    "a weight that is not a 2-D floating tensor is accepted instead of raising ValueError",
    "weight 不是二维浮点张量时没有抛出 ValueError",
)

# Mistakes of acceptance_rate and total_variation.
ACCEPTANCE: dict[str, Bilingual] = {
    "sum_max": Bilingual(
        "the acceptance rate sums max(p, q) instead of min(p, q)",
        "接受率把 max(p, q) 相加了，应当是 min(p, q)",
    ),
    "on_logits": Bilingual(
        "min is taken of the logits, not of the probabilities softmax(logits / T)",
        "对 logits 取了 min，而不是对概率 softmax(logits / T) 取 min",
    ),
    "untempered": Bilingual(
        "the temperature is ignored: p and q are softmax(logits), not softmax(logits / T)",
        "忽略了温度：p 和 q 用的是 softmax(logits)，而不是 softmax(logits / T)",
    ),
    "ratio_mean": Bilingual(
        "the acceptance rate is the mean over tokens of min(1, p / q) instead of sum_x min(p(x), q(x)) "
        "(the expectation over x ~ q of min(1, p(x) / q(x)))",
        "接受率算成了 min(1, p / q) 对所有 token 的平均，而应当是 sum_x min(p(x), q(x))"
        "（即 x ~ q 时 min(1, p(x) / q(x)) 的期望）",
    ),
    "draft_untempered": Bilingual(
        "the temperature is applied to the target only: the draft's q must be softmax(draft_logits / T) too",
        "只对目标模型用了温度：草稿模型的 q 也应当是 softmax(draft_logits / T)",
    ),
}
TOTAL_VARIATION: dict[str, Bilingual] = {
    "no_half": Bilingual(
        "the total variation lacks the factor 1/2: sum |p - q| is twice the distance, and 1 - TV is no "
        "longer the acceptance rate",
        "总变差距离漏了系数 1/2：sum |p - q| 是距离的两倍，1 - TV 也就不再等于接受率",
    ),
    "untempered": ACCEPTANCE["untempered"],
    "on_logits": Bilingual(
        "the distance is taken between the logits, not between the probabilities softmax(logits / T)",
        "对 logits 求了距离，而不是对概率 softmax(logits / T) 求距离",
    ),
    "draft_untempered": ACCEPTANCE["draft_untempered"],
}

# Bad inputs accepted (each named by a generated call that has that one flaw and returned normally).
LOGITS_NOT_CHECKED = Bilingual(
    "logits that are not a 2-D floating tensor (1-D, 3-D, integer or bool, a list) are accepted instead of raising "
    "ValueError",
    "logits 不是二维浮点张量（一维、三维、整数或 bool 类型、列表）时没有抛出 ValueError",
)
TEMPERATURE_NOT_POSITIVE = Bilingual(
    "a temperature that is <= 0 or NaN is accepted instead of raising ValueError (NaN fails every comparison: "
    "test `not t > 0`)",
    "温度 <= 0 或为 NaN 时没有抛出 ValueError（NaN 与任何数比较都为假：应检查 `not t > 0`）",
)
TEMPERATURE_ENTRIES = Bilingual(
    "the entries of a temperature tensor are not checked: a zero, negative or NaN entry must raise ValueError "
    "as a number would",
    "没有检查温度张量的各项：其中有 0、负数或 NaN 时，应当像单个数那样抛出 ValueError",
)
TEMPERATURE_SHAPE = Bilingual(
    "a temperature tensor of another shape than [B] (a 0-d tensor, [B, 1], [1]) is broadcast instead of raising "
    "ValueError",
    "形状不是 [B] 的温度张量（0 维张量、[B, 1]、[1]）被广播使用了，而没有抛出 ValueError",
)
MASS_NOT_CHECKED = Bilingual(
    "a mass outside the open interval (0, 1) (0, 1, NaN, a string, None) is accepted instead of raising ValueError",
    "mass 不在开区间 (0, 1) 内（0、1、NaN、字符串、None）时没有抛出 ValueError",
)
LOGITS_MISMATCH = Bilingual(
    "target and draft logits of different shapes or dtypes are accepted instead of raising ValueError",
    "形状或 dtype 不同的目标与草稿 logits 没有抛出 ValueError",
)

# Diagnoses by rule.
NOT_IDENTITY = Bilingual(
    "acceptance_rate and total_variation disagree: sum min(p, q) must equal 1 - TV(p, q) on every row",
    "acceptance_rate 与 total_variation 不一致：每一行都应当有 sum min(p, q) = 1 - TV(p, q)",
)
NOT_INCREASING = Bilingual(
    "the entropy does not grow with the temperature at a fixed position: the temperature is applied the wrong way",
    "同一位置上熵没有随温度升高而增大：温度用反了",
)
VALID_REFUSED = Bilingual("a valid input is refused with ValueError", "合法的输入被以 ValueError 拒绝了")
