"""Mutants of a reference solution, each with an id that survives unrelated edits.

:func:`generate_mutants` walks the source's parso tree as cosmic-ray does (``cosmic-ray init``):
every position each operator of :data:`~judge.authoring.mutation.operators.OPERATORS` reports, in the
tree's order, is one mutant, made by ``cosmic_ray.mutating.mutate_code``. A mutant that does not
compile (none of the operators should make one) or changes nothing is left out.

A mutant's id is ``OPERATOR:HASH:K``: the operator's name, the first 8 hex digits of the SHA-256
of the mutated source line (the lines the change spans, whitespace runs as one space, so
re-indenting does not count), and K, its rank among the mutants of that operator on lines of the
same text, in source order. Editing other lines, adding functions or moving this one keeps the id;
editing the line itself, or adding an identical line above it, changes it.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from cosmic_ray.ast import ast_nodes, get_ast
from cosmic_ray.mutating import mutate_code

from judge.authoring.mutation.operators import OPERATORS, MutationOperator

ID_PATTERN = re.compile(r"^[a-z0-9]+\.[a-z0-9-]+:[0-9a-f]{8}:[0-9]+$")


@dataclass(frozen=True)
class Mutant:
    """One mutated copy of a source file.

    ``line``: the first line changed (from 1); ``function``: the ``def`` it sits in ("" at module
    level); ``before`` / ``after``: the lines changed, as they were and as they became (``after``
    is empty when lines were only removed); ``source``: the whole mutated file.
    """

    id: str
    operator: str
    line: int
    function: str
    before: str
    after: str
    source: str

    def change(self, context: int = 30) -> str:
        """The change on one line, ``before -> after``: the part that differs with ``context``
        characters around it (``...`` where cut), whitespace runs as one space."""
        old, new = " ".join(self.before.split()), " ".join(self.after.split())
        start = 0
        while start < min(len(old), len(new)) and old[start] == new[start]:
            start += 1
        end = 0
        while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
            end += 1

        def window(text: str) -> str:
            left, right = max(0, start - context), min(len(text), len(text) - end + context)
            right = min(right, left + 4 * context)  # a whole block changed: its start says which
            return ("..." if left else "") + text[left:right] + ("..." if right < len(text) else "")

        return f"{window(old)}  ->  {window(new) or '(removed)'}"


def line_hash(text: str) -> str:
    """The 8 hex digits of a mutant id for the source ``text`` it mutates (whitespace runs as one space)."""
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()[:8]


def imported_modules(source: str) -> tuple[str, ...]:
    """The names the source binds by ``import X`` / ``import X as Y`` (module calls are never dropped)."""
    names = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.asname or alias.name.split(".")[0] for alias in node.names]
    return tuple(dict.fromkeys(names))


def generate_mutants(source: str, operators: Iterable[MutationOperator] = OPERATORS) -> list[Mutant]:
    """Every mutant of ``source`` under ``operators``, ordered by line, then operator, then id.

    Raises ``SyntaxError`` when ``source`` itself does not compile.
    """
    compile(source, "<reference>", "exec")
    modules = imported_modules(source)
    lines = source.splitlines()
    found: list[tuple[int, str, str, Mutant]] = []
    for operator in operators:
        cosmic = operator.make(modules)
        tree = get_ast(source)
        positions = [(node, pos) for node in ast_nodes(tree) for pos in cosmic.mutation_positions(node)]
        ranks: Counter[str] = Counter()
        for occurrence, (node, (start, end)) in enumerate(positions):
            first_line, last_line = start[0], end[0] - (1 if end[1] == 0 and end[0] > start[0] else 0)
            digest = line_hash("\n".join(lines[first_line - 1 : last_line]))
            rank = ranks[digest]
            ranks[digest] += 1
            mutated = mutate_code(source, cosmic, occurrence)
            if mutated is None or mutated == source or not _compiles(mutated):
                continue
            before, after = _changed_lines(source, mutated)
            mutant = Mutant(
                f"{operator.name}:{digest}:{rank}",
                operator.name,
                first_line,
                _function_of(node),
                before,
                after,
                mutated,
            )
            found.append((first_line, operator.name, mutant.id, mutant))
    found.sort(key=lambda item: item[:3])
    return [item[3] for item in found]


def _compiles(source: str) -> bool:
    try:
        compile(source, "<mutant>", "exec")
    except (SyntaxError, ValueError):
        return False
    return True


def _changed_lines(original: str, mutated: str) -> tuple[str, str]:
    """The lines of ``original`` that differ in ``mutated`` (first change to last), and what they became."""
    old, new = original.splitlines(), mutated.splitlines()
    changes = [op for op in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes() if op[0] != "equal"]
    if not changes:
        return "", ""
    i1, j1 = changes[0][1], changes[0][3]
    i2, j2 = changes[-1][2], changes[-1][4]
    return "\n".join(old[i1:i2]), "\n".join(new[j1:j2])


def _function_of(node) -> str:
    """The name of the innermost ``def`` around the parso ``node`` ("" at module level)."""
    definition = node.search_ancestor("funcdef")
    return definition.name.value if definition is not None else ""
