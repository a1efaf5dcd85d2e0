"""An exercise's probes: the calls whose outputs fingerprint a submission (docs/similarity-behaviour.md).

``exercise.toml`` declares them in its ``[similarity]`` table: exercise-wide ``seeds`` and a list
of ``[[similarity.probes]]``, each a call of one declared function on fixed inputs::

    [similarity]
    seeds = [1, 2, 3]

    [[similarity.probes]]
    name = "three_coins"
    function = "flip"
    args = { p = { tensor = [0.2, 0.5, 0.9] }, n = 8 }

An argument is a TOML value passed as it is (a number, a string, a bool, a list) or a tensor,
written ``{ tensor = <nested list>, dtype = "float64" }`` (the dtype defaults to float32 for a
list of floats, int64 for ints, bool for bools). A function that declares ``generator`` and is
not given one receives a ``torch.Generator`` seeded with the probe's seed. Probe inputs live in
``exercise.toml``, which the browser and every learner receive: never hidden inputs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge.exercises.folders import ExerciseError

DEFAULT_SEEDS = (1, 2, 3)
_NAME = re.compile(r"[a-z][a-z0-9_]{0,47}\Z")  # a probe's name is a key of the report's fingerprint
_DTYPES = ("float16", "bfloat16", "float32", "float64", "int32", "int64", "uint8", "bool")
_MAX_SEEDS = 8  # each probe runs once per seed, inside the learner's CPU time: a few are enough


@dataclass(frozen=True)
class TensorArgument:
    """A tensor argument of a probe, built afresh for each call (a call that changes it in place
    cannot change the next)."""

    values: Any  # a nested list of numbers or bools
    dtype: str

    def build(self) -> Any:
        import torch

        return torch.tensor(self.values, dtype=getattr(torch, self.dtype))


@dataclass(frozen=True)
class Probe:
    """One call of ``function`` with ``args`` (keyword arguments; a :class:`TensorArgument` is a tensor)."""

    name: str
    function: str
    args: Mapping[str, Any]
    seeded: bool  # the function declares ``generator`` and ``args`` gives none: one is passed, seeded

    def arguments(self) -> dict[str, Any]:
        """The call's keyword arguments, tensors built afresh (the generator is the caller's to add)."""
        return {
            name: value.build() if isinstance(value, TensorArgument) else value for name, value in self.args.items()
        }


@dataclass(frozen=True)
class Probes:
    """An exercise's probes and the seeds each runs under (none declared: no fingerprint)."""

    seeds: tuple[int, ...] = DEFAULT_SEEDS
    probes: tuple[Probe, ...] = field(default=())


def parse_probes(table: object, functions: Mapping[str, tuple[str, ...]], path: Path) -> Probes:
    """The ``[similarity]`` table of ``path`` (None: no probes); ``functions`` maps each declared
    function to its parameters. Raises :class:`ExerciseError` naming the field for a malformed table,
    an unknown function or parameter, a duplicate name or an unknown dtype."""
    if table is None:
        return Probes()
    if not isinstance(table, dict):
        raise ExerciseError(f"{path}: [similarity] must be a table")
    seeds = table.get("seeds", list(DEFAULT_SEEDS))
    if (
        not isinstance(seeds, list)
        or not 1 <= len(seeds) <= _MAX_SEEDS
        or not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 2**53 for s in seeds)
        or len(set(seeds)) != len(seeds)
    ):
        raise ExerciseError(f"{path}: similarity.seeds must be 1 to {_MAX_SEEDS} distinct ints in [0, 2**53)")
    raw = table.get("probes", [])
    if not isinstance(raw, list):
        raise ExerciseError(f"{path}: similarity.probes must be an array of tables ([[similarity.probes]])")
    probes: list[Probe] = []
    for number, entry in enumerate(raw, 1):
        probes.append(_probe(entry, functions, f"{path}: similarity.probes #{number}"))
    names = [p.name for p in probes]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ExerciseError(f"{path}: similarity.probes: {', '.join(twice)} named twice")
    return Probes(tuple(seeds), tuple(probes))


def _probe(entry: object, functions: Mapping[str, tuple[str, ...]], where: str) -> Probe:
    if not isinstance(entry, dict):
        raise ExerciseError(f"{where}: must be a table")
    name, function, args = entry.get("name"), entry.get("function"), entry.get("args", {})
    if not isinstance(name, str) or not _NAME.match(name):
        raise ExerciseError(f"{where}: name must be lower_snake_case, 1 to 48 characters; got {name!r}")
    if not isinstance(function, str) or function not in functions:
        raise ExerciseError(f"{where} ({name}): function {function!r} is not declared in [functions]")
    if not isinstance(args, dict):
        raise ExerciseError(f"{where} ({name}): args must be a table")
    params = functions[function]
    unknown = [key for key in args if key not in params]
    if unknown:
        raise ExerciseError(f"{where} ({name}): {function} has no parameter {', '.join(unknown)}")
    built = {key: _argument(value, f"{where} ({name}), args.{key}") for key, value in args.items()}
    return Probe(name, function, built, "generator" in params and "generator" not in args)


def _argument(value: object, where: str) -> Any:
    if not isinstance(value, dict):
        return value
    if set(value) - {"tensor", "dtype"} or "tensor" not in value:
        raise ExerciseError(f'{where}: a table argument is a tensor, {{ tensor = [...], dtype = "..." }}')
    dtype = value.get("dtype", _default_dtype(value["tensor"]))
    if dtype not in _DTYPES:
        raise ExerciseError(f"{where}: dtype must be one of {', '.join(_DTYPES)}; got {dtype!r}")
    return TensorArgument(value["tensor"], dtype)


def _default_dtype(values: object) -> str:
    """float32 when any leaf is a float, bool when every leaf is a bool, else int64."""
    leaves: list[object] = []
    stack = [values]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        else:
            leaves.append(item)
    if leaves and all(isinstance(leaf, bool) for leaf in leaves):
        return "bool"
    return "float32" if any(isinstance(leaf, float) for leaf in leaves) else "int64"
