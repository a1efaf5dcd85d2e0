"""Exercise 42's contract, argument by argument, as its statement writes it, and the good calls the
generated bad inputs and legal corners start from.

Each spec's ``refuse`` is the statement's refusal sentence for that argument, quoted above it. What
the statement neither allows nor refuses stays out (float16 logits, a NumPy integer, a string
``length_penalty``, empty tensors). Three kinds are the exercise's own: an ``int`` whose range
depends on the vocabulary (``eos_id`` in ``[0, V)``, ``beam_width`` in ``[1, V]``), an ``int`` count
that refuses every non-``int`` (``max_len``: a float, a bool, a string, None), and ``pad_id``, any
``int`` of int64's range, refused never.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, ClassVar

import torch

from judge.checks.arguments import (
    NOT_FINITE,
    ArgumentSpec,
    Flaw,
    Logits,
    Mask,
    Number,
    Sizes,
    TokenIds,
    Values,
    legal_inputs,
)
from judge.checks.arguments.base import Edit
from judge.checks.arguments.ranges import zh

from . import cases, oracle

# --- the exercise's own kinds ---------------------------------------------------------------------


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, kw_only=True)
class Integer(ArgumentSpec):
    """A Python ``int`` (never a bool) in ``[low, high]``: ``high`` is a number, or the length of the
    dimension ``vocab`` plus ``offset`` (``eos_id``: ``V - 1``; ``beam_width``: ``V``), or absent.

    Bad inputs: :attr:`Flaw.BELOW` (``low - 1``, further below), :attr:`Flaw.ABOVE` (``high + 1``,
    further above), :attr:`Flaw.NOT_AN_INT` (the value as a whole float, half past it, a bool, a
    string, None). Legal corners: ``low`` and ``high``."""

    low: int = 0
    high: int | None = None
    vocab: str | None = None
    offset: int = 0
    REFUSABLE: ClassVar[frozenset[Flaw]] = frozenset({Flaw.BELOW, Flaw.ABOVE, Flaw.NOT_AN_INT})

    def top(self, sizes: Sizes) -> int | None:
        if self.vocab is not None:
            return sizes.dims[self.vocab] + self.offset
        return self.high

    def dim_names(self) -> tuple[str, ...]:
        return (self.vocab,) if self.vocab else ()

    def good_problem(self, value: Any) -> str | None:
        return None if _is_int(value) else "an int"

    def flaws(self, name: str, value: Any, sizes: Sizes) -> set[Flaw]:
        if not _is_int(value):
            return {Flaw.NOT_AN_INT}
        top = self.top(sizes)
        if value < self.low:
            return {Flaw.BELOW}
        if top is not None and value > top:
            return {Flaw.ABOVE}
        return set()

    def bad_edits(self, name: str, value: Any, sizes: Sizes, rng: random.Random) -> list[Edit]:
        out = []
        top = self.top(sizes)
        if Flaw.BELOW in self.refuse:
            en, zh_ = f"{name} below {self.low}", zh(f"小于 {self.low} 的 {name}")
            for bad in (self.low - 1, self.low - 1 - rng.randrange(1, 100)):
                out.append(Edit(Flaw.BELOW.value, bad, f"{name} = {bad}", en, zh_))
        if Flaw.ABOVE in self.refuse and top is not None:
            bound = f"{self.vocab}{self.offset:+d}".replace("+0", "") if self.vocab else str(top)
            en, zh_ = f"{name} above {bound}", zh(f"大于 {bound} 的 {name}")
            for bad in (top + 1, top + rng.randrange(2, 100)):
                out.append(Edit(Flaw.ABOVE.value, bad, f"{name} = {bad}", en, zh_))
        if Flaw.NOT_AN_INT in self.refuse:
            kind = Flaw.NOT_AN_INT.value
            for bad, en, zh_ in (
                (float(value), f"{name} as a whole float (such as 2.0)", f"整数值浮点数形式的 {name}"),
                (value + 0.5, f"{name} as a float", f"浮点数形式的 {name}"),
                (bool(value % 2), f"{name} as a bool", f"bool 形式的 {name}"),
                (str(value), f"{name} as a string", f"字符串形式的 {name}"),
                (None, f"None as {name}", f"{name} 为 None"),
            ):
                out.append(Edit(kind, bad, f"{name} = {bad!r}", en, zh(zh_)))
        return out

    def legal_edits(self, name: str, value: Any, sizes: Sizes, rng: random.Random) -> list[Edit]:
        out = []
        top = self.top(sizes)
        for kind, corner, en, zh_ in (
            ("lowest", self.low, f"the smallest legal {name}", f"最小的合法 {name}"),
            ("highest", top, f"the largest legal {name}", f"最大的合法 {name}"),
        ):
            if corner is not None and corner != value:
                out.append(Edit(kind, corner, f"{name} = {corner}", en, zh(zh_)))
        return out

    def resized(self, value: Any, dim: str, size: int) -> Any:
        if dim == self.vocab and _is_int(value):
            return min(value, size + self.offset)
        return value


@dataclass(frozen=True, kw_only=True)
class PadId(ArgumentSpec):
    """``pad_id``: any ``int`` of int64's range, never checked. Legal corners, one of each kind drawn:
    a negative one (-1 or -100), a real token (0 or ``V - 1``), ``V``, an end of int64."""

    vocab: str = "V"
    REFUSABLE: ClassVar[frozenset[Flaw]] = frozenset()

    def dim_names(self) -> tuple[str, ...]:
        return (self.vocab,)

    def good_problem(self, value: Any) -> str | None:
        return None if _is_int(value) and -(2**63) <= value < 2**63 else "an int of int64's range"

    def flaws(self, name: str, value: Any, sizes: Sizes) -> set[Flaw]:
        return set() if self.good_problem(value) is None else {Flaw.NOT_AN_INT}

    def bad_edits(self, name: str, value: Any, sizes: Sizes, rng: random.Random) -> list[Edit]:
        return []

    def legal_edits(self, name: str, value: Any, sizes: Sizes, rng: random.Random) -> list[Edit]:
        vocab = sizes.dims[self.vocab]
        kinds = (
            ((-1, f"{name} = -1", f"{name} 为 -1"), (-100, f"{name} = -100", f"{name} 为 -100")),
            (
                (0, f"{name} equal to the real token 0", f"{name} 等于真实 token 0"),
                (vocab - 1, f"{name} equal to the real token V - 1", f"{name} 等于真实 token V - 1"),
            ),
            ((vocab, f"{name} = V", f"{name} 为 V"),),
            (
                (-(2**63), f"{name} at the lowest int64", f"{name} 为 int64 的最小值"),
                (2**63 - 1, f"{name} at the largest int64", f"{name} 为 int64 的最大值"),
            ),
        )
        out = []
        for choices in kinds:
            corner, en, zh_ = rng.choice(choices)
            if corner != value:
                out.append(Edit("pad", corner, f"{name} = {corner}", en, zh(zh_)))
        return out


# --- sequence_log_prob ------------------------------------------------------------------------------

# "`sequence_log_prob`: `logits` not a floating tensor of three dimensions, `tokens` not an int64 tensor
# `[B, T]`, `mask` not a bool tensor `[B, T]`, a real token outside `[0, V)`". A tokens or mask of
# another B or T than logits is "not [B, T]": SHAPE on tokens and mask. Not on logits: its V is no
# shape of the others (a larger V keeps every id valid; judge.checks.arguments counts V as shared because
# TokenIds refers to it). Non-finite logits are no flaw (padded positions may hold them; at a real
# position what happens is left open).
LOG_PROB_ARGUMENTS = {
    "logits": Values(dims=("B", "T", "V"), refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.DTYPE}),
    "tokens": TokenIds(
        dims=("B", "T"),
        vocab="V",
        wrong_dtypes=(torch.int32, torch.int16, torch.uint8, torch.float32, torch.float64),
        refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.DTYPE, Flaw.SHAPE, Flaw.BELOW, Flaw.ABOVE},
    ),
    "mask": Mask(dims=("B", "T"), refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.DTYPE, Flaw.SHAPE}),
}


def log_prob_call(rng: random.Random, *, padded: bool) -> dict:
    """A call of ``sequence_log_prob``: 2 to 4 rows of 2 to 6 positions over 2 to 7 tokens, float32 or
    float64; ``padded``: some positions masked (in-range ids and finite logits there, so that every
    generated corner is legal), else every position real (so that an id put anywhere is a real one)."""
    batch, length, vocab = rng.randint(2, 4), rng.randint(2, 6), rng.randint(2, 7)
    dtype = rng.choice((torch.float32, torch.float64))
    logits = torch.tensor(
        [[[round(rng.gauss(0.0, 2.0), 3) for _ in range(vocab)] for _ in range(length)] for _ in range(batch)],
        dtype=dtype,
    )
    tokens = torch.tensor([[rng.randrange(vocab) for _ in range(length)] for _ in range(batch)])
    mask = torch.ones(batch, length, dtype=torch.bool)
    if padded:
        mask = torch.tensor([[rng.random() < 0.7 for _ in range(length)] for _ in range(batch)])
    return {"logits": logits, "tokens": tokens, "mask": mask}


# --- the decoders -----------------------------------------------------------------------------------

# "the decoders: `start_logits` not a floating `[B, V]` tensor, `transition_logits` not `[B, V, V]` of
# the same dtype, `V < 2`, any logit that is not finite, `eos_id` not an `int` in `[0, V)` (a float such
# as `0.0`, a `bool`, `-1`), `max_len` not an `int` `>= 1` (`2.0` included)". V = 1 in both tensors at
# once is a case of its own (hidden.decoders_bad_inputs): a spec changes one argument at a time.
GREEDY_ARGUMENTS: dict[str, ArgumentSpec] = {
    "start_logits": Logits(
        dims=("B", "V"),
        neginf=False,
        at_least={"V": 2},
        refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.DTYPE, Flaw.SHAPE, *NOT_FINITE},
    ),
    "transition_logits": Logits(
        dims=("B", "V", "V"),
        neginf=False,
        at_least={"V": 2},
        same_dtype_as="start_logits",
        refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.DTYPE, Flaw.DTYPE_MISMATCH, Flaw.SHAPE, *NOT_FINITE},
    ),
    "eos_id": Integer(low=0, vocab="V", offset=-1, refuse={Flaw.BELOW, Flaw.ABOVE, Flaw.NOT_AN_INT}),
    "max_len": Integer(low=1, refuse={Flaw.BELOW, Flaw.NOT_AN_INT}),
    "pad_id": PadId(),
}

# "`beam_search` also: `beam_width` not an `int` in `[1, V]`, `length_penalty` negative (even
# `-5e-324`), NaN or infinite." length_penalty is "an `int` or a `float`": anything else is left open.
BEAM_ARGUMENTS: dict[str, ArgumentSpec] = {
    **GREEDY_ARGUMENTS,
    "beam_width": Integer(low=1, vocab="V", offset=0, refuse={Flaw.BELOW, Flaw.ABOVE, Flaw.NOT_AN_INT}),
    "length_penalty": Number(low=0.0, examples=(2.0,), refuse={Flaw.BELOW, *NOT_FINITE}),
}


def _decoder_call(rng: random.Random, beam: bool) -> dict:
    batch, vocab = rng.randint(2, 4), rng.randint(3, 6)
    eos = rng.randrange(vocab)
    dtype = rng.choice((torch.float32, torch.float64))
    kinds = [rng.choice(list(cases.ROW_KINDS)) for _ in range(batch)]
    rows = [cases._random_row(rng, vocab, eos, kind) for kind in kinds]
    call = {
        "start_logits": torch.tensor([r[0] for r in rows], dtype=dtype),
        "transition_logits": torch.tensor([r[1] for r in rows], dtype=dtype),
        "eos_id": eos,
        "max_len": rng.randint(2, 5),
        "pad_id": rng.choice((-1, eos, (eos + 1) % vocab, vocab, -100)),
    }
    if beam:
        call["beam_width"] = rng.randint(1, vocab)
        call["length_penalty"] = rng.choice((0.0, 0.6, 1.0, 1.5))
    return call


def answers(call: dict, beam: bool) -> list[oracle.Decoded]:
    """The oracle's answer for a decoder call (``call``: the keyword arguments)."""
    args = (call["start_logits"], call["transition_logits"], call["eos_id"], call["max_len"], call["pad_id"])
    if beam:
        return oracle.beam(*args, call["beam_width"], float(call["length_penalty"]))
    return oracle.greedy(*args)


def _clear(call: dict, beam: bool) -> bool:
    return all(row.margin >= cases.MARGIN and not row.ties for row in answers(call, beam))


def decoder_calls(rng: random.Random, beam: bool, corners: random.Random | None = None) -> tuple[dict, list]:
    """A good call of a decoder that clears MARGIN and, with ``corners``, its legal corners
    (``legal_inputs`` under ``corners``), each clearing MARGIN too: drawn again until they all do."""
    arguments = BEAM_ARGUMENTS if beam else GREEDY_ARGUMENTS
    state = corners.getstate() if corners is not None else None
    for _ in range(cases._TRIES):
        call = _decoder_call(rng, beam)
        if not _clear(call, beam):
            continue
        if corners is None:
            return call, []
        corners.setstate(state)
        variants = legal_inputs(call, arguments, corners)
        if all(_clear(dict(v.kwargs), beam) for v in variants):
            return call, variants
    raise cases.AmbiguousCase("no decoder call whose corners all clear the margin")
