"""The site's data layer: migrations build the schema, exercises sync, accounts and tokens."""

from __future__ import annotations

import subprocess
import sys

import pytest
from sqlalchemy import inspect, select

from web.config import Settings
from web.database import make_engine, session_factory, upgrade
from web.exercises import sync_exercises
from web.models import ApiToken, Exercise, Role, Status, Submission, User, count_queued


@pytest.fixture
def database(tmp_path):
    url = f"sqlite:///{tmp_path / 'site.db'}"
    upgrade(url)
    engine = make_engine(url)
    yield url, session_factory(engine)
    engine.dispose()


def test_migrations_build_every_table_in_wal_mode(database):
    url, _ = database
    engine = make_engine(url)
    tables = set(inspect(engine).get_table_names())
    assert {"user", "api_token", "exercise", "submission", "alembic_version"} <= tables
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    upgrade(url)  # idempotent
    engine.dispose()


def test_exercises_sync_and_notice_changes(database):
    _, Session = database
    with Session() as session:
        first = sync_exercises(session)
        assert 39 in first.added
        assert 39 in sync_exercises(session).unchanged
        row = session.scalar(select(Exercise).where(Exercise.number == 39))
        assert row.slug == "sampling" and row.title_zh.startswith("温度") and len(row.content_hash) == 64
        row.content_hash = "stale"
        session.commit()
        assert 39 in sync_exercises(session).changed


def test_passwords_are_hashed_and_tokens_stored_as_digests(database):
    _, Session = database
    with Session() as session:
        user = User(name="ada", role=Role.instructor)
        user.set_password("correct horse")
        token, secret = ApiToken.issue(user)
        session.add_all([user, token])
        session.commit()
        assert "correct horse" not in user.password_hash and user.check_password("correct horse")
        assert not user.check_password("wrong")
        assert token.token_hash != secret and ApiToken.find_user(session, secret).name == "ada"
        assert ApiToken.find_user(session, secret + "x") is None
        with pytest.raises(ValueError, match="8 characters"):
            user.set_password("short")


def test_submissions_start_queued_and_count_against_the_user(database):
    _, Session = database
    with Session() as session:
        sync_exercises(session)
        user = User(name="bob")
        user.set_password("password1")
        exercise = session.scalar(select(Exercise))
        session.add_all([user, Submission(user=user, exercise=exercise, code="x = 1")])
        session.commit()
        submission = session.scalar(select(Submission))
        assert submission.status is Status.queued and submission.seed is None and submission.verdict is None
        assert count_queued(session, user) == 1
        submission.status, submission.seed = Status.done, 2**53 - 1
        session.commit()
        assert count_queued(session, user) == 0 and session.get(Submission, submission.id).seed == 2**53 - 1


def test_settings_come_from_the_environment_with_clear_errors(tmp_path):
    settings = Settings.from_environment({"DATABASE_URL": "sqlite:///x.db", "SECRET_KEY": "k",
                                          "PROBJUDGE_WORKERS": "3", "PROBJUDGE_SANDBOX": "local"})
    assert settings.workers == 3 and settings.sandbox == "local" and not settings.allow_weaker_sandbox
    with pytest.raises(ValueError, match="PROBJUDGE_WORKERS must be an integer"):
        Settings.from_environment({"SECRET_KEY": "k", "PROBJUDGE_WORKERS": "many"})
    with pytest.raises(ValueError, match="PROBJUDGE_SANDBOX"):
        Settings.from_environment({"SECRET_KEY": "k", "PROBJUDGE_SANDBOX": "none"})


def test_create_user_command(tmp_path, project_root):
    env = {"DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}", "SECRET_KEY": "k", "PATH": "/usr/bin:/bin"}
    command = [sys.executable, "-m", "web", "create-user", "carol", "--role", "instructor", "--password",
               "pass-word-1", "--token"]
    done = subprocess.run(command, cwd=project_root, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0] == "created instructor 'carol'" and lines[1].startswith("pj_")
    again = subprocess.run(command, cwd=project_root, env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 2 and "already exists" in again.stderr
    weak = subprocess.run(command[:4] + ["dave", "--password", "short"], cwd=project_root, env=env,
                          capture_output=True, text=True, timeout=120)
    assert weak.returncode == 2 and "8 characters" in weak.stderr
