"""A markdown-it-py plugin: no space where a line of Chinese (or Japanese) text is wrapped.

CommonMark renders a line break inside a paragraph (a "softbreak") as a newline, which a
browser shows as a space: right between English words, wrong between two Chinese characters
("分布\\n抽出" must read "分布抽出"). This core rule drops such breaks, with the rule of the npm
plugin ``markdown-it-cjk-breaks`` (which serves markdown-it in JavaScript; our statements are
rendered by markdown-it-py on the server, and for the terminal): a softbreak is removed when the characters on both
sides are East Asian fullwidth, wide or halfwidth (Unicode UAX #11) and neither is Hangul
(Korean writes spaces between words), or when either side is a zero-width space. Each side's
character is the nearest one of the nearest non-empty text token, so emphasis or a code span
next to the break is looked past, as the npm plugin does. A break between Chinese and a Latin
word stays a space, the spacing the statements write ("一个 logit").

The PyPI package for this (``mdit-py-cjk-friendly``) pins markdown-it-py below 4 and patches
markdown-it-py's emphasis scanner for every parser in the process, so it is not used.
"""

from __future__ import annotations

import unicodedata

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

ZERO_WIDTH_SPACE = "\u200b"
_WIDE = ("F", "W", "H")  # East Asian Width classes whose characters are set without spaces


def _is_cjk(char: str) -> bool:
    return unicodedata.east_asian_width(char) in _WIDE and "HANGUL" not in unicodedata.name(char, "")


def joins_without_space(last: str, next_: str) -> bool:
    """Whether a line break between the characters ``last`` and ``next_`` is to be dropped."""
    if ZERO_WIDTH_SPACE in (last, next_):
        return True
    return _is_cjk(last) and _is_cjk(next_)


def _neighbour(tokens: list[Token], start: int, step: int) -> str:
    """The character next to ``tokens[start]`` in direction ``step`` (a space when there is none)."""
    index = start + step
    while 0 <= index < len(tokens):
        token = tokens[index]
        if token.type == "text" and token.content:
            return token.content[-1] if step < 0 else token.content[0]
        index += step
    return " "


def _drop_cjk_breaks(state: StateCore) -> None:
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children = block.children
        for index, token in enumerate(children):
            if token.type == "softbreak" and joins_without_space(
                _neighbour(children, index, -1), _neighbour(children, index, +1)
            ):
                token.type, token.content = "text", ""


def cjk_breaks_plugin(md: MarkdownIt) -> None:
    """``MarkdownIt(...).use(cjk_breaks_plugin)``: drop the line breaks between CJK characters."""
    md.core.ruler.push("cjk_breaks", _drop_cjk_breaks)
