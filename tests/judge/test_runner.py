"""The runner: verdicts for every kind of submission, the report's shape, seeds and budget."""

from __future__ import annotations

import dataclasses
import json
import textwrap
import time

import pytest

from judge.engine.runner import judge_file
from judge.exercises.exercise import load_exercise
from judge.exercises.suites import load_suite, suites_module
from judge.verdicts import Verdict


@pytest.fixture(scope="module")
def reference_report(exercise39):
    return judge_file(exercise39, exercise39.reference_path, seed=2024)


def test_reference_is_accepted_with_a_complete_report(reference_report, exercise39):
    report = reference_report
    assert report.verdict is Verdict.AC, report.message
    data = json.loads(json.dumps(report.to_json(), allow_nan=False))
    assert data["verdict"] == "AC" and data["schema"] == 1
    assert data["score"] == {"passed": len(report.cases), "total": len(report.cases)}
    assert data["seed"] == 2024 and data["judge_version"]
    assert data["exercise"]["number"] == 39 and len(data["exercise"]["content_hash"]) == 64
    names = {case["name"] for case in data["cases"]}
    assert {"softmax", "sample_mixed_rows", "not_too_regular"} <= names
    for case in data["cases"]:
        assert set(case) >= {
            "name",
            "suite",
            "title",
            "title_zh",
            "verdict",
            "message",
            "time_ms",
            "seed",
            "statistic",
            "p_value",
            "checks",
        }
    fits = [check for case in data["cases"] for check in case["checks"] if check["kind"] == "fit"]
    assert fits and all(0 <= check["p_value"] <= 1 and check["p_value"] >= check["alpha"] for check in fits)
    assert set(data["seeds"]) == {case["name"] for case in data["cases"] if case["seed"] is not None}


def test_the_suites_declare_exactly_the_checks_they_run(reference_report):
    budget = reference_report.false_failure_budget
    assert budget["total"] == 1e-6
    assert budget["spent"] <= budget["total"] * (1 + 1e-12)
    for kind, row in budget["checks"].items():
        if kind == "too_regular":  # one per case with fit checks, declared as at most one per fit
            assert 1 <= row["used"] <= row["declared"]
        else:
            assert row["used"] == row["declared"], kind


def test_a_master_seed_reproduces_every_statistic(exercise39, reference_report):
    again = judge_file(exercise39, exercise39.reference_path, seed=2024)
    first = [(c.name, c.statistic, c.p_value) for c in reference_report.cases]
    assert first == [(c.name, c.statistic, c.p_value) for c in again.cases]
    other = judge_file(exercise39, exercise39.reference_path, seed=2025, suites=("hidden",))
    assert [c.p_value for c in other.cases if c.name == "sample_mixed_rows"] != [
        c.p_value for c in reference_report.cases if c.name == "sample_mixed_rows"
    ]


def test_public_only_runs_the_public_suite(exercise39):
    report = judge_file(exercise39, exercise39.reference_path, seed=1, suites=("public",))
    assert report.verdict is Verdict.AC
    assert {c.suite for c in report.cases} == {"public", "judge"}


def test_missing_function_is_a_compile_error_naming_it(exercise39, learner_file):
    path = learner_file("""
        def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
            return logits
    """)
    report = judge_file(exercise39, path, seed=1)
    assert report.verdict is Verdict.CE
    assert "does not define `sample(logits, num_samples" in report.message
    assert all(case.verdict is Verdict.SK for case in report.cases)


def test_wrong_signature_is_a_compile_error_saying_what_differs(exercise39, learner_file):
    path = learner_file("""
        def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
            return logits

        def sample(logits, n, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
            return logits
    """)
    report = judge_file(exercise39, path, seed=1)
    assert report.verdict is Verdict.CE
    assert "missing `num_samples`, `generator`" in report.message
    assert "extra required `n`" in report.message


def test_the_starter_gets_a_runtime_error_pointing_at_not_implemented(exercise39):
    report = judge_file(exercise39, exercise39.starter_path, seed=1, suites=("public",))
    assert report.verdict is Verdict.RE
    assert "NotImplementedError" in report.message
    assert "judge/" not in report.message


def test_syntax_error_is_a_compile_error_with_the_line(exercise39, learner_file):
    report = judge_file(exercise39, learner_file("import torch\n\ndef sample(:\n"), seed=1)
    assert report.verdict is Verdict.CE and "line 3" in report.message


