"""The small fixed cases of exercise 51's public and tiny suites, and the frozen values they need.

The browser cannot import the oracle, so ``tests/public/frozen51.py`` holds each case's inputs, its exact
target and what each known mistake returns, written by :func:`frozen_source` from the oracle.
``tests/exercises/test_051_rl_importance_ratios.py`` keeps the file equal to what this module writes
(``python -m exercises.051...`` is no module name: run ``frozen_source`` through that test's --write
helper, ``tests/exercises/test_051_rl_importance_ratios.py::write_frozen``).
"""

from __future__ import annotations

import re

import torch

from . import oracle

F64, F32 = torch.float64, torch.float32

# The statement's worked example (float64), then a float32 batch far below -100 with left padding and an
# all-padding row, advantages per token.
TOKEN_CASES = {
    "example": {
        "logp_new": [[-1.0, -0.5, -2.0], [-0.3, -1.2, 0.0]],
        "logp_old": [[-1.5, -0.4, -1.0], [-0.3, -1.0, 0.0]],
        "mask": [[True, True, True], [True, True, False]],
        "advantages": [1.0, -2.0],
        "dtype": "float64",
    },
    "deep": {
        "logp_new": [[7.0, -120.5, -131.0, -109.25], [0.0, 4.0, 5.0, 6.0], [-140.0, -138.5, -2.0, -0.5]],
        "logp_old": [[-9.0, -121.0, -130.0, -110.0], [-800.0, 2.0, 3.0, 4.0], [-139.0, -140.0, -2.25, -1.5]],
        "mask": [[False, True, True, True], [False, False, False, False], [True, True, True, True]],
        "advantages": [[0.0, 1.5, -1.0, 0.5], [2.0, 2.0, 2.0, 2.0], [-0.75, 2.0, 1.0, -1.25]],
        "dtype": "float32",
    },
}
OBJECTIVES = (
    ("example", 0.2, "token-mean"),
    ("example", 0.2, "sequence-mean"),
    ("deep", 0.2, "token-mean"),
    ("deep", 0.1, "sequence-mean"),
)
GRPO_CASES = {
    "example": {"rewards": [[1.0, 0.0, 0.0, 1.0], [0.5, 0.5, 0.5, 0.5]], "eps": 1e-6, "dtype": "float64"},
    "mixed": {
        "rewards": [[0.25, 1.5, -0.5], [0.1, 0.1, 0.1], [2.0, 0.0, 1.0], [0.5, 0.5, 0.5]],
        "eps": 0.0,
        "dtype": "float64",
    },
    "equal32": {
        "rewards": [[0.1] * 7, [1.0, 0.0, 0.0, 0.0, 1.0, 0.5, 0.0], [0.25] * 7],
        "eps": 0.0,
        "dtype": "float32",
    },
}
BIAS_CASES = {
    "example": {
        "p_new": [[0.5, 0.3, 0.2]],
        "p_old": [[0.25, 0.25, 0.5]],
        "advantages": [[1.0, -1.0, 0.5]],
        "dtype": "float64",
    },
    "zeros": {
        "p_new": [[1.0, 2.0, 0.0, 1.0], [0.3, 0.3, 0.2, 0.2], [0.2, 0.3, 0.4, 0.1]],
        "p_old": [[0.5, 0.0, 1.5, 2.0], [0.1, 0.4, 0.0, 0.5], [0.25, 0.25, 0.25, 0.25]],
        "advantages": [[1.5, -1.0, 0.5, -0.75], [-2.0, 1.0, -0.5, 0.25], [1.0, -1.0, 0.5, 0.25]],
        "dtype": "float64",
    },
}


def _dtype(name: str) -> torch.dtype:
    return F32 if name == "float32" else F64


