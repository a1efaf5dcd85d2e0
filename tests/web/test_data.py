"""The site's data layer: migrations build the schema, exercises sync, accounts and tokens."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from sqlalchemy import inspect, select

from judge.verdicts import Verdict
from web.core.config import Settings
from web.core.database import make_engine, session_factory, upgrade
from web.core.models import ApiToken, Exercise, Grading, Priority, Role, Status, Submission, User, count_queued
from web.learning.exercises import sync_exercises


@pytest.fixture
def database(database_url):
    engine = make_engine(database_url)
    yield database_url, session_factory(engine)
    engine.dispose()


def test_migrations_build_every_table_in_wal_mode(tmp_path):
    """SQLite-only: WAL mode is SQLite's (the fresh file is migrated here, not copied)."""
    url = f"sqlite:///{tmp_path / 'site.db'}"
    upgrade(url)
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
        submission = Submission(user=user, exercise=exercise, code="x = 1")
        submission.gradings.append(Grading())
        session.add_all([user, submission])
        session.commit()
        submission = session.scalar(select(Submission))
        grading = submission.shown
        assert grading.status is Status.queued and grading.seed is None and grading.verdict is None
        assert grading.priority == Priority.live and submission.current is None
        assert count_queued(session, user) == 1
        submission.gradings.append(Grading(priority=Priority.rejudge))  # a rejudge does not count
        session.commit()
        assert count_queued(session, user) == 1
        grading.status, grading.seed, grading.verdict = Status.done, 2**53 - 1, Verdict.AC
        session.commit()
        assert count_queued(session, user) == 0 and session.get(Grading, grading.id).seed == 2**53 - 1
        assert session.get(Grading, grading.id).verdict is Verdict.AC


def test_settings_come_from_the_environment_with_clear_errors(tmp_path):
    settings = Settings.from_environment({"DATABASE_URL": "sqlite:///x.db", "SECRET_KEY": "k",
                                          "PROBJUDGE_WORKERS": "3", "PROBJUDGE_SANDBOX": "local"})
    assert settings.workers == 3 and settings.sandbox == "local" and not settings.allow_weaker_sandbox
    with pytest.raises(ValueError, match="PROBJUDGE_WORKERS must be an integer"):
        Settings.from_environment({"SECRET_KEY": "k", "PROBJUDGE_WORKERS": "many"})
    with pytest.raises(ValueError, match="PROBJUDGE_SANDBOX"):
        Settings.from_environment({"SECRET_KEY": "k", "PROBJUDGE_SANDBOX": "none"})
    assert settings.lanes == 2
    assert Settings.from_environment({"SECRET_KEY": "k", "PROBJUDGE_LANES": "1"}).lanes == 1
    for bad, problem in (("0", "must be at least 1"), ("9", "must be at most 8"), ("two", "must be an integer")):
        with pytest.raises(ValueError, match=f"PROBJUDGE_LANES {problem}"):
            Settings.from_environment({"SECRET_KEY": "k", "PROBJUDGE_LANES": bad})


def test_the_sandbox_gets_lanes_per_worker_but_never_fewer_slots_than_workers():
    from judge.sandbox.strict import MAX_SLOTS
    from web.core.config import SANDBOX_SLOTS

    settings = Settings.from_environment({"SECRET_KEY": "k"})
    assert SANDBOX_SLOTS == MAX_SLOTS
    assert settings.sandbox_slots(1) == 2 and settings.sandbox_slots(2) == 4
    assert settings.sandbox_slots(10) == 16  # the sandbox's most: the queue gives these workers one lane each
    # More workers than the strict sandbox has slots: asked for as many slots, so the launcher refuses
    # at start, loudly, rather than 20 threads sharing 16 slots and failing gradings as internal errors.
    assert settings.sandbox_slots(20) == 20


def test_create_user_command(database_url, project_root):
    env = {"DATABASE_URL": database_url, "SECRET_KEY": "k", "PATH": "/usr/bin:/bin"}
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


