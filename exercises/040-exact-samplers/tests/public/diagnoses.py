"""The known mistakes of exercise 40 and the diagnosis a learner reads for each (English, Chinese).

Shared by the hidden tests (whose oracle computes what each mistake returns) and the browser's
tiny variant (which holds frozen values). It holds no answers.
"""

from __future__ import annotations

from judge.checks.independence import ROWS_SHARE_DIAGNOSIS
from judge.i18n import Bilingual

# Mistake name -> the diagnosis shown to a learner whose output matches it.
MISTAKES: dict[str, Bilingual] = {
    "cdf_off_by_one": Bilingual(
        "the inverse CDF returns the first token with F(x) >= u instead of F(x) > u (searchsorted with "
        "right=False): u = 0 or u exactly on a step picks the token before, even one of probability 0",
        "逆 CDF 返回的是第一个满足 F(x) >= u 的 token，而不是 F(x) > u（searchsorted 用了 right=False）："
        "u = 0 或 u 恰好落在台阶上时会选到前一个 token，甚至是概率为 0 的 token",
    ),
    "sorted_not_mapped_back": Bilingual(
        "the probabilities are sorted but the draw is not mapped back: the result is a position in sorted "
        "order, not a token id",
        "对概率排了序，却没有映射回原来的编号：返回的是排序后的位置，而不是 token 编号",
    ),
    "float32_cumsum_short": Bilingual(
        "the cumulative sum is not normalised (a float32 cumsum can end below 1): a u above its last value "
        "runs past the end, to index V",
        "累积和没有归一化（float32 的 cumsum 可能停在 1 以下）：u 大于最后一个值时越过末尾，得到下标 V",
    ),
    "float32_cumsum_clamped": Bilingual(
        "the cumulative sum is not normalised and a u above its last value is clamped to the last token, "
        "which may have probability 0; divide by the last entry instead",
        "累积和没有归一化，u 大于最后一个值时被截到最后一个 token，而它的概率可能为 0；应当除以最后一项",
    ),
    "normalised_cumsum": Bilingual(
        "the CDF is normalised by sum(probs) (the cumulative sum of probs / sum(probs), or the cumulative sum "
        "divided by sum(probs)): a sum in another order can differ in the last bit and leave the last entry just "
        "below 1 (0.9999999999999998), and a u above it runs past the end, to index V; divide the cumulative "
        "sum by its own last entry instead",
        "CDF 是用 sum(probs) 归一化的（probs / sum(probs) 的累积和，或累积和除以 sum(probs)）：按另一种顺序求的和"
        "可能差最后一位，使最后一项略小于 1（0.9999999999999998），u 大于它时越过末尾，得到下标 V；应当把累积和"
        "除以它自己的最后一项",
    ),
    "normalised_cumsum_clamped": Bilingual(
        "the CDF is normalised by sum(probs) (the cumulative sum of probs / sum(probs), or the cumulative sum "
        "divided by sum(probs)): a sum in another order can differ in the last bit and leave the last entry just "
        "below 1, and a u above it is clamped to the last token, which may have probability 0; divide the "
        "cumulative sum by its own last entry instead",
        "CDF 是用 sum(probs) 归一化的（probs / sum(probs) 的累积和，或累积和除以 sum(probs)）：按另一种顺序求的和"
        "可能差最后一位，使最后一项略小于 1，u 大于它时被截到最后一个 token，而它的概率可能为 0；应当把累积和"
        "除以它自己的最后一项",
    ),
    "cdf_scaled_compare": Bilingual(
        "the inverse CDF compares C(x) with u * C(V-1) instead of dividing first: on a row of subnormal weights "
        "(such as 5e-324) the product keeps almost no precision and rounds up to C(V-1) itself, so a u near 1 "
        "runs past the end (index V) or lands on the last token, which may have probability 0; compute "
        "F = C / C(V-1) and compare u with F",
        "逆 CDF 比较的是 C(x) 与 u * C(V-1)，而不是先做除法：在次正规数权重（如 5e-324）的行上，"
        "这个乘积几乎没有精度，会向上舍入成 C(V-1) 本身，于是接近 1 的 u 越过末尾（得到下标 V），"
        "或落到最后一个 token 上，而它的概率可能为 0；应当先算 F = C / C(V-1)，再用 u 与 F 比较",
    ),
    "float32_cumsum_normalised": Bilingual(
        "the CDF is accumulated (or compared with u) in float32: a step that is exact in float64 is rounded, so "
        "a u on the step or on its float32 rounding picks the neighbouring token; accumulate and compare in float64",
        "CDF 是用 float32 累加（或用 float32 与 u 比较）的：在 float64 中精确的台阶被舍入了，u 落在台阶上或落在台阶的 "
        "float32 舍入值上时会选到相邻的 token；应当用 float64 累加和比较",
    ),
    "gumbel_wrong_sign": Bilingual(
        "the Gumbel noise has the wrong sign: it must be -log(-log(u)), not log(-log(u))",
        "Gumbel 噪声的符号反了：应为 -log(-log(u))，而不是 log(-log(u))",
    ),
    "gumbel_on_probs": Bilingual(
        "the Gumbel noise is added to probabilities instead of logits (log-probabilities)",
        "Gumbel 噪声加在了概率上，而不是 logits（对数概率）上",
    ),
    "race_multiplies": Bilingual(
        "the exponential race multiplies p * E instead of dividing p / E (the winner is the smallest E / p)",
        "指数竞赛算的是 p * E，而不是 p / E（获胜者是 E / p 最小的 token）",
    ),
    "race_argmin": Bilingual(
        "the exponential race takes the smallest p / E instead of the largest (the winner is the smallest E / p)",
        "指数竞赛取了 p / E 最小的 token，而不是最大的（获胜者是 E / p 最小的 token）",
    ),
    "log_zero_at_u0": Bilingual(
        "u = 0 is not clamped before the logarithm: log(0) makes the noise infinite, and a draw whose "
        "uniforms are all 0 returns token 0 instead of the first most likely token; clamp u to "
        "torch.finfo(u.dtype).tiny",
        "取对数前没有截断 u = 0：log(0) 让噪声变成无穷大，所有均匀数都为 0 的那次抽样返回了 token 0，"
        "而不是第一个概率最大的 token；应把 u 截断到 torch.finfo(u.dtype).tiny",
    ),
    "clamp_not_tiny": Bilingual(
        "u = 0 is clamped to a value other than torch.finfo(u.dtype).tiny (an epsilon such as 1e-20 or "
        "1e-10, or the tiny of another dtype), or only u == 0 is replaced so that a subnormal u escapes the "
        "clamp: such a uniform gets the wrong noise; use max(u, tiny) with the smallest normal number of u's "
        "own dtype",
        "u = 0 被截断到了 torch.finfo(u.dtype).tiny 以外的值（例如 1e-20、1e-10 这样的 epsilon，或别的 dtype "
        "的 tiny），或者只替换了 u == 0，次正规数的 u 逃过了截断：这样的均匀数得到了错误的噪声；应当取 "
        "max(u, tiny)，tiny 为 u 自身 dtype 的最小正规数",
    ),
    "ties_not_first": Bilingual(
        "a tie between the best scores is not given to the first index (topk, a descending sort or a "
        "reversed argmax can pick another one): a draw whose uniforms are all 0 must return the first "
        "token with the largest logit (or probability)",
        "最佳得分相同时没有取第一个下标（topk、降序排序或反向 argmax 可能选到别的）：所有均匀数都为 0 的抽样"
        "必须返回第一个 logit（或概率）最大的 token",
    ),
    "race_one_minus_u": Bilingual(
        "the exponential noise is computed as -log(1 - u) instead of -log(u): a valid distribution, but "
        "not the stated map from u to E (and at u = 0 it divides by zero)",
        "指数噪声算成了 -log(1 - u)，而不是 -log(u)：分布没错，但不是题目规定的 u 到 E 的映射（而且 u = 0 时会除以零）",
    ),
    "race_zero_underflow": Bilingual(
        "a token of probability 0 wins the exponential race when the scores p / E of the positive tokens "
        "underflow to 0, or their clocks E / p overflow to inf (tiny weights such as 1e-320): the zero tokens tie "
        "with them and the first index wins; give zero-probability tokens a score below every other, or compare "
        "in log space",
        "正概率 token 的得分 p / E 下溢为 0、或它们的时钟 E / p 上溢为 inf 时（例如权重为 1e-320），概率为 0 的 "
        "token 在指数竞赛中获胜了：它们与正概率 token 并列，下标最小的胜出；应给概率为 0 的 token 一个比谁都低的"
        "得分，或在对数空间中比较",
    ),
    "alias_off_by_one_cell": Bilingual(
        "the alias table leaves its last cell unfilled (accept 0, alias 0): the implied distribution moves "
        "one cell's mass, 1/V, to token 0",
        "别名表的最后一格没有填（accept 为 0，alias 为 0）：表所隐含的分布把一格的质量 1/V 挪到了 token 0",
    ),
    "alias_unnormalised": Bilingual(
        "the alias table assumes each row sums to 1: scale by V / sum(p), not by V, so that weights work too",
        "别名表假定每行的和为 1：应按 V / sum(p) 缩放，而不是按 V，这样权重也能用",
    ),
    "alias_float32": Bilingual(
        "the alias table is built in float32: its implied distribution is off by float32 rounding; build it in float64",
        "别名表是用 float32 构造的：它隐含的分布带有 float32 的舍入误差；应当用 float64 构造",
    ),
    "alias_coin_le": Bilingual(
        "the alias draw keeps the column when coin <= accept instead of coin < accept: a coin of exactly 0 "
        "draws a column of probability 0",
        "别名抽样在 coin <= accept 时保留本列，而不是 coin < accept：coin 恰为 0 时会抽到概率为 0 的列",
    ),
    "alias_column_float32": Bilingual(
        "the alias column floor(u V) is computed in float32: a uniform just below a cell edge k / V rounds up "
        "into cell k (and a float64 1 - 2^-53 becomes 1); compute the product in float64",
        "别名法的列 floor(u V) 是用 float32 计算的：略小于格边界 k / V 的均匀数被舍入进了第 k 格（float64 的 "
        "1 - 2^-53 也会变成 1）；应当用 float64 计算这个乘积",
    ),
    "alias_swapped": Bilingual(
        "the alias draw swaps its branches: it returns the alias when coin < accept and the column otherwise",
        "别名抽样的两个分支弄反了：coin < accept 时返回了 alias，否则返回本列",
    ),
    "alias_one_uniform": Bilingual(
        "the alias draw uses one uniform for both the column and the coin, so the coin depends on the column",
        "别名抽样用同一个均匀随机数既选列又抛硬币，硬币因此依赖于所选的列",
    ),
    "noise_reused_across_draws": Bilingual(
        "the noise of a row is drawn once and reused for every draw: all n draws of a row are the same token",
        "每行的噪声只抽了一次，所有抽样都复用它：一行的 n 次抽样全是同一个 token",
    ),
    "noise_shared_across_rows": ROWS_SHARE_DIAGNOSIS,  # the judge's own independence check names it
    "alias_table_invalid": Bilingual(
        "the alias table is malformed: accept must lie in [0, 1] and alias must hold token ids in [0, V)",
        "别名表格式不对：accept 必须在 [0, 1] 内，alias 必须是 [0, V) 中的 token 编号",
    ),
    "uniform_nan_accepted": Bilingual(
        "a NaN uniform is accepted: NaN fails every comparison, so a range check written as (u < 0) or "
        "(u >= 1) lets it through; refuse every value that is not in [0, 1)",
        "NaN 均匀数被接受了：NaN 与任何数比较都为假，写成 (u < 0) 或 (u >= 1) 的范围检查会放过它；"
        "应拒绝一切不在 [0, 1) 内的值",
    ),
    "logits_posinf_accepted": Bilingual(
        "logits holding +inf are accepted (NaN and rows of -inf are refused, +inf is not); refuse +inf too",
        "含 +inf 的 logits 被接受了（NaN 和全为 -inf 的行被拒绝了，+inf 却没有）；+inf 也应拒绝",
    ),
    "alias_range_where_used": Bilingual(
        "an alias id outside [0, V) is accepted on a cell with accept = 1: every cell's alias must be a "
        "token id, even where it is never used",
        "accept = 1 的格子上 [0, V) 之外的 alias 编号被接受了：每一格的 alias 都必须是 token 编号，即使它用不到",
    ),
    "zero_row_accepted": Bilingual(
        "a row of probs summing to 0 is accepted: every row needs a positive sum (check each row's sum, not "
        "the whole tensor's)",
        "probs 中和为 0 的一行被接受了：每一行的和都必须为正（应逐行检查，而不是检查整个张量的和）",
    ),
    "neginf_row_accepted": Bilingual(
        "a row of logits that is all -inf is accepted: each row needs at least one finite value, even when the "
        "other rows have one (check each row, not the whole tensor)",
        "logits 中全为 -inf 的一行被接受了：每一行都至少要有一个有限值，即使其他行有（应逐行检查，而不是检查整个张量）",
    ),
    "num_samples_not_int": Bilingual(
        "num_samples that is not an int (a float such as 2.5, a string, a bool) is accepted, converted with "
        "int() or used as it is; refuse anything but an int >= 1",
        "不是 int 的 num_samples（2.5 这样的浮点数、字符串、bool）被接受了：用 int() 转换或直接使用；"
        "除了不小于 1 的 int 都应拒绝",
    ),
    "unknown_method_accepted": Bilingual(
        "an unknown method is accepted (it falls through to one of the four methods); refuse every name but "
        '"inverse_cdf", "gumbel", "race" and "alias"',
        '未知的 method 被接受了（落到了四种方法之一）；除 "inverse_cdf"、"gumbel"、"race"、"alias" 之外的名字都应拒绝',
    ),
    "alias_zero_reachable": Bilingual(
        "the alias table can draw a token of probability 0 (its own cell accepts it, or another cell aliases "
        "to it with a positive share)",
        "别名表可能抽到概率为 0 的 token（它自己的格子接受它，或者别的格子以正的份额别名到它）",
    ),
}
