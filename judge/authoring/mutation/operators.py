"""The mutation operators: cosmic-ray's own where it has them, and a few of ours written as
cosmic-ray operators (``cosmic_ray.operators.operator.Operator`` over parso trees) for the mistakes
numeric code makes that cosmic-ray has no operator for: a float64 that became float32, a method
call or a statement left out, a keyword argument forgotten.

:data:`OPERATORS` names each one briefly (``cmp.lt-le``); those names start every mutant's id
(:mod:`judge.authoring.mutation.mutants`), so renaming one makes the equivalents files stale. Each operator
makes one kind of change: cosmic-ray's ``NumberReplacer`` (+1 and -1 at one number) is split in two,
so that a name says which change a mutant made.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import parso
import parso.python.tree as tree
from cosmic_ray.operators.number_replacer import OFFSETS, NumberReplacer
from cosmic_ray.operators.operator import Example, Operator
from cosmic_ray.plugins import get_operator

Position = tuple[tuple[int, int], tuple[int, int]]  # ((line, column), (line, column)), lines from 1


class NumberShifted(NumberReplacer):
    """cosmic-ray's NumberReplacer with one offset: a number ``n`` becomes ``n + offset``."""

    def __init__(self, offset: int) -> None:
        self.index = OFFSETS.index(offset)

    def mutation_positions(self, node) -> Iterator[Position]:
        if isinstance(node, tree.Number):
            yield (node.start_pos, node.end_pos)

    def mutate(self, node, index):
        return super().mutate(node, self.index)

    @classmethod
    def examples(cls):
        return (Example("x = 1", "x = 2", operator_args={"offset": 1}),)


class DtypeSwapped(Operator):
    """``torch.<from>`` becomes ``torch.<to>``, and the method of that width too (``.double()``
    becomes ``.float()``): a computation done at another precision than the reference's."""

    METHODS = {"float64": "double", "float32": "float"}

    def __init__(self, from_dtype: str, to_dtype: str) -> None:
        self.from_dtype, self.to_dtype = from_dtype, to_dtype

    def _renamed(self, node) -> str | None:
        """The new name of ``node`` (a name after a dot) when this operator changes it."""
        if not isinstance(node, tree.Name) or node.parent is None or node.parent.type != "trailer":
            return None
        if node.get_previous_sibling() is None or node.get_previous_sibling().value != ".":
            return None
        if node.value == self.from_dtype:
            return self.to_dtype
        following = node.parent.get_next_sibling()
        is_call = following is not None and following.type == "trailer" and following.children[0].value == "("
        if is_call and node.value == self.METHODS[self.from_dtype]:
            return self.METHODS[self.to_dtype]
        return None

    def mutation_positions(self, node) -> Iterator[Position]:
        if self._renamed(node) is not None:
            yield (node.start_pos, node.end_pos)

    def mutate(self, node, index):
        return tree.Name(self._renamed(node), node.start_pos, node.prefix)

    @classmethod
    def examples(cls):
        args = {"from_dtype": "float64", "to_dtype": "float32"}
        return (
            Example("y = x.to(torch.float64)", "y = x.to(torch.float32)", operator_args=args),
            Example("y = x.double()", "y = x.float()", operator_args=args),
        )


def _trailers(node) -> list:
    """The children of an ``atom_expr`` / ``power`` node (``a.b(c)[d]``), else none."""
    return list(node.children) if node.type in ("atom_expr", "power") else []


class MethodCallDropped(Operator):
    """``a.f(...).g(...)`` loses one of its method calls: ``a.g(...)`` or ``a.f(...)``. A call on
    an imported module (``torch.where(...)``) is left alone: without it nothing meaningful is left."""

    def __init__(self, modules: tuple[str, ...] = ()) -> None:
        self.modules = set(modules)

    def _calls(self, node) -> list[int]:
        """Indexes ``i`` of the children of ``node`` where ``.name`` (``i``) is called (``i + 1``)."""
        children = _trailers(node)
        found = []
        for i in range(1, len(children) - 1):
            dot, call = children[i], children[i + 1]
            if dot.type != "trailer" or dot.children[0].value != "." or call.type != "trailer":
                continue
            if call.children[0].value != "(":
                continue
            if i == 1 and isinstance(children[0], tree.Name) and children[0].value in self.modules:
                continue
            found.append(i)
        return found

    def mutation_positions(self, node) -> list[Position]:
        # A list, not a generator: cosmic-ray mutates the node while it iterates over these.
        children = _trailers(node)
        return [(children[i].start_pos, children[i + 1].end_pos) for i in self._calls(node)]

    def mutate(self, node, index):
        i = self._calls(node)[index]
        node.children = node.children[:i] + node.children[i + 2 :]
        return node

    @classmethod
    def examples(cls):
        return (
            Example("y = x.clamp(min=0).sqrt()", "y = x.sqrt()"),
            Example("y = x.clamp(min=0).sqrt()", "y = x.clamp(min=0)", occurrence=1),
            Example("y = torch.exp(x)", "y = torch.exp(x)", operator_args={"modules": ("torch",)}),
        )


