"""Keep the server's file paths out of everything a report says.

A report reaches the learner (and, on a site, anyone the learner shows it to). Our own messages
never name a path, but text can still carry one: a torch warning in the learner's output names
site-packages, an exception from a library quotes the file it was in, the learner's code can
print its working directory. :func:`redact_report` replaces the judge's project directory, the
interpreter's directories and the judge's temporary directories (sandbox scratch, the queue's
files: ``<tmp>/probjudge-*``) with placeholders (``<judge>``, ``<python>``, ``<scratch>``) in
every message and in the output tail, as a last line of defence.
"""

from __future__ import annotations

import re
import site
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

from judge.i18n import Bilingual
from judge.reports.report import Report

PROJECT_ROOT = Path(__file__).resolve().parents[2]


@lru_cache(maxsize=1)
def _replacements() -> tuple[tuple[str, str], ...]:
    found: dict[str, str] = {str(PROJECT_ROOT): "<judge>"}
    for prefix in (sys.prefix, sys.base_prefix, sys.exec_prefix, *_site_packages()):
        found.setdefault(str(Path(prefix).resolve()), "<python>")
        found.setdefault(prefix, "<python>")
    # Longest first: a virtualenv often lives inside the project, site-packages inside it.
    paths = [p for p in found if len(p) > 1]
    return tuple((path, found[path]) for path in sorted(paths, key=len, reverse=True))


def _site_packages() -> list[str]:
    try:
        return list(site.getsitepackages())
    except AttributeError:  # some embedded interpreters have no site.getsitepackages
        return []


@lru_cache(maxsize=1)
def _scratch() -> re.Pattern[str]:
    """``<tmp>/probjudge-…`` and what is below it: every temporary directory the judge makes."""
    roots = {tempfile.gettempdir(), "/tmp"}
    alternatives = "|".join(re.escape(root.rstrip("/")) for root in sorted(roots, key=len, reverse=True))
    return re.compile(rf"(?:{alternatives})/probjudge-[^\s'\"]*")


def redact(text: str) -> str:
    """``text`` with the judge's, the interpreter's and the scratch directories replaced by placeholders."""
    text = _scratch().sub("<scratch>", text)
    for path, placeholder in _replacements():
        if path in text:
            text = text.replace(path, placeholder)
    return text


def redact_report(report: Report) -> Report:
    """Redact every free text of ``report`` in place; returns it (a Bilingual message in both languages)."""
    message = report.message
    report.message = (
        Bilingual(redact(message), redact(message.zh)) if isinstance(message, Bilingual) else redact(message)
    )
    report.output = redact(report.output)
    for case in report.cases:
        case.message = redact(case.message)
    return report