def token_tensors(name: str) -> dict:
    case = TOKEN_CASES[name]
    dtype = _dtype(case["dtype"])
    return {
        "logp_new": torch.tensor(case["logp_new"], dtype=dtype),
        "logp_old": torch.tensor(case["logp_old"], dtype=dtype),
        "mask": torch.tensor(case["mask"]),
        "advantages": torch.tensor(case["advantages"], dtype=dtype),
    }


def grpo_tensors(name: str) -> dict:
    case = GRPO_CASES[name]
    return {"rewards": torch.tensor(case["rewards"], dtype=_dtype(case["dtype"])), "eps": case["eps"]}


def bias_tensors(name: str) -> dict:
    case = BIAS_CASES[name]
    dtype = _dtype(case["dtype"])
    return {k: torch.tensor(case[k], dtype=dtype) for k in ("p_new", "p_old", "advantages")} | {"clip_eps": 0.2}


def _rows(t: torch.Tensor) -> list:
    return [[float(x) for x in row] for row in t.tolist()] if t.dim() == 2 else [float(x) for x in t.tolist()]


def frozen_values() -> dict:
    """Every frozen target and mistake value, as plain Python data (NaN stays NaN)."""
    out: dict = {"ratios": {}, "objectives": {}, "grpo": {}, "bias": {}}
    for name in TOKEN_CASES:
        t = token_tensors(name)
        args = (t["logp_new"], t["logp_old"], t["mask"])
        out["ratios"][name] = {
            "target": _rows(oracle.token_ratios(*args)),
            "mistakes": {_key(d): _rows(v) for d, v in oracle.ratio_mistakes(*args).items()},
        }
    for name, eps, aggregation in OBJECTIVES:
        t = token_tensors(name)
        args = (t["logp_new"], t["logp_old"], t["advantages"], t["mask"], eps, aggregation)
        out["objectives"][f"{name} {eps} {aggregation}"] = {
            "target": oracle.ppo_objective(*args),
            "scale": oracle.ppo_scale(*args),
            "mistakes": {_key(d): v for d, v in oracle.ppo_mistakes(*args).items()},
        }
    for name in GRPO_CASES:
        t = grpo_tensors(name)
        out["grpo"][name] = {
            "target": _rows(oracle.grpo_advantages(t["rewards"], t["eps"])),
            "mistakes": {_key(d): _rows(v) for d, v in oracle.grpo_mistakes(t["rewards"], t["eps"]).items()},
        }
    for name in BIAS_CASES:
        t = bias_tensors(name)
        args = (t["p_new"], t["p_old"], t["advantages"], 0.2)
        out["bias"][name] = {
            "target": _rows(oracle.clipping_bias(*args)),
            "scale": _rows(oracle.bias_scale(*args)),
            "mistakes": {_key(d): _rows(v) for d, v in oracle.bias_mistakes(*args).items()},
        }
    return out


def _key(diagnosis: str) -> str:
    """The mistake's name for a diagnosis text."""
    from ..public.diagnoses import MISTAKES

    return next(name for name, text in MISTAKES.items() if text == diagnosis)


def frozen_source() -> str:
    """The text of tests/public/frozen51.py (before ``ruff format``)."""
    text = (
        '"""Frozen values of exercise 51\'s public and tiny suites: each case\'s exact target and what each known\n'
        "mistake returns, written from the hidden oracle by tests/hidden/cases.py (frozen_source); a test keeps\n"
        'them equal. NaN and inf are NAN and INF.\n"""\n\n'
        'NAN, INF = float("nan"), float("inf")\n\n'
        f"TOKEN_CASES = {TOKEN_CASES!r}\n\n"
        f"OBJECTIVES = {OBJECTIVES!r}\n\n"
        f"GRPO_CASES = {GRPO_CASES!r}\n\n"
        f"BIAS_CASES = {BIAS_CASES!r}\n\n"
        f"VALUES = {frozen_values()!r}\n"
    )
    return re.sub(r"\binf\b", "INF", re.sub(r"\bnan\b", "NAN", text))
