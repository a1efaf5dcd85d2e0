"""The known mistakes of exercise 42 and the diagnosis a learner reads for each (English, Chinese).

Shared by the hidden tests (whose oracle computes what each mistake returns) and the tiny
variant that runs in the browser (which holds frozen values). It holds no answers. The order
matters: when several mistakes reproduce an output, the first one listed is named.
"""

from __future__ import annotations

from judge.i18n import Bilingual

# Mistakes of sequence_log_prob.
LOG_PROB: dict[str, Bilingual] = {
    "log_softmax_wrong_axis": Bilingual(
        "log-softmax is taken over the wrong axis (the positions T instead of the vocabulary V)",
        "log-softmax 取错了维度（对位置维 T 而不是词表维 V 做了归一化）",
    ),
    "padding_counted": Bilingual(
        "padded positions are counted: the mask is ignored", "把填充位置也算了进去：没有使用 mask"
    ),
    "logits_shifted": Bilingual(
        "the logits are shifted by one position (logits[:, t] scores tokens[:, t], not tokens[:, t + 1])",
        "logits 错位了一个位置（logits[:, t] 给 tokens[:, t] 打分，而不是 tokens[:, t + 1]）",
    ),
    "no_log_softmax": Bilingual(
        "raw logits are used as log-probabilities: log-softmax is missing",
        "把原始 logits 当成了对数概率：缺少 log-softmax",
    ),
    "padding_multiplied": Bilingual(
        "padding is removed by multiplying with the mask, so NaN or inf at a padded position still "
        "poisons the sum (NaN x 0 is NaN); select with torch.where instead",
        "用乘以 mask 的方式去掉填充位置，填充处的 NaN 或 inf 仍会污染求和（NaN x 0 仍是 NaN）；"
        "应当用 torch.where 来选取",
    ),
    "padding_ids_gathered": Bilingual(
        "padded token ids (such as -100) are used as indices: replace them before gather, or select "
        "the real positions first",
        "把填充位置的 token 编号（例如 -100）当成了下标：gather 之前先替换掉，或者先选出真实位置",
    ),
    "softmax_overflow": Bilingual(
        "softmax is computed without subtracting the maximum: large logits overflow exp() and give NaN",
        "计算 softmax 时没有减去最大值：logits 很大时 exp() 溢出，结果是 NaN",
    ),
    "logsumexp_unshifted": Bilingual(
        "log-sum-exp is computed without subtracting the maximum (x - log(sum(exp(x)))): large logits overflow "
        "exp() to inf and every log-probability becomes -inf; subtract the row's maximum first, or use "
        "log_softmax",
        "计算 log-sum-exp 时没有先减去最大值（x - log(sum(exp(x)))）：logits 很大时 exp() 溢出为 inf，每个对数概率"
        "都变成 -inf；应当先减去这一行的最大值，或者直接用 log_softmax",
    ),
    "log_of_softmax": Bilingual(
        "log(softmax(x)) underflows: a very unlikely token gets probability 0 and log-probability -inf; "
        "use log_softmax",
        "log(softmax(x)) 会下溢：极不可能的 token 概率变成 0，对数概率变成 -inf；应当用 log_softmax",
    ),
    "linear_space_product": Bilingual(
        "probabilities are multiplied in linear space: a long sequence underflows to 0 (log-probability "
        "-inf); add log-probabilities instead",
        "在线性空间里连乘概率：长序列会下溢为 0（对数概率变成 -inf）；应当把对数概率相加",
    ),
}