def test_hangs_are_tle_and_later_cases_still_run_until_too_many_deaths(exercise39, learner_file):
    fast = dataclasses.replace(exercise39, time_limit_s=1.0)
    path = learner_file("""
        import torch

        def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
            while True:
                pass

        def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
            return torch.zeros(logits.shape[0], num_samples, dtype=torch.int64)
    """)
    report = judge_file(fast, path, seed=1, suites=("public",))
    verdicts = [case.verdict for case in report.cases]
    assert report.verdict is Verdict.TLE
    assert verdicts[:3] == [Verdict.TLE] * 3
    assert Verdict.SK in verdicts
    assert "used up the test case's CPU time of 1 s" in report.cases[0].message


def test_sleeping_code_is_stopped_by_the_wall_clock_cap(exercise39, learner_file):
    """Code that uses no CPU (sleeps, blocks) meets the wall-clock cap: WALL_FACTOR x the CPU limit."""
    fast = dataclasses.replace(exercise39, time_limit_s=1.0)
    path = learner_file("""
        import time
        import torch

        def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
            time.sleep(60)

        def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
            return torch.zeros(logits.shape[0], num_samples, dtype=torch.int64)
    """)
    started = time.monotonic()
    report = judge_file(fast, path, seed=1, suites=("public",))
    assert report.cases[0].verdict is Verdict.TLE
    assert f"did not finish within {fast.wall_cap_s:.1f} s" in report.cases[0].message
    assert fast.wall_cap_s == 3.0 and time.monotonic() - started < 60


def test_the_judges_own_work_never_counts_against_the_learner(exercise39, learner_file, monkeypatch):
    """A case whose judge-side work takes longer than the CPU limit *and* the whole wall cap still
    passes: only the learner's processes' CPU time counts against the CPU limit, and only the time
    spent waiting for the learner's calls against the wall cap. (Before, the wall cap counted the
    judge's work, so a busy judge could turn a correct answer into TLE.)"""
    import judge.checks.exact

    slow = dataclasses.replace(exercise39, time_limit_s=0.5, wall_limit_s=0.6)
    original = judge.checks.exact.expect_close

    def slow_check(*args, **kwargs):
        deadline = time.process_time() + 0.7  # more judge CPU than the learner's limit and the wall cap
        while time.process_time() < deadline:
            pass
        return original(*args, **kwargs)

    monkeypatch.setattr(judge.checks.exact, "expect_close", slow_check)
    load_suite(exercise39, "public")
    public = suites_module(exercise39, "public.public")
    monkeypatch.setattr(public, "expect_close", slow_check)
    report = judge_file(slow, exercise39.reference_path, seed=1, suites=("public",))
    assert report.verdict is Verdict.AC, report.message


def test_the_wall_cap_is_shared_by_a_cases_calls(tmp_path, learner_file):
    """Calls that each sleep less than the cap but together more meet it (the cap is the case's,
    over its calls), while the judge's own sleep between calls is never charged."""
    exercise = dataclasses.replace(
        _fake_exercise(
            tmp_path,
            904,
            """
        import time
        from judge.checks.exact import expect

        def test_three_calls(sub, ctx):
            for x in (1, 2, 3):
                expect(sub.double(x) == 2 * x, "double doubles")

        def test_one_call_after_the_judge_dawdles(sub, ctx):
            time.sleep(0.7)  # the judge's own time: more than the whole cap
            expect(sub.double(4) == 8, "double doubles")
    """,
        ),
        time_limit_s=0.5,
        wall_limit_s=0.6,
    )
    path = learner_file("import time\n\ndef double(x):\n    time.sleep(0.25)\n    return 2 * x\n")
    report = judge_file(exercise, path, seed=1)
    assert [c.verdict for c in report.cases] == [Verdict.TLE, Verdict.AC], [c.message for c in report.cases]


def _fake_exercise(tmp_path, number: int, tests: str):
    folder = tmp_path / f"{number:03d}-echo"
    (folder / "tests" / "public").mkdir(parents=True)
    (folder / "tests" / "hidden").mkdir(parents=True)
    (folder / "exercise.toml").write_text(
        textwrap.dedent(f"""
        number = {number}
        slug = "echo"
        difficulty = "easy"
        [title]
        en = "Echo"
        zh = "回声"
        [functions.double]
        params = ["x"]
    """)
    )
    (folder / "tests" / "public" / "public.py").write_text(textwrap.dedent(tests))
    (folder / "tests" / "hidden" / "hidden.py").write_text("")
    return load_exercise(folder)