def test_the_gradings_migration_moves_every_result_and_loses_nothing(tmp_path):
    """0002 → 0003: each old submission becomes one grading with its result; back down restores it.

    SQLite-only: the sites that had these old revisions ran on SQLite files."""
    from alembic import command
    from sqlalchemy import text

    from web.core.database import alembic_config

    url = f"sqlite:///{tmp_path / 'old.db'}"
    command.upgrade(alembic_config(url), "0002")
    engine = make_engine(url)
    report = {"verdict": "WA", "diagnosis": "top-k keeps one token too many", "cases": []}
    with engine.begin() as connection:
        connection.execute(text("INSERT INTO user (id, name, name_key, password_hash, role, language, created_at) "
                                "VALUES (1, 'ann', 'ann', 'x', 'learner', 'en', '2026-01-01 00:00:00')"))
        connection.execute(text("INSERT INTO exercise (id, number, slug, title_en, title_zh, difficulty, tags, runs_in, "
                                "content_hash, synced_at) VALUES (1, 39, 'sampling', 'S', 'S', 'easy', '[]', '[]', "
                                "'h', '2026-01-01 00:00:00')"))
        rows = [(1, "done", "WA", 5, json.dumps(report), 1), (2, "running", None, None, None, 2),
                (3, "queued", None, None, None, 0)]
        for number, status, verdict, seed, stored, attempts in rows:
            connection.execute(text(
                "INSERT INTO submission (id, user_id, exercise_id, code, status, verdict, seed, report_json, attempts, "
                "score_passed, score_total, created_at, started_at, finished_at) VALUES (:id, 1, 1, :code, :status, "
                ":verdict, :seed, :report, :attempts, 2, 3, '2026-01-01 00:00:00', '2026-01-01 00:00:01', "
                ":finished)"), {"id": number, "code": f"# code {number}", "status": status, "verdict": verdict,
                                "seed": seed, "report": stored, "attempts": attempts,
                                "finished": "2026-01-01 00:00:02" if status == "done" else None})
    engine.dispose()

    upgrade(url)
    engine = make_engine(url)
    with session_factory(engine)() as session:
        done, running, queued = session.scalars(select(Submission).order_by(Submission.id)).all()
        assert [s.code for s in (done, running, queued)] == ["# code 1", "# code 2", "# code 3"]
        assert [len(s.gradings) for s in (done, running, queued)] == [1, 1, 1]
        assert done.current.id == done.id and done.current.verdict is Verdict.WA and done.current.seed == 5
        assert done.current.report_json == report and done.current.diagnosis == report["diagnosis"]
        assert (done.current.score_passed, done.current.score_total, done.current.attempts) == (2, 3, 1)
        assert running.current is None and running.latest.status is Status.queued and running.latest.attempts == 2
        assert queued.current is None and queued.latest.status is Status.queued
        assert all(s.latest.priority == Priority.live for s in (done, running, queued))
    engine.dispose()

    command.downgrade(alembic_config(url), "0002")
    engine = make_engine(url)
    with engine.connect() as connection:
        restored = connection.execute(text("SELECT id, status, verdict, seed, attempts FROM submission ORDER BY id")).all()
    engine.dispose()
    assert [tuple(r) for r in restored] == [(1, "done", "WA", 5, 1), (2, "queued", None, None, 2),
                                            (3, "queued", None, None, 0)]


