"""The checks of importance_estimates, effective_sample_size and truncated_estimate (exercise 44), shared
by the public suite, the browser's tiny suite and the hidden suite.

Each output is compared with the judge's exact answer row by row, each row against its own scale (the
statement's "right to rounding": relative to (1/N) sum w |f| for the ordinary estimate, to
sum w |f| / sum w for the self-normalized one, to the ESS itself), never against the batch's largest
row: rows of a float64 batch span hundreds of orders of magnitude.

A known mistake is named only when its own answer reproduces the learner's whole output (every judged
row: NaN where it gives NaN, an infinity where it overflows) and no answer of the learner's refutes it:
an overflow to NaN on one row is what many mistakes do, so one row names none.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import torch

from judge.checks.base import CheckFailed, diagnosed, fail
from judge.checks.evidence import Evidence
from judge.checks.exact import expect, expect_close, expect_tensor
from judge.i18n import Bilingual
from judge.learner.interface import LearnerRaised

from .diagnoses import MISTAKES

OUTPUTS = ("ordinary", "self_normalized", "ess", "truncated")


def pair(value, name: str) -> tuple:
    """The learner's return value as a pair (a tuple or a list of two items), else a failure."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        fail(
            f"{name} must return a pair of tensors, got {type(value).__name__}",
            rule=Bilingual(f"{name}: did not return a pair", f"{name}：返回值不是二元组"),
            kind=Evidence.STRUCTURAL,
        )
    return value[0], value[1]


def per_row(value, *, name: str, rows: int, dtype: torch.dtype, device: str) -> torch.Tensor:
    """A ``[rows]`` output of ``dtype`` on ``device`` (:func:`expect_tensor`). Shape ``[]`` for a batch of
    one row is the squeezed batch dimension, a known mistake: its exact signature, so it is named."""
    if rows == 1 and isinstance(value, torch.Tensor) and value.dim() == 0:
        fail(
            f"{name} returned shape [] for a batch of one row, expected [1]",
            diagnosis=MISTAKES["batch_of_one_squeezed"],
            rule=Bilingual(f"{name}: a batch of one row gave shape []", f"{name}：只有一行的批返回了形状 []"),
            kind=Evidence.STRUCTURAL,
        )
    if (
        isinstance(value, torch.Tensor)
        and tuple(value.shape) == (rows,)
        and value.is_floating_point()
        and value.dtype != dtype
        and dtype in (torch.float32, torch.float64)
    ):
        fail(
            f"{name} returned dtype {value.dtype} for {dtype} inputs; outputs have the inputs' dtype",
            diagnosis=MISTAKES["output_dtype"],
            rule=Bilingual(f"{name}: the output's dtype is not the inputs'", f"{name}：输出的 dtype 与输入不同"),
            kind=Evidence.STRUCTURAL,
        )
    return expect_tensor(value, name=name, shape=(rows,), dtype=dtype, device=device)


def tolerance(dtype: torch.dtype, log_p: torch.Tensor, log_q: torch.Tensor) -> float:
    """The relative error a stable computation may make: rounding of log p - log q (which grows with the
    log-weights' size) carried through exp, plus a few roundings of the sums."""
    eps = torch.finfo(dtype).eps
    size = float((log_p.abs() + log_q.abs()).max()) if log_p.numel() else 0.0
    return eps * (32 + 4 * size)


@dataclass(frozen=True)
class WeightCase:
    """Log-densities of N samples per row, their values f, and the exact answers (float64, from the oracle).

    ``ordinary`` and ``truncated`` hold NaN on rows where they are not judged (a weight or the estimate
    beyond the dtype's range). ``scales``: output name -> each row's scale, which its rounding error is
    relative to (NaN where not judged). ``mistakes``: output name -> mistake name -> what it returns.
    """

    log_p: torch.Tensor  # [B, N]
    log_q: torch.Tensor  # [B, N]
    f: torch.Tensor  # [B, N]
    ordinary: torch.Tensor  # [B] float64
    self_normalized: torch.Tensor  # [B] float64
    ess: torch.Tensor  # [B] float64
    truncated: torch.Tensor  # [B] float64 (at ``cap``)
    cap: float | int
    public: Bilingual
    mistakes: Mapping[str, Mapping[str, torch.Tensor]] = field(default_factory=dict)
    scales: Mapping[str, torch.Tensor] = field(default_factory=dict)


def _what(case: WeightCase, function: str, en: str, zh: str) -> Bilingual:
    return Bilingual(f"{function} ({case.public}): {en}", f"{function}（{case.public.zh}）：{zh}")


