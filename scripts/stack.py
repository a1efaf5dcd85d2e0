"""A whole ProbJudge deployment on loopback, for the scale test and the load benchmark.

:class:`Stack` starts the site (``python -m web serve``), grader processes (``python -m web
grade``: Celery workers when a broker URL is given, database-polling graders otherwise) and,
with a broker, ``python -m web beat``; each is a child process in its own session, so it can be
killed outright (SIGKILL) as a crashed machine would be. Learners and their API tokens are
written straight into the database; submissions go through the site's JSON API, as a browser's
would.

The exercise graded is a tiny private pack (:data:`PACK_NUMBER`): the queue is what is measured,
not an exercise's statistics, so one grading costs the sandbox's start-up plus ``sleep_s``.
"""

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
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PACK_NUMBER = 986
REFERENCE = "def double(x):\n    return x + x\n"
WRONG = "def double(x):\n    return 3 * x\n"
_PACK_TOML = """
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
_PUBLIC = """
from judge.checks.exact import expect


def test_small(sub, ctx):
    \"\"\"small values
    zh: 小的值\"\"\"
    for x in (0, 1, -3):
        expect(sub.double(x) == 2 * x, "double(x) must be 2 * x")
"""
_HIDDEN = """
import time

from judge.checks.exact import expect


def test_large(sub, ctx):
    \"\"\"large values
    zh: 大的值\"\"\"
    time.sleep({sleep_s})  # a grading that takes a while, as a real one does
    for x in (10**12, -(10**15)):
        expect(sub.double(x) == 2 * x, "double(x) must be 2 * x")
"""


def write_pack(root: Path, sleep_s: float = 0.2) -> Path:
    """Write the tiny exercise pack under ``root``; return its ``exercises`` folder."""
    folder = root / "exercises" / "986-double-quick"
    for part in ("public", "hidden"):
        (folder / "tests" / part).mkdir(parents=True, exist_ok=True)
    (folder / "exercise.toml").write_text(_PACK_TOML)
    for lang in ("en", "zh"):
        (folder / f"statement.{lang}.md").write_text("# Double it\n\n`double(x)` returns `2 * x`.\n")
    (folder / "starter.py").write_text("def double(x):\n    raise NotImplementedError\n")
    (folder / "tests" / "public" / "public.py").write_text(_PUBLIC)
    (folder / "tests" / "hidden" / "hidden.py").write_text(_HIDDEN.replace("{sleep_s}", repr(sleep_s)))
    return root / "exercises"


def fresh_database(server_url: str | None, folder: Path) -> str:
    """A new empty database: on the PostgreSQL server ``server_url`` (a superuser's URL), else a
    SQLite file in ``folder``."""
    if not server_url:
        return f"sqlite:///{folder / 'site.db'}"
    from sqlalchemy import create_engine, make_url, text

    name = f"probjudge_stack_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return make_url(server_url).set(database=name).render_as_string(hide_password=False)


def make_learners(sessions, count: int) -> list[dict[str, str]]:
    """Create ``count`` learners, each with an API token, in one transaction of ``sessions`` (a
    session factory of the site's database); return each one's API request headers."""
    from web.core.models import ApiToken, User

    headers = []
    with sessions() as session:
        for number in range(count):
            user = User(name=f"learner{number}-{uuid.uuid4().hex[:6]}")
            user.set_password("password123")
            token, secret = ApiToken.issue(user)
            session.add_all([user, token])
            headers.append({"Authorization": f"Bearer {secret}", "Content-Type": "application/json"})
        session.commit()
    return headers


class Process:
    """A ``python -m web ...`` child whose output a thread keeps reading (its pipe never fills)."""

    def __init__(self, env: dict[str, str], *args: str) -> None:
        self.args = args
        self.popen = subprocess.Popen(
            [sys.executable, "-m", "web", *args],
            cwd=ROOT,
            env=env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            self.lines.append(line)

    def wait_for(self, pattern: str, timeout: float = 120.0) -> re.Match:
        """The first output line matching ``pattern``; AssertionError (with the output) after ``timeout``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.lines):
                found = re.search(pattern, line)
                if found:
                    return found
            if self.popen.poll() is not None and not self._reader.is_alive():
                break
            time.sleep(0.05)
        raise AssertionError(f"no {pattern!r} in the output of {self.args}:\n{''.join(self.lines[-80:])}")

    def kill(self) -> None:
        """SIGKILL the process and everything it started (a machine that died)."""
        if self.popen.poll() is None:
            os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait()

    def stop(self, timeout: float = 60.0) -> None:
        """SIGTERM (the gradings under way finish), then SIGKILL after ``timeout``."""
        if self.popen.poll() is None:
            try:
                os.killpg(self.popen.pid, signal.SIGTERM)
                self.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.popen.pid, signal.SIGKILL)
                self.popen.wait()
            except ProcessLookupError:
                pass
        self._reader.join(5)