def _keyword_arguments(node) -> list[int]:
    """Indexes, among the children of ``node``, of its ``name=value`` arguments: ``node`` is an
    argument list, or the ``(...)`` of a call with a single argument; none otherwise."""
    if node.type == "arglist":
        candidates = list(enumerate(node.children))
    elif node.type == "trailer" and node.children[0].value == "(" and len(node.children) == 3:
        candidates = [(1, node.children[1])]
    else:
        return []
    return [
        i
        for i, child in candidates
        if child.type == "argument" and len(child.children) == 3 and child.children[1].value == "="
    ]


class KeywordArgumentDropped(Operator):
    """One ``name=value`` argument of a call is left out, so the callee's default applies
    (``generator=generator``, ``keepdim=True``, ``dtype=torch.float64``, ``stable=True``...)."""

    def mutation_positions(self, node) -> list[Position]:
        # A list, not a generator: cosmic-ray mutates the node while it iterates over these.
        return [(node.children[i].start_pos, node.children[i].end_pos) for i in _keyword_arguments(node)]

    def mutate(self, node, index):
        i = _keyword_arguments(node)[index]
        children = list(node.children)
        if node.type == "trailer":  # f(name=value) -> f()
            start, stop = i, i + 1
        else:  # the comma before it (or after it, when it comes first) goes too: the list stays valid
            start, stop = (i - 1, i + 1) if i > 0 else (i, i + 2)
        node.children = children[:start] + children[stop:]
        return node

    @classmethod
    def examples(cls):
        return (
            Example("f(x, dim=1, keepdim=True)", "f(x, keepdim=True)"),
            Example("f(x, dim=1, keepdim=True)", "f(x, dim=1)", occurrence=1),
            Example("f(generator=g)", "f()"),
            Example("f(a=1, b=2)", "f( b=2)"),
        )


# Statements whose loss is no realistic mistake (a docstring, an import) or already another
# operator's (a bare `return` is kept: without it the function returns None, which every test sees).
_KEPT = {"import_name", "import_from", "return_stmt", "pass_stmt", "global_stmt", "nonlocal_stmt"}


class StatementDropped(Operator):
    """A statement inside a function becomes ``pass``: a line forgotten (a normalisation, a
    validation ``if ...: raise``, an update inside a loop). Docstrings, imports and returns stay."""

    def _droppable(self, node) -> bool:
        if node.type not in ("simple_stmt", "if_stmt", "for_stmt", "while_stmt", "with_stmt", "try_stmt"):
            return False
        suite = node.parent
        if suite is None or suite.type != "suite" or suite.search_ancestor("funcdef") is None:
            return False  # module-level code (constants, imports) stays
        if node.type == "simple_stmt":
            first = node.children[0]
            if first.type in _KEPT or first.type in ("string", "strings", "fstring"):  # a docstring
                return False
            if first.type == "keyword" and first.value in ("pass", "return"):
                return False
        return True

    def mutation_positions(self, node) -> Iterator[Position]:
        if self._droppable(node):
            yield (node.start_pos, node.end_pos)

    def mutate(self, node, index):
        replacement = parso.parse("pass\n").children[0]  # a simple_stmt
        replacement.children[0].prefix = node.get_first_leaf().prefix  # its indentation and comments
        return replacement

    @classmethod
    def examples(cls):
        return (
            Example("def f(x):\n    x = x + 1\n    return x\n", "def f(x):\n    pass\n    return x\n"),
            Example(
                "def f(x):\n    if x < 0:\n        raise ValueError\n    return x\n",
                "def f(x):\n    pass\n    return x\n",
            ),
        )


def _core(name: str) -> Callable[[tuple[str, ...]], Operator]:
    """One of cosmic-ray's own operators, by its name in cosmic-ray's ``core`` provider."""
    return lambda modules: get_operator(f"core/{name}")()


@dataclass(frozen=True)
class MutationOperator:
    """One kind of change: ``name`` (the start of its mutants' ids), what it does in a few words,
    and how to make the cosmic-ray operator (given the modules the source imports)."""

    name: str
    what: str
    make: Callable[[tuple[str, ...]], Operator]


