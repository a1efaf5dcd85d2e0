"""Text the site accepts from a request: every string a form or a JSON body brings in.

Invariant: no text reaches the database, a password hash or the grading queue before
:func:`text_problem` has passed it. It refuses two kinds of character that a form or JSON can
carry but that break what comes after:

- NUL (U+0000): PostgreSQL cannot store it in a text column, and Python refuses it in source
  code anyway;
- a lone UTF-16 surrogate (U+D800 to U+DFFF, e.g. the JSON string ``"\\ud800"``): it cannot
  be encoded as UTF-8, so measuring, hashing or storing it fails.

Forms get the check from :class:`web.core.forms.SiteForm` (every text field); the API calls it on
every string of a JSON body. The refusal names the line and column, in both languages.
"""

from __future__ import annotations

import re

from judge.i18n import Bilingual
from web.core.i18n import bilingual

_BAD_CHARACTER = re.compile("[\x00\ud800-\udfff]")


def text_problem(text: str) -> Bilingual | None:
    """Why ``text`` cannot be accepted (English and Chinese), or None when it can."""
    found = _BAD_CHARACTER.search(text)
    if found is None:
        return None
    before = text[: found.start()]
    line = before.count("\n") + 1
    column = found.start() - (before.rfind("\n") + 1) + 1
    if found.group() == "\x00":
        return bilingual("text_has_nul", line=line, column=column)
    return bilingual("text_has_surrogate", code=f"{ord(found.group()):04X}", line=line, column=column)
