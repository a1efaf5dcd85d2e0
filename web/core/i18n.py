"""The site's two languages: which one a request gets, and its texts (``web/core/texts.py``).

The language is, in order: ``?lang=`` (which also sets the cookie), the ``lang`` cookie, the
signed-in user's saved choice, the browser's ``Accept-Language``, English. Texts are looked up
by key; a key missing from the catalogue is a bug, so it raises ``KeyError`` (a test renders
every template in both languages). A text writes code between backticks; templates show it
through the ``code_spans`` filter (:func:`code_spans`), so no page shows a backtick.
"""

from __future__ import annotations

import re

from flask import g, has_request_context, request
from markupsafe import Markup, escape

from judge.i18n import LANGUAGES, Bilingual, format_text, in_language
from web.core.texts import TEXTS

COOKIE = "lang"
_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def choose_language(user_language: str | None = None) -> str:
    """The language for the current request (see the module docstring)."""
    for candidate in (request.args.get("lang"), request.cookies.get(COOKIE), user_language):
        if candidate in LANGUAGES:
            return candidate
    return request.accept_languages.best_match(LANGUAGES, default="en") or "en"


def current_language() -> str:
    return g.get("lang", "en") if has_request_context() else "en"


def t(key: str, **values: object) -> str:
    """The text ``key`` in the request's language, formatted with ``values``."""
    en, zh = TEXTS[key]
    return format_text(zh if current_language() == "zh" else en, **values)


def template(key: str) -> str:
    """The text ``key`` in the request's language with its ``{fields}`` left in (for scripts to fill)."""
    en, zh = TEXTS[key]
    return zh if current_language() == "zh" else en


def ordinal(number: int) -> str:
    """``number`` as an English ordinal: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def has_text(key: str) -> bool:
    return key in TEXTS


def bilingual(key: str, **values: object) -> Bilingual:
    """The text ``key`` in both languages (for messages stored or raised outside a request)."""
    en, zh = TEXTS[key]
    return Bilingual(format_text(en, **values), format_text(zh, **values))


def localized(text: str | None) -> str:
    """A :class:`~judge.i18n.Bilingual` in the request's language; any other string as it is."""
    return in_language(text, current_language())


def pick(en: str | None, zh: str | None, lang: str | None = None) -> str:
    """Of a stored English/Chinese pair, the one for ``lang`` (default: this request's; English when zh is missing)."""
    return (zh or en or "") if (lang or current_language()) == "zh" else (en or "")


def code_spans(text: object) -> Markup:
    """``text`` escaped for HTML, each `code` span (between backticks, as Markdown writes it) a ``<code>``."""
    return Markup(_CODE_SPAN.sub(r"<code>\1</code>", str(escape(text))))


class LazyText:
    """A text resolved when rendered: form validators are built before the language is known."""

    def __init__(self, key: str, **values: object) -> None:
        self.key, self.values = key, values

    def __str__(self) -> str:
        return t(self.key, **self.values)

    def __mod__(self, values: object) -> str:  # WTForms fills %(min)d-style fields this way
        return str(self) % values

    def __html__(self) -> str:  # Jinja escapes it like any string
        return str(escape(str(self)))
