"""Exercise 49's hidden cases built by hand (cached): each puts one known mistake in plain sight, and the
instances the statistical checks draw from, with their exact targets.
"""

from __future__ import annotations

import functools
import random

import torch

from . import generated, oracle
from .generated import ProbsCase

NEG_INF = float("-inf")


def _case(logits, transitions, states, **params) -> ProbsCase:
    case = ProbsCase(logits, transitions, states, params)
    return ProbsCase(logits, transitions, states, params, oracle.target_probs(**case.kwargs()))


# The worked example's automaton: [0-9]+(\.[0-9]+)? then <eos>, over "1", "23", ".", ".5", "x", <eos>.
REGEX = torch.tensor(
    [
        [1, 1, -1, -1, -1, -1],
        [1, 1, 2, 3, -1, 4],
        [3, 3, -1, -1, -1, -1],
        [3, 3, -1, -1, -1, 4],
        [-1, -1, -1, -1, -1, 4],
    ]
)


@functools.cache
def greedy_masked() -> ProbsCase:
    """Greedy rows whose largest raw logit is disallowed, one whose allowed logits are all negative (a masked 0
    would win), one with two allowed tokens tied at the top (the lower index takes it all), and a sampling row."""
    logits = torch.tensor(
        [
            [0.5, 0.2, 1.0, 0.9, 3.0, 0.1],
            [0.4, 1.5, 0.3, 0.2, 2.5, -1.0],
            [2.0, 1.0, 0.5, 0.0, 3.5, 0.7],
            [-1.0, -2.0, -3.0, -4.0, -5.0, -6.0],
            [0.7, 1.2, 1.2, 0.3, 2.0, 1.2],
            [0.1, 0.3, 0.2, 0.2, 0.0, 0.9],
        ],
        dtype=torch.float64,
    )
    temperature = torch.tensor([0.0, 0.0, 0.0, 0.0, 0.0, 1.0], dtype=torch.float64)
    return _case(logits, REGEX, torch.tensor([1, 3, 0, 0, 1, 2]), temperature=temperature)


@functools.cache
def filters_then_mask() -> ProbsCase:
    """top-k and top-p whose raw-logit choice keeps disallowed tokens (never all of a row's allowed ones)."""
    logits = torch.tensor(
        [[1.0, 0.5, 2.0, 1.5, 3.0, 0.0], [1.2, 0.3, -0.4, 0.1, 2.2, 0.8], [0.7, 1.9, 0.2, 1.1, 2.6, -0.3]],
        dtype=torch.float32,
    )
    return _case(
        logits, REGEX, torch.tensor([1, 3, 1]), top_k=torch.tensor([2, 3, 3]), top_p=torch.tensor([1.0, 0.8, 0.9])
    )


@functools.cache
def filters_together() -> ProbsCase:
    """top_k = 3 then top_p = 0.8, whose cut moves when top-k's survivors are renormalized (0.8137 before "1"
    after, 0.6887 before), and three allowed tokens tied at the top-k cut (all stay)."""
    logits = torch.tensor([[1.0, 0.5, 2.0, 1.5, 3.0, 0.0], [1.0, 1.0, 1.0, 0.5, 3.0, 0.0]], dtype=torch.float64)
    return _case(logits, REGEX, torch.tensor([1, 1]), top_k=torch.tensor([3, 2]), top_p=torch.tensor([0.8, 1.0]))


@functools.cache
def plain_rows() -> ProbsCase:
    """Defaults only (no filter, temperature 1), float32: the mask, the softmax of what is left."""
    logits = torch.tensor(
        [
            [1.0, 0.5, 2.0, 1.5, 3.0, 0.0],
            [0.3, -1.2, 0.8, 2.0, 1.1, 0.4],
            [2.5, NEG_INF, 0.0, 1.0, 1.0, -0.5],
            [0.2, 0.9, 3.1, -0.7, 1.6, 1.3],
        ],
        dtype=torch.float32,
    )
    return _case(logits, REGEX, torch.tensor([1, 0, 3, 4]))


@functools.cache
def next_state_rows() -> ProbsCase:
    """Fewer rows than states, in states other than their row numbers (row b reads row states[b], not b)."""
    logits = torch.tensor([[0.0, 0.2, 0.1, -0.3, 0.4, 0.0]] * 4, dtype=torch.float64)
    return _case(logits, REGEX, torch.tensor([3, 2, 1, 0]))


