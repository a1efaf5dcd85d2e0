"""The known mistakes of exercise 49 and the diagnosis a learner reads for each (English, Chinese).

Shared by the hidden tests (whose oracle computes what each mistake returns) and the tiny variant that
runs in the browser. It holds no answers.
"""

from __future__ import annotations

from judge.i18n import Bilingual

# Mistake name -> the diagnosis shown to a learner whose output matches it.
MISTAKES: dict[str, Bilingual] = {
    # allowed_mask.
    "mask_gt_zero": Bilingual(
        "the mask tests transitions > 0 instead of >= 0: a token that leads to state 0 is allowed too; only -1 "
        "marks a disallowed token",
        "掩码用的是 transitions > 0 而不是 >= 0：通向状态 0 的 token 同样是允许的；只有 -1 才表示不允许",
    ),
    # constrained_probs.
    "mask_after_softmax": Bilingual(
        "the mask is applied after the softmax without renormalizing: the disallowed tokens' probability is "
        "zeroed but the row no longer sums to 1; set disallowed logits to -inf before the softmax",
        "掩码是在 softmax 之后乘上去的，而且没有重新归一化：不允许的 token 概率被清零了，但这一行的和不再是 1；"
        "应在 softmax 之前把不允许的 logit 设为 -inf",
    ),
    "filters_before_mask": Bilingual(
        "top-k / top-p run before the mask: they choose among all tokens, disallowed ones included, and the mask "
        "then removes some of the survivors; mask first, so that the filters keep the most likely allowed tokens",
        "top-k / top-p 在掩码之前执行了：它们在所有 token（包括不允许的）中挑选，掩码随后又删掉了一部分幸存者；"
        "应先做掩码，让过滤器保留概率最大的允许 token",
    ),
    "mask_fills_zero": Bilingual(
        "disallowed logits are set to 0 instead of -inf: a logit of 0 is an ordinary score, so disallowed tokens "
        "keep probability and get drawn; use -inf (torch.where(mask, logits, -inf))",
        "不允许的 logit 被设成了 0 而不是 -inf：logit 为 0 只是一个普通的分数，不允许的 token 仍有概率并会被抽到；"
        "应设为 -inf（torch.where(mask, logits, -inf)）",
    ),
    "mask_bias_nan": Bilingual(
        "the mask is added as (~mask) * -inf: for an allowed token that is 0 * -inf = NaN, so every sampled row "
        "turns to NaN and a greedy row's argmax lands on the first NaN, the first allowed token; build the bias "
        "with torch.where, or use masked_fill",
        "掩码是以 (~mask) * -inf 的形式加上去的：对允许的 token 这是 0 * -inf = NaN，于是每个采样行都变成了 NaN，"
        "贪心行的 argmax 则落在第一个 NaN 上，也就是第一个允许的 token；应用 torch.where 构造偏置，或者用 masked_fill",
    ),
    "greedy_ignores_mask": Bilingual(
        "greedy rows (temperature 0) take the argmax of the raw logits: the largest logit may belong to a "
        "disallowed token; take the argmax of the masked logits",
        "贪心行（temperature 为 0）对原始 logits 取了 argmax：最大的 logit 可能属于不允许的 token；"
        "应对掩码后的 logits 取 argmax",
    ),
    "greedy_mask_multiplied": Bilingual(
        "greedy rows (temperature 0) take the argmax of logits * mask (or of logits with 0 at disallowed "
        "tokens): when every allowed logit is negative, a disallowed token's 0 wins; disallowed tokens need -inf",
        "贪心行（temperature 为 0）对 logits * mask（或把不允许的 token 置 0 的 logits）取了 argmax：当允许的 logit "
        "全为负数时，不允许的 token 的 0 反而最大；不允许的 token 应为 -inf",
    ),
    # refusals.
    "dead_state_token_zero": Bilingual(
        "a row where no allowed token has a finite logit (a dead state) returned a token instead of raising "
        "ValueError: there is nothing to draw from, and any token returned breaks the constraint",
        "某一行没有任何允许的 token 具有有限 logit（死状态），却返回了一个 token，而不是抛出 ValueError："
        "这一行无从抽样，返回任何 token 都违反约束",
    ),
    "neginf_row_not_refused": Bilingual(
        "only dead states are refused: a row whose allowed tokens all have -inf logits has nothing to draw "
        "from either and must raise ValueError",
        "只拒绝了死状态：如果一行中所有允许的 token 的 logit 都是 -inf，这一行同样无从抽样，也必须抛出 ValueError",
    ),
    "negative_state_accepted": Bilingual(
        "a state of -1 is accepted: -1 marks a disallowed token, never a state, and Python's indexing reads "
        "transitions[-1] as the last state; states must lie in [0, S)",
        "接受了值为 -1 的状态：-1 表示不允许的 token，绝不是状态，而 Python 的下标会把 transitions[-1] 读成最后一个"
        "状态；状态必须在 [0, S) 内",
    ),
    # sample_constrained.
    "next_states_batch_row": Bilingual(
        "next_states reads row b of transitions instead of row states[b] (transitions.gather(1, tokens), say): "
        "the next state is transitions[states[b], tokens[b]]",
        "next_states 读的是 transitions 的第 b 行，而不是第 states[b] 行（例如 transitions.gather(1, tokens)）："
        "下一状态应为 transitions[states[b], tokens[b]]",
    ),
    "inverse_cdf_zero_u": Bilingual(
        "at u = 0 the sampler returns a token of probability 0: a search for the first cumulative value >= u "
        "stops on a leading disallowed token (whose cumulative value is 0; search for the first one > u), or "
        "Gumbel noise -log(-log(0)) = -inf leaves every allowed token at -inf and argmax falls on token 0 (keep "
        "u above 0)",
        "u = 0 时采样器返回了概率为 0 的 token：查找第一个 >= u 的累计值，会停在开头那个不允许的 token 上（它的累计值"
        "是 0；应查找第一个 > u 的累计值），或者 Gumbel 噪声 -log(-log(0)) = -inf 让所有允许的 token 都成了 -inf，"
        "argmax 落到 token 0 上（应让 u 保持大于 0）",
    ),
    "inverse_cdf_past_end": Bilingual(
        "at u just below 1 the sampler returns a disallowed token: the cumulative sum ends a hair below 1, the "
        "search runs past it and the index is clamped to the last token; scale u by the row's total (or search "
        "only among allowed tokens)",
        "u 略小于 1 时采样器返回了不允许的 token：累计和的末尾比 1 略小，查找越过了末尾，下标又被截到最后一个 token；"
        "应把 u 乘以这一行的总和（或只在允许的 token 中查找）",
    ),
    # generate_constrained.
    "generate_previous_mask": Bilingual(
        "generate_constrained masks step t with the state of step t - 1 (the mask is one step behind the "
        "state): a token allowed one step earlier but not in the current state comes out; update the state "
        "before the next step's mask",
        "generate_constrained 第 t 步用了第 t - 1 步的状态来做掩码（掩码比状态落后一步）：抽出了上一步允许、"
        "当前状态却不允许的 token；应先更新状态，再取下一步的掩码",
    ),
    "generate_start_logits": Bilingual(
        "generate_constrained uses the logits of the start state at every step: the model's logits at step t "
        "are state_logits[s] of the current state s",
        "generate_constrained 每一步都用了起始状态的 logits：第 t 步模型的 logits 应为当前状态 s 的 state_logits[s]",
    ),
    "generate_refuses_reachable": Bilingual(
        "generate_constrained raised ValueError in every call for a dead state that a row reaches only along some "
        "paths: decide from the state each row is really in at each step, not from the states it could reach",
        "对于一行只在某些路径上才会到达的死状态，generate_constrained 每次调用都抛出了 ValueError：应根据每一行在每一步"
        "实际所处的状态来判断，而不是根据它可能到达的状态",
    ),
    "generate_refuses_unreachable": Bilingual(
        "generate_constrained raised ValueError for a dead state that no row has to draw from: only a state a "
        "row is in at one of the steps must offer a token",
        "generate_constrained 因为一个没有任何行需要从中抽样的死状态而抛出了 ValueError：只有某一行在某一步所处的状态"
        "才必须提供可抽的 token",
    ),
}
