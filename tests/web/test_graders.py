"""Grader processes beside the site: `python -m web serve` and two `python -m web grade` on one
SQLite file grade 100 submissions exactly once, and a grader killed mid-job loses nothing."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from sqlalchemy import func, select

from judge.exercise import EXERCISES_DIR
from judge.sandbox.layers import missing_required
from judge.verdicts import Verdict
from web.database import make_engine, session_factory
from web.models import ApiToken, Grading, Status, Submission, User
from web.serve import missing_assets

# Starts the strict sandbox; runs in the parallel part like the rest (tests/conftest.py).
pytestmark = pytest.mark.strict_sandbox

ROOT = Path(__file__).resolve().parents[2]
# A small exercise in a private pack: the queue is under test here, not exercise 39's statistics,
# so a grading costs a few milliseconds of judging and the 100 finish in well under a minute.
REFERENCE = "def double(x):\n    return x + x\n"
WRONG = "def double(x):\n    return 3 * x\n"
PACK_TOML = """
number = 986
slug = "double-quick"
difficulty = "easy"
[title]
en = "Double it"
zh = "翻倍"
[functions.double]
params = ["x"]
[judging]
time_limit_s = 5.0
"""
PUBLIC = """
from judge.checks import expect


def test_small(sub, ctx):
    \"\"\"small values\"\"\"
    for x in (0, 1, -3):
        expect(sub.double(x) == 2 * x, "double(x) must be 2 * x")
"""
HIDDEN = """
import time

from judge.checks import expect


def test_large(sub, ctx):
    \"\"\"large values\"\"\"
    time.sleep(0.2)  # long enough that a grader is caught holding a grading
    for x in (10**12, -(10**15)):
        expect(sub.double(x) == 2 * x, "double(x) must be 2 * x")
"""


def _write_pack(root: Path) -> Path:
    folder = root / "exercises" / "986-double-quick"
    for part in ("public", "hidden"):
        (folder / "tests" / part).mkdir(parents=True)
    (folder / "exercise.toml").write_text(PACK_TOML)
    for lang in ("en", "zh"):
        (folder / f"statement.{lang}.md").write_text("# Double it\n\n`double(x)` returns `2 * x`.\n")
    (folder / "starter.py").write_text("def double(x):\n    raise NotImplementedError\n")
    (folder / "tests" / "public" / "public.py").write_text(PUBLIC)
    (folder / "tests" / "hidden" / "hidden.py").write_text(HIDDEN)
    return root / "exercises"
SUBMISSIONS = 100
LEARNERS = 25  # 4 each: under the limit of 5 waiting submissions per learner
LEASE_S = 3


class Process:
    """A `python -m web ...` child whose output a thread keeps reading (so its pipe never fills)."""

    def __init__(self, env: dict, *args: str) -> None:
        self.popen = subprocess.Popen([sys.executable, "-m", "web", *args], cwd=ROOT, env=env, text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.popen.stdout:
            self.lines.append(line)

    def wait_for(self, pattern: str, timeout: float = 120.0) -> re.Match:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.lines):
                found = re.search(pattern, line)
                if found:
                    return found
            if self.popen.poll() is not None and not self._reader.is_alive():
                break
            time.sleep(0.05)
        raise AssertionError(f"no {pattern!r} in the output:\n{''.join(self.lines)}")

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.popen.pid, signal.SIGKILL)
                self.popen.wait()
        self._reader.join(5)


@pytest.fixture
def environment(tmp_path):
    if missing_assets():
        pytest.skip("the browser assets are not built (`make assets`); `serve` refuses to start without them")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROBJUDGE_")}
    pack = _write_pack(tmp_path / "course")
    env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'site.db'}", SECRET_KEY="test", PROBJUDGE_RATE_LIMITS="0",
               PROBJUDGE_EXERCISES=os.pathsep.join([str(pack), str(EXERCISES_DIR)]),
               PROBJUDGE_SANDBOX="local" if missing_required() else "strict", PROBJUDGE_WORKERS="1",
               PROBJUDGE_LEASE_SECONDS=str(LEASE_S), PROBJUDGE_ADMIN_PASSWORD="administrator-password")
    return env


def test_two_graders_and_the_site_grade_each_submission_once_and_take_over_a_killed_one(environment):
    site = Process(environment, "serve", "--port", "0")
    graders: list[Process] = []
    try:
        port = int(site.wait_for(r"serving http://[^:]+:(\d+)/").group(1))
        graders = [Process(environment, "grade", "--workers", "1") for _ in range(2)]
        for grader in graders:
            grader.wait_for(r"is grading with 1 workers")
        engine = make_engine(environment["DATABASE_URL"])
        sessions = session_factory(engine)
        headers = []
        with sessions() as session:
            for number in range(LEARNERS):
                user = User(name=f"learner{number}")
                user.set_password("password123")
                token, secret = ApiToken.issue(user)
                session.add_all([user, token])
                headers.append({"Authorization": f"Bearer {secret}", "Content-Type": "application/json"})
            session.commit()

        expected = {}
        for index in range(SUBMISSIONS):
            code = REFERENCE if index % 2 == 0 else WRONG
            request = urllib.request.Request(f"http://127.0.0.1:{port}/api/v1/submissions", method="POST",
                                             data=json.dumps({"exercise": "986", "code": code}).encode(),
                                             headers=headers[index % LEARNERS])
            with urllib.request.urlopen(request, timeout=30) as answer:
                assert answer.status == 202
                expected[json.load(answer)["id"]] = Verdict.AC if index % 2 == 0 else Verdict.WA

        # Kill the first grader outright while it holds a grading.
        victim = graders[0]
        marker = f":{victim.popen.pid}:"
        deadline = time.monotonic() + 120
        held = None
        while held is None and time.monotonic() < deadline:
            with sessions() as session:
                held = session.scalar(select(Grading.id).where(Grading.status == Status.running,
                                                               Grading.worker.contains(marker)))
            if held is None:
                time.sleep(0.05)
        assert held is not None, "the grader never took a grading"
        os.killpg(victim.popen.pid, signal.SIGKILL)
        victim.popen.wait()

        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            with sessions() as session:
                waiting = session.scalar(select(func.count()).select_from(Grading)
                                         .where(Grading.status != Status.done))
            if not waiting:
                break
            time.sleep(0.5)
        with sessions() as session:
            submissions = session.scalars(select(Submission).order_by(Submission.id)).all()
            assert {s.id: s.current.verdict if s.current else None for s in submissions} == expected
            assert all(len(s.gradings) == 1 for s in submissions), "a submission got a second grading"
            taken_over = session.get(Grading, held)
            assert taken_over.attempts == 2 and marker not in taken_over.worker
            others = [s.current for s in submissions if s.current.id != held]
            # Exactly once: every other grading was started once; only the killed grader's was started again.
            assert all(g.attempts == 1 for g in others)
            writers = {g.worker.split(":")[1] for g in others}
            assert {str(site.popen.pid), str(graders[1].popen.pid)} <= writers, "not every process graded"
        engine.dispose()
    finally:
        for process in [*graders, site]:
            process.stop()
