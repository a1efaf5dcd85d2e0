"""Hidden cases of exercise 42: drawn under the case's seed in the judge's process, and a few constructed examples.

Every decoding row is checked when built: each decision of the float64 oracle (greedy argmax,
top-k cut, final choice) must have a relative gap of at least ``MARGIN``, else the row is drawn
again. float32 rounding moves a log-probability of these sizes by about 1e-6 relative, far below it.
Rows about ties hold exact ties only, and only ties that every float32 or float64 computation of
their sums, in any order, finds equal (``oracle.robust_beam``); they must also show the wrong tie
orders a beam search may use (``oracle.BEAM_TIE_ORDERS``): the tie rule decides their answer.
Builders take a seed (``ctx.fresh_seed(...)``) and are cached, so a case costs its drawing once.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable
from dataclasses import dataclass

import torch

from judge.checks.base import Label
from judge.i18n import Bilingual

from ..public.checking import rescorer
from . import oracle

MARGIN = 1e-3
EOS, PAD = 0, -1
GAP = 1024.0  # logits this far below a row's leader have log-probability exactly -GAP: exp underflows to 0
_TRIES = 400  # rows drawn before a builder gives up (AmbiguousCase): about 10 are needed, the rates are high


class AmbiguousCase(RuntimeError):
    """A case whose answer float32 rounding could change (a decision closer than MARGIN), or that could
    not be drawn."""


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


def _generator(rng: random.Random) -> torch.Generator:
    """A CPU generator seeded from ``rng``: large tensors are drawn by torch (a 400-position case by
    Python's ``random`` took 80 ms of the judge's time)."""
    return torch.Generator().manual_seed(rng.getrandbits(63))


def _gauss(rng: random.Random, shape: tuple[int, ...], scale: float, dtype=torch.float32) -> torch.Tensor:
    return (torch.randn(shape, generator=_generator(rng), dtype=torch.float64) * scale).to(dtype)


def _ids(rng: random.Random, shape: tuple[int, ...], vocab: int) -> torch.Tensor:
    """Token ids in ``[0, vocab)``, int64."""
    return torch.randint(vocab, shape, generator=_generator(rng))


LAYOUTS = {  # how a row is padded: (English, Chinese)
    "none": ("no padding", "没有填充"),
    "right": ("right padding", "右侧填充"),
    "left": ("left padding", "左侧填充"),
    "middle": ("padding in the middle", "中间有填充"),
    "scattered": ("scattered padding", "零散的填充"),
    "all": ("all padding", "全是填充"),
    "one": ("one real token", "只有一个真实 token"),
}


def _layout(rng: random.Random, kind: str, length: int) -> list[bool]:
    """A row's mask of ``kind``: which positions hold real tokens."""
    if kind == "none":
        return [True] * length
    if kind == "all":
        return [False] * length
    if kind == "one":
        at = rng.randrange(length)
        return [t == at for t in range(length)]
    cut = rng.randrange(1, length)
    if kind == "right":
        return [t < cut for t in range(length)]
    if kind == "left":
        return [t >= cut for t in range(length)]
    if kind == "middle":
        hole = rng.randrange(1, max(2, length - cut))
        return [not (cut <= t < cut + hole) or t == 0 for t in range(length)]
    return [rng.random() < 0.5 for _ in range(length)]


def _padded(rng: random.Random, batch: int, length: int, vocab: int, scale: float, dtype=torch.float32):
    """Logits, in-range tokens and a mask with every layout of LAYOUTS (then random ones), and the labels."""
    kinds = list(LAYOUTS) + [rng.choice(list(LAYOUTS)) for _ in range(batch - len(LAYOUTS))]
    kinds = rng.sample(kinds, len(kinds))[:batch]
    logits = _gauss(rng, (batch, length, vocab), scale, dtype)
    tokens = _ids(rng, (batch, length), vocab)
    mask = torch.tensor([_layout(rng, kind, length) for kind in kinds])
    labels = [_label(*LAYOUTS[kind]) for kind in kinds]
    return logits, tokens, mask, labels


@functools.lru_cache(maxsize=8)
def ragged(seed: int) -> LogProbCase:
    """Seven to ten rows of 6 to 10 positions over 5 to 12 tokens, with every layout of padding."""
    rng = random.Random(seed)
    logits, tokens, mask, labels = _padded(rng, rng.randint(7, 10), rng.randint(6, 10), rng.randint(5, 12), 2.0)
    return LogProbCase(logits, tokens, mask, labels)


