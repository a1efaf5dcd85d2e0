"""The grading queue: nothing lost, nothing graded twice, restarts resume, limits are clear."""

from __future__ import annotations

import dataclasses
import os
import socket
import subprocess
import sys
import time

import pytest
from site_client import stop_site
from sqlalchemy import select

from judge.engine.process import LocalLauncher
from judge.exercises.exercise import resolve
from judge.sandbox.layers import missing_required
from judge.verdicts import Verdict
from tests.web.world import password_hash
from web.core.database import make_engine, session_factory
from web.core.models import Exercise, Grading, Priority, Status, Submission, User
from web.grading.queue import MAX_GRADING_ATTEMPTS, GradingQueue, SubmissionRefused
from web.learning.exercises import sync_exercises
from web.services import services

# Starts the strict sandbox; runs in the parallel part like the rest (tests/conftest.py).
pytestmark = pytest.mark.strict_sandbox

EXERCISE = resolve("39")
REFERENCE = EXERCISE.reference_path.read_text()
WRONG = (EXERCISE.solutions_root / "wrong" / "top_k_plus_one.py").read_text()


@pytest.fixture(scope="module")
def launcher():
    if missing := missing_required():
        # Outside CI a fresh local process per job is slower, still correct; in CI the strict sandbox is
        # expected (docs/testing.md), and the slot check below would silently never run without it.
        if os.environ.get("PROBJUDGE_CI") == "1":
            pytest.fail("the strict sandbox is missing in CI: " + ", ".join(layer.name for layer in missing))
        yield LocalLauncher()
        return
    from judge.sandbox.strict import StrictLauncher

    strict = StrictLauncher(slots=2)
    yield strict
    strict.close()


@pytest.fixture
def site(database_url):
    engine = make_engine(database_url)
    sessions = session_factory(engine)
    with sessions() as session:
        sync_exercises(session)
        for number in range(10):  # nobody signs in: the hash is computed once per process (0.1 s each)
            session.add(User(name=f"user{number}", password_hash=password_hash()))
        session.commit()
    yield sessions
    engine.dispose()


