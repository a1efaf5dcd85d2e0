"""The known mistakes of exercise 46 and the diagnosis a learner reads for each (English, Chinese).

Shared by the hidden tests and the tiny variant that runs in the browser (``models46.py`` computes
what each mistake returns). It holds no answers.
"""

from __future__ import annotations

from judge.i18n import Bilingual

# Mistake name -> the diagnosis shown to a learner whose output matches it.
MISTAKES: dict[str, Bilingual] = {
    # apply_penalties: the repetition rule.
    "negative_divided": Bilingual(
        "the repetition penalty divides every seen logit, negative ones too: a negative logit divided by a "
        "penalty above 1 moves toward 0 and the token becomes MORE likely; multiply the logits <= 0 instead",
        "重复惩罚把所有出现过的 logit 都除以了惩罚系数，负数也不例外：负的 logit 除以大于 1 的系数会向 0 靠近，"
        "token 反而更可能被选中；logit <= 0 时应当乘以系数",
    ),
    "repetition_per_occurrence": Bilingual(
        "the repetition penalty is applied once per occurrence (penalty ** count): it applies once to every "
        "token seen, however often it occurred",
        "重复惩罚按出现次数施加了多次（系数的 count 次方）：它对每个出现过的 token 只施加一次，与出现几次无关",
    ),
    "swapped_order": Bilingual(
        "the frequency and presence penalties are subtracted before the repetition rule: the repetition rule "
        "looks at the sign of the model's own logit, so it comes first",
        "先减去了频率惩罚和存在惩罚，再做重复惩罚：重复惩罚看的是模型原始 logit 的符号，所以应当先做",
    ),
    # apply_penalties: the OpenAI rule.
    "presence_per_occurrence": Bilingual(
        "the presence penalty is subtracted once per occurrence (count * presence): it is subtracted once for "
        "a token seen at all",
        "存在惩罚按出现次数减了多次（count * presence）：只要出现过，它只减一次",
    ),
    "frequency_once": Bilingual(
        "the frequency penalty is subtracted once per seen token instead of once per occurrence (count * frequency)",
        "频率惩罚对每个出现过的 token 只减了一次，而它应当按出现次数累计（count * frequency）",
    ),
    "sign_flipped": Bilingual(
        "the frequency and presence penalties are added instead of subtracted: a positive penalty must lower "
        "the logit of a seen token",
        "频率惩罚和存在惩罚被加上了，而不是减去：正的惩罚应当降低出现过的 token 的 logit",
    ),
    "mask_nan": Bilingual(
        "a -inf logit comes back as NaN: the penalties are blended in with a 0/1 mask (-inf * 0 is NaN); pick "
        "the branch with torch.where instead",
        "-inf 的 logit 变成了 NaN：惩罚是用 0/1 掩码相乘混进去的（-inf * 0 是 NaN）；应当用 torch.where 选择分支",
    ),
    # apply_penalties: counting.
    "pad_counted": Bilingual(
        "the padding is counted as a token: pad entries are sent to token 0 (clamped or filled with 0) and "
        "penalize it; entries equal to pad_id must be left out of the counts",
        "补齐的元素被当成了 token：pad 被送到了 token 0（被 clamp 或填成 0），于是 token 0 受罚；"
        "等于 pad_id 的元素不应计数",
    ),
    "batch_mixing": Bilingual(
        "the counts mix the rows of the batch: a token seen in one row of prev_tokens is penalized in every row; "
        "count each row's tokens on its own (scatter along dim 1, or offset the ids by row before bincount)",
        "计数把 batch 的各行混在了一起：某一行 prev_tokens 中出现过的 token 在所有行都受罚；"
        "应当每行单独计数（沿 dim 1 scatter，或者先按行给 id 加偏移再 bincount）",
    ),
    "vocab_broadcast": Bilingual(
        "a per-row parameter tensor [B] is broadcast along the vocabulary: token v gets the parameter of row v; "
        "make it a column (unsqueeze(1), shape [B, 1]) so that row b gets its own value",
        "按行参数张量 [B] 沿词表那一维广播了：token v 用的是第 v 行的参数；应当把它变成列（unsqueeze(1)，"
        "形状 [B, 1]），让第 b 行用自己的值",
    ),
    "first_row_parameters": Bilingual(
        "every row uses row 0's value of a per-row parameter tensor (float(tensor[0]), or .item() of a slice): "
        "row b must use entry b",
        "每一行都用了按行参数张量第 0 行的值（float(tensor[0]) 之类）：第 b 行应当用第 b 个值",
    ),
    # sample_with_penalties.
    "penalties_after_temperature": Bilingual(
        "the penalties are applied after the temperature (to logits / T): they come first, on the model's own "
        "logits, and the temperature divides the penalized logits",
        "惩罚在温度之后才施加（作用在 logits / T 上）：惩罚应当先作用在模型原始的 logits 上，"
        "再用温度去除惩罚后的 logits",
    ),
    "greedy_raw_logits": Bilingual(
        "greedy rows (temperature 0) take the largest raw logit: greedy decoding picks the largest PENALIZED logit",
        "贪心的行（温度为 0）取的是原始 logits 的最大值：贪心解码应当取惩罚后 logits 的最大值",
    ),
}

# Refusal groups -> the diagnosis when a call that must raise returns normally.
REFUSALS: dict[str, Bilingual] = {
    "logits": Bilingual(
        "bad logits are accepted: logits must be a 2-D tensor with no NaN or +inf and a finite value in every row",
        "非法的 logits 被接受了：logits 必须是二维张量，不含 NaN 或 +inf，且每行至少有一个有限值",
    ),
    "prev_tokens": Bilingual(
        "a bad prev_tokens is accepted: it must be a 2-D int64 tensor with B rows",
        "非法的 prev_tokens 被接受了：它必须是有 B 行的二维 int64 张量",
    ),
    "token_range": Bilingual(
        "a token id outside [0, V) that is not pad_id is accepted (ignored or clamped): it must raise ValueError",
        "不在 [0, V) 内且不等于 pad_id 的 token id 被接受了（被忽略或被截断）：应当抛出 ValueError",
    ),
    "pad_id": Bilingual(
        "a bad pad_id is accepted: pad_id must be a Python int that is not a vocabulary id (negative, or >= V)",
        "非法的 pad_id 被接受了：pad_id 必须是 Python int，且不是词表中的 id（为负数或不小于 V）",
    ),
    "repetition_penalty": Bilingual(
        "a repetition_penalty <= 0, NaN or infinite is accepted: it must be a finite number > 0",
        "<= 0、NaN 或无穷的 repetition_penalty 被接受了：它必须是大于 0 的有限数",
    ),
    "openai_penalty": Bilingual(
        "a NaN or infinite frequency_penalty or presence_penalty is accepted: both must be finite",
        "NaN 或无穷的 frequency_penalty 或 presence_penalty 被接受了：二者都必须是有限数",
    ),
    "parameter_shape": Bilingual(
        "a parameter tensor that is not a 1-D tensor of length B is accepted",
        "不是长度为 B 的一维张量的参数张量被接受了",
    ),
    "sampler": Bilingual(
        "a bad temperature, top_k, top_p, min_p or num_samples is accepted: the sampler refuses what exercise 39 "
        "refuses",
        "非法的 temperature、top_k、top_p、min_p 或 num_samples 被接受了：采样器应当拒绝第 39 题拒绝的一切",
    ),
}