# Mistakes of greedy_decode and beam_search.
DECODING: dict[str, Bilingual] = {
    "transition_wrong_axis": Bilingual(
        "the transition logits are normalized over the previous token (axis 1) instead of the next token "
        "(the last axis)",
        "转移 logits 按前一个 token（第 1 维）归一化了，应当按下一个 token（最后一维）归一化",
    ),
    "no_log_softmax": LOG_PROB["no_log_softmax"],
    "greedy_ignores_eos": Bilingual(
        "greedy decoding keeps going after EOS: the tokens after EOS must be pad_id and add nothing "
        "to the log-probability",
        "贪心解码在 EOS 之后还继续生成：EOS 之后的位置必须是 pad_id，也不计入对数概率",
    ),
    "beams_not_deduplicated": Bilingual(
        "the beam starts as beam_width copies of the empty prefix, so it fills with duplicates of one "
        "hypothesis and beam search degenerates to greedy",
        "束一开始放了 beam_width 份相同的空前缀，于是束里全是同一个假设的副本，束搜索退化成了贪心",
    ),
    "finished_beams_dropped": Bilingual(
        "finished hypotheses are dropped: only those of the last step are compared, so a sequence that "
        "ended earlier with EOS is lost",
        "丢掉了已结束的假设：只比较最后一步的假设，较早以 EOS 结束的序列被丢失了",
    ),
    "length_penalty_only_reported": Bilingual(
        "the best hypothesis is chosen by its raw log-probability and only the returned score has the length "
        "penalty; choose by the penalized score",
        "按原始对数概率选出最佳假设，只在返回的得分上用了长度惩罚；应当按惩罚后的得分来选",
    ),
    "stops_at_first_eos": Bilingual(
        "beam search stops as soon as one hypothesis ends with EOS, instead of when every slot of the beam "
        "has finished or max_len is reached",
        "束搜索在第一个假设以 EOS 结束时就停止了，而应当在束的所有位置都结束或达到 max_len 时才停止",
    ),
    "per_beam_best_only": Bilingual(
        "each hypothesis is extended by its single best token only; the global top-k must consider every "
        "continuation of every hypothesis",
        "每个假设只用它最好的一个 token 扩展；全局 top-k 必须考虑每个假设的每一种延续",
    ),
    "length_penalty_twice": Bilingual(
        "the length penalty is applied twice (the score is divided by length ** (2 * length_penalty))",
        "长度惩罚用了两次（得分被除以 length ** (2 * length_penalty)）",
    ),
    "length_penalty_ignored": Bilingual(
        "the length penalty is never applied: hypotheses are compared by their raw log-probability",
        "没有使用长度惩罚：直接按原始对数概率比较假设",
    ),
    "length_counts_non_pad": Bilingual(
        "the length in the penalty is read back from the padded tokens (positions != pad_id), so it is wrong "
        "when pad_id equals EOS or a real token; count the tokens of the hypothesis itself",
        "长度惩罚中的长度是从填充后的 token 里数出来的（不等于 pad_id 的位置），当 pad_id 等于 EOS "
        "或某个真实 token 时就错了；应当直接数假设本身的 token 个数",
    ),
    "length_excludes_eos": Bilingual(
        "the length in the penalty does not count the EOS token (it must count every token, EOS included)",
        "长度惩罚中的长度没有计入 EOS（应当计入包括 EOS 在内的每个 token）",
    ),
    "finished_compete": Bilingual(
        "finished hypotheses stay in the beam and compete with the unfinished ones for its slots, so a "
        "likelier continuation can push a finished hypothesis out; a finished hypothesis keeps its place, "
        "and each step keeps beam_width - (number finished) new candidates",
        "已结束的假设留在束里与未结束的假设争夺位置，于是概率更大的延续会把已结束的假设挤出去；"
        "已结束的假设应当保留，每一步只保留 beam_width -（已结束个数）个新候选",
    ),
    "beam_not_shrunk": Bilingual(
        "the beam is refilled to beam_width after a hypothesis finishes; it must shrink by one for each "
        "finished hypothesis",
        "有假设结束后又把束补满到 beam_width；每结束一个假设，束就应当缩小一个",
    ),
    "greedy_eos_first_ignored": Bilingual(
        "a first token EOS does not end greedy decoding: EOS ends the sequence at every step, the first "
        "included ([EOS] alone is a sequence of length 1)",
        "第一个 token 是 EOS 时贪心解码没有停止：EOS 在任何一步都结束序列，第一步也一样"
        "（单独的 [EOS] 就是长度为 1 的序列）",
    ),
    "unfinished_dropped_at_max_len": Bilingual(
        "at t = max_len the kept candidates without EOS are dropped instead of finishing: every kept "
        "candidate of the last step is finished, with EOS or without",
        "在 t = max_len 时丢掉了保留下来但没有 EOS 的候选，而不是让它们结束：最后一步保留下来的每个候选都算已结束，"
        "不论是否以 EOS 结尾",
    ),
    "eos_not_first": Bilingual(
        "EOS is refused as the first token: it is a token like the others, and [EOS] alone is a sequence of "
        "length 1 (with its own probability)",
        "第一个 token 不允许是 EOS：EOS 与其他 token 一样，单独的 [EOS] 也是一个长度为 1 的序列（有它自己的概率）",
    ),
}

# Diagnoses by rule (no oracle output needed).
TIES = Bilingual(
    "a tie is broken the wrong way: equal log-probabilities or scores go to the lexicographically "
    "smaller token sequence (equal greedy maxima: the lowest token id)",
    "并列时的取舍不对：对数概率或得分相等时取字典序较小的 token 序列（贪心时并列最大取编号最小的 token）",
)

# Diagnoses of a case, not of an oracle's mistake.
PADDING_REFUSED = Bilingual(
    "garbage at a padded position is refused (ValueError): padded positions may hold any token id, such as "
    "-100, and any logits, NaN and inf included; check only the real positions (mask True)",
    "拒绝了填充位置上的垃圾值（ValueError）：填充位置可以是任何 token 编号（例如 -100）"
    "和任何 logits（包括 NaN 与 inf）；只检查真实位置（mask 为 True）",
)
FULL_WIDTH_REFUSED = Bilingual(
    "beam_width = V is refused: any beam_width in [1, V] is valid, V included",
    "拒绝了 beam_width = V：[1, V] 内的任何 beam_width 都合法，包括 V",
)
ONE_STEP = Bilingual(
    "with max_len = 1 the first step is also the last: every kept candidate of that step finishes, with EOS or without",
    "max_len = 1 时第一步也是最后一步：这一步保留下来的每个候选都结束，不论是否以 EOS 结尾",
)
