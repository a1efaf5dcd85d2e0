"""What the attack suites share: hostile submissions to exercise 39, and what "contained" means.

Every attack is graded, then must end in a non-AC verdict of the learner's kind (never IE unless
the test says so), leak nothing (no canary, no secret, no server path, no judge traceback), and
leave the same judge, with every sandbox slot handed back, able to grade the reference AC.
"""

from __future__ import annotations

import json
import os
import secrets
import textwrap
from pathlib import Path

import pytest

from judge.engine.runner import judge_file
from judge.exercises.exercise import resolve
from judge.exercises.folders import PROJECT_ROOT
from judge.sandbox.layers import missing_required
from judge.verdicts import Verdict

MISSING = missing_required()
needs_strict = pytest.mark.skipif(bool(MISSING), reason="strict sandbox unavailable here: "
                                  + ", ".join(layer.name for layer in MISSING))
# For attacks that concern both levels: parametrize ``level_launcher`` (conftest.py) indirectly.
LEVELS = ["local", pytest.param("strict", marks=needs_strict)]

CANARY = "pj-canary-7f3a91"  # in the judge's environment and in the fake database
# The fake database (conftest.py's ``database``): one per test process, so that parallel runs
# (pytest-xdist) never remove each other's.
DATABASE = PROJECT_ROOT / "instance" / f"attack-test-{os.getpid()}.db"

TEMPLATE = '''
import ctypes, os, sys, socket, signal, struct, json, subprocess, time
import torch


def _attack():
{body}


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
    return _attack()


def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
    return _attack()
'''

# A learner-side helper that writes a hand-made frame to every writable descriptor from 3 up:
# in the learner's process that is the result pipe alone (the output is on 1 and 2). Up to 1024, not
# 64: the child keeps the judge's descriptor numbers, and a long-lived test worker holds many.
FORGE = '''
import os as _os, struct as _struct


def _forge(body, payload=b""):
    frame = b"PJ1" + _struct.pack(">I", len(body)) + body + payload
    for fd in range(3, 1024):
        try:
            _os.write(fd, frame)
        except OSError:
            pass
'''


def write_attack(tmp_path: Path, body: str, name: str = "attack.py") -> Path:
    """The attack file: ``body`` runs in place of both of exercise 39's functions."""
    path = tmp_path / name
    path.write_text(TEMPLATE.format(body=textwrap.indent(textwrap.dedent(body).strip(), "    ")))
    return path


def write_source(tmp_path: Path, source: str, name: str = "attack.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def grade(launcher, exercise, tmp_path: Path, body: str):
    return settled(launcher, judge_file(exercise, write_attack(tmp_path, body), seed=1, suites=("public",),
                                        launcher=launcher))


def grade_source(launcher, exercise, tmp_path: Path, source: str):
    return settled(launcher, judge_file(exercise, write_source(tmp_path, source), seed=1, suites=("public",),
                                        launcher=launcher))


def settled(launcher, report):
    """``report``, once the launcher has reaped what the judging killed (``strict`` leaves the
    waiting to a reaper thread: the verdict is written before the teardown ends)."""
    settle = getattr(launcher, "settle", None)
    if settle is not None:
        assert settle(), "the launcher's reaper did not finish"
    return report


def assert_contained(report, *secrets_: str, level: str = "strict") -> None:
    """Not AC, not IE, nothing secret in the report, and every case ran at ``level``."""
    assert report.verdict is not Verdict.AC
    assert report.verdict is not Verdict.IE and all(c.verdict is not Verdict.IE for c in report.cases), \
        report.message
    assert report.sandbox == level
    assert all(c.sandbox in (level, None) for c in report.cases)
    assert_no_leak(report, *secrets_)


def assert_no_leak(report, *secrets_: str) -> None:
    """No canary, no secret, no server path and no judge traceback anywhere in the report."""
    text = json.dumps(report.to_json(), ensure_ascii=False)
    for secret in (CANARY, *secrets_):
        assert secret not in text, f"leaked {secret!r}"
    assert str(PROJECT_ROOT) not in text, "a server path reached the report"
    assert 'File "/' not in text and "judge/engine/runner.py" not in text, "a judge traceback reached the report"


def assert_judge_healthy(launcher) -> None:
    """The same judge grades the reference AC, and no sandbox slot is held between jobs."""
    slots = getattr(launcher, "slots", None)
    if slots is not None:
        assert launcher.free_slots == slots, "a sandbox slot leaked"
    exercise = resolve("39")
    report = judge_file(exercise, exercise.reference_path, seed=2, suites=("public",), launcher=launcher)
    assert report.verdict is Verdict.AC, report.message
    if slots is not None:
        assert launcher.free_slots == slots, "a sandbox slot leaked"


def frame_body(header: dict) -> bytes:
    return json.dumps(header, separators=(",", ":")).encode()


def marker() -> str:
    """A process name (``comm``, at most 15 bytes) to find an attack's processes by."""
    return "pj" + secrets.token_hex(5)


def processes_named(name: str) -> list[int]:
    """Living (non-zombie) processes whose ``comm`` is ``name``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            comm = (entry / "comm").read_text().strip()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if comm == name and state != "Z":
            found.append(int(entry.name))
    return found


def renamer(name: str) -> str:
    """Learner-side code that names the calling process ``name`` (prctl PR_SET_NAME)."""
    return f"ctypes.CDLL(None).prctl(15, ctypes.c_char_p({name!r}.encode()), 0, 0, 0)"


def kill_quietly(pid: int) -> None:
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (one that ended and waits for its parent)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"
