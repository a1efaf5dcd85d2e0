"""judge/reports/render.py: how a verdict and a statement's math look in a terminal."""

from __future__ import annotations

import pytest
from rich.console import Console

from judge.reports.render import MathMarkdown, math_to_unicode, render_report


@pytest.mark.parametrize("tex, text", [
    (r"p_i = \dfrac{e^{z_i / T}}{\sum_j e^{z_j / T}}", "pᵢ = e^(zᵢ / T) / (∑ⱼ e^(zⱼ / T))"),
    (r"\frac{1}{2} + \tfrac{a}{b}", "1/2 + a/b"),
    (r"\alpha + \beta_{10} \le \gamma^{-1}", "α + β₁₀ ≤ γ⁻¹"),
    (r"\sum_{m < j} p_{(m)} < P", "∑_(m < j) p₍ₘ₎ < P"),
    (r"z_1, \dots, z_V", "z₁, …, z_V"),  # no subscript V in Unicode
    (r"p_i \ge M \cdot \max_j p_j", "pᵢ ≥ M · maxⱼ pⱼ"),
    (r"0.3 \times 0.5793", "0.3 × 0.5793"),
    (r"(0, 1]", "(0, 1]"),
    (r"x_{i,j}^{2}", "x_(i,j)²"),
    # Macros of the statements that pylatexenc lacks: argmax is not max, and no relation vanishes.
    (r"\arg\max_x \big(\ell_{b,x} + G\big)", "argmaxₓ (ℓ_(b,x) + G)"),
    (r"T \ne 1", "T ≠ 1"),
    (r"a < b \iff b > a", "a < b ⟺ b > a"),
    (r"\left( x \right) + \operatorname{softmax}(z)", "( x ) + softmax(z)"),
    (r"a \unknownmacro b", r"a \unknownmacro b"),  # a macro nobody knows is shown, never dropped
])
def test_math_to_unicode(tex, text):
    assert math_to_unicode(tex) == text


# TeX that does not parse, each one way of breaking it: it comes back exactly as written, never a
# part of it read as math (a_{ as "a_", \frac{1} as "1", x^{2 as "x²" would hide the mistake).
BROKEN_TEX = [
    "a_{",  # a brace opened, never closed
    "x^{2",  # the same, after a superscript that would otherwise render
    "}{",  # a brace closed before it opened
    "}",
    r"\frac{1}",  # a macro missing an argument
    r"\frac",
    r"\sum_{i",
    "^",  # a script mark with nothing to apply to
    r"\alpha_",
    "$",  # a lone dollar inside the math
    "a $ b",
    r"\begin{matrix} a",  # an environment never ended
    "x + \\",  # a backslash at the end
    "\\",
]


@pytest.mark.parametrize("tex", BROKEN_TEX)
def test_broken_tex_is_returned_as_it_is(tex):
    assert math_to_unicode(tex) == tex


def test_tex_beside_the_broken_ones_is_still_rendered():
    """The positive control: each broken formula above, completed, is read as math."""
    assert math_to_unicode("a_{1}") == "a₁"
    assert math_to_unicode("x^{2}") == "x²"
    assert math_to_unicode(r"\frac{1}{2}") == "1/2"
    assert math_to_unicode(r"\sum_{i} \alpha_j") == "∑ᵢ αⱼ"
    assert math_to_unicode(r"\begin{matrix} a \end{matrix}") == "a"


def _render(renderable) -> str:
    console = Console(width=100, force_terminal=False)
    with console.capture() as capture:
        console.print(renderable)
    return "\n".join(line.rstrip() for line in capture.get().splitlines())


def test_markdown_math_inline_display_and_code():
    text = _render(MathMarkdown("Softmax: $p_i = \\frac{e^{z_i}}{Z}$.\n\n"
                                "Keep a token when\n$$\\sum_{m < j} p_{(m)} < P.$$\nholds.\n\n"
                                "$$\n\\alpha \\ge \\beta\n$$\n\n"
                                "`$HOME` and\n\n```bash\necho $x_1$\n```\n"))
    assert "Softmax: pᵢ = e^(zᵢ)/Z." in text
    assert "\n    ∑_(m < j) p₍ₘ₎ < P.\n" in text  # display math in a paragraph: a line of its own
    assert "    α ≥ β" in text  # a display block
    assert "$HOME" in text and "echo $x_1$" in text  # dollars in code are not math


TRACEBACK = ('your code raised an exception:\nTraceback (your code, most recent call last):\n'
             '  File "solution.py", line {line}, in {function}\n    raise RuntimeError("boom")\n'
             'RuntimeError: boom')


