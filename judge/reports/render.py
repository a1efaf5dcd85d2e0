"""What the CLI shows in a terminal, with rich: a verdict, and Markdown with its math.

:func:`render_report` prints a :class:`~judge.reports.report.Report` (banner, one line per case, the
failures' details, each distinct error once). It works on a report object or on its JSON form,
so a report fetched from the web site renders the same way.

:class:`MathMarkdown` is rich's Markdown with the ``$...$`` and ``$$...$$`` math of statements
and explanations written as Unicode text (:func:`math_to_unicode`, by pylatexenc): the math is
found by markdown-it's dollarmath plugin, as the web site finds it, so dollars in code stay.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin
from pylatexenc import latex2text, latexwalker, macrospec
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, JustifyMethod, RenderResult
from rich.markdown import Markdown, MarkdownElement
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from judge.i18n import function_list, t
from judge.reports.cjk_breaks import cjk_breaks_plugin
from judge.reports.hiding import report_message
from judge.reports.report import Report, is_failure
from judge.verdicts import Verdict, ran_no_case

STYLES = {
    "AC": "bold green",
    "WA": "bold red",
    "TLE": "bold yellow",
    "MLE": "bold yellow",
    "RE": "bold magenta",
    "CE": "bold magenta",
    "IE": "bold white on red",
    "SK": "dim",
}


def _p(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return f"{value:.3g}"


def plain(text: Any, style: str = "") -> Text:
    """``text`` as rich :class:`~rich.text.Text`, never parsed as markup.

    Everything the exercise or the learner supplies (case titles, messages, rules, diagnoses,
    the learner's output) goes through here before rich renders it: a title such as
    ``top-k [n]`` or a message quoting ``[bold]`` prints as written. (A ``str`` handed to a
    table cell, a panel title or ``console.print`` would be read as rich markup, which eats
    anything in square brackets that looks like a tag.)
    """
    return Text("" if text is None else str(text), style=style)


def render_report(report: Report | dict[str, Any], console: Console, lang: str = "en") -> None:
    """Print the banner, the case table, failure details, the learner's output and the seed.

    The steps, in order: :func:`_banner` (verdict, score, headline message, likely mistake),
    :func:`_case_table` (one line per case), :func:`_print_details` (each distinct error of the
    failing cases once), :func:`_output_panel` (what the learner's code printed) and
    :func:`_footer` (the false-failure bound and how to reproduce the run).
    """
    data = report.to_json() if isinstance(report, Report) else report
    verdict = Verdict(data["verdict"])
    cases = _cases_with_messages(data, lang)
    failing = _failing_cases(cases)
    console.print(_banner(data, verdict, failing, lang))
    if ran_no_case(verdict.value, data["cases"]):
        # The banner said what to fix: no table of skipped cases, no seed to replay.
        if data.get("output", "").strip():
            console.print(_output_panel(data["output"], lang))
        return
    if data["cases"] and all(case["verdict"] == "SK" for case in data["cases"]):
        _print_none_ran(data, console, lang)
        return
    console.print(_case_table(data["cases"], lang))
    if failing:
        console.print()
        console.print(plain(t("details", lang), style="bold underline"))
        _print_details(failing, console, lang, data.get("diagnosis_zh" if lang == "zh" else "diagnosis"))
    if data.get("output", "").strip():
        console.print()
        console.print(_output_panel(data["output"], lang))
    _print_footer(data, verdict, console, lang)


def _cases_with_messages(data: dict[str, Any], lang: str) -> list[dict[str, Any]]:
    """The report's cases, each with the message to show: a hidden case seen through a site has
    no message, only its rule (which rule, which row), in ``lang``."""
    return [
        dict(c, message=c.get("message") or c.get("rule_zh" if lang == "zh" else "rule") or c.get("rule") or "")
        for c in data["cases"]
    ]


def _failing_cases(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The cases whose failure is shown in the details: failed (not AC, not skipped) with a message."""
    return [c for c in cases if is_failure(c["verdict"]) and c.get("message")]


def _run_name(data: dict[str, Any], lang: str) -> str:
    """``seed N``; a site shows learners a run id instead (the seed replays hidden messages)."""
    seed = data.get("seed")
    return f"{t('seed', lang)} {seed}" if seed is not None else t("run_id", lang, id=data.get("run_id", "?"))


def _banner(data: dict[str, Any], verdict: Verdict, failing: list[dict[str, Any]], lang: str) -> Panel:
    """The framed head: verdict and score line, the run's message and its likely mistake."""
    title = verdict.title_zh if lang == "zh" else verdict.title_en
    score = data["score"]
    exercise = data.get("exercise", {})
    line = Text()
    none_ran = ran_no_case(verdict.value, data["cases"])
    line.append(f" {verdict.value}  {title} ", style=STYLES[verdict.value])
    if not none_ran:  # "0/17 cases passed" would blame cases the code never reached
        line.append("   " + t("cases", lang, passed=score["passed"], total=score["total"]))
    line.append(f"   {t('exercise', lang)} {exercise.get('number', '?')}")
    if not none_ran:
        line.append(f"   {_run_name(data, lang)}")
    seconds = (data.get("time_ms") or 0) / 1000
    line.append(f"   {t('device', lang)} {data.get('device', '?')}   {t('time', lang)} {seconds:.2f} s")
    parts: list[Any] = [line]
    message = report_message(data, lang)
    if message and verdict is not Verdict.AC:
        # The traceback of a failing case is printed once, in the details: the banner names the error.
        shown_below = any(message.endswith(case["message"]) for case in failing)
        parts.append(plain(_headline(message) if shown_below else message))
    diagnosis = data.get("diagnosis_zh" if lang == "zh" else "diagnosis")
    if diagnosis and diagnosis not in message:
        parts.append(plain(f"{t('diagnosis', lang)}: {diagnosis}", style="bold"))
    missing = data.get("not_implemented") or []
    if missing and verdict is not Verdict.AC:
        parts.append(plain(t("not_implemented_yet", lang, functions=function_list(missing, lang)), style="bold"))
    if none_ran:
        parts.append(plain(t("no_case_ran_judge" if verdict is Verdict.IE else "no_case_ran", lang), style="bold"))
    return Panel(Group(*parts), border_style=STYLES[verdict.value].split()[-1], expand=True)


def _print_none_ran(data: dict[str, Any], console: Console, lang: str) -> None:
    """What replaces the table when every case was skipped."""
    console.print(plain(t("none_run", lang, total=len(data["cases"])), style="dim"))
    if data.get("seed") is not None:
        console.print(plain(t("reproduce", lang, seed=data["seed"]), style="dim"))


def _case_table(cases: list[dict[str, Any]], lang: str) -> Table:
    """One line per case: suite, title, verdict, time, p-value (titles as written, never markup)."""
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("suite", "left"),
        ("case", "left"),
        ("result", "left"),
        ("time", "right"),
        ("p_value", "right"),
    )
    for heading, justify in columns:
        table.add_column(t(heading, lang), justify=justify)
    for case in cases:
        table.add_row(
            plain(t(case["suite"], lang)),
            plain(_case_title(case, lang)),
            plain(case["verdict"], style=STYLES.get(case["verdict"], "")),
            plain(f"{case['time_ms']:.0f} ms" if case.get("time_ms") is not None else ""),
            plain(_p(case.get("p_value"))),
        )
    return table


def _output_panel(output: str, lang: str) -> Panel:
    """The last lines the learner's code printed, framed."""
    return Panel(plain(output.rstrip()), title=plain(t("output", lang)), border_style="dim")


def _print_footer(data: dict[str, Any], verdict: Verdict, console: Console, lang: str) -> None:
    """The false-failure bound, and for a failed run with a seed, how to reproduce it."""
    total = (data.get("false_failure_budget") or {}).get("total", 1e-6)
    console.print(plain(t("budget", lang, total=f"{total:.0e}"), style="dim"))
    if verdict is not Verdict.AC and data.get("seed") is not None:
        console.print(plain(t("reproduce", lang, seed=data["seed"]), style="dim"))


_FRAME = re.compile(r'\s*File ".*", line \d+')


def _error_key(message: str) -> str:
    """What makes two failures one error: for a traceback, its exception line and the innermost
    frame of the learner's code (cases may reach it along different calls); else the message."""
    lines = message.strip().splitlines()
    frames = [line.strip() for line in lines if _FRAME.match(line)]
    return f"{frames[-1]}\n{lines[-1]}" if frames else message.strip()


def _headline(message: str) -> str:
    """A message with a traceback cut to its first line and its exception line."""
    lines = message.strip().splitlines()
    if not any(_FRAME.match(line) for line in lines):
        return message
    return f"{lines[0]} {lines[-1]}"


def _print_details(failing: list[dict[str, Any]], console: Console, lang: str, headline: str | None) -> None:
    """Each distinct error in full once, with the other cases that hit it listed under it.
    ``headline``: the report's likely mistake (a case's other one is "also consistent with")."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for case in failing:
        groups.setdefault(_error_key(case["message"]), []).append(case)
    for first, *same in groups.values():
        console.print(plain(f"[{first['verdict']}] {_case_title(first, lang)}", style=STYLES.get(first["verdict"], "")))
        console.print(plain(first["message"]), highlight=False)
        shown = _print_diagnosis(first, None, console, lang, headline)
        _print_figures(first, console, lang)
        for case in same:
            console.print(
                plain(
                    f"[{case['verdict']}] {t('same_error', lang, case=_case_title(case, lang))}",
                    style=STYLES.get(case["verdict"], ""),
                )
            )
            _print_diagnosis(case, shown, console, lang, headline)


def _print_diagnosis(
    case: dict[str, Any], already_shown: str | None, console: Console, lang: str, headline: str | None
) -> str | None:
    """Print the case's likely mistake unless its message or the line above says it; return it. One
    that is not the report's ``headline`` is printed as secondary ("also consistent with")."""
    diagnosis = case.get("diagnosis_zh" if lang == "zh" else "diagnosis")
    if diagnosis and diagnosis not in case["message"] and diagnosis != already_shown:
        label = "diagnosis" if headline is None or diagnosis == headline else "also_consistent_with"
        console.print(plain(f"  {t(label, lang)}: {diagnosis}", style="bold"))
    return diagnosis


def _case_title(case: dict[str, Any], lang: str) -> str:
    return (case.get("title_zh") if lang == "zh" else case.get("title")) or case["name"]


# --- Figures: a failed check's counts as text bars ------------------------------------------------

WORST_MARK = "▲"  # marks a worst cell, or a z that failed: a character, so it reads without colour too
TARGET_BAR, DRAWN_BAR = "░", "█"


def _print_figures(case: dict[str, Any], console: Console, lang: str) -> None:
    """Draw under a failed case the figure each of its checks carries (docs/report.md, Figures): a
    hidden case carries none. A figure of a ``type`` this terminal does not know is left out."""
    for check in case.get("checks") or []:
        figure = check.get("figure") if isinstance(check, dict) else None
        if isinstance(figure, dict) and figure.get("type") in _FIGURE_ROWS:
            console.print(Padding(FigureView(figure, lang), (0, 0, 0, 2)))


def _percent(share: float) -> str:
    """A share as a percentage a reader can compare: one decimal, two digits below 0.1 %."""
    value = 100 * share
    return f"{value:.1f}%" if value == 0 or value >= 0.1 else f"{value:.2g}%"


def _bar(fraction: float, width: int, char: str) -> str:
    """``fraction`` (0 to 1) of ``width`` cells of ``char``, padded to ``width``; a visible share never rounds
    to an empty bar."""
    cells = round(max(0.0, min(1.0, fraction)) * width)
    if fraction > 0 and cells == 0 and width > 0:
        cells = 1
    return (char * cells).ljust(width)


def _distribution_rows(figure: dict[str, Any], lang: str) -> tuple[str, list[tuple[bool, str, float, float]]]:
    """The legend and the lines ``(worst, label, target share, drawn share)`` of a ``distribution`` figure."""
    n = int(figure["n"])
    noun = str(figure.get("outcome_zh" if lang == "zh" else "outcome") or figure.get("outcome") or "")
    if lang == "zh" and noun.isascii():
        noun = f" {noun} "  # a Latin word spaced from the characters around it
    legend = t("figure_distribution", lang, n=n, outcome=noun)
    rows = [
        (bool(bar.get("worst")), str(bar["id"]), float(bar["target"]), int(bar["observed"]) / n if n else 0.0)
        for bar in figure["bars"]
    ]
    rest = figure.get("rest")
    if rest:
        label = t("figure_rest", lang, count=int(rest["count"]))
        rows.append((False, label, float(rest["target"]), int(rest["observed"]) / n if n else 0.0))
    return legend, rows


def _calibration_rows(figure: dict[str, Any], lang: str) -> tuple[str, list[tuple[bool, str, float, float]]]:
    """The legend and the lines ``(failed, z, correct coverage, observed coverage)`` of a ``calibration`` figure."""
    n = int(figure["n"])
    legend = t("figure_calibration", lang, n=n)
    rows = [
        (not level.get("passed", True), f"z = {float(level['z']):g}", float(level["expected"]), level["covered"] / n)
        for level in figure["levels"]
    ]
    return legend, rows


_FIGURE_ROWS = {"distribution": _distribution_rows, "calibration": _calibration_rows}


class FigureView:
    """A figure of a failed check (:mod:`judge.reports.figures`) as text: its legend, then one line per bar,
    ``▲ id  target%  drawn%  ░░░░  ████``: the mark of a worst cell (or a failed z), the two shares, and
    the two bars scaled to the largest share shown (a calibration's to 100 %). The bars share what
    the console's width leaves after the numbers, and shrink to nothing rather than wrap a line; a
    figure that is not what :mod:`judge.reports.figures` makes prints nothing."""

    def __init__(self, figure: dict[str, Any], lang: str) -> None:
        self.figure, self.lang = figure, lang

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        try:
            legend, rows = _FIGURE_ROWS[self.figure["type"]](self.figure, self.lang)
        except (KeyError, TypeError, ValueError, ZeroDivisionError):  # not a figure of ours: nothing to draw
            return
        yield Text(legend, style="dim")
        if not rows:
            return
        calibration = self.figure["type"] == "calibration"
        largest = 1.0 if calibration else max(max(target, drawn) for _, _, target, drawn in rows) or 1.0
        label_width = max(cell_len(label) for _, label, _, _ in rows)  # a Chinese character takes two cells
        texts = [(_percent(target), _percent(drawn)) for _, _, target, drawn in rows]
        target_width = max(len(a) for a, _ in texts)
        drawn_width = max(len(b) for _, b in texts)
        fixed = 2 + label_width + 2 + target_width + 2 + drawn_width + 2
        bar_width = max(0, (options.max_width - fixed - 1) // 2)
        for (worst, label, target, drawn), (target_text, drawn_text) in zip(rows, texts, strict=True):
            line = Text(no_wrap=True, overflow="crop")
            line.append(WORST_MARK if worst else " ", style="bold red")
            line.append(f" {label}{' ' * (label_width - cell_len(label))}  ", style="bold" if worst else "")
            line.append(target_text.rjust(target_width) + "  " + drawn_text.rjust(drawn_width))
            if bar_width:
                line.append("  ")
                line.append(_bar(target / largest, bar_width, TARGET_BAR), style="cyan")
                line.append(" ")
                line.append(_bar(drawn / largest, bar_width, DRAWN_BAR), style="red" if worst else "green")
            yield line


# --- Math in a terminal -------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _script_forms() -> tuple[dict[str, str], dict[str, str]]:
    """Unicode's own subscript and superscript characters, by the character they stand for."""
    forms: dict[str, dict[str, str]] = {"<sub>": {}, "<super>": {}}
    for code in range(0xA0, 0x3000):  # the forms terminal fonts have (later ones, as ꟲ, seldom render)
        tag, _, base = unicodedata.decomposition(chr(code)).partition(" ")
        if tag in forms and base and " " not in base:
            forms[tag].setdefault(chr(int(base, 16)), chr(code))
    for table in forms.values():
        table.setdefault("-", table["\u2212"])  # TeX writes the minus sign as a hyphen
    return forms["<sub>"], forms["<super>"]


def _script(kind: str):
    """pylatexenc's text for ``_x`` / ``^x``: Unicode sub/superscripts when every character has
    one (``p_i`` is pᵢ), else the mark with the text, parenthesised when longer than one thing."""
    mark = "_" if kind == "sub" else "^"

    def text(node, l2tobj) -> str:  # pylatexenc passes its converter by this parameter's name
        forms = _script_forms()[0 if kind == "sub" else 1]
        inner = l2tobj.nodelist_to_text(_arguments(node)[:1]).strip()
        if inner and all(char in forms for char in inner):
            return "".join(forms[char] for char in inner)
        if len(inner) <= 1 or (inner.startswith("(") and inner.endswith(")")):
            return mark + inner
        return f"{mark}({inner})"

    return text


def _fraction(node, l2tobj) -> str:
    """``\\frac{a}{b}`` as ``a/b``, or ``(a + 1) / b`` when a side is more than one term."""
    sides = [l2tobj.nodelist_to_text([arg]).strip() for arg in _arguments(node)[:2]]
    terms = [_one_term(side) for side in sides]
    return (" / " if terms != sides else "/").join(terms)


def _arguments(node) -> list:
    """A node's parsed arguments, leaving out those missing from broken TeX."""
    return [arg for arg in (node.nodeargd.argnlist if node.nodeargd else ()) if arg is not None]


def _one_term(text: str) -> str:
    """``text`` in parentheses when it is more than one term (a space or an operator outside brackets)."""
    depth = 0
    for char in text:
        depth += char in "([{"
        depth -= char in ")]}"
        if depth == 0 and (char.isspace() or char in "+-\u2212/\u00b7\u00d7"):
            return f"({text})"
    return text


class _MathToText(latex2text.LatexNodes2Text):
    """Keeps the space written after a bare macro before another macro (``\\cdot \\max``),
    which pylatexenc drops as LaTeX does (TeX spaces operators by itself; a terminal cannot), and
    shows a macro it does not know as written (``\\foo``): dropped, ``\\arg\\max`` would read ``max``."""

    def macro_node_to_text(self, node) -> str:
        if self.latex_context.get_macro_spec(node.macroname) is None:
            return node.latex_verbatim()
        text = super().macro_node_to_text(node)
        bare = node.nodeargd is None or not any(node.nodeargd.argnlist or ())
        return text + node.macro_post_space if bare else text


# Macros the statements use that pylatexenc does not know: symbols, and sizes of delimiters or an
# operator's name, which a terminal shows as the delimiter or the name that follows.
_MORE_MACROS = {"ne": "\u2260", "iff": "\u27fa", "arg": "arg", "operatorname": ""} | {
    size: "" for size in ("left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr")
}


@lru_cache(maxsize=1)
def _latex_to_text() -> tuple[macrospec.LatexContextDb, _MathToText]:
    """The parsing context (``_``, ``^`` and fractions with arguments) and the converter."""
    fractions = ("frac", "dfrac", "tfrac")
    parsing = latexwalker.get_default_latex_context_db()
    parsing.add_context_category(
        "terminal-math",
        prepend=True,
        specials=[macrospec.SpecialsSpec(mark, args_parser=macrospec.MacroStandardArgsParser("{")) for mark in "_^"],
        macros=[macrospec.MacroSpec(name, "{{") for name in fractions],
    )
    texts = latex2text.get_default_latex_context_db()
    texts.add_context_category(
        "terminal-math",
        prepend=True,
        specials=[latex2text.SpecialsTextSpec("_", _script("sub")), latex2text.SpecialsTextSpec("^", _script("sup"))],
        macros=[latex2text.MacroTextSpec(name, _fraction) for name in fractions]
        + [latex2text.MacroTextSpec(name, text) for name, text in _MORE_MACROS.items()],
    )
    # Spaces as written (not TeX's rules): "p_i \ge p_j" keeps its spaces around the sign.
    spaces = {
        "between-macro-and-chars": False,
        "between-latex-constructs": True,
        "after-comment": False,
        "in-equations": None,
    }
    return parsing, _MathToText(latex_context=texts, math_mode="text", strict_latex_spaces=spaces)


def math_to_unicode(tex: str) -> str:
    """The TeX formula ``tex`` (what stands between the dollars) as one line of Unicode text.

    Greek letters, operators and relations become their symbols (``\\sum`` ∑, ``\\ge`` ≥),
    sub- and superscripts Unicode's small forms where they exist (pᵢ, e², else ``z_V``,
    ``e^(z/T)``), fractions ``a/b`` with parentheses where needed. TeX that does not parse is
    returned as it is.
    """
    parsing, converter = _latex_to_text()
    try:
        nodes, _, _ = latexwalker.LatexWalker(tex, latex_context=parsing, tolerant_parsing=False).get_latex_nodes()
        text = converter.nodelist_to_text(nodes)
    except latexwalker.LatexWalkerError:
        return tex
    if tex[nodes[-1].pos + nodes[-1].len if nodes else 0 :].strip():  # left unread (a backslash at the end)
        return tex
    return " ".join(text.split()) or tex


class _DisplayMath(MarkdownElement):
    """A ``$$...$$`` formula on lines of its own: one indented line."""

    new_line = True

    @classmethod
    def create(cls, markdown: Markdown, token: Token) -> _DisplayMath:
        return cls(token.content)

    def __init__(self, tex: str) -> None:
        self.text = math_to_unicode(tex)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Padding(Text(self.text), (0, 0, 0, 4))


# rich's own parser (CommonMark, strikethrough, tables) with the site's dollar math.
# The site's parser (judge.reports.cjk_breaks: no space where a Chinese line is wrapped), with math as text.
_MATH_MARKDOWN = (
    MarkdownIt()
    .enable("strikethrough")
    .enable("table")
    .use(dollarmath_plugin, double_inline=True)
    .use(cjk_breaks_plugin)
)


class MathMarkdown(Markdown):
    """rich's :class:`~rich.markdown.Markdown` with the math written as Unicode text: inline
    ``$...$`` in the line, display ``$$...$$`` on an indented line of its own."""

    elements = {**Markdown.elements, "math_block": _DisplayMath, "math_block_label": _DisplayMath}

    def __init__(self, markup: str, **options: Any) -> None:
        super().__init__("", **options)
        self.markup = markup
        self.parsed = _MATH_MARKDOWN.parse(markup)
        for block in self.parsed:
            if block.children:
                _math_as_text(block.children)


def _math_as_text(tokens: list[Token]) -> None:
    """Turn an inline block's math tokens into text; ``$$...$$`` inside a paragraph (display
    math, as the site shows it) gets an indented line of its own, in place of the breaks around it."""
    for index, token in enumerate(tokens):
        if token.type == "math_inline":
            token.type, token.content = "text", math_to_unicode(token.content)
        elif token.type == "math_inline_double":
            before = tokens[index - 1] if index > 0 else None
            after = tokens[index + 1] if index + 1 < len(tokens) else None
            for neighbour in (before, after):
                if neighbour is not None and neighbour.type == "softbreak":
                    neighbour.type, neighbour.content = "text", ""
            token.type = "text"
            token.content = ("\n" if before else "") + "    " + math_to_unicode(token.content) + ("\n" if after else "")
