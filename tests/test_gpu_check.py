"""The GPU check (scripts/gpu_check.py, scripts/gpu_check.sh, ``make gpu-check``): the one command to
run the day a GPU is lent.

Without CUDA it must skip at once and start nothing; its plan must name every exercise with its
reference and three known-wrong solutions of its catalogue; the dry run (``--device cpu`` in place of
cuda) must judge them with the right verdicts; and the table must say FAIL when the devices disagree,
a reference fails, a wrong solution passes or a run gives no report.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import ci_gate
import pytest

from judge.authoring.catalogue import normalized_diagnosis, parse_wrong_solution
from judge.exercises.exercise import load_all

ROOT = Path(__file__).resolve().parent.parent


def _load_tool():
    spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "scripts" / "gpu_check.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["gpu_check"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


tool = _load_tool()


def test_without_cuda_the_command_prints_the_skip_line_and_exits_0_having_written_nothing(tmp_path):
    out = tmp_path / "out"
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHON": sys.executable}
    result = subprocess.run(
        ["sh", str(ROOT / "scripts" / "gpu_check.sh"), "--out", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "no CUDA device: GPU check skipped\n", "")
    assert not out.exists()


def test_without_cuda_nothing_is_planned_or_started(monkeypatch, capsys, tmp_path):
    def tripwire(*args, **kwargs):
        raise AssertionError("the check started something without CUDA")

    monkeypatch.setattr(tool, "cuda_available", lambda: False)
    monkeypatch.setattr(tool, "make_plan", tripwire)
    monkeypatch.setattr(tool, "_run_command", tripwire)
    monkeypatch.setattr(tool, "check", tripwire)
    assert tool.main(["--out", str(tmp_path / "out")]) == 0
    assert capsys.readouterr().out == "no CUDA device: GPU check skipped\n"
    assert not (tmp_path / "out").exists()


def test_the_plan_names_every_exercise_with_its_reference_and_three_wrong_solutions_of_its_catalogue():
    plan = tool.make_plan()
    exercises = load_all()
    assert [p.folder for p in plan] == [e.folder for e in exercises]
    for exercise, planned in zip(exercises, plan, strict=True):
        assert planned.number == exercise.number
        assert planned.reference == exercise.reference_path and planned.reference.is_file()
        assert len(planned.wrong) == 3 and len(set(planned.wrong)) == 3, planned
        assert set(planned.wrong) <= set(exercise.wrong_solution_files()), planned
        diagnoses = {normalized_diagnosis(parse_wrong_solution(path).diagnosis) for path in planned.wrong}
        assert len(diagnoses) == 3, (planned.folder, diagnoses)  # three different mistakes
    assert tool.make_plan() == plan  # deterministic


def test_an_exercise_judged_on_the_cpu_only_is_left_out_of_the_cuda_runs_and_said_so():
    both = tool.ExercisePlan("001-coin", 1, Path("r.py"), (), ("cpu", "cuda"))
    cpu_only = tool.ExercisePlan("002-die", 2, Path("r.py"), (), ("cpu",))
    assert tool.judged_on([both, cpu_only], "cuda") == (
        [both],
        ["002-die: judged on cpu only (exercise.toml), left out"],
    )
    assert tool.judged_on([both, cpu_only], "cuda:1")[0] == [both]
    assert tool.judged_on([both, cpu_only], "cpu") == ([both, cpu_only], [])


def test_the_wrong_solutions_chosen_are_a_generator_one_a_precision_one_and_the_middle_of_the_others():
    catalogue = [
        ("zeta", "the rows share the same random numbers"),
        ("beta_float32", "the table is built in float32"),
        ("alpha_generator", "with a generator given, the code still draws from torch's default generator"),
        ("gamma", "the sides are swapped"),
        ("delta", "the rows share the same random numbers"),  # the same mistake as zeta: only delta counts
        ("epsilon", "top-k keeps one token too many"),
        ("eta", "the temperature has no effect"),
    ]
    # Distinct others by name: delta, epsilon, eta, gamma; the middle one is eta.
    assert tool.choose_wrong(catalogue) == ["alpha_generator", "beta_float32", "eta"]
    assert tool.choose_wrong(list(reversed(catalogue))) == ["alpha_generator", "beta_float32", "eta"]
    # No generator or precision mistake: the middle other, then the rest spread evenly by name.
    plain = [(name, diagnosis) for name, diagnosis in catalogue if name not in ("alpha_generator", "beta_float32")]
    assert tool.choose_wrong(plain) == ["eta", "delta", "epsilon"]
    # Fewer distinct mistakes than three: a repeated diagnosis fills the place; fewer files, fewer chosen.
    assert tool.choose_wrong([("a", "same"), ("b", "same."), ("c", "other")]) == ["c", "a", "b"]
    assert tool.choose_wrong([("only", "one mistake")]) == ["only"]


def test_the_dry_run_on_exercise_1_accepts_the_reference_and_rejects_the_three_wrong_solutions(tmp_path):
    out = tmp_path / "out"
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gpu_check.py"), "--dry-run", "1", "--no-tests", "--jobs", "2"]
        + ["--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    record = json.loads((out / "gpu-check.json").read_text(encoding="utf-8"))
    assert (record["result"], record["dry_run"], record["problems"]) == ("PASS", True, [])
    (row,) = record["exercises"]
    (planned,) = tool.make_plan(["1"])
    assert [solution["solution"] for solution in row["solutions"]] == [name for name, _ in planned.solutions()]
    for solution, (_, path) in zip(row["solutions"], planned.solutions(), strict=True):
        test, baseline = solution["test"], solution["baseline"]
        assert test["source"] == baseline["source"] == str(path.relative_to(ROOT))
        sides = (test["device"], test["role"], baseline["device"], baseline["role"])
        assert sides == ("cpu", "test", "cpu", "baseline")
        assert test["verdict"] == baseline["verdict"], solution
        assert (test["verdict"] == "AC") == (solution["solution"] == "reference"), solution
        assert test["time_ms"] > 0 and baseline["time_ms"] > 0
    # One line for the exercise, its verdicts as the JSON has them, and the result.
    line = next(line for line in result.stdout.splitlines() if line.startswith("001-weighted-coin"))
    for solution in row["solutions"]:
        pair = f"{solution['test']['verdict']}/{solution['baseline']['verdict']}"
        assert f"{solution['solution']} {pair}" in line
    assert line.endswith("ok") and "PASS: 1 exercise, 8 runs" in result.stdout
    assert (out / "gpu-check.txt").read_text(encoding="utf-8").splitlines() == result.stdout.splitlines()[1:]


# The table, from made-up runs.

PLAN = [tool.ExercisePlan("001-coin", 1, Path("reference.py"), (Path("w1.py"), Path("w2.patch"), Path("w3.py")))]


def _runs(**changes: tuple[str, str]) -> list:
    """Every run of PLAN as a correct judge gives it on both devices; ``changes`` replaces the
    verdict of (solution_role) with (verdict, problem)."""
    runs = []
    for solution in ("reference", "w1", "w2", "w3"):
        for role, device in (("test", "cuda"), ("baseline", "cpu")):
            verdict = "AC" if solution == "reference" else "WA"
            problem = ""
            if f"{solution}_{role}" in changes:
                verdict, problem = changes[f"{solution}_{role}"]
            runs.append(tool.RunResult("001-coin", solution, role, device, verdict, None, 1500.0, 3.0, problem))
    return runs


def test_runs_that_agree_and_behave_pass():
    summary = tool.summarize(PLAN, _runs())
    assert (summary.result, summary.problems) == ("PASS", [])
    table = tool.format_table(summary, test_label="cuda", baseline_label="cpu")
    assert re.fullmatch(
        r"001-coin  reference AC/AC  w1 WA/WA  w2 WA/WA  w3 WA/WA  reference 1\.5 s/1\.5 s x1\.00  ok", table[1]
    )


@pytest.mark.parametrize(
    "changes, problem",
    [
        ({"w2_baseline": ("RE", "")}, "001-coin w2: the verdicts differ: WA on cuda, RE on cpu"),
        ({"reference_test": ("WA", ""), "reference_baseline": ("WA", "")}, "001-coin reference: the reference got WA"),
        ({"w1_test": ("AC", ""), "w1_baseline": ("AC", "")}, "001-coin w1: a known-wrong solution was accepted"),
        ({"w3_test": ("TIMEOUT", "stopped after 150 s")}, "001-coin w3: no report on test (stopped after 150 s)"),
        ({"w3_test": ("WA", "judged on cpu, not cuda")}, "001-coin w3: no report on test (WA: judged on cpu"),
    ],
    ids=["devices-disagree", "reference-fails", "wrong-passes", "timeout", "other-device"],
)
def test_each_failure_of_the_devices_turns_the_result_fail(changes, problem):
    summary = tool.summarize(PLAN, _runs(**changes))
    assert summary.result == "FAIL"
    assert [p for p in summary.problems if p.startswith(problem)] == summary.problems, summary.problems
    table = tool.format_table(summary, test_label="cuda", baseline_label="cpu")
    assert table[1].endswith("FAIL")


def test_a_missing_run_fails_the_check():
    runs = [run for run in _runs() if (run.solution, run.role) != ("w1", "baseline")]
    assert tool.summarize(PLAN, runs).problems == ["001-coin w1: no report on baseline (no run)"]


JUNIT = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="3">
<testcase classname="tests.a" name="test_on_cuda_one"/>
<testcase classname="tests.a" name="test_on_cuda_two">
  <skipped type="pytest.skip" message="needs a CUDA device"/></testcase>
<testcase classname="tests.b" name="test_cuda_three">{three}</testcase>
</testsuite></testsuites>"""


