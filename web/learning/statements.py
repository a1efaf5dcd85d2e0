"""Exercise statements: Markdown to HTML with markdown-it-py, math left for KaTeX in the browser.

markdown-it-py is a CommonMark parser; its ``dollarmath`` plugin finds ``$...$`` and ``$$...$$``
and this module writes them, the TeX escaped inside, as

- ``<span class="math inline">`` for ``$...$``: inline math;
- ``<span class="math display">`` for ``$$...$$`` inside a paragraph (a span, since a ``<div>``
  may not stand in a ``<p>``; the stylesheet makes it a block): display math;
- ``<div class="math block">`` for ``$$...$$`` on lines of its own: display math;

and ``web/frontend/src/math.mjs`` typesets every ``.math`` with KaTeX (served from this site), in
display mode unless it is ``inline``. Line breaks between Chinese characters are dropped
(:mod:`judge.reports.cjk_breaks`). Raw HTML in a statement is not passed through. Each table stands in
the site's scrolling box (``<div class="table-scroll" role="region" tabindex="0">``, named
"Table N of the statement" in the statement's language), so on a phone it scrolls by itself and
keyboard users can reach it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token
from markupsafe import Markup
from mdit_py_plugins.dollarmath import dollarmath_plugin

from judge.exercises.exercise import Exercise as ExerciseSpec
from judge.i18n import format_text
from judge.reports.cjk_breaks import cjk_breaks_plugin
from web.core.texts import TEXTS


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


def _scrolling_tables(html: str, lang: str) -> str:
    """``html`` with each ``<table>`` in a named, focusable scrolling box (numbered in order)."""
    en, zh = TEXTS["statement_table"]
    parts = html.split("<table>")
    boxed = [parts[0]]
    for number, part in enumerate(parts[1:], start=1):
        label = escapeHtml(format_text(zh if lang == "zh" else en, number=number))
        boxed.append(f'<div class="table-scroll" role="region" aria-label="{label}" tabindex="0"><table>{part}')
    return "".join(boxed).replace("</table>", "</table></div>")


@lru_cache(maxsize=64)
def render_markdown(text: str, lang: str = "en") -> str:
    """``text`` (a statement's Markdown, in ``lang``) as HTML (see the module docstring), cached
    by its text and language."""
    # Code blocks and tables scroll sideways (tables in their box): tabindex lets keyboard users
    # reach and scroll them.
    return _scrolling_tables(_MARKDOWN.render(text).replace("<pre>", '<pre tabindex="0">'), lang)


def render_statement(spec: ExerciseSpec, lang: str) -> Markup:
    """The statement of ``spec`` in ``lang`` as safe HTML (cached by its text)."""
    return Markup(render_markdown(spec.statement(lang), lang))
