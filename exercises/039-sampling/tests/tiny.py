"""The tiny variant of exercise 39: what "Run" judges in the browser, after the public cases.

It never leaves the public side: no hidden input, no oracle. Five rows of six tokens (one row
each for top-k + top-p + min-p, top-p + min-p, greedy with a tie, a -inf logit, and no filter)
are small enough for the browser's pure-Python torch, yet every known mistake of
``diagnoses.MISTAKES`` moves some probability by 0.15 or more, and no two mistakes return the
same batch, so the diagnosis is never ambiguous. The expected values and what each mistake
returns were computed with the server's float64 oracle and frozen here
(tests/exercises/test_039_sampling.py checks them against it).
"""

from __future__ import annotations

import torch

from judge.budget import BudgetDeclaration
from judge.checks import (SEEDS_DIAGNOSIS, expect, expect_close, expect_different_under_seeds, expect_distribution,
                          expect_independent_rows, expect_support, expect_tensor)

from .diagnoses import MISTAKES

BUDGET = BudgetDeclaration(fit=6, independence=1, seeds=1)

NEG_INF = float("-inf")
LOGITS = [
    [-1.16, -0.08, -1.07, -1.38, -0.91, 0.32],
    [-0.45, -0.09, -1.53, 1.89, -1.47, 1.07],
    [1.0, 2.5, 0.5, 2.5, -1.0, 0.0],
    [0.72, -0.06, -0.17, -0.66, -0.22, NEG_INF],
    [0.5, -0.3, 1.2, 0.0, -1.0, 0.8],
]
PARAMS = {  # one value per row
    "temperature": [1.6, 1.6, 0.0, 0.8, 1.0],
    "top_k": [4, 0, 0, 3, 0],
    "top_p": [0.9, 0.7, 1.0, 0.8, 1.0],
    "min_p": [0.2, 0.2, 0.0, 0.3, 0.0],
}
LABELS = [
    "temperature=1.6, top_k=4, top_p=0.9, min_p=0.2",
    "temperature=1.6, top_p=0.7, min_p=0.2",
    "temperature=0, tied maxima at tokens 1 and 3",
    "temperature=0.8, top_k=3, top_p=0.8, min_p=0.3, token 5 at -inf",
    "temperature=1, no filter",
]
SAMPLED_ROWS = (0, 1, 3, 4)  # row 2 is greedy: checked draw by draw
DRAWS = 3000
TOLERANCE = {"rtol": 1e-4, "atol": 1e-6}