GARBAGE_LOGITS = (float("nan"), float("inf"), float("-inf"), 1e30, -1e30, 3.0e38)


def garbage_ids(rng: random.Random, vocab: int) -> int:
    """A token id a padded position may hold: not a valid index (-100, -1, V, a huge one) or a valid one."""
    return rng.choice((-100, -1, vocab, vocab + rng.randrange(1, 1000), -(2**63), 2**63 - 1, rng.randrange(vocab)))


@functools.lru_cache(maxsize=8)
def garbage(seed: int) -> LogProbCase:
    """The ragged layouts with garbage at every padded position: ids that are no index (-100, V, -2**63, ...)
    and logits NaN, inf, -inf, 1e30, -1e30 or 3e38, a whole position's or a single entry's."""
    rng = random.Random(seed)
    logits, tokens, mask, labels = _padded(rng, rng.randint(7, 9), rng.randint(5, 8), rng.randint(4, 9), 1.5)
    batch, length, vocab = logits.shape
    for b in range(batch):
        for t in range(length):
            if not mask[b, t]:
                tokens[b, t] = garbage_ids(rng, vocab)
                junk = rng.choice(GARBAGE_LOGITS)
                if rng.random() < 0.5:
                    logits[b, t] = junk
                else:
                    logits[b, t, rng.randrange(vocab)] = junk
    if bool(mask.all()):
        raise AmbiguousCase("the garbage case needs a padded position")
    return LogProbCase(logits, tokens, mask, labels)


@functools.lru_cache(maxsize=8)
def long(seed: int) -> LogProbCase:
    """400 positions over 50 tokens: a probability near 1e-680, below the smallest double."""
    rng = random.Random(seed)
    batch, length, vocab = 3, 400, 50
    logits = _gauss(rng, (batch, length, vocab), 1.0)
    tokens = _ids(rng, (batch, length), vocab)
    mask = torch.ones(batch, length, dtype=torch.bool)
    cut = rng.randrange(250, 350)
    mask[1, cut:] = False
    labels = [
        _label("400 tokens", "400 个 token"),
        _label(f"{cut} tokens, then padding", "若干 token，然后是填充"),
        _label("400 tokens", "400 个 token"),
    ]
    case = LogProbCase(logits, tokens, mask, labels)
    if not bool((case.exact < -800).all()):
        raise AmbiguousCase("the long case must underflow a double")
    return case


