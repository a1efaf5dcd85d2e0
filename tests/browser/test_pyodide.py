"""The browser variants in real Pyodide (Node.js, the same files and steps as the page).

``practice/judge.py test N FILE --browser`` runs this way too; tests/exercises/ runs the same
Python under CPython, and test_site.py runs it in Chromium.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from judge.browser.node import PYODIDE_DIR, run_many_in_node
from judge.browser.catalogue import outcome, problems, solutions, solutions_in
from judge.exercise import load_all

from browser_support import (CAUGHT_BY_39, CORRECT_39, ENDLESS, NOT_AVAILABLE, NOT_AVAILABLE_ZH, UNAVAILABLE_39,
                             UNAVAILABLE_IN_PYODIDE_39, WRONG_39, unavailable)

WITH_BROWSER = [e for e in load_all() if e.browser is not None]


@pytest.fixture(scope="module", autouse=True)
def pyodide_files():
    import shutil

    if shutil.which("node") is None:
        unavailable("no Node.js")
    if not (PYODIDE_DIR / "pyodide.mjs").is_file():
        unavailable(f"the Pyodide files are not built ({PYODIDE_DIR}): run `make assets`")


@pytest.mark.parametrize("exercise", WITH_BROWSER, ids=lambda e: e.folder)
def test_every_browser_variant_in_pyodide(exercise):
    catalogue = solutions(exercise)
    reports = run_many_in_node(exercise, [source for _, source, _ in catalogue], seed=12)
    assert reports[0]["sandbox"] == "browser"
    outcomes = [outcome(exercise, name, expected, report) for (name, _, expected), report in zip(catalogue, reports)]
    assert problems(exercise, outcomes) == []


def test_browser_only_catalogue_and_missing_operations_in_pyodide(exercise39):
    """Exercise 39's browser-only mistakes are caught (extreme uniforms from the subset's own phase),
    samplers in other styles pass, and an operation the subset lacks reads "not available" (SK)."""
    catalogue = solutions_in(WRONG_39) + solutions_in(CORRECT_39)
    missing = list(UNAVAILABLE_39.values()) + list(UNAVAILABLE_IN_PYODIDE_39.values())
    reports = run_many_in_node(exercise39, [source for _, source, _ in catalogue] + [s for s, _ in missing], seed=23)
    assert len(reports) == len(catalogue) + len(missing)
    outcomes = [outcome(exercise39, name, expected, report)
                for (name, _, expected), report in zip(catalogue, reports)]
    assert problems(exercise39, outcomes) == []
    assert {o["name"]: o["caught_by"] for o in outcomes if o["expected_diagnosis"]} == CAUGHT_BY_39
    for (_, operation), report in zip(missing, reports[len(catalogue):]):
        assert report["verdict"] == "SK" and f"{operation} is {NOT_AVAILABLE}" in report["message"]
        assert report["diagnosis_zh"].startswith(f"{operation} {NOT_AVAILABLE_ZH}")


def test_cli_browser_run_reports_like_test_and_stops_endless_code(tmp_path, project_root):
    endless = tmp_path / "endless.py"
    endless.write_text(ENDLESS)
    done = subprocess.run([sys.executable, "practice/judge.py", "test", "39", str(endless), "--browser", "--json"],
                          cwd=project_root, capture_output=True, text=True, timeout=300)
    report = json.loads(done.stdout)
    assert done.returncode == 1 and report["verdict"] == "TLE" and "was stopped" in report["message"]
    reference = subprocess.run([sys.executable, "practice/judge.py", "test", "39", "solutions/039-sampling/reference.py",
                                "--browser", "--lang", "zh"], cwd=project_root, capture_output=True, text=True,
                               timeout=300)
    assert reference.returncode == 0 and "通过" in reference.stdout and "小规模" in reference.stdout
