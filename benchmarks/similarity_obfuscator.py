"""A deterministic obfuscator of Python sources: what a learner hiding a copy would do (not a benchmark itself).

:func:`obfuscate` applies, under a seed, the disguises ``benchmarks/similarity.py`` measures the
engine against (each can be chosen alone):

- ``rename``: every identifier the source defines (functions, parameters, locals, globals, import
  aliases, loop and comprehension variables), consistently, to fresh names; the library's names and
  attributes (``torch.cumsum``) are left, as a copier must leave them;
- ``reorder``: the module's top-level functions and classes shuffled (imports and constants stay first);
- ``dead_code``: a few statements that do nothing (an unused local, an ``if False:`` block, an unused helper);
- ``docstrings``: every docstring reworded or removed, some added;
- ``format``: ``black`` (the result of ``ruff format``, black's layout) or ``compact`` (no optional
  spaces, one-space indentation, simple statements joined with ``;``);
- ``comments``: comments added before some statements (the original's comments are gone with the
  syntax tree).

The result always parses (``ast.parse``); the functions keep the names the exercise declares
(``keep``), so a disguised copy still passes the judge.
"""

from __future__ import annotations

import ast
import builtins
import io
import random
import subprocess
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DISGUISES = ("rename", "reorder", "dead_code", "docstrings", "format", "comments")
_WORD_LINE = (
    "alpha beta gamma delta value item entry total scale weight score count acc tmp buf res out data arr vec mat "
    "row col idx pos num size limit edge mask keep drop pick draw seed gen rng noise base step part chunk"
)
_WORDS = tuple(_WORD_LINE.split())  # fresh names are a word and a number: item_42
_COMMENTS = (
    "compute the result",
    "handle the edge case",
    "TODO: clean this up",
    "as in the lecture",
    "vectorised version",
    "numerical stability",
    "see the statement",
    "check shapes",
)


def obfuscate(
    source: str, seed: int, *, keep: frozenset[str] = frozenset(), disguises=DISGUISES, layout: str | None = None
) -> str:
    """``source`` disguised by ``disguises`` under ``seed``; ``keep``: names never renamed (the
    exercise's functions). ``layout``: "black" or "compact" (default: chosen by the seed)."""
    rng = random.Random(seed)
    tree = ast.parse(source)
    if "rename" in disguises:
        functions = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
        _Renamer(_defined_names(tree) - keep - set(dir(builtins)), functions, rng).visit(tree)
    if "docstrings" in disguises:
        _reword_docstrings(tree, rng)
    if "dead_code" in disguises:
        _add_dead_code(tree, rng)
    if "reorder" in disguises:
        _reorder(tree, rng)
    text = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    if "format" in disguises:
        layout = layout or rng.choice(("black", "compact"))
        text = _black(text) if layout == "black" else _compact(text)
    if "comments" in disguises:
        text = _add_comments(text, rng)
    ast.parse(text)  # a disguise must never break the program
    return text


def _defined_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.alias) and node.asname:
            names.add(node.asname)
    return names


class _Renamer(ast.NodeTransformer):
    """Every defined name to a fresh one, the same everywhere (keyword arguments of our own functions too)."""

    def __init__(self, names: set[str], functions: set[str], rng: random.Random) -> None:
        self.functions = functions  # the source's own functions, by their original names
        self.mapping: dict[str, str] = {}
        taken: set[str] = set()
        for name in sorted(names):
            fresh = f"{rng.choice(_WORDS)}_{rng.randrange(100)}"
            while fresh in taken:
                fresh = f"{rng.choice(_WORDS)}_{rng.randrange(1000)}"
            taken.add(fresh)
            self.mapping[name] = fresh

    def _new(self, name: str) -> str:
        return self.mapping.get(name, name)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self._new(node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = self._new(node.arg)
        self.generic_visit(node)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = self._new(node.name)
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef  # noqa: N815 (ast's visitor naming)

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.name = self._new(node.name)
        self.generic_visit(node)
        return node

    def visit_alias(self, node: ast.alias) -> ast.AST:
        if node.asname:
            node.asname = self._new(node.asname)
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        # A call of one of our own functions passes renamed parameters: its keywords follow them. A
        # library's keywords (torch.rand(generator=...)) stay, or the program would break.
        if isinstance(node.func, ast.Name) and node.func.id in self.functions:
            for keyword in node.keywords:
                if keyword.arg is not None:
                    keyword.arg = self._new(keyword.arg)
        self.generic_visit(node)
        return node


def _bodies(tree: ast.AST) -> list[list[ast.stmt]]:
    return [node.body for node in ast.walk(tree) if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef)]


