"""Exercise 39's browser-only catalogue and the "not available in the browser" verdict, judged as
"Run" judges them: CPython with the torch subset installed as ``torch`` (a fresh interpreter).

``wrong_solutions/039/`` holds mistakes that only the tiny variant's edge cases catch in the
browser: ties at the top-k cut, top_k above V, the shape of a default draw, log(0) in Gumbel or
exponential noise and an inverse CDF clamped to the wrong token, the last two fed extreme uniform
values by the subset's own boundary-uniform phase. ``correct_solutions/039/`` holds correct
samplers written with other torch calls (Gumbel-max, an exponential race, an inverse CDF,
torch.distributions.Categorical, binomial counts then a shuffle), which the subset must run.
test_pyodide.py judges the same files in real Pyodide.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from browser_support import CAUGHT_BY_39 as CAUGHT_BY
from browser_support import CORRECT_39 as CORRECT
from browser_support import NOT_AVAILABLE, NOT_AVAILABLE_ZH
from browser_support import UNAVAILABLE_39 as UNAVAILABLE
from browser_support import WRONG_39 as WRONG

from judge.browser.catalogue import REFERENCE, solutions_in

SEEDS = (21, 22)


@pytest.fixture(scope="module")
def outcomes(project_root) -> dict[tuple[str, int], dict]:
    done = subprocess.run([sys.executable, "-m", "judge.browser.catalogue", "39", "--only-also",
                           "--seed", str(SEEDS[0]), "--seeds", str(len(SEEDS)), "--also", str(WRONG), "--also", str(CORRECT)],
                          cwd=project_root, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    found = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return {(o["name"], o["seed"]): o for o in found}


def test_the_folders_hold_what_the_tests_expect():
    wrong = {name for name, _, diagnosis in solutions_in(WRONG) if diagnosis is not None}
    assert wrong == set(CAUGHT_BY) == {p.stem for p in WRONG.glob("*.py")}
    assert all(diagnosis is None for _, _, diagnosis in solutions_in(CORRECT))


@pytest.mark.parametrize("name", sorted(CAUGHT_BY))
def test_the_tiny_variant_catches_each_browser_mistake_with_its_diagnosis(outcomes, name):
    for seed in SEEDS:
        result = outcomes[name, seed]
        assert result["verdict"] in ("WA", "RE"), result
        assert result["caught_by"] == CAUGHT_BY[name], result
        assert result["diagnosed"], f"{name} (seed {seed}): diagnosed {result['diagnosis']!r}"


@pytest.mark.parametrize("name", [REFERENCE] + sorted(p.stem for p in CORRECT.glob("*.py")))
def test_correct_samplers_in_other_styles_pass_in_the_browser(outcomes, name):
    for seed in SEEDS:
        result = outcomes[name, seed]
        assert result["verdict"] == "AC", result["message"]


# --- an operation the subset lacks is not the learner's error ---------------------------------------

REPORTS = '''
import json, sys
import judge.browser.torchlike as subset
subset.install()
from judge.browser.run import run_browser_variant
for source in json.loads(sys.stdin.read()):
    print(run_browser_variant("exercises/039-sampling", source, 5))
'''


@pytest.fixture(scope="module")
def unavailable_reports(project_root) -> dict[str, dict]:
    names = list(UNAVAILABLE)
    done = subprocess.run([sys.executable, "-c", REPORTS], cwd=project_root, capture_output=True, text=True,
                          timeout=600, input=json.dumps([UNAVAILABLE[n][0] for n in names]))
    assert done.returncode == 0, done.stderr[-3000:]
    reports = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(reports) == len(names), f"{len(reports)} reports for {len(names)} files"
    return dict(zip(names, reports, strict=True))


@pytest.mark.parametrize("what", list(UNAVAILABLE))
def test_an_operation_the_subset_lacks_says_submit_in_both_languages(unavailable_reports, what):
    report, operation = unavailable_reports[what], UNAVAILABLE[what][1]
    assert report["verdict"] == "SK", report["message"]  # never RE: the code did nothing wrong
    assert f"{operation} is {NOT_AVAILABLE}" in report["message"]
    assert report["diagnosis"].startswith(f"{operation} is {NOT_AVAILABLE}")
    assert report["diagnosis_zh"].startswith(f"{operation} {NOT_AVAILABLE_ZH}")
    assert {c["verdict"] for c in report["cases"]} <= {"AC", "SK"}
    skipped = [c for c in report["cases"] if c["verdict"] == "SK" and "did not load" not in c["message"]]
    assert all(NOT_AVAILABLE_ZH in c["diagnosis_zh"] for c in skipped)


def test_a_real_mistake_still_decides_the_verdict_next_to_a_missing_operation(project_root):
    source = (UNAVAILABLE["a missing function"][0]
              .replace("probs = torch.softmax(shifted / torch.where(greedy, torch.ones_like(t), t), dim=-1)",
                       "probs = torch.softmax(shifted * torch.where(greedy, torch.ones_like(t), t), dim=-1)"))
    assert source != UNAVAILABLE["a missing function"][0]  # the mistake is really made
    done = subprocess.run([sys.executable, "-c", REPORTS], cwd=project_root, capture_output=True, text=True,
                          timeout=600, input=json.dumps([source]))
    report = json.loads(done.stdout)
    assert report["verdict"] == "WA" and "multiplied by the temperature" in report["diagnosis"]
    assert any(c["verdict"] == "SK" and NOT_AVAILABLE in c["message"] for c in report["cases"])
