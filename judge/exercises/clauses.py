"""The statement is the contract: its binding sentences, and the checks that test each one.

Every sentence of an exercise's ``statement.en.md`` that says "must", "never" or "raise" (and
each item of a list a "Raise ... when:" sentence opens) is a *clause*: a promise the learner's
code has to keep, so some case of the suites has to test it. An author lists the clauses in
``tests/hidden/contract.toml``, next to the hidden suite, each quoted by a few words of its sentence and
followed by the cases that check it::

    [[clause]]
    quote = "a token of probability 0 must never be returned"
    checks = ["hidden.inverse_cdf_steps", "hidden.sample_extremes"]

    [[clause]]
    quote = "The tests never depend on these choices"
    note = "a promise of the tests, not of the learner's code"

:func:`contract_problems` says what is missing or stale: a clause of the statement that no quote
covers, a quote that is no longer in the statement, a check that names no case of the suites, a
clause with neither checks nor a ``note`` saying why none can exist. A clause may also quote a
sentence without those words whose promise the suites test ("Draws are independent"). ``practice/judge.py check``
fails on any of them and ``practice/judge.py contract NNN`` prints the table.

The statement is read as Markdown text, without a Markdown parser: fenced code is dropped, lines
are joined into paragraphs and list items, and those are cut into sentences after ``.``, ``!``,
``?`` or ``;`` followed by a space. Display math stays in its sentence (a quote may skip it).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judge.exercises.exercise import Exercise

CONTRACT_FILE = "contract.toml"  # beside the hidden suite: it names hidden cases
# The words that make a sentence binding (whole words, any case).
CLAUSE_WORDS = re.compile(r"\b(must|never|raises?|raised)\b", re.IGNORECASE)
RAISE_WORDS = re.compile(r"\braise[sd]?\b", re.IGNORECASE)
MIN_QUOTE = 12  # characters: a quote short enough to match anywhere proves nothing
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")


class ContractError(ValueError):
    """``tests/hidden/contract.toml`` cannot be read, or is malformed: a mistake in the exercise."""


@dataclass(frozen=True)
class Sentence:
    """A sentence of the statement: its text (whitespace collapsed), where it starts, whether it binds."""

    text: str
    line: int  # 1-based line of the statement where its paragraph or list item starts
    binding: bool = True  # says "must", "never" or "raise", or is a case of a list of refusals


@dataclass(frozen=True)
class Clause:
    """One entry of ``contract.toml``: the words it quotes and the cases that test it.

    ``checks`` name cases as ``suite.case`` (``hidden.sample_extremes``: the function
    ``test_sample_extremes`` of ``tests/hidden/hidden.py``); ``note`` says why a clause has none.
    """

    quote: str
    checks: tuple[str, ...] = ()
    note: str | None = None


def normalized(text: str) -> str:
    """``text`` with every run of whitespace as one space, trimmed: how quotes and sentences compare."""
    return " ".join(text.split())


def _blocks(markdown: str) -> Iterable[tuple[int, str, bool]]:
    """Paragraphs and list items of ``markdown``: (first line, text, is a list item), fenced code and
    headings left out."""
    lines = markdown.splitlines()
    fenced = False
    current: list[str] = []
    start = 0
    is_item = False
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if stripped.startswith("```"):
            fenced = not fenced
            if current:
                yield start, " ".join(current), is_item
                current = []
            continue
        if fenced:
            continue
        item = _LIST_ITEM.match(line) is not None
        if not stripped or stripped.startswith("#") or item or stripped.startswith("|"):
            if current:
                yield start, " ".join(current), is_item
                current = []
            if item:
                current, start, is_item = [_LIST_ITEM.sub("", line, count=1)], number, True
            continue
        if not current:
            start, is_item = number, False
        current.append(stripped)
    if current:
        yield start, " ".join(current), is_item


def statement_sentences(markdown: str) -> list[Sentence]:
    """Every sentence of a statement, in order, each marked ``binding`` when it says "must", "never"
    or "raise". A sentence with "raise" that opens a list (ends in ``:``) makes each item of that
    list binding (the cases of "Raise ``ValueError`` when:"), and one whose ``:`` is followed by
    cases separated by ``;`` makes each case a binding sentence of its own ("raises ``ValueError``
    for: a; b; c")."""
    found: list[Sentence] = []
    raising_list = False
    for line, text, is_item in _blocks(markdown):
        text = normalized(text)
        if is_item and raising_list:
            found.append(Sentence(text, line, True))
            continue
        raising_list = False
        for sentence in _SENTENCE_END.split(text):
            head, colon, rest = sentence.partition(": ")
            if RAISE_WORDS.search(head) and colon and ";" in rest:
                found.append(Sentence(head + colon.rstrip(), line, True))
                found += [Sentence(case.strip(), line, True) for case in rest.split(";") if case.strip()]
                continue
            found.append(Sentence(sentence, line, bool(CLAUSE_WORDS.search(sentence))))
        raising_list = bool(RAISE_WORDS.search(text)) and text.endswith(":")
    return found


def statement_clauses(markdown: str) -> list[Sentence]:
    """The binding sentences of a statement (:func:`statement_sentences`), in order."""
    return [sentence for sentence in statement_sentences(markdown) if sentence.binding]


def load_contract(path: Path) -> list[Clause]:
    """The clauses of a ``contract.toml``; raises :class:`ContractError` when it cannot be read or an
    entry is malformed (the message names the entry)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ContractError(f"{path}: {exc}") from None
    unknown = set(data) - {"clause"}
    if unknown:
        raise ContractError(f"{path}: unknown key {sorted(unknown)[0]!r} (only [[clause]] tables)")
    entries = data.get("clause", [])
    if not isinstance(entries, list):
        raise ContractError(f"{path}: 'clause' must be an array of tables ([[clause]])")
    clauses = []
    for index, entry in enumerate(entries):
        where = f"{path}: clause {index + 1}"
        if not isinstance(entry, dict) or set(entry) - {"quote", "checks", "note"}:
            raise ContractError(f"{where}: a table of quote, checks and note")
        quote, checks, note = entry.get("quote"), entry.get("checks", []), entry.get("note")
        if not isinstance(quote, str) or len(normalized(quote)) < MIN_QUOTE:
            raise ContractError(f"{where}: 'quote' must be the words of the sentence, {MIN_QUOTE} characters or more")
        if not isinstance(checks, list) or not all(isinstance(c, str) and "." in c for c in checks):
            raise ContractError(f"{where}: 'checks' must be a list of 'suite.case' names")
        if note is not None and not (isinstance(note, str) and note.strip()):
            raise ContractError(f"{where}: 'note' must be a sentence saying why no case checks it")
        clauses.append(Clause(normalized(quote), tuple(checks), note))
    return clauses


def contract_path(exercise: Exercise) -> Path:
    return exercise.hidden_dir / CONTRACT_FILE


def contract_problems(exercise: Exercise, cases: Sequence[str] | None = None) -> list[str]:
    """What keeps ``exercise``'s contract list from covering its statement, one line each ([] when whole).

    ``cases``: every case of the exercise's suites as ``suite.case`` (default: loaded here, public,
    hidden and the browser's tiny suite where it exists). Problems: no ``contract.toml``; a binding
    sentence of ``statement.en.md`` that no quote falls in; a quote found in no sentence of the
    statement (it changed: quote it anew); a check naming no case; a clause with neither checks nor a
    note. A clause may quote a sentence that does not bind by its words ("Draws are independent"):
    it is kept to the same rules. Raises :class:`ContractError`
    for a malformed file.
    """
    path = contract_path(exercise)
    if not path.is_file():
        return [f"{_relative(path, exercise)} is missing: list the statement's binding sentences and their checks"]
    clauses = load_contract(path)
    sentences = statement_sentences(exercise.statement("en"))
    known = set(exercise_cases(exercise) if cases is None else cases)
    problems = []
    for sentence in sentences:
        if sentence.binding and not any(clause.quote in sentence.text for clause in clauses):
            problems.append(f"statement.en.md line {sentence.line}: no clause quotes {_short(sentence.text)!r}")
    for clause in clauses:
        if not any(clause.quote in sentence.text for sentence in sentences):
            problems.append(f"contract.toml: {_short(clause.quote)!r} is in no sentence of the statement")
        for check in clause.checks:
            if check not in known:
                problems.append(f"contract.toml: {_short(clause.quote)!r} names {check!r}, which is no case")
        if not clause.checks and clause.note is None:
            problems.append(f"contract.toml: {_short(clause.quote)!r} has no checks and no note saying why")
    return problems


def exercise_cases(exercise: Exercise) -> list[str]:
    """Every case of ``exercise``'s suites (public, hidden, and tiny where it has one) as ``suite.case``."""
    from judge.exercises.suites import load_suite

    names = []
    for suite in ("public", "hidden", "tiny"):
        if not exercise.suite_path(suite).is_file():
            continue
        names += [f"{suite}.{case.name}" for case in load_suite(exercise, suite).cases]
    return names


def coverage(exercise: Exercise) -> list[tuple[Sentence, list[Clause]]]:
    """Each sentence of the statement that binds or that a clause quotes, with the clauses that quote
    it (for ``practice/judge.py contract NNN``)."""
    path = contract_path(exercise)
    clauses = load_contract(path) if path.is_file() else []
    return [
        (sentence, [c for c in clauses if c.quote in sentence.text])
        for sentence in statement_sentences(exercise.statement("en"))
        if sentence.binding or any(c.quote in sentence.text for c in clauses)
    ]


def _short(text: str, limit: int = 90) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _relative(path: Path, exercise: Exercise) -> str:
    try:
        return path.relative_to(exercise.root).as_posix()
    except ValueError:
        return str(path)
