"""Exercise statements: Markdown to HTML with markdown-it-py, math left for KaTeX in the browser.

markdown-it-py is a CommonMark parser; its ``dollarmath`` plugin turns ``$...$`` and
``$$...$$`` into ``<span class="math inline">`` / ``<div class="math block">`` with the TeX
escaped inside, which ``web/frontend/src/site.js`` typesets with KaTeX (served from this site).
Raw HTML in a statement is not passed through.
"""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt
from markupsafe import Markup
from mdit_py_plugins.dollarmath import dollarmath_plugin

from judge.exercise import Exercise as ExerciseSpec

_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table").use(dollarmath_plugin, double_inline=True)


@lru_cache(maxsize=64)
def _render(text: str) -> str:
    # Code blocks scroll sideways: tabindex lets keyboard users reach and scroll them.
    return _MARKDOWN.render(text).replace("<pre>", '<pre tabindex="0">')


def render_statement(spec: ExerciseSpec, lang: str) -> Markup:
    """The statement of ``spec`` in ``lang`` as safe HTML (cached by its text)."""
    return Markup(_render(spec.statement(lang)))
