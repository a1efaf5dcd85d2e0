"""From a good call and its arguments' specs: the bad calls (each with exactly one thing wrong) and the
legal corners (each allowed by the statement), drawn under a seed.

Every call generated is checked here against the specs before it is returned: a bad one must have
exactly its declared flaw in exactly the argument it changed (the others are the good call's own
values); a legal one must have no flaw at all. A call that fails this is a bug of this module, never
sent to a learner (:class:`VariantError`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import torch

from judge.checks.arguments.base import ArgumentSpec, Flaw, Sizes, Variant, misuse
from judge.checks.arguments.ranges import zh
from judge.checks.arguments.tensors import TensorSpec
from judge.checks.base import CheckMisuse
from judge.i18n import Bilingual

MAX_VARIANTS = 200  # calls generated for one function, either side: tens, never thousands


class VariantError(RuntimeError):
    """A generated call broke its own promise (a bad call with another flaw, a legal one with any):
    a bug of :mod:`judge.checks.arguments`, an internal error for the learner."""


def checked_call(
    check: str, good: Any, arguments: Any, rng: Any
) -> tuple[dict[str, Any], dict[str, ArgumentSpec], Sizes]:
    """``good`` and ``arguments`` validated: every spec an :class:`ArgumentSpec` naming an argument of
    the good call, the good call allowed by every spec, the named dimensions consistent; ``rng`` a
    ``random.Random``. Returns the good call, the specs and the :class:`Sizes` the good call fixes.
    Raises :class:`CheckMisuse` naming ``check``."""
    if not isinstance(rng, random.Random):
        raise misuse(check, "rng", "a random.Random (such as random.Random(ctx.fresh_seed(name)))", rng)
    if not isinstance(good, Mapping) or not all(isinstance(k, str) for k in good):
        raise misuse(check, "good", "a dict of the good call's keyword arguments", good)
    if not isinstance(arguments, Mapping) or not arguments:
        raise misuse(
            check, "arguments", "a non-empty dict of argument name -> spec (Probabilities(...), ...)", arguments
        )
    for name, spec in arguments.items():
        if not isinstance(spec, ArgumentSpec):
            raise misuse(check, f"arguments[{name!r}]", "a spec such as Probabilities(...), Count(...)", spec)
        if name not in good:
            raise misuse(check, "good", f"a call with the argument {name!r} that `arguments` describes", sorted(good))
        expected = spec.good_problem(good[name])
        if expected is not None:
            raise misuse(check, f"good[{name!r}]", expected, good[name])
        same = getattr(spec, "same_dtype_as", None)
        if same is not None and not isinstance(arguments.get(same), TensorSpec):
            raise misuse(check, f"arguments[{name!r}].same_dtype_as", "the name of another tensor argument", same)
    sizes = _sizes(check, dict(good), dict(arguments))
    for name, spec in arguments.items():
        flaws = spec.flaws(name, good[name], sizes)
        if flaws:
            listed = ", ".join(sorted(f.name for f in flaws))
            raise CheckMisuse(check, f"good[{name!r}]", "a value its spec allows", f"one with the flaws {listed}")
    return dict(good), dict(arguments), sizes


def _sizes(check: str, call: dict[str, Any], arguments: dict[str, ArgumentSpec]) -> Sizes:
    dims: dict[str, int] = {}
    for name, spec in arguments.items():
        for d, length in spec.bind(name, call[name]).items():
            if dims.setdefault(d, length) != length:
                raise misuse(
                    check, "good", f"arguments whose dimension {d} has one length", f"{name}: {length} vs {dims[d]}"
                )
    holders: dict[str, int] = {}
    for spec in arguments.values():
        for d in dict.fromkeys(spec.dim_names()):
            holders[d] = holders.get(d, 0) + 1
    unbound = sorted(d for d in holders if d not in dims)
    if unbound:
        raise misuse(check, "arguments", "dimensions that some tensor of the good call has", unbound)
    dtypes = {n: v.dtype for n, v in call.items() if n in arguments and isinstance(v, torch.Tensor)}
    ties = {n: s.same_dtype_as for n, s in arguments.items() if isinstance(s, TensorSpec) and s.same_dtype_as}
    linked = set(ties) | {str(other) for other in ties.values()}
    return Sizes(dims, frozenset(d for d, k in holders.items() if k >= 2), dtypes, frozenset(linked))


def bad_inputs(good: Mapping[str, Any], arguments: Mapping[str, ArgumentSpec], rng: random.Random) -> list[Variant]:
    """Every bad call the specs' ``refuse`` asks for, built from ``good``: for each argument (in the
    order of ``arguments``) and each refused flaw, each of its variants (``rng`` places them), the
    other arguments left as they are. Each has exactly one flaw, in the argument it names.

    Raises :class:`CheckMisuse` for a malformed ``good``/``arguments``, a good call the specs refuse,
    or more than :data:`MAX_VARIANTS` calls; :class:`VariantError` for a call that breaks its promise.
    """
    return bad_variants("bad_inputs", good, arguments, rng)


def bad_variants(check: str, good: Any, arguments: Any, rng: Any) -> list[Variant]:
    """:func:`bad_inputs`, its misuse messages naming ``check``."""
    call, specs, sizes = checked_call(check, good, arguments, rng)
    out = []
    for name, spec in specs.items():
        for edit in spec.bad_edits(name, call[name], sizes, rng):
            found = spec.flaws(name, edit.value, sizes)
            if found != {Flaw(edit.kind)}:
                raise VariantError(f"{edit.detail}: meant to have the flaw {edit.kind}, has {sorted(found)}")
            out.append(Variant(name, edit.kind, {**call, name: edit.value}, edit.detail, Bilingual(edit.en, edit.zh)))
    return _bounded(check, out)


def legal_inputs(good: Mapping[str, Any], arguments: Mapping[str, ArgumentSpec], rng: random.Random) -> list[Variant]:
    """The legal corners of every argument (each alone, the others as in ``good``), then each named
    dimension at its smallest legal length (B = 1, V = 1, n = 2) across every argument that has it,
    then the dtype of arguments tied by ``same_dtype_as`` changed together. Every call has no flaw.

    Raises as :func:`bad_inputs`.
    """
    return legal_variants("legal_inputs", good, arguments, rng)


def legal_variants(check: str, good: Any, arguments: Any, rng: Any) -> list[Variant]:
    """:func:`legal_inputs`, its misuse messages naming ``check``."""
    call, specs, sizes = checked_call(check, good, arguments, rng)
    out = []
    for name, spec in specs.items():
        for edit in spec.legal_edits(name, call[name], sizes, rng):
            out.append(Variant(name, edit.kind, {**call, name: edit.value}, edit.detail, Bilingual(edit.en, edit.zh)))
    for d, length in sizes.dims.items():
        smallest = max(spec.smallest(d) for spec in specs.values() if d in spec.dim_names())
        if length > smallest:
            kwargs = {**call, **{n: s.resized(call[n], d, smallest) for n, s in specs.items() if d in s.dim_names()}}
            out.append(
                Variant(d, "size", kwargs, f"{d} = {smallest}", Bilingual(f"{d} = {smallest}", f"{d} = {smallest}"))
            )
    linked = sorted(sizes.dtype_linked)
    if linked:
        for dtype in getattr(specs[linked[0]], "dtypes", ()):
            if dtype != call[linked[0]].dtype and all(dtype in getattr(specs[n], "dtypes", ()) for n in linked):
                kwargs = {**call, **{n: call[n].to(dtype) for n in linked}}
                names = ", ".join(linked)
                dt = str(dtype).removeprefix("torch.")
                out.append(
                    Variant(
                        names,
                        "dtype",
                        kwargs,
                        f"{names} all in {dtype}",
                        Bilingual(f"{names} all in {dt}", zh(f"全为 {dt} 的 {names}")),
                    )
                )
    for variant in out:
        try:
            new = _sizes(check, dict(variant.kwargs), specs)
        except CheckMisuse as broken:
            raise VariantError(f"legal corner {variant.description}: {broken}") from None
        for name, spec in specs.items():
            found = spec.flaws(name, variant.kwargs[name], new)
            if found:
                raise VariantError(f"legal corner {variant.description}: {name} has {sorted(found)}")
    return _bounded(check, out)


def _bounded(check: str, variants: list[Variant]) -> list[Variant]:
    if len(variants) > MAX_VARIANTS:
        raise CheckMisuse(check, "arguments", f"specs that make at most {MAX_VARIANTS} calls", f"{len(variants)} calls")
    return variants