def test_a_bug_in_a_test_is_an_internal_error_not_the_learners_fault(tmp_path, learner_file):
    exercise = _fake_exercise(
        tmp_path,
        901,
        """
        from judge.checks.exact import expect

        def test_doubles(sub, ctx):
            '''double doubles

            zh: 翻倍
            '''
            expect(sub.double(2) == 4, "double(2) must be 4")

        def test_broken(sub, ctx):
            {}["missing"]
    """,
    )
    report = judge_file(exercise, learner_file("def double(x):\n    return 2 * x\n"), seed=1)
    assert [c.verdict for c in report.cases] == [Verdict.AC, Verdict.IE]
    assert report.verdict is Verdict.IE
    assert report.cases[0].title == "double doubles" and report.cases[0].title_zh == "翻倍"
    assert "not your fault" in report.cases[1].message


def test_wrong_answer_and_runtime_error_cases(tmp_path, learner_file):
    exercise = _fake_exercise(
        tmp_path,
        902,
        """
        from judge.checks.exact import expect

        def test_small(sub, ctx):
            expect(sub.double(2) == 4, "double(2) must be 4")

        def test_large(sub, ctx):
            expect(sub.double(10) == 20, "double(10) must be 20")
    """,
    )
    path = learner_file("def double(x):\n    if x > 5:\n        raise KeyError(x)\n    return x + 1\n")
    report = judge_file(exercise, path, seed=1)
    assert [c.verdict for c in report.cases] == [Verdict.WA, Verdict.RE]
    assert report.verdict is Verdict.WA
    assert report.cases[0].message == "double(2) must be 4"
    assert "KeyError" in report.cases[1].message and "line 3" in report.cases[1].message


def test_a_suites_prepare_runs_once_before_its_cases_outside_their_wall_clock(tmp_path, learner_file):
    # The set-up sleeps past the whole wall cap (3 x 0.3 s): inside a case it would be TLE.
    exercise = dataclasses.replace(
        _fake_exercise(
            tmp_path,
            903,
            """
        import time
        from judge.checks.exact import expect

        CALLS = []

        def prepare():
            CALLS.append(time.monotonic())
            time.sleep(1.2)

        def test_small(sub, ctx):
            expect(len(CALLS) == 1, "prepare ran once, before this case")
            expect(sub.double(2) == 4, "double(2) must be 4")

        def test_large(sub, ctx):
            expect(len(CALLS) == 1, "prepare ran once, not per case")
            expect(sub.double(10) == 20, "double(10) must be 20")
    """,
        ),
        time_limit_s=0.3,
    )
    report = judge_file(exercise, learner_file("def double(x):\n    return 2 * x\n"), seed=1)
    assert [c.verdict for c in report.cases] == [Verdict.AC, Verdict.AC], report.message


def test_a_prepare_that_raises_is_the_judges_internal_error(tmp_path, learner_file):
    exercise = _fake_exercise(
        tmp_path,
        904,
        """
        from judge.checks.exact import expect

        def prepare():
            raise FileNotFoundError("models/tiny-qwen3/model.safetensors")

        def test_small(sub, ctx):
            expect(sub.double(2) == 4, "double(2) must be 4")
    """,
    )
    report = judge_file(exercise, learner_file("def double(x):\n    return 2 * x\n"), seed=1)
    assert [c.verdict for c in report.cases] == [Verdict.IE] and report.verdict is Verdict.IE
    assert "could not prepare its tests" in report.cases[0].message and "not your fault" in report.cases[0].message
    assert "safetensors" not in report.cases[0].message  # the detail goes to the operator's log only


def test_suite_modules_load_with_budget_declarations(exercise39):
    hidden = load_suite(exercise39, "hidden")
    public = load_suite(exercise39, "public")
    assert hidden.budget.fit > 0 and public.budget.fit > 0
    assert all(case.title and case.title_zh != case.title for case in hidden.cases + public.cases)


def test_cases_not_run_are_never_a_pass():
    from judge.engine.runner import _submission_verdict
    from judge.reports.report import CaseResult

    passed = CaseResult("a", "public", "a", Verdict.AC)
    skipped = CaseResult("b", "hidden", "b", Verdict.SK, "not run: your process died too often")
    assert _submission_verdict([passed, skipped]) is Verdict.RE
    assert _submission_verdict([passed]) is Verdict.AC


