"""Nothing of the judge's environment reaches the learner's process, through every launcher.

The site reads its secrets from the environment (``web/core/config.py``, ``docs/deploying.md``):
``DATABASE_URL``, ``SECRET_KEY``, ``PROBJUDGE_BROKER_URL``, ``PROBJUDGE_ADMIN_PASSWORD``... and a
host may hold any other (cloud keys, a CI token). The child's environment is an allow-list
(:func:`judge.sandbox.launchers.child_environment`; the strict level's confinement empties it), so
these tests set the site's real names, names of no pattern, and one made up per run, each with a
value made up per run, and look for every name and every value in what the learner's code reads.
The positive control: what the allow-list keeps (``PATH``, ``LANG``) does reach the child.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
from attack_support import needs_strict

from judge.engine.process import LearnerProcess
from judge.learner.interface import LearnerSource
from judge.sandbox.launchers import LocalLauncher, WarmLocalLauncher

pytestmark = pytest.mark.strict_sandbox

# Every variable the site reads that holds a secret or a server's address, and names a host may
# hold for other programs: none of them has a PROBJUDGE_ prefix to be filtered by.
SITE_NAMES = (
    "DATABASE_URL",
    "SECRET_KEY",
    "PROBJUDGE_BROKER_URL",
    "PROBJUDGE_ADMIN_USER",
    "PROBJUDGE_ADMIN_PASSWORD",
    "PROBJUDGE_RATELIMIT_STORAGE",
    "PROBJUDGE_TEST_POSTGRESQL_URL",
    "PROBJUDGE_TEST_REDIS_URL",
)
HOST_NAMES = (
    "CELERY_BROKER_URL",
    "REDIS_URL",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "GITHUB_TOKEN",
    "PGPASSWORD",
)
LANG = "C.UTF-8"  # kept by the allow-list: it must arrive as the judge has it

READER = """
import os

def environment():
    return dict(os.environ)
"""


@pytest.fixture
def judge_secrets(monkeypatch) -> dict[str, str]:
    """The judge's environment holds every secret name, with a value made up for this run."""
    names = (*SITE_NAMES, *HOST_NAMES, "PJ_RANDOM_" + secrets.token_hex(6).upper(), "x" + secrets.token_hex(4))
    planted = {name: "pj-secret-" + secrets.token_hex(12) for name in names}
    for name, value in planted.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LANG", LANG)
    monkeypatch.setenv("PATH", "/usr/local/bin:/usr/bin:/bin")
    return planted


def _seen(launcher) -> dict[str, str]:
    with LearnerProcess(LearnerSource(READER), launcher=launcher) as process:
        return process.call("environment", [], {}, timeout_s=60).value


def _server_environment(pid: int) -> dict[str, str]:
    """What a fork server was started with (``/proc/PID/environ``): its children inherit it."""
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    return dict(entry.split("=", 1) for entry in raw.decode().split("\0") if "=" in entry)


def _assert_none_leaked(environment: dict[str, str], planted: dict[str, str]) -> None:
    assert not set(planted) & set(environment), sorted(set(planted) & set(environment))
    for value in planted.values():
        assert not [name for name, held in environment.items() if value in held], "a secret value leaked"


def _assert_local_allow_list(seen: dict[str, str]) -> None:
    """What a local child gets: the allow-list's names as the judge has them, and its own home."""
    assert seen["LANG"] == LANG and seen["PATH"] == "/usr/local/bin:/usr/bin:/bin"
    assert seen["HOME"] == seen["TMPDIR"] and Path(seen["HOME"]).name.startswith("probjudge-")
    assert seen["PYTHONHASHSEED"] == "0"


def test_a_fresh_local_process_sees_none_of_the_judges_secrets(judge_secrets):
    seen = _seen(LocalLauncher())
    _assert_none_leaked(seen, judge_secrets)
    _assert_local_allow_list(seen)


def test_a_warm_local_process_and_its_fork_server_see_none_of_the_judges_secrets(judge_secrets):
    """The fork server starts at the first launch, after the secrets were set: a server that took
    the judge's environment would hand it to every job it forks."""
    with WarmLocalLauncher() as launcher:
        seen = _seen(launcher)
        server = launcher.server_pid
        assert server is not None
        _assert_none_leaked(_server_environment(server), judge_secrets)
        assert _server_environment(server)["LANG"] == LANG
    _assert_none_leaked(seen, judge_secrets)
    _assert_local_allow_list(seen)


@needs_strict
def test_a_strict_process_and_its_fork_server_see_none_of_the_judges_secrets(judge_secrets):
    """The strict level gives the learner's process three variables, whatever the judge holds."""
    from judge.sandbox.strict import StrictLauncher

    launcher = StrictLauncher(slots=1)
    try:
        seen = _seen(launcher)
        zygote = launcher.zygote
        assert zygote is not None and zygote.alive
        server = _server_environment(zygote.pid)
    finally:
        launcher.close()
    _assert_none_leaked(server, judge_secrets)
    _assert_none_leaked(seen, judge_secrets)
    assert "LANG" not in server and server["PATH"] == "/usr/bin:/bin"
    assert seen.keys() == {"HOME", "TMPDIR", "PATH"}, sorted(seen)
    assert seen["PATH"] == "/usr/bin:/bin" and seen["HOME"] == seen["TMPDIR"]
