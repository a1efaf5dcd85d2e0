"""Every table a page renders stands in a box that scrolls sideways by itself (so a phone's page
never does), and that box is one keyboard users can reach and screen readers can name:
``<div class="table-scroll" role="region" tabindex="0" aria-label|aria-labelledby=...>``, the
site's pattern (web/static/site.css). A failed check's numbers are the one exception: they stand
in their ``<details class="figure-numbers">``, which scrolls and whose summary takes the focus.
The browser test at phone width (tests/browser/test_mobile.py) sees the boxes axe can judge; this
one sees every template, including the tables that hold a link (axe lets those pass)."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

TEMPLATES = Path(__file__).resolve().parents[2] / "web" / "templates"


class _Tables(HTMLParser):
    """Each ``<table>`` of a template (its line) with the attributes of its open ancestors."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[tuple[str, dict[str, str | None]]] = []
        self.tables: list[tuple[int, list[dict[str, str | None]]]] = []

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append((self.getpos()[0], [attributes for _, attributes in self.open]))
        if tag not in {"br", "hr", "img", "input", "meta", "link", "col", "source", "wbr"}:
            self.open.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        # Pop to the matching start tag: a Jinja branch may leave one unclosed.
        for index in range(len(self.open) - 1, -1, -1):
            if self.open[index][0] == tag:
                del self.open[index:]
                break


def _in_a_box(ancestors: list[dict[str, str | None]]) -> bool:
    for attributes in ancestors:
        classes = (attributes.get("class") or "").split()
        if "figure-numbers" in classes:
            return True
        if "table-scroll" in classes:
            return (attributes.get("tabindex") == "0" and attributes.get("role") == "region"
                    and bool(attributes.get("aria-label") or attributes.get("aria-labelledby")))
    return False


@pytest.mark.parametrize("template", sorted(TEMPLATES.rglob("*.html")),
                         ids=lambda path: str(path.relative_to(TEMPLATES)))
def test_each_table_scrolls_in_a_box_keyboard_users_can_reach(template):
    parser = _Tables()
    parser.feed(template.read_text(encoding="utf-8"))
    assert [line for line, ancestors in parser.tables if not _in_a_box(ancestors)] == []


def test_the_scan_sees_the_tables():
    """The scan above finds tables (a parser that saw none would pass every template)."""
    parser = _Tables()
    parser.feed((TEMPLATES / "courses" / "gradebook.html").read_text(encoding="utf-8"))
    assert len(parser.tables) == 1 and _in_a_box(parser.tables[0][1])
