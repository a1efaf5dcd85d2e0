"""The functions an exercise declares, held against the reference's and the starter's ``def`` lines.

``exercise.toml`` declares each function the learner writes with the parameter names its tests
pass by keyword (``[functions.sample] params = [...]``). The judge refuses a submission whose
function cannot take them (:func:`judge.engine.runner.signature_problems`, a CE), so a declaration that
drifted from ``solutions/.../reference.py`` or ``starter.py`` would refuse the very code the
statement asks for, or hand the learner a starter the tests cannot call.
:func:`declared_param_problems` reads both files' source (nothing is run) and says where a declared
parameter is missing or positional-only, where the declared order is not the function's, or where the
function needs a parameter the tests never pass.
"""

from __future__ import annotations

import ast
from pathlib import Path

from judge.exercises.exercise import Exercise, FunctionSpec


def declared_param_problems(exercise: Exercise) -> list[str]:
    """Every mismatch between ``[functions.X] params`` and ``def X`` in the reference and the starter:
    readable problems naming the file, the function and the parameter ([] when they agree)."""
    problems = []
    for path in (exercise.reference_path, exercise.starter_path):
        problems += file_problems(path, exercise.functions)
    return problems


def file_problems(path: Path, functions: tuple[FunctionSpec, ...], *, shown: str | None = None) -> list[str]:
    """:func:`declared_param_problems` for one file at ``path`` (``shown``: its name in messages)."""
    shown = shown or path.name
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except FileNotFoundError:
        return [f"{shown} is missing"]
    except (SyntaxError, UnicodeDecodeError, ValueError) as exc:
        return [f"{shown} cannot be read as Python: {exc}"]
    defined = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}
    problems = []
    for spec in functions:
        node = defined.get(spec.name)
        if node is None:
            problems.append(f"{shown} has no `def {spec.name}(...)` at module level, which exercise.toml declares")
            continue
        problems += _signature_problems(node, spec, shown)
    return problems


def _signature_problems(node: ast.FunctionDef | ast.AsyncFunctionDef, spec: FunctionSpec, shown: str) -> list[str]:
    arguments = node.args
    positional_only = [a.arg for a in arguments.posonlyargs]
    by_keyword = [a.arg for a in arguments.args + arguments.kwonlyargs]
    where = f"{shown}: `{spec.name}`"
    problems = []
    for name in spec.params:
        if name in positional_only:
            problems.append(
                f"{where} takes `{name}` positional-only (before `/`), but the tests pass the declared "
                f"parameters by keyword"
            )
        elif name not in by_keyword:
            taken = " (only its **kwargs would take it)" if arguments.kwarg is not None else ""
            problems.append(
                f"{where} has no parameter `{name}`{taken}, which exercise.toml declares in {spec.signature}"
            )
    order = [name for name in positional_only + by_keyword if name in spec.params]
    if not problems and order != list(spec.params):
        problems.append(
            f"{where} takes the declared parameters in the order ({', '.join(order)}), exercise.toml in "
            f"({', '.join(spec.params)}): the judge's messages show the declared order, and a test may pass "
            f"them by position"
        )
    # Parameters without a default that the tests never pass: every call the tests make would fail.
    defaults = len(arguments.defaults)
    positional = arguments.posonlyargs + arguments.args
    required = [a.arg for a in positional[: len(positional) - defaults]]
    required += [
        a.arg for a, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if default is None
    ]
    extra = [name for name in required if name not in spec.params]
    if extra:
        problems.append(
            f"{where} requires {', '.join(f'`{name}`' for name in extra)}, which exercise.toml does not declare "
            f"(the tests pass only {spec.signature})"
        )
    return problems
