"""One home per fact: verdict names live in judge.verdicts, the first failing case in judge.reports.report."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.exercises.folders import PROJECT_ROOT
from judge.reports.report import CaseResult, Report, first_failure, is_failure
from judge.verdicts import Verdict

SOURCES = [PROJECT_ROOT / "judge", PROJECT_ROOT / "web", PROJECT_ROOT / "practice"]
SUFFIXES = {".py", ".html", ".js", ".mjs", ".toml"}
SKIPPED_PARTS = {"node_modules", "build", "__pycache__", "static"}


def _source_files() -> list[Path]:
    files = []
    for root in SOURCES:
        for path in root.rglob("*"):
            if path.suffix in SUFFIXES and path.is_file() and not SKIPPED_PARTS & set(path.relative_to(root).parts):
                files.append(path)
    return files


@pytest.mark.parametrize("name", [v.title_en for v in Verdict] + [v.title_zh for v in Verdict])
def test_verdict_names_are_written_only_in_judge_verdicts(name):
    """The site, the CLI, the browser and the frontend read the names from judge.verdicts."""
    home = PROJECT_ROOT / "judge" / "verdicts.py"
    assert name in home.read_text(encoding="utf-8")
    quoted = [f'"{name}"', f"'{name}'", f"`{name}`", f">{name}<"]
    elsewhere = [str(p.relative_to(PROJECT_ROOT)) for p in _source_files()
                 if p != home and any(q in p.read_text(encoding="utf-8") for q in quoted)]
    assert elsewhere == [], f"{name!r} is written in {elsewhere}"


def _case(name: str, verdict: Verdict) -> CaseResult:
    return CaseResult(name, "public", name.title(), verdict)


@pytest.mark.parametrize("verdicts, plain, with_skipped", [
    ([Verdict.AC, Verdict.AC], None, None),
    ([Verdict.AC, Verdict.SK, Verdict.WA, Verdict.RE], "c", "c"),
    ([Verdict.AC, Verdict.SK, Verdict.SK], None, "b"),
    ([Verdict.TLE, Verdict.WA], "a", "a"),
    ([], None, None),
])
def test_first_failure_over_results_and_their_json(verdicts, plain, with_skipped):
    cases = [_case(chr(ord("a") + i), v) for i, v in enumerate(verdicts)]
    dicts = [c.to_json() for c in cases]
    for found, expected in ((first_failure(cases), plain), (first_failure(cases, skipped=True), with_skipped)):
        assert (found.name if found else None) == expected
    for found, expected in ((first_failure(dicts), plain), (first_failure(dicts, skipped=True), with_skipped)):
        assert (found["name"] if found else None) == expected
    report = Report(exercise={}, verdict=Verdict.AC, cases=cases, seed=1, device="cpu", sandbox="local",
                    suites=["public"], judge_version="0", false_failure_budget={})
    assert report.first_failure(skipped=True) is first_failure(cases, skipped=True)


def test_is_failure_takes_a_verdict_or_its_code():
    assert [is_failure(v) for v in Verdict] == [v not in (Verdict.AC, Verdict.SK) for v in Verdict]
    assert is_failure("WA") and not is_failure("AC") and not is_failure("SK")
