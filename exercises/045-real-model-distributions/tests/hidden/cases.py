"""Exercise 45's hidden cases, built at run time from the shipped tiny Qwen3 (judge side only).

The learner never gets the model: these functions compute its real logits (``judge.exercises.models``),
its decoder weights and the logits of its int4-quantized draft in the judge's process, and the
tests pass tensors. Positions are frozen below; every ``tokens_for_mass`` decision is verified
live, when the case is built, to lie at least ``oracle.MASS_MARGIN`` from flipping (logits move
~1e-5 between machines: ``judge.exercises.models.LOGIT_TOLERANCE``), else :class:`oracle.AmbiguousCase`.
Everything is cached per process, behind a lock: ``check`` judges solutions in threads, and the
model must load once.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass

import torch

from judge.exercises import models

from . import oracle

_LOCK = threading.RLock()


def _locked(function):
    cached = functools.cache(function)

    @functools.wraps(function)
    def wrapper(*args):
        with _LOCK:
            return cached(*args)

    wrapper.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
    return wrapper


# Passage positions of the real-logit cases (row i of the logits predicts token i + 1), chosen
# with every decision at least MASS_MARGIN from its boundary: verified when the case is built.
# tokens_for_mass at mass 0.9: (position, temperature) rows. At T = 1.5 the cut falls among
# tokens of probability ~1e-4, so few positions keep the margin there; these do (with 1.5e-4 or
# more here, so that another machine, whose logits move ~1e-5, stays well above 1e-4).
MASS_ROWS = (
    (0, 0.5),
    (10, 0.5),
    (21, 0.5),
    (30, 0.5),
    (39, 0.5),
    (75, 0.5),
    (84, 0.5),
    (94, 0.5),
    (150, 0.5),
    (10, 1.0),
    (24, 1.0),
    (28, 1.0),
    (44, 1.0),
    (54, 1.0),
    (68, 1.0),
    (73, 1.0),
    (119, 1.0),
    (129, 1.0),
    (222, 1.0),
    (4, 1.5),
    (18, 1.5),
    (30, 1.5),
    (58, 1.5),
    (136, 1.5),
)
MASS_TEMPERATURES = (0.5, 1.0, 1.5)
HALF_MASS_POSITIONS = (5, 30, 64, 120, 180, 230)
ENTROPY_POSITIONS = (3, 17, 40, 77, 150, 240)
ENTROPY_TEMPERATURES = (0.25, 0.5, 1.0, 1.5, 2.0)
LOW_TEMPERATURE = 0.02  # logits / T in the hundreds: float32 exp overflows past 88.7
KEPT_TOKENS = 40  # the masked rows keep their top 40 tokens, the rest are -inf
ACCEPTANCE_TEMPERATURES = (0.5, 1.5)
SMOLLM2_POSITIONS = (2, 5, 9, 14, 20, 27, 33, 41, 50, 60, 72, 85)


@_locked
def model() -> models.LanguageModel:
    return models.tiny_qwen3()


@_locked
def target_logits() -> torch.Tensor:
    """float32 [263, 2000]: the tiny Qwen3's logits at every position of the passage."""
    return models.passage_logits()


@_locked
def draft_logits() -> torch.Tensor:
    """float32 [263, 2000]: the logits of its draft, every decoder Linear weight int4-quantized by the oracle."""
    lm = model()
    draft = models.with_linear_weights(lm, oracle.quantize_oracle)
    return draft.logits(lm.encode(models.passage()))


@_locked
def decoder_weights() -> tuple[tuple[str, torch.Tensor], ...]:
    """The 14 decoder Linear weights ([out, in] float32), named like ``layers.0.self_attn.q_proj``."""
    found = []
    for name, module in model().model.model.layers.named_modules():
        if isinstance(module, torch.nn.Linear):
            found.append((f"layers.{name}", module.weight.detach().clone()))
    return tuple(found)


@dataclass(frozen=True)
class Rows:
    """A batch of logits rows with one temperature each, and how to pass the temperature."""

    logits: torch.Tensor  # [B, V], float32 or float64
    temperatures: torch.Tensor  # float64 [B]
    temperature: float | torch.Tensor  # what the learner gets: a number, or a [B] tensor
    labels: list[str]


