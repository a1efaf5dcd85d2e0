"""Frozen hidden cases of exercise 42, built from fixed seeds in the judge's process and cached.

Every decoding case is checked when built: each decision of the float64 oracle (greedy argmax,
top-k cut, final choice) must have a relative gap of at least ``MARGIN`` unless the case is
about ties, where only exact, constructed ties (identical rows of the model) are allowed.
float32 rounding moves a log-probability of these sizes by about 1e-6 relative, far below it.
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass

import torch

from judge.checks import Label
from judge.i18n import Bilingual

from . import oracle

MARGIN = 1e-3
EOS, PAD = 0, -1


class AmbiguousCase(RuntimeError):
    """A frozen case whose answer float32 rounding could change (a decision closer than MARGIN)."""


# --- sequence_log_prob ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LogProbCase:
    logits: torch.Tensor
    tokens: torch.Tensor
    mask: torch.Tensor
    labels: list

    @functools.cached_property
    def exact(self) -> torch.Tensor:
        return oracle.log_prob(self.logits, self.tokens, self.mask)

    def mistakes(self) -> dict:
        return oracle.log_prob_mistakes(self.logits, self.tokens, self.mask)


def _label(en: str, zh: str) -> Label:
    return Label(en, Bilingual(en, zh))


def _gauss(rng: random.Random, shape: tuple[int, ...], scale: float) -> torch.Tensor:
    count = math.prod(shape)
    return torch.tensor([rng.gauss(0.0, scale) for _ in range(count)], dtype=torch.float32).reshape(shape)


@functools.cache
def ragged() -> LogProbCase:
    """Six rows of nine positions over eleven tokens: full, right-padded, left-padded, holes, empty, one token."""
    rng = random.Random(4201)
    batch, length, vocab = 6, 9, 11
    logits = _gauss(rng, (batch, length, vocab), 2.0)
    tokens = torch.tensor([[rng.randrange(vocab) for _ in range(length)] for _ in range(batch)])
    mask = torch.zeros(batch, length, dtype=torch.bool)
    mask[0] = True
    mask[1, :5] = True
    mask[2, 4:] = True
    mask[3] = torch.tensor([True, False, True, True, False, False, True, False, True])
    mask[5, 0] = True
    labels = [
        _label("no padding", "没有填充"),
        _label("right padding", "右侧填充"),
        _label("left padding", "左侧填充"),
        _label("padding in the middle", "中间有填充"),
        _label("all padding", "全是填充"),
        _label("one real token", "只有一个真实 token"),
    ]
    return LogProbCase(logits, tokens, mask, labels)


@functools.cache
def garbage() -> LogProbCase:
    """Padded positions hold token id -100 and logits NaN, inf, -inf or 1e30; row 4 has no padding."""
    rng = random.Random(4202)
    batch, length, vocab = 5, 7, 6
    logits = _gauss(rng, (batch, length, vocab), 1.5)
    tokens = torch.tensor([[rng.randrange(vocab) for _ in range(length)] for _ in range(batch)])
    mask = torch.ones(batch, length, dtype=torch.bool)
    mask[0, 5:] = False
    mask[1, :2] = False
    mask[2, 3] = False
    mask[3, 1::2] = False
    junk = [float("nan"), float("inf"), float("-inf"), 1e30]
    for b in range(batch):
        for t in range(length):
            if not mask[b, t]:
                tokens[b, t] = -100
                logits[b, t] = junk[(b + t) % 4]
    labels = [
        _label(f"{int((~mask[b]).sum())} padded positions", f"{int((~mask[b]).sum())} 个填充位置") for b in range(batch)
    ]
    return LogProbCase(logits, tokens, mask, labels)


@functools.cache
def long() -> LogProbCase:
    """400 positions over 50 tokens: a probability near 1e-680, below the smallest double."""
    rng = random.Random(4203)
    batch, length, vocab = 3, 400, 50
    logits = _gauss(rng, (batch, length, vocab), 1.0)
    tokens = torch.tensor([[rng.randrange(vocab) for _ in range(length)] for _ in range(batch)])
    mask = torch.ones(batch, length, dtype=torch.bool)
    mask[1, 300:] = False
    labels = [
        _label("400 tokens", "400 个 token"),
        _label("300 tokens, then padding", "300 个 token，然后是填充"),
        _label("400 tokens", "400 个 token"),
    ]
    case = LogProbCase(logits, tokens, mask, labels)
    assert bool((case.exact < -800).all()), "the long case must underflow a double"
    return case


@functools.cache
def large() -> LogProbCase:
    """Logits near 1000: one token per position leads by about 1000, so exp() overflows and its rivals underflow."""
    rng = random.Random(4204)
    batch, length, vocab = 4, 6, 8
    logits = _gauss(rng, (batch, length, vocab), 3.0)
    tokens = torch.zeros(batch, length, dtype=torch.int64)
    for b in range(batch):
        for t in range(length):
            spike = rng.randrange(vocab)
            logits[b, t, spike] += 1000.0
            # even positions pick the leading token, odd ones a token about 1000 behind it
            tokens[b, t] = spike if t % 2 == 0 else (spike + 1 + rng.randrange(vocab - 1)) % vocab
    mask = torch.ones(batch, length, dtype=torch.bool)
    labels = [_label("logits near 1000", "logits 约为 1000")] * batch
    return LogProbCase(logits, tokens, mask, labels)


@functools.cache
def doubles() -> LogProbCase:
    """float64 logits: the answer keeps double precision."""
    rng = random.Random(4205)
    batch, length, vocab = 3, 5, 7
    logits = torch.tensor(
        [[[rng.gauss(0.0, 2.0) for _ in range(vocab)] for _ in range(length)] for _ in range(batch)],
        dtype=torch.float64,
    )
    tokens = torch.tensor([[rng.randrange(vocab) for _ in range(length)] for _ in range(batch)])
    mask = torch.ones(batch, length, dtype=torch.bool)
    mask[2, 3:] = False
    labels = [_label("float64", "float64")] * batch
    return LogProbCase(logits, tokens, mask, labels)


# --- decoding -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Model:
    start: torch.Tensor  # [B, V]
    trans: torch.Tensor  # [B, V, V]
    labels: list
    max_len: int
    width: int = 1
    alpha: float = 0.0
    ties: bool = False  # exact, constructed ties allowed
    pad: int = PAD  # the pad_id passed to the decoders

    @functools.cached_property
    def greedy(self) -> list[oracle.Decoded]:
        return _verified(oracle.greedy(self.start, self.trans, EOS, self.max_len, self.pad), self.ties, "greedy")

    @functools.cached_property
    def beam(self) -> list[oracle.Decoded]:
        rows = oracle.beam(self.start, self.trans, EOS, self.max_len, self.pad, self.width, self.alpha)
        return _verified(rows, self.ties, "beam")

    def greedy_mistakes(self) -> dict:
        return oracle.greedy_mistakes(self.start, self.trans, EOS, self.max_len, self.pad)

    def beam_mistakes(self) -> dict:
        return oracle.beam_mistakes(self.start, self.trans, EOS, self.max_len, self.pad, self.width, self.alpha)


def _verified(rows: list[oracle.Decoded], ties: bool, what: str) -> list[oracle.Decoded]:
    for index, row in enumerate(rows):
        if row.margin < MARGIN:
            raise AmbiguousCase(f"{what}, row {index}: a decision has gap {row.margin:.2e} < {MARGIN}")
        if row.ties and not ties:
            raise AmbiguousCase(f"{what}, row {index}: {row.ties} exact ties in a case not about ties")
    return rows


def random_model(
    seed: int, batch: int, vocab: int, max_len: int, width: int = 1, alpha: float = 0.0, pad: int = PAD
) -> Model:
    """Gaussian logits (scale 1.5) with a per-row EOS bias in [-3, 1]: some rows end early, some run to max_len."""
    rng = random.Random(seed)
    start = _gauss(rng, (batch, vocab), 1.5)
    trans = _gauss(rng, (batch, vocab, vocab), 1.5)
    for b in range(batch):
        bias = rng.uniform(-3.0, 1.0)
        start[b, EOS] += bias - 1.0
        trans[b, :, EOS] += bias
    labels = [Label(f"seed {seed}, row {b}", Bilingual("a random model", "随机模型")) for b in range(batch)]
    return Model(start, trans, labels, max_len, width, alpha, pad=pad)


# Seeds whose every decision clears MARGIN (tests/exercises/test_042_sequence_decoding.py rebuilds them).
GREEDY_SEED = 4210
BEAM_SEEDS = {"narrow": 4221, "wide": 4251, "penalized": 4240, "width_one": 4250}


@functools.cache
def greedy_random() -> Model:
    return random_model(GREEDY_SEED, 16, 8, 7)


@functools.cache
def beam_random(kind: str) -> Model:
    width, alpha, max_len = {
        "narrow": (2, 0.0, 6),
        "wide": (4, 1.0, 7),
        "penalized": (3, 0.6, 5),
        "width_one": (1, 0.0, 7),
    }[kind]
    return random_model(BEAM_SEEDS[kind], 16, 8, max_len, width, alpha)


def _log(probs: list[float]) -> list[float]:
    return [math.log(p) for p in probs]


@functools.cache
def greedy_misses() -> Model:
    """The worked example and two variations: greedy takes the likelier first token, beam search does better.

    Tokens: 0 = EOS, 1 = A, 2 = B, 3 = C. Row 0 is the statement's example; row 1 needs three
    steps; in row 2 the better sequence goes through the second choice of the same hypothesis.
    """
    uniform = _log([0.25] * 4)
    start = [_log([0.01, 0.55, 0.40, 0.04]), _log([0.02, 0.50, 0.45, 0.03]), _log([0.05, 0.70, 0.15, 0.10])]
    trans = [
        [uniform, _log([0.50, 0.20, 0.15, 0.15]), _log([0.90, 0.04, 0.03, 0.03]), _log([0.40, 0.20, 0.20, 0.20])],
        [uniform, _log([0.40, 0.30, 0.20, 0.10]), _log([0.10, 0.05, 0.05, 0.80]), _log([0.95, 0.01, 0.02, 0.02])],
        [uniform, _log([0.05, 0.05, 0.50, 0.40]), _log([0.40, 0.30, 0.20, 0.10]), _log([0.96, 0.02, 0.01, 0.01])],
    ]
    labels = [
        _label("the statement's example", "题面中的例子"),
        _label("better in three steps", "三步之后更好"),
        _label("better through a second choice", "通过次优选择更好"),
    ]
    return Model(torch.tensor(start), torch.tensor(trans), labels, max_len=4, width=2, alpha=0.0)


@functools.cache
def tied() -> Model:
    """Exact ties: tokens 2 and 3 share their start logit and their row of transitions, and a greedy tie."""
    rng = random.Random(4260)
    batch, vocab = 4, 6
    start = _gauss(rng, (batch, vocab), 1.0)
    trans = _gauss(rng, (batch, vocab, vocab), 1.0)
    for b in range(batch):
        start[b, 3] = start[b, 2] = start[b].max() + 0.5  # 2 and 3 lead the first step together
        trans[b, 3] = trans[b, 2]
        trans[b, :, EOS] += 0.5 * b
    labels = [_label("tokens 2 and 3 tie", "token 2 与 3 并列")] * batch
    return Model(start, trans, labels, max_len=5, width=3, alpha=0.5, ties=True)


# pad_id equal to a real token (beam search) or to EOS (greedy): nothing may read pad_id back.
PAD_AS_TOKEN_SEED = 4308


@functools.cache
def pad_as_token() -> Model:
    """pad_id = 2, a real token that the answers use: a length read back as "positions != pad_id" is wrong."""
    return random_model(PAD_AS_TOKEN_SEED, 8, 6, 6, width=3, alpha=1.0, pad=2)


@functools.cache
def pad_as_eos() -> Model:
    """The greedy random models decoded with pad_id = eos_id = 0."""
    model = greedy_random()
    return Model(model.start, model.trans, model.labels, model.max_len, pad=EOS)


ONE_STEP_SEED = 4280


@functools.cache
def one_step() -> Model:
    """max_len = 1: the first step is also the last, so its kept candidates all finish."""
    return random_model(ONE_STEP_SEED, 8, 6, 1, width=3, alpha=0.5)


@functools.cache
def crowded() -> Model:
    """Finished hypotheses keep their place: a continuation likelier than [EOS] must not push it out.

    Tokens: 0 = EOS, 1 = A, 2 = B; beam_width = 2, max_len = 3. In rows 0 to 2, after step 2, two
    continuations are likelier than [EOS], but [EOS] holds one of the two slots; the answer is [EOS].
    In row 3 nothing pushes [EOS] out, and [EOS] alone is the answer (EOS may come first).
    """
    start = [
        _log([0.20, 0.70, 0.10]),
        _log([0.25, 0.60, 0.15]),
        _log([0.22, 0.08, 0.70]),
        _log([0.60, 0.30, 0.10]),
    ]
    trans = [
        [_log([1 / 3] * 3), _log([0.05, 0.50, 0.45]), _log([0.20, 0.40, 0.40])],
        [_log([1 / 3] * 3), _log([0.04, 0.50, 0.46]), _log([0.02, 0.70, 0.28])],
        [_log([1 / 3] * 3), _log([0.30, 0.38, 0.32]), _log([0.06, 0.42, 0.52])],
        [_log([1 / 3] * 3), _log([0.30, 0.45, 0.25]), _log([0.50, 0.20, 0.30])],
    ]
    labels = [_label("a finished hypothesis keeps its slot", "已结束的假设保留它的位置")] * 3 + [
        _label("[EOS] alone is the best sequence", "单独的 [EOS] 就是最好的序列")
    ]
    return Model(torch.tensor(start), torch.tensor(trans), labels, max_len=3, width=2, alpha=0.0)


@functools.cache
def tied_across() -> Model:
    """Four candidates tie at step 2 across two tied parents ([2, 4], [2, 5], [3, 4], [3, 5]) and two are kept.

    The lexicographic rule keeps [2, 4] and [2, 5], and [2, 5, EOS] wins; keeping [2, 4] and [3, 4]
    (candidates ordered by token, then by parent, as torch.topk or an unstable sort may do) ends
    with the less likely [2, 4, EOS]. Tokens 2 and 3 share their start logit and their row.
    """
    tied_row = _log([0.02, 0.03, 0.06, 0.045, 0.4225, 0.4225])
    start = [_log([0.04, 0.11, 0.35, 0.35, 0.09, 0.06])]
    trans = [
        [
            _log([1 / 6] * 6),
            _log([0.50, 0.12, 0.11, 0.10, 0.09, 0.08]),
            tied_row,
            list(tied_row),
            _log([0.30, 0.21, 0.09, 0.11, 0.16, 0.13]),
            _log([0.90, 0.03, 0.025, 0.015, 0.02, 0.01]),
        ]
    ]
    labels = [_label("ties across two tied parents", "两个并列父假设之间的并列")]
    return Model(torch.tensor(start), torch.tensor(trans), labels, max_len=4, width=2, alpha=0.0, ties=True)


FULL_WIDTH_SEED = 4291


@functools.cache
def full_width() -> Model:
    """beam_width = V = 4: the first step keeps every token; length_penalty = 0.5."""
    return random_model(FULL_WIDTH_SEED, 6, 4, 4, width=4, alpha=0.5)
