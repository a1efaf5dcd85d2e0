"""The tiny variant of exercise 39: what "Run" judges in the browser, after the public cases.

It never leaves the public side: no hidden input, no oracle. Six rows of six tokens (one row
each for top-k + top-p + min-p, top-p + min-p, greedy with a tie, a -inf logit, no filter, and
top-k + min-p) are small enough for the browser's pure-Python torch, yet every mistake of
``MISTAKEN`` moves some probability by 0.1 or more, and no two mistakes return the same batch, so
the diagnosis is never ambiguous; the zeros of the result are checked exactly (a filtered token is
0, never 1e-12). The other known mistakes (``BY_RULE``) break a rule that small edge cases check
directly, per clause of the statement: top-k at its edges (ties at the cut, top_k = 1, top_k = V
and > V), one draw per row (the shape [B, 1] of ``sample`` without ``num_samples``, its
distribution), the generator contract (the seed decides, the generator advances, torch's global
generator is left alone, ``generator=None`` follows ``torch.manual_seed``; at 200 draws and at one
draw per row), draws independent at three distances within a row and across identical rows, every
kind of refusal (each with the value that trips it), top_p = 1 cutting nothing, the dtype of an
all-greedy result, and draws fed extreme uniform values (exactly 0.0 and the largest float below 1,
now and then and at each draw site in turn, by the browser's own boundary-uniform phase), which
catch an inverse CDF that runs off either end and log(0) in Gumbel or exponential noise. The
expected values and what each mistake returns were computed with the server's float64 oracle and
frozen here (tests/exercises/test_039_sampling.py and tests/exercises/test_browser_variants.py
check them against it).
"""

from __future__ import annotations

import torch

from judge.checks.base import CheckFailed, diagnosed, fail
from judge.checks.budget import BudgetDeclaration
from judge.checks.distributions import expect_distribution, expect_support, expect_tokens_in_range
from judge.checks.draw_sites import expect_every_draw_site
from judge.checks.evidence import Evidence
from judge.checks.exact import expect, expect_close, expect_tensor
from judge.checks.generator_contract import expect_generator_contract, generator_contract_budget
from judge.checks.independence import expect_independent_rows, expect_independent_within_row
from judge.checks.refusals import expect_raises

from .diagnoses import MISTAKES

NEG_INF = float("-inf")
# One row of LOGITS[4] (no filter): the generator contract at 200 draws; 24 copies of it at one draw
# each (a correct sampler repeats those 24 with probability 0.21^24, below the seeds level 1e-12).
CONTRACT_ROWS = 24
CONTRACT = generator_contract_budget(1)
BUDGET = BudgetDeclaration(fit=7, independence=1, pairs=1) + CONTRACT + CONTRACT
EVERY_KIND = (Evidence.STRUCTURAL, Evidence.VALUE, Evidence.RAISED)  # of failures a diagnosed block may name

LOGITS = [
    [-1.16, -0.08, -1.07, -1.38, -0.91, 0.32],
    [-0.45, -0.09, -1.53, 1.89, -1.47, 1.07],
    [1.0, 2.5, 0.5, 2.5, -1.0, 0.0],
    [0.72, -0.06, -0.17, -0.66, -0.22, NEG_INF],
    [0.5, -0.3, 1.2, 0.0, -1.0, 0.8],
    [-1.0, 0.55, -0.12, -0.45, 0.7, -1.2],
]
PARAMS = {  # one value per row
    "temperature": [1.6, 1.6, 0.0, 0.8, 1.0, 0.8],
    "top_k": [4, 0, 0, 3, 0, 4],
    "top_p": [0.9, 0.7, 1.0, 0.8, 1.0, 0.9],
    "min_p": [0.2, 0.2, 0.0, 0.3, 0.0, 0.4],
}
LABELS = [
    "temperature=1.6, top_k=4, top_p=0.9, min_p=0.2",
    "temperature=1.6, top_p=0.7, min_p=0.2",
    "temperature=0, tied maxima at tokens 1 and 3",
    "temperature=0.8, top_k=3, top_p=0.8, min_p=0.3, token 5 at -inf",
    "temperature=1, no filter",
    "temperature=0.8, top_k=4, top_p=0.9, min_p=0.4",
]
SAMPLED_ROWS = (0, 1, 3, 4, 5)  # row 2 is greedy: checked draw by draw
DRAWS = 3000
TOLERANCE = {"rtol": 1e-4, "atol": 1e-6}

