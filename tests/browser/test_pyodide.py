"""The browser variants in real Pyodide (Node.js, the same files and steps as the page).

``practice/judge.py test N FILE --browser`` runs this way too; tests/exercises/ runs the same
Python under CPython, and test_site.py runs it in Chromium.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys

import pytest
from browser_support import (
    CAUGHT_BY_39,
    CORRECT_39,
    ENDLESS,
    NOT_AVAILABLE,
    NOT_AVAILABLE_ZH,
    UNAVAILABLE_39,
    UNAVAILABLE_IN_PYODIDE_39,
    WRONG_39,
    unavailable,
)

from judge.browser.catalogue import outcome, problems, solutions, solutions_in
from judge.browser.node import PYODIDE_DIR, run_many_in_node
from judge.exercises.exercise import load_all

WITH_BROWSER = [e for e in load_all() if e.browser is not None]


@pytest.fixture(scope="module", autouse=True)
def pyodide_files():
    import shutil

    if shutil.which("node") is None:
        unavailable("no Node.js")
    if not (PYODIDE_DIR / "pyodide.mjs").is_file():
        unavailable(f"the Pyodide files are not built ({PYODIDE_DIR}): run `make assets`")


def tagged(index: int, name: str, source: str) -> str:
    """``source`` printing ``<<index:name>>`` as its first statement (after its docstring and
    ``__future__`` imports), so that the report of a run shows which file it judged."""
    tree = ast.parse(source)
    head = 0
    for number, node in enumerate(tree.body):
        future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        docstring = number == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if not (future or docstring):
            break
        head = node.end_lineno or head
    lines = source.splitlines(keepends=True)
    return "".join(lines[:head]) + f"print({f'<<{index}:{name}>>'!r})\n" + "".join(lines[head:])


def run_each_in_node(exercise, named_sources: list[tuple[str, str]], seed: int) -> list[dict]:
    """One report per (name, source), in order, each proven to be the report of its own file: the
    file printed its tag (:func:`tagged`) and no other file's. A file that did not load has no
    output in its report (the browser keeps none), so there only its own checks tell it apart."""
    sources = [tagged(index, name, source) for index, (name, source) in enumerate(named_sources)]
    reports = run_many_in_node(exercise, sources, seed=seed)
    assert len(reports) == len(named_sources), f"{len(reports)} reports for {len(named_sources)} files"
    for index, ((name, _), report) in enumerate(zip(named_sources, reports, strict=True)):
        tags = [line for line in report["output"].splitlines() if line.startswith("<<") and line.endswith(">>")]
        not_loaded = bool(report["cases"]) and all("did not load" in c["message"] for c in report["cases"])
        assert tags == ([] if not_loaded else [f"<<{index}:{name}>>"]), \
            f"the report for {name} ({report['verdict']}) printed {tags}"
    return reports


def test_tagged_sources_print_their_tag_first_and_run_as_written():
    source = '"""Doc."""\nfrom __future__ import annotations\n\nimport torch\n'
    assert tagged(3, "x", source) == ('"""Doc."""\nfrom __future__ import annotations\n'
                                      "print('<<3:x>>')\n\nimport torch\n")
    assert tagged(0, "reference", "import torch\n") == "print('<<0:reference>>')\nimport torch\n"


@pytest.mark.parametrize("exercise", WITH_BROWSER, ids=lambda e: e.folder)
def test_every_browser_variant_in_pyodide(exercise):
    catalogue = solutions(exercise)
    reports = run_each_in_node(exercise, [(name, source) for name, source, _ in catalogue], seed=12)
    assert {report["sandbox"] for report in reports} == {"browser"}
    outcomes = [outcome(exercise, name, expected, report)
                for (name, _, expected), report in zip(catalogue, reports, strict=True)]
    assert problems(exercise, outcomes) == []


def test_browser_only_catalogue_and_missing_operations_in_pyodide(exercise39):
    """Exercise 39's browser-only mistakes are caught (extreme uniforms from the subset's own phase),
    samplers in other styles pass, and an operation the subset lacks reads "not available" (SK)."""
    catalogue = solutions_in(WRONG_39) + solutions_in(CORRECT_39)
    missing = list(UNAVAILABLE_39.values()) + list(UNAVAILABLE_IN_PYODIDE_39.values())
    reports = run_each_in_node(exercise39, [(name, source) for name, source, _ in catalogue]
                               + [(operation, source) for source, operation in missing], seed=23)
    outcomes = [outcome(exercise39, name, expected, report)
                for (name, _, expected), report in zip(catalogue, reports[:len(catalogue)], strict=True)]
    assert problems(exercise39, outcomes) == []
    assert {o["name"]: o["caught_by"] for o in outcomes if o["expected_diagnosis"]} == CAUGHT_BY_39
    for (_, operation), report in zip(missing, reports[len(catalogue):], strict=True):
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
