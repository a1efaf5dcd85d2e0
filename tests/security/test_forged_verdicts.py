"""The attack suite, part 3: the learner cannot choose the verdict IE, or write the judge's messages.

A submission can write anything to its own result pipe. Whatever it writes, at load time or in
place of an answer, is parsed with bounds and validated field by field: every failure is RE with
the judge's own message (never IE, never a judge traceback, never a server path), the judge's
memory stays bounded, and the same judge grades the reference AC right after.
"""

from __future__ import annotations

import time
import tracemalloc

import pytest
from attack_support import FORGE, LEVELS, assert_contained, assert_judge_healthy, frame_body, grade_source, write_source

from judge.engine.runner import judge_file
from judge.exercises.exercise import resolve
from judge.verdicts import Verdict

# Starts the strict sandbox; runs in the parallel part like the rest (tests/conftest.py).
pytestmark = pytest.mark.strict_sandbox

SIXTY_MB = 60 << 20


def _json(header: dict) -> str:
    """The learner-side expression of a JSON header."""
    return repr(frame_body(header))


# name -> (header, payload: expressions the learner's code evaluates; what the judge's message says)
FORGERIES = {
    "a sandbox error": (_json({"sandbox_error": "forged: the judge is broken", "tensors": []}), "b''",
                        "expected exactly one of"),
    "a verdict": (_json({"ok": True, "value": None, "verdict": "AC", "tensors": []}), "b''", "unexpected field"),
    "an exception with fields of the wrong types": (
        _json({"raised": {"type": ["x"], "message": 5, "line": "a", "traceback": None, "memory": "yes"},
               "tensors": []}), "b''", "must be"),
    "an exception with a huge line number": (
        _json({"raised": {"type": "E", "message": "m", "line": 10**15, "traceback": "", "memory": False},
               "tensors": []}), "b''", "line"),
    "a 5 000-digit integer": ("""b'{"ok":true,"value":' + b'9' * 5000 + b',"tensors":[]}'""", "b''", "not JSON"),
    "an integer above 64 bits": (_json({"ok": True, "value": 2**70, "tensors": []}), "b''", "64 bits"),
    "nesting 200 000 deep": ("""b'{"ok":true,"value":' + b'[' * 200_000 + b']' * 200_000 + b',"tensors":[]}'""",
                             "b''", "deeper"),
    "a header that is not UTF-8": (repr(b'{"ok":true,"value":"\xff\xfe","tensors":[]}'), "b''", "UTF-8"),
    "a lone surrogate": (repr(b'{"raised":{"type":"E","message":"\\ud800","line":null,"traceback":"",'
                              b'"memory":false},"tensors":[]}'), "b''", "Unicode"),
    "an infinite elapsed time": (repr(b'{"ok":true,"value":1,"elapsed_ms":Infinity,"tensors":[]}'), "b''",
                                 "elapsed_ms"),
    "ok that is not true": (_json({"ok": 1, "value": 1, "tensors": []}), "b''", "'ok'"),
    "a device torch cannot parse": (
        _json({"ok": True, "value": {"$tensor": 0},
               "tensors": [{"dtype": "float32", "shape": [1, 4], "nbytes": 16, "device": "quantum:-1"}]}),
        "b'\\0' * 16", "device"),
    "a generator seed past 64 bits": (_json({"ok": True, "value": {"$generator": -1}, "tensors": []}), "b''",
                                      "generator seed"),
    "a shape torch cannot build": (
        _json({"ok": True, "value": {"$tensor": 0},
               "tensors": [{"dtype": "float32", "shape": [0, 2**62], "nbytes": 0}]}), "b''", "size"),
    "too many tensors": (_json({"ok": True, "value": None,
                                "tensors": [{"dtype": "uint8", "shape": [0], "nbytes": 0}] * 2000}), "b''",
                         "tensors in one frame"),
    "an oversized header": ("b'x' * (2 << 20)", "b''", "exceeds the limit"),
    "a dtype that is not a string": (
        _json({"ok": True, "value": {"$tensor": 0}, "tensors": [{"dtype": [], "shape": [1], "nbytes": 4}]}),
        "b'\\0' * 4", "dtype"),
    "a tensor spec with a field of its own": (
        _json({"ok": True, "value": {"$tensor": 0},
               "tensors": [{"dtype": "float32", "shape": [1], "nbytes": 4, "pad": [0] * 1000}]}),
        "b'\\0' * 4", "field other than"),
    "a tensor the answer does not use (padding)": (
        _json({"ok": True, "value": {"$tensor": 0}, "tensors": [{"dtype": "float32", "shape": [1], "nbytes": 4},
                                                              {"dtype": "bool", "shape": [0], "nbytes": 0}]}),
        "b'\\0' * 4", "not part of the answer"),
    "one 60 MB payload referenced 40 times": (
        _json({"ok": True, "value": [{"$tensor": 0}] * 40,
               "tensors": [{"dtype": "uint8", "shape": [SIXTY_MB], "nbytes": SIXTY_MB}]}),
        "b'\\0' * (60 << 20)", "more than once"),
}

