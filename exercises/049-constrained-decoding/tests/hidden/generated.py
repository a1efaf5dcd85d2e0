"""Instances generated under the run's seed: automata, logits and per-row parameters within the contract.

An automaton has S states over V tokens; each (state, token) is allowed with probability about 0.6 and leads
to a random state; token 0 and the last token are disallowed in some states (the ends an inverse CDF gets
wrong), state 0 is a target (so ``> 0`` is not ``>= 0``), and ``dead`` states allow nothing. Logits are rounded
Gaussians with ties and -inf entries; an instance whose top-k or top-p decision is within the oracle's margin
is drawn again.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import torch

from . import oracle

NEG_INF = float("-inf")


@dataclass(frozen=True)
class Automaton:
    transitions: torch.Tensor  # int64 [S, V]
    dead: tuple[int, ...] = ()

    @property
    def states(self) -> int:
        return self.transitions.shape[0]

    @property
    def vocab(self) -> int:
        return self.transitions.shape[1]

    def live(self) -> list[int]:
        return [s for s in range(self.states) if s not in self.dead]


def automaton(rng: random.Random, states: int, vocab: int, *, dead: int = 0, density: float = 0.6) -> Automaton:
    """A random automaton whose states ``states - dead ..`` are dead and the others allow 1 to V - 1 tokens,
    every live state reaching only live states, token 0 leading to state 0 somewhere."""
    live = states - dead
    table = []
    for s in range(states):
        if s >= live:
            table.append([-1] * vocab)
            continue
        row = [rng.randrange(live) if rng.random() < density else -1 for _ in range(vocab)]
        if all(v < 0 for v in row):
            row[rng.randrange(vocab)] = rng.randrange(live)
        if all(v >= 0 for v in row):
            row[rng.randrange(vocab)] = -1
        table.append(row)
    # Some transitions into state 0 (a `> 0` mask drops them), and the two ends disallowed somewhere.
    allowed = [(s, v) for s in range(live) for v in range(vocab) if table[s][v] >= 0]
    for s, v in rng.sample(allowed, max(1, len(allowed) // 4)):
        table[s][v] = 0
    for end in (0, vocab - 1):
        s = rng.randrange(live)
        if sum(t >= 0 for t in table[s]) > 1:
            table[s][end] = -1
    return Automaton(torch.tensor(table, dtype=torch.int64), tuple(range(live, states)))


def logit_row(rng: random.Random, vocab: int, *, neginf: float = 0.1, ties: bool = True) -> list[float]:
    row = [round(rng.gauss(0.0, 1.5), 2) for _ in range(vocab)]
    if ties and vocab > 2 and rng.random() < 0.3:
        a, b = rng.sample(range(vocab), 2)
        row[a] = row[b]
    for v in range(vocab):
        if rng.random() < neginf:
            row[v] = NEG_INF
    return row


def _parameter(rng: random.Random, values: list, batch: int, dtype: torch.dtype):
    """A parameter as a number (half the time) or a [B] tensor of values drawn from ``values``."""
    if rng.random() < 0.5:
        return rng.choice(values)
    return torch.tensor([rng.choice(values) for _ in range(batch)], dtype=dtype)


@dataclass(frozen=True)
class ProbsCase:
    """A call of ``constrained_probs`` / ``sample_constrained`` and its exact target."""

    logits: torch.Tensor
    transitions: torch.Tensor
    states: torch.Tensor
    params: dict = field(default_factory=dict)
    target: torch.Tensor = field(default=None)  # type: ignore[assignment]  # set by probs_case

    def kwargs(self) -> dict:
        return {"logits": self.logits, "transitions": self.transitions, "states": self.states, **self.params}

    def mistakes(self) -> dict:
        return oracle.probs_mistakes(self.logits, self.transitions, self.states, **self.params)


def probs_case(rng: random.Random, *, dtype=None, batch=None, greedy=True, filters=True, tries=200) -> ProbsCase:
    """A generated call: S in 3..6, V in 4..8, B rows in live states, mixed parameters, both dtypes."""
    for _ in range(tries):
        dtype = dtype or rng.choice((torch.float32, torch.float64))
        vocab, states = rng.randint(4, 8), rng.randint(3, 6)
        auto = automaton(rng, states, vocab, dead=rng.randint(0, 1))
        rows = batch or rng.randint(3, 8)
        state_ids = [rng.choice(auto.live()) for _ in range(rows)]
        logits = []
        for s in state_ids:
            row = logit_row(rng, vocab)
            allowed = [v for v in range(vocab) if auto.transitions[s, v] >= 0]
            if all(row[v] == NEG_INF for v in allowed):
                row[rng.choice(allowed)] = round(rng.gauss(0.0, 1.5), 2)
            logits.append(row)
        temps = [0.5, 1.0, 1.0, 1.7] + ([0.0] if greedy else [])
        params = {"temperature": _parameter(rng, temps, rows, dtype)}
        if filters:
            params["top_k"] = _parameter(rng, [0, 1, 2, 3, vocab + 1], rows, rng.choice((torch.int64, dtype)))
            params["top_p"] = _parameter(rng, [1.0, 0.9, 0.75, 0.5], rows, dtype)
        case = ProbsCase(torch.tensor(logits, dtype=dtype), auto.transitions, torch.tensor(state_ids), params)
        try:
            target = oracle.target_probs(**case.kwargs())
        except oracle.AmbiguousCase:
            continue
        return ProbsCase(case.logits, case.transitions, case.states, params, target)
    raise RuntimeError("no unambiguous instance in 200 tries")
