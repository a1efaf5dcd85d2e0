"""The grading queue: nothing lost, nothing graded twice, restarts resume, limits are clear."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import select

from judge.exercise import resolve
from judge.process import LocalLauncher
from judge.sandbox.layers import missing_required
from web.database import make_engine, session_factory, upgrade
from web.exercises import sync_exercises
from web.grading import MAX_GRADING_ATTEMPTS, GradingQueue, SubmissionRefused
from web.models import Exercise, Status, Submission, User

EXERCISE = resolve("39")
REFERENCE = EXERCISE.reference_path.read_text()
WRONG = (EXERCISE.solutions_root / "wrong" / "top_k_plus_one.py").read_text()


@pytest.fixture(scope="module")
def launcher():
    if missing_required():
        yield LocalLauncher()  # slower (a fresh process per job), still correct
        return
    from judge.sandbox.strict import StrictLauncher

    strict = StrictLauncher(slots=2)
    yield strict
    strict.close()


@pytest.fixture
def site(tmp_path):
    url = f"sqlite:///{tmp_path / 'site.db'}"
    upgrade(url)
    engine = make_engine(url)
    sessions = session_factory(engine)
    with sessions() as session:
        sync_exercises(session)
        for number in range(10):
            user = User(name=f"user{number}")
            user.set_password("password123")
            session.add(user)
        session.commit()
    yield sessions
    engine.dispose()


def _wait_until_done(sessions, count: int, timeout: float = 300.0) -> list[Submission]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with sessions() as session:
            rows = session.scalars(select(Submission).order_by(Submission.id)).all()
            if len(rows) == count and all(r.status is Status.done for r in rows):
                return rows
        time.sleep(0.2)
    raise AssertionError("submissions did not all reach a verdict in time")


def test_fifty_submissions_from_ten_users_all_graded_once(site, launcher):
    queue = GradingQueue(site, launcher, workers=2)
    expected = {}
    with site() as session:
        exercise = session.scalar(select(Exercise))
        users = session.scalars(select(User)).all()
        for index in range(50):
            code = REFERENCE if index % 2 == 0 else WRONG
            submission = queue.submit(session, users[index % 10], exercise, code)
            expected[submission.id] = "AC" if index % 2 == 0 else "WA"
    queue.start()
    try:
        rows = _wait_until_done(site, 50)
    finally:
        queue.stop()
    assert {r.id: r.verdict for r in rows} == expected
    assert all(r.attempts == 1 for r in rows), "a submission was graded twice"
    assert len({r.seed for r in rows}) == 50, "every submission gets its own fresh seed"
    assert all(r.report_json["verdict"] == r.verdict and r.finished_at >= r.started_at for r in rows)


def test_a_restart_in_the_middle_of_grading_loses_nothing(site, launcher):
    with site() as session:
        exercise = session.scalar(select(Exercise))
        user = session.scalar(select(User))
        crashed = GradingQueue(site, launcher)
        ids = [crashed.submit(session, user, exercise, REFERENCE).id for _ in range(4)]
    # A worker took two jobs, then the process died: they stay "running" in the database.
    taken = [crashed.claim(), crashed.claim()]
    assert taken == ids[:2]
    restarted = GradingQueue(site, launcher, workers=2)
    restarted.start()  # recover() puts the interrupted jobs back in the queue
    try:
        rows = _wait_until_done(site, 4)
    finally:
        restarted.stop()
    assert [r.verdict for r in rows] == ["AC"] * 4
    assert [r.attempts for r in rows] == [2, 2, 1, 1]


def test_refusals_say_why_and_store_nothing(site, launcher):
    queue = GradingQueue(site, launcher, max_code_bytes=1024, max_queued_per_user=2)
    with site() as session:
        exercise = session.scalar(select(Exercise))
        user = session.scalar(select(User))
        with pytest.raises(SubmissionRefused, match="empty"):
            queue.submit(session, user, exercise, "   \n")
        with pytest.raises(SubmissionRefused, match="the limit is 1024 bytes"):
            queue.submit(session, user, exercise, "x" * 2000)
        queue.submit(session, user, exercise, REFERENCE[:1000])
        queue.submit(session, user, exercise, REFERENCE[:1000])
        with pytest.raises(SubmissionRefused, match="already have 2 submissions waiting"):
            queue.submit(session, user, exercise, REFERENCE[:1000])
        assert len(session.scalars(select(Submission)).all()) == 2


def test_a_submission_that_keeps_killing_its_grader_is_stored_as_ie(site, launcher):
    with site() as session:
        exercise = session.scalar(select(Exercise))
        user = session.scalar(select(User))
        queue = GradingQueue(site, launcher)
        killer = queue.submit(session, user, exercise, REFERENCE).id
    for attempt in range(1, MAX_GRADING_ATTEMPTS + 1):
        assert queue.claim() == killer  # a grading starts ... and the grader dies with it
        assert queue.recover() == (1 if attempt < MAX_GRADING_ATTEMPTS else 0)
    with site() as session:
        row = session.get(Submission, killer)
        assert row.status is Status.done and row.verdict == "IE" and row.attempts == MAX_GRADING_ATTEMPTS
        assert f"interrupted {MAX_GRADING_ATTEMPTS} times" in row.report_json["message"]
        assert row.report_json["verdict"] == "IE" and row.finished_at is not None
    assert queue.claim() is None  # never queued again


def test_a_bug_in_the_grader_ends_that_submission_in_ie_with_a_reference(site, launcher, monkeypatch, caplog):
    from web import grading

    def broken(*args, **kwargs):
        raise RuntimeError("the grader's own bug at /srv/probjudge/secret")

    monkeypatch.setattr(grading, "judge_file", broken)
    queue = GradingQueue(site, launcher)
    with site() as session:
        exercise = session.scalar(select(Exercise))
        user = session.scalar(select(User))
        first = queue.submit(session, user, exercise, REFERENCE).id
    queue.start()
    try:
        rows = _wait_until_done(site, 1, timeout=60)
    finally:
        queue.stop()
    message = rows[0].report_json["message"]
    assert rows[0].id == first and rows[0].verdict == "IE"
    assert "internal error" in message and "/srv/probjudge" not in message
    assert message.rsplit(" ", 1)[1].rstrip(")") in caplog.text and "/srv/probjudge/secret" in caplog.text


LOADER_KILLERS = [
    "import os\nos._exit(0)\n",  # dies while loading
    "import time\ntime.sleep(10**6)\n",  # hangs while loading (the exercise's time limit ends it)
]


def test_submissions_that_kill_their_loader_do_not_stop_the_site(tmp_path, launcher):
    # Through the API, as a learner would: two loader-killing submissions (one per worker and
    # slot), then a correct one, which must be graded.
    from web.app import create_app
    from web.config import Settings
    from web.models import ApiToken

    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'site.db'}", secret_key="test", workers=2,
                              sandbox=launcher.level), launcher=launcher)
    try:
        with app.extensions["probjudge"]["sessions"]() as session:
            user = User(name="mallory")
            user.set_password("password123")
            token, secret = ApiToken.issue(user)
            session.add_all([user, token])
            session.commit()
        client = app.test_client()
        headers = {"Authorization": f"Bearer {secret}"}
        ids = []
        for code in [*LOADER_KILLERS, REFERENCE]:
            created = client.post("/api/v1/submissions", headers=headers, json={"exercise": "39", "code": code})
            assert created.status_code == 202, created.json
            ids.append(created.json["id"])
        deadline = time.monotonic() + 300
        answers = {}
        while len(answers) < len(ids) and time.monotonic() < deadline:
            for number in ids:
                answer = client.get(f"/api/v1/submissions/{number}", headers=headers).json
                if answer["status"] == "done":
                    answers[number] = answer
            time.sleep(0.2)
        assert [answers.get(number, {}).get("verdict") for number in ids] == ["RE", "TLE", "AC"]
        if hasattr(launcher, "free_slots"):
            assert launcher.free_slots == launcher.slots
    finally:
        app.extensions["probjudge"]["queue"].stop()
