"""Every `pytest.raises` in the project's tests says which error it expects.

A bare `pytest.raises(ValueError)` passes on any ValueError: when the check a test names is
removed, another check that raises the same type keeps the test green (issue 32 found two such
removed checks). So every `pytest.raises(...)`, as a context manager or assigned, must either carry
`match=` or bind the exception (`with pytest.raises(E) as caught:`) and use that name afterwards in
the same function (an assert on `caught.value`, its attributes or its message). The call form
`pytest.raises(E, function, ...)` takes no `match=`, so it must be assigned and used the same way.

The walk is over the source (AST), so it sees every use, including those in helpers and
parametrized cases.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _is_raises(call: ast.Call, aliases: set[str]) -> bool:
    function = call.func
    if isinstance(function, ast.Attribute) and function.attr == "raises":
        return isinstance(function.value, ast.Name) and function.value.id == "pytest"
    return isinstance(function, ast.Name) and function.id in aliases


def _raises_aliases(tree: ast.Module) -> set[str]:
    """Names bound by `from pytest import raises [as name]`."""
    return {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "pytest"
        for alias in node.names
        if alias.name == "raises"
    }


def _scopes(tree: ast.Module) -> list[ast.AST]:
    """The module and every function: the places a bound exception must be used in."""
    return [tree] + [
        node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
    ]


def _own_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of a scope, not those of the functions nested in it (each is its own scope)."""
    found: list[ast.AST] = []
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        found.append(node)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(node))
    return found


def _used_after(nodes: list[ast.AST], name: str, line: int) -> bool:
    return any(
        isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) and node.lineno > line
        for node in nodes
    )


def raises_offenders(source: str, filename: str = "<source>") -> list[str]:
    """Each `pytest.raises` of `source` that neither matches the message nor inspects the exception,
    as `filename:line`."""
    tree = ast.parse(source, filename)
    aliases = _raises_aliases(tree)
    offenders: list[int] = []
    for scope in _scopes(tree):
        nodes = _own_nodes(scope)
        bound: dict[int, tuple[str, int]] = {}  # id(call) -> (name it is bound to, line of the binding)
        for node in nodes:
            if isinstance(node, ast.With | ast.AsyncWith):
                for item in node.items:
                    if isinstance(item.context_expr, ast.Call) and isinstance(item.optional_vars, ast.Name):
                        bound[id(item.context_expr)] = (item.optional_vars.id, item.context_expr.lineno)
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    bound[id(node.value)] = (node.targets[0].id, node.value.lineno)
        for node in nodes:
            if not (isinstance(node, ast.Call) and _is_raises(node, aliases)):
                continue
            call_form = len(node.args) > 1
            if not call_form and any(keyword.arg == "match" for keyword in node.keywords):
                continue
            if id(node) in bound:
                name, line = bound[id(node)]
                # `excinfo = pytest.raises(E)` is used by `with excinfo:` afterwards: that use inspects nothing.
                with_uses = {
                    id(item.context_expr)
                    for with_node in nodes
                    if isinstance(with_node, ast.With | ast.AsyncWith)
                    for item in with_node.items
                }
                if any(
                    isinstance(use, ast.Name)
                    and use.id == name
                    and isinstance(use.ctx, ast.Load)
                    and use.lineno > line
                    and id(use) not in with_uses
                    for use in nodes
                ):
                    continue
            offenders.append(node.lineno)
    return [f"{filename}:{line}" for line in sorted(offenders)]


def test_every_raises_in_the_tests_says_which_error() -> None:
    offenders = [
        offender
        for path in sorted(TESTS.rglob("*.py"))
        for offender in raises_offenders(path.read_text(encoding="utf-8"), str(path.relative_to(TESTS.parent)))
    ]
    assert not offenders, (
        f"{len(offenders)} pytest.raises neither match the message (match=...) nor inspect the exception "
        "(`as caught`, then an assert on caught.value): another check raising the same type would keep "
        "them green when the check they name is removed:\n" + "\n".join(offenders)
    )


def test_a_bare_raises_is_reported() -> None:
    source = "import pytest\ndef test_it():\n    with pytest.raises(ValueError):\n        int('x')\n"
    assert raises_offenders(source, "t.py") == ["t.py:3"]


def test_a_bare_raises_imported_by_name_is_reported() -> None:
    source = "from pytest import raises\ndef test_it():\n    with raises(ValueError):\n        int('x')\n"
    assert raises_offenders(source, "t.py") == ["t.py:3"]


def test_a_raises_with_match_is_not_reported() -> None:
    source = "import pytest\ndef test_it():\n    with pytest.raises(ValueError, match='invalid'):\n        int('x')\n"
    assert raises_offenders(source, "t.py") == []


def test_a_raises_whose_exception_is_inspected_is_not_reported() -> None:
    source = (
        "import pytest\ndef test_it():\n    with pytest.raises(ValueError) as e:\n        int('x')\n"
        "    assert 'invalid literal' in str(e.value)\n"
    )
    assert raises_offenders(source, "t.py") == []


def test_a_raises_whose_exception_is_bound_but_unused_is_reported() -> None:
    source = "import pytest\ndef test_it():\n    with pytest.raises(ValueError) as e:\n        int('x')\n"
    assert raises_offenders(source, "t.py") == ["t.py:3"]


def test_a_bound_name_used_only_in_another_function_is_reported() -> None:
    source = (
        "import pytest\ndef test_it():\n    with pytest.raises(ValueError) as e:\n        int('x')\n"
        "def test_other():\n    e = None\n    assert e is None\n"
    )
    assert raises_offenders(source, "t.py") == ["t.py:3"]


def test_the_call_form_is_reported_unless_its_result_is_inspected() -> None:
    bare = "import pytest\ndef test_it():\n    pytest.raises(ValueError, int, 'x')\n"
    inspected = (
        "import pytest\ndef test_it():\n    e = pytest.raises(ValueError, int, 'x')\n"
        "    assert 'literal' in str(e.value)\n"
    )
    assert raises_offenders(bare, "t.py") == ["t.py:3"]
    assert raises_offenders(inspected, "t.py") == []


def test_a_raises_kept_in_a_name_and_only_entered_is_reported() -> None:
    source = (
        "import pytest\ndef test_it():\n    expected = pytest.raises(ValueError)\n"
        "    with expected:\n        int('x')\n"
    )
    assert raises_offenders(source, "t.py") == ["t.py:3"]
