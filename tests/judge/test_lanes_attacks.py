"""Lanes under attack: learners that keep state, share files, die, print; launchers short of slots.

A grading on several lanes (``grade(lanes=N)``) must give every learner whose answers do not depend
on its earlier calls the report one lane gives, never hang, and never charge the learner for the
judge's own shortage of sandbox slots.
"""

from __future__ import annotations

import pytest

from judge.engine.runner import judge_file
from judge.sandbox.launchers import WarmLocalLauncher
from judge.verdicts import Verdict
from tests.judge.test_runner import _fake_exercise

SIX_CASES = """
    from judge.checks.exact import expect

    def test_c0(sub, ctx):
        expect(sub.double(0) == 0, "double(0)")

    def test_c1(sub, ctx):
        expect(sub.double(1) == 2, "double(1)")

    def test_c2(sub, ctx):
        expect(sub.double(2) == 4, "double(2)")

    def test_c3(sub, ctx):
        expect(sub.double(3) == 6, "double(3)")

    def test_c4(sub, ctx):
        expect(sub.double(4) == 8, "double(4)")

    def test_c5(sub, ctx):
        expect(sub.double(5) == 10, "double(5)")
"""


@pytest.fixture(scope="module")
def warm():
    with WarmLocalLauncher() as launcher:
        yield launcher


@pytest.fixture
def six(tmp_path):
    return _fake_exercise(tmp_path, 941, SIX_CASES)


def _same(one, two) -> None:
    assert (one.verdict, one.message, one.diagnosis) == (two.verdict, two.message, two.diagnosis)
    assert [(c.name, c.verdict, c.message) for c in one.cases] == [(c.name, c.verdict, c.message) for c in two.cases]
    assert one.false_failure_budget == two.false_failure_budget


def test_a_correct_learner_with_a_lazy_cache_and_prints_gets_the_same_report(six, learner_file, warm):
    path = learner_file(
        """
        _TABLE = None
        _SEEN = {}

        def double(x):
            global _TABLE
            if _TABLE is None:  # built on the first call, in whichever process makes it
                print("building the table")
                _TABLE = [2 * i for i in range(100)]
            _SEEN[x] = _SEEN.get(x, 0) + 1
            return _TABLE[x]
        """
    )
    one = judge_file(six, path, seed=5, lanes=1, launcher=warm)
    two = judge_file(six, path, seed=5, lanes=2, launcher=warm)
    assert one.verdict is Verdict.AC
    _same(one, two)
    assert one.output.count("building the table") == 1 and two.output.count("building the table") == 2


def test_a_process_that_dies_at_import_in_the_second_lane_only(six, learner_file, warm, tmp_path):
    # The second process to import the file finds the first one's mark and exits at import: the
    # learner's own doing, charged to the cases of that lane only, never an internal error.
    mark = tmp_path / "imported"
    path = learner_file(
        f"""
        import os
        if os.path.exists({str(mark)!r}):
            raise SystemExit(3)
        open({str(mark)!r}, "w").close()

        def double(x):
            return 2 * x
        """
    )
    two = judge_file(six, path, seed=5, lanes=2, launcher=warm)
    verdicts = [c.verdict for c in two.cases]
    assert verdicts[0::2] == [Verdict.AC] * 3, [(c.name, c.verdict, c.message) for c in two.cases]
    assert Verdict.IE not in verdicts and two.verdict is not Verdict.AC


def test_two_processes_sharing_a_file_cannot_turn_a_wrong_answer_right(six, learner_file, warm, tmp_path):
    # The two lanes' processes pool what they were asked through a file: together they still
    # see no more than one process sees on one lane, and a wrong answer stays wrong.
    log = tmp_path / "asked"
    path = learner_file(
        f"""
        def double(x):
            with open({str(log)!r}, "a") as f:
                f.write(f"{{x}}\\n")
            asked = open({str(log)!r}).read().split()
            return 2 * x + (1 if x == 3 and len(asked) < 6 else 0)
        """
    )
    one = judge_file(six, path, seed=5, lanes=1, launcher=warm)
    log.unlink()
    two = judge_file(six, path, seed=5, lanes=2, launcher=warm)
    _same(one, two)
    assert one.verdict is Verdict.WA


def test_a_progress_callback_sees_every_case_once(six, learner_file, warm):
    seen: list[int] = []
    path = learner_file("def double(x):\n    return 2 * x\n")
    report = judge_file(six, path, seed=5, lanes=2, launcher=warm, progress=lambda title, i, n: seen.append(i))
    assert report.verdict is Verdict.AC and sorted(seen) == list(range(6))


def test_a_progress_callback_that_raises_in_the_second_lane_is_raised_and_the_run_ends(six, learner_file, warm):
    path = learner_file("def double(x):\n    return 2 * x\n")

    def progress(title, index, total):
        if index == 1:
            raise RuntimeError("progress broke")

    with pytest.raises(RuntimeError, match="progress broke"):
        judge_file(six, path, seed=5, lanes=2, launcher=warm, progress=progress)
    # Both lanes' processes were closed: the same launcher grades the next run.
    assert judge_file(six, path, seed=5, lanes=2, launcher=warm).verdict is Verdict.AC


@pytest.fixture(scope="module")
def one_slot():
    from judge.sandbox.layers import missing_required

    missing = missing_required()
    if missing:
        pytest.skip("strict sandbox unavailable here: " + ", ".join(layer.name for layer in missing))
    from judge.sandbox.strict import StrictLauncher

    launcher = StrictLauncher(slots=1, slot_wait_s=2.0)
    yield launcher
    launcher.close()


@pytest.mark.strict_sandbox
def test_more_lanes_than_the_launcher_has_slots_is_not_the_learner_s_fault(six, learner_file, one_slot):
    """A direct caller asks for two lanes from a one-slot launcher: the second lane would wait for a
    slot its own grading holds, then fail its cases as internal errors. The run uses the lanes the
    launcher's slots allow."""
    path = learner_file("def double(x):\n    return 2 * x\n")
    report = judge_file(six, path, seed=5, lanes=2, launcher=one_slot)
    assert report.verdict is Verdict.AC, [(c.name, c.verdict, c.message) for c in report.cases]
    assert one_slot.free_slots == 1 and "lanes" not in report.timing


@pytest.mark.xfail(
    strict=True,
    reason="the 16 MB output limit is per learner process: two lanes let a grading print twice as much "
    "before RE (a shared limit needs one output count across the run's processes)",
)
def test_printing_past_the_output_limit_is_the_same_verdict_on_two_lanes(six, learner_file, warm):
    # 3 MB a call, six calls: 18 MB in one process (past 16 MB), 9 MB in each of two.
    path = learner_file("def double(x):\n    print('x' * (3 << 20))\n    return 2 * x\n")
    one = judge_file(six, path, seed=5, lanes=1, launcher=warm)
    two = judge_file(six, path, seed=5, lanes=2, launcher=warm)
    assert one.verdict is Verdict.RE
    assert two.verdict is one.verdict
