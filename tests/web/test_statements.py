"""Statements as the pages show them: display math as display math, inline math inline, and no
stray space where a line of Chinese is wrapped."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from judge.exercises.exercise import load_all
from judge.reports.cjk_breaks import cjk_breaks_plugin, joins_without_space
from web.learning.statements import render_markdown

FRONTEND = Path(__file__).resolve().parents[2] / "web" / "frontend"
STATEMENTS = [(spec, lang) for spec in load_all() for lang in ("en", "zh")]
MATH = re.compile(r'<(span|div) class="math (\w+)">(.*?)</\1>', re.DOTALL)
WIDE = "[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]"  # CJK punctuation, ideographs, fullwidth forms
PRE = re.compile(r"<pre\b.*?</pre>", re.DOTALL)


def math_elements(rendered: str) -> list[tuple[str, str, str]]:
    """(tag, class, TeX) of each math element in rendered HTML."""
    return [(tag, kind, html.unescape(tex).strip()) for tag, kind, tex in MATH.findall(rendered)]


# --- math ------------------------------------------------------------------------------------------

def test_each_kind_of_math_gets_its_element():
    rendered = render_markdown("Inline $a_1$ and, in the paragraph, $$\\sum_i a_i < P.$$ Then\n\n$$\nb^2\n$$\n")
    assert math_elements(rendered) == [("span", "inline", "a_1"), ("span", "display", "\\sum_i a_i < P."),
                                       ("div", "block", "b^2")]
    assert not re.search(r"<p>(?:(?!</p>).)*<div", rendered, re.DOTALL), "a <div> inside a <p> breaks the paragraph"


@pytest.mark.parametrize("spec, lang", STATEMENTS, ids=[f"{s.number}-{lang}" for s, lang in STATEMENTS])
def test_every_double_dollar_of_a_statement_is_display_math(spec, lang):
    source = spec.statement(lang)
    elements = math_elements(render_markdown(source))
    display = [tex for _, kind, tex in elements if kind != "inline"]
    assert len(display) == source.count("$$") // 2
    assert [tex for _, kind, tex in elements if kind == "inline"], "a statement without inline math?"


@pytest.mark.skipif(shutil.which("node") is None or not (FRONTEND / "node_modules" / "katex").is_dir(),
                    reason="needs Node.js and `make assets` (KaTeX in web/frontend/node_modules)")
def test_katex_sets_display_math_in_display_mode_and_inline_math_inline(tmp_path):
    """What the pages' script (src/math.mjs) does with each math element of every statement."""
    elements = [element for spec, lang in STATEMENTS for element in math_elements(render_markdown(spec.statement(lang)))]
    script = tmp_path / "typeset.mjs"
    script.write_text(f"""
import {{ readFileSync }} from "node:fs";
import {{ typesetMath }} from {json.dumps((FRONTEND / "src" / "math.mjs").as_uri())};
const elements = JSON.parse(readFileSync(0, "utf8")).map(([kind, tex]) => ({{
  textContent: tex, innerHTML: "", dataset: {{}}, classList: {{ contains: (name) => ["math", kind].includes(name) }},
}}));
typesetMath({{ querySelectorAll: (selector) => (selector === ".math" ? elements : []) }});
console.log(JSON.stringify(elements.map((e) => [e.innerHTML.includes('class="katex-display"'),
                                                e.innerHTML.includes('class="katex-error"')])));
""")
    answer = subprocess.run(["node", str(script)], input=json.dumps([[kind, tex] for _, kind, tex in elements]),
                            capture_output=True, text=True, timeout=60, check=True)
    typeset = json.loads(answer.stdout)
    assert [display for display, _ in typeset] == [kind != "inline" for _, kind, _ in elements]
    assert not [tex for (_, _, tex), (_, error) in zip(elements, typeset) if error], "TeX that KaTeX cannot set"


# --- Chinese line breaks -----------------------------------------------------------------------------

@pytest.mark.parametrize("last, next_, joined", [
    ("字", "字", True), ("。", "每", True), ("，", "（", True), ("ｶ", "ﾅ", True),  # wide, fullwidth, halfwidth
    ("个", "t", False), ("n", "中", False), ("a", "b", False), ("。", " ", False),
    ("한", "글", False), ("字", "한", False),  # Korean writes spaces between words
    ("a", "\u200b", True), ("\u200b", "b", True),
])
def test_a_line_break_is_dropped_between_two_cjk_characters_only(last, next_, joined):
    assert joins_without_space(last, next_) is joined


@pytest.mark.parametrize("source, expected", [
    ("第一行\n第二行", "<p>第一行第二行</p>"),
    ("长尾。\n每个引擎", "<p>长尾。每个引擎</p>"),
    ("下一个\ntoken 是", "<p>下一个\ntoken 是</p>"),
    ("a token\n是", "<p>a token\n是</p>"),
    ("English\nwords", "<p>English\nwords</p>"),
    ("**温度**\n是", "<p><strong>温度</strong>是</p>"),  # past the emphasis, to the text
    ("用 `x`\n计算", "<p>用 <code>x</code>\n计算</p>"),  # the nearest text ends in a space
    ("一\n二\n三", "<p>一二三</p>"),
    ("한국어\n문장", "<p>한국어\n문장</p>"),
])
def test_chinese_paragraphs_keep_no_space_at_line_breaks(source, expected):
    assert render_markdown(source).strip() == expected


@pytest.mark.parametrize("spec", load_all(), ids=lambda spec: str(spec.number))
def test_no_statement_breaks_a_line_between_two_chinese_characters(spec):
    source = spec.statement("zh")
    assert not re.search(f"{WIDE}\n{WIDE}", PRE.sub("", render_markdown(source)))


def test_some_statement_has_wrapped_chinese_lines_for_the_rule_to_join():
    """Statements may be written with or without hard wraps; at least one wraps, so the rule above is exercised."""
    assert any(re.search(f"{WIDE}\n *{WIDE}", spec.statement("zh")) for spec in load_all())


@pytest.mark.parametrize("spec", load_all(), ids=lambda spec: str(spec.number))
def test_english_statements_are_untouched_by_the_chinese_rule(spec):
    def markdown(*plugins) -> str:
        md = MarkdownIt("commonmark", {"html": False}).enable("table")
        for plugin in plugins:
            md.use(plugin)
        return md.render(spec.statement("en"))

    assert markdown(cjk_breaks_plugin) == markdown()


@pytest.mark.parametrize("lang, names", [("en", ["Table 1 of the statement", "Table 2 of the statement"]),
                                         ("zh", ["题目中的表格 1", "题目中的表格 2"])])
def test_each_statement_table_scrolls_in_a_named_box_keyboard_users_can_reach(lang, names):
    """On a phone a statement's table scrolls by itself; its box is focusable and named in the
    page's language, each name its own (two landmarks may not share one)."""
    rendered = render_markdown("| a | b |\n|---|---|\n| 1 | 2 |\n\ntext\n\n| c |\n|---|\n| 3 |\n", lang)
    boxes = re.findall(r'<div class="table-scroll" role="region" aria-label="([^"]+)" tabindex="0"><table>.*?'
                       r"</table></div>", rendered, re.DOTALL)
    assert boxes == names
