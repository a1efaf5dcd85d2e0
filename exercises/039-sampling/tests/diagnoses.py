"""The known mistakes of exercise 39 and the diagnosis a learner reads for each (English, Chinese).

Shared by the hidden tests (through the oracle, which computes what each mistake returns) and
the tiny variant that runs in the browser (which holds frozen values). It holds no answers.
"""

from __future__ import annotations

from judge.i18n import Bilingual

# Mistake name -> the diagnosis shown to a learner whose output matches it.
MISTAKES: dict[str, Bilingual] = {
    "temperature_multiplied": Bilingual("the logits are multiplied by the temperature instead of divided by it",
                                        "logits 乘以了温度，而不是除以温度"),
    "temperature_ignored": Bilingual("the temperature has no effect (applied after softmax, or not at all)",
                                     "温度没有起作用（在 softmax 之后才使用，或者根本没用）"),
    "no_greedy": Bilingual("temperature 0 is not treated as greedy (always the first argmax)",
                           "温度为 0 时没有按贪心处理（应当总是取第一个最大值）"),
    "greedy_ties_split": Bilingual("temperature 0 is not treated as greedy: tied maxima must go to the first one",
                                   "温度为 0 时没有按贪心处理：并列最大值必须取下标最小的那个"),
    "top_k_plus_one": Bilingual("top-k keeps one token too many (k+1)", "top-k 多保留了一个 token（k+1 个）"),
    "top_p_drops_crossing": Bilingual("top-p drops the token that crosses the threshold",
                                      "top-p 丢掉了使累计概率越过阈值的那个 token"),
    "top_p_one_extra": Bilingual("top-p keeps one token more than the nucleus", "top-p 比核（nucleus）多保留了一个 token"),
    "top_p_unsorted": Bilingual("top-p adds up probabilities in vocabulary order instead of sorted order",
                                "top-p 按词表顺序而不是按概率从大到小的顺序累加"),
    "min_p_absolute": Bilingual("min-p is used as an absolute threshold instead of relative to the largest probability",
                                "min-p 被当成了绝对阈值，而不是相对于最大概率的比例"),
    "filters_reordered": Bilingual("the filters are applied in the wrong order: top-p before top-k, or top-p on "
                                   "probabilities not renormalized after top-k (the order is top-k, top-p, min-p)",
                                   "过滤顺序错误：top-p 在 top-k 之前，或者 top-k 之后没有重新归一化就做 top-p"
                                   "（正确顺序是 top-k、top-p、min-p）"),
    "min_p_first": Bilingual("the filters are applied in the wrong order (min-p first; the order is top-k, top-p, min-p)",
                             "过滤顺序错误（先做了 min-p；正确顺序是 top-k、top-p、min-p）"),
    "no_filtering": Bilingual("top-k, top-p and min-p have no effect", "top-k、top-p 和 min-p 没有起作用"),
    "row0_params": Bilingual("the parameters of row 0 are used for every row", "所有行都用了第 0 行的参数"),
}
