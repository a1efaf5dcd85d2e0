"""The fixed cases of exercise 51's public and tiny suites, judged against their frozen values
(``frozen51.py``) with the checks every suite shares (``checks51.py``)."""

from __future__ import annotations

import torch

from . import checks51, frozen51
from .diagnoses import MISTAKES

F64 = torch.float64


def _dtype(name: str) -> torch.dtype:
    return torch.float32 if name == "float32" else F64


def _tensor(rows) -> torch.Tensor:
    return torch.tensor(rows, dtype=F64)


def _mistakes(values: dict, *, scalar: bool = False) -> dict:
    return {MISTAKES[k]: (v if scalar else _tensor(v)) for k, v in values.items()}


def token_call(name: str) -> dict:
    case = frozen51.TOKEN_CASES[name]
    dtype = _dtype(case["dtype"])
    return {
        "logp_new": torch.tensor(case["logp_new"], dtype=dtype),
        "logp_old": torch.tensor(case["logp_old"], dtype=dtype),
        "mask": torch.tensor(case["mask"]),
        "advantages": torch.tensor(case["advantages"], dtype=dtype),
    }


def check_ratios(sub, ctx, name: str) -> None:
    call = token_call(name)
    kwargs = {k: call[k] for k in ("logp_new", "logp_old", "mask")}
    frozen = frozen51.VALUES["ratios"][name]
    checks51.check_ratios(
        sub, ctx, kwargs, _tensor(frozen["target"]), _mistakes(frozen["mistakes"]), what=f"token_ratios({name})"
    )


def check_objectives(sub, ctx, name: str) -> None:
    for case, eps, aggregation in frozen51.OBJECTIVES:
        if case != name:
            continue
        frozen = frozen51.VALUES["objectives"][f"{case} {eps} {aggregation}"]
        kwargs = token_call(case) | {"clip_eps": eps, "aggregation": aggregation}
        checks51.check_objective(
            sub,
            ctx,
            kwargs,
            frozen["target"],
            frozen["scale"],
            _mistakes(frozen["mistakes"], scalar=True),
            what=f"ppo_clip_objective({case}, clip_eps={eps}, {aggregation})",
        )


def check_grpo(sub, ctx, name: str) -> None:
    case = frozen51.GRPO_CASES[name]
    frozen = frozen51.VALUES["grpo"][name]
    kwargs = {"rewards": torch.tensor(case["rewards"], dtype=_dtype(case["dtype"])), "eps": case["eps"]}
    checks51.check_grpo(
        sub, ctx, kwargs, _tensor(frozen["target"]), _mistakes(frozen["mistakes"]), what=f"grpo_advantages({name})"
    )


def check_bias(sub, ctx, name: str) -> None:
    case = frozen51.BIAS_CASES[name]
    frozen = frozen51.VALUES["bias"][name]
    dtype = _dtype(case["dtype"])
    kwargs = {k: torch.tensor(case[k], dtype=dtype) for k in ("p_new", "p_old", "advantages")} | {"clip_eps": 0.2}
    checks51.check_bias(
        sub,
        ctx,
        kwargs,
        _tensor(frozen["target"]),
        _tensor(frozen["scale"]),
        _mistakes(frozen["mistakes"]),
        what=f"clipping_bias({name})",
    )