def _wait_until_done(sessions, count: int, timeout: float = 900.0) -> list[Submission]:
    """The ``count`` submissions, once each has a finished (current) grading."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with sessions() as session:
            rows = session.scalars(select(Submission).order_by(Submission.id)).all()
            if len(rows) == count and all(r.current is not None and r.latest.status is Status.done for r in rows):
                for row in rows:
                    row.gradings  # loaded while the session is open
                return rows
        time.sleep(0.2)
    raise AssertionError("submissions did not all reach a verdict in time")


def _submit(site, queue, code: str = None, count: int = 1) -> list[int]:
    with site() as session:
        exercise = session.scalar(select(Exercise).where(Exercise.number == 39))
        user = session.scalar(select(User))
        return [queue.submit(session, user, exercise, code or REFERENCE).id for _ in range(count)]


# SQLite only (docs/testing.md): 80 s alone, after the parallel tests. On PostgreSQL, claiming each
# grading once is checked by test_graders.py (100 submissions, three processes) and the tests below.
@pytest.mark.parametrize("database_backend", ["sqlite"])
def test_fifty_submissions_from_ten_users_all_graded_once(site, launcher):
    queue = GradingQueue(site, launcher, workers=2)
    expected = {}
    with site() as session:
        exercise = session.scalar(select(Exercise).where(Exercise.number == 39))
        users = session.scalars(select(User)).all()
        for index in range(50):
            code = REFERENCE if index % 2 == 0 else WRONG
            submission = queue.submit(session, users[index % 10], exercise, code)
            expected[submission.id] = Verdict.AC if index % 2 == 0 else Verdict.WA
    queue.start()
    try:
        rows = _wait_until_done(site, 50)
    finally:
        queue.stop()
    assert {r.id: r.current.verdict for r in rows} == expected
    assert all(len(r.gradings) == 1 and r.current.attempts == 1 for r in rows), "a submission was graded twice"
    assert len({r.current.seed for r in rows}) == 50, "every submission gets its own fresh seed"
    assert all(r.current.report_json["verdict"] == r.current.verdict.value for r in rows)
    assert all(r.current.finished_at >= r.current.started_at and r.current.lease_expires_at is None for r in rows)
    assert all(r.current.diagnosis == r.current.report_json["diagnosis"] for r in rows)


def test_lanes_never_outnumber_the_sandbox_slots_of_a_grading_thread():
    class FourSlots:
        slots = 4

    assert GradingQueue(None, FourSlots(), workers=2, lanes=2).lanes == 2
    assert GradingQueue(None, FourSlots(), workers=2, lanes=3).lanes == 2
    assert GradingQueue(None, FourSlots(), workers=4, lanes=2).lanes == 1
    assert GradingQueue(None, FourSlots(), workers=0, slots=1, lanes=8).lanes == 4  # a Celery worker's threads
    assert GradingQueue(None, LocalLauncher(), workers=2, lanes=3).lanes == 3  # no slots to share


def test_a_grading_thread_judges_on_two_lanes(site, launcher):
    queue = GradingQueue(site, launcher, workers=1, lanes=2)  # the fixture's 2 slots: room for both
    assert queue.lanes == 2
    _submit(site, queue, count=2)
    queue.start()
    try:
        rows = _wait_until_done(site, 2)
    finally:
        queue.stop()
    for row in rows:
        assert row.current.verdict is Verdict.AC, row.current.report_json["message"]
        assert row.current.report_json["timing"]["lanes"] == 2


def test_a_grading_stores_the_fingerprint_of_its_draws(site, launcher):
    """The worker asks for the probes' fingerprint (docs/similarity-behaviour.md) and the stored
    report carries it whole, for the instructors' similarity pages; the verdict is the same."""
    queue = GradingQueue(site, launcher, workers=1)
    _submit(site, queue)
    queue.start()
    try:
        [row] = _wait_until_done(site, 1)
    finally:
        queue.stop()
    report = row.current.report_json
    assert row.current.verdict is Verdict.AC, report["message"]
    assert set(report["fingerprint"]) == {probe.name for probe in resolve("39").similarity.probes}
    assert report["timing"]["fingerprint_ms"] > 0


def test_a_rejudge_keeps_both_gradings_and_the_newest_is_current(site, launcher):
    queue = GradingQueue(site, launcher, workers=1)
    [submission_id] = _submit(site, queue)
    queue.start()
    try:
        [first] = _wait_until_done(site, 1)
        with site() as session:
            rejudge = queue.rejudge(session, session.get(Submission, submission_id))
            assert rejudge.priority == Priority.rejudge
            row = session.get(Submission, submission_id)
            assert row.current.id == first.current.id  # the verdict stays until the rejudge finishes
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with site() as session:
                row = session.get(Submission, submission_id)
                if row.current.id == rejudge.id:
                    break
            time.sleep(0.2)
    finally:
        queue.stop()
    with site() as session:
        row = session.get(Submission, submission_id)
        gradings = row.gradings
        assert [g.id for g in gradings] == [first.current.id, rejudge.id]
        assert all(g.status is Status.done and g.verdict is Verdict.AC for g in gradings)
        assert row.current.id == rejudge.id and gradings[0].seed != gradings[1].seed  # a fresh seed


def test_live_submissions_are_claimed_before_rejudges(site, launcher):
    queue = GradingQueue(site, launcher)
    old = _submit(site, queue, count=2)
    with site() as session:
        rejudges = [queue.rejudge(session, session.get(Submission, number)).id for number in old]
    live = _submit(site, queue)
    order = []
    while (claim := queue.claim()) is not None:
        order.append(claim.grading_id)
    with site() as session:
        live_grading = session.get(Submission, live[0]).latest.id
        first_gradings = [session.get(Submission, number).gradings[0].id for number in old]
    assert order == [*first_gradings, live_grading, *rejudges]