def test_the_migrations_build_exactly_the_models_schema(database_url):
    """No model change without its migration: Alembic's comparison finds nothing to add or drop."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    import web.lms.models  # noqa: F401  (the LTI tables live on the same Base, in their own package)
    from web.core.models import Base

    engine = make_engine(database_url)
    with engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection, opts={"compare_type": True}),
                                       Base.metadata)
    engine.dispose()
    assert differences == []


def test_every_migration_goes_down_and_up_again(database_url):
    """Both backends run the same migrations, downgrades included: down to nothing, then up again."""
    from alembic import command

    from web.core.database import alembic_config

    command.downgrade(alembic_config(database_url), "base")
    engine = make_engine(database_url)
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    engine.dispose()
    upgrade(database_url)
    engine = make_engine(database_url)
    assert {"user", "submission", "grading", "course"} <= set(inspect(engine).get_table_names())
    engine.dispose()


def test_the_courses_migration_keeps_every_instructors_reach_and_fills_the_analytics_columns(tmp_path):
    """0003 → 0004: instructors become site admins (they saw everything before); a finished
    grading gets its first failed case and Chinese diagnosis; back down, admins are instructors.

    SQLite-only: the sites that had these old revisions ran on SQLite files."""
    from alembic import command
    from sqlalchemy import text

    from web.core.database import alembic_config

    url = f"sqlite:///{tmp_path / 'old.db'}"
    command.upgrade(alembic_config(url), "0003")
    engine = make_engine(url)
    report = {"verdict": "WA", "diagnosis": "d", "diagnosis_zh": "诊断", "cases": [
        {"name": "softmax", "verdict": "AC"}, {"name": "zipf", "verdict": "WA"}, {"name": "greedy", "verdict": "RE"}]}
    with engine.begin() as connection:
        for user_id, name, role in ((1, "ann", "learner"), (2, "ida", "instructor")):
            connection.execute(text("INSERT INTO user (id, name, name_key, password_hash, role, language, created_at) "
                                    "VALUES (:id, :name, :name, 'x', :role, 'en', '2026-01-01 00:00:00')"),
                               {"id": user_id, "name": name, "role": role})
        connection.execute(text("INSERT INTO exercise (id, number, slug, title_en, title_zh, difficulty, tags, runs_in, "
                                "content_hash, synced_at) VALUES (1, 39, 'sampling', 'S', 'S', 'easy', '[]', '[]', "
                                "'h', '2026-01-01 00:00:00')"))
        connection.execute(text("INSERT INTO submission (id, user_id, exercise_id, code, created_at, current_grading_id) "
                                "VALUES (1, 1, 1, 'x', '2026-01-01 00:00:00', 1)"))
        for grading_id, stored in ((1, json.dumps(report)), (2, None)):
            connection.execute(text("INSERT INTO grading (id, submission_id, status, priority, attempts, created_at, "
                                    "report_json) VALUES (:id, 1, 'done', 0, 1, '2026-01-01 00:00:00', :report)"),
                               {"id": grading_id, "report": stored})
    engine.dispose()

    upgrade(url)
    engine = make_engine(url)
    with engine.connect() as connection:
        roles = dict(connection.execute(text("SELECT name, role FROM user")).all())
        filled = connection.execute(text("SELECT id, failed_case, diagnosis_zh FROM grading ORDER BY id")).all()
    assert roles == {"ann": "learner", "ida": "admin"}
    assert [tuple(row) for row in filled] == [(1, "zipf", "诊断"), (2, None, None)]
    engine.dispose()

    command.downgrade(alembic_config(url), "0003")
    engine = make_engine(url)
    with engine.connect() as connection:
        assert dict(connection.execute(text("SELECT name, role FROM user")).all()) == {"ann": "learner",
                                                                                      "ida": "instructor"}
        assert "course" not in set(inspect(engine).get_table_names())
    engine.dispose()


def test_the_context_migration_keeps_every_gradebooks_attempts(tmp_path):
    """0005 → 0006: a submission gets the course of its author that assigns its exercise, joined
    by then, to an assignment open by then; of several, the oldest membership's; of none (or an
    instructor's, or work done before joining or before the assignment opened), practice. Down
    and up again.

    SQLite-only: a schema step like the others, whose data step is plain SQL."""
    from alembic import command
    from sqlalchemy import text

    from web.core.database import alembic_config

    url = f"sqlite:///{tmp_path / 'old.db'}"
    command.upgrade(alembic_config(url), "0005")
    engine = make_engine(url)
    moment = "'2026-01-01 00:00:00'"
    with engine.begin() as connection:
        for user_id, name in ((1, "ann"), (2, "bo"), (3, "cy"), (4, "ida")):
            connection.execute(text("INSERT INTO user (id, name, name_key, password_hash, role, language, created_at) "
                                    f"VALUES (:id, :name, :name, 'x', 'learner', 'en', {moment})"),
                               {"id": user_id, "name": name})
        for exercise_id, number in ((1, 39), (2, 1)):
            connection.execute(text("INSERT INTO exercise (id, number, slug, title_en, title_zh, difficulty, tags, "
                                    f"runs_in, content_hash, synced_at) VALUES (:id, :n, :slug, 'S', 'S', 'easy', "
                                    f"'[]', '[]', 'h', {moment})"), {"id": exercise_id, "n": number, "slug": f"e{number}"})
        for course_id in (1, 2):
            connection.execute(text("INSERT INTO course (id, name, join_code, time_zone, created_at) "
                                    f"VALUES (:id, :name, :code, 'UTC', {moment})"),
                               {"id": course_id, "name": f"C{course_id}", "code": f"code{course_id}"})
            # course 1's assignment opens on 2026-01-25, course 2's on 2026-01-01
            opens = "2026-01-25 00:00:00" if course_id == 1 else "2026-01-01 00:00:00"
            connection.execute(text("INSERT INTO assignment (id, course_id, title, opens_at, due_at, late_policy, "
                                    "penalty_per_day, visibility_before, visibility_after, created_at) VALUES "
                                    f"(:id, :id, 'W', :opens, {moment}, 'not_accepted', 0, 'rule', 'rule', {moment})"),
                               {"id": course_id, "opens": opens})
            connection.execute(text("INSERT INTO assignment_exercise (assignment_id, exercise_id, course_id, position) "
                                    "VALUES (:id, 1, :id, 0)"), {"id": course_id})
        # ann: course 2 joined first, then course 1; bo: course 1 only; cy: none; ida teaches course 1
        for membership_id, course_id, user_id, role, joined in (
                (1, 1, 1, "learner", "2026-02-01"), (2, 2, 1, "learner", "2026-01-15"),
                (3, 1, 2, "learner", "2026-01-20"), (4, 1, 4, "instructor", "2026-01-01")):
            connection.execute(text("INSERT INTO membership (id, course_id, user_id, role, joined_at) "
                                    "VALUES (:id, :course, :user, :role, :joined)"),
                               {"id": membership_id, "course": course_id, "user": user_id, "role": role,
                                "joined": joined})
        later = "2026-03-01 00:00:00"
        for submission_id, user_id, exercise_id, made in (
                (1, 1, 1, later), (2, 2, 1, later), (3, 3, 1, later), (4, 2, 2, later), (5, 4, 1, later),
                (6, 1, 1, "2026-01-10 00:00:00"),  # ann before she joined any course: practice
                (7, 1, 1, "2026-01-20 00:00:00"),  # ann in course 2 only by then
                (8, 2, 1, "2026-01-22 00:00:00"),  # bo joined, but course 1's assignment not open yet
                (9, 2, 1, "2026-01-26 00:00:00")):
            connection.execute(text("INSERT INTO submission (id, user_id, exercise_id, code, created_at) "
                                    "VALUES (:id, :user, :exercise, 'x', :made)"),
                               {"id": submission_id, "user": user_id, "exercise": exercise_id, "made": made})
    engine.dispose()

    upgrade(url)
    engine = make_engine(url)
    with engine.connect() as connection:
        contexts = dict(connection.execute(text("SELECT id, course_id FROM submission")).all())
    engine.dispose()
    assert contexts == {1: 2, 2: 1, 3: None, 4: None, 5: None, 6: None, 7: 2, 8: None, 9: 1}

    command.downgrade(alembic_config(url), "0005")
    upgrade(url)
    engine = make_engine(url)
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM submission")).scalar() == 9
    engine.dispose()


def test_the_invitations_migration_keeps_memberships_extensions_and_overrides(tmp_path):
    """0005 → head (0006, 0007): memberships stay as they were (no invitation is made for them), each extension
    gets its grant as the first event of its history, every override stays a score in force.

    SQLite-only, as the migration's SQL is plain INSERT ... SELECT and a column with a default."""
    from alembic import command
    from sqlalchemy import text

    from web.core.database import alembic_config

    url = f"sqlite:///{tmp_path / 'old.db'}"
    command.upgrade(alembic_config(url), "0005")
    engine = make_engine(url)
    moment = "'2026-01-01 00:00:00'"
    with engine.begin() as connection:
        for user_id, name in ((1, "ann"), (2, "ida")):
            connection.execute(text("INSERT INTO user (id, name, name_key, password_hash, role, language, created_at) "
                                    f"VALUES (:id, :name, :name, 'x', 'learner', 'en', {moment})"),
                               {"id": user_id, "name": name})
        connection.execute(text("INSERT INTO exercise (id, number, slug, title_en, title_zh, difficulty, tags, runs_in, "
                                f"content_hash, synced_at) VALUES (1, 39, 's', 'S', 'S', 'easy', '[]', '[]', 'h', {moment})"))
        connection.execute(text(f"INSERT INTO course (id, name, join_code, time_zone, created_at) VALUES "
                                f"(1, 'C', 'ABCDEFGH', 'UTC', {moment})"))
        connection.execute(text(f"INSERT INTO membership (course_id, user_id, role, joined_at) VALUES "
                                f"(1, 1, 'learner', {moment}), (1, 2, 'instructor', {moment})"))
        connection.execute(text(f"INSERT INTO assignment (id, course_id, title, opens_at, due_at, late_policy, "
                                f"penalty_per_day, visibility_before, visibility_after, created_at) VALUES "
                                f"(1, 1, 'W', {moment}, {moment}, 'not_accepted', 0, 'rule', 'rule', {moment})"))
        connection.execute(text("INSERT INTO extension (assignment_id, user_id, due_at, granted_by_id, granted_at) "
                                f"VALUES (1, 1, '2026-02-01 00:00:00', 2, {moment})"))
        connection.execute(text("INSERT INTO score_override (course_id, user_id, exercise_id, score, comment, by_id, "
                                f"created_at) VALUES (1, 1, 1, 0.5, 'why', 2, {moment})"))
    engine.dispose()

    upgrade(url)
    engine = make_engine(url)
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM membership")).scalar() == 2
        assert connection.execute(text("SELECT count(*) FROM invitation")).scalar() == 0
        events = connection.execute(text("SELECT assignment_id, user_id, due_at, by_id FROM extension_event")).all()
        assert [tuple(row) for row in events] == [(1, 1, "2026-02-01 00:00:00", 2)]
        assert connection.execute(text("SELECT score, withdrawn FROM score_override")).one() == (0.5, 0)
    engine.dispose()