def _rows(logits: torch.Tensor, positions, temperatures, *, per_row: bool, what: str = "position") -> Rows:
    return _pairs(logits, [(p, t) for p in positions for t in temperatures], per_row=per_row, what=what)


def _pairs(logits: torch.Tensor, pairs, *, per_row: bool, what: str = "position") -> Rows:
    rows = logits[[p for p, _ in pairs]]
    temps = torch.tensor([t for _, t in pairs], dtype=torch.float64)
    if per_row:
        argument: float | torch.Tensor = temps.to(torch.float32)
    else:
        (argument,) = {t for _, t in pairs}
    return Rows(rows, temps, argument, [f"{what} {p}, T = {t}" for p, t in pairs])


@dataclass(frozen=True)
class MassCase:
    rows: Rows
    mass: float
    expected: list[int]
    margin: float  # the smallest distance of any decision from flipping

    def mistakes(self) -> dict[str, list[int]]:
        found = oracle.tokens_for_mass_mistakes(self.rows.logits, self.rows.temperatures, self.mass)
        return {key: value.tolist() for key, value in found.items()}


def mass_case(rows: Rows, mass: float) -> MassCase:
    margins = oracle.mass_margin(rows.logits, rows.temperatures, mass)
    worst = int(margins.argmin())
    if float(margins[worst]) < oracle.MASS_MARGIN:
        raise oracle.AmbiguousCase(
            f"tokens_for_mass, {rows.labels[worst]}, mass {mass}: the cumulative mass lies "
            f"{float(margins[worst]):.2e} from the boundary (< {oracle.MASS_MARGIN}); pick other positions"
        )
    expected = oracle.tokens_for_mass(rows.logits, rows.temperatures, mass).tolist()
    return MassCase(rows, mass, expected, float(margins.min()))


@_locked
def mass_real() -> MassCase:
    return mass_case(_pairs(target_logits(), MASS_ROWS, per_row=True), 0.9)


@_locked
def mass_half() -> MassCase:
    return mass_case(_rows(target_logits(), HALF_MASS_POSITIONS, (0.8,), per_row=False), 0.5)


@_locked
def entropy_real() -> Rows:
    return _rows(target_logits(), ENTROPY_POSITIONS, ENTROPY_TEMPERATURES, per_row=True)


@_locked
def entropy_warm() -> Rows:
    """The entropy rows at T = 0.7 given as a number (float32 cannot hold 0.7: float64 logits show it)."""
    return _rows(target_logits(), ENTROPY_POSITIONS, (0.7,), per_row=False)


@_locked
def mass_default() -> MassCase:
    """The T = 1 rows of MASS_ROWS, for a call with the defaults (temperature 1, mass 0.9)."""
    positions = [p for p, t in MASS_ROWS if t == 1.0]
    return mass_case(_rows(target_logits(), positions, (1.0,), per_row=False), 0.9)


@_locked
def entropy_default() -> Rows:
    return _rows(target_logits(), ENTROPY_POSITIONS, (1.0,), per_row=False)


@_locked
def acceptance_default() -> tuple[torch.Tensor, torch.Tensor, Rows]:
    """(target, draft, rows): the first 16 passage positions, for a call with the default temperature 1."""
    positions = list(range(16))
    rows = _rows(target_logits(), positions, (1.0,), per_row=False)
    return target_logits()[positions], draft_logits()[positions], rows


@_locked
def entropy_low() -> Rows:
    rows = _rows(target_logits(), ENTROPY_POSITIONS, (LOW_TEMPERATURE,), per_row=False)
    peak = (rows.logits.double().amax(dim=-1) / LOW_TEMPERATURE).min()
    if peak < 200:  # a naive exp must overflow in every row, even after a small shift
        raise oracle.AmbiguousCase(f"the low-temperature rows reach only logits / T = {peak:.0f}")
    return rows


