"""The known mistakes of exercise 47 and the diagnosis a learner reads for each (English, Chinese).

Shared by the hidden tests (whose oracle computes what each distribution mistake returns) and the
public and tiny suites (which hold frozen values). It holds no answers.
"""

from __future__ import annotations

from judge.i18n import Bilingual

# Mistake name -> the diagnosis shown to a learner whose output matches it. The first block are the
# distribution mistakes (each a distribution a wrong ``truncated_probs`` returns: ``DISTRIBUTION_MISTAKES``).
MISTAKES: dict[str, Bilingual] = {
    "entropy_bits": Bilingual(
        "the entropy is measured in bits (log2); it must be in nats (natural logarithm)",
        "熵是用比特（log2）算的；应当用奈特（自然对数）",
    ),
    "entropy_before_temperature": Bilingual(
        "the entropy is taken of the distribution before temperature; it must be the tempered one",
        "熵用的是加温度之前的分布；应当用加温度之后的分布",
    ),
    "entropy_nan": Bilingual(
        "a -inf logit makes the entropy NaN (0 * log 0 must count as 0)",
        "-inf 的 logit 让熵变成了 NaN（0 * log 0 应当按 0 计）",
    ),
    "typical_by_probability": Bilingual(
        "typical sampling ranks tokens by probability (that is top-p), not by the distance of their "
        "surprisal from the entropy",
        "典型采样按概率大小排序（那是 top-p），而不是按惊奇度离熵的远近排序",
    ),
    "typical_drops_crossing": Bilingual(
        "typical sampling drops the token that carries the mass to tau (it keeps only a mass below tau)",
        "典型采样丢掉了把累计概率推到 tau 的那个 token（只保留了小于 tau 的质量）",
    ),
    "typical_ties_by_index": Bilingual(
        "tokens of equal probability are split at the typical cut (the tie is broken by index); they "
        "must all be kept or all dropped",
        "概率相等的 token 在典型截断处被拆开了（按下标打破并列）；它们应当全留或全丢",
    ),
    "typical_one_cuts": Bilingual(
        "typical sampling with tau = 1 still cuts tokens once a floating-point running total reaches 1",
        "tau = 1 时典型采样仍然在浮点累计和到达 1 之后截掉了 token",
    ),
    "no_top_kept": Bilingual(
        "when every token falls below the threshold nothing is kept: the most probable token must always stay",
        "所有 token 都低于阈值时一个也没留下：概率最大的 token 必须始终保留",
    ),
    "top_ties_by_index": Bilingual(
        "of the tokens tied for the largest probability only the first is kept below the threshold; "
        "every tied one must stay",
        "并列最大概率的 token 在低于阈值时只留下了第一个；所有并列的都应当保留",
    ),
    "eta_max": Bilingual(
        "eta's threshold takes the max of eta and sqrt(eta) * exp(-H) instead of the min",
        "eta 的阈值取了 eta 与 sqrt(eta) * exp(-H) 中的较大者，而不是较小者",
    ),
    "eta_no_min": Bilingual(
        "eta's threshold is sqrt(eta) * exp(-H) alone, without the min with eta",
        "eta 的阈值只用了 sqrt(eta) * exp(-H)，没有再与 eta 取较小者",
    ),
    "eta_no_sqrt": Bilingual(
        "eta's threshold uses eta * exp(-H) instead of sqrt(eta) * exp(-H)",
        "eta 的阈值用了 eta * exp(-H)，而不是 sqrt(eta) * exp(-H)",
    ),
    "not_renormalized": Bilingual(
        "the kept probabilities are not renormalized to sum to 1",
        "保留下来的概率没有重新归一化到和为 1",
    ),
    "epsilon_unnormalized": Bilingual(
        "epsilon is compared with exp(z - max z), not with the probability (that is min-p)",
        "epsilon 比较的对象是 exp(z - max z) 而不是概率（那是 min-p）",
    ),
    "temperature_after_cut": Bilingual(
        "the cut is made on the distribution before temperature (the temperature comes first)",
        "截断用的是加温度之前的分布（应当先做温度）",
    ),
    "no_greedy": Bilingual(
        "temperature 0 is not treated as greedy (always the first argmax)",
        "温度为 0 时没有按贪心处理（应当总是取第一个最大值）",
    ),
    "row0_params": Bilingual(
        "the parameters of row 0 are used for every row",
        "所有行都用了第 0 行的参数",
    ),
}

# The mistakes whose distribution the oracle computes (hidden/oracle.py) and the frozen cases hold.
DISTRIBUTION_MISTAKES = tuple(MISTAKES)