def test_a_result_is_written_once_whoever_finishes_second(site, launcher):
    # Every claim's lease has run out when written (a lease of 0 s ends in the claim's own
    # millisecond, which a fast next claim may share and see as live: SQLite's clock is in ms).
    queue = GradingQueue(site, launcher, lease_s=-1.0)
    [submission_id] = _submit(site, queue)
    slow = queue.claim("slow-worker")
    fast = queue.claim("fast-worker")  # takes the grading over: one more attempt
    assert (slow.grading_id, fast.grading_id) == (fast.grading_id, fast.grading_id)
    assert (slow.attempt, fast.attempt) == (1, 2)
    accepted = queue.judge(fast)
    rejected = dataclasses.replace(accepted, verdict=Verdict.WA, seed=accepted.seed + 1)
    assert queue.finish(fast, accepted) is True
    assert queue.finish(slow, rejected) is False  # lost its claim: writes nothing
    assert queue.finish(fast, rejected) is False  # already finished: never written twice
    with site() as session:
        row = session.get(Submission, submission_id)
        assert row.current.verdict is Verdict.AC and row.current.attempts == 2
        assert row.current.worker == "fast-worker" and row.current.report_json["seed"] == accepted.seed


def test_a_grader_that_stops_sending_heartbeats_loses_its_grading(site, launcher):
    [submission_id] = _submit(site, GradingQueue(site, launcher))
    dead = GradingQueue(site, launcher, lease_s=1.0)
    claim = dead.claim("dead-worker")  # ... and the worker dies: no heartbeat renews the lease
    alive = GradingQueue(site, launcher, lease_s=30.0)
    assert alive.claim() is None  # the lease still runs
    time.sleep(1.2)
    taken = alive.claim("live-worker")
    assert taken.grading_id == claim.grading_id and taken.attempt == 2
    assert alive.finish(taken, alive.judge(taken)) and not dead.finish(claim, alive.judge(claim))
    with site() as session:
        assert session.get(Submission, submission_id).current.worker == "live-worker"


def test_a_heartbeat_keeps_a_long_grading_its_own(site, launcher):
    _submit(site, GradingQueue(site, launcher))
    holder = GradingQueue(site, launcher, lease_s=1.0)
    claim = holder.claim("holder")
    holder._held[claim.grading_id] = claim
    other = GradingQueue(site, launcher)
    for _ in range(4):  # 2 s in all: the lease would have run out twice without the beats
        time.sleep(0.5)
        assert holder.heartbeat() == 1
        assert other.claim() is None
    assert holder.finish(claim, holder.judge(claim))


def test_a_restart_on_the_same_host_takes_over_at_once(site, launcher):
    queue = GradingQueue(site, launcher)
    ids = _submit(site, queue, count=4)
    # A worker of a process that has died took two jobs: they stay "running" under its name.
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_worker = f"{socket.gethostname()}:{int(gone.stdout)}:w0"
    taken = [queue.claim(dead_worker), queue.claim(dead_worker)]
    with site() as session:
        assert [session.get(Grading, c.grading_id).submission_id for c in taken] == ids[:2]
    restarted = GradingQueue(site, launcher, workers=2)
    restarted.start()  # recover() releases the dead process's claims without waiting for the lease
    try:
        rows = _wait_until_done(site, 4, timeout=120)
    finally:
        restarted.stop()
    assert [r.current.verdict for r in rows] == [Verdict.AC] * 4
    assert [r.current.attempts for r in rows] == [2, 2, 1, 1]