def _case(name: str, verdict: str, message: str, diagnosis: str | None = None, suite: str = "public") -> dict:
    return {"name": name, "suite": suite, "title": f"case {name}", "title_zh": f"测试点 {name}", "verdict": verdict,
            "message": message, "time_ms": 1.0, "p_value": None, "diagnosis": diagnosis, "diagnosis_zh": diagnosis}


def _report(cases: list[dict], suites: tuple[str, ...] = ("public", "hidden")) -> dict:
    failing = next(c for c in cases if c["verdict"] != "AC")
    diagnosis = next((c["diagnosis"] for c in cases if c["diagnosis"]), None)
    return {"verdict": failing["verdict"], "score": {"passed": 0, "total": len(cases)},
            "exercise": {"number": 39}, "seed": 5, "device": "cpu", "time_ms": 10.0,
            "message": f"{failing['title']}: {failing['message']}", "diagnosis": diagnosis, "diagnosis_zh": diagnosis,
            "suites": list(suites), "cases": cases, "output": "", "false_failure_budget": {"total": 1e-6}}


def _printed(report: dict, lang: str) -> str:
    console = Console(width=200, force_terminal=False)
    with console.capture() as capture:
        render_report(report, console, lang)
    return capture.get()


@pytest.mark.parametrize("lang, same", [("en", "same error as above"), ("zh", "错误同上")])
def test_each_distinct_error_is_printed_once_with_its_other_cases_under_it(lang, same):
    in_sample = TRACEBACK.format(line=7, function="sample")
    # The same exception at the same line, reached along another call: one error.
    via_helper = in_sample.replace("Traceback (your code, most recent call last):\n",
                                   'Traceback (your code, most recent call last):\n'
                                   '  File "solution.py", line 12, in helper\n    sample()\n')
    in_probs = TRACEBACK.format(line=3, function="sampling_probs")
    cases = [_case("a", "RE", in_sample), _case("b", "RE", in_probs), _case("c", "RE", in_sample),
             _case("d", "WA", "row 0: expected 1, got 0"), _case("e", "RE", via_helper, suite="hidden")]
    text = _printed(_report(cases), lang)
    details = text.split("\n\n", 1)[1]
    assert details.count("Traceback") == 2 and details.count("line 7, in sample") == 1
    prefix = "测试点" if lang == "zh" else "case"
    assert f"[RE] {prefix} c{'：' if lang == 'zh' else ': '}{same}" in details
    assert f"{prefix} e{'：' if lang == 'zh' else ': '}{same}" in details
    # Grouped: the cases with the error of line 7 come right after its traceback, then the next error.
    assert details.index(f"{prefix} c") < details.index(f"{prefix} e") < details.index("line 3, in sampling_probs")
    assert details.count(same) == 2 and "row 0: expected 1, got 0" in details


def test_the_banner_names_the_error_and_leaves_its_traceback_to_the_details():
    text = _printed(_report([_case("a", "RE", TRACEBACK.format(line=7, function="sample"))]), "en")
    banner, details = text.split("╰", 1)
    assert "case a: your code raised an exception: RuntimeError: boom" in banner and "Traceback" not in banner
    assert details.count("Traceback") == 1


def test_a_message_that_is_not_a_failing_case_stays_whole_in_the_banner():
    report = _report([_case("a", "SK", "")])
    report["verdict"], report["message"] = "CE", TRACEBACK.format(line=1, function="<module>")
    banner = _printed(report, "en").split("╰", 1)[0]
    assert "Traceback" in banner and "RuntimeError: boom" in banner


@pytest.mark.parametrize("lang, named", [("en", "Likely mistake: top-k keeps one token too many"),
                                         ("zh", "可能的错误: top-k keeps one token too many")])
def test_a_failing_public_case_names_its_known_mistake(lang, named):
    report = _report([_case("top_k", "WA", "row 0, token 2: you returned 0.14, expected 0",
                            diagnosis="top-k keeps one token too many")], suites=("public",))
    text = _printed(report, lang)
    assert text.count(named) == 2  # in the banner and under the case