@_locked
def entropy_masked() -> Rows:
    """The entropy rows at T = 0.7, every token but each row's top KEPT_TOKENS set to -inf (a top-k filter)."""
    rows = _rows(target_logits(), ENTROPY_POSITIONS, (0.7,), per_row=False)
    kept = rows.logits.topk(KEPT_TOKENS, dim=-1).indices
    masked = torch.full_like(rows.logits, float("-inf")).scatter(1, kept, rows.logits.gather(1, kept))
    return Rows(masked, rows.temperatures, rows.temperature, [f"{label}, top {KEPT_TOKENS}" for label in rows.labels])


@_locked
def acceptance_rows(temperatures: tuple[float, ...] | None) -> tuple[torch.Tensor, torch.Tensor, Rows]:
    """(target, draft, rows): every passage position at T = 1 (None), or every fourth at each temperature."""
    target, draft = target_logits(), draft_logits()
    if temperatures is None:
        positions = list(range(target.shape[0]))
        rows = _rows(target, positions, (1.0,), per_row=False)
        return target, draft, rows
    positions = list(range(0, target.shape[0], 4))
    rows = _rows(target, positions, temperatures, per_row=len(temperatures) > 1)
    index = [p for p in positions for _ in temperatures]
    return target[index], draft[index], rows


@_locked
def smollm2_logits() -> torch.Tensor:
    return models.passage_logits("smollm2")


@_locked
def smollm2_mass() -> MassCase:
    """SmolLM2's (position, temperature) rows that keep twice the margin, chosen live (at most 12)."""
    logits = smollm2_logits()
    positions = [p for p in SMOLLM2_POSITIONS if p < logits.shape[0]]
    candidates = _rows(logits, positions, MASS_TEMPERATURES, per_row=True)
    margins = oracle.mass_margin(candidates.logits, candidates.temperatures, 0.9)
    pairs = [(p, t) for p in positions for t in MASS_TEMPERATURES]
    chosen = [pair for pair, margin in zip(pairs, margins.tolist(), strict=True) if margin >= 2 * oracle.MASS_MARGIN]
    if len(chosen) < 4:
        raise oracle.AmbiguousCase(f"only {len(chosen)} SmolLM2 rows keep the margin")
    return mass_case(_pairs(logits, chosen[:12], per_row=True, what="SmolLM2 position"), 0.9)


@_locked
def smollm2_entropy() -> Rows:
    logits = smollm2_logits()
    positions = [p for p in SMOLLM2_POSITIONS if p < logits.shape[0]][:6]
    return _rows(logits, positions, ENTROPY_TEMPERATURES, per_row=True, what="SmolLM2 position")


def zeroed(weight: torch.Tensor, group_size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """A copy of ``weight`` with every third group of every other row set to zero, and the mask of those elements."""
    rows, columns = weight.shape
    mask = torch.zeros(rows, columns // group_size, dtype=torch.bool)
    mask[::2, ::3] = True
    mask = mask.repeat_interleave(group_size, dim=1)
    return weight.masked_fill(mask, 0.0), mask


# Exact halves: max|w| = 7 in every group, so scale = 1 and w / scale = w, whichever way it is computed.
HALVES = torch.tensor(
    [
        [7.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5],
        [-7.0, 4.5, -4.5, 5.5, -5.5, 6.5, -6.5, 0.25],
        [0.5, 7.0, -3.5, 2.0, 0.75, -0.75, 6.5, -7.0],
    ],
    dtype=torch.float32,
)


def prepare_all(*, smollm2: bool) -> None:
    """Build every cached case now (the suite's ``prepare``): the model, its logits, its
    quantized draft's logits, the weights, each case's rows and expected answers; SmolLM2's too
    when it is installed. Raises :class:`oracle.AmbiguousCase` or ``judge.exercises.models.ModelUnavailable``."""
    mass_real()
    mass_half()
    entropy_real()
    entropy_low()
    entropy_masked()
    entropy_warm()
    mass_default()
    entropy_default()
    acceptance_default()
    decoder_weights()
    acceptance_rows(None)
    acceptance_rows((0.7,))
    acceptance_rows(ACCEPTANCE_TEMPERATURES)
    if smollm2:
        smollm2_mass()
        smollm2_entropy()