def test_the_override_mode_migration_makes_every_override_replace_and_goes_back(tmp_path):
    """0007 → 0009 (through 0008): an override set before modes existed replaced the score, so it gets "replace"
    (its score still counts as it did); back down, the column goes and every row stays.

    SQLite-only, like the migrations above it: one column with a server default."""
    from alembic import command
    from sqlalchemy import text

    from web.core.database import alembic_config

    url = f"sqlite:///{tmp_path / 'old.db'}"
    command.upgrade(alembic_config(url), "0007")
    engine = make_engine(url)
    moment = "'2026-01-01 00:00:00'"
    with engine.begin() as connection:
        connection.execute(text("INSERT INTO user (id, name, name_key, password_hash, role, language, created_at) "
                                f"VALUES (1, 'ann', 'ann', 'x', 'learner', 'en', {moment})"))
        connection.execute(text("INSERT INTO exercise (id, number, slug, title_en, title_zh, difficulty, tags, "
                                "runs_in, content_hash, synced_at) "
                                f"VALUES (1, 39, 's', 'S', 'S', 'easy', '[]', '[]', 'h', {moment})"))
        connection.execute(text(f"INSERT INTO course (id, name, join_code, time_zone, created_at) VALUES "
                                f"(1, 'C', 'ABCDEFGH', 'UTC', {moment})"))
        connection.execute(text("INSERT INTO score_override (course_id, user_id, exercise_id, score, comment, by_id, "
                                f"created_at, withdrawn) VALUES (1, 1, 1, 0.5, 'why', 1, {moment}, 0), "
                                f"(1, 1, 1, 0, '', 1, {moment}, 1)"))
    engine.dispose()

    command.upgrade(alembic_config(url), "0009")
    engine = make_engine(url)
    with engine.connect() as connection:
        rows = connection.execute(text("SELECT score, withdrawn, mode FROM score_override ORDER BY id")).all()
    engine.dispose()
    assert [tuple(row) for row in rows] == [(0.5, 0, "replace"), (0.0, 1, "replace")]

    command.downgrade(alembic_config(url), "0007")
    engine = make_engine(url)
    assert "mode" not in {column["name"] for column in inspect(engine).get_columns("score_override")}
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM score_override")).scalar() == 2
    engine.dispose()