def test_a_sites_learner_view_shows_the_run_id_and_hidden_rules_never_a_seed():
    """What `judge.py submit` gets back for a learner: no seed (it would replay hidden messages),
    a run id, and for a failing hidden case its rule instead of a message."""
    import io

    from rich.console import Console

    from judge.reports.render import render_report

    view = {
        "verdict": "WA", "score": {"passed": 1, "total": 2}, "exercise": {"number": 39}, "seed": None,
        "run_id": 42, "device": "cpu", "time_ms": 12.0, "message": "row 7: the draws do not follow",
        "diagnosis": None, "diagnosis_zh": None, "output": "", "false_failure_budget": {"total": 1e-6},
        "cases": [
            {"name": "softmax", "suite": "public", "title": "softmax", "title_zh": "softmax", "verdict": "AC",
             "message": "", "time_ms": 1.0, "p_value": None, "rule": "", "rule_zh": ""},
            {"name": "mixed", "suite": "hidden", "title": "mixed rows", "title_zh": "混合行", "verdict": "WA",
             "message": "", "time_ms": None, "p_value": None,
             "rule": "sample, row 7 (-inf logits): the draws do not follow the target distribution",
             "rule_zh": "sample，第 7 行（含 -inf）：抽样结果不服从目标分布"},
        ],
    }
    for lang, rule in (("en", "the draws do not follow the target distribution"), ("zh", "抽样结果不服从目标分布")):
        console = Console(file=io.StringIO(), width=200, color_system=None)
        render_report(view, console, lang)
        text = console.file.getvalue()
        assert "#42" in text and "--seed" not in text and "None" not in text
        assert rule in text


def test_show_keeps_no_space_where_a_chinese_line_is_wrapped():
    """A statement's line break between two Chinese characters prints as nothing, as on the site."""
    import io
    import re
    from pathlib import Path

    source = (Path(__file__).resolve().parents[2] / "exercises/039-sampling/statement.zh.md").read_text()
    console = Console(file=io.StringIO(), width=400, color_system=None)
    console.print(MathMarkdown(source))
    out = console.file.getvalue()
    joints = [m.group(1) + m.group(2) for m in re.finditer(r"([\u4e00-\u9fff])\n([\u4e00-\u9fff])", source)]
    assert joints, "the statement wraps no Chinese line: the test would prove nothing"
    spaced = [j for j in joints if f"{j[0]} {j[1]}" in out and j not in out]
    assert not spaced


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_brackets_from_the_exercise_or_the_learner_print_as_written(lang):
    """rich markup must never read what an exercise or a learner wrote: `[n]`, `[bold]`, `[/]`."""
    case = _case("n", "WA", "row [n]: you returned [bold]0.5[/bold], expected [/] 0.25",
                 diagnosis="a [red]mistake[/red] about x[i]")
    case["title"] = case["title_zh"] = "top-k keeps [n] tokens [bold]"
    passed = dict(_case("ok", "AC", ""), title="draws [/] stay [i]", title_zh="抽样 [/] 保持 [i]")
    report = _report([passed, case])
    report["output"] = "printed [bold]loud[/bold] and [/]\n"
    text = _printed(report, lang)
    assert "top-k keeps [n] tokens [bold]" in text  # the table and the details
    assert text.count("top-k keeps [n] tokens [bold]") >= 2
    assert "draws [/] stay [i]" in text or "抽样 [/] 保持 [i]" in text
    assert "row [n]: you returned [bold]0.5[/bold], expected [/] 0.25" in text
    assert "a [red]mistake[/red] about x[i]" in text
    assert "printed [bold]loud[/bold] and [/]" in text


def test_render_report_prints_banner_table_details_output_and_footer_in_order():
    """The steps render_report promises, each seen in what it prints: the banner (verdict, score,
    message, likely mistake), one table line per case, the failing case's details, the learner's
    output in its panel, then the false-failure bound and how to reproduce the run."""
    report = _report([_case("a", "AC", ""), _case("b", "WA", "row 0: expected 1, got 0", diagnosis="top-k off by one")])
    report["output"] = "hello from the learner\n"
    lines = [line.strip(" │╭╮╰╯─") for line in _printed(report, "en").splitlines()]
    parts = [
        "WA  Wrong answer    0/2 cases passed   exercise 39   seed 5   device cpu   time 0.01 s",
        "case b: row 0: expected 1, got 0",
        "Likely mistake: top-k off by one",
        "suite   case    result  time  p-value",
        "public  case a  AC      1 ms",
        "public  case b  WA      1 ms",
        "Details of failing cases",
        "[WA] case b",
        "row 0: expected 1, got 0",
        "Likely mistake: top-k off by one",
        "What your code printed (last lines)",
        "hello from the learner",
        "A correct solution fails this judge with probability below 1e-06.",
        "Reproduce this run with --seed 5",
    ]
    assert [line for line in lines if line in parts] == parts


# --- a failed check's figure, drawn with text bars (judge/reports/figures.py, docs/report.md) ---------------


def _figure_report(*figures_of_checks: dict | None, suite: str = "public") -> dict:
    case = _case("fit", "WA", "row 0: your draws do not follow the target distribution", suite=suite)
    case["checks"] = [{"kind": "fit", "passed": False, "figure": figure} for figure in figures_of_checks]
    return _report([case])


