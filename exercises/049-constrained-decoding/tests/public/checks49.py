"""Exercise 49's checks, shared by the public, tiny and hidden suites: each takes the call and its exact
target (frozen in ``frozen49.py`` for the public suites, from the oracle for the hidden one), so this module
holds no answers.

A mistake is named only on the evidence of the whole failing call: an output every row of which (NaN rows
included) a listed mistake reproduces; a draw of a token only a pushed uniform gave; a sequence whose
every disallowed token is explained by the mask of the step before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import torch

from judge.checks.base import fail
from judge.checks.distributions import expect_distribution, expect_support, expect_tokens_in_range
from judge.checks.evidence import Evidence
from judge.checks.exact import expect, expect_close, expect_tensor
from judge.checks.independence import ROWS_SHARE_DIAGNOSIS, expect_independent_rows
from judge.i18n import Bilingual

from . import example49
from .diagnoses import MISTAKES

TOLERANCE = {torch.float32: (1e-4, 1e-6), torch.float64: (1e-9, 1e-12)}
SEQUENCE = Bilingual("sequence", "序列")

Mistakes = Mapping[str, torch.Tensor] | Callable[[], Mapping[str, torch.Tensor]] | None


def _listed(mistakes: Mistakes) -> Mapping[str, torch.Tensor]:
    return (mistakes() if callable(mistakes) else mistakes) or {}


def whole_output_mistakes(
    output: torch.Tensor, mistakes: Mistakes, target: torch.Tensor, rtol: float, atol: float
) -> dict:
    """The listed mistakes (diagnosis -> float64 [B, V]) that reproduce every row of ``output``: NaN exactly
    in the rows the mistake makes NaN, every other row within ``atol + rtol |m|``, and on at least one of
    those finite rows the mistake's value is not the target's (NaN rows alone are no evidence of a mistake:
    many give them)."""
    out = output.to(torch.float64)
    found = {}
    for diagnosis, mistake in _listed(mistakes).items():
        nan_rows = torch.isnan(mistake).any(dim=1)
        if not torch.equal(torch.isnan(out).any(dim=1), nan_rows):
            continue
        rest = ~nan_rows
        close = (out[rest] - mistake[rest]).abs() <= atol + rtol * mistake[rest].abs()
        telling = ((mistake[rest] - target[rest]).abs() > atol + rtol * target[rest].abs()).any()
        if bool(close.all()) and bool(telling):
            found[diagnosis] = mistake
    return found


def check_mask(sub, ctx, transitions, states, expected, *, what: str, mistakes: Mistakes = None) -> torch.Tensor:
    """``allowed_mask(transitions, states)`` equals ``expected`` (bool [B, V]) exactly."""
    value = sub.allowed_mask(transitions=transitions, states=states)
    mask = expect_tensor(value, name="allowed_mask", shape=tuple(expected.shape), dtype=torch.bool, device=ctx.device)
    if not torch.equal(mask, expected):
        b, v = (mask != expected).nonzero()[0].tolist()
        named = [d for d, m in _listed(mistakes).items() if torch.equal(mask, m)]
        fail(
            f"{what}: row {b} (state {int(states[b])}), token {v}: you returned {bool(mask[b, v])}, expected "
            f"{bool(expected[b, v])} (transitions[{int(states[b])}, {v}] = {int(transitions[states[b], v])})",
            diagnosis=named[0] if len(named) == 1 else None,
            rule=Bilingual(f"{what}: the mask differs from the automaton's", f"{what}：掩码与自动机给出的不一致"),
            kind=Evidence.VALUE,
        )
    return mask


def check_probs(sub, ctx, kwargs: dict, expected: torch.Tensor, *, what: str, mistakes: Mistakes = None) -> None:
    """``constrained_probs(**kwargs)`` equals ``expected`` (float64 [B, V]) within the dtype's tolerance, with
    exact zeros where ``expected`` has them and no zero where it is a normal number."""
    logits = kwargs["logits"]
    value = sub.constrained_probs(**kwargs)
    probs = expect_tensor(
        value, name="constrained_probs", shape=tuple(expected.shape), dtype=logits.dtype, device=ctx.device
    )
    rtol, atol = TOLERANCE[logits.dtype]
    named = whole_output_mistakes(probs, mistakes, expected.to(torch.float64), rtol, atol)
    nan = torch.isnan(probs)
    if bool(nan.any()):
        b, v = nan.nonzero()[0].tolist()
        fail(
            f"{what}: row {b} holds NaN at token {v}; a row with something to draw from is a distribution",
            diagnosis=next(iter(named)) if len(named) == 1 else None,
            rule=Bilingual(f"{what}: holds NaN", f"{what}：含有 NaN"),
            kind=Evidence.VALUE,
        )
    expect_close(probs, expected, rtol=rtol, atol=atol, what=what, mistakes=named)
    must_be_zero = (expected == 0) & (probs != 0)
    if bool(must_be_zero.any()):
        b, v = must_be_zero.nonzero()[0].tolist()
        fail(
            f"{what}: row {b}, token {v} has probability {float(probs[b, v])!r}; it is disallowed or filtered out, "
            "so its probability must be exactly 0",
            rule=Bilingual(
                f"{what}: an excluded token has a positive probability", f"{what}：被排除的 token 概率不为 0"
            ),
            kind=Evidence.VALUE,
        )
    tiny = torch.finfo(logits.dtype).tiny
    lost = (expected > tiny) & (probs <= 0)
    expect(
        not bool(lost.any()),
        f"{what}: a token still in play has probability 0",
        rule=Bilingual(f"{what}: a token in play has probability 0", f"{what}：仍在候选中的 token 概率为 0"),
        kind=Evidence.VALUE,
    )


def replicate(kwargs: dict, copies: int) -> dict:
    """The call with each row repeated ``copies`` times in a row (row r's copies at r * copies ...)."""
    out = {}
    batch = kwargs["logits"].shape[0]
    for name, value in kwargs.items():
        if isinstance(value, torch.Tensor) and name != "transitions" and value.dim() >= 1 and value.shape[0] == batch:
            out[name] = value.repeat_interleave(copies, dim=0)
        else:
            out[name] = value
    return out


def why_excluded(transitions, row_states):
    """Why a target row's token may not be drawn (``row_states``: each target row's state)."""

    def why(row: int, token: int) -> str:
        state = int(row_states[row])
        if int(transitions[state, token]) < 0:
            return f"token {token} is not allowed in state {state} (transitions[{state}, {token}] = -1)"
        return f"token {token} has a -inf logit or is filtered out by top-k / top-p in this row"

    return why


def step_tokens(ctx, value, kwargs: dict, target: torch.Tensor, *, what: str, copies: int = 1, diagnosis=None):
    """The (tokens, next_states) a call of ``sample_constrained`` returned for ``kwargs`` (each of the target's
    rows repeated ``copies`` times): shapes, range, support, and the next states. Returns the tokens."""
    transitions, states = kwargs["transitions"], kwargs["states"]
    batch = states.shape[0]
    expect(
        isinstance(value, (tuple, list)) and len(value) == 2,
        f"{what}: sample_constrained must return a pair (tokens, next_states), got {type(value).__name__}",
        rule=Bilingual(f"{what}: not a pair (tokens, next_states)", f"{what}：返回的不是 (tokens, next_states)"),
        kind=Evidence.STRUCTURAL,
    )
    tokens = expect_tensor(
        value[0], name="sample_constrained tokens", shape=(batch,), dtype=torch.int64, device=ctx.device
    )
    nxt = expect_tensor(
        value[1], name="sample_constrained next_states", shape=(batch,), dtype=torch.int64, device=ctx.device
    )
    vocab = transitions.shape[1]
    expect_tokens_in_range(tokens, vocab, what=what)
    expect_support(
        tokens.view(-1, copies),
        target,
        what=what,
        why_excluded=why_excluded(transitions, states[::copies]),
        diagnosis=diagnosis,
    )
    expected = transitions[states, tokens]
    if not torch.equal(nxt, expected):
        b = int((nxt != expected).nonzero()[0])
        wrong_row = batch <= transitions.shape[0] and torch.equal(nxt, transitions[torch.arange(batch), tokens])
        fail(
            f"{what}: row {b} is in state {int(states[b])} and drew token {int(tokens[b])}, so its next state is "
            f"{int(expected[b])}; you returned {int(nxt[b])}",
            diagnosis=MISTAKES["next_states_batch_row"] if wrong_row else None,
            rule=Bilingual(
                f"{what}: a next state is not transitions[state, token]",
                f"{what}：下一状态不等于 transitions[state, token]",
            ),
            kind=Evidence.VALUE,
        )
    return tokens


def check_step_law(sub, ctx, kwargs: dict, target: torch.Tensor, copies: int, *, label: str, twins: int | None = 0):
    """``copies`` draws of each target row in one call: next states, support, rows of one target independent
    (``twins``: the row whose copies are compared, one ``independence``), each row's fit (one ``fit`` a row)."""
    value = sub.sample_constrained(**replicate(kwargs, copies), generator=ctx.generator())
    tokens = step_tokens(ctx, value, replicate(kwargs, copies), target, what=label, copies=copies)
    grid = tokens.view(-1, copies)
    constant = twins is not None and bool((grid[twins] == grid[twins, 0]).all())
    if constant:
        # Copies all alike: rows sharing random numbers if the row alone varies from call to call (named), a
        # point mass otherwise (unnamed). Before the fits, which would fail first without a name.
        if not _varies_across_calls(sub, ctx, kwargs, twins):
            expect_not_constant(grid[twins], target[twins], what=f"{label}, row {twins}")
        _copies_independent(ctx, grid, target, twins, label)
    for row in range(grid.shape[0]):
        expect_distribution(ctx, grid[row], target[row], label=f"{label}, row {row}")
    if twins is not None and not constant:
        # After the fits: a distribution more peaked than the target's agrees with itself more often too.
        _copies_independent(ctx, grid, target, twins, label)


def _copies_independent(ctx, grid, target, twins: int, label: str) -> None:
    """Copies are rows of the batch: agreeing too often is rows sharing random numbers, never "sorted"."""
    expect_independent_rows(
        ctx,
        grid[twins, 0::2],
        grid[twins, 1::2],
        target[twins],
        label=f"{label}, row {twins}: copies 0, 2, 4, ... against copies 1, 3, 5, ...",
        diagnosis=ROWS_SHARE_DIAGNOSIS,
    )


def check_extreme_draws(value, kwargs: dict, target: torch.Tensor, ctx, what: str) -> None:
    """The hard checks of one call under pushed uniforms; a disallowed token named by the end that gave it."""
    if "lowest value" in what:
        diagnosis = MISTAKES["inverse_cdf_zero_u"]
    elif "highest value" in what:
        diagnosis = MISTAKES["inverse_cdf_past_end"]
    else:
        diagnosis = None  # the ordinary run
    step_tokens(ctx, value, kwargs, target, what=what, diagnosis=diagnosis)


def sequence_ids(
    ctx, value, state_logits, transitions, start_states, steps: int, sequences: Sequence[tuple], *, what: str
) -> torch.Tensor:
    """Each row's sequence as its index in ``sequences`` (every sequence of positive probability): shape, range,
    every token allowed in the state the row is in (a token allowed only one step earlier names the lagging
    mask), and no sequence of probability 0."""
    batch = start_states.shape[0]
    tokens = expect_tensor(
        value, name="generate_constrained", shape=(batch, steps), dtype=torch.int64, device=ctx.device
    )
    expect_tokens_in_range(tokens, transitions.shape[1], what=what)
    table, rows = transitions.tolist(), tokens.tolist()
    bad, lagging = None, True
    for b, row in enumerate(rows):
        path = [int(start_states[b])]
        for t, v in enumerate(row):
            if table[path[-1]][v] < 0:
                bad = bad or (b, t, path[-1], v)
                lagging = lagging and t >= 1 and table[path[-2]][v] >= 0
                break
            path.append(table[path[-1]][v])
    if bad is not None:
        b, t, state, v = bad
        fail(
            f"{what}: row {b} is in state {state} at step {t} and drew token {v}, which state {state} does not allow "
            "(a disallowed token must never come out)",
            diagnosis=MISTAKES["generate_previous_mask"] if lagging else None,
            rule=Bilingual(f"{what}: a sequence holds a disallowed token", f"{what}：序列中出现了不允许的 token"),
            kind=Evidence.VALUE,
        )
    index = {s: i for i, s in enumerate(sequences)}
    missing = [tuple(r) for r in rows if tuple(r) not in index]
    if missing:
        fail(
            f"{what}: the sequence {list(missing[0])} has probability 0 (a token of -inf logit), yet it was drawn",
            rule=Bilingual(f"{what}: drew a sequence of probability 0", f"{what}：抽到了概率为 0 的序列"),
            kind=Evidence.VALUE,
        )
    return torch.tensor([index[tuple(r)] for r in rows], dtype=torch.int64)


def check_sequence_law(
    sub,
    ctx,
    state_logits,
    transitions,
    start: int,
    steps: int,
    copies: int,
    sequences: Sequence[tuple],
    law: torch.Tensor,
    *,
    label: str,
    alternatives: Mapping[str, torch.Tensor] | None = None,
) -> None:
    """``copies`` rows from state ``start``: every sequence valid, and their law the exact one (one ``fit``)."""
    start_states = torch.full((copies,), start, dtype=torch.int64)
    value = sub.generate_constrained(
        state_logits=state_logits,
        transitions=transitions,
        start_states=start_states,
        num_steps=steps,
        generator=ctx.generator(),
    )
    ids = sequence_ids(ctx, value, state_logits, transitions, start_states, steps, sequences, what=label)
    expect_distribution(ctx, ids, law, label=label, alternatives=alternatives, outcome=SEQUENCE)


def expect_generates(sub, ctx, call: dict | None = None) -> None:
    """A legal call of generate_constrained (by default the number automaton, every logit 0, one step) returns
    valid sequences: the call made before one whose refusal would name a mistake."""
    call = call or example49.generate_call(8, 1)
    rows, steps = call["start_states"].shape[0], call["num_steps"]
    value = sub.generate_constrained(**call, generator=ctx.generator())
    tokens = expect_tensor(
        value, name="generate_constrained", shape=(rows, steps), dtype=torch.int64, device=ctx.device
    )
    expect_tokens_in_range(tokens, call["transitions"].shape[1], what=f"generate_constrained({steps} steps)")
    state = call["start_states"]
    for t in range(steps):
        step = call["transitions"][state, tokens[:, t]]
        expect(
            bool((step >= 0).all()),
            f"generate_constrained({steps} steps): step {t} drew a disallowed token",
            rule=Bilingual("generate_constrained: a disallowed token", "generate_constrained：抽到了不允许的 token"),
            kind=Evidence.VALUE,
        )
        state = step


def expect_not_constant(tokens: torch.Tensor, target: torch.Tensor, *, what: str) -> None:
    """Draws of one row, of a target whose two largest probabilities make a run of n equal draws less likely
    than 1e-20, are not all one token: a sampler drawing from a point mass fails here, unnamed, before a
    generator check could read its constant draws as an ignored seed."""
    n = tokens.numel()
    top = float(target.max())
    if top ** (n - 1) >= 1e-20:
        raise RuntimeError(f"{what}: {n} draws at a largest probability {top}: too few for expect_not_constant")
    expect(
        bool((tokens != tokens.flatten()[0]).any()),
        f"{what}: all {n} draws are token {int(tokens.flatten()[0])}, though the row's distribution keeps several "
        f"tokens (the largest probability is {top:.3f})",
        rule=Bilingual(f"{what}: every draw is the same token", f"{what}：所有抽样结果都是同一个 token"),
        kind=Evidence.VALUE,
    )


def _varies_across_calls(sub, ctx, kwargs: dict, row: int, calls: int = 60) -> bool:
    """Whether one row, alone in 60 calls with fresh generators, draws at least two different tokens (for a row
    whose largest probability is 0.7, all 60 alike has probability below 1e-9)."""
    single = {
        k: (v[row : row + 1] if isinstance(v, torch.Tensor) and k != "transitions" and v.dim() >= 1 else v)
        for k, v in kwargs.items()
    }
    seen = set()
    for _ in range(calls):
        value = sub.sample_constrained(**single, generator=ctx.generator())
        if isinstance(value, (tuple, list)) and value and isinstance(value[0], torch.Tensor) and value[0].numel():
            seen.add(int(value[0].flatten()[0]))
    return len(seen) >= 2
