"""Every level receives the learner's source as text, the same way: a ``load`` frame on the job's pipe.

The judge reads nothing but text (no path reaches a child), checks it once for both levels
(size, UTF-8: CE), and tracebacks name only the short filename the source was given.
"""

from __future__ import annotations

import pytest
from attack_support import LEVELS, assert_judge_healthy

from judge.engine.process import LearnerProcess, LearnerRaised, LoadFailed
from judge.engine.runner import grade
from judge.learner.interface import MAX_SOURCE_BYTES, LearnerSource
from judge.verdicts import Verdict

# Starts the strict sandbox; runs in the parallel part like the rest (tests/conftest.py).
pytestmark = pytest.mark.strict_sandbox

SOURCE = '''
def where():
    return [__name__, __file__]

def boom():
    raise ValueError("from the text")
'''


@pytest.mark.parametrize("level_launcher", LEVELS, indirect=True)
def test_both_levels_load_the_same_text_and_name_it_alike(level_launcher):
    with LearnerProcess(LearnerSource(SOURCE, "mine.py"), launcher=level_launcher) as process:
        assert process.call("where", [], {}, timeout_s=10).value == ["submission", "mine.py"]
        with pytest.raises(LearnerRaised) as raised:
            process.call("boom", [], {}, timeout_s=10)
    trace = raised.value.traceback
    assert 'File "mine.py", line 6, in boom' in trace and 'raise ValueError("from the text")' in trace
    assert "/" not in trace.split("File ")[1].split(",")[0]
    assert_judge_healthy(level_launcher)


@pytest.mark.parametrize("level_launcher", LEVELS, indirect=True)
@pytest.mark.parametrize("text, fragment", [
    ("x = 1\n" + "#" * MAX_SOURCE_BYTES, "larger than"),
    ("x = '\udcff'\n", "UTF-8"),
])
def test_text_that_cannot_be_judged_is_a_compile_error_before_any_launch(level_launcher, text, fragment):
    free = getattr(level_launcher, "free_slots", None)
    with pytest.raises(LoadFailed) as failed:
        LearnerProcess(LearnerSource(text), launcher=level_launcher)
    assert failed.value.verdict is Verdict.CE and fragment in str(failed.value)
    assert getattr(level_launcher, "free_slots", None) == free


@pytest.mark.parametrize("level_launcher", LEVELS, indirect=True)
def test_grade_takes_text_at_every_level(level_launcher, quick_exercise):
    source = quick_exercise.reference_path.read_text(encoding="utf-8")
    report = grade(quick_exercise, source, seed=1, suites=("public",), launcher=level_launcher)
    assert report.verdict is Verdict.AC, report.message
    assert report.sandbox == level_launcher.level