def row_tolerance(case: WeightCase, output: str, rel: float) -> torch.Tensor:
    """Each row's absolute tolerance for ``output``: ``rel`` times its scale, plus a floor of 64 units of the
    dtype's smallest subnormal spacing times the row's largest |f| (weights that underflow to subnormals
    lose their relative precision, never more than that)."""
    info = torch.finfo(case.log_p.dtype)
    largest = case.f.to(torch.float64).abs().amax(dim=1) if case.f.shape[1] else torch.zeros(case.f.shape[0])
    floor = 64 * info.tiny * info.eps * largest.to(torch.float64)
    if output == "truncated":
        floor = floor * max(1.0, min(float(case.cap), 1e300))
    return rel * case.scales[output].nan_to_num(nan=0.0, posinf=0.0) + floor


def _reproduces(actual: torch.Tensor, values: torch.Tensor, rtol: float, atol: torch.Tensor) -> bool:
    """``values`` equal ``actual`` on every row: NaN where NaN, the same infinity, else within tolerance."""
    a, v = actual.to(torch.float64), values.to(torch.float64)
    finite = torch.isfinite(a) & torch.isfinite(v)
    near = finite & ((a - v).abs() <= atol + rtol * v.abs())
    return bool((near | (a == v) | (torch.isnan(a) & torch.isnan(v))).all())


# A mistake's other forms: the learner's output is compared with each, and the one it matches stands for
# the mistake (two computations that overflow alike, exp(max) * sum(w' f) / N and exp(logsumexp) * ...).
FORMS = {"ordinary_sum_overflows_product": "ordinary_sum_overflows"}

Refuted = Callable[[str], set[str]]

# Mistakes in the weights themselves: they change every output alike, so a self-normalized estimate that
# passed where one of them gives another answer refutes it for the ordinary estimate of the same call.
WEIGHT_MISTAKES = ("inverted_log_weights", "naive_exp", "exp_each_side")


def explaining(
    case: WeightCase,
    output: str,
    actual: torch.Tensor,
    *,
    rtol: float,
    atol: torch.Tensor,
    rows: torch.Tensor | None = None,
    refuted: Refuted | None = None,
    exclude: Iterable[str] = (),
) -> Callable[[], dict[str, torch.Tensor]]:
    """The ``mistakes`` argument of :func:`expect_close` for ``output``, computed on failure: the listed
    mistakes (diagnosis -> values on ``rows``) whose answer reproduces the learner's whole ``actual``
    (already restricted to ``rows``) and that neither ``refuted(output)`` nor ``exclude`` names."""

    def mistakes() -> dict[str, torch.Tensor]:
        out_: dict[str, torch.Tensor] = {}
        gone = set(exclude) | (refuted(output) if refuted else set())
        for name, values in case.mistakes.get(output, {}).items():
            diagnosis = FORMS.get(name, name)
            if name in gone or diagnosis in gone:
                continue
            chosen = values if rows is None else values[rows]
            if _reproduces(actual, chosen, rtol, atol):
                out_[MISTAKES[diagnosis]] = chosen
        if case.log_p.dtype == torch.float64 and "float32_precision" not in gone:
            # Right to float32's rounding on every row, though not to float64's: computed in float32.
            loose = tolerance(torch.float32, case.log_p, case.log_q)
            target = getattr(case, output) if rows is None else getattr(case, output)[rows]
            if output == "ess":
                bound = 4 * loose * (1 + target.abs())
            else:
                bound = row_tolerance(case, output, loose) if rows is None else row_tolerance(case, output, loose)[rows]
            if _reproduces(actual, target, 0.0, bound):
                out_[MISTAKES["float32_precision"]] = actual.to(torch.float64)
        return out_

    return mistakes


def learner_answer(sub, case: WeightCase, output: str) -> torch.Tensor | None:
    """The learner's ``output`` (``ordinary``, ``self_normalized`` or ``ess``) on ``case`` as float64 [B],
    or None when it raised, changed its input or returned something else (evidence of nothing)."""
    try:
        if output == "ess":
            value = sub.effective_sample_size(case.log_p, case.log_q)
        else:
            pair_ = sub.importance_estimates(case.log_p, case.log_q, case.f)
            value = pair_[output == "self_normalized"] if isinstance(pair_, (tuple, list)) and len(pair_) == 2 else None
    except (LearnerRaised, CheckFailed):
        return None
    rows = case.log_p.shape[0]
    if not isinstance(value, torch.Tensor) or not value.is_floating_point() or tuple(value.shape) != (rows,):
        return None
    return value.to(torch.float64)