# The exact distribution of each row (float64).
EXPECTED = [
    [0.0, 0.292576728664, 0.157586878954, 0.0, 0.174160438545, 0.375675953837],
    [0.0, 0.15356934227, 0.0, 0.529351249639, 0.0, 0.31707940809],
    [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
    [0.72611498804, 0.27388501196, 0.0, 0.0, 0.0, 0.0],
    [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
]

# What each known mistake returns on these rows (float64), keyed like diagnoses.MISTAKES.
MISTAKEN = {
    "temperature_multiplied": [
        [0.0, 0.345246542627, 0.0, 0.0, 0.0, 0.654753457373],
        [0.0, 0.0, 0.0, 1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.493471659673, 0.26440060818, 0.242127732147, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
    ],
    "temperature_ignored": [
        [0.0, 0.303080758696, 0.11261773932, 0.0, 0.132158144825, 0.45214335716],
        [0.0, 0.0, 0.0, 0.694236325937, 0.0, 0.305763674063],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.535027805179, 0.245259955421, 0.2197122394, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
    ],
    "no_greedy": [
        [0.0, 0.292576728664, 0.157586878954, 0.0, 0.174160438545, 0.375675953837],
        [0.0, 0.15356934227, 0.0, 0.529351249639, 0.0, 0.31707940809],
        [0.090308755046, 0.404735760448, 0.054775028776, 0.404735760448, 0.012221960943, 0.033222734339],
        [0.72611498804, 0.27388501196, 0.0, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
    ],
    "greedy_ties_split": [
        [0.0, 0.292576728664, 0.157586878954, 0.0, 0.174160438545, 0.375675953837],
        [0.0, 0.15356934227, 0.0, 0.529351249639, 0.0, 0.31707940809],
        [0.0, 0.5, 0.0, 0.5, 0.0, 0.0],
        [0.72611498804, 0.27388501196, 0.0, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
    ],
    "top_k_plus_one": [
        [0.12965322851, 0.254643211206, 0.137155231327, 0.0, 0.151579975409, 0.326968353548],
        [0.0, 0.15356934227, 0.0, 0.529351249639, 0.0, 0.31707940809],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.586191066253, 0.221106780381, 0.192702153366, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
    ],
    "top_p_drops_crossing": [
        [0.0, 0.347307896037, 0.0, 0.0, 0.206739940528, 0.445952163435],
        [0.0, 0.0, 0.0, 0.625392339946, 0.0, 0.374607660054],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
    ],
    "top_p_one_extra": [
        [0.0, 0.292576728664, 0.157586878954, 0.0, 0.174160438545, 0.375675953837],
        [0.109232670226, 0.136794552949, 0.0, 0.471528799154, 0.0, 0.282443977671],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.586191066253, 0.221106780381, 0.192702153366, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
    ],
    "top_p_unsorted": [
        [0.0, 0.292576728664, 0.157586878954, 0.0, 0.174160438545, 0.375675953837],
        [0.15222876936, 0.190639544081, 0.0, 0.657131686559, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.72611498804, 0.27388501196, 0.0, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
    ],
    "min_p_absolute": [
        [0.0, 0.43782350049, 0.0, 0.0, 0.0, 0.56217649951],
        [0.0, 0.0, 0.0, 0.625392339946, 0.0, 0.374607660054],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
    ],
    "filters_reordered": [
        [0.0, 0.292576728664, 0.157586878954, 0.0, 0.174160438545, 0.375675953837],
        [0.0, 0.15356934227, 0.0, 0.529351249639, 0.0, 0.31707940809],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.586191066253, 0.221106780381, 0.192702153366, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
    ],
    "min_p_first": [
        [0.0, 0.292576728664, 0.157586878954, 0.0, 0.174160438545, 0.375675953837],
        [0.0, 0.0, 0.0, 0.625392339946, 0.0, 0.374607660054],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.72611498804, 0.27388501196, 0.0, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
    ],
    "no_filtering": [
        [0.116490161723, 0.228790514482, 0.123230522387, 0.101525175563, 0.136190791794, 0.293772834051],
        [0.098110981278, 0.122866609372, 0.049953836571, 0.423519383806, 0.051862670573, 0.253686518401],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.456012897923, 0.17200457236, 0.149907892582, 0.081249204101, 0.140825433035, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
    ],
    "row0_params": [
        [0.0, 0.292576728664, 0.157586878954, 0.0, 0.174160438545, 0.375675953837],
        [0.109232670226, 0.136794552949, 0.0, 0.471528799154, 0.0, 0.282443977671],
        [0.146224600463, 0.373397598251, 0.106980203035, 0.373397598251, 0.0, 0.0],
        [0.364533805943, 0.223882033321, 0.209007319779, 0.0, 0.202576840956, 0.0],
        [0.222882139976, 0.0, 0.345206621707, 0.163064057019, 0.0, 0.268847181298],
    ],
}


def _logits() -> torch.Tensor:
    return torch.tensor(LOGITS, dtype=torch.float32)


def _params() -> dict[str, torch.Tensor]:
    return {"temperature": torch.tensor(PARAMS["temperature"]), "top_k": torch.tensor(PARAMS["top_k"]),
            "top_p": torch.tensor(PARAMS["top_p"]), "min_p": torch.tensor(PARAMS["min_p"])}


def _expected() -> torch.Tensor:
    return torch.tensor(EXPECTED, dtype=torch.float64)


def _mistakes() -> dict[str, torch.Tensor]:
    return {MISTAKES[name]: torch.tensor(rows, dtype=torch.float64) for name, rows in MISTAKEN.items()}


def _row(row: int) -> str:
    return f"row {row} ({LABELS[row]})"


def _excluded(row: int, token: int) -> str:
    if LOGITS[row][token] == NEG_INF:
        return "its logit is -inf"
    return "its target probability is 0 (removed by temperature 0, top-k, top-p or min-p)"


def test_tiny_probs_per_row(sub, ctx):
    """sampling_probs: five rows, each with its own parameters

    zh: sampling_probs：五行各自使用自己的参数
    """
    out = sub.sampling_probs(_logits(), **_params())
    out = expect_tensor(out, name="sampling_probs", shape=(5, 6), dtype=torch.float32, device=ctx.device)
    expect_close(out, _expected(), what="sampling_probs with per-row parameters", row_labels=LABELS,
                 mistakes=_mistakes, **TOLERANCE)


def test_tiny_draws_per_row(sub, ctx):
    """sample: 3 000 draws per row follow each row's distribution

    zh: sample：每行 3 000 次抽样服从各自的分布
    """
    draws = sub.sample(_logits(), num_samples=DRAWS, generator=ctx.generator(), **_params())
    draws = expect_tensor(draws, name="sample", shape=(5, DRAWS), dtype=torch.int64, device=ctx.device)
    expected = _expected()
    alternatives = _mistakes()
    expect(bool((draws[2] == 1).all()), f"sample: {_row(2)} drew tokens {sorted(set(draws[2].tolist()))}; at "
           "temperature 0 it must always draw token 1, the first of the tied maxima", diagnosis=MISTAKES["no_greedy"])
    expect_support(draws, expected, what="sample with per-row parameters", why_excluded=_excluded, row_labels=LABELS,
                   alternatives=alternatives)
    for row in SAMPLED_ROWS:
        expect_distribution(ctx, draws[row], expected[row], label=f"sample, {_row(row)}",
                            alternatives={name: probs[row] for name, probs in alternatives.items()})


def test_tiny_generator(sub, ctx):
    """sample: the same generator seed repeats the draws, another seed changes them

    zh: sample：相同的 generator 种子得到相同的抽样，不同的种子得到不同的抽样
    """
    row = torch.tensor([LOGITS[4]])
    seed, other = ctx.fresh_seed("same"), ctx.fresh_seed("other")
    first = sub.sample(row, num_samples=200, generator=ctx.generator(seed))
    again = sub.sample(row, num_samples=200, generator=ctx.generator(seed))
    first = expect_tensor(first, name="sample", shape=(1, 200), dtype=torch.int64, device=ctx.device)
    expect(torch.equal(first, expect_tensor(again, name="sample", shape=(1, 200), dtype=torch.int64,
                                            device=ctx.device)),
           "sample: the same generator seed gave different draws; draw every random number from `generator`",
           diagnosis=SEEDS_DIAGNOSIS)
    second = sub.sample(row, num_samples=200, generator=ctx.generator(other))
    second = expect_tensor(second, name="sample", shape=(1, 200), dtype=torch.int64, device=ctx.device)
    expect_different_under_seeds(ctx, first, second, _expected()[4:5], label="sample, two generator seeds")


def test_tiny_rows_independent(sub, ctx):
    """sample: two identical rows get independent draws

    zh: sample：两行相同的输入得到相互独立的抽样
    """
    rows = torch.tensor([LOGITS[4], LOGITS[4]])
    draws = sub.sample(rows, num_samples=DRAWS, generator=ctx.generator())
    draws = expect_tensor(draws, name="sample", shape=(2, DRAWS), dtype=torch.int64, device=ctx.device)
    for copy in (0, 1):
        expect_distribution(ctx, draws[copy], _expected()[4], label=f"sample, copy {copy} of row 4")
    expect_independent_rows(ctx, draws[0], draws[1], _expected()[4], label="sample, two copies of row 4")