def test_refusals_say_why_and_store_nothing(site, launcher):
    queue = GradingQueue(site, launcher, max_code_bytes=1024, max_queued_per_user=2)
    with site() as session:
        exercise = session.scalar(select(Exercise).where(Exercise.number == 39))
        user = session.scalar(select(User))
        with pytest.raises(SubmissionRefused, match="empty"):
            queue.submit(session, user, exercise, "   \n")
        with pytest.raises(SubmissionRefused, match="the limit is 1024 bytes"):
            queue.submit(session, user, exercise, "x" * 1025)  # one byte past the limit
        with pytest.raises(SubmissionRefused, match="the code is 1025 bytes; the limit is 1024 bytes"):
            queue.submit(session, user, exercise, "#" + "é" * 512)  # bytes count, not characters (513)
        queue.submit(session, user, exercise, "#" + "é" * 511 + "\n")  # exactly the limit: accepted
        queue.submit(session, user, exercise, REFERENCE[:1000])
        with pytest.raises(SubmissionRefused, match="already have 2 submissions waiting"):
            queue.submit(session, user, exercise, REFERENCE[:1000])
        assert len(session.scalars(select(Submission)).all()) == 2
        assert len(session.scalars(select(Grading)).all()) == 2


def test_a_submission_that_keeps_killing_its_grader_is_stored_as_ie(site, launcher):
    # Each grader dies at once: its lease has run out when written (-1 s, not 0: see above).
    queue = GradingQueue(site, launcher, lease_s=-1.0)
    [killer] = _submit(site, queue)
    for attempt in range(1, MAX_GRADING_ATTEMPTS + 1):
        claim = queue.claim()  # a grading starts ... and the grader dies with it
        assert claim.submission_id == killer and claim.attempt == attempt
    assert queue.claim() is None  # never started again
    with site() as session:
        row = session.get(Submission, killer).current
        assert row.status is Status.done and row.verdict is Verdict.IE and row.attempts == MAX_GRADING_ATTEMPTS
        assert f"interrupted {MAX_GRADING_ATTEMPTS} times" in row.report_json["message"]
        assert row.report_json["verdict"] == "IE" and row.finished_at is not None


def test_a_bug_in_the_grader_ends_that_submission_in_ie_with_a_reference(site, launcher, monkeypatch, caplog):
    from web.grading import queue as grading

    def broken(*args, **kwargs):
        raise RuntimeError("the grader's own bug at /srv/probjudge/secret")

    monkeypatch.setattr(grading, "grade", broken)
    queue = GradingQueue(site, launcher)
    [first] = _submit(site, queue)
    queue.start()
    try:
        rows = _wait_until_done(site, 1, timeout=60)
    finally:
        queue.stop()
    message = rows[0].current.report_json["message"]
    assert rows[0].id == first and rows[0].current.verdict is Verdict.IE
    assert "internal error" in message and "/srv/probjudge" not in message
    assert message.rsplit(" ", 1)[1].rstrip(")") in caplog.text and "/srv/probjudge/secret" in caplog.text


LOADER_KILLERS = [
    "import os\nos._exit(0)\n",  # dies while loading
    "import time\ntime.sleep(10**6)\n",  # hangs while loading (the exercise's time limit ends it)
]


# SQLite only (docs/testing.md): about the sandbox's loader, not the database.
@pytest.mark.parametrize("database_backend", ["sqlite"])
def test_submissions_that_kill_their_loader_do_not_stop_the_site(database_url, launcher):
    # Through the API, as a learner would: two loader-killing submissions (one per worker and
    # slot), then a correct one, which must be graded.
    from web.app import create_app
    from web.core.config import Settings
    from web.core.models import ApiToken

    app = create_app(Settings(database_url=database_url, secret_key="test", workers=2,
                              sandbox=launcher.level), launcher=launcher)
    try:
        with services(app).sessions() as session:
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
        if hasattr(launcher, "free_slots"):  # the strict sandbox (always in CI): no slot leaked
            assert launcher.free_slots == launcher.slots
    finally:
        stop_site(app)