def refuted_by(sub, separating: Sequence[WeightCase]) -> Refuted:
    """The mistakes the learner's answers on the ``separating`` cases refute, per output (asked on failure).

    Two mistakes may give the same answer on a case (exponentiating the log-weight unshifted, and
    exponentiating p and q apart, both overflow to NaN on log-weights of 900): the case alone then
    names neither. On a separating case they differ (log-densities of -200 with a small difference:
    only p and q apart underflow), and a mistake whose answer there is not the learner's is out. A
    mistake a separating case does not list answers the target there.
    """

    def refuted(output: str) -> set[str]:
        gone: set[str] = set()
        for case in separating:
            returned = learner_answer(sub, case, output)
            if returned is None:
                continue
            target = getattr(case, output)
            judged = ~torch.isnan(target)
            rel = 4 * tolerance(case.log_p.dtype, case.log_p, case.log_q)
            atol = 4 * row_tolerance(case, output, rel) if output != "ess" else torch.full_like(target, rel)
            listed = case.mistakes.get(output, {})
            for name in {n for c in (case,) for n in c.mistakes.get(output, {})} | set(MISTAKES):
                predicted = listed.get(name, target)
                if not _reproduces(returned[judged], predicted[judged], rel, atol[judged]):
                    gone.add(name)
        return gone

    return refuted


def judge_estimates(ctx, case: WeightCase, value, refuted: Refuted | None = None) -> None:
    """``importance_estimates``' value on ``case``: both outputs against the oracle, each row against its own
    scale (the ordinary one on judged rows only). A mistake in the weights (:data:`WEIGHT_MISTAKES`) that
    the self-normalized output (which passed) contradicts is no candidate for the ordinary one."""
    rows = case.log_p.shape[0]
    dtype = case.log_p.dtype
    rel = tolerance(dtype, case.log_p, case.log_q)
    ordinary, self_normalized = pair(value, "importance_estimates")
    for output, part in ((ordinary, "ordinary"), (self_normalized, "self-normalized")):
        per_row(output, name=f"importance_estimates (the {part} estimate)", rows=rows, dtype=dtype, device=ctx.device)
    atol = row_tolerance(case, "self_normalized", rel)
    expect_close(
        self_normalized,
        case.self_normalized,
        rtol=rel,
        atol=atol,
        what=_what(case, "importance_estimates", "the self-normalized estimate", "自归一化估计"),
        mistakes=explaining(case, "self_normalized", self_normalized, rtol=rel, atol=atol, refuted=refuted),
        per_row=True,
    )
    judged = ~torch.isnan(case.ordinary)
    if bool(judged.any()):
        index = judged.nonzero().squeeze(1)
        atol = row_tolerance(case, "ordinary", rel)[index]
        expect_close(
            ordinary[index],
            case.ordinary[index],
            rtol=rel,
            atol=atol,
            what=_what(case, "importance_estimates", "the ordinary estimate", "普通估计"),
            mistakes=explaining(
                case,
                "ordinary",
                ordinary[index],
                rtol=rel,
                atol=atol,
                rows=index,
                refuted=refuted,
                exclude=[name for name in WEIGHT_MISTAKES if name in case.mistakes.get("self_normalized", {})],
            ),
            per_row=True,
        )


def judge_ess(ctx, case: WeightCase, value, refuted: Refuted | None = None) -> None:
    """``effective_sample_size``'s value on ``case`` against the oracle (relative to the ESS), and 1 <= ESS <= N."""
    rows, n = case.log_p.shape
    dtype = case.log_p.dtype
    rel = tolerance(dtype, case.log_p, case.log_q)
    ess = per_row(value, name="effective_sample_size", rows=rows, dtype=dtype, device=ctx.device)
    what = _what(case, "effective_sample_size", "the effective sample size", "有效样本数")
    atol = torch.full((rows,), 4 * rel, dtype=torch.float64)
    expect_close(
        ess,
        case.ess,
        rtol=4 * rel,
        atol=atol,
        what=what,
        mistakes=explaining(case, "ess", ess, rtol=4 * rel, atol=atol, refuted=refuted),
        per_row=True,
    )
    values = ess.to(torch.float64)
    expect(
        bool(((values >= 1 - 4 * rel) & (values <= n * (1 + 4 * rel))).all()),
        f"{what}: an effective sample size lies outside [1, {n}]",
        rule=Bilingual(f"{what}: outside [1, N]", f"{what.zh}：超出 [1, N]"),
        kind=Evidence.VALUE,
    )