def test_the_cuda_tests_fail_the_check_on_a_failure_and_on_a_gpu_on_a_skip_for_want_of_one():
    passing = tool.TestsResult(["tests/a.py"], status=0)
    tool.read_junit(JUNIT.format(three=""), passing)
    skipped = {"tests.a::test_on_cuda_two": "needs a CUDA device"}
    assert (passing.passed, passing.failed, passing.skipped) == (2, [], skipped)
    assert tool.tests_problems(passing, on_gpu=False) == []  # a dry run: no CUDA, the skip is expected
    assert tool.tests_problems(passing, on_gpu=True) == [
        "CUDA tests: tests.a::test_on_cuda_two skipped on a machine with CUDA (needs a CUDA device)"
    ]
    failing = tool.TestsResult(["tests/a.py"], status=1)
    tool.read_junit(JUNIT.format(three='<failure message="assert 1 == 2"/>'), failing)
    assert tool.tests_problems(failing, on_gpu=False) == ["CUDA tests: tests.b::test_cuda_three failed"]
    assert tool.summarize(PLAN, _runs(), failing).result == "FAIL"


def test_every_test_that_skips_without_cuda_has_cuda_in_its_name_so_the_check_selects_it():
    """The check runs ``pytest -k cuda`` over the files that mention CUDA: a CUDA test named otherwise
    would never run there."""
    # The skip reasons CI allows for want of a GPU (tests/ci_gate.py), and the helper that skips with one.
    (reasons,) = [pattern.strip("^$") for pattern in ci_gate.ALLOWED_SKIPS if "CUDA" in pattern]
    needs_cuda = re.compile(rf"{reasons}|_needs_cuda\(\)")
    files = set(tool.cuda_test_files())
    found, missed = [], []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        if path == Path(__file__).resolve():
            continue  # this file's tests are about the check (and quote the skip reasons), on any machine
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                if needs_cuda.search("\n".join(lines[first - 1 : node.end_lineno])):
                    found.append(node.name)
                    if "cuda" not in node.name.lower() or path not in files:
                        missed.append(f"{path.relative_to(ROOT)}::{node.name}")
    assert {"test_on_cuda_the_reference_passes_and_a_mistake_is_named", "test_the_contract_holds_on_cuda"} <= set(found)
    assert missed == []
