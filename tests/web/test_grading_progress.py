"""A waiting learner sees where their grading is: its place in the queue, or its cases done."""

from __future__ import annotations

import threading
import time

import pytest
from site_client import sign_up, submit
from sqlalchemy import select

import web.grading.progress
from judge.engine.process import LocalLauncher
from judge.exercises.exercise import resolve
from judge.exercises.suites import load_suite
from tests.web.world import api_token
from web.access.presenting import Access, grading_progress
from web.core.database import make_engine, session_factory
from web.core.i18n import ordinal
from web.core.models import Exercise, Grading, Priority, Status, Submission, User, Visibility
from web.grading.progress import ProgressRecorder, queue_position
from web.grading.queue import GradingQueue
from web.learning.exercises import sync_exercises
from web.services import services

EXERCISE = resolve("39")
REFERENCE = EXERCISE.reference_path.read_text()
PUBLIC = len(load_suite(EXERCISE, "public").cases)
HIDDEN = len(load_suite(EXERCISE, "hidden").cases)


@pytest.fixture
def site(database_url):
    engine = make_engine(database_url)
    sessions = session_factory(engine)
    with sessions() as session:
        sync_exercises(session)
        session.add(User(name="ann", password_hash="x"))
        session.commit()
    yield sessions
    engine.dispose()


def _submit(sessions, queue, count: int = 1) -> list[int]:
    with sessions() as session:
        exercise = session.scalar(select(Exercise).where(Exercise.number == 39))
        user = session.scalar(select(User))
        return [queue.submit(session, user, exercise, REFERENCE).id for _ in range(count)]


def test_a_real_grading_records_public_cases_done_then_only_that_hidden_ones_run(site, monkeypatch):
    """Through a whole grading of 039 on two lanes: the total and the hidden count are written, the
    public count only grows and never passes the public cases, and once the hidden cases start
    nothing more is counted; the result then replaces the progress."""
    monkeypatch.setattr(web.grading.progress, "PROGRESS_WRITE_S", 0.0)  # every step, to watch them all
    queue = GradingQueue(site, LocalLauncher(), workers=0, lanes=2)
    [submission_id] = _submit(site, queue)
    claim = queue.claim("watched")
    seen: list[tuple] = []
    judging = threading.Thread(target=lambda: queue.finish(claim, queue.judge(claim)))
    judging.start()
    while judging.is_alive():
        with site() as session:
            row = session.get(Grading, claim.grading_id)
            seen.append((row.status, row.cases_done, row.cases_total, row.cases_hidden, row.hidden_running))
        time.sleep(0.01)
    judging.join()
    running = [step for step in seen if step[0] is Status.running and step[2] is not None]
    assert running, seen
    assert {step[2:4] for step in running} == {(PUBLIC + HIDDEN, HIDDEN)}
    counts = [step[1] for step in running]
    assert counts == sorted(counts) and max(counts) <= PUBLIC
    assert running[-1][4] is True  # the hidden cases started, and were not counted one by one
    frozen = [step[1] for step in running if step[4]]
    assert len(set(frozen)) == 1
    with site() as session:
        submission = session.get(Submission, submission_id)
        assert submission.current.status is Status.done and grading_progress(submission.current, Access()) is None


class _CountingSessions:
    """A session factory that counts the statements it is given (the recorder's writes)."""

    def __init__(self) -> None:
        self.writes: list[dict] = []

    def __call__(self):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass

    def execute(self, statement, values) -> None:
        self.writes.append(values)

    def commit(self) -> None:
        pass


def test_seventeen_quick_cases_cost_the_database_a_few_writes_and_the_last_one_lands():
    """A case every 50 ms for 0.85 s: a write every PROGRESS_WRITE_S (0.5 s), not one per case."""
    sessions = _CountingSessions()
    recorder = ProgressRecorder(sessions, grading_id=7, attempt=1, public=17)
    for index in range(17):
        recorder(f"case {index}", index, 17)
        time.sleep(0.05)
    time.sleep(web.grading.progress.PROGRESS_WRITE_S + 0.3)
    done = [values["p_done"] for values in sessions.writes]
    assert 2 <= len(done) <= 3 and done == sorted(done) and done[-1] == 16, done  # the newest state lands
    recorder.close()
    recorder("late", 16, 17)
    time.sleep(web.grading.progress.PROGRESS_WRITE_S + 0.2)
    assert len(sessions.writes) == len(done)  # closed: nothing after the grading


