"""Inputs of the fixed importance_estimates / effective_sample_size / truncated_estimate cases shown in the
public suite and the browser's tiny suite. Their exact answers are frozen in ``frozen44.py`` (computed by
the judge's oracle; tests/exercises/test_044_importance_sampling.py checks them against it)."""

from __future__ import annotations

import math

import torch

from judge.i18n import Bilingual

CAP = 2.0


def _t(rows, dtype):
    return torch.tensor(rows, dtype=dtype)


def case_inputs(name: str) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, Bilingual]:
    """(log_p, log_q, f, title) of the case ``name``."""
    f4 = [[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]]
    if name == "hand":
        # Row 0: weights 1, 2, 0.5, 4 (log q = 0); row 1: four equal weights e^2 (log p unnormalized).
        log_p = [[0.0, math.log(2.0), math.log(0.5), math.log(4.0)], [2.0, 2.0, 2.0, 2.0]]
        return (
            _t(log_p, torch.float64),
            _t([[0.0] * 4] * 2, torch.float64),
            _t(f4, torch.float64),
            Bilingual("weights [1, 2, 0.5, 4] and [e^2] * 4", "权重 [1, 2, 0.5, 4] 与 [e^2] * 4"),
        )
    if name == "extreme64":
        log_p = [[700.0, 0.0, -700.0, 900.0], [-700.0, -700.0, -700.0, -710.0]]
        return (
            _t(log_p, torch.float64),
            _t([[0.0] * 4] * 2, torch.float64),
            _t(f4, torch.float64),
            Bilingual("float64 log-weights of +-700 and 900", "float64 对数权重为 +-700 与 900"),
        )
    if name == "extreme32":
        log_p = [[100.0, -100.0, 50.0, 0.0], [60.0, 60.0, 60.0, 60.0]]
        log_q = [[0.0] * 4, [-20.0] * 4]
        return (
            _t(log_p, torch.float32),
            _t(log_q, torch.float32),
            _t(f4, torch.float32),
            Bilingual("float32 log-weights of +-100 and 80", "float32 对数权重为 +-100 与 80"),
        )
    if name == "near_overflow64":
        log_p = [[709.0] * 4, [708.0, 709.0, 707.0, 709.0]]
        f = [[1.0, 1.0, 1.0, 1.0], [0.5, 1.0, 2.0, -1.0]]
        return (
            _t(log_p, torch.float64),
            _t([[0.0] * 4] * 2, torch.float64),
            _t(f, torch.float64),
            Bilingual("float64 weights near e^709, whose sum overflows", "float64 权重接近 e^709，其和会溢出"),
        )
    if name == "near_overflow32":
        log_p = [[88.0] * 4, [87.0, 88.0, 86.0, 88.0]]
        f = [[1.0, 1.0, 1.0, 1.0], [0.5, 1.0, 2.0, -1.0]]
        return (
            _t(log_p, torch.float32),
            _t([[0.0] * 4] * 2, torch.float32),
            _t(f, torch.float32),
            Bilingual("float32 weights near e^88, whose sum overflows", "float32 权重接近 e^88，其和会溢出"),
        )
    if name == "sequences32":
        # Log-probabilities of whole sequences (hundreds below 0) whose differences, the log-weights, are small:
        # exp(log p) and exp(log q) underflow to 0 in float32 one by one (each row spans more than 103), the
        # difference does not.
        log_q = [[-5.0, -120.0, -60.0, -200.0], [-250.0, -240.0, -20.0, -30.0], [-150.0, -30.0, -210.0, -140.0]]
        lw = [[0.3, -0.2, 1.0, 0.5], [1.0, 2.0, -1.0, 0.0], [-0.5, 0.25, 2.0, -1.0]]
        log_p = [[a + b for a, b in zip(qs, ws, strict=True)] for qs, ws in zip(log_q, lw, strict=True)]
        f = [[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0, 3.0], [-2.0, 1.0, 4.0, 0.5]]
        return (
            _t(log_p, torch.float32),
            _t(log_q, torch.float32),
            _t(f, torch.float32),
            Bilingual(
                "float32 sequence log-probabilities down to -250, log-weights within +-2",
                "float32 序列对数概率低至 -250，对数权重在 +-2 以内",
            ),
        )
    if name == "mixed32":
        # Moderate float32 rows for the browser: log q normalized over 6 samples (to 3 decimals), log p not.
        log_p = [
            [-4.382, -2.869, -4.182, -1.832, -0.457, -4.166],
            [-1.56, 1.366, 0.789, 2.04, 1.072, 0.603],
            [-2.872, -7.984, -2.798, -3.271, -3.959, -3.837],
            [38.18, 39.101, 35.698, 38.037, 40.544, 39.171],
        ]
        log_q = [
            [-2.038, -1.802, -3.973, -1.467, -1.226, -1.822],
            [-2.426, -2.541, -1.163, -1.687, -2.01, -1.604],
            [-0.784, -4.663, -1.415, -3.075, -1.716, -2.73],
            [-2.783, -2.404, -3.689, -2.571, -0.679, -1.431],
        ]
        f = [
            [-2.327, -0.759, 0.214, -1.958, 0.625, -0.845],
            [-0.37, 3.71, 2.355, 5.99, 0.614, 3.127],
            [-3.172, -1.679, 0.795, 3.264, -1.119, -1.362],
            [0.971, 0.709, 0.298, 2.136, 1.037, -0.462],
        ]
        log_p, log_q, f = _t(log_p, torch.float32), _t(log_q, torch.float32), _t(f, torch.float32)
        return log_p, log_q, f, Bilingual("4 float32 rows of 6 samples", "4 行 float32，每行 6 个样本")
    raise KeyError(name)


PUBLIC_CASES = ("hand", "extreme64", "extreme32", "near_overflow64", "near_overflow32", "sequences32")
TINY_CASES = ("mixed32",)
