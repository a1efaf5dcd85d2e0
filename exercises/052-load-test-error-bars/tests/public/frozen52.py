"""Frozen inputs and answers for the tiny browser suite (tests/exercises/test_052_load_test_error_bars.py
compares the answers with oracle52 on every run, so they cannot drift)."""

from __future__ import annotations

import torch

FROZEN_BOOT = torch.tensor(
    [[0.1, 0.7, 0.3, 0.3, 1.9, 0.2, 0.45], [2.5, 2.25, 3.125, 1.0, 2.0, 2.75, 2.5]], dtype=torch.float32
)
FROZEN_LEVEL = 0.8
# percentile_interval(FROZEN_BOOT, 0.8), computed in float64 on the float32 values
FROZEN_PERCENTILE = [[0.16000000238418577, 1.1799999833107], [1.5999999999999999, 2.9000000000000004]]