def test_a_wait_for_a_verdict_ends_when_a_result_is_written_here_or_elsewhere(site, launcher):
    """wait_for_verdict: woken by this queue's own worker; a result written by another process (a
    second queue here) is seen by looking again; nobody grading means the timeout, then False.
    (It also ends, False, when the grading starts or counts a case: the waiter asks again, as the
    page does; test_grading_progress.py pins that.)"""
    import threading

    waiting = GradingQueue(site, None, workers=0)  # a site that grades nothing itself
    first, second = _submit(site, waiting, count=2)
    assert waiting.wait_for_verdict(first, 0.3) is False  # nobody grades: bounded by its timeout
    answers = {}
    def wait_until_graded() -> None:
        while not waiting.wait_for_verdict(first, 600):
            pass
        answers[first] = True

    waiter = threading.Thread(target=wait_until_graded)
    waiter.start()
    elsewhere = GradingQueue(site, launcher, workers=0)
    claim = elsewhere.claim()
    assert claim is not None and claim.code == REFERENCE and claim.exercise_number == 39
    assert elsewhere.finish(claim, elsewhere.judge(claim))
    waiter.join(60)
    assert answers == {first: True}
    own = GradingQueue(site, launcher, workers=1)
    own.start()
    try:
        deadline = time.monotonic() + 600
        while not own.wait_for_verdict(second, 600):  # False as it starts and counts cases
            assert time.monotonic() < deadline
    finally:
        own.stop()


def test_past_the_cap_a_wait_for_a_verdict_answers_at_once(site, monkeypatch):
    """Each waiting request holds a server thread: past MAX_WAITING_REQUESTS, the next answers now."""
    import threading

    import web.grading.queue

    queue = GradingQueue(site, None, workers=0)
    (submission,) = _submit(site, queue)
    monkeypatch.setattr(web.grading.queue, "VERDICT_POLL_SECONDS", 0.05)
    graded, looked = threading.Event(), []
    monkeypatch.setattr(
        queue, "_has_verdict", lambda number: looked.append(threading.get_ident()) or graded.is_set()
    )
    holders = [
        threading.Thread(target=queue.wait_for_verdict, args=(submission, 60))
        for _ in range(web.grading.queue.MAX_WAITING_REQUESTS)
    ]
    for holder in holders:
        holder.start()
    deadline = time.monotonic() + 30
    while len(set(looked)) < len(holders) and time.monotonic() < deadline:
        time.sleep(0.05)  # until every holder is inside its wait (each has looked once)
    extra = threading.Thread(target=queue.wait_for_verdict, args=(submission, 60))
    extra.start()
    extra.join(30)  # answered without waiting its 60 s
    assert not extra.is_alive() and all(holder.is_alive() for holder in holders)
    graded.set()
    for holder in holders:
        holder.join(30)
    assert not any(holder.is_alive() for holder in holders)


def test_a_course_submission_runs_every_case_and_a_practice_one_stops_at_the_named_mistake(site, launcher):
    """A course's score is the share of cases passed (web.teaching.counting): every case runs there.
    Practice has no score: it stops at the first case that names the mistake, with the same verdict."""
    from web.core.models import Course

    queue = GradingQueue(site, launcher, workers=1)
    with site() as session:
        exercise = session.scalar(select(Exercise).where(Exercise.number == 39))
        user = session.scalar(select(User))
        course = Course(name="a course", join_code="settling-course")
        session.add(course)
        session.flush()
        practice = queue.submit(session, user, exercise, WRONG).id
        counted = queue.submit(session, user, exercise, WRONG, course_id=course.id).id
    queue.start()
    try:
        rows = {row.id: row for row in _wait_until_done(site, 2)}
    finally:
        queue.stop()
    practice_report, course_report = rows[practice].current.report_json, rows[counted].current.report_json
    assert practice_report["verdict"] == course_report["verdict"] == "WA"
    assert practice_report["diagnosis"] == course_report["diagnosis"] == "top-k keeps one token too many (k+1)"
    skipped = [case for case in practice_report["cases"] if case["verdict"] == "SK"]
    assert skipped and all(case["rule"].startswith("not run: the verdict was settled") for case in skipped)
    assert all(case["verdict"] != "SK" for case in course_report["cases"])
    assert course_report["score"]["passed"] > practice_report["score"]["passed"]
