"""Each starter in the learner's language (judge/exercises/starters.py): one program, hints chosen by tag.

Every version (English or Chinese, command line or site) is the file's program with other comments:
its syntax tree is the file's. English versions hold no Chinese; each ``[en]`` hint has its
``[zh]`` twin beside it, and the other way round; the site's versions name no CLI command, the
command line's say how to judge with it.
"""

from __future__ import annotations

import ast
import re

import pytest

from judge.authoring.scaffold import STARTER, _fill
from judge.exercises.exercise import load_all
from judge.exercises.starters import DOORS, localized_starter, tagged_lines

EXERCISES = load_all()
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
SCAFFOLD = _fill(STARTER, {"number": "7", "title_en": "A new one"})


def _sources() -> list[tuple[str, str, int]]:
    return [(e.folder, e.starter_path.read_text(encoding="utf-8"), e.number) for e in EXERCISES] + [
        ("scaffold", SCAFFOLD, 7)
    ]


SOURCES = _sources()


@pytest.mark.parametrize("folder, source, number", SOURCES, ids=[s[0] for s in SOURCES])
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("door", DOORS)
def test_every_version_is_the_same_program_in_its_language(folder, source, number, lang, door):
    shown = localized_starter(source, lang, door)
    assert ast.dump(ast.parse(shown)) == ast.dump(ast.parse(source))  # comments aside, nothing differs
    assert "# [" not in shown  # no tag reaches a learner
    if lang == "en":
        assert not CJK.findall(shown), f"Chinese in the English starter of {folder}: {CJK.findall(shown)}"
    if door == "web":
        assert "practice/judge.py" not in shown  # the site has Run and Submit buttons
    else:
        assert f"practice/judge.py test {number}" in shown


@pytest.mark.parametrize("folder, source, number", SOURCES, ids=[s[0] for s in SOURCES])
def test_every_hint_has_its_twin_in_the_other_language(folder, source, number):
    """Each block of adjacent tagged lines holds, for each door it is for, both languages."""
    tagged = tagged_lines(source)
    assert tagged, f"{folder}: a starter without hints"
    blocks: list[list[tuple[str | None, str]]] = []
    previous = None
    for index, door, lang in tagged:
        if previous is None or index != previous + 1:
            blocks.append([])
        blocks[-1].append((door, lang))
        previous = index
    for block in blocks:
        for door in {door for door, _ in block}:
            assert {lang for d, lang in block if d == door} == {"en", "zh"}, (folder, block)
    assert localized_starter(source, "en", "web") != localized_starter(source, "zh", "web")  # hints in both


def test_a_dropped_block_leaves_no_doubled_blank_line():
    source = (
        '"""Doc."""\n\n# [cli en] Run the CLI.\n# [cli zh] 运行命令行。\n\n'
        "import torch\n    # [en] hint\n    # [zh] 提示\n"
    )
    assert localized_starter(source, "en", "web") == '"""Doc."""\n\nimport torch\n    # hint\n'
    assert localized_starter(source, "zh", "cli") == '"""Doc."""\n\n# 运行命令行。\n\nimport torch\n    # 提示\n'
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        localized_starter(source, "fr", "web")