@functools.cache
def float64_temperatures() -> ProbsCase:
    """float64 logits at temperatures 0.7 and 1.3, which float32 cannot hold: the parameter's own value."""
    logits = torch.tensor([[1.0, 0.5, 2.0, 1.5, 3.0, 0.0], [0.3, -1.2, 0.8, 2.0, 1.1, 0.4]], dtype=torch.float64)
    return _case(logits, REGEX, torch.tensor([1, 3]), temperature=torch.tensor([0.7, 1.3], dtype=torch.float64))


@functools.cache
def tiny_tail() -> ProbsCase:
    """top_p = 1 on a float32 row whose running total reaches 1 before its last tokens (about 1e-14 each): no
    token is cut."""
    logits = torch.tensor([[-30.0, -31.0, 2.0, -29.0, 9.0, -28.0]], dtype=torch.float32)
    return _case(logits, REGEX, torch.tensor([1]), top_p=1.0)


@functools.cache
def extreme_temperatures() -> ProbsCase:
    """Logits near 1000 at temperatures 1e-20, 50 and 1 (float64): shift by the largest allowed logit first."""
    logits = torch.tensor([[1001.0, 1000.5, 1002.0, 1001.5, 1003.0, 1000.0]] * 3, dtype=torch.float64)
    return _case(
        logits, REGEX, torch.tensor([1, 3, 0]), temperature=torch.tensor([1e-20, 50.0, 1.0], dtype=torch.float64)
    )


@functools.cache
def huge_logits() -> ProbsCase:
    """float32 logits of 1e19 at temperature 1e-20 (legal: only T below 1e-30 is left open): divided before
    being shifted by the largest allowed logit, they overflow float32."""
    logits = torch.tensor([[1e19, 2e19, 3e19, 2.5e19, 4e19, 1.5e19]] * 2, dtype=torch.float32)
    return _case(logits, REGEX, torch.tensor([1, 3]), temperature=1e-20)


def law_case(seed: int) -> ProbsCase:
    """Three rows whose targets each keep at least three tokens, for the draws' fits."""
    rng = random.Random(seed)
    while True:
        case = generated.probs_case(rng, batch=3, greedy=False)
        # Three tokens in play and none above 0.7: a row's copies all alike is then a certainty only of shared
        # random numbers (checks49._varies_across_calls), never of bad luck.
        if bool(((case.target > 0).sum(dim=1) >= 3).all()) and float(case.target.max()) <= 0.7:
            return case


def extreme_case(seed: int, dtype: torch.dtype, rows: int = 128, vocab: int = 32) -> ProbsCase:
    """Rows in states that disallow token 0 and the last token (where an inverse CDF goes wrong at u = 0 and
    u -> 1), most of the other tokens allowed, no filter. Long rows, because a renormalized row's cumulative
    sum falls short of the largest float below 1 only now and then (about one float64 row of V = 32 in 8,
    one float32 row in 40: benchmarks/power_049.py)."""
    rng = random.Random(seed)
    table = [[(rng.randrange(4) if rng.random() < 0.9 else -1) for _ in range(vocab)] for _ in range(4)]
    for row in table:
        row[0] = row[vocab - 1] = -1
        row[1] = row[2] = 0
    states = torch.tensor([rng.randrange(4) for _ in range(rows)])
    logits = torch.tensor([generated.logit_row(rng, vocab, neginf=0.0) for _ in range(rows)], dtype=dtype)
    return _case(logits, torch.tensor(table), states)


def sequence_case(seed: int, steps: int = 4):
    """(state_logits, transitions, start): a live automaton of 4 states over 5 tokens, finite logits, whose
    sequences from ``start`` number 20 to 200 and whose start-logits mistake gives another law."""
    rng = random.Random(seed)
    while True:
        auto = generated.automaton(rng, 4, 5)
        state_logits = torch.tensor([generated.logit_row(rng, 5, neginf=0.0) for _ in range(4)], dtype=torch.float32)
        start = rng.randrange(4)
        sequences, law = oracle.sequence_law(state_logits, auto.transitions, start, steps)
        if 20 <= len(sequences) <= 200:
            return state_logits, auto.transitions, start
