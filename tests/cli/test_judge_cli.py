"""practice/judge.py: the commands a learner and a maintainer type, their output and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from judge import cli

JUDGE = [sys.executable, "practice/judge.py"]


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_list_shows_number_slug_title_difficulty_and_where_it_runs(capsys):
    code, out, _ = run_cli(capsys, "list")
    assert code == 0
    assert "039" in out and "sampling" in out and "medium" in out and "browser" in out
    code, out, _ = run_cli(capsys, "list", "--lang", "zh")
    assert "温度" in out


@pytest.mark.parametrize("lang, phrase", [("en", "## Contract"), ("zh", "温度")])
def test_show_prints_the_statement(capsys, lang, phrase):
    code, out, _ = run_cli(capsys, "show", "039", "--lang", lang)
    assert code == 0 and phrase in out and "sampling_probs" in out


def test_unknown_exercise_is_a_usage_error(capsys):
    code, _, err = run_cli(capsys, "show", "77")
    assert code == 2 and "no exercise '77'" in err and "39 (sampling)" in err


def test_start_copies_the_starter_and_never_overwrites(capsys, tmp_path, monkeypatch, exercise39):
    monkeypatch.setattr(cli, "WORKSPACE", tmp_path)
    code, out, _ = run_cli(capsys, "start", "sampling")
    target = tmp_path / "039-sampling.py"
    assert code == 0 and target.read_text() == exercise39.starter_path.read_text()
    target.write_text("# my work\n")
    code, out, _ = run_cli(capsys, "start", "39")
    assert code == 0 and "already exists" in out and target.read_text() == "# my work\n"


def test_test_without_a_workspace_file_says_how_to_start(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(cli, "WORKSPACE", tmp_path)
    code, _, err = run_cli(capsys, "test", "39")
    assert code == 2 and "practice/judge.py start 39" in err


def test_test_json_is_one_report_object_and_exit_code_follows_the_verdict(project_root):
    ok = subprocess.run(JUDGE + ["test", "39", "solutions/039-sampling/reference.py", "--seed", "7", "--json"],
                        cwd=project_root, capture_output=True, text=True, timeout=300)
    report = json.loads(ok.stdout)
    assert ok.returncode == 0 and report["verdict"] == "AC" and report["seed"] == 7
    assert {"public", "hidden"} == set(report["suites"])
    wrong = subprocess.run(JUDGE + ["test", "39", "solutions/039-sampling/wrong/min_p_absolute.py", "--public-only",
                                    "--json", "--seed", "7"],
                           cwd=project_root, capture_output=True, text=True, timeout=300)
    report = json.loads(wrong.stdout)
    assert wrong.returncode == 1 and report["verdict"] == "WA" and report["suites"] == ["public"]


def test_test_prints_a_banner_cases_and_the_diagnosis(capsys):
    code, out, _ = run_cli(capsys, "test", "39", "solutions/039-sampling/wrong/top_k_plus_one.py", "--seed", "3")
    assert code == 1
    assert "WA" in out and "Wrong answer" in out and "cases passed" in out
    assert "top-k keeps one token too many" in out
    assert "--seed 3" in out
    code, out, _ = run_cli(capsys, "test", "39", "solutions/039-sampling/wrong/top_k_plus_one.py", "--seed", "3",
                           "--lang", "zh")
    assert "答案错误" in out and "top-k 多保留了一个 token" in out


def test_cuda_request_without_cuda_is_a_clear_error(capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    code, _, err = run_cli(capsys, "test", "39", "solutions/039-sampling/reference.py", "--device", "cuda")
    assert code == 2 and "no CUDA device" in err


def _needs_cuda():
    import torch

    if not torch.cuda.is_available():
        pytest.skip("no CUDA device here")


def test_on_cuda_the_reference_passes_and_a_mistake_is_named(capsys):
    _needs_cuda()
    code, out, _ = run_cli(capsys, "test", "39", "solutions/039-sampling/reference.py", "--device", "cuda",
                           "--seed", "5", "--json")
    report = json.loads(out)
    assert code == 0 and report["verdict"] == "AC" and report["device"] == "cuda", report["message"]
    assert {case["sandbox"] for case in report["cases"] if case["suite"] != "judge"} == {"local"}
    code, out, _ = run_cli(capsys, "test", "39", "solutions/039-sampling/wrong/top_k_plus_one.py", "--device",
                           "cuda", "--seed", "5", "--json")
    report = json.loads(out)
    assert code == 1 and report["verdict"] == "WA" and "top-k keeps one token too many" in report["diagnosis"]


def test_on_cuda_outputs_left_on_the_cpu_are_a_wrong_answer(capsys, tmp_path):
    _needs_cuda()
    source = Path("solutions/039-sampling/reference.py").read_text() + """

_reference_probs, _reference_sample = sampling_probs, sample


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
    return _reference_probs(logits, temperature, top_k, top_p, min_p).cpu()


def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
    return _reference_sample(logits, num_samples, temperature, top_k, top_p, min_p, generator).cpu()
"""
    path = tmp_path / "cpu_outputs.py"
    path.write_text(source)
    code, out, _ = run_cli(capsys, "test", "39", str(path), "--device", "cuda", "--public-only", "--json")
    report = json.loads(out)
    assert code == 1 and report["verdict"] == "WA" and "must stay on the input's device" in report["message"]


def test_solution_prints_reference_and_explanation(capsys):
    code, out, _ = run_cli(capsys, "solution", "39")
    assert code == 0 and "def sample(" in out and "multinomial" in out
    code, out, _ = run_cli(capsys, "solution", "39", "--lang", "zh")
    assert code == 0 and "def sample(" in out


def test_doctor_reports_python_torch_cuda_and_exercises(capsys):
    code, out, _ = run_cli(capsys, "doctor")
    assert code == 0
    for fragment in ("Python", "torch", "CUDA", "Learner process", "starts and imports torch", "sampling"):
        assert fragment in out