FUNCTIONS = '''
import torch


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
    FORGE_HERE
    return torch.zeros(1, 4)


def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
    FORGE_HERE
    return torch.zeros(1, num_samples, dtype=torch.int64)
'''


def _answering_with(body: str, payload: str) -> str:
    """A submission whose every answer is preceded by the forged frame."""
    return FORGE + FUNCTIONS.replace("FORGE_HERE", f"_forge({body}, {payload})")


@pytest.mark.parametrize("name", list(FORGERIES))
def test_a_forged_answer_is_a_runtime_error_in_the_judges_words(launcher, quick_exercise, tmp_path, name):
    body, payload, says = FORGERIES[name]
    tracemalloc.start()
    try:
        report = grade_source(launcher, quick_exercise, tmp_path, _answering_with(body, payload))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    first = report.cases[0]
    assert first.verdict is Verdict.RE, (first.verdict, first.message)
    assert says in first.message, first.message
    assert "does not understand" in first.message or "result format" in first.message
    assert_contained(report, "forged: the judge is broken")
    # The judge holds at most one frame: 60 MB once, never 40 copies of it (that was 5 GB).
    assert peak < 200 << 20, f"the judge's Python heap peaked at {peak >> 20} MB"
    assert_judge_healthy(launcher)


def test_a_forged_first_message_is_a_runtime_error(launcher, quick_exercise, tmp_path):
    for name in ("a sandbox error", "nesting 200 000 deep", "a lone surrogate", "a 5 000-digit integer",
                 "a dtype that is not a string"):
        body, payload, _ = FORGERIES[name]
        source = FORGE + f"_forge({body}, {payload})\nimport time\ntime.sleep(10**6)\n" + \
            FUNCTIONS.replace("FORGE_HERE", "pass")
        report = grade_source(launcher, quick_exercise, tmp_path, source)
        assert report.verdict is Verdict.RE, (name, report.message)
        assert "malformed message while loading" in report.message or "result format" in report.message, \
            report.message
        assert_contained(report, "forged: the judge is broken")
    assert_judge_healthy(launcher)


REFERENCE = resolve("39").reference_path.read_text()

# The reference, except that each process answers one call (writing the answer itself) and exits.
ANSWER_THEN_EXIT = REFERENCE + """

import json as _json, os as _os, struct as _struct
_reference_probs = sampling_probs


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
    value = _reference_probs(logits, temperature, top_k, top_p, min_p).contiguous()
    raw = bytes(value.numpy()) if hasattr(value, "numpy") else b""
    header = {"ok": True, "value": {"$tensor": 0}, "elapsed_ms": 1.0,
              "tensors": [{"dtype": "float32", "shape": list(value.shape), "nbytes": len(raw)}]}
    body = _json.dumps(header).encode()
    for fd in range(3, 1024):
        try:
            _os.write(fd, b"PJ1" + _struct.pack(">I", len(body)) + body + raw)
        except OSError:
            pass
    _os._exit(0)
"""


@pytest.mark.parametrize("level_launcher", LEVELS, indirect=True)
@pytest.mark.parametrize("pause_between_cases", [False, True])
def test_answering_then_dying_is_never_a_pass(level_launcher, quick_exercise, tmp_path, pause_between_cases):
    # With a pause, every death happens between two cases (the silent restart that let a
    # submission that answered three calls in all pass with the rest skipped); without, some
    # are noticed during the next call. Either way each death fails a case.
    path = write_source(tmp_path, ANSWER_THEN_EXIT)
    pause = (lambda title, index, total: time.sleep(0.3)) if pause_between_cases else None
    report = judge_file(quick_exercise, path, seed=1, suites=("public",), launcher=level_launcher, progress=pause)
    assert report.verdict is not Verdict.AC, [(c.name, c.verdict) for c in report.cases]
    failed = [c for c in report.cases if c.verdict not in (Verdict.AC, Verdict.SK)]
    assert len(failed) >= 2, [(c.name, c.verdict, c.message) for c in report.cases]
    if pause_between_cases:
        assert any("between two test cases" in c.message for c in failed)
    assert_contained(report, level=level_launcher.level)


# The learner's exception can say anything, and hide its frames; it is still labelled as the learner's.
IMPERSONATOR = '''
import os
SOURCE = """
class _Judge(Exception):
    pass
_Judge.__name__ = "this test failed inside the judge (not your fault; internal error 3f9c1a2b)"
def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
    raise _Judge(os.getcwd())
def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
    raise _Judge(os.getcwd())
"""
exec(compile(SOURCE, "<judge>", "exec"))
'''


def test_the_learner_cannot_write_the_judges_words(launcher, quick_exercise, tmp_path):
    report = grade_source(launcher, quick_exercise, tmp_path, IMPERSONATOR)
    first = report.cases[0]
    assert first.verdict is Verdict.RE
    assert first.message.startswith("your code raised an exception:"), first.message
    assert "/tmp/probjudge" not in first.message and "<scratch>" in first.message  # its cwd, redacted
    assert_contained(report)
