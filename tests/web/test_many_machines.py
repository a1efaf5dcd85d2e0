"""Grading through a broker: what is published, the claim of one grading, the sweep, the config.

The broker here is a stand-in that records what it is handed and says how deep its queues are
(or is down); Celery's own delivery runs against a real Redis in ``test_scale.py``. The rules
under test are the database's, so these run on every database the suite runs on.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
import uuid

import pytest
from sqlalchemy import select, update

from judge.engine.process import LocalLauncher
from judge.reports.report import Report
from judge.verdicts import Verdict
from web.core.config import Settings, broker_url
from web.core.database import make_engine, session_factory
from web.core.models import Exercise, Grader, Grading, Priority, Status, Submission, User, utcnow
from web.grading.broker import LIVE_QUEUE, REJUDGE_QUEUE, Broker, BrokerUnavailable, queue_for
from web.grading.queue import MAX_GRADING_ATTEMPTS, GradingQueue, worker_name
from web.grading.sweeping import sweep
from web.learning.exercises import sync_exercises

CODE = "def sample(logits, generator=None):\n    return None\n"


class FakeBroker:
    """Records publishes; ``down`` refuses them; ``held`` is what each queue holds now."""

    def __init__(self) -> None:
        self.published: list[tuple[int, str]] = []
        self.held: dict[str, list[int]] = {LIVE_QUEUE: [], REJUDGE_QUEUE: []}
        self.down = False

    def publish(self, gradings):
        if self.down:
            return []
        sent = []
        for grading_id, priority in gradings:
            self.published.append((grading_id, queue_for(priority)))
            self.held[queue_for(priority)].append(grading_id)
            sent.append(grading_id)
        return sent

    def depth(self):
        if self.down:
            raise BrokerUnavailable("the broker is unreachable (test)")
        return {name: len(ids) for name, ids in self.held.items()}

    def lose_everything(self) -> None:
        """Redis restarted without its data."""
        self.held = {LIVE_QUEUE: [], REJUDGE_QUEUE: []}


@pytest.fixture
def world(database_url):
    engine = make_engine(database_url)
    sessions = session_factory(engine)
    with sessions() as session:
        sync_exercises(session)
        user = User(name=f"learner-{uuid.uuid4().hex[:6]}")
        user.set_password("password123")
        session.add(user)
        session.commit()
    yield sessions
    engine.dispose()


def _queue(sessions, broker=None, **kwargs) -> GradingQueue:
    return GradingQueue(sessions, LocalLauncher(), workers=0, broker=broker, max_queued_per_user=50, **kwargs)


def _submit(sessions, queue, count=1) -> list[int]:
    with sessions() as session:
        user = session.scalar(select(User))
        exercise = session.scalar(select(Exercise).where(Exercise.number == 39))
        return [queue.submit(session, user, exercise, CODE).gradings[0].id for _ in range(count)]


def _age(sessions, seconds: float, **values) -> None:
    """Move every grading's creation (and the given columns) ``seconds`` into the past."""
    past = utcnow() - dt.timedelta(seconds=seconds)
    with sessions() as session:
        session.execute(
            update(Grading).values(created_at=past, **values).execution_options(synchronize_session=False)
        )
        session.commit()


def _report(verdict=Verdict.AC) -> Report:
    return Report(
        exercise={"number": 39, "slug": "sampling", "content_hash": "x"},
        verdict=verdict,
        cases=[],
        seed=1,
        device="cpu",
        sandbox="local",
        suites=[],
        judge_version="test",
        false_failure_budget={},
    )


# --- publishing -----------------------------------------------------------------------------


def test_a_submission_is_published_to_the_live_queue_and_a_rejudge_to_the_rejudge_queue(world):
    broker = FakeBroker()
    queue = _queue(world, broker)
    [live] = _submit(world, queue)
    with world() as session:
        rejudge = queue.rejudge(session, session.get(Grading, live).submission)
    assert broker.published == [(live, LIVE_QUEUE), (rejudge.id, REJUDGE_QUEUE)]
    with world() as session:
        assert all(g.published_at is not None for g in session.scalars(select(Grading)))


