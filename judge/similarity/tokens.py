"""A Python source as the comparison sees it: tokens that survive renaming, reformatting and comments.

:func:`normalised_tokens` reads a source with the standard library's ``tokenize`` and keeps, for each
token that carries meaning, its normalised text and its ``[start, end)`` character offsets in the
source (so that a match can be shown on the learner's own code). What is dropped or folded, and why:

- comments, blank lines, line breaks, indentation and ``;``: reformatting (a black-like layout
  against a compact one, ``a; b`` on one line) must not change the stream;
- strings that stand alone as a statement (docstrings, strings used as comments): rewording a
  docstring must not hide a copy; every other string is folded to ``S`` (a renamed message is
  still the same code);
- a comma before a closing bracket (black's "magic trailing comma");
- every bare name (a variable, a parameter, a function, a module or a builtin) is folded to ``V``:
  renaming identifiers, consistently or not, leaves the stream unchanged. Attribute names, the
  word after a ``.`` (``torch.cumsum``, ``probs.sort``), are kept: a learner cannot rename the
  library's API, and they carry most of what distinguishes one algorithm from another.

Keywords, operators and numbers are kept as written. Reordering functions is left to the
fingerprints: they are a set, so blocks in another order still match (:mod:`judge.similarity.text`).

A source that ``tokenize`` refuses (a syntax error, an unterminated string: learners submit those)
falls back to a plain split into words and symbols, with names folded the same way; nothing here
raises on any text.
"""

from __future__ import annotations

import io
import itertools
import keyword
import re
import token
import tokenize
from dataclasses import dataclass

NAME = "V"  # what every bare name becomes
STRING = "S"  # what every string that is not a statement becomes
_LAYOUT = {token.NEWLINE, token.NL, token.INDENT, token.DEDENT, token.COMMENT, token.ENDMARKER, token.ENCODING}
_CLOSING = {")", "]", "}"}
# Round brackets are dropped: redundant ones come and go with a formatter ((not x), return (a, b),
# black's wrapping of long conditions), and a call is still told by its name, its commas and what follows.
_PARENTHESES = {"(", ")"}
_FALLBACK = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|\S")  # words, numbers, any other single character


@dataclass(frozen=True)
class Token:
    """One token of a source: its normalised text and where it is, ``[start, end)`` in the source's characters."""

    text: str
    start: int
    end: int


def normalised_tokens(source: str) -> list[Token]:
    """The tokens of ``source`` that carry meaning, normalised as the module docstring says, in order.

    Never raises: a source Python cannot tokenize is split into words and symbols instead.
    """
    try:
        return _python_tokens(source)
    except (tokenize.TokenError, SyntaxError, IndentationError, ValueError):
        return _fallback_tokens(source)


def _line_starts(source: str) -> list[int]:
    """The character offset where each line starts; index 0 is line 1 (tokenize counts lines from 1)."""
    starts = [0]
    for match in re.finditer("\n", source):
        starts.append(match.end())
    return starts


def _python_tokens(source: str) -> list[Token]:
    lines = _line_starts(source)
    raw = list(tokenize.generate_tokens(io.StringIO(source).readline))
    kept: list[Token] = []
    previous_layout = True  # at the start of a statement: after a NEWLINE, INDENT or DEDENT, or at the top
    for index, tok in enumerate(raw):
        if tok.type in (token.NEWLINE, token.INDENT, token.DEDENT) or tok.string == ";":
            previous_layout = True
            continue
        if tok.type in _LAYOUT:
            continue
        start = lines[tok.start[0] - 1] + tok.start[1]
        end = lines[tok.end[0] - 1] + tok.end[1]
        text = _normalised(tok, raw, index)
        at_statement_start, previous_layout = previous_layout, False
        if text is None:
            continue
        if text == STRING and at_statement_start and _ends_statement(raw, index):
            continue  # a docstring or a string used as a comment
        kept.append(Token(text, start, end))
    return _join_adjacent_strings(kept)


def _normalised(tok: tokenize.TokenInfo, raw: list[tokenize.TokenInfo], index: int) -> str | None:
    """The token's text in the stream, or None when it is dropped (a trailing comma)."""
    if tok.type == token.NAME:
        if keyword.iskeyword(tok.string) or keyword.issoftkeyword(tok.string):
            return tok.string
        before = _previous_meaningful(raw, index)
        return tok.string if before is not None and before.string == "." else NAME
    if tok.type == token.STRING:
        return STRING
    if tok.type == token.NUMBER:
        return tok.string.replace("_", "").lower()  # 2_000_000 is 2000000, 1E-3 is 1e-3
    if tok.string in _PARENTHESES:
        return None
    if tok.string == ",":
        after = _next_meaningful(raw, index)
        if after is not None and after.string in _CLOSING:
            return None
    return tok.string


def _previous_meaningful(raw: list[tokenize.TokenInfo], index: int) -> tokenize.TokenInfo | None:
    for i in range(index - 1, -1, -1):  # by index: a slice would copy the whole list for every name
        if raw[i].type not in _LAYOUT:
            return raw[i]
    return None


def _next_meaningful(raw: list[tokenize.TokenInfo], index: int) -> tokenize.TokenInfo | None:
    for i in range(index + 1, len(raw)):
        if raw[i].type not in _LAYOUT:
            return raw[i]
    return None


def _ends_statement(raw: list[tokenize.TokenInfo], index: int) -> bool:
    """Whether the string at ``index`` is followed by the end of its statement (implicitly joined strings too)."""
    for tok in itertools.islice(raw, index + 1, None):
        if tok.type in (token.NL, token.COMMENT) or tok.type == token.STRING:
            continue
        return tok.type in (token.NEWLINE, token.ENDMARKER) or tok.string == ";"
    return True


def _join_adjacent_strings(tokens: list[Token]) -> list[Token]:
    """Adjacent strings (implicit concatenation) count as one ``S``: splitting a message must not change the stream."""
    folded: list[Token] = []
    for tok in tokens:
        if tok.text == STRING and folded and folded[-1].text == STRING:
            folded[-1] = Token(STRING, folded[-1].start, tok.end)
        else:
            folded.append(tok)
    return folded


def _fallback_tokens(source: str) -> list[Token]:
    tokens = []
    for match in _FALLBACK.finditer(source):
        word = match.group()
        if word == "#":  # a comment, to the end of the line
            continue
        text = word if keyword.iskeyword(word) or not (word[0].isalpha() or word[0] == "_") else NAME
        tokens.append(Token(text, match.start(), match.end()))
    return _drop_comments(source, tokens)


def _drop_comments(source: str, tokens: list[Token]) -> list[Token]:
    """The fallback's tokens less those inside ``# ...`` comments (a ``#`` outside quotes, roughly)."""
    comments = [(m.start(), m.end()) for m in re.finditer(r"#[^\n]*", source)]
    if not comments:
        return tokens
    return [t for t in tokens if not any(start <= t.start < end for start, end in comments)]
