"""Exercise 51's inputs, generated under the case's seed.

Sequences: padding anywhere (right, left, holes; sometimes a whole row), garbage finite values at
padding, log-probabilities of ordinary size or far below -100 ("deep": exp of each side underflows in
the dtype), differences up to +-6 so that ratios fall on both sides of both clip bounds, advantages
per sequence or per token with both signs. Groups: rewards on a grid (0/1 correctness, multiples of
1/4), so that no two unequal rewards are closer than 1/4 (the normalized values are well conditioned),
plus groups of equal rewards, some of whose means round (0.1 three times). Bandits: weights that do
not sum to 1, zeros in p_old (with negative advantages there, where 0 * inf turns into NaN) and in
p_new.
"""

from __future__ import annotations

import random

import torch

DEEP = {torch.float32: (-160.0, -110.0), torch.float64: (-900.0, -760.0)}  # exp() underflows to 0 below
ROUNDING_EQUAL = (0.1, 0.3, 0.7, 0.2, 0.6)  # equal rewards whose torch mean is off by one rounding


def _mask(rng: random.Random, batch: int, length: int, *, empty_row: bool, first_real: bool) -> torch.Tensor:
    rows = []
    for _ in range(batch):
        kind = rng.choice(("right", "left", "holes", "full"))
        real = rng.randint(1, length)
        if kind == "right":
            row = [t < real for t in range(length)]
        elif kind == "left":
            row = [t >= length - real for t in range(length)]
        elif kind == "holes":
            row = [rng.random() < 0.6 for _ in range(length)]
            row[rng.randrange(length)] = True
        else:
            row = [True] * length
        if first_real:
            row[0] = True
        rows.append(row)
    if empty_row and batch >= 2:
        rows[rng.randrange(batch)] = [False] * length
    return torch.tensor(rows, dtype=torch.bool)


def token_case(
    rng: random.Random,
    dtype: torch.dtype,
    *,
    batch: int | None = None,
    length: int | None = None,
    deep: bool = False,
    empty_row: bool = False,
    per_token: bool | None = None,
    first_real: bool = False,
    legal_padding: bool = False,
) -> dict:
    """A legal call of ppo_clip_objective (token_ratios takes its first two tensors and the mask).

    ``first_real``: every row's first token is real. ``legal_padding``: padding holds values a real
    token could hold (no garbage, no overflowing pair), so that a corner which turns padding into real
    tokens (a mask row made all True) is still a legal call whose ratios are finite in both dtypes.
    """
    batch = batch or rng.randint(2, 6)
    length = length or rng.randint(2, 9)
    mask = _mask(rng, batch, length, empty_row=empty_row, first_real=first_real)
    old, new = [], []
    for _ in range(batch * length):
        base = rng.uniform(*DEEP[dtype]) if deep and rng.random() < 0.5 else rng.uniform(-9.0, -0.01)
        step = rng.choice((rng.uniform(-0.15, 0.15), rng.uniform(-1.0, 1.0), rng.uniform(-6.0, 6.0)))
        old.append(base)
        new.append(min(base + step, 0.0) if not deep else base + step)
    logp_old = torch.tensor(old, dtype=torch.float64).reshape(batch, length)
    logp_new = torch.tensor(new, dtype=torch.float64).reshape(batch, length)
    if not legal_padding:
        garbage = torch.tensor([rng.uniform(-50.0, 50.0) for _ in range(2 * batch * length)], dtype=torch.float64)
        logp_old = torch.where(mask, logp_old, garbage[: batch * length].reshape(batch, length))
        logp_new = torch.where(mask, logp_new, garbage[batch * length :].reshape(batch, length))
    padding = (~mask).nonzero().tolist() if not legal_padding else []
    if padding:  # one padding pair whose exp overflows in both dtypes: arithmetic on the mask turns it into NaN
        b, t = rng.choice(padding)
        logp_new[b, t], logp_old[b, t] = 0.0, -800.0
    per_token = rng.random() < 0.5 if per_token is None else per_token
    shape = (batch, length) if per_token else (batch,)
    adv = [
        rng.choice((0.0, rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0)))
        for _ in range(batch * length if per_token else batch)
    ]
    advantages = torch.tensor(adv, dtype=torch.float64).reshape(shape)
    if per_token:
        advantages = torch.where(mask, advantages, torch.full_like(advantages, rng.uniform(-40.0, 40.0)))
    if not bool(mask.any()):
        mask[0, 0] = True
    if deep:  # at least one real token far below -100, whatever the draws above gave
        b, t = (int(i) for i in mask.nonzero()[rng.randrange(int(mask.sum()))])
        logp_old[b, t] = rng.uniform(*DEEP[dtype])
        logp_new[b, t] = logp_old[b, t] + rng.uniform(-1.0, 1.0)
    return {
        "logp_new": logp_new.to(dtype),
        "logp_old": logp_old.to(dtype),
        "advantages": advantages.to(dtype),
        "mask": mask,
        "clip_eps": rng.choice((0.2, 0.1, 0.28, 0.5)),
        "aggregation": rng.choice(("token-mean", "sequence-mean")),
    }