def _has_docstring(body: list[ast.stmt]) -> bool:
    return (
        bool(body)
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    )


def _reword_docstrings(tree: ast.AST, rng: random.Random) -> None:
    for body in _bodies(tree):
        if _has_docstring(body):
            if rng.random() < 0.4 and len(body) > 1:
                del body[0]
            else:
                body[0] = ast.Expr(ast.Constant(f"{rng.choice(_COMMENTS).capitalize()}."))
        elif body and rng.random() < 0.5:
            body.insert(0, ast.Expr(ast.Constant(f"{rng.choice(_COMMENTS).capitalize()} here.")))


def _add_dead_code(tree: ast.Module, rng: random.Random) -> None:
    functions = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]
    for function in rng.sample(functions, min(len(functions), 2)):
        name = f"unused_{rng.randrange(1000)}"
        statement = rng.choice(
            (
                f"{name} = {rng.randrange(10)}",
                f"if False:\n    {name} = None",
                f"{name} = [{rng.randrange(5)} for _ in range(2)]",
            )
        )
        at = 1 if _has_docstring(function.body) else 0
        function.body[at:at] = ast.parse(statement).body
    helper = f"def helper_{rng.randrange(1000)}(x):\n    return x * {rng.randrange(2, 9)}\n"
    tree.body.append(ast.parse(helper).body[0])


def _reorder(tree: ast.Module, rng: random.Random) -> None:
    movable = [i for i, node in enumerate(tree.body) if isinstance(node, ast.FunctionDef | ast.ClassDef)]
    shuffled = [tree.body[i] for i in movable]
    rng.shuffle(shuffled)
    for i, node in zip(movable, shuffled, strict=True):
        tree.body[i] = node


def _black(text: str) -> str:
    """black's layout, from ``ruff format`` (the project's pinned ruff; black itself is not installed)."""
    ruff = Path(sys.executable).parent / "ruff"
    done = subprocess.run(
        [str(ruff), "format", "--line-length", "88", "-"],
        input=text,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return done.stdout


def _compact(text: str) -> str:
    """No optional spaces, one-space indentation, consecutive simple statements of a block joined by ``;``."""
    lines: list[tuple[int, str, bool]] = []  # (indent, code, a simple statement: may be joined)
    depth, parts, previous = 0, [], None
    words = (tokenize.NAME, tokenize.NUMBER, tokenize.STRING)
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.INDENT:
            depth += 1
        elif tok.type == tokenize.DEDENT:
            depth -= 1
        elif tok.type == tokenize.NEWLINE:
            code = "".join(parts)
            lines.append((depth, code, not code.endswith(":") and not code.startswith("@")))
            parts, previous = [], None
        elif tok.type not in (tokenize.NL, tokenize.COMMENT, tokenize.ENDMARKER):
            if previous is not None and previous.type in words and tok.type in words:
                parts.append(" ")
            parts.append(tok.string)
            previous = tok
    out: list[tuple[int, str, bool]] = []
    for depth, code, simple in lines:
        if out and simple and out[-1][2] and out[-1][0] == depth:
            out[-1] = (depth, out[-1][1] + ";" + code, True)
        else:
            out.append((depth, code, simple))
    return "".join(" " * depth + code + "\n" for depth, code, _ in out)


def _add_comments(text: str, rng: random.Random) -> str:
    """A comment line before about one logical line in four (never inside a bracket or a string)."""
    starts = {tok.start[0] for tok in _logical_line_starts(text)}
    out = []
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        if number in starts and line.strip() and rng.random() < 0.25:
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}# {rng.choice(_COMMENTS)}\n")
        out.append(line)
    return "".join(out)


def _logical_line_starts(text: str) -> list[tokenize.TokenInfo]:
    found, at_start = [], True
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            at_start = True
        elif tok.type not in (tokenize.NL, tokenize.COMMENT) and at_start:
            found.append(tok)
            at_start = False
    return found
