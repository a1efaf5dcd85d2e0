"""One table per fact: a text the CLI and the site both show is written once, in both languages.

The tables: ``judge.i18n.SHARED`` (shown by both), ``judge.i18n._CLI`` (the CLI alone),
``web.core.texts.SITE`` and ``web.core.instructor_texts.INSTRUCTOR`` (the site alone) and
``judge.verdicts._TITLES`` (the verdicts' names). An English text written in two of them is one fact kept twice, and sooner or later translated twice.
"""

from __future__ import annotations

import string

import pytest

from judge import i18n, verdicts
from web.core import instructor_texts, lms_texts, texts

TABLES: dict[str, dict[str, tuple[str, str]]] = {
    "judge.i18n.SHARED": i18n.SHARED,
    "judge.i18n._CLI": i18n._CLI,
    "web.core.texts.SITE": texts.SITE,
    "web.core.instructor_texts.INSTRUCTOR": instructor_texts.INSTRUCTOR,
    "judge.verdicts._TITLES": {verdict.value: names for verdict, names in verdicts._TITLES.items()},
}


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def _fact(en: str) -> str:
    """The English text as a fact: case and surrounding space do not make another one."""
    return " ".join(en.split()).casefold()


@pytest.mark.parametrize("table", TABLES)
def test_every_entry_has_both_languages_with_the_same_fields(table):
    for key, entry in TABLES[table].items():
        assert isinstance(entry, tuple) and len(entry) == 2, (table, key)
        en, zh = entry
        assert isinstance(en, str) and en.strip(), (table, key, "no English")
        assert isinstance(zh, str) and zh.strip(), (table, key, "no Chinese")
        assert _fields(en) == _fields(zh), (table, key, "the languages fill different fields")


def test_no_english_text_is_written_in_two_tables():
    seen: dict[str, tuple[str, str, str]] = {}
    twice = []
    for table, entries in TABLES.items():
        for key, (en, zh) in entries.items():
            fact = _fact(en)
            if fact in seen and seen[fact][0] != table:
                other_table, other_key, other_zh = seen[fact]
                twice.append(f"{en!r}: {other_table}[{other_key!r}] ({other_zh}) and {table}[{key!r}] ({zh})")
            seen.setdefault(fact, (table, key, zh))
    assert not twice, "one fact in two tables (keep it in judge.i18n.SHARED):\n" + "\n".join(twice)


def test_the_site_defines_each_key_once():
    site, shared, verdict_names = set(texts.SITE), set(i18n.SHARED), set(texts.VERDICT_NAMES)
    instructor, lms = set(instructor_texts.INSTRUCTOR), set(lms_texts.LMS)
    assert not site & instructor, f"keys in both site tables: {sorted(site & instructor)}"
    assert not (site | instructor) & lms, f"LMS keys in another site table: {sorted((site | instructor) & lms)}"
    site |= instructor | lms
    assert not site & shared, f"site texts that shadow shared ones: {sorted(site & shared)}"
    assert not (site | shared) & verdict_names
    assert texts.TEXTS == {
        **texts.SITE, **instructor_texts.INSTRUCTOR, **lms_texts.LMS, **i18n.SHARED, **texts.VERDICT_NAMES
    }


def test_the_site_shows_the_shared_texts_as_they_are():
    for key, entry in i18n.SHARED.items():
        assert texts.TEXTS[key] == entry, key


def test_the_cli_reaches_every_shared_text_and_changes_only_case():
    reached = set()
    for cli_key in [*i18n._CLI_ALIASES, *i18n.SHARED]:
        shared_key = i18n._CLI_ALIASES.get(cli_key, cli_key)
        en, zh = i18n.SHARED[shared_key]
        values = {name: "X" for name in _fields(en)}
        assert i18n.t(cli_key, "zh", **values) == zh.format(**values), cli_key
        assert _fact(i18n.t(cli_key, "en", **values)) == _fact(en.format(**values)), cli_key
        reached.add(shared_key)
    assert reached == set(i18n.SHARED)
    assert not set(i18n._CLI) & (set(i18n.SHARED) | set(i18n._CLI_ALIASES)), "a CLI text hides a shared one"


def test_the_verdicts_names_are_the_sites():
    for verdict in verdicts.Verdict:
        assert texts.TEXTS[f"verdict_{verdict.value}"] == (verdict.title_en, verdict.title_zh)