# The exact distribution of each row (float64).
EXPECTED = [
    [0.0, 0.292576728664, 0.157586878954, 0.0, 0.174160438545, 0.375675953837],
    [0.0, 0.15356934227, 0.0, 0.529351249639, 0.0, 0.31707940809],
    [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
    [0.72611498804, 0.27388501196, 0.0, 0.0, 0.0, 0.0],
    [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
    [0.0, 0.453261855401, 0.0, 0.0, 0.546738144599, 0.0],
]

# What each known mistake returns on these rows (float64), keyed like diagnoses.MISTAKES.
MISTAKEN = {
    "temperature_multiplied": [
        [0.0, 0.345246542627, 0.0, 0.0, 0.0, 0.654753457373],
        [0.0, 0.0, 0.0, 1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.493471659673, 0.26440060818, 0.242127732147, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
        [0.0, 0.368652621283, 0.215692716822, 0.0, 0.415654661895, 0.0],
    ],
    "temperature_ignored": [
        [0.0, 0.303080758696, 0.11261773932, 0.0, 0.132158144825, 0.45214335716],
        [0.0, 0.0, 0.0, 0.694236325937, 0.0, 0.305763674063],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.535027805179, 0.245259955421, 0.2197122394, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
        [0.0, 0.374035532349, 0.191397188532, 0.0, 0.434567279119, 0.0],
    ],
    "no_greedy": [
        [0.0, 0.292576728664, 0.157586878954, 0.0, 0.174160438545, 0.375675953837],
        [0.0, 0.15356934227, 0.0, 0.529351249639, 0.0, 0.31707940809],
        [0.090308755046, 0.404735760448, 0.054775028776, 0.404735760448, 0.012221960943, 0.033222734339],
        [0.72611498804, 0.27388501196, 0.0, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
        [0.0, 0.453261855401, 0.0, 0.0, 0.546738144599, 0.0],
    ],
    "greedy_ties_split": [
        [0.0, 0.292576728664, 0.157586878954, 0.0, 0.174160438545, 0.375675953837],
        [0.0, 0.15356934227, 0.0, 0.529351249639, 0.0, 0.31707940809],
        [0.0, 0.5, 0.0, 0.5, 0.0, 0.0],
        [0.72611498804, 0.27388501196, 0.0, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
        [0.0, 0.453261855401, 0.0, 0.0, 0.546738144599, 0.0],
    ],
    "top_k_plus_one": [
        [0.12965322851, 0.254643211206, 0.137155231327, 0.0, 0.151579975409, 0.326968353548],
        [0.0, 0.15356934227, 0.0, 0.529351249639, 0.0, 0.31707940809],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.586191066253, 0.221106780381, 0.192702153366, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
        [0.0, 0.453261855401, 0.0, 0.0, 0.546738144599, 0.0],
    ],
    "top_p_drops_crossing": [
        [0.0, 0.347307896037, 0.0, 0.0, 0.206739940528, 0.445952163435],
        [0.0, 0.0, 0.0, 0.625392339946, 0.0, 0.374607660054],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
        [0.0, 0.453261855401, 0.0, 0.0, 0.546738144599, 0.0],
    ],
    "top_p_one_extra": [
        [0.0, 0.292576728664, 0.157586878954, 0.0, 0.174160438545, 0.375675953837],
        [0.109232670226, 0.136794552949, 0.0, 0.471528799154, 0.0, 0.282443977671],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.586191066253, 0.221106780381, 0.192702153366, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
        [0.0, 0.453261855401, 0.0, 0.0, 0.546738144599, 0.0],
    ],
    "top_p_unsorted": [
        [0.0, 0.292576728664, 0.157586878954, 0.0, 0.174160438545, 0.375675953837],
        [0.15222876936, 0.190639544081, 0.0, 0.657131686559, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.72611498804, 0.27388501196, 0.0, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
        [0.0, 0.453261855401, 0.0, 0.0, 0.546738144599, 0.0],
    ],
    "min_p_absolute": [
        [0.0, 0.43782350049, 0.0, 0.0, 0.0, 0.56217649951],
        [0.0, 0.0, 0.0, 0.625392339946, 0.0, 0.374607660054],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
        [0.0, 0.0, 0.0, 0.0, 1.0, 0.0],
    ],
    "filters_reordered": [
        [0.0, 0.292576728664, 0.157586878954, 0.0, 0.174160438545, 0.375675953837],
        [0.0, 0.15356934227, 0.0, 0.529351249639, 0.0, 0.31707940809],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.586191066253, 0.221106780381, 0.192702153366, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
        [0.0, 0.453261855401, 0.0, 0.0, 0.546738144599, 0.0],
    ],
    "min_p_first": [
        [0.0, 0.292576728664, 0.157586878954, 0.0, 0.174160438545, 0.375675953837],
        [0.0, 0.0, 0.0, 0.625392339946, 0.0, 0.374607660054],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.72611498804, 0.27388501196, 0.0, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
        [0.0, 0.453261855401, 0.0, 0.0, 0.546738144599, 0.0],
    ],
    "no_filtering": [
        [0.116490161723, 0.228790514482, 0.123230522387, 0.101525175563, 0.136190791794, 0.293772834051],
        [0.098110981278, 0.122866609372, 0.049953836571, 0.423519383806, 0.051862670573, 0.253686518401],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.456012897923, 0.17200457236, 0.149907892582, 0.081249204101, 0.140825433035, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
        [0.045277597398, 0.314288824501, 0.136021420204, 0.090045255819, 0.37910467587, 0.035262226207],
    ],
    "row0_params": [
        [0.0, 0.292576728664, 0.157586878954, 0.0, 0.174160438545, 0.375675953837],
        [0.109232670226, 0.136794552949, 0.0, 0.471528799154, 0.0, 0.282443977671],
        [0.146224600463, 0.373397598251, 0.106980203035, 0.373397598251, 0.0, 0.0],
        [0.364533805943, 0.223882033321, 0.209007319779, 0.0, 0.202576840956, 0.0],
        [0.222882139976, 0.0, 0.345206621707, 0.163064057019, 0.0, 0.268847181298],
        [0.0, 0.30382067959, 0.1998740967, 0.162623490971, 0.333681732739, 0.0],
    ],
    "temperature_after_filters": [
        [0.0, 0.292576728664, 0.157586878954, 0.0, 0.174160438545, 0.375675953837],
        [0.0, 0.0, 0.0, 0.625392339946, 0.0, 0.374607660054],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.586191066253, 0.221106780381, 0.192702153366, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
        [0.0, 0.378928346603, 0.163996832984, 0.0, 0.457074820413, 0.0],
    ],
    "top_k_max_for_all_rows": [
        [0.0, 0.292576728664, 0.157586878954, 0.0, 0.174160438545, 0.375675953837],
        [0.0, 0.0, 0.0, 0.625392339946, 0.0, 0.374607660054],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.586191066253, 0.221106780381, 0.192702153366, 0.0, 0.0, 0.0],
        [0.201201483233, 0.0, 0.405170050928, 0.122034868361, 0.0, 0.271593597478],
        [0.0, 0.453261855401, 0.0, 0.0, 0.546738144599, 0.0],
    ],
    "top_p_mask_unsorted": [
        [0.0, 0.649934209947, 0.350065790053, 0.0, 0.0, 0.0],
        [0.362124771882, 0.453497073531, 0.184378154588, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.72611498804, 0.27388501196, 0.0, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
        [0.0, 0.697938428443, 0.302061571557, 0.0, 0.0, 0.0],
    ],
    "min_p_softmax_max": [
        [0.0, 0.292576728664, 0.157586878954, 0.0, 0.174160438545, 0.375675953837],
        [0.0, 0.15356934227, 0.0, 0.529351249639, 0.0, 0.31707940809],
        [0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
        [0.72611498804, 0.27388501196, 0.0, 0.0, 0.0, 0.0],
        [0.177223221717, 0.079631525683, 0.356883759578, 0.107491317585, 0.039543845844, 0.239226329594],
        [0.0, 0.378928346603, 0.163996832984, 0.0, 0.457074820413, 0.0],
    ],
}

# The known mistakes the edge cases below diagnose by the rule they break (not by frozen rows).
BY_RULE = (
    "top_k_drops_ties",
    "top_k_one_ignored",
    "sample_shape_squeezed",
    "top_k_at_least_vocab",
    "extreme_uniforms",
    "log_of_zero",
    "default_generator_unused",
    "bad_shape_accepted",
    "bad_row_accepted",
    "tail_cut",
    "filtered_not_zero",
    "greedy_dtype",
    "greedy_rows_unchecked",
    "temperature_accepted",
    "top_k_accepted",
    "top_p_accepted",
    "min_p_accepted",
    "logits_values_accepted",
    "logits_type_accepted",
    "num_samples_accepted",
)

# Top-k at its edges: four rows of six tokens at temperature 1 with top_k = 2 (three tokens tied at
# the cut), V, more than V, and 1.
EDGE_LOGITS = [
    [0.3, 1.2, -0.4, 1.2, 1.2, 0.5],
    [0.4, -0.2, 1.1, 0.0, -0.9, 0.7],
    [-0.5, 0.9, 0.1, 1.4, -1.2, 0.3],
    [0.2, 0.8, -0.3, 1.5, 0.6, -1.0],
]
EDGE_TOP_K = [2, 6, 9, 1]
EDGE_LABELS = ["top_k=2, tokens 1, 3 and 4 tied at the cut", "top_k=6 (= V)", "top_k=9 (> V)", "top_k=1"]
EDGE_TIED = (1, 3, 4)
EDGE_EXPECTED = [
    [0.0, 0.333333333333, 0.0, 0.333333333333, 0.333333333333, 0.0],
    [0.170786171501, 0.0937294373654, 0.343921121407, 0.11448139366, 0.0465446623767, 0.23053721369],
    [0.0614049230572, 0.249009236009, 0.111887064906, 0.410546824008, 0.0304927809166, 0.136659171104],
    [0.0, 0.0, 0.0, 1.0, 0.0, 0.0],
]
EDGE_TOP_K_ONE_IGNORED = [
    0.112473729547,
    0.20494049899,
    0.068218764366,
    0.412699479792,
    0.167791091074,
    0.0338764362308,
]  # row 3 without its top_k=1

# One draw per row (the default num_samples): the five rows above and, 11 times, a row whose top_k=1
# leaves token 3 only; a sampler whose one-draw path skips the filters draws another token from it
# with probability 0.79 each time.
ONE_DRAW_ROW = [0.5, 0.4, 0.3, 0.6, 0.2, 0.1]
ONE_DRAW_PARAMS = {"temperature": 1.0, "top_k": 1, "top_p": 1.0, "min_p": 0.0}
ONE_DRAW_COPIES = 11
ONE_DRAW_UNFILTERED = [0.190844159805, 0.172682937834, 0.15624998454, 0.210915420329, 0.141380831315, 0.127926666177]

# Fed extreme uniforms: rows 0 and 1 exclude token 0 and token 5 (an inverse CDF that runs off an
# end draws them; their float32 cumulative sums can end a hair below 1), rows 2 and 3 allow one
# token only (if Gumbel or exponential noise takes log(0) for it, every token scores -inf or inf
# and the first one, excluded, wins).
EXTREME_LOGITS = [
    [-3.0, -0.4, 1.9, 1.4, 0.3, NEG_INF],
    [-3.0, -0.2, 0.8, 1.2, -1.1, NEG_INF],
    [0.2, 0.8, -0.3, 1.5, 0.6, -1.0],
    [NEG_INF, NEG_INF, 0.5, NEG_INF, NEG_INF, NEG_INF],
]
EXTREME_PARAMS = {"temperature": [0.8, 0.8, 1.0, 1.0], "top_k": [4, 4, 1, 0]}
EXTREME_LABELS = [
    "temperature=0.8, top_k=4, token 5 at -inf",
    "temperature=0.8, top_k=4, token 5 at -inf",
    "top_k=1: token 3 only",
    "only token 2 is finite",
]
EXTREME_EXPECTED = [
    [0.0, 0.0326668909758, 0.579034484334, 0.309934825246, 0.0783637994442, 0.0],
    [0.0, 0.0946109729652, 0.330224749339, 0.544448592685, 0.0307156850113, 0.0],
    [0.0, 0.0, 0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
]
# About ten 0.0s and ten largest floats per row; each mistake shows in two rows, and a wrong sampler
# escapes only if neither row gets the value that trips it: 0.99**2000, below 1e-8.
EXTREME_DRAWS = 1000


def _logits() -> torch.Tensor:
    return torch.tensor(LOGITS, dtype=torch.float32)


def _params() -> dict[str, torch.Tensor]:
    return {
        "temperature": torch.tensor(PARAMS["temperature"]),
        "top_k": torch.tensor(PARAMS["top_k"]),
        "top_p": torch.tensor(PARAMS["top_p"]),
        "min_p": torch.tensor(PARAMS["min_p"]),
    }


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


def _whole_output(out: torch.Tensor) -> dict[str, torch.Tensor]:
    """The known mistakes that reproduce every finite row of ``out`` within the tolerance: a mistake is
    named only when it explains the whole call, never one row that it happens to share."""
    got = out.to(torch.float64)
    finite = [row for row in range(got.shape[0]) if bool(torch.isfinite(got[row]).all())]
    found = {}
    for name, wrong in _mistakes().items():
        if finite and all(
            bool(((got[row] - wrong[row]).abs() <= TOLERANCE["atol"] + TOLERANCE["rtol"] * wrong[row].abs()).all())
            for row in finite
        ):
            found[name] = wrong
    return found


def test_tiny_probs_per_row(sub, ctx):
    """sampling_probs: six rows, each with its own parameters

    zh: sampling_probs：六行各自使用自己的参数
    """
    out = sub.sampling_probs(_logits(), **_params())
    out = expect_tensor(out, name="sampling_probs", shape=(len(LOGITS), 6), dtype=torch.float32, device=ctx.device)
    expect_close(
        out,
        _expected(),
        what="sampling_probs with per-row parameters",
        row_labels=LABELS,
        mistakes=lambda: _whole_output(out),
        **TOLERANCE,
    )
    # Exact zeros where the target has them (a filtered token is 0, not 1e-12), and only there.
    expected = _expected()
    for row in range(len(LOGITS)):
        for token in range(6):
            value, target = float(out[row, token]), float(expected[row, token])
            expect(
                (value == 0.0) == (target == 0.0),
                f"sampling_probs, {_row(row)}, token {token}: you returned {value!r}, expected "
                f"{'exactly 0' if target == 0.0 else repr(target)}",
                diagnosis=MISTAKES["filtered_not_zero" if target == 0.0 else "tail_cut"],
                kind=Evidence.VALUE,
            )


def test_tiny_draws_per_row(sub, ctx):
    """sample: 3 000 draws per row follow each row's distribution

    zh: sample：每行 3 000 次抽样服从各自的分布
    """
    draws = sub.sample(_logits(), num_samples=DRAWS, generator=ctx.generator(), **_params())
    draws = expect_tensor(draws, name="sample", shape=(len(LOGITS), DRAWS), dtype=torch.int64, device=ctx.device)
    expected = _expected()
    alternatives = _mistakes()
    expect(
        bool((draws[2] == 1).all()),
        f"sample: {_row(2)} drew tokens {sorted(set(draws[2].tolist()))}; at "
        "temperature 0 it must always draw token 1, the first of the tied maxima",
        diagnosis=MISTAKES["no_greedy"],
    )
    expect_support(
        draws,
        expected,
        what="sample with per-row parameters",
        why_excluded=_excluded,
        row_labels=LABELS,
        alternatives=alternatives,
    )
    for row in SAMPLED_ROWS:
        expect_distribution(
            ctx,
            draws[row],
            expected[row],
            label=f"sample, {_row(row)}",
            alternatives={name: probs[row] for name, probs in alternatives.items()},
        )
    expect_independent_within_row(ctx, draws[4], expected[4], label=f"sample, consecutive draws of {_row(4)}")


def test_tiny_generator(sub, ctx):
    """sample: the generator decides the draws and advances from call to call, and so does torch.manual_seed without one

    zh: sample：抽样由 generator 决定、每次调用接着往下抽；不传 generator 时 torch.manual_seed 同样如此
    """  # noqa: E501 - a case's title is its docstring's first line: it cannot wrap
    row = torch.tensor([LOGITS[4]])
    target = _expected()[4:5]

    def draw(source, generator):
        value = source.sample(row, num_samples=200, generator=generator)
        return expect_tensor(value, name="sample", shape=(1, 200), dtype=torch.int64, device=ctx.device)

    expect_generator_contract(sub, ctx, draw, target, label="sample with 200 draws")
    # One draw per row without num_samples (a decoder's call), 24 rows: the same contract there.
    rows = torch.tensor([LOGITS[4]] * CONTRACT_ROWS)
    seen = []

    def draw_one(source, generator):
        value = _one_draw_per_row(source.sample(rows, generator=generator), CONTRACT_ROWS, ctx)
        seen.append(value)
        return value

    try:
        expect_generator_contract(
            sub, ctx, draw_one, target.repeat(CONTRACT_ROWS, 1), label="sample with one draw per row"
        )
    except CheckFailed as failure:
        # Rows that all drew one token in every call repeat under any seed: that is rows sharing
        # random numbers (or no randomness at all), not evidence about the generator.
        if seen and all(bool((value == value[0, 0]).all()) for value in seen):
            failure.diagnosis = None
        raise


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


def test_tiny_top_k_edges(sub, ctx):
    """sampling_probs: ties at the top-k cut all stay, top_k=1 keeps one token, top_k >= V filters nothing

    zh: sampling_probs：与第 k 个并列的 token 都保留，top_k=1 只留一个 token，top_k >= V 不做过滤
    """
    picked = [0, 3]  # first the rows whose top_k is below V
    out = sub.sampling_probs(
        torch.tensor([EDGE_LOGITS[r] for r in picked]), top_k=torch.tensor([EDGE_TOP_K[r] for r in picked])
    )
    out = expect_tensor(out, name="sampling_probs", shape=(2, 6), dtype=torch.float32, device=ctx.device)
    tied = [token for token in EDGE_TIED if out[0, token] > 0]
    expect(
        len(tied) == len(EDGE_TIED),
        f"sampling_probs, row 0 ({EDGE_LABELS[0]}): tokens {list(EDGE_TIED)} share the 2nd largest probability, "
        f"so top-k must keep all three; you kept {tied}",
        diagnosis=MISTAKES["top_k_drops_ties"],
    )
    expected = torch.tensor([EDGE_EXPECTED[r] for r in picked], dtype=torch.float64)
    one_ignored = torch.tensor([EDGE_EXPECTED[0], EDGE_TOP_K_ONE_IGNORED], dtype=torch.float64)
    expect_close(
        out,
        expected,
        what="sampling_probs at the edges of top-k",
        row_labels=[EDGE_LABELS[r] for r in picked],
        mistakes={MISTAKES["top_k_one_ignored"]: one_ignored},
        **TOLERANCE,
    )
    # Now top_k >= V, per row and as one number: a crash or a wrong row here is about that rule.
    with diagnosed(MISTAKES["top_k_at_least_vocab"], evidence=(Evidence.VALUE, Evidence.RAISED)):
        out = sub.sampling_probs(torch.tensor(EDGE_LOGITS), top_k=torch.tensor(EDGE_TOP_K))
        out = expect_tensor(out, name="sampling_probs", shape=(4, 6), dtype=torch.float32, device=ctx.device)
        expect_close(
            out,
            torch.tensor(EDGE_EXPECTED, dtype=torch.float64),
            what="sampling_probs with top_k = 2, 6, 9, 1",
            row_labels=EDGE_LABELS,
            **TOLERANCE,
        )
        for row in (1, 2):
            out = sub.sampling_probs(torch.tensor([EDGE_LOGITS[row]]), top_k=EDGE_TOP_K[row])
            out = expect_tensor(out, name="sampling_probs", shape=(1, 6), dtype=torch.float32, device=ctx.device)
            expect_close(
                out,
                torch.tensor([EDGE_EXPECTED[row]], dtype=torch.float64),
                what=f"sampling_probs with top_k={EDGE_TOP_K[row]} for V=6",
                **TOLERANCE,
            )


def test_tiny_default_shape(sub, ctx):
    """sample: without num_samples, one draw per row, shape [B, 1], from the filtered distribution

    zh: sample：不传 num_samples 时每行抽一次，形状为 [B, 1]，且来自过滤后的分布
    """
    rows = len(LOGITS) + ONE_DRAW_COPIES
    logits = torch.tensor(LOGITS + [ONE_DRAW_ROW] * ONE_DRAW_COPIES)
    params = {name: torch.tensor(values + [ONE_DRAW_PARAMS[name]] * ONE_DRAW_COPIES) for name, values in PARAMS.items()}
    draws = _one_draw_per_row(sub.with_global_seed(ctx.fresh_seed("default")).sample(logits, **params), rows, ctx)
    one_hot = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    expected = torch.tensor(EXPECTED + [one_hot] * ONE_DRAW_COPIES, dtype=torch.float64)
    unfiltered = torch.tensor(MISTAKEN["no_filtering"] + [ONE_DRAW_UNFILTERED] * ONE_DRAW_COPIES, dtype=torch.float64)
    expect_support(
        draws,
        expected,
        what="sample without num_samples (one draw per row)",
        why_excluded=lambda row, token: _excluded(row, token) if row < len(LOGITS) else "top_k=1 keeps token 3 only",
        row_labels=LABELS + ["top_k=1"] * ONE_DRAW_COPIES,
        alternatives={MISTAKES["no_filtering"]: unfiltered},
    )


def _one_draw_per_row(draws, rows: int, ctx) -> torch.Tensor:
    """``draws`` of ``sample`` without num_samples, checked: int64 [rows, 1] (a [rows] tensor is a known mistake)."""
    if isinstance(draws, torch.Tensor) and tuple(draws.shape) == (rows,):
        fail(
            f"sample without num_samples returned shape {list(draws.shape)}; the default is num_samples=1, and "
            f"the result keeps that dimension: [{rows}, 1]",
            diagnosis=MISTAKES["sample_shape_squeezed"],
        )
    return expect_tensor(draws, name="sample", shape=(rows, 1), dtype=torch.int64, device=ctx.device)


def test_tiny_bad_parameters(sub, ctx):
    """sampling_probs: every kind of bad input raises ValueError (a bad value in any row, a [B, 1] tensor, NaN, +inf, 1-D logits, ...)

    zh: sampling_probs：各类非法输入都抛出 ValueError（任何一行的非法值、[B, 1] 张量、NaN、+inf、一维 logits 等）
    """  # noqa: E501 - a case's title is its docstring's first line: it cannot wrap
    logits = _logits()
    bad_row = torch.tensor([1.0, 1.0, 1.0, -0.5, 1.0, 1.0])
    with expect_raises(
        ValueError,
        "sampling_probs() with a per-row temperature of -0.5 in row 3",
        diagnosis=MISTAKES["bad_row_accepted"],
    ):
        sub.sampling_probs(logits, temperature=bad_row)
    with expect_raises(
        ValueError,
        "sampling_probs() with a temperature tensor of shape [6, 1] (must be [6])",
        diagnosis=MISTAKES["bad_shape_accepted"],
    ):
        sub.sampling_probs(logits, temperature=torch.full((6, 1), 0.8))
    plus_inf = logits.clone()
    plus_inf[0, 2] = float("inf")
    # One call per refusal sentence, each with the value that trips it (the same order as the statement).
    for what, args, kwargs, mistake in (
        ("a temperature of NaN", (logits,), {"temperature": float("nan")}, "temperature_accepted"),
        ("an infinite temperature", (logits,), {"temperature": float("inf")}, "temperature_accepted"),
        ("top_p = 0", (logits,), {"top_p": 0.0}, "top_p_accepted"),
        ("min_p = 1", (logits,), {"min_p": 1.0}, "min_p_accepted"),
        ("top_k = -1", (logits,), {"top_k": -1}, "top_k_accepted"),
        ("1-D logits", (logits[0],), {}, "logits_type_accepted"),
        ("logits holding +inf", (plus_inf,), {}, "logits_values_accepted"),
        ("a 0-d temperature tensor", (logits,), {"temperature": torch.tensor(0.8)}, "bad_shape_accepted"),
        ("every row greedy and top_p = 0", (logits,), {"temperature": 0.0, "top_p": 0.0}, "greedy_rows_unchecked"),
        ("every row greedy and min_p = 1", (logits,), {"temperature": 0.0, "min_p": 1.0}, "greedy_rows_unchecked"),
    ):
        with expect_raises(ValueError, f"sampling_probs() with {what}", diagnosis=MISTAKES[mistake]):
            sub.sampling_probs(*args, **kwargs)
    with expect_raises(ValueError, "sample() with num_samples = 2.0", diagnosis=MISTAKES["num_samples_accepted"]):
        sub.sample(logits, num_samples=2.0, generator=ctx.generator())


def test_tiny_extreme_uniforms(sub, ctx):
    """sample: correct when torch.rand returns exactly 0.0 or 0.99999994

    zh: sample：torch.rand 恰好返回 0.0 或 0.99999994 时依然正确
    """
    logits = torch.tensor(EXTREME_LOGITS)
    params = {name: torch.tensor(values) for name, values in EXTREME_PARAMS.items()}

    def why(row: int, token: int) -> str:
        return "its logit is -inf" if EXTREME_LOGITS[row][token] == NEG_INF else "top-k removes it"

    # The same call with ordinary random numbers first: a failure there is not about extreme values.
    draws = sub.sample(logits, num_samples=200, generator=ctx.generator(), **params)
    draws = expect_tensor(draws, name="sample", shape=(4, 200), dtype=torch.int64, device=ctx.device)
    expect_support(
        draws,
        torch.tensor(EXTREME_EXPECTED, dtype=torch.float64),
        what="sample",
        why_excluded=why,
        row_labels=EXTREME_LABELS,
    )
    extreme = sub.with_extreme_uniforms(ctx.fresh_seed("extreme"))
    what = "sample fed extreme uniform values (0.0 and 0.99999994)"
    # Any failure here is about the extreme values (the same call passed without them): an
    # exception (an index one past the end, say), a wrong shape or an id out of range alike.
    with diagnosed(MISTAKES["extreme_uniforms"], evidence=EVERY_KIND):
        draws = extreme.sample(logits, num_samples=EXTREME_DRAWS, generator=ctx.generator(), **params)
        draws = expect_tensor(draws, name="sample", shape=(4, EXTREME_DRAWS), dtype=torch.int64, device=ctx.device)
    offending = _rows_drawing_excluded(draws, EXTREME_EXPECTED)  # one pass; the checks below say what is wrong
    if not offending:
        return
    with diagnosed(MISTAKES["extreme_uniforms"], evidence=EVERY_KIND):
        expect_tokens_in_range(draws, 6, what=what)
    # Rows 0 and 1 first: an inverse CDF goes wrong there, and noise with log(0) only in rows 2 and 3.
    for rows, diagnosis in (((0, 1), MISTAKES["extreme_uniforms"]), ((2, 3), MISTAKES["log_of_zero"])):
        if offending & set(rows):
            checked = torch.tensor(
                [EXTREME_EXPECTED[r] if r in rows else [1.0] * 6 for r in range(4)], dtype=torch.float64
            )
            expect_support(draws, checked, what=what, why_excluded=why, row_labels=EXTREME_LABELS, diagnosis=diagnosis)


def _rows_drawing_excluded(draws: torch.Tensor, expected: list[list[float]]) -> set[int]:
    """The rows of ``draws`` (int64 [B, n], already checked) holding a token outside [0, V) or of probability 0."""
    return {
        row
        for row, (tokens, probs) in enumerate(zip(draws.tolist(), expected, strict=True))
        if any(not 0 <= token < len(probs) or probs[token] == 0 for token in tokens)
    }


# top_p = 1 (the default) over a tail of tiny probabilities: one logit 40 above the others, so a running
# total reaches 1 in float32 and float64 before the tail, and nothing may be cut all the same.
TAIL_LOGITS = [0.3, 40.0, -0.2, 0.5, 0.1, -0.4]
TAIL_SMALLEST = 2.85e-18  # the tail's probabilities are 2.85e-18 to 7.00e-18 (float64 softmax)


def test_tiny_zeros_and_dtype(sub, ctx):
    """sampling_probs: top_p = 1 cuts nothing, however small; an all-greedy result keeps the dtype of the logits

    zh: sampling_probs：top_p = 1 时一个都不剪，哪怕概率极小；全部为贪心行时结果的 dtype 仍与 logits 相同
    """
    for dtype in (torch.float32, torch.float64):
        out = sub.sampling_probs(torch.tensor([TAIL_LOGITS], dtype=dtype))
        out = expect_tensor(out, name="sampling_probs", shape=(1, 6), dtype=dtype, device=ctx.device)
        cut = [token for token in range(6) if float(out[0, token]) == 0.0]
        expect(
            not cut,
            f"sampling_probs with {dtype} logits {TAIL_LOGITS} and top_p = 1: tokens {cut} came back as exactly 0, "
            f"but nothing filters them (their probabilities are {TAIL_SMALLEST:.3g} and above)",
            diagnosis=MISTAKES["tail_cut"],
            kind=Evidence.VALUE,
        )
    # Every row greedy, float64 logits: the result is float64 as for any other batch.
    out = sub.sampling_probs(_logits().to(torch.float64), temperature=0.0)
    if isinstance(out, torch.Tensor) and tuple(out.shape) == (len(LOGITS), 6) and out.dtype != torch.float64:
        fail(
            f"sampling_probs with every row greedy (temperature 0) on float64 logits returned {out.dtype}",
            diagnosis=MISTAKES["greedy_dtype"],
            kind=Evidence.STRUCTURAL,
        )
    expect_tensor(out, name="sampling_probs", shape=(len(LOGITS), 6), dtype=torch.float64, device=ctx.device)


def test_tiny_every_draw_site(sub, ctx):
    """sample: every place the code draws random numbers copes with 0.0 and the largest float below 1

    zh: sample：代码中每一处抽随机数的地方都能处理 0.0 与小于 1 的最大浮点数
    """
    logits = torch.tensor(EXTREME_LOGITS)
    params = {name: torch.tensor(values) for name, values in EXTREME_PARAMS.items()}
    expected = torch.tensor(EXTREME_EXPECTED, dtype=torch.float64)
    label = "sample, 64 draws per row"

    def why(row: int, token: int) -> str:
        return "its logit is -inf" if EXTREME_LOGITS[row][token] == NEG_INF else "top-k removes it"

    def call(source, generator):
        return source.sample(logits, num_samples=64, generator=generator, **params)

    def check(value, what):
        draws = expect_tensor(value, name=what, shape=(4, 64), dtype=torch.int64, device=ctx.device)
        expect_tokens_in_range(draws, 6, what=what)
        offending = _rows_drawing_excluded(draws, EXTREME_EXPECTED)
        # Rows 0 and 1 allow several tokens (an inverse CDF runs off an end there); rows 2 and 3 one
        # (noise with log(0) scores every token -inf there only). The ordinary run names nothing.
        diagnosis = (
            None if what == label else (MISTAKES["extreme_uniforms"] if offending & {0, 1} else MISTAKES["log_of_zero"])
        )
        expect_support(draws, expected, what=what, why_excluded=why, row_labels=EXTREME_LABELS, diagnosis=diagnosis)

    expect_every_draw_site(sub, ctx, call, check, label=label)
