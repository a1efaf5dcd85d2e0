"""Exercise 45's contract, argument by argument, as its statement writes it; the good calls the generated
inputs start from; the diagnosis a generated bad call names when it is accepted; and the oracles that
check what a legal corner returns.

Each spec's ``refuse`` is the statement's refusal sentence for that argument, quoted above it. What the
statement leaves open stays out on both sides: +inf, NaN or half-precision logits, B = 0 and V = 0, a
temperature of +inf, a temperature that is neither a number nor a tensor, a temperature tensor of an
integer or half dtype, a mass given as a tensor or within 1e-4 of 1, NaN or infinite weights.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

import torch

from judge.checks.arguments import (
    NOT_FINITE,
    Count,
    Flaw,
    Logits,
    Number,
    PerRow,
    Values,
    Variant,
    bad_inputs,
    public_call,
)
from judge.checks.refusals import BadCall
from judge.i18n import Bilingual

from ..public.checking import (
    check_counts,
    check_quantized,
    check_values,
    entropy_non_finite,
)
from ..public.diagnoses import (
    GROUP_SIZE_NOT_CHECKED,
    LOGITS_MISMATCH,
    LOGITS_NOT_CHECKED,
    MASS_NOT_CHECKED,
    TEMPERATURE_ENTRIES,
    TEMPERATURE_NOT_POSITIVE,
    TEMPERATURE_SHAPE,
    WEIGHT_NOT_CHECKED,
)
from . import oracle

# "Every function raises ValueError (with a message) for: logits that are not a 2-D floating tensor; a
# temperature that is <= 0 or NaN (a number, or any entry of a tensor); a temperature tensor of any other
# shape than [B] (a 0-d tensor, [B, 1], or a length other than B)." Logits: "float32 or float64 tensors
# [B, V] ... -inf marks an impossible token; every row has at least one finite logit" (NaN and +inf are
# left open). Temperature: "a number > 0 (an int such as 2 or a float) or a float32 or float64 tensor [B]
# of numbers > 0" (+inf, non-numbers and integer tensors are left open).
LOGITS = Logits(dims=("B", "V"), refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.DTYPE})
TEMPERATURE = PerRow(
    number=Number(low=0.0, low_open=True, examples=(0.02, 5.0)),
    refuse={Flaw.BELOW, Flaw.NAN, Flaw.NEGINF, Flaw.RANK, Flaw.SHAPE},
)
# "mass is a number in the open interval (0, 1); any other mass raises ValueError (0, 1, NaN, a string,
# None)." A mass within 1e-4 of 1 is left open: no legal example goes there.
MASS = Number(
    low=0.0,
    high=1.0,
    low_open=True,
    high_open=True,
    examples=(2.0**-30, 0.5),
    refuse={Flaw.BELOW, Flaw.ABOVE, Flaw.NOT_A_NUMBER, *NOT_FINITE},
)
MASS_ARGUMENTS = {"logits": LOGITS, "temperature": TEMPERATURE, "mass": MASS}
ENTROPY_ARGUMENTS = {"logits": LOGITS, "temperature": TEMPERATURE}
# "target_logits and draft_logits must have the same shape [B, V] and the same dtype; both functions
# raise ValueError for logits of different shapes or dtypes, as for the common list above."
PAIR_ARGUMENTS = {
    "target_logits": Logits(dims=("B", "V"), refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.DTYPE, Flaw.SHAPE}),
    "draft_logits": Logits(
        dims=("B", "V"),
        same_dtype_as="target_logits",
        refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.DTYPE, Flaw.SHAPE, Flaw.DTYPE_MISMATCH},
    ),
    "temperature": TEMPERATURE,
}


def quantize_arguments(group_size: int) -> dict:
    """ "fake_quantize_int4 raises ValueError (with a message) for: a weight that is not a 2-D floating
    tensor; a group_size that is not a positive int (0, a negative number, a float such as 32.0, a bool);
    an input dimension in that is not a multiple of group_size." The multiple is a relation of two
    arguments, which the specs cannot say: ``in`` is kept at least ``group_size`` long here (its
    smallest corner is one group), and :func:`quantize_refusals` adds the calls that break it."""
    return {
        "weight": Values(
            dims=("out", "in"), at_least={"in": group_size}, refuse={Flaw.NOT_A_TENSOR, Flaw.RANK, Flaw.DTYPE}
        ),
        "group_size": Count(minimum=1, refuse={Flaw.BELOW, Flaw.NOT_AN_INT}),
    }


# --- the good calls ------------------------------------------------------------------------------------


def _dtype(rng: random.Random) -> torch.dtype:
    return rng.choice((torch.float32, torch.float64))


# The good logits are float64: their corners include a row plus 1000, which float32 holds to 6e-5 and a
# float32 computation then tempers to about 1e-4, the tolerance itself. The float32 corner of the same
# logits (the "other dtype" corner) keeps them small.
LOGITS_DTYPE = torch.float64


def _logits(rng: random.Random, rows: int, vocab: int, dtype: torch.dtype) -> torch.Tensor:
    """Logits of random non-dyadic values in [-4, 4], one -inf (never a row's largest) in some rows."""
    values = [[rng.uniform(-4.0, 4.0) for _ in range(vocab)] for _ in range(rows)]
    for row in values:
        if vocab > 2 and rng.random() < 0.5:
            largest = max(range(vocab), key=row.__getitem__)
            row[rng.choice([v for v in range(vocab) if v != largest])] = float("-inf")
    return torch.tensor(values, dtype=dtype)


def _temperature(rng: random.Random, rows: int, form: str | None) -> float | torch.Tensor:
    """A number (``form`` "number"), or a [B] tensor in float32 or float64 ("tensor"), in [0.8, 2]; a
    form drawn at random for None. A bad call of another argument is refused whatever the form: the
    refusal cases make both, since a [B] tensor could refuse a 1-D logits for its shape alone."""
    if form == "number" or (form is None and rng.random() < 0.5):
        return round(rng.uniform(0.8, 2.0), 3)
    return torch.tensor([round(rng.uniform(0.8, 2.0), 3) for _ in range(rows)], dtype=_dtype(rng))


def good_mass_call(rng: random.Random, form: str | None = None) -> dict:
    rows, vocab = rng.randint(2, 4), rng.randint(3, 9)
    return {
        "logits": _logits(rng, rows, vocab, LOGITS_DTYPE),
        "temperature": _temperature(rng, rows, form),
        "mass": round(rng.uniform(0.3, 0.8), 4),
    }


def good_entropy_call(rng: random.Random, form: str | None = None) -> dict:
    rows, vocab = rng.randint(2, 4), rng.randint(3, 9)
    return {"logits": _logits(rng, rows, vocab, LOGITS_DTYPE), "temperature": _temperature(rng, rows, form)}


def good_pair_call(rng: random.Random, form: str | None = None) -> dict:
    rows, vocab = rng.randint(2, 4), rng.randint(3, 9)
    return {
        "target_logits": _logits(rng, rows, vocab, LOGITS_DTYPE),
        "draft_logits": _logits(rng, rows, vocab, LOGITS_DTYPE),
        "temperature": _temperature(rng, rows, form),
    }


def good_quantize_call(rng: random.Random) -> dict:
    group_size = rng.choice((2, 3, 4, 5, 8))
    rows, groups = rng.randint(1, 4), rng.randint(1, 3)
    values = [[rng.gauss(0.0, 0.05) for _ in range(group_size * groups)] for _ in range(rows)]
    return {"weight": torch.tensor(values, dtype=_dtype(rng)), "group_size": group_size}


# --- the bad calls, each naming the mistake of accepting it -------------------------------------------


def _refusal_diagnosis(variant: Variant) -> Bilingual | None:
    """What accepting this generated bad call is evidence of (it has exactly this one flaw)."""
    flaw = Flaw(variant.kind)
    if variant.argument == "temperature":
        if flaw in (Flaw.RANK, Flaw.SHAPE):
            return TEMPERATURE_SHAPE
        # The number's variants come first: a tensor's entry accepted after them is the tensor's own gap.
        return (
            TEMPERATURE_ENTRIES if isinstance(variant.kwargs["temperature"], torch.Tensor) else TEMPERATURE_NOT_POSITIVE
        )
    if variant.argument == "mass":
        return MASS_NOT_CHECKED
    if variant.argument in ("logits", "target_logits", "draft_logits"):
        return LOGITS_MISMATCH if flaw in (Flaw.SHAPE, Flaw.DTYPE_MISMATCH) else LOGITS_NOT_CHECKED
    if variant.argument == "weight":
        return WEIGHT_NOT_CHECKED
    if variant.argument == "group_size":
        return GROUP_SIZE_NOT_CHECKED
    return None


def generated_refusals(
    function: Callable[..., Any], name: str, good: Mapping[str, Any], arguments: Mapping, rng: random.Random
) -> list[BadCall]:
    """Every bad call the specs give from ``good`` (exactly one flaw each), as ``BadCall``s of the
    learner's ``function`` that name the mistake of accepting it."""
    return [
        BadCall(
            function,
            f"{name}() with {variant.description}",
            kwargs=dict(variant.kwargs),
            public=public_call(name, variant),
            diagnosis=_refusal_diagnosis(variant),
        )
        for variant in bad_inputs(good, arguments, rng)
    ]


def quantize_refusals(function: Callable[..., Any], good: Mapping[str, Any], rng: random.Random) -> list[BadCall]:
    """What the specs cannot generate: an ``in`` that is not a multiple of ``group_size`` (a column too
    many, or too few, and a group_size one above a divisor), and group sizes that are not positive ints
    in forms a Count never takes (minus a divisor of ``in``, True, a string, None)."""
    from ..public.diagnoses import GROUP_SIZE_REFUSED

    weight, group_size = good["weight"], good["group_size"]
    columns = weight.shape[1]
    calls = []
    extra = weight[:, rng.randrange(columns)].unsqueeze(1)
    for what, bad in (
        ("one column more", torch.cat([weight, extra], dim=1)),
        ("one column fewer", weight[:, : columns - 1]),
    ):
        if bad.shape[1] % group_size and bad.shape[1] > 0:
            calls.append(
                BadCall(
                    function,
                    f"fake_quantize_int4() with weight of shape {list(bad.shape)} and group_size = {group_size}",
                    kwargs={"weight": bad, "group_size": group_size},
                    public=Bilingual(
                        f"fake_quantize_int4() with an input dimension that is not a multiple of group_size ({what})",
                        "fake_quantize_int4() 收到不是 group_size 倍数的输入维时",
                    ),
                    diagnosis=GROUP_SIZE_REFUSED,
                )
            )
    for bad, en, zh in (  # True first: a learner who checks only in % group_size returns normally there
        (True, "group_size = True (a bool)", "group_size 为 True（bool）"),
        (-group_size, "a negative group_size that divides in", "能整除 in 的负 group_size"),
        (str(group_size), "group_size given as a string", "字符串形式的 group_size"),
        (None, "group_size = None", "group_size 为 None"),
    ):
        calls.append(
            BadCall(
                function,
                f"fake_quantize_int4() with group_size = {bad!r}",
                kwargs={"weight": weight, "group_size": bad},
                public=Bilingual(f"fake_quantize_int4() with {en}", f"fake_quantize_int4() 收到{zh}时"),
                diagnosis=GROUP_SIZE_NOT_CHECKED,
            )
        )
    return calls


# --- what a legal corner must return ------------------------------------------------------------------
# A corner names no mistake: it has a row or two, where one mistake's formula may well coincide with
# another's output; the generated and real cases, with many rows, name them.


def temperatures_of(temperature: Any, rows: int) -> torch.Tensor:
    """float64 [B]: the temperature the learner got (a number, or the values of a tensor as it holds them)."""
    if isinstance(temperature, torch.Tensor):
        return temperature.to(torch.float64).reshape(rows)
    return torch.full((rows,), float(temperature), dtype=torch.float64)


def _labels(temperatures: torch.Tensor) -> list[str]:
    return [f"T = {t:.6g}" for t in temperatures.tolist()]


def mass_corner_check(ctx):
    """``check(value, variant)`` for ``tokens_for_mass``: the oracle's count, or either count where the
    corner puts a cut within 1e-4 of the mass."""

    def check(value, variant: Variant) -> None:
        logits, mass = variant.kwargs["logits"], variant.kwargs["mass"]
        temps = temperatures_of(variant.kwargs["temperature"], logits.shape[0])
        check_counts(
            ctx,
            value,
            oracle.tokens_for_mass(logits, temps, mass).tolist(),
            what=public_call("tokens_for_mass", variant),
            labels=_labels(temps),
            mistakes=dict,
            accepted=oracle.accepted_counts(logits, temps, mass),
        )

    return check


def entropy_corner_check(ctx):
    """``check(value, variant)`` for ``entropy``: the oracle's entropy, in the logits' dtype."""

    def check(value, variant: Variant) -> None:
        logits, temperature = variant.kwargs["logits"], variant.kwargs["temperature"]
        temps = temperatures_of(temperature, logits.shape[0])
        check_values(
            ctx,
            value,
            oracle.entropy(logits, temps).tolist(),
            logits.dtype,
            name="entropy",
            what=public_call("entropy", variant),
            labels=_labels(temps),
            mistakes=dict,
            non_finite=entropy_non_finite(logits, temperature),
        )

    return check


def pair_corner_check(ctx, function: str):
    """``check(value, variant)`` for ``acceptance_rate`` or ``total_variation``: the oracle's value."""
    exact = oracle.acceptance if function == "acceptance_rate" else oracle.total_variation

    def check(value, variant: Variant) -> None:
        target, draft = variant.kwargs["target_logits"], variant.kwargs["draft_logits"]
        temps = temperatures_of(variant.kwargs["temperature"], target.shape[0])
        check_values(
            ctx,
            value,
            exact(target, draft, temps).tolist(),
            target.dtype,
            name=function,
            what=public_call(function, variant),
            labels=_labels(temps),
            mistakes=dict,
        )

    return check


def quantize_corner_check(ctx):
    """``check(value, variant)`` for ``fake_quantize_int4``: the oracle's levels times the group scales."""

    def check(value, variant: Variant) -> None:
        weight, group_size = variant.kwargs["weight"], variant.kwargs["group_size"]
        expected, alternative, _ = oracle.quantize(weight, group_size)
        check_quantized(
            ctx,
            value,
            weight,
            expected=expected,
            alternative=alternative,
            scales=oracle.group_scales(weight, group_size),
            what=public_call("fake_quantize_int4", variant),
            mistakes=dict,
        )

    return check
