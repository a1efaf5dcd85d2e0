"""How exercise 42 compares a learner's answers with the target: shared by the public, tiny and hidden suites.

Public on purpose: it holds no answers, only the comparison and the wording of failures.
Expected values arrive as plain lists (tokens) and floats (scores), so the browser's tiny
suite can freeze them; a mistake's output is given the same way.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import torch

from judge.checks.base import CheckFailed, fail, rule
from judge.checks.evidence import Evidence
from judge.checks.exact import expect, expect_close, expect_tensor
from judge.checks.numbers import format_pair
from judge.i18n import Bilingual
from judge.learner.interface import LearnerRaised

# float32: sums of up to a few thousand log-probabilities; float64: near machine precision.
TOLERANCE = {torch.float32: (1e-5, 1e-4), torch.float64: (1e-10, 1e-10)}

Decoded = tuple[list[list[int]], list[float]]  # tokens [B][max_len], scores [B]


def _same(actual: Sequence[float], candidate: Sequence[float], rtol: float, atol: float) -> bool:
    """Equal NaN pattern, equal infinities, finite values within tolerance."""
    for a, c in zip(actual, candidate, strict=True):
        if math.isnan(a) or math.isnan(c):
            if not (math.isnan(a) and math.isnan(c)):
                return False
        elif math.isinf(a) or math.isinf(c):
            if a != c:
                return False
        elif abs(a - c) > atol + rtol * abs(c):
            return False
    return True


def check_log_probs(
    ctx,
    value,
    expected: Sequence[float],
    dtype,
    *,
    what: str,
    labels: Sequence[str],
    mistakes: Callable[[], Mapping[str, Sequence[float]]],
) -> None:
    """``sequence_log_prob``'s value: a [B] tensor of ``dtype`` on the run's device, close to ``expected``.

    ``mistakes``: diagnosis -> what that mistake returns ([B] floats, NaN and inf included), asked
    for only on failure; the first one that reproduces every row is the diagnosis.
    """
    out = expect_tensor(value, name="sequence_log_prob", shape=(len(expected),), dtype=dtype, device=ctx.device)
    rtol, atol = TOLERANCE[dtype]
    actual = out.to(torch.float64).tolist()
    if _same(actual, expected, rtol, atol):
        return
    found = {name: list(got) for name, got in mistakes().items()}
    matching = [name for name, got in found.items() if _same(actual, got, rtol, atol)]
    diagnosis = matching[0] if len(matching) == 1 else None  # two mistakes that coincide here name none
    row = next(i for i, a in enumerate(actual) if not _same([a], [expected[i]], rtol, atol))
    if all(math.isfinite(v) for v in actual + list(expected)):
        expect_close(
            out.to(torch.float64),
            torch.tensor(expected, dtype=torch.float64),
            rtol=rtol,
            atol=atol,
            what=what,
            row_labels=labels,
            mistakes={name: torch.tensor(got, dtype=torch.float64) for name, got in found.items()},
            per_row=True,
        )
    returned, wanted = format_pair(actual[row], expected[row])
    fail(
        f"{what}: row {row} ({labels[row]}): you returned {returned}, expected {wanted}"
        + (f". This matches a known mistake: {diagnosis}" if diagnosis else ""),
        diagnosis=diagnosis,
        rule=rule(what, "the log-probability differs from the target", "对数概率与目标不一致", row=row, labels=labels),
        kind=Evidence.VALUE,
        explained_by=matching if len(matching) > 1 else (),
    )


def decoded(ctx, value, *, name: str, batch: int, max_len: int, dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """The pair (tokens, scores) a decoder returns, checked: int64 [B, max_len] and ``dtype`` [B]."""
    expect(
        isinstance(value, (list, tuple)) and len(value) == 2,
        f"{name} must return a pair (tokens, scores), got {type(value).__name__}"
        + (f" of length {len(value)}" if isinstance(value, (list, tuple)) else ""),
        rule=Bilingual(
            f"{name}: did not return a pair (tokens, scores)", f"{name}：返回的不是 (tokens, scores) 二元组"
        ),
        kind=Evidence.STRUCTURAL,
    )
    tokens = expect_tensor(
        value[0], name=f"{name} tokens", shape=(batch, max_len), dtype=torch.int64, device=ctx.device
    )
    scores = expect_tensor(value[1], name=f"{name} scores", shape=(batch,), dtype=dtype, device=ctx.device)
    return tokens, scores


def check_decoded(
    ctx,
    value,
    expected: Decoded,
    dtype,
    *,
    name: str,
    what: str,
    labels: Sequence[str],
    mistakes: Callable[[], Mapping[str, Decoded]],
    tie_rows: Sequence[int] = (),
    tie_diagnosis: str | None = None,
    tie_orders: Callable[[], Sequence[Decoded]] | None = None,
    rescore: Callable[[int, list[int]], float | None] | None = None,
    confirm: Callable[[list[str]], list[str]] | None = None,
) -> None:
    """A decoder's (tokens, scores) against ``expected``; a failure names the mistake that reproduces every row.

    ``tie_diagnosis`` is named when one of ``tie_orders()`` (what each wrong tie order returns)
    reproduces every row, or, with ``rescore(row, tokens)`` (the true score of a returned row, None
    when it is not a sequence), when every wrong row is one of ``tie_rows`` and returns a sequence
    whose true score and returned score are the expected score: a tied rival. ``confirm(names)``
    keeps the names that another input (a witness, asked only now) also shows; a name it drops is
    not named. Two names left name none.
    """
    want_tokens, want_scores = expected
    tokens, scores = decoded(ctx, value, name=name, batch=len(want_tokens), max_len=len(want_tokens[0]), dtype=dtype)
    rtol, atol = TOLERANCE[dtype]
    got_tokens, got_scores = tokens.tolist(), scores.to(torch.float64).tolist()

    def row_ok(row: int, tok: Sequence[Sequence[int]], sc: Sequence[float]) -> bool:
        return list(got_tokens[row]) == list(tok[row]) and _same([got_scores[row]], [sc[row]], rtol, atol)

    def reproduces(answer: Decoded) -> bool:
        return all(row_ok(row, answer[0], answer[1]) for row in range(len(want_tokens)))

    def tied_rival(row: int) -> bool:
        if rescore is None or row not in tie_rows:
            return False
        worth = rescore(row, list(got_tokens[row]))
        return worth is not None and all(
            _same([value], [want_scores[row]], rtol, atol) for value in (worth, got_scores[row])
        )

    wrong = [row for row in range(len(want_tokens)) if not row_ok(row, want_tokens, want_scores)]
    if not wrong:
        return
    matching = [text for text, answer in mistakes().items() if reproduces(answer)]
    if tie_diagnosis and tie_diagnosis not in matching:
        orders = tie_orders() if tie_orders is not None else ()
        if any(reproduces(answer) for answer in orders) or (not matching and all(tied_rival(row) for row in wrong)):
            matching.append(tie_diagnosis)
    if confirm is not None and matching:
        matching = confirm(matching)
    diagnosis = matching[0] if len(matching) == 1 else None  # two mistakes that coincide here name none
    row = wrong[0]
    tokens_wrong = list(got_tokens[row]) != list(want_tokens[row])
    got_score, want_score = format_pair(got_scores[row], want_scores[row])  # digits enough to differ
    fail(
        f"{what}: row {row} ({labels[row]}): you returned tokens {got_tokens[row]} with score "
        f"{got_score}; expected tokens {want_tokens[row]} with score {want_score}"
        + (f". This matches a known mistake: {diagnosis}" if diagnosis else ""),
        diagnosis=diagnosis,
        rule=rule(
            what,
            "the decoded tokens differ from the target" if tokens_wrong else "the score differs from the target",
            "解码出的 token 与目标不一致" if tokens_wrong else "得分与目标不一致",
            row=row,
            labels=labels,
        ),
        kind=Evidence.VALUE,
        explained_by=matching if len(matching) > 1 else (),
    )


def parse_sequence(tokens: Sequence[int], eos: int, pad: int) -> tuple[int, ...] | None:
    """The sequence a decoder's padded row holds (up to its first EOS, or all of it), or None when a
    position after it is not ``pad`` (a malformed row)."""
    out = list(tokens)
    end = out.index(eos) + 1 if eos in out else len(out)
    if end == 0 or any(v != pad for v in out[end:]):
        return None
    return tuple(out[:end])


def _log_softmax(row: Sequence[float]) -> list[float]:
    top = max(row)
    total = top + math.log(sum(math.exp(v - top) for v in row))
    return [v - total for v in row]


def sequence_score(start: Sequence[float], trans: Sequence[Sequence[float]], seq: Sequence[int], alpha: float) -> float:
    """log p of ``seq`` under one row's start [V] and transition [V][V] logits, divided by L ** alpha
    (plain Python in float64: the statement's formula, for judging a sequence a learner returned)."""
    first, table = _log_softmax(start), [_log_softmax(row) for row in trans]
    total = first[seq[0]] + sum(table[a][b] for a, b in zip(seq, seq[1:], strict=False))
    return total / float(len(seq)) ** alpha


def rescorer(
    start: Sequence[Sequence[float]], trans: Sequence[Sequence[Sequence[float]]], eos: int, pad: int, alpha: float
) -> Callable[[int, list[int]], float | None]:
    """``rescore(row, tokens)`` for :func:`check_decoded`: the true score of a returned row of a model
    (float64 lists, ``[B][V]`` and ``[B][V][V]``), or None when the row is not a sequence of valid ids."""

    def rescore(row: int, tokens: list[int]) -> float | None:
        seq = parse_sequence(tokens, eos, pad)
        vocab = len(start[row])
        if seq is None or any(not 0 <= v < vocab for v in seq):
            return None
        return sequence_score(start[row], trans[row], seq, alpha)

    return rescore


def not_refuted(
    mistakes: Mapping[str, Any], there: Mapping[str, Any], returned: Any, same: Callable[[Any, Any], bool]
) -> dict[str, Any]:
    """Of the mistakes listed for a case, those the learner's answer on another input does not refute.

    Two mistakes may give the same answer on a case (log(softmax) and a product in linear space
    both give -inf for a token 1000 behind the leader): the case alone cannot tell them apart, and
    names neither. Another input where they differ can: ``there`` is what each mistake returns on
    it, ``returned`` what the learner returned there (None when it raised or returned something
    else: evidence of nothing), ``same(predicted, returned)`` whether a mistake's answer is the
    learner's. A mistake not listed ``there`` stays.
    """
    if returned is None:
        return dict(mistakes)
    return {name: got for name, got in mistakes.items() if name not in there or same(there[name], returned)}


def returned_log_probs(call: Callable[[], Any]) -> list[float] | None:
    """What ``call()`` (a call of the learner's ``sequence_log_prob``) returned as [B] floats, or None
    when it raised, changed its input or returned something else."""
    try:
        value = call()
    except (LearnerRaised, CheckFailed):
        return None
    if not isinstance(value, torch.Tensor) or value.dim() != 1 or not value.is_floating_point():
        return None
    return value.to(torch.float64).tolist()


def same_log_probs(dtype) -> Callable[[Sequence[float], Sequence[float]], bool]:
    """Whether two [B] answers of ``sequence_log_prob`` agree, within ``dtype``'s tolerance."""
    rtol, atol = TOLERANCE[dtype]
    return lambda a, b: len(a) == len(b) and _same(list(b), list(a), rtol, atol)


def returned_decoded(call: Callable[[], Any], dtype) -> Decoded | None:
    """What ``call()`` (a call of the learner's decoder) returned as (tokens, scores) lists, or None
    when it raised, changed its input or returned something else than a pair of tensors."""
    try:
        value = call()
    except (LearnerRaised, CheckFailed):
        return None
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        return None
    tokens, scores = value
    if not isinstance(tokens, torch.Tensor) or not isinstance(scores, torch.Tensor) or scores.dim() != 1:
        return None
    return tokens.tolist(), scores.to(torch.float64).tolist()


def same_decoded(dtype) -> Callable[[Decoded, Decoded], bool]:
    """Whether two answers of a decoder agree: the same tokens, scores within ``dtype``'s tolerance."""
    rtol, atol = TOLERANCE[dtype]

    def same(a: Decoded, b: Decoded) -> bool:
        return a[0] == b[0] and len(a[1]) == len(b[1]) and _same(list(b[1]), list(a[1]), rtol, atol)

    return same


@contextlib.contextmanager
def refused(diagnosis: str) -> Iterator[None]:
    """A ValueError the learner raises on a valid input gets ``diagnosis`` (its check refuses what the
    contract allows); other exceptions, such as an IndexError from gather, keep theirs."""
    try:
        yield
    except LearnerRaised as raised:
        if raised.derives_from(ValueError) and getattr(raised, "diagnosis", None) is None:
            raised.diagnosis = diagnosis
        raise