@dataclass
class Stack:
    """The site, ``graders`` grader processes (``threads`` each) and, with a broker, beat.

    ``site_workers`` > 0 and ``graders`` = 0 is the default deployment: grading threads in the
    site's process. Call :meth:`start`, then :meth:`learners`, :meth:`submit`; :meth:`stop` at the end.
    """

    folder: Path
    database_url: str
    broker_url: str | None = None
    graders: int = 2
    live_only: int = 0  # of the graders, how many take live work alone (`--queues live`)
    threads: int = 1
    site_workers: int = 0
    lease_s: int = 3
    sweep_s: int = 1
    sleep_s: float = 0.2
    sandbox: str | None = None  # None: strict where it can run, else local
    lanes: int | None = None  # PROBJUDGE_LANES for every process; None: the settings' default
    processes: list[Process] = field(default_factory=list)
    grader_processes: list[Process] = field(default_factory=list)
    port: int = 0

    def environment(self) -> dict[str, str]:
        from judge.exercises.folders import EXERCISES_DIR
        from judge.sandbox.layers import missing_required

        env = {k: v for k, v in os.environ.items() if not k.startswith("PROBJUDGE_")}
        pack = write_pack(self.folder / "pack", self.sleep_s)
        env.update(
            DATABASE_URL=self.database_url,
            SECRET_KEY="stack",
            PROBJUDGE_RATE_LIMITS="0",
            PROBJUDGE_EXERCISES=os.pathsep.join([str(pack), str(EXERCISES_DIR)]),
            PROBJUDGE_SANDBOX=self.sandbox or ("local" if missing_required() else "strict"),
            PROBJUDGE_WORKERS=str(self.threads),
            PROBJUDGE_LEASE_SECONDS=str(self.lease_s),
            PROBJUDGE_SWEEP_SECONDS=str(self.sweep_s),
            PROBJUDGE_ADMIN_PASSWORD="administrator-password",
            PROBJUDGE_BEAT_SCHEDULE=str(self.folder / "celerybeat-schedule"),
        )
        if self.broker_url:
            env["PROBJUDGE_BROKER_URL"] = self.broker_url
        if self.lanes is not None:
            env["PROBJUDGE_LANES"] = str(self.lanes)
        return env

    def start(self) -> Stack:
        self.folder.mkdir(parents=True, exist_ok=True)
        env = self.environment()
        site_env = dict(env, PROBJUDGE_WORKERS=str(self.site_workers))
        site = Process(site_env, "serve", "--port", "0")
        self.processes.append(site)
        self.port = int(site.wait_for(r"serving http://[^:]+:(\d+)/").group(1))
        for number in range(self.graders):
            self.add_grader(env, queues="live" if number < self.live_only else None)
        if self.broker_url:
            beat = Process(env, "beat")
            self.processes.append(beat)
            beat.wait_for(r"beat: Starting|ProbJudge beat")
        return self

    def add_grader(self, env: dict[str, str] | None = None, queues: str | None = None) -> Process:
        extra = ("--queues", queues) if queues else ()
        grader = Process(env or self.environment(), "grade", "--workers", str(self.threads), *extra)
        self.processes.append(grader)
        self.grader_processes.append(grader)
        grader.wait_for(r"ready\.|is grading with" if self.broker_url is None else r"@\S+ ready")
        return grader

    def stop(self) -> None:
        for process in reversed(self.processes):
            process.stop()

    def sessions(self):
        from web.core.database import make_engine, session_factory

        return session_factory(make_engine(self.database_url))

    def learners(self, count: int) -> list[dict[str, str]]:
        """Create ``count`` learners; return each one's API request headers."""
        return make_learners(self.sessions(), count)

    def submit(self, headers: dict[str, str], code: str, exercise: int = PACK_NUMBER) -> int:
        """POST a submission through the API; return its id (raises on any answer but 202)."""
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/api/v1/submissions",
            method="POST",
            data=json.dumps({"exercise": str(exercise), "code": code}).encode(),
            headers=headers,
        )
        with urllib.request.urlopen(request, timeout=60) as answer:
            if answer.status != 202:
                raise RuntimeError(f"submission refused: {answer.status}")
            return int(json.load(answer)["id"])