def test_a_bulk_rejudge_is_published_by_wake_live_first_and_only_once(world):
    broker = FakeBroker()
    queue = _queue(world, None)  # queued without a broker: nothing published yet
    ids = _submit(world, queue, 3)
    with world() as session:
        for grading_id in ids[:2]:
            session.add(Grading(submission_id=session.get(Grading, grading_id).submission_id,
                                status=Status.queued, priority=Priority.rejudge))
        session.commit()
    queue.broker = broker
    queue.wake()
    live = [grading_id for grading_id, name in broker.published if name == LIVE_QUEUE]
    assert live == ids and len(broker.published) == 5
    assert [name for _, name in broker.published] == [LIVE_QUEUE] * 3 + [REJUDGE_QUEUE] * 2
    queue.wake()  # everything is published already
    assert len(broker.published) == 5


def test_a_broker_that_is_down_loses_no_submission(world):
    broker = FakeBroker()
    broker.down = True
    queue = _queue(world, broker)
    ids = _submit(world, queue, 2)
    with world() as session:
        rows = [session.get(Grading, grading_id) for grading_id in ids]
        assert all(row.status is Status.queued and row.published_at is None for row in rows)


def test_publishing_to_an_unreachable_redis_gives_up_quickly_and_says_so(caplog):
    from web.grading.tasks import make_celery

    broker = Broker(make_celery("redis://127.0.0.1:1/0"))  # nothing listens on port 1
    assert broker.publish([(1, Priority.live)]) == []
    assert "the sweep will publish them" in caplog.text
    with pytest.raises(BrokerUnavailable, match="unreachable"):
        broker.depth()


def test_celery_publishes_ids_only_on_the_queue_of_their_priority():
    from web.grading.tasks import make_celery

    app = make_celery("memory://")
    broker = Broker(app)
    with app.connection_for_write() as connection:  # the memory transport is one per process
        for name in (LIVE_QUEUE, REJUDGE_QUEUE):
            connection.default_channel.queue_declare(queue=name)
            connection.default_channel.queue_purge(name)
    assert broker.publish([(7, Priority.live), (8, Priority.rejudge), (9, Priority.rejudge)]) == [7, 8, 9]
    assert broker.depth() == {LIVE_QUEUE: 1, REJUDGE_QUEUE: 2}
    with app.connection_for_read() as connection:
        message = connection.default_channel.basic_get(LIVE_QUEUE)
        assert message.headers["task"] == "probjudge.grade" and message.decode()[0] == [7]
    conf = app.conf
    assert conf.task_acks_late and conf.worker_prefetch_multiplier == 1 and conf.task_ignore_result
    assert conf.broker_transport_options["queue_order_strategy"] == "sorted"
    assert sorted([LIVE_QUEUE, REJUDGE_QUEUE])[0] == LIVE_QUEUE, "workers read the live queue first"


# --- claiming one grading (what a task does) ------------------------------------------------


def test_a_task_claims_its_own_grading_once_and_a_duplicate_does_nothing(world):
    queue = _queue(world)
    first, second = _submit(world, queue, 2)
    claim = queue.claim("worker-a", grading_id=second)
    assert claim is not None and claim.grading_id == second and claim.attempt == 1
    assert queue.claim("worker-b", grading_id=second) is None  # held under a live lease
    assert queue.finish(claim, _report())
    assert queue.claim("worker-b", grading_id=second) is None  # done
    with world() as session:
        assert session.get(Grading, first).status is Status.queued  # untouched by the claim of another


def _race(count: int, claim) -> list:
    """``count`` threads call ``claim()`` at the same moment; what each got."""
    barrier = threading.Barrier(count)
    results: list = []
    lock = threading.Lock()

    def run() -> None:
        barrier.wait()
        got = claim()
        with lock:
            results.append(got)

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def test_eight_tasks_for_one_grading_at_once_make_one_claim(world):
    queue = _queue(world)
    [grading_id] = _submit(world, queue)
    results = _race(8, lambda: queue.claim(f"worker-{threading.get_ident()}", grading_id=grading_id))
    assert len(results) == 8 and len([r for r in results if r is not None]) == 1


def test_eight_workers_claiming_at_once_take_five_gradings_once_each(world):
    queue = _queue(world)
    ids = _submit(world, queue, 5)
    results = _race(8, lambda: queue.claim(f"worker-{threading.get_ident()}"))
    claimed = sorted(r.grading_id for r in results if r is not None)
    assert claimed == ids, "each grading claimed once, none left behind"


def test_a_task_for_a_grading_that_does_not_exist_does_nothing(world):
    assert _queue(world).claim("worker-a", grading_id=10**6) is None