def judge_truncated(ctx, case: WeightCase, value) -> None:
    """``truncated_estimate``'s value at ``case.cap`` on ``case`` against the oracle, on judged rows."""
    rows = case.log_p.shape[0]
    dtype = case.log_p.dtype
    rel = tolerance(dtype, case.log_p, case.log_q)
    value = per_row(value, name="truncated_estimate", rows=rows, dtype=dtype, device=ctx.device)
    judged = ~torch.isnan(case.truncated)
    if not bool(judged.any()):
        return
    index = judged.nonzero().squeeze(1)
    atol = row_tolerance(case, "truncated", rel)[index]
    expect_close(
        value[index],
        case.truncated[index],
        rtol=rel,
        atol=atol,
        what=_what(
            case,
            "truncated_estimate",
            f"the estimate truncated at cap = {case.cap:g}",
            f"在 cap = {case.cap:g} 处截断的估计",
        ),
        mistakes=explaining(case, "truncated", value[index], rtol=rel, atol=atol, rows=index),
        per_row=True,
    )


def check_estimates(sub, ctx, case: WeightCase, separating: Sequence[WeightCase] = ()) -> None:
    """One call of ``importance_estimates`` (:func:`judge_estimates`). ``separating``: cases that tell apart
    mistakes that coincide on this one (see :func:`refuted_by`)."""
    value = sub.importance_estimates(case.log_p, case.log_q, case.f)
    judge_estimates(ctx, case, value, refuted_by(sub, separating) if separating else None)


def check_ess(sub, ctx, case: WeightCase, separating: Sequence[WeightCase] = ()) -> None:
    """One call of ``effective_sample_size`` (:func:`judge_ess`; ``separating`` as for :func:`check_estimates`)."""
    value = sub.effective_sample_size(case.log_p, case.log_q)
    judge_ess(ctx, case, value, refuted_by(sub, separating) if separating else None)


def check_truncated(sub, ctx, case: WeightCase, diagnosis: str | None = None) -> None:
    """One call of ``truncated_estimate`` at ``case.cap`` (``diagnosis``: the mistake's name when the call
    raises; give it only where the same rows already passed with another cap)."""
    if diagnosis is None:
        result = sub.truncated_estimate(case.log_p, case.log_q, case.f, case.cap)
    else:
        with diagnosed(MISTAKES[diagnosis], raised_only=True):
            result = sub.truncated_estimate(case.log_p, case.log_q, case.f, case.cap)
    judge_truncated(ctx, case, result)


def frozen_case(name: str) -> WeightCase:
    """A fixed case of ``inputs44`` with its frozen answers (``frozen44``)."""
    from .frozen44 import FROZEN
    from .inputs44 import CAP, case_inputs

    log_p, log_q, f, public = case_inputs(name)
    data = FROZEN[name]

    def t(values):
        return torch.tensor(values, dtype=torch.float64)

    mistakes = {output: {m: t(v) for m, v in table.items()} for output, table in data["mistakes"].items()}
    scales = {output: t(values) for output, values in data["scales"].items()}
    return WeightCase(
        log_p,
        log_q,
        f,
        t(data["ordinary"]),
        t(data["self_normalized"]),
        t(data["ess"]),
        t(data["truncated"]),
        CAP,
        public,
        mistakes,
        scales,
    )


def check_ess_invariance(sub, ctx, case: WeightCase, shift: float) -> None:
    """Adding ``shift`` to every log p (multiplying every weight by e^shift) leaves each ESS unchanged."""
    rows = case.log_p.shape[0]
    rel = tolerance(case.log_p.dtype, case.log_p + shift, case.log_q)
    shifted = per_row(
        sub.effective_sample_size(case.log_p + shift, case.log_q),
        name="effective_sample_size",
        rows=rows,
        dtype=case.log_p.dtype,
        device=ctx.device,
    )
    what = Bilingual(
        f"effective_sample_size ({case.public}, every weight times e^{shift:g})",
        f"effective_sample_size（{case.public.zh}，每个权重乘以 e^{shift:g}）",
    )
    atol = torch.full((rows,), 4 * rel, dtype=torch.float64)
    shifted_mistakes = {name: v for name, v in _shifted_ess_mistakes(case, shift).items()}
    expect_close(
        shifted,
        case.ess,
        rtol=4 * rel,
        atol=atol,
        what=what,
        mistakes=lambda: {
            MISTAKES[name]: v for name, v in shifted_mistakes.items() if _reproduces(shifted, v, 4 * rel, atol)
        },
        per_row=True,
    )


def _shifted_ess_mistakes(case: WeightCase, shift: float) -> dict[str, torch.Tensor]:
    """What the scale-dependent ESS mistakes return once every weight is multiplied by e^shift."""
    out = {}
    for name in ("ess_unnormalized", "ess_n_over_mean_square"):
        values = case.mistakes.get("ess", {}).get(name)
        if values is not None:
            out[name] = values * math.exp(-2 * shift) if abs(shift) < 300 else values * 0.0
    return out
