"""Show a :class:`~judge.report.Report` in a terminal with rich: banner, one line per case, details.

Used by ``practice/judge.py test`` (and by anything else that prints a verdict in a terminal).
Works on a report object or on its JSON form, so a report fetched from the web site renders
the same way.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from judge.i18n import t
from judge.report import Report
from judge.verdicts import Verdict

STYLES = {"AC": "bold green", "WA": "bold red", "TLE": "bold yellow", "MLE": "bold yellow", "RE": "bold magenta",
          "CE": "bold magenta", "IE": "bold white on red", "SK": "dim"}


def _p(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return f"{value:.3g}"


def render_report(report: Report | dict[str, Any], console: Console, lang: str = "en") -> None:
    """Print the banner, the case table, failure details, the learner's output and the seed."""
    data = report.to_json() if isinstance(report, Report) else report
    verdict = Verdict(data["verdict"])
    title = verdict.title_zh if lang == "zh" else verdict.title_en
    score = data["score"]
    exercise = data.get("exercise", {})
    banner = Text()
    banner.append(f" {verdict.value}  {title} ", style=STYLES[verdict.value])
    banner.append("   " + t("cases", lang, passed=score["passed"], total=score["total"]))
    banner.append(f"   {t('exercise', lang)} {exercise.get('number', '?')}"
                  f"   {t('seed', lang)} {data['seed']}   {t('device', lang)} {data['device']}"
                  f"   {t('time', lang)} {data['time_ms'] / 1000:.2f} s")
    parts: list[Any] = [banner]
    if data.get("message") and verdict is not Verdict.AC:
        parts.append(Text(data["message"]))
    diagnosis = data.get("diagnosis_zh" if lang == "zh" else "diagnosis")
    if diagnosis and diagnosis not in (data.get("message") or ""):
        parts.append(Text(f"{t('diagnosis', lang)}: {diagnosis}", style="bold"))
    console.print(Panel(Group(*parts), border_style=STYLES[verdict.value].split()[-1], expand=True))

    if data["cases"] and all(case["verdict"] == "SK" for case in data["cases"]):
        console.print(Text(t("none_run", lang, total=len(data["cases"])), style="dim"))
        console.print(Text(t("reproduce", lang, seed=data["seed"]), style="dim"))
        return
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for heading, justify in (("suite", "left"), ("case", "left"), ("result", "left"), ("time", "right"),
                             ("p_value", "right")):
        table.add_column(t(heading, lang), justify=justify)
    for case in data["cases"]:
        name = case.get("title_zh") if lang == "zh" else case.get("title")
        table.add_row(t(case["suite"], lang), name or case["name"],
                      Text(case["verdict"], style=STYLES.get(case["verdict"], "")),
                      f"{case['time_ms']:.0f} ms", _p(case.get("p_value")))
    console.print(table)

    failing = [c for c in data["cases"] if c["verdict"] not in ("AC", "SK") and c.get("message")]
    if failing:
        console.print()
        console.print(Text(t("details", lang), style="bold underline"))
        for case in failing:
            name = case.get("title_zh") if lang == "zh" else case.get("title")
            console.print(Text(f"[{case['verdict']}] {name}", style=STYLES.get(case["verdict"], "")))
            console.print(Text(case["message"]), highlight=False)
            diagnosis = case.get("diagnosis_zh" if lang == "zh" else "diagnosis")
            if diagnosis and diagnosis not in case["message"]:
                console.print(Text(f"  {t('diagnosis', lang)}: {diagnosis}", style="bold"))
    if data.get("output", "").strip():
        console.print()
        console.print(Panel(Text(data["output"].rstrip()), title=t("output", lang), border_style="dim"))
    console.print(Text(t("budget", lang, total=(data.get("false_failure_budget") or {}).get("total", 1e-6)),
                       style="dim"))
    if verdict is not Verdict.AC:
        console.print(Text(t("reproduce", lang, seed=data["seed"]), style="dim"))