def test_a_task_waits_for_a_row_the_site_is_writing_rather_than_dropping_its_grading(world):
    # The site notes a grading's publish time right after publishing it; a worker that already
    # has the task must wait for that write, not skip the row (nobody else would grade it).
    queue = _queue(world)
    [grading_id] = _submit(world, queue)
    holder = world()
    holder.execute(update(Grading).where(Grading.id == grading_id).values(published_at=utcnow())
                   .execution_options(synchronize_session=False))  # the row is locked until commit
    claims = []
    worker = threading.Thread(target=lambda: claims.append(queue.claim("worker-a", grading_id=grading_id)))
    worker.start()
    time.sleep(0.5)
    holder.commit()
    holder.close()
    worker.join(30)
    assert len(claims) == 1 and claims[0] is not None and claims[0].grading_id == grading_id


def test_a_task_takes_over_a_grading_whose_lease_ran_out_and_the_first_writer_writes_nothing(world):
    queue = _queue(world)
    [grading_id] = _submit(world, queue)
    dead = queue.claim("worker-dead", grading_id=grading_id)
    _age(world, 60, lease_expires_at=utcnow() - dt.timedelta(seconds=1))
    taken = queue.claim("worker-b", grading_id=grading_id)
    assert taken is not None and taken.attempt == 2
    assert not queue.finish(dead, _report(Verdict.WA))  # the dead worker's late result
    assert queue.finish(taken, _report(Verdict.AC))
    with world() as session:
        row = session.get(Grading, grading_id)
        assert row.verdict is Verdict.AC and row.attempts == 2 and row.submission.current_grading_id == grading_id


def test_a_task_for_a_grading_taken_over_too_often_stores_ie_instead(world):
    queue = _queue(world)
    [grading_id] = _submit(world, queue)
    with world() as session:
        session.execute(
            update(Grading)
            .values(status=Status.running, attempts=MAX_GRADING_ATTEMPTS,
                    lease_expires_at=utcnow() - dt.timedelta(seconds=1))
            .execution_options(synchronize_session=False)
        )
        session.commit()
    assert queue.claim("worker-b", grading_id=grading_id) is None
    with world() as session:
        row = session.get(Grading, grading_id)
        assert row.status is Status.done and row.verdict is Verdict.IE


def test_grade_claimed_writes_once_and_counts_it_on_the_grader_row(world):
    queue = _queue(world, kind="celery", slots=3)
    [grading_id] = _submit(world, queue)
    queue.heartbeat()
    claim = queue.claim(grading_id=grading_id)
    queue.judge = lambda _claim: _report(Verdict.WA)  # the judge itself has its own tests
    assert queue.grade_claimed(claim) and not queue.grade_claimed(claim)
    queue.heartbeat()
    with world() as session:
        grader = session.scalar(select(Grader).where(Grader.name == worker_name()))
        assert (grader.kind, grader.slots, grader.graded, grader.busy) == ("celery", 3, 1, 0)
        assert session.get(Grading, grading_id).verdict is Verdict.WA


# --- the sweep --------------------------------------------------------------------------------


def test_the_sweep_publishes_what_the_broker_never_got_once(world):
    broker = FakeBroker()
    broker.down = True
    queue = _queue(world, broker)
    ids = _submit(world, queue, 3)
    broker.down = False
    assert sweep(world, broker).never_published == 0  # too young: maybe still on its way
    _age(world, 60)
    swept = sweep(world, broker)
    assert (swept.never_published, swept.lease_expired, swept.lost) == (3, 0, 0)
    assert [grading_id for grading_id, _ in broker.published] == ids
    assert sweep(world, broker).never_published == 0 and len(broker.published) == 3


def test_the_sweep_publishes_a_dead_workers_grading_once_its_lease_ran_out(world):
    broker = FakeBroker()
    queue = _queue(world, broker)
    [grading_id] = _submit(world, queue)
    assert queue.claim("worker-dead", grading_id=grading_id) is not None
    broker.held[LIVE_QUEUE].clear()  # the dead worker had taken the message
    assert sweep(world, broker).lease_expired == 0  # its lease is still running
    _age(world, 60, lease_expires_at=utcnow() - dt.timedelta(seconds=1), published_at=utcnow() - dt.timedelta(seconds=60))
    assert sweep(world, broker).lease_expired == 1
    assert broker.published[-1] == (grading_id, LIVE_QUEUE)
    assert sweep(world, broker).lease_expired == 0, "published again once per lease, not at every sweep"
    claim = queue.claim("worker-b", grading_id=grading_id)
    assert claim is not None and claim.attempt == 2


