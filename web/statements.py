"""Exercise statements: Markdown to HTML with markdown-it-py, math left for KaTeX in the browser.

markdown-it-py is a CommonMark parser; its ``dollarmath`` plugin finds ``$...$`` and ``$$...$$``
and this module writes them, the TeX escaped inside, as

- ``<span class="math inline">`` for ``$...$``: inline math;
- ``<span class="math display">`` for ``$$...$$`` inside a paragraph (a span, since a ``<div>``
  may not stand in a ``<p>``; the stylesheet makes it a block): display math;
- ``<div class="math block">`` for ``$$...$$`` on lines of its own: display math;

and ``web/frontend/src/math.mjs`` typesets every ``.math`` with KaTeX (served from this site), in
display mode unless it is ``inline``. Line breaks between Chinese characters are dropped
(:mod:`judge.cjk_breaks`). Raw HTML in a statement is not passed through.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token
from markupsafe import Markup
from mdit_py_plugins.dollarmath import dollarmath_plugin

from judge.cjk_breaks import cjk_breaks_plugin
from judge.exercise import Exercise as ExerciseSpec


def _display_math_in_paragraph(_renderer, tokens: Sequence[Token], index: int, _options, _env) -> str:
    return f'<span class="math display">{escapeHtml(tokens[index].content.strip())}</span>'


def _markdown() -> MarkdownIt:
    md = (
        MarkdownIt("commonmark", {"html": False})
        .enable("table")
        .use(dollarmath_plugin, double_inline=True)
        .use(cjk_breaks_plugin)
    )
    md.add_render_rule("math_inline_double", _display_math_in_paragraph)
    return md


_MARKDOWN = _markdown()


@lru_cache(maxsize=64)
def render_markdown(text: str) -> str:
    """``text`` (a statement's Markdown) as HTML (see the module docstring), cached by its text."""
    # Code blocks and tables scroll sideways (tables on a narrow screen): tabindex lets keyboard
    # users reach and scroll them.
    return _MARKDOWN.render(text).replace("<pre>", '<pre tabindex="0">').replace("<table>", '<table tabindex="0">')


def render_statement(spec: ExerciseSpec, lang: str) -> Markup:
    """The statement of ``spec`` in ``lang`` as safe HTML (cached by its text)."""
    return Markup(render_markdown(spec.statement(lang)))