OPERATORS: tuple[MutationOperator, ...] = (
    # Arithmetic (cosmic-ray's binary-operator replacements, the swaps a slip of the hand makes).
    MutationOperator("arith.add-sub", "+ becomes -", _core("ReplaceBinaryOperator_Add_Sub")),
    MutationOperator("arith.sub-add", "- becomes +", _core("ReplaceBinaryOperator_Sub_Add")),
    MutationOperator("arith.mul-div", "* becomes /", _core("ReplaceBinaryOperator_Mul_Div")),
    MutationOperator("arith.div-mul", "/ becomes *", _core("ReplaceBinaryOperator_Div_Mul")),
    MutationOperator("arith.div-floordiv", "/ becomes //", _core("ReplaceBinaryOperator_Div_FloorDiv")),
    MutationOperator("arith.floordiv-div", "// becomes /", _core("ReplaceBinaryOperator_FloorDiv_Div")),
    MutationOperator("arith.pow-mul", "** becomes *", _core("ReplaceBinaryOperator_Pow_Mul")),
    MutationOperator("arith.drop-minus", "unary - is dropped", _core("ReplaceUnaryOperator_Delete_USub")),
    MutationOperator("bits.and-or", "& becomes | (masks)", _core("ReplaceBinaryOperator_BitAnd_BitOr")),
    MutationOperator("bits.or-and", "| becomes & (masks)", _core("ReplaceBinaryOperator_BitOr_BitAnd")),
    MutationOperator("bits.drop-invert", "~ is dropped (masks)", _core("ReplaceUnaryOperator_Delete_Invert")),
    # Comparisons: the boundary (< and <=), equality, identity.
    MutationOperator("cmp.lt-le", "< becomes <=", _core("ReplaceComparisonOperator_Lt_LtE")),
    MutationOperator("cmp.le-lt", "<= becomes <", _core("ReplaceComparisonOperator_LtE_Lt")),
    MutationOperator("cmp.gt-ge", "> becomes >=", _core("ReplaceComparisonOperator_Gt_GtE")),
    MutationOperator("cmp.ge-gt", ">= becomes >", _core("ReplaceComparisonOperator_GtE_Gt")),
    MutationOperator("cmp.eq-ne", "== becomes !=", _core("ReplaceComparisonOperator_Eq_NotEq")),
    MutationOperator("cmp.ne-eq", "!= becomes ==", _core("ReplaceComparisonOperator_NotEq_Eq")),
    MutationOperator("cmp.is-isnot", "is becomes is not", _core("ReplaceComparisonOperator_Is_IsNot")),
    MutationOperator("cmp.isnot-is", "is not becomes is", _core("ReplaceComparisonOperator_IsNot_Is")),
    # Boolean logic.
    MutationOperator("bool.and-or", "and becomes or", _core("ReplaceAndWithOr")),
    MutationOperator("bool.or-and", "or becomes and", _core("ReplaceOrWithAnd")),
    MutationOperator("bool.true-false", "True becomes False (right=True too)", _core("ReplaceTrueWithFalse")),
    MutationOperator("bool.false-true", "False becomes True", _core("ReplaceFalseWithTrue")),
    MutationOperator("bool.add-not", "a condition is negated", _core("AddNot")),
    MutationOperator("bool.drop-not", "not is dropped", _core("ReplaceUnaryOperator_Delete_Not")),
    # Constants (dim=-1 becomes dim=-0, that is 0, and dim=-2).
    MutationOperator("const.plus1", "a number n becomes n + 1", lambda modules: NumberShifted(+1)),
    MutationOperator("const.minus1", "a number n becomes n - 1", lambda modules: NumberShifted(-1)),
    # Ours: precision, forgotten calls, statements and keyword arguments.
    MutationOperator("dtype.f64-f32", "float64 becomes float32", lambda modules: DtypeSwapped("float64", "float32")),
    MutationOperator("dtype.f32-f64", "float32 becomes float64", lambda modules: DtypeSwapped("float32", "float64")),
    MutationOperator("call.drop", "a method call is left out", lambda modules: MethodCallDropped(modules)),
    MutationOperator("kwarg.drop", "a keyword argument is left out", lambda modules: KeywordArgumentDropped()),
    MutationOperator("stmt.drop", "a statement becomes pass", lambda modules: StatementDropped()),
)


def operator_named(name: str) -> MutationOperator:
    """The operator of :data:`OPERATORS` called ``name``; ``KeyError`` naming the choices otherwise."""
    for operator in OPERATORS:
        if operator.name == name:
            return operator
    raise KeyError(f"no mutation operator {name!r}; choose among {', '.join(o.name for o in OPERATORS)}")