def test_queue_positions_follow_the_order_workers_claim_in(site):
    """Live gradings before rejudges, each by id: the places count the queued gradings ahead."""
    queue = GradingQueue(site, None, workers=0)
    first, second = _submit(site, queue, count=2)
    with site() as session:
        rejudge = queue.rejudge(session, session.get(Submission, first)).id
    [third] = _submit(site, queue)
    with site() as session:
        live = [session.get(Submission, number).gradings[0] for number in (first, second, third)]
        places = [queue_position(session, grading) for grading in [*live, session.get(Grading, rejudge)]]
        assert places == [1, 2, 3, 4]
        assert session.get(Grading, rejudge).priority == Priority.rejudge
    assert queue.claim() is not None  # the first is taken: the others move up
    with site() as session:
        assert queue_position(session, session.get(Submission, first).gradings[0]) is None  # running
        assert queue_position(session, session.get(Submission, third).gradings[0]) == 2
        assert queue_position(session, session.get(Grading, rejudge)) == 3


def test_ordinals_in_english():
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st",
        "2nd",
        "3rd",
        "4th",
        "11th",
        "12th",
        "13th",
        "21st",
        "22nd",
        "101st",
        "111th",
    ]


def test_at_visibility_nothing_a_learner_is_not_told_how_many_hidden_cases_there_are():
    grading = Grading(status=Status.running, cases_done=3, cases_total=17, cases_hidden=12, hidden_running=True)
    assert grading_progress(grading, Access(visibility=Visibility.nothing)) == {
        "queue_position": None,
        "cases_done": 3,
        "cases_total": 5,
        "hidden_cases": None,
        "hidden_running": True,
    }
    assert grading_progress(grading, Access())["hidden_cases"] == 12
    assert grading_progress(grading, Access(instructor=True, visibility=Visibility.nothing))["cases_total"] == 17


def _set_progress(app, submission_id: int, **values) -> None:
    with services(app).sessions() as session:
        grading = session.get(Submission, submission_id).gradings[0]
        for key, value in values.items():
            setattr(grading, key, value)
        session.commit()


def test_the_page_and_the_api_show_the_place_in_the_queue_then_the_cases_done(make_site):
    app = make_site(start_workers=False)
    client = app.test_client()
    sign_up(client, "ann")
    submit(client, REFERENCE)
    url = submit(client, REFERENCE).location
    submission_id = int(url.rsplit("/", 1)[1])
    html = client.get(url + "/result?lang=en").get_data(as_text=True)
    assert "2nd in the queue" in html
    assert "排在第 2 位" in client.get(url + "/result?lang=zh").get_data(as_text=True)

    _set_progress(app, submission_id, status=Status.running, cases_done=3, cases_total=17, cases_hidden=12)
    html = client.get(url + "/result?lang=en").get_data(as_text=True)
    assert "3 of 17 cases" in html and "hidden cases are running" not in html and "data-elapsed" in html
    _set_progress(app, submission_id, cases_done=5, hidden_running=True)
    html = client.get(url + "/result?lang=en").get_data(as_text=True)
    assert "5 of 17 cases" in html and "the 12 hidden cases are running" in html
    assert "正在运行 12 个隐藏测试点" in client.get(url + "/result?lang=zh").get_data(as_text=True)

    headers = api_token(app)
    with services(app).sessions() as session:
        session.get(Submission, submission_id).user_id = session.scalar(select(User.id).where(User.name == "api-user"))
        session.commit()
    answer = client.get(f"/api/v1/submissions/{submission_id}", headers=headers).get_json()
    assert answer["progress"] == {
        "queue_position": None,
        "cases_done": 5,
        "cases_total": 17,
        "hidden_cases": 12,
        "hidden_running": True,
    }


def test_a_wait_ends_when_the_progress_changes_not_only_with_the_verdict(site):
    queue = GradingQueue(site, None, workers=0)
    [submission_id] = _submit(site, queue)
    answers: list[tuple[bool, float]] = []

    def wait() -> None:
        started = time.monotonic()
        answers.append((queue.wait_for_verdict(submission_id, 20), time.monotonic() - started))

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.5)
    assert not answers  # nothing changed: still waiting
    claim = queue.claim("elsewhere")  # it starts: the learner should see it at once
    waiter.join(10)
    assert answers and answers[0][0] is False and answers[0][1] < 5
    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.3)
    recorder = ProgressRecorder(site, claim.grading_id, claim.attempt, public=PUBLIC)
    recorder("first", 0, PUBLIC + HIDDEN)  # the first case starts: the total is written
    waiter.join(10)
    recorder.close()
    waiter.join(10)
    assert len(answers) == 2 and answers[1][0] is False and answers[1][1] < 5