@functools.lru_cache(maxsize=8)
def large(seed: int) -> LogProbCase:
    """Logits near 1000: one token per position leads by about 1000, so exp() overflows and its rivals
    underflow. Rows of two kinds: every real token the leader (log(softmax) is right there, a softmax or
    a log-sum-exp without the maximum subtracted is not), and some real tokens 1000 behind it (where
    log(softmax) gives -inf too)."""
    rng = random.Random(seed)
    batch, length, vocab = 6, rng.randint(4, 7), rng.randint(5, 9)
    logits = _gauss(rng, (batch, length, vocab), 3.0)
    tokens = torch.zeros(batch, length, dtype=torch.int64)
    kinds = rng.sample(["leader"] * 3 + ["behind"] * 3, batch)
    for b, kind in enumerate(kinds):
        behind = rng.sample(range(length), rng.randint(1, max(1, length // 2))) if kind == "behind" else []
        for t in range(length):
            spike = rng.randrange(vocab)
            logits[b, t, spike] += 1000.0
            tokens[b, t] = (spike + 1 + rng.randrange(vocab - 1)) % vocab if t in behind else spike
    mask = torch.ones(batch, length, dtype=torch.bool)
    labels = [
        _label("logits near 1000, every token the leader", "logits 约为 1000，每个 token 都领先")
        if kind == "leader"
        else _label("logits near 1000, tokens 1000 behind the leader", "logits 约为 1000，有比最大值低约 1000 的 token")
        for kind in kinds
    ]
    return LogProbCase(logits, tokens, mask, labels)


@functools.lru_cache(maxsize=8)
def doubles(seed: int) -> LogProbCase:
    """float64 logits of random non-dyadic values (spread 0.5 to 30): the answer keeps double precision."""
    rng = random.Random(seed)
    batch, length, vocab = 4, rng.randint(5, 40), rng.randint(5, 30)
    spreads = [rng.choice((0.5, 3.0, 30.0)) for _ in range(batch)]
    logits = torch.stack([_gauss(rng, (length, vocab), spread, torch.float64) for spread in spreads])
    logits = logits + torch.tensor([rng.uniform(-50.0, 50.0) for _ in range(batch)], dtype=torch.float64).view(-1, 1, 1)
    tokens = _ids(rng, (batch, length), vocab)
    mask = torch.tensor([_layout(rng, rng.choice(("none", "right", "scattered")), length) for _ in range(batch)])
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
    eos: int = EOS  # the eos_id passed to the decoders

    @functools.cached_property
    def greedy(self) -> list[oracle.Decoded]:
        rows = oracle.greedy(self.start, self.trans, self.eos, self.max_len, self.pad)
        return _verified(rows, self.ties, "greedy")

    @functools.cached_property
    def beam(self) -> list[oracle.Decoded]:
        rows = oracle.beam(self.start, self.trans, self.eos, self.max_len, self.pad, self.width, self.alpha)
        return _verified(rows, self.ties, "beam")

    def greedy_mistakes(self) -> dict:
        return oracle.greedy_mistakes(self.start, self.trans, self.eos, self.max_len, self.pad)

    def beam_mistakes(self) -> dict:
        return oracle.beam_mistakes(self.start, self.trans, self.eos, self.max_len, self.pad, self.width, self.alpha)

    def tie_orders(self, decoder: str) -> list[list[oracle.Decoded]]:
        """What each wrong tie order returns (greedy: the highest id; beam: oracle.BEAM_TIE_ORDERS)."""
        if decoder == "greedy":
            return [
                oracle.greedy(self.start, self.trans, self.eos, self.max_len, self.pad, name)
                for name in oracle.GREEDY_TIE_ORDERS
            ]
        return [
            oracle.beam(self.start, self.trans, self.eos, self.max_len, self.pad, self.width, self.alpha, name)
            for name in oracle.BEAM_TIE_ORDERS
        ]

    def rescore(self, decoder: str) -> Callable[[int, list[int]], float | None]:
        """The true score of a returned row of this model (greedy: log p alone), for ``check_decoded``."""
        alpha = self.alpha if decoder == "beam" else 0.0
        start, trans = self.start.to(torch.float64).tolist(), self.trans.to(torch.float64).tolist()
        return rescorer(start, trans, self.eos, self.pad, alpha)

    def to(self, dtype: torch.dtype) -> Model:
        return Model(
            self.start.to(dtype),
            self.trans.to(dtype),
            self.labels,
            self.max_len,
            self.width,
            self.alpha,
            self.ties,
            self.pad,
            self.eos,
        )

    def with_pad(self, pad: int) -> Model:
        return Model(
            self.start, self.trans, self.labels, self.max_len, self.width, self.alpha, self.ties, pad, self.eos
        )


def _verified(rows: list[oracle.Decoded], ties: bool, what: str) -> list[oracle.Decoded]:
    for index, row in enumerate(rows):
        if row.margin < MARGIN:
            raise AmbiguousCase(f"{what}, row {index}: a decision has gap {row.margin:.2e} < {MARGIN}")
        if row.ties and not ties:
            raise AmbiguousCase(f"{what}, row {index}: {row.ties} exact ties in a case not about ties")
    return rows


ROW_KINDS = {  # how a random row's EOS is biased: (English, Chinese)
    "eos_first": ("EOS is the likeliest first token", "EOS 是最可能的第一个 token"),
    "early": ("EOS likely early", "EOS 往往较早出现"),
    "late": ("EOS unlikely: runs to max_len", "EOS 不太可能出现：一直生成到 max_len"),
}


def _random_row(rng: random.Random, vocab: int, eos: int, kind: str) -> tuple[list[float], list[list[float]]]:
    """One row's start [V] and transition [V][V] logits (float32 values), EOS biased by ``kind``."""
    f32 = oracle._f32
    start = [f32(rng.gauss(0.0, 1.5)) for _ in range(vocab)]
    trans = [[f32(rng.gauss(0.0, 1.5)) for _ in range(vocab)] for _ in range(vocab)]
    bias = {"eos_first": rng.uniform(-1.0, 1.0), "early": rng.uniform(-1.5, 1.0), "late": rng.uniform(-4.0, -2.5)}[kind]
    if kind == "eos_first":
        start[eos] = f32(max(v for i, v in enumerate(start) if i != eos) + rng.uniform(0.2, 1.5))
    else:
        start[eos] = f32(start[eos] + bias - 1.0)
    for p in range(vocab):
        trans[p][eos] = f32(trans[p][eos] + bias)
    return start, trans


def _row_ok(start, trans, eos, max_len, pad, width, alpha) -> bool:
    """Every decision of both decoders clears MARGIN, without a tie."""
    rows = (
        oracle.greedy_row(start, trans, eos, max_len, pad),
        oracle.beam_row(start, trans, eos, max_len, pad, width, alpha),
    )
    return all(r.margin >= MARGIN and not r.ties for r in rows)


@functools.lru_cache(maxsize=32)
def random_model(
    seed: int,
    batch: int,
    vocab: int,
    max_len: int,
    width: int = 1,
    alpha: float = 0.0,
    pad: int | None = PAD,
    wanted: frozenset[str] = frozenset(),
) -> Model:
    """``batch`` rows of Gaussian logits (scale 1.5) over ``vocab`` tokens, EOS a random token and biased
    by ROW_KINDS in turn (EOS first, early, late), each row drawn again until both decoders clear MARGIN
    on it. ``pad=None``: pad_id is a random real token other than EOS. ``wanted``: known beam mistakes
    (keys of DECODING) the model must show; rows that show one not yet shown are added until each is
    (some show in a few rows in a hundred: a case that missed one would let it through)."""
    rng = random.Random(seed)
    eos = rng.randrange(vocab)
    if pad is None:
        pad = rng.choice([v for v in range(vocab) if v != eos])
    kinds = [list(ROW_KINDS)[b % len(ROW_KINDS)] for b in range(batch)]
    kinds = rng.sample(kinds, batch)
    rows: list[tuple[list[float], list[list[float]]]] = []
    for kind in kinds:
        for _ in range(_TRIES):
            start, trans = _random_row(rng, vocab, eos, kind)
            if _row_ok(start, trans, eos, max_len, pad, width, alpha):
                break
        else:
            raise AmbiguousCase(f"no {kind} row of seed {seed} clears the margin")
        rows.append((start, trans))
    missing = set(wanted) - _shown(rows, wanted, eos, max_len, pad, width, alpha)
    for attempt in range(_TRIES if missing else 0):
        kind = list(ROW_KINDS)[attempt % len(ROW_KINDS)]
        start, trans = _random_row(rng, vocab, eos, kind)
        shows = missing & _shown([(start, trans)], missing, eos, max_len, pad, width, alpha)
        if shows and _row_ok(start, trans, eos, max_len, pad, width, alpha):
            rows.append((start, trans))
            kinds.append(kind)
            missing -= shows
            if not missing:
                break
    labels = [Label(f"seed {seed}, row {b} ({ROW_KINDS[k][0]})", Bilingual(*ROW_KINDS[k])) for b, k in enumerate(kinds)]
    starts, transitions = [r[0] for r in rows], [r[1] for r in rows]
    return Model(torch.tensor(starts), torch.tensor(transitions), labels, max_len, width, alpha, pad=pad, eos=eos)


def _shown(rows, mistakes, eos: int, max_len: int, pad: int, width: int, alpha: float) -> set[str]:
    """The beam mistakes among ``mistakes`` whose answer differs from the truth in some row of ``rows``."""
    out = set()
    for start, trans in rows:
        truth = oracle.beam_row(start, trans, eos, max_len, pad, width, alpha)
        for name in set(mistakes) - out:
            wrong = oracle.beam_row(start, trans, eos, max_len, pad, width, alpha, name)
            if wrong.tokens != truth.tokens or abs(wrong.score - truth.score) > 1e-3 * (1 + abs(truth.score)):
                out.add(name)
    return out


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
    """An example of exact ties (the tiny variant's): tokens 2 and 3 share their start logit and their row
    of transitions, and lead the first step together."""
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


# --- ties, drawn -----------------------------------------------------------------------------------

# Templates of tied models, in levels: 0 is a leader (logit 0), 1 is GAP below it, 2 is 2 x GAP below;
# token 0 is EOS. Each is relabelled at random (and given extra tokens) in every row drawn from it.
TIE_TEMPLATES = {
    # [1, 2] (log p -ln 3 - ln 2) and [2, 1] (-ln 3) tie at step 3 through [1, 2, 1] and [2, 1, 2]: a beam
    # kept in score order keeps the likelier parent's children
    "unequal_parents": {"start": [2, 0, 0, 0], "trans": [[1, 0, 1, 2], [2, 1, 0, 0], [1, 0, 2, 1], [2, 2, 2, 0]]},
    # [2, EOS] finishes at step 2 and [1, 3, EOS] at step 3 with the same log p: the final choice across steps
    "final_across_steps": {"start": [1, 0, 0, 1], "trans": [[0, 1, 1, 1], [1, 1, 1, 0], [0, 1, 1, 1], [0, 1, 1, 1]]},
    # two tied parents [2], [3] and four tied children ([2, 4], [2, 5], [3, 4], [3, 5]) of which two are kept
    "tied_parents": {
        "start": [2, 2, 0, 0, 2, 2],
        "trans": [
            [0, 1, 1, 1, 1, 1],
            [0, 1, 1, 1, 1, 1],
            [1, 1, 1, 1, 0, 0],
            [1, 1, 1, 1, 0, 0],
            [0, 0, 1, 1, 1, 1],
            [0, 1, 1, 1, 1, 1],
        ],
    },
}
TIE_CALLS = {  # template -> (max_len, beam_width, length_penalty) of its call
    "unequal_parents": (3, 2, 0.0),
    "final_across_steps": (4, 2, 0.0),
    "tied_parents": (3, 2, 0.0),
}


def _tie_row(rng: random.Random, *, template: dict, vocab: int, eos: int) -> tuple[list[float], list[list[float]]]:
    """A row of ``template`` over ``vocab`` tokens, its token 0 relabelled ``eos`` and the rest at random;
    extra tokens sit GAP or 2 x GAP below the leaders (a random row of levels after them); GAP doubled
    at random."""
    scale = GAP * rng.choice((1.0, 2.0))
    size = len(template["start"])

    def level(k: int) -> float:
        return -scale * k if k else 0.0

    extra = vocab - size
    start = [level(k) for k in template["start"]] + [level(rng.choice((1, 2))) for _ in range(extra)]
    trans = [[level(k) for k in row] + [level(rng.choice((1, 2))) for _ in range(extra)] for row in template["trans"]]
    for _ in range(extra):
        row = [level(rng.choice((0, 1, 2))) for _ in range(vocab)]
        row[rng.randrange(vocab)] = 0.0
        trans.append(row)
    others = [v for v in range(vocab) if v != eos]
    rng.shuffle(others)
    label = [eos] + others  # template token i is token label[i]
    s = [0.0] * vocab
    tr = [[0.0] * vocab for _ in range(vocab)]
    for i in range(vocab):
        s[label[i]] = start[i]
        for j in range(vocab):
            tr[label[i]][label[j]] = trans[i][j]
    return s, tr


def _equal_tokens_row(rng: random.Random, vocab: int, eos: int) -> tuple[list[float], list[list[float]]]:
    """A Gaussian row in which two tokens are one: the same start logit (both leading), the same row of
    transitions and the same column, so every sequence through one ties with its twin through the other."""
    start, trans = _random_row(rng, vocab, eos, "early")
    a, b = sorted(rng.sample([v for v in range(vocab) if v != eos], 2))
    start[a] = start[b] = oracle._f32(max(start) + rng.uniform(0.2, 0.8))
    trans[b] = list(trans[a])
    for row in trans:
        row[b] = row[a]
    return start, trans


def _wide_row(rng: random.Random, *, vocab: int, eos: int) -> tuple[list[float], list[list[float]]]:
    """A row where every token but a few (GAP below, never EOS) is equally likely at every step: with a
    beam wider than 16, hundreds of candidates tie, and so do the finished hypotheses [EOS] (log p / 1)
    and [a, b] (2 log p / 2). A sort of more than 16 values that is not stable reorders such ties."""
    excluded = set(rng.sample([v for v in range(vocab) if v != eos], rng.randint(0, 2)))
    row = [-GAP if v in excluded else 0.0 for v in range(vocab)]
    return list(row), [list(row) for _ in range(vocab)]


@functools.lru_cache(maxsize=8)
def tie_models(seed: int) -> list[Model]:
    """One model per tie template, one of equal-token rows and one wide beam over equally likely tokens,
    drawn under ``seed``: rows whose every
    decision is an exact tie or clears MARGIN, whose ties are exact in every arithmetic, and which show
    at least one wrong tie order; together each model's rows show every order that its template can
    show. Each model is one call: its own V, eos_id, max_len, beam_width and length_penalty."""
    rng = random.Random(seed)
    models = []
    for name, (max_len, width, alpha) in TIE_CALLS.items():
        template = TIE_TEMPLATES[name]
        vocab = len(template["start"]) + rng.choice((0, 1, 2))
        eos = rng.randrange(vocab)
        draw = functools.partial(_tie_row, template=template, vocab=vocab, eos=eos)
        models.append(_tie_model(rng, draw, eos, max_len, width, alpha, name))
    vocab = rng.randint(5, 7)
    eos = rng.randrange(vocab)
    max_len, width, alpha = rng.choice(((4, 3, 0.5), (5, 3, 0.0), (4, 2, 1.0)))
    models.append(
        _tie_model(rng, lambda r: _equal_tokens_row(r, vocab, eos), eos, max_len, width, alpha, "equal_tokens")
    )
    vocab = rng.randint(18, 20)
    eos, width = rng.randrange(vocab), 17
    wide = functools.partial(_wide_row, vocab=vocab, eos=eos)
    models.append(_tie_model(rng, wide, eos, 2, width, 1.0, "wide", rows=1, orders=("ties_larger_first",)))
    return models


TIE_ROWS = 4  # rows per tie model


def _tie_model(
    rng,
    draw,
    eos: int,
    max_len: int,
    width: int,
    alpha: float,
    name: str,
    rows: int = TIE_ROWS,
    orders: tuple[str, ...] = oracle.BEAM_TIE_ORDERS,
) -> Model:
    """``rows`` rows or more from ``draw``: each robust, clearing MARGIN where it does not tie, and showing
    a wrong tie order of ``orders``; past ``rows``, only rows that show an order not yet shown, until every order the
    template can show is shown (or twice as many rows)."""
    drawn: list[tuple[list[float], list[list[float]]]] = []
    shown: set[str] = set()
    for _ in range(_TRIES):
        start, trans = draw(rng)
        truth = oracle.beam_row(start, trans, eos, max_len, PAD, width, alpha)
        greedy = oracle.greedy_row(start, trans, eos, max_len, PAD)
        if truth.margin < MARGIN or greedy.margin < MARGIN:
            continue
        wrong = {
            order
            for order in orders
            if oracle.beam_row(start, trans, eos, max_len, PAD, width, alpha, order).tokens != truth.tokens
        }
        if not wrong or (len(drawn) >= rows and wrong <= shown):
            continue
        if not oracle.robust_beam(start, trans, eos, max_len, PAD, width, alpha) or not oracle.robust_greedy(
            start, trans, eos, max_len, PAD
        ):
            continue
        drawn.append((start, trans))
        shown |= wrong
        if len(drawn) >= rows and (shown >= _showable(name) or len(drawn) >= 2 * rows):
            break
    if len(drawn) < rows:
        raise AmbiguousCase(f"tie model {name}: only {len(drawn)} rows in {_TRIES} tries")
    labels = [_label("exact ties", "精确并列")] * len(drawn)
    return Model(
        torch.tensor([r[0] for r in drawn]),
        torch.tensor([r[1] for r in drawn]),
        labels,
        max_len,
        width,
        alpha,
        ties=True,
        eos=eos,
    )


def _showable(name: str) -> set[str]:
    """The wrong tie orders a template's rows can show (measured: tests/exercises/test_042_*.py)."""
    return {
        "unequal_parents": {"ties_parents_by_score", "ties_larger_first", "final_tie_last_finished"},
        "final_across_steps": {"final_tie_first_finished", "final_tie_last_finished", "ties_larger_first"},
        "tied_parents": {"ties_token_major", "ties_larger_first"},
        "equal_tokens": {"ties_larger_first", "final_tie_last_finished"},
        "wide": {"ties_larger_first"},
    }[name]


# --- witnesses: the models a named mistake must also explain -------------------------------------

WITNESS_SEED = 4318


@functools.cache
def beam_witness() -> Model:
    """Forty rows, beam_width = 3, length_penalty = 0.8, max_len = 4, eos_id = 1, pad_id = 2 (a real
    token): every known decoding mistake returns its own answer here (tests/exercises checks it), so a
    mistake named on another case is named only if the learner's answer here is that mistake's too."""
    return random_model(WITNESS_SEED, 40, 5, 4, width=3, alpha=0.8, pad=None)


@functools.cache
def greedy_witness() -> Model:
    """Twenty-four rows for greedy decoding (max_len = 5), EOS first in a third of them."""
    return random_model(WITNESS_SEED + 1, 24, 5, 5, width=1, alpha=0.0)
