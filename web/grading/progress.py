"""How far a grading has got: written by its worker, read by every site process.

A worker records a running grading's progress on its row (:class:`ProgressRecorder`, the engine's
progress callback): how many cases it has, how many of them are hidden, how many public cases are
done, and whether the hidden cases have started. Rows are the only thing every site process and
every grader shares, so this works the same with in-process workers, ``python -m web grade``
processes and Celery workers. Writes are throttled (:data:`PROGRESS_WRITE_S`): a grading of 17
quick cases costs the database a handful of small UPDATEs, not 17.

What it may reveal (see :mod:`web.access.presenting`): the count stops when the first hidden case
starts. The engine reports a case when it *starts*, and the start of a lane's next case is the end
of its previous one; the moments hidden cases end would time them, and a learner's code can sleep
in proportion to a hidden input. Lanes run their public cases before their hidden ones (cases go in
the suites' order), so every moment recorded before the flag is the end of a public case.

A queued grading's place (:func:`queue_position`) follows the order workers claim in (priority,
then id: see :mod:`web.grading.queue`).
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, func, or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from judge.exercises.exercise import Exercise
from judge.exercises.suites import load_suite
from judge.reports.report import HIDDEN
from web.core.models import Grading, Status

log = logging.getLogger("probjudge.grading")
PROGRESS_WRITE_S = 0.5  # the least time between two progress writes of one grading


@dataclass(frozen=True)
class Progress:
    """What a worker records: ``cases_done`` counts public cases finished before the hidden ones began."""

    cases_done: int
    cases_total: int
    cases_hidden: int
    hidden_running: bool


class ProgressRecorder:
    """The engine's progress callback (``judge.engine.runner.grade(progress=...)``) for one claimed grading.

    Called with ``(case title, case index, cases in all)`` as each case starts, from the lanes'
    threads (the engine serializes the calls). ``public`` is how many of the cases come first and are
    public. Writes go to the grading's row only while it runs under ``attempt`` (a worker that lost
    its lease writes nothing), at most every :data:`PROGRESS_WRITE_S`, by a timer thread (the newest
    state; the ones between are skipped). Never raises into the engine: a failed write is logged and
    skipped. Call :meth:`close` when the grading is judged.
    """

    def __init__(self, sessions: sessionmaker[Session], grading_id: int, attempt: int, public: int) -> None:
        self._sessions = sessions
        self._grading_id = grading_id
        self._attempt = attempt
        self._public = public
        self._lock = threading.Lock()
        self._started = 0  # public cases started
        self._lanes: set[int] = set()  # threads that started a case: each has one in flight
        self._state: Progress | None = None
        self._written: Progress | None = None
        self._last_write = -PROGRESS_WRITE_S
        self._timer: threading.Timer | None = None
        self._closed = False

    def __call__(self, title: str, index: int, total: int) -> None:
        with self._lock:
            if self._closed or (self._state is not None and self._state.hidden_running):
                return  # frozen: nothing after the first hidden case starts is shown
            hidden = index >= self._public
            lane = threading.get_ident()
            # A lane's previous case is done when it starts another: one public case per lane is in
            # flight, but for the lane that now starts the first hidden one.
            in_flight = len(self._lanes) - (1 if hidden and lane in self._lanes else 0)
            if not hidden:
                self._started += 1
                self._lanes.add(lane)
                in_flight = len(self._lanes)
            done = max(0, self._started - in_flight)
            self._state = Progress(done, total, max(0, total - self._public), hidden)
            self._schedule_locked()

    def _schedule_locked(self) -> None:
        """Have a timer thread write the newest state, :data:`PROGRESS_WRITE_S` after the last
        write (at once the first time). One timer at a time; the lanes never wait for the database."""
        if self._closed or self._timer is not None or self._state == self._written:
            return
        wait = max(0.0, self._last_write + PROGRESS_WRITE_S - time.monotonic())
        self._timer = threading.Timer(wait, self._flush)
        self._timer.daemon = True
        self._timer.start()

    def _flush(self) -> None:
        with self._lock:
            state = self._state
            if self._closed or state is None:
                self._timer = None
                return
            self._last_write = time.monotonic()
        written = self._write(state)  # outside the lock: a lane reporting its next case never waits
        with self._lock:
            self._timer = None
            if written:
                self._written = state
            self._schedule_locked()  # what came in meanwhile

    def _write(self, state: Progress) -> bool:
        try:
            with self._sessions() as session:
                session.execute(
                    _RECORD,
                    {
                        "p_grading": self._grading_id,
                        "p_attempt": self._attempt,
                        "p_done": state.cases_done,
                        "p_total": state.cases_total,
                        "p_hidden": state.cases_hidden,
                        "p_hidden_running": state.hidden_running,
                    },
                )
                session.commit()
            return True
        except Exception:  # noqa: BLE001 - progress is a courtesy: the grading goes on without it
            log.exception("recording the progress of grading %s failed", self._grading_id)
            return False

    def close(self) -> None:
        """Stop recording: no write starts after it (one under way may still land, and is
        harmless: the row is written only while it runs)."""
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()


def public_cases(exercise: Exercise, suites: tuple[str, ...]) -> int:
    """How many cases come before the first hidden one when ``exercise`` is judged on ``suites``
    (0 when a suite cannot be loaded: the grading then reports why, and nothing is counted)."""
    count = 0
    try:
        for suite in suites:
            if suite == HIDDEN:
                break
            count += len(load_suite(exercise, suite).cases)
    except Exception:  # noqa: BLE001 - the engine reports a broken suite as the grading's result
        return 0
    return count


def queue_position(session: Session, grading: Grading) -> int | None:
    """``grading``'s place in the queue (1: the next one a worker takes), None unless it is queued.

    Counts the queued gradings a worker claims first: by (priority, id), as :mod:`web.grading.queue` does.
    """
    if grading.status is not Status.queued:
        return None
    ahead = session.scalar(_AHEAD, {"p_priority": grading.priority, "p_id": grading.id}) or 0
    return ahead + 1


_RECORD = (
    update(Grading)
    .execution_options(synchronize_session=False)
    .where(
        Grading.id == bindparam("p_grading", type_=Grading.id.type),
        Grading.status == Status.running,
        Grading.attempts == bindparam("p_attempt", type_=Grading.attempts.type),
    )
    .values(
        cases_done=bindparam("p_done", type_=Grading.cases_done.type),
        cases_total=bindparam("p_total", type_=Grading.cases_total.type),
        cases_hidden=bindparam("p_hidden", type_=Grading.cases_hidden.type),
        hidden_running=bindparam("p_hidden_running", type_=Grading.hidden_running.type),
    )
)
_PRIORITY = bindparam("p_priority", type_=Grading.priority.type)
_AHEAD: Any = select(func.count(Grading.id)).where(
    Grading.status == Status.queued,
    or_(Grading.priority < _PRIORITY, (Grading.priority == _PRIORITY) & (Grading.id < bindparam("p_id"))),
)
