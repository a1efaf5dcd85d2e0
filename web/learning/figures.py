"""The picture of a failed check, as the site shows it: which figures a case shows, the data table
each one carries, and the texts its chart is labelled with.

A report's failed check may carry a ``figure`` (``judge.reports.report.CheckRecord.figure``, documented in
``docs/report.md``): ``distribution`` (a goodness of fit: target probability against observed
frequency per outcome, the worst cells marked, the rest pooled) or ``calibration`` (the coverage of
error bars per z against its exact share). The site draws it with ``web/frontend/src/figures.js``
(one renderer, also the browser Run's) and always writes the numbers as a table (the
``submissions/_figure.html`` macro): the fallback without JavaScript, and what screen readers read.

Invariants:

- A hidden case never shows a figure, whoever looks (instructors included): the engine computes
  none there and :func:`judge.reports.hiding.visible_case` drops them; :func:`case_figures` is the pages'
  own line of that rule, so a stored report that has one anyway shows nothing of it.
- A figure of a type this module does not know, or one whose numbers do not make a table (a newer
  or a broken report), is shown as nothing, never as an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judge.reports.report import HIDDEN
from web.core.i18n import current_language, t, template

MARK = "▲"  # always with its words, never colour alone: the marker of a worst cell or a failed level


@dataclass(frozen=True)
class FigureRow:
    """One pair of bars of a figure, as its table shows it (percentages and counts as text)."""

    label: str  # the outcome's id, "z = 2", or the pooled rest
    target: str  # the target probability (or exact coverage), in percent
    observed: str  # the observed frequency (or coverage), in percent
    expected_count: str
    observed_count: str
    mark: str  # "▲ farthest off" / "▲ coverage failed", or empty


@dataclass(frozen=True)
class ShownFigure:
    """A figure as a page shows it: its JSON (for the renderer), its caption, its table."""

    figure: dict[str, Any]
    check: str  # the check's label ("row 3"), possibly empty
    title: str
    help: str
    columns: tuple[str, ...]
    rows: tuple[FigureRow, ...]


def _percent(share: float) -> str:
    return f"{100 * share:.3g}"


def _count(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"


def _outcome(figure: dict[str, Any]) -> str:
    """The noun of the outcomes in the request's language (``outcome_zh`` when the report has one)."""
    noun = str(figure.get("outcome") or "token")
    return str(figure.get("outcome_zh") or noun) if current_language() == "zh" else noun


def _distribution(figure: dict[str, Any]) -> tuple[str, str, tuple[str, ...], list[FigureRow]]:
    n, noun = int(figure["n"]), _outcome(figure)
    marked = f"{MARK} {t('figure_worst')}"
    rows = [
        FigureRow(
            label=str(bar["id"]),
            target=_percent(float(bar["target"])),
            observed=_percent(int(bar["observed"]) / n),
            expected_count=_count(float(bar["expected"])),
            observed_count=str(int(bar["observed"])),
            mark=marked if bar.get("worst") else "",
        )
        for bar in figure["bars"]
    ]
    rest = figure.get("rest")
    if rest:
        rows.append(
            FigureRow(
                label=t("figure_rest", count=int(rest["count"])),
                target=_percent(float(rest["target"])),
                observed=_percent(int(rest["observed"]) / n),
                expected_count=_count(float(rest["expected"])),
                observed_count=str(int(rest["observed"])),
                mark="",
            )
        )
    columns = (
        noun,
        f"{t('figure_target')} (%)",
        f"{t('figure_observed')} (%)",
        t("figure_expected_count"),
        t("figure_observed_count"),
        t("figure_mark"),
    )
    return (
        t("figure_distribution_title", outcome=noun, n=n),
        t("figure_distribution_help", outcome=noun),
        columns,
        rows,
    )


def _calibration(figure: dict[str, Any]) -> tuple[str, str, tuple[str, ...], list[FigureRow]]:
    n = int(figure["n"])
    marked = f"{MARK} {t('figure_missed')}"
    rows = [
        FigureRow(
            label=f"z = {float(level['z']):g}",
            target=_percent(float(level["expected"])),
            observed=_percent(int(level["covered"]) / n),
            expected_count=_count(float(level["expected"]) * n),
            observed_count=str(int(level["covered"])),
            mark="" if level.get("passed") else marked,
        )
        for level in figure["levels"]
    ]
    columns = (
        "z",
        f"{t('figure_exact_coverage')} (%)",
        f"{t('figure_observed_coverage')} (%)",
        t("figure_expected_count"),
        t("figure_observed_count"),
        t("figure_mark"),
    )
    return t("figure_calibration_title", n=n), t("figure_calibration_help"), columns, rows


_READERS = {"distribution": _distribution, "calibration": _calibration}


def shown_figure(figure: Any, check: str = "") -> ShownFigure | None:
    """``figure`` ready for a page (in the request's language), or None when it is not one this
    site can show (not a figure, an unknown type, or numbers that do not make a table)."""
    if not isinstance(figure, dict) or figure.get("type") not in _READERS:
        return None
    try:
        if int(figure["n"]) <= 0:
            return None
        title, help_text, columns, rows = _READERS[figure["type"]](figure)
    except (KeyError, TypeError, ValueError, OverflowError):
        return None
    if not rows:
        return None
    return ShownFigure(figure, check, title, help_text, columns, tuple(rows))


def case_figures(case: dict[str, Any]) -> list[ShownFigure]:
    """The figures a case of a report (its JSON form) shows: its failed checks', in order; none
    for a hidden case (see the module docstring)."""
    if case.get("suite") == HIDDEN:
        return []
    shown = []
    for check in case.get("checks") or []:
        if not isinstance(check, dict) or check.get("passed") is not False:
            continue
        found = shown_figure(check.get("figure"), str(check.get("label") or ""))
        if found is not None:
            shown.append(found)
    return shown


def figure_texts() -> dict[str, Any]:
    """The words ``figures.js`` labels a chart with, in the request's language (``{fields}`` left
    in for the script to fill): the site puts them beside each figure, the Run page in its texts."""
    return {
        "lang": current_language(),
        "mark": MARK,
        "distribution_title": template("figure_distribution_title"),
        "calibration_title": template("figure_calibration_title"),
        "distribution_help": template("figure_distribution_help"),
        "calibration_help": t("figure_calibration_help"),
        "target": t("figure_target"),
        "observed": t("figure_observed"),
        "exact_coverage": t("figure_exact_coverage"),
        "observed_coverage": t("figure_observed_coverage"),
        "expected_count": t("figure_expected_count"),
        "observed_count": t("figure_observed_count"),
        "mark_column": t("figure_mark"),
        "worst": t("figure_worst"),
        "missed": t("figure_missed"),
        "rest": template("figure_rest"),
        "percent": t("figure_percent"),
        "numbers": t("chart_numbers"),
    }