def test_the_sweep_publishes_again_what_a_restarted_broker_lost_and_nothing_else(world):
    broker = FakeBroker()
    queue = _queue(world, broker)
    ids = _submit(world, queue, 4)
    with world() as session:
        queue.rejudge(session, session.get(Grading, ids[0]).submission)
    _age(world, 60)
    _age_published(world, 60)
    assert sweep(world, broker).lost == 0  # the broker holds them all
    broker.lose_everything()
    swept = sweep(world, broker)
    assert swept.lost == 5 and broker.depth() == {LIVE_QUEUE: 4, REJUDGE_QUEUE: 1}
    _age_published(world, 60)
    assert sweep(world, broker).lost == 0  # held again: no duplicates at the next sweep


def _age_published(sessions, seconds: float) -> None:
    with sessions() as session:
        session.execute(
            update(Grading)
            .where(Grading.published_at.is_not(None))
            .values(published_at=utcnow() - dt.timedelta(seconds=seconds))
            .execution_options(synchronize_session=False)
        )
        session.commit()


def test_two_sweeps_at_once_publish_each_grading_once(world):
    broker = FakeBroker()
    broker.down = True
    queue = _queue(world, broker)
    _submit(world, queue, 4)
    broker.down = False
    _age(world, 60)
    first, second = sweep(world, broker), sweep(world, broker)
    assert first.never_published + second.never_published == 4 and len(broker.published) == 4


def test_a_sweep_with_the_broker_down_changes_nothing_and_says_what_it_could_not_see(world):
    broker = FakeBroker()
    broker.down = True
    queue = _queue(world, broker)
    _submit(world, queue, 2)
    _age(world, 60)
    swept = sweep(world, broker)
    assert (swept.never_published, swept.lost) == (0, None) and "unknown" in str(swept)
    with world() as session:  # still unpublished: the next sweep tries again
        assert all(g.published_at is None for g in session.scalars(select(Grading)))


# --- configuration ----------------------------------------------------------------------------


def test_the_broker_url_must_be_redis():
    assert broker_url("") is None and broker_url("  redis://h:6379/0 ") == "redis://h:6379/0"
    with pytest.raises(ValueError, match="PROBJUDGE_BROKER_URL must be a redis:// URL"):
        broker_url("amqp://guest@localhost//")
    settings = Settings.from_environment({"SECRET_KEY": "k", "PROBJUDGE_BROKER_URL": "redis://h/0",
                                          "PROBJUDGE_SWEEP_SECONDS": "7"})
    assert (settings.broker_url, settings.sweep_s) == ("redis://h/0", 7.0)
    with pytest.raises(ValueError, match="PROBJUDGE_SWEEP_SECONDS"):
        Settings.from_environment({"SECRET_KEY": "k", "PROBJUDGE_SWEEP_SECONDS": "0"})


def test_a_site_with_a_broker_grades_nothing_itself_and_publishes(make_site, monkeypatch):
    app = make_site(broker_url="memory://", workers=2)
    from web.services import services

    queue = services(app).queue
    assert queue.workers == 0 and queue.launcher is None and isinstance(queue.broker, Broker)


def test_a_task_records_the_progress_of_the_grading_it_judges_for_every_site_process(world):
    """Celery's path (a claim of one grading id, then grade_claimed) writes progress on the row, where
    any site process reads it; a takeover starts the count again."""
    from judge.exercises.exercise import resolve
    from judge.exercises.suites import load_suite

    exercise = resolve("39")
    cases = len(load_suite(exercise, "public").cases) + len(load_suite(exercise, "hidden").cases)
    queue = _queue(world, kind="celery", lease_s=-1.0)  # every lease has run out: the next claim takes over
    with world() as session:
        user, row = session.scalar(select(User)), session.scalar(select(Exercise).where(Exercise.number == 39))
        grading_id = queue.submit(session, user, row, exercise.reference_path.read_text()).gradings[0].id
    claim = queue.claim("worker-a", grading_id=grading_id)
    assert queue.grade_claimed(claim)
    with world() as session:
        row = session.get(Grading, grading_id)
        assert (row.status, row.cases_total, row.cases_hidden) == (
            Status.done, cases, len(load_suite(exercise, "hidden").cases))
    [second] = _submit(world, queue)
    first_claim = queue.claim("worker-a", grading_id=second)
    with world() as session:
        session.execute(update(Grading).where(Grading.id == second).values(cases_done=4, cases_total=9))
        session.commit()
    assert queue.claim("worker-b", grading_id=second).attempt == first_claim.attempt + 1
    with world() as session:
        assert (session.get(Grading, second).cases_done, session.get(Grading, second).cases_total) == (None, None)