def test_the_progress_migration_adds_empty_progress_and_goes_back(tmp_path):
    """0007 → 0008: existing gradings get no progress (NULLs, not running hidden cases); down to
    0007 the columns go and the rows stay. SQLite-only, as the test's SQL is plain INSERTs."""
    from alembic import command
    from sqlalchemy import text

    from web.core.database import alembic_config

    url = f"sqlite:///{tmp_path / 'old.db'}"
    command.upgrade(alembic_config(url), "0007")
    engine = make_engine(url)
    moment = "'2026-01-01 00:00:00'"
    with engine.begin() as connection:
        connection.execute(text("INSERT INTO user (id, name, name_key, password_hash, role, language, created_at) "
                                f"VALUES (1, 'ann', 'ann', 'x', 'learner', 'en', {moment})"))
        connection.execute(text("INSERT INTO exercise (id, number, slug, title_en, title_zh, difficulty, tags, "
                                "runs_in, content_hash, synced_at) "
                                f"VALUES (1, 39, 's', 'S', 'S', 'easy', '[]', '[]', 'h', {moment})"))
        connection.execute(text(f"INSERT INTO submission (id, user_id, exercise_id, code, created_at) "
                                f"VALUES (1, 1, 1, 'x', {moment})"))
        connection.execute(text(f"INSERT INTO grading (id, submission_id, status, priority, attempts, created_at) "
                                f"VALUES (1, 1, 'running', 0, 1, {moment})"))
    engine.dispose()
    upgrade(url)
    engine = make_engine(url)
    with engine.connect() as connection:
        row = connection.execute(text("SELECT status, cases_done, cases_total, cases_hidden, hidden_running "
                                      "FROM grading")).one()
        assert tuple(row) == ("running", None, None, None, 0)
    engine.dispose()
    command.downgrade(alembic_config(url), "0007")
    engine = make_engine(url)
    columns = {column["name"] for column in inspect(engine).get_columns("grading")}
    assert "cases_done" not in columns and "hidden_running" not in columns and "status" in columns
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM grading")).scalar() == 1
    engine.dispose()