def ratios_kwargs(case: dict) -> dict:
    return {k: case[k] for k in ("logp_new", "logp_old", "mask")}


def rewards_case(rng: random.Random, dtype: torch.dtype, *, equal_rows: int = 1, batch: int | None = None) -> dict:
    """A legal call of grpo_advantages: grid rewards, ``equal_rows`` groups of equal rewards."""
    batch = batch or rng.randint(3, 7)
    size = rng.randint(2, 8)
    rows = []
    for _ in range(batch):
        if rng.random() < 0.5:
            row = [float(rng.random() < 0.4) for _ in range(size)]
        else:
            row = [rng.randint(-4, 8) / 4 for _ in range(size)]
        if len(set(row)) == 1:
            row[rng.randrange(size)] = row[0] + 1.0
        rows.append(row)
    for b in rng.sample(range(batch), min(equal_rows, batch)):
        value = rng.choice((*ROUNDING_EQUAL, 0.0, 1.0, 0.5))
        rows[b] = [value] * size
    eps = rng.choice((1e-6, 0.0, 1e-4, 0.5, 0))
    return {"rewards": torch.tensor(rows, dtype=torch.float64).to(dtype), "eps": eps}


def bandit_case(rng: random.Random, dtype: torch.dtype, *, batch: int | None = None, vocab: int | None = None) -> dict:
    """A legal call of clipping_bias: unnormalized weights, zeros in p_old (a negative advantage on one)
    and in p_new."""
    batch = batch or rng.randint(2, 6)
    vocab = vocab or rng.randint(3, 8)
    p_new, p_old, adv = [], [], []
    for _ in range(batch):
        scale_new, scale_old = rng.choice((1.0, 0.5, 3.0)), rng.choice((1.0, 2.0, 0.25))
        new = [rng.uniform(0.05, 1.0) * scale_new for _ in range(vocab)]
        old = [rng.uniform(0.05, 1.0) * scale_old for _ in range(vocab)]
        a = [rng.uniform(-2.0, 2.0) for _ in range(vocab)]
        if rng.random() < 0.6:
            x = rng.randrange(vocab)
            old[x] = 0.0
            a[x] = -abs(a[x]) - 0.1
        if rng.random() < 0.6:  # p = 0 where q > 0: g = (1 - eps) A there, not 0, when A < 0
            y = rng.randrange(vocab)
            new[y] = 0.0
            if old[y] > 0 and rng.random() < 0.7:
                a[y] = -abs(a[y]) - 0.1
        if not any(v > 0 for v in new):
            new[0] = 1.0
        if not any(v > 0 for v in old):
            old[0] = 1.0
        p_new.append(new)
        p_old.append(old)
        adv.append(a)
    return {
        "p_new": torch.tensor(p_new, dtype=torch.float64).to(dtype),
        "p_old": torch.tensor(p_old, dtype=torch.float64).to(dtype),
        "advantages": torch.tensor(adv, dtype=torch.float64).to(dtype),
        "clip_eps": rng.choice((0.2, 0.1, 0.3)),
    }
