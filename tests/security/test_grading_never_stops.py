"""The attack suite, part 2: nothing a submission does can stop grading.

A submission that dies, hangs or lies while loading must give back its sandbox slot (a slot is
a lease, returned on every path); a job that finds no slot fails alone (IE) instead of hanging
its worker; a dead fork server is replaced; a restarted learner process runs at the level of the
first, and each case says which level ran it; the judge's own kill of a process is never blamed
on the next case; and the CLI never ends in a traceback, whatever the submission sends.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys

import pytest
from attack_support import (
    FORGE,
    LEVELS,
    assert_contained,
    assert_judge_healthy,
    assert_no_leak,
    frame_body,
    grade_source,
    needs_strict,
    write_source,
)

from judge.engine.process import LearnerProcess
from judge.engine.runner import judge_file
from judge.exercises.exercise import resolve
from judge.exercises.folders import PROJECT_ROOT
from judge.verdicts import Verdict

# Starts the strict sandbox; runs in the parallel part like the rest (tests/conftest.py).
pytestmark = pytest.mark.strict_sandbox

REFERENCE = resolve("39").reference_path.read_text()
FUNCTIONS = '''

def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
    raise NotImplementedError


def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
    raise NotImplementedError
'''

# Files that never get as far as "ready": each must cost nothing but its own verdict.
LOADER_KILLERS = {
    "exits while loading": ("import os\nos._exit(0)\n", {Verdict.RE}),
    "kills itself while loading": ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", {Verdict.RE, Verdict.MLE,
                                                                                               Verdict.TLE}),
    "hangs while loading": ("import time\ntime.sleep(10**6)\n", {Verdict.TLE}),
    "spins while loading": ("while True:\n    pass\n", {Verdict.TLE}),
    "raises while loading": ("raise SystemExit('bye')\n", {Verdict.RE}),
    "forges a ready frame with wrong types": (
        FORGE + f"_forge({frame_body({'ready': {'functions': ['sample'], 'torch': 2}, 'tensors': []})!r})\n"
                "import time\ntime.sleep(10**6)\n", {Verdict.RE}),
    "forges a ready frame whose parameters are not objects": (
        FORGE + "_forge(" + repr(frame_body({"ready": {"functions": {"sample": {"params": "x", "signature": 3}},
                                                       "torch": "2"}, "tensors": []})) + ")\n"
                "import time\ntime.sleep(10**6)\n", {Verdict.RE}),
    "forges a sandbox error": (
        FORGE + f"_forge({frame_body({'sandbox_error': 'forged: the judge is broken', 'tensors': []})!r})\n"
                "import time\ntime.sleep(10**6)\n", {Verdict.RE}),
    "forges a ready frame with an unhashable dtype": (
        FORGE + "_forge(" + repr(frame_body({"ready": {"functions": {}, "torch": "2"},
                                             "tensors": [{"dtype": [], "shape": [1], "nbytes": 4}]})) + ", b'1234')\n"
                "import time\ntime.sleep(10**6)\n", {Verdict.RE}),
    "sends garbage and exits": ("import os\nfor fd in range(3, 1024):\n    try:\n        os.write(fd, b'garbage')\n"
                                "    except OSError:\n        pass\nos._exit(3)\n", {Verdict.RE}),
}


@pytest.mark.parametrize("name", list(LOADER_KILLERS))
def test_a_file_that_dies_hangs_or_lies_while_loading_gives_its_slot_back(launcher, quick_exercise, tmp_path, name):
    source, verdicts = LOADER_KILLERS[name]
    report = grade_source(launcher, quick_exercise, tmp_path, source + FUNCTIONS)
    assert report.verdict in verdicts, (report.verdict, report.message)
    assert "loading" in report.message or "imported" in report.message, report.message
    assert_contained(report, "forged: the judge is broken")
    assert_judge_healthy(launcher)


def test_many_loader_killers_in_a_row_never_exhaust_the_slots(launcher, quick_exercise, tmp_path):
    # Two would have taken both slots for good; ten in a row, then the reference.
    for index in range(10):
        source = LOADER_KILLERS["exits while loading" if index % 2 else "forges a sandbox error"][0]
        report = grade_source(launcher, quick_exercise, tmp_path, source + FUNCTIONS)
        assert report.verdict is Verdict.RE, report.message
    assert_judge_healthy(launcher)


@needs_strict
def test_a_job_that_finds_no_free_slot_fails_alone_and_the_next_one_is_graded(tmp_path):
    from judge.sandbox.strict import StrictLauncher

    exercise = resolve("39")
    one_slot = StrictLauncher(slots=1, slot_wait_s=1)
    try:
        holder = LearnerProcess(exercise.reference_path, launcher=one_slot)  # takes the only slot
        try:
            report = judge_file(exercise, exercise.reference_path, seed=1, suites=("public",), launcher=one_slot)
        finally:
            holder.close()
        assert report.verdict is Verdict.IE
        assert "no sandbox slot became free within 1 s" in report.message
        assert "not your fault; internal error" in report.message
        assert_no_leak(report)
        assert_judge_healthy(one_slot)
    finally:
        one_slot.close()


@needs_strict
def test_a_dead_fork_server_is_replaced_at_the_next_job(tmp_path):
    from judge.sandbox.strict import StrictLauncher

    own = StrictLauncher(slots=1)
    try:
        first = own.zygote.pid
        os.kill(first, signal.SIGKILL)
        own.zygote._process.wait()
        assert_judge_healthy(own)
        assert own.zygote.pid != first and own.zygote.alive
    finally:
        own.close()


@needs_strict
def test_a_layer_that_fails_is_an_internal_error_that_names_no_server_path(quick_exercise, tmp_path, monkeypatch,
                                                                          caplog):
    from judge.sandbox import strict

    broken = strict.StrictLauncher(slots=1)
    secret_path = "/nonexistent/pj-secret-scratch"
    real = strict.Confinement

    def misconfigured(**fields):
        return real(**{**fields, "scratch": secret_path})  # the tmpfs mount fails in the child

    monkeypatch.setattr(strict, "Confinement", misconfigured)
    try:
        with caplog.at_level("ERROR", logger="probjudge.runner"):
            report = judge_file(quick_exercise, quick_exercise.reference_path, seed=1, suites=("public",),
                                launcher=broken)
        assert report.verdict is Verdict.IE
        assert "could not confine" in report.message and "not your fault" in report.message
        assert_no_leak(report, secret_path)
        assert secret_path in caplog.text  # the operator's log has the detail
        assert broken.free_slots == 1
        monkeypatch.setattr(strict, "Confinement", real)
        assert_judge_healthy(broken)
    finally:
        broken.close()


# sampling_probs hangs for the first public case (temperature 1, no filter) and, when HANG_TWICE
# is set, also for the second (temperature 0.5); everything else is the reference solution.
HANG_ON_FIRST_CASES = REFERENCE + '''

import time as _time
_reference_probs = sampling_probs
HANG_TWICE = TWICE_PLACEHOLDER


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
    unfiltered = top_k == 0 and top_p == 1.0 and min_p == 0.0
    if unfiltered and (temperature == 1.0 or (HANG_TWICE and temperature == 0.5)) and logits.shape == (1, 4):
        _time.sleep(10**6)
    return _reference_probs(logits, temperature=temperature, top_k=top_k, top_p=top_p, min_p=min_p)
'''


@pytest.mark.parametrize("twice", [False, True])
def test_the_judges_own_kill_is_not_blamed_on_the_next_case(launcher, quick_exercise, tmp_path, twice):
    report = grade_source(launcher, quick_exercise, tmp_path, HANG_ON_FIRST_CASES.replace("TWICE_PLACEHOLDER", str(twice)))
    hung = 2 if twice else 1
    verdicts = [case.verdict for case in report.cases]
    assert verdicts[:hung] == [Verdict.TLE] * hung, [(c.verdict, c.message) for c in report.cases]
    # Each kill costs one restart, no more: every later case runs (MAX_RESTARTS = 2) and passes.
    assert verdicts[hung:] == [Verdict.AC] * (len(verdicts) - hung), [(c.name, c.message) for c in report.cases]
    assert all("CPU" not in case.message for case in report.cases)
    assert_judge_healthy(launcher)


# Dies in the first case; in every later one it tries to read the hidden tests and raises with
# what it found. A restart under the "local" level would read them.
DIES_THEN_READS = REFERENCE + '''

import os as _os
_reference_probs = sampling_probs


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
    if temperature == 1.0 and top_k == 0 and top_p == 1.0 and min_p == 0.0 and logits.shape == (1, 4):
        _os._exit(3)
    try:
        found = open(HIDDEN_PLACEHOLDER).read()[:300]
    except OSError as error:
        found = "blocked " + type(error).__name__
    raise RuntimeError("restarted process read: " + found)
'''


@needs_strict
def test_a_restarted_process_keeps_the_strict_level(launcher, quick_exercise, tmp_path):
    exercise = quick_exercise
    path = write_source(tmp_path, DIES_THEN_READS.replace("HIDDEN_PLACEHOLDER", repr(str(exercise.suite_path("hidden")))))
    # As the CLI does: the caller starts the first process, the runner restarts it.
    process = LearnerProcess(path, memory_limit_mb=exercise.memory_limit_mb, launcher=launcher)
    try:
        report = judge_file(exercise, path, seed=1, suites=("public",), process=process)
    finally:
        process.close()
    assert report.cases[0].verdict is Verdict.RE and "exited (status 3)" in report.cases[0].message
    later = [case for case in report.cases[1:] if case.suite == "public"]
    assert later and all("restarted process read: blocked" in case.message for case in later if case.message)
    assert_contained(report, "BudgetDeclaration", "MIXED_DRAWS")
    assert all(case.sandbox == "strict" for case in report.cases if case.suite == "public")
    assert_judge_healthy(launcher)


def _cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PROJECT_ROOT / "practice" / "judge.py"), *args], capture_output=True,
                          text=True, timeout=timeout, cwd=PROJECT_ROOT)


@needs_strict
def test_the_cli_restarts_under_strict_and_reports_it(tmp_path):
    exercise = resolve("39")
    path = write_source(tmp_path, DIES_THEN_READS.replace("HIDDEN_PLACEHOLDER", repr(str(exercise.suite_path("hidden")))))
    result = _cli("test", "39", str(path), "--public-only", "--sandbox", "strict", "--seed", "1", "--json")
    assert "Traceback (most recent call last)" not in result.stderr, result.stderr
    report = json.loads(result.stdout)
    assert report["sandbox"] == "strict"
    assert {case["sandbox"] for case in report["cases"] if case["suite"] == "public"} == {"strict"}
    assert "BudgetDeclaration" not in result.stdout and "blocked" in result.stdout


# What a submission can send on its own result pipe, at load time or as an answer. The CLI (local
# level, a fresh process per run) must print a verdict for each, never a traceback. Only the
# first learner process forges (a marker file), so restarts cost little.
CLI_FORGERIES = {
    "sandbox error at load": ("load", frame_body({"sandbox_error": "forged", "tensors": []}), b""),
    "ready with wrong types": ("load", frame_body({"ready": {"functions": ["sample"], "torch": 2}, "tensors": []}),
                               b""),
    "5 000-digit integer": ("call", b'{"ok":true,"value":' + b"9" * 5000 + b',"tensors":[]}', b""),
    "nesting 200 000 deep": ("call", b'{"ok":true,"value":' + b"[" * 200_000 + b"]" * 200_000 + b',"tensors":[]}',
                             b""),
    "a device torch cannot parse": ("call", frame_body({"ok": True, "value": {"$tensor": 0}, "tensors": [
        {"dtype": "float32", "shape": [1, 4], "nbytes": 16, "device": "quantum:-1"}]}), b"\0" * 16),
}


@pytest.mark.parametrize("name", list(CLI_FORGERIES))
def test_the_cli_never_ends_in_a_traceback(tmp_path, name):
    phase, body, payload = CLI_FORGERIES[name]
    once = tmp_path / "forged-once"
    forge = FORGE + f"""
