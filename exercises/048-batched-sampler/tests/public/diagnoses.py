"""The known mistakes of exercise 48 and the diagnosis a learner reads for each (English, Chinese).

Shared by the public and hidden tests (the hidden oracle computes what each mistake returns). It holds
no answers.
"""

from __future__ import annotations

from judge.i18n import Bilingual

# Mistake name -> the diagnosis shown to a learner whose output matches it.
MISTAKES: dict[str, Bilingual] = {
    # Where the randomness comes from.
    "batch_generator": Bilingual(
        "one generator for the whole batch (seeded from the first request): changing only the other "
        "requests' seeds left their tokens unchanged; give every request a generator of its own",
        "整批共用一个生成器（用第一个请求的种子设定）：只改变其他请求的种子，它们的 token 却没有变；"
        "应当给每个请求一个自己的生成器",
    ),
    "position_dependent": Bilingual(
        "a request's token depends on the rest of the batch: reordering, duplicating or splitting the batch "
        "changed it (each row's draw consumed a shared stream, or its generator's stream at the row's "
        "position); draw each row's token from its own generator alone, as its first draw",
        "请求的 token 取决于批中的其他行：打乱顺序、复制或拆分这一批都改变了它（每行的抽样消耗的是一条共用的"
        "随机数流，或者是自己生成器流中与行位置对应的那个数）；应当只用每一行自己的生成器为它抽样，并取其第一次抽样",
    ),
    "offset_ignored": Bilingual(
        "the offset is ignored: one seed gave the same token at every offset; the generator's seed must "
        "depend on the offset too",
        "忽略了 offset：同一个种子在每个 offset 上都给出了同一个 token；生成器的种子也必须取决于 offset",
    ),
    "seed_plus_offset": Bilingual(
        "seed and offset are combined as seed + offset: requests (s, o) and (s + 1, o - 1) got the same "
        "token; hash the pair as a whole",
        "seed 和 offset 被合成了 seed + offset：请求 (s, o) 与 (s + 1, o - 1) 得到了同一个 token；"
        "应当把这一对数作为整体来哈希",
    ),
    "seed_xor_offset": Bilingual(
        "seed and offset are combined as seed XOR offset: requests (s, o) and (s ^ m, o ^ m) got the same "
        "token; hash the pair as a whole",
        "seed 和 offset 被合成了 seed XOR offset：请求 (s, o) 与 (s ^ m, o ^ m) 得到了同一个 token；"
        "应当把这一对数作为整体来哈希",
    ),
    "seed_times_small_k": Bilingual(
        "seed and offset are combined as seed * K + offset with a small K (such as 1000): requests (s, o) and "
        "(s + 1, o - K) got the same token; hash the pair as a whole",
        "seed 和 offset 被合成了 seed * K + offset，K 较小（例如 1000）：请求 (s, o) 与 (s + 1, o - K) "
        "得到了同一个 token；应当把这一对数作为整体来哈希",
    ),
    "seed_lost": Bilingual(
        "the seed never reaches the generator: requests that differ only in their seed got the same token; a CPU "
        "torch.Generator keeps only the low 32 bits of the value given to manual_seed, so seed * 2**32 + offset "
        "(or any mix that leaves the seed out of those bits) throws the seed away; hash the pair into all 64 bits",
        "种子没有传到生成器：只有种子不同的请求得到了同一个 token；CPU 上的 torch.Generator 只保留传给 "
        "manual_seed 的数的低 32 位，所以 seed * 2**32 + offset（或任何让种子落在这些位之外的组合）等于丢掉了种子；"
        "应把这一对数哈希到全部 64 位",
    ),
    "seed_high_bits_lost": Bilingual(
        "requests whose seeds differ by a multiple of 2**32 (same offset) got the same token: only the low 32 "
        "bits of your generator's seed depend on them, and a CPU torch.Generator keeps only those 32 bits of "
        "manual_seed's value (a linear mix such as seed * 0x9E3779B97F4A7C15 + offset keeps them apart in 64 "
        "bits only); hash the pair so that every bit depends on both numbers",
        "种子相差 2**32 的整数倍（offset 相同）的请求得到了同一个 token：你的生成器种子只有低 32 位取决于它们，"
        "而 CPU 上的 torch.Generator 只保留 manual_seed 所收数值的这 32 位（像 seed * 0x9E3779B97F4A7C15 + "
        "offset 这样的线性混合只在 64 位上把它们区分开）；应当做哈希，让每一位都同时取决于这两个数",
    ),
    "python_hash": Bilingual(
        "requests whose seeds differ by 2**61 - 1 (same offset) got the same token: Python's hash() of an int is "
        "taken modulo 2**61 - 1, so hash((seed, offset)) is no hash of the pair; use a real hash (hashlib)",
        "种子相差 2**61 - 1（offset 相同）的请求得到了同一个 token：Python 对整数的 hash() 是对 2**61 - 1 "
        "取模的，所以 hash((seed, offset)) 并不能区分这一对数；应当用真正的哈希（hashlib）",
    ),
    "decimal_concat": Bilingual(
        'the pair is written as one run of digits with no separator: (1, 23) and (12, 3) both read "123" and '
        'got the same token; put a separator between the numbers (f"{seed}:{offset}") or hash fixed-width bytes',
        '这一对数被写成了一串中间没有分隔符的数字：(1, 23) 和 (12, 3) 都是 "123"，得到了同一个 token；'
        '应在两个数之间加分隔符（f"{seed}:{offset}"），或者对定长的字节做哈希',
    ),
    "global_rng": Bilingual(
        "the call uses torch's global generator (it re-seeds it, or draws from it): the state of the global "
        "generator changed; draw from a torch.Generator of each request's own",
        "调用使用了 torch 的全局生成器（重设了它的种子，或从中抽样）：全局生成器的状态变了；"
        "应当从每个请求自己的 torch.Generator 抽样",
    ),
    # Greedy rows.
    "greedy_last_tie": Bilingual(
        "greedy rows break ties towards the last index: among tied largest logits the token must be the lowest index",
        "贪心行在并列时取了最后一个下标：最大 logit 并列时，token 必须是下标最小的那个",
    ),
    "greedy_tiny_temperature": Bilingual(
        "greedy rows sample at a tiny temperature instead of taking the argmax: tied largest logits then share "
        "the draw (and the log-probability is log(1/m), not 0); temperature 0 must return the lowest index "
        "among the largest logits, with log-probability 0",
        "贪心行是用极小的温度去采样，而不是直接取 argmax：最大 logit 并列时会在它们之间随机抽取（对数概率是 "
        "log(1/m) 而不是 0）；温度为 0 时必须返回最大 logit 中下标最小的那个，对数概率为 0",
    ),
    # Log-probabilities.
    "raw_logprob": Bilingual(
        "the log-probability is taken from the raw logits (log_softmax at temperature 1, before the filters); "
        "it must be that of the processed distribution (after temperature, filters and renormalization)",
        "对数概率取自原始 logits（温度为 1、过滤之前的 log_softmax）；它应当是处理后分布（温度、过滤、"
        "重新归一化之后）中的对数概率",
    ),
    "logprob_before_filters": Bilingual(
        "the log-probability is taken after the temperature but before the filters and their renormalization; "
        "it must be that of the distribution the token was drawn from",
        "对数概率是在温度之后、过滤和重新归一化之前取的；它应当是抽出这个 token 所用分布中的对数概率",
    ),
    # Per-row parameters and the filters.
    "row0_parameters": Bilingual(
        "every row uses the first row's parameters (temperature, top_k, top_p, min_p): per-row tensors must "
        "give each row its own value",
        "每一行都用了第一行的参数（temperature、top_k、top_p、min_p）：按行给出的参数张量必须让每行用自己的值",
    ),
    "min_p_before_top_p": Bilingual(
        "min-p is applied before top-p: the order is temperature, top-k, top-p, then min-p",
        "min-p 放在了 top-p 之前：顺序应当是温度、top-k、top-p、然后 min-p",
    ),
    # Draw sites.
    "inverse_cdf_off_end": Bilingual(
        "the inverse CDF runs past the last token when the uniform is just below 1 (the cumulative sum ends "
        "a hair below 1): clamp the index to the last token with positive probability",
        "当均匀随机数略小于 1 时，逆 CDF 越过了最后一个 token（累计和的末尾比 1 小一点点）："
        "应把下标限制在最后一个概率为正的 token 上",
    ),
}