def test_what_the_learners_code_raises_is_labelled_as_its_own(exercise39, learner_file):
    path = learner_file("""
        class InternalError(Exception):
            pass

        def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
            raise InternalError("internal error 3f9c1a2b (not your fault)")

        def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
            raise InternalError("internal error 3f9c1a2b (not your fault)")
    """)
    report = judge_file(exercise39, path, seed=1, suites=("public",))
    assert report.verdict is Verdict.RE
    assert report.cases[0].message.startswith("your code raised an exception:\n")


def test_grade_judges_source_text_and_writes_no_file(exercise39, tmp_path, monkeypatch):
    """judge.grade takes text: the launcher gets no path, and no .py file appears in a temp folder."""
    import tempfile

    import judge
    from judge.sandbox.launchers import LocalLauncher

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    written: list[str] = []
    launches: list[dict] = []

    class Recording(LocalLauncher):
        def launch(self, **kwargs):
            launches.append(kwargs)
            return super().launch(**kwargs)

    def progress(title, index, total):
        written.extend(str(p) for p in tmp_path.rglob("*.py"))

    source = exercise39.reference_path.read_text(encoding="utf-8")
    report = judge.grade(exercise39, source, seed=1, suites=("public",), launcher=Recording(), progress=progress)
    assert report.verdict is Verdict.AC, report.message
    assert written == [] and launches
    assert all(
        set(kwargs) == {"device", "memory_limit_mb", "fd_in", "fd_out", "output_fd", "import_dir"}
        and kwargs["import_dir"] is None
        for kwargs in launches
    )


def test_grade_names_the_source_as_told_in_tracebacks(exercise39):
    from judge.engine.runner import grade

    source = textwrap.dedent("""
        import torch

        def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
            raise ValueError("nope")

        def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
            raise ValueError("nope")
    """)
    report = grade(exercise39, source, seed=1, suites=("public",), filename="attempt.py")
    assert report.verdict is Verdict.RE
    assert 'File "attempt.py", line 5, in sampling_probs' in report.message
    assert 'raise ValueError("nope")' in report.message  # the line itself, though no file holds it


def test_judge_file_imports_helpers_beside_the_file_and_reports_unreadable_files(exercise39, learner_file, tmp_path):
    learner_file("def twice(x):\n    return 2 * x\n", name="helpers.py")
    path = learner_file(exercise39.reference_path.read_text(encoding="utf-8") + "\nfrom helpers import twice\n")
    assert judge_file(exercise39, path, seed=1, suites=("public",)).verdict is Verdict.AC
    report = judge_file(exercise39, tmp_path / "absent.py", seed=1, suites=("public",))
    assert report.verdict is Verdict.CE and "cannot be read" in report.message
    assert {c.verdict for c in report.cases} == {Verdict.SK}


def test_the_report_says_where_its_time_went(tmp_path, learner_file):
    """``timing`` splits time_ms into start, learner, transfer, judge and end; the learner's share is
    what its functions ran (here a known sleep), the judge's what the suite spent between calls."""
    exercise = _fake_exercise(
        tmp_path,
        905,
        """
        import time
        from judge.checks.exact import expect

        def test_two_calls(sub, ctx):
            expect(sub.double(1) == 2, "double doubles")
            time.sleep(0.3)  # the judge's own work
            expect(sub.double(2) == 4, "double doubles")
    """,
    )
    path = learner_file("import time\n\ndef double(x):\n    time.sleep(0.2)\n    return 2 * x\n")
    report = judge_file(exercise, path, seed=1, suites=("public",))
    timing = report.to_json()["timing"]
    parts = {"start_ms", "learner_ms", "transfer_ms", "judge_ms", "end_ms"}
    assert set(timing) == parts | {"calls", "bytes_sent", "bytes_received"}
    assert timing["calls"] == 2 and timing["bytes_sent"] > 0 and timing["bytes_received"] > 0
    assert 400 <= timing["learner_ms"] < 1400
    assert timing["judge_ms"] >= 300
    assert sum(timing[k] for k in parts) == pytest.approx(report.time_ms, abs=0.01)