import os

def _forge_once():
    if not os.path.exists({str(once)!r}):
        open({str(once)!r}, "w").close()
        _forge({body!r}, {payload!r})
        return True
    return False
"""
    if phase == "load":
        source = forge + "if _forge_once():\n    import time\n    time.sleep(60)\n" + FUNCTIONS
    else:
        source = forge + FUNCTIONS.replace("    raise NotImplementedError\n", "    _forge_once()\n    return None\n", 1)
    result = _cli("test", "39", str(write_source(tmp_path, source)), "--public-only", "--seed", "1", "--json")
    assert "Traceback (most recent call last)" not in result.stderr + result.stdout, result.stderr[-3000:]
    assert result.returncode == 1, result.stderr[-3000:]
    report = json.loads(result.stdout)
    assert report["verdict"] == "RE", report["message"]
    assert all(case["verdict"] != "IE" for case in report["cases"])
    assert str(PROJECT_ROOT) not in result.stdout


def test_an_exercise_bug_is_an_internal_error_without_the_judges_traceback(tmp_path, caplog, monkeypatch):
    exercise = dataclasses.replace(resolve("39"), time_limit_s=5.0)
    from judge.engine import runner

    def broken(sub, ctx):
        raise KeyError(f"{PROJECT_ROOT}/exercises/secret-expected-value-0.5793")

    suite = runner.load_suite(exercise, "public")
    patched = dataclasses.replace(suite, cases=(dataclasses.replace(suite.cases[0], function=broken),))
    monkeypatch.setattr(runner, "load_suite", lambda ex, name, **_: patched)
    with caplog.at_level("ERROR", logger="probjudge.runner"):
        report = judge_file(exercise, exercise.reference_path, seed=1, suites=("public",))
    assert report.verdict is Verdict.IE
    message = report.cases[0].message
    assert "not your fault; internal error" in message
    assert "secret-expected-value" not in message and "KeyError" not in message
    assert_no_leak(report, "secret-expected-value")
    reference = message.rsplit(" ", 1)[1].rstrip(")")
    assert reference in caplog.text and "secret-expected-value" in caplog.text and "Traceback" in caplog.text


# Answers its first call itself on the result pipe, then never reads again: the judge's next
# request (4 MB, far more than a pipe holds) must end in TLE, not block the judge for ever.
STOPS_READING = FORGE + """
import time
import torch


def answer_then_sleep():
    _forge(b'{"ok":true,"value":1,"elapsed_ms":1.0,"tensors":[]}')
    time.sleep(10**6)


def echo(x):
    return x
"""


@pytest.mark.parametrize("level_launcher", LEVELS, indirect=True)
def test_a_learner_that_stops_reading_cannot_block_the_judge(level_launcher, tmp_path):
    import threading

    import torch

    from judge.engine.process import ProcessFailed

    outcome = {}

    def grade_it():
        with LearnerProcess(write_source(tmp_path, STOPS_READING), launcher=level_launcher) as process:
            outcome["first"], _ = process.call("answer_then_sleep", [], {}, timeout_s=5)
            try:
                process.call("echo", [torch.zeros(1 << 20)], {}, timeout_s=2)
            except ProcessFailed as failure:
                outcome["second"] = failure

    worker = threading.Thread(target=grade_it, daemon=True)
    worker.start()
    worker.join(120)  # a hang detector, not a speed test: the deadline is 2 s
    assert not worker.is_alive(), "the judge blocked writing to a learner that does not read"
    assert outcome["first"] == 1
    assert outcome["second"].verdict is Verdict.TLE and "did not take its input" in str(outcome["second"])
    assert_judge_healthy(level_launcher)