def _drawn(report: dict, lang: str, width: int, **options) -> list[str]:
    import io

    console = Console(file=io.StringIO(), width=width, **options)
    render_report(report, console, lang)
    return console.file.getvalue().splitlines()


def _long_tail_figure() -> dict:
    from judge.reports.figures import distribution_figure

    probs = [0.3, 0.2] + [0.5 / 30] * 30 + [0.0]
    counts = [3_000, 2_000] + [167] * 30 + [0]
    counts[31] = 100  # far below its 167 (residual -5.2): a worst cell outside the 24 likeliest
    counts[32] = 9  # drawn although its target is 0
    return distribution_figure(counts, probs, outcome="token")


@pytest.mark.parametrize("lang, rest", [("en", "7 more"), ("zh", "其余 7 个")])
def test_a_failed_fit_is_drawn_as_bars_with_its_worst_cells_marked_in_sixty_columns(lang, rest):
    from rich.cells import cell_len

    from judge.reports.render import DRAWN_BAR, TARGET_BAR, WORST_MARK

    figure = _long_tail_figure()
    lines = _drawn(_figure_report(figure), lang, 60, color_system=None)
    assert all(cell_len(line) <= 60 for line in lines)
    drawn = [line for line in lines if "%" in line and (TARGET_BAR in line or DRAWN_BAR in line)]
    assert len({cell_len(line[: line.index("%")]) for line in drawn}) == 1  # the columns line up, in Chinese too
    bars = [line.strip() for line in drawn]
    assert len(bars) == len(figure["bars"]) + 1  # one line per bar, and the pooled rest
    by_id = {line.split()[1] if line.startswith(WORST_MARK) else line.split()[0]: line for line in bars}
    assert by_id["0"].split()[1:3] == ["30.0%", f"{100 * 3000 / figure['n']:.1f}%"]
    assert by_id["31"].startswith(WORST_MARK) and by_id["32"].startswith(WORST_MARK)  # the rare one, the excluded one
    assert by_id["32"].split()[2:4] == ["0.0%", f"{100 * 9 / figure['n']:.2g}%"]
    assert [line.startswith(WORST_MARK) for line in bars].count(True) == 2
    assert list(by_id)[:24] == [str(i) for i in range(24)] and list(by_id)[24:26] == ["31", "32"]
    assert rest in bars[-1] and not bars[-1].startswith(WORST_MARK)
    # Bars scaled to the largest share: the likeliest token's bars are the longest ones.
    assert max(line.count(DRAWN_BAR) for line in bars) == by_id["0"].count(DRAWN_BAR) > by_id["1"].count(DRAWN_BAR)
    assert max(line.count(TARGET_BAR) for line in bars) == by_id["0"].count(TARGET_BAR)
    legend = " ".join(lines[: next(i for i, line in enumerate(lines) if line.strip() == bars[0])])
    assert WORST_MARK in legend and TARGET_BAR in legend and DRAWN_BAR in legend  # the legend says what they mean


def test_a_figure_fits_a_narrow_terminal_and_needs_no_colour(monkeypatch):
    import re

    from rich.cells import cell_len

    from judge.reports.figures import calibration_figure
    from judge.reports.render import WORST_MARK

    monkeypatch.setenv("NO_COLOR", "1")
    calibration = calibration_figure(400, [(1.0, 150, 0.6827, 0.6827, False), (2.0, 380, 0.9545, 0.9545, True)])
    report = _figure_report(_long_tail_figure(), calibration)
    for width in (12, 24, 60):
        lines = _drawn(report, "en", width, force_terminal=True)
        assert all(cell_len(re.sub(r"\x1b\[[0-9;]*m", "", line)) <= width for line in lines)
    styled = "\n".join(_drawn(report, "en", 60, force_terminal=True))
    assert "\x1b[3" not in styled  # no colour (bold at most), and the marks still there:
    text = re.sub(r"\x1b\[[0-9;]*m", "", styled)
    assert f"{WORST_MARK} z = 1  68.3%  37.5%" in text and "  z = 2  95.5%  95.0%" in text


def test_a_figure_of_another_type_or_shape_is_left_out_and_none_is_drawn_without_one():
    from judge.reports.render import WORST_MARK

    plain_lines = _drawn(_figure_report(None), "en", 100)
    odd = _drawn(_figure_report({"type": "heatmap", "cells": []}, {"type": "distribution", "n": "x"}), "en", 100)
    assert odd == plain_lines and not any(WORST_MARK in line for line in odd)