def test_an_edited_exercise_is_judged_with_its_new_tests_and_settings(tmp_path, learner_file):
    """Suites stay imported between gradings (their cached cases with them), keyed by the exercise's
    content: an edit is picked up by the next grading, the old modules are dropped, and an edited
    exercise.toml is parsed again."""
    import sys

    from judge.exercises.exercise import load_exercise
    from judge.exercises.suites import suites_package

    exercise = _fake_exercise(
        tmp_path,
        906,
        """
        from judge.checks.exact import expect

        def test_small(sub, ctx):
            expect(sub.double(2) == 4, "double(2) must be 4")
    """,
    )
    path = learner_file("def double(x):\n    return 2 * x\n")
    assert judge_file(exercise, path, seed=1).verdict is Verdict.AC
    before = suites_package(exercise)
    assert before in sys.modules
    assert judge_file(load_exercise(exercise.root), path, seed=1).verdict is Verdict.AC  # same content: same modules
    assert suites_package(load_exercise(exercise.root)) == before
    (exercise.root / "tests" / "public" / "public.py").write_text(
        "from judge.checks.exact import expect\n\ndef test_small(sub, ctx):\n"
        "    expect(sub.double(2) == 5, 'double(2) must be 5 now')\n"
    )
    toml = exercise.root / "exercise.toml"
    toml.write_text(toml.read_text().replace('difficulty = "easy"', 'difficulty = "hard"'))
    edited = load_exercise(exercise.root)
    assert edited.difficulty == "hard"
    report = judge_file(edited, path, seed=1)
    assert report.verdict is Verdict.WA and "must be 5 now" in report.message
    assert suites_package(edited) != before and before not in sys.modules
    assert report.exercise["content_hash"] == edited.content_hash()


def test_a_grading_reads_and_hashes_its_exercise_once(tmp_path, learner_file, monkeypatch):
    """The content hash names the suites' package and goes into the report: one read of the folder
    serves both suites and the report (it was three, a millisecond each for exercise 39)."""
    from judge.exercises.exercise import Exercise

    exercise = _fake_exercise(
        tmp_path,
        907,
        """
        from judge.checks.exact import expect

        def test_small(sub, ctx):
            expect(sub.double(2) == 4, "double(2) must be 4")
    """,
    )
    (exercise.root / "tests" / "hidden").mkdir(exist_ok=True)
    (exercise.root / "tests" / "hidden" / "hidden.py").write_text("def test_nothing(sub, ctx):\n    pass\n")
    hashed = []
    real = Exercise.content_hash

    def counted(self):
        hashed.append(self.number)
        return real(self)

    monkeypatch.setattr(Exercise, "content_hash", counted)
    report = judge_file(exercise, learner_file("def double(x):\n    return 2 * x\n"), seed=1)
    assert report.verdict is Verdict.AC and [c.suite for c in report.cases] == ["public", "hidden"]
    assert hashed == [907] and report.exercise["content_hash"] == real(exercise)


def test_an_edit_that_keeps_the_files_size_and_time_is_seen(tmp_path):
    """exercise.toml's parse is cached by what the file holds: an edit of the same length whose file
    keeps its modification time (an archive or copy that sets it, ``touch -r``, a coarse clock) and
    inode is parsed again, never answered with the old settings."""
    import os

    from judge.exercises.exercise import load_exercise

    exercise = _fake_exercise(tmp_path, 909, "")
    toml = exercise.root / "exercise.toml"
    before = toml.stat()
    toml.write_text(toml.read_text().replace('difficulty = "easy"', 'difficulty = "hard"'))
    os.utime(toml, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = toml.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)
    assert load_exercise(exercise.root).difficulty == "hard"


def test_two_gradings_importing_one_suite_at_once_both_get_every_case(tmp_path):
    """Two grading workers that start on one exercise together (a site started with a backlog, a
    rejudge after an edit) import its suite at once: the second must wait for the whole module,
    never read the cases of one half-executed (a hidden suite cut short would pass wrong code)."""
    import sys
    import threading
    import types

    gate = types.ModuleType("_probjudge_suite_gate")
    gate.entered, gate.release = threading.Event(), threading.Event()
    sys.modules[gate.__name__] = gate
    try:
        exercise = _fake_exercise(
            tmp_path,
            907,
            """
            import _probjudge_suite_gate as gate

            def test_first(sub, ctx):
                pass

            gate.entered.set()  # the first importer is inside the module here: let the second one in
            gate.release.wait(30)

            def test_second(sub, ctx):
                pass
            """,
        )
        loaded = {}
        first = threading.Thread(target=lambda: loaded.setdefault("first", load_suite(exercise, "public")))
        first.start()
        assert gate.entered.wait(60)
        second = threading.Thread(target=lambda: loaded.setdefault("second", load_suite(exercise, "public")))
        second.start()
        second.join(0.5)  # a second importer that returns now has read a half-executed module
        gate.release.set()
        first.join(60)
        second.join(60)
        for who in ("first", "second"):
            assert [case.name for case in loaded[who].cases] == ["first", "second"], who
    finally:
        gate.release.set()
        sys.modules.pop(gate.__name__, None)
