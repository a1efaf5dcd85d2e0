"""describe_exception's frames, built directly, say what ``StackSummary.extract`` says of them.

:func:`judge.learner.code.learner_frames` skips ``StackSummary.extract`` (column positions, two
more linecache lookups per frame): these tests keep the learner's traceback text what the
standard library's summary gives, for nested calls, a multi-line statement, a recursion, a
file whose source the learner's code removed from linecache, and an exception raised inside
the judge's own frames.
"""

from __future__ import annotations

import linecache
import os
import traceback

import pytest

from judge.learner.code import describe_exception, learner_frames, learner_traceback, load_learner_module

SOURCE = """\
def outer(x):
    return inner(
        x,
    )

def inner(x):
    values = [1, 2]
    return values[
        x
    ]

def deep(n):
    if n == 0:
        raise ValueError("bottom: " + "x" * 3)
    return deep(n - 1)

def through_the_judge(callback):
    return callback()

def forgets_its_source():
    import linecache
    linecache.cache.pop(__file__, None)
    raise KeyError("gone")
"""


def _standard_frames(exc: BaseException, path: str) -> traceback.StackSummary:
    """The former implementation: the standard library's summary of the learner's frames."""
    own = ((frame, line) for frame, line in traceback.walk_tb(exc.__traceback__) if frame.f_code.co_filename == path)
    return traceback.StackSummary.extract(own)


def _raised(call) -> BaseException:
    try:
        (lambda: call())()  # a judge-side frame first, as in the child
    except BaseException as error:  # noqa: BLE001 - whatever the learner's code raised
        return error
    raise AssertionError("it did not raise")


@pytest.fixture
def module(tmp_path):
    path = str(tmp_path / "mine.py")
    yield load_learner_module(SOURCE, path), path
    linecache.cache.pop(path, None)


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.outer(5),
        lambda m: m.deep(6),
        lambda m: m.through_the_judge(lambda: m.inner(9)),
        lambda m: m.forgets_its_source(),
    ],
    ids=["nested", "recursion", "judge-frame-between", "source-removed"],
)
def test_frames_and_text_are_the_standard_librarys(module, call):
    mod, path = module
    error = _raised(lambda: call(mod))
    ours = learner_frames(error, path)
    standard = _standard_frames(error, path)
    assert [(f.filename, f.lineno, f.name, f.line) for f in ours] == [
        (f.filename, f.lineno, f.name, f.line) for f in standard
    ]
    assert learner_traceback(error, path, ours) == learner_traceback(error, path, standard)
    described = describe_exception(error, path)
    assert described["traceback"] == learner_traceback(error, path, standard)
    assert described["line"] == standard[-1].lineno
    assert os.path.dirname(path) not in described["traceback"]  # only the file's short name is shown


def test_an_exception_without_learner_frames_has_none(module):
    _, path = module
    error = _raised(lambda: int("x"))
    assert list(learner_frames(error, path)) == []
    assert describe_exception(error, path)["line"] is None
