"""The tiny variant's inputs and their answers, frozen from the judge's oracle (the browser never has the
hidden folder); tests/exercises/test_046_penalties.py recomputes each answer and compares."""

from __future__ import annotations

import torch

NEG_INF = float("-inf")


def square_batch() -> dict:
    """Four rows of four tokens (float64), padding 9, a row of padding only, -inf and 0 logits, per-row
    tensors of both dtypes: a square batch, where a [B] tensor broadcast along the vocabulary fits."""
    return {
        "logits": torch.tensor(
            [[0.8, -1.2, 0.0, 2.5], [NEG_INF, 1.0, -0.5, 0.3], [-2.0, -0.1, 1.7, NEG_INF], [1.1, 0.4, -3.0, 0.0]],
            dtype=torch.float64,
        ),
        "prev_tokens": torch.tensor([[3, 3, 2, 9, 1], [1, 0, 9, 9, 3], [2, 2, 2, 1, 3], [9, 9, 9, 9, 9]]),
        "repetition_penalty": torch.tensor([1.25, 2.0, 1.5, 3.0], dtype=torch.float64),
        "frequency_penalty": 0.5,
        "presence_penalty": torch.tensor([0.25, -0.5, 1.0, 0.75]),
        "pad_id": 9,
    }


SQUARE_ANSWER = [
    [0.8, -2.25, -0.75, 0.75],
    [NEG_INF, 0.5, -0.5, 0.15000000000000002],
    [-2.0, -1.65, -1.3666666666666667, NEG_INF],
    [1.1, 0.4, -3.0, 0.0],
]
SQUARE_SCALE = 7.0  # the largest 1 + |z| + |z'| + c |f| + |p|


def sampler_rows() -> dict:
    """Two float32 rows of six tokens: temperature 0.5 with top-k 4, and temperature 1.5."""
    return {
        "logits": torch.tensor([[1.0, 0.2, -0.4, 0.7, 1.5, -1.0], [0.3, 1.1, 0.9, -0.2, 0.0, 0.6]]),
        "prev_tokens": torch.tensor([[4, 4, 0, -1], [1, 2, 2, 5]]),
        "repetition_penalty": 1.4,
        "frequency_penalty": 0.3,
        "presence_penalty": 0.4,
        "temperature": torch.tensor([0.5, 1.5]),
        "top_k": torch.tensor([4.0, 0.0]),
    }


# apply_penalties on the same rows (float32 logits, so each value is the float32 input's, penalized exactly).
SAMPLER_PENALIZED = [
    [0.01428571428571429, 0.20000000298023224, -0.4000000059604645, 0.699999988079071, 0.0714285714285714, -1.0],
    [0.30000001192092896, 0.08571430274418429, -0.3571428741727556, -0.20000000298023224, 0.0, -0.2714285543986729],
]
SAMPLER_SCALE = 4.571428571428571

SAMPLER_PROBS = [
    [0.13312294179319994, 0.19300221258783584, 0.0, 0.5246343916945803, 0.14924045392438393, 0.0],
    [
        0.21138901923350129,
        0.18324846964752894,
        0.13640179042608525,
        0.15146684948760067,
        0.17307068953401822,
        0.1444231816712656,
    ],
]
# The mistake "penalties after the temperature": the same filters on the penalized logits / T.
AFTER_TEMPERATURE_PROBS = [
    [0.19266813081695094, 0.13871171085763362, 0.0, 0.37705751178158103, 0.29156264654383446, 0.0],
    [
        0.236680065543696,
        0.16247413533848146,
        0.1094295216363988,
        0.16958867586600268,
        0.19377724676113312,
        0.128050354854288,
    ],
]
