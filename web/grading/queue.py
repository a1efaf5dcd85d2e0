"""The grading queue: grading rows are the queue of record, worker threads judge them.

:meth:`GradingQueue.submit` stores a submission with its first grading, ``queued`` at live
priority; :meth:`GradingQueue.rejudge` adds another grading (low priority, a fresh seed) and
keeps the old ones. Workers may run in the site's process (``python -m web serve``) or in any
number of grader processes (``python -m web grade``) on machines that reach the same database;
nothing but the database is shared, so a crash or restart loses nothing.

The rules every worker follows, whichever process it lives in:

- **Claim** the first grading by (priority, id) with a conditional UPDATE: only one claimer can
  flip ``queued`` to ``running``. The claim takes a *lease* (``lease_expires_at``) that a
  heartbeat renews while the grading runs; a grading whose lease ran out (its worker died or
  hangs) is claimable again, and the takeover counts one more ``attempt``.
- **Write the result once.** The result is written only while the grading is ``running`` with
  the attempt the writer claimed; a worker that lost its lease, or finishes second, writes
  nothing. The submission's ``current_grading_id`` moves to the grading in the same transaction,
  and only forward (to a newer grading).
- **Bounded retries.** A grading taken over :data:`MAX_GRADING_ATTEMPTS` times (it may be what
  kills the grader) is stored as IE with the reason instead of being started again. Whatever a
  worker cannot grade ends as IE with a reference to the logged details, never as a stuck row.

With a broker configured (``PROBJUDGE_BROKER_URL``), the rows stay the record and the same
rules hold; the queue also hands each new grading's id to Celery (:mod:`web.grading.broker`), whose
workers (:mod:`web.grading.tasks`) claim that grading with :meth:`GradingQueue.claim` and judge it with
:meth:`GradingQueue.grade_claimed`, and a periodic sweep (:mod:`web.grading.sweeping`) publishes again
what the broker never got or lost. On PostgreSQL a claim locks the row it picks and skips rows
other claimers hold (``FOR UPDATE SKIP LOCKED``), so workers on many machines do not queue up
behind one another; SQLite, which has no row locks, relies on the conditional UPDATE alone.

Every grading process also keeps a :class:`~web.core.models.Grader` row alive (its heartbeat), which
the health endpoint counts.

Seeds are drawn when grading starts, so nobody can know them before.

While a worker judges, it records the grading's progress on its row (cases done, throttled:
:mod:`web.grading.progress`), and a request waiting for a verdict also answers when what its
learner is shown of that progress changes.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import CursorResult, bindparam, or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from judge import JUDGE_VERSION
from judge.engine.process import Launcher
from judge.engine.runner import grade
from judge.exercises.exercise import resolve
from judge.exercises.folders import ExerciseError
from judge.i18n import Bilingual, format_text
from judge.reports.report import Report, first_failure
from judge.verdicts import Verdict
from web.core.models import (
    Exercise,
    Grader,
    Grading,
    Priority,
    Status,
    Submission,
    User,
    count_queued,
    database_now,
)
from web.grading.gradable import missing_extra, not_gradable_text
from web.grading.progress import ProgressRecorder, public_cases, queue_position

if TYPE_CHECKING:
    from web.grading.broker import Broker

log = logging.getLogger("probjudge.grading")
POLL_SECONDS = 1.0  # how often an idle worker looks for gradings written by other processes
# A request waiting for a verdict (``?wait=``) looks at the database this often when the result may
# come from another process; this process's own workers wake it at once.
VERDICT_POLL_SECONDS = 0.1
MAX_WAIT_SECONDS = 30.0  # the longest a request may wait for a verdict
# Requests waiting for a verdict at once, per site process: each holds one of the server's threads
# (waitress runs 8), so past this many a request answers at once and its client asks again.
MAX_WAITING_REQUESTS = 4
MAX_GRADING_ATTEMPTS = 3  # gradings started (the first and takeovers) before a submission is stored as IE
DEFAULT_LEASE_S = 30.0  # a claim not renewed for this long is taken over by another worker


class SubmissionRefused(ValueError):
    """The submission was not stored: empty, too large, or too many queued.

    ``str(error)`` is English; ``error.text`` is the :class:`~judge.i18n.Bilingual` message, and
    ``error.too_many`` is true when the user should wait (the API answers 429) rather than fix it.
    """

    def __init__(self, text: Bilingual, *, too_many: bool = False) -> None:
        super().__init__(str(text))
        self.text = text
        self.too_many = too_many


@dataclass(frozen=True)
class Claim:
    """A grading a worker holds: the result may be written only with this ``attempt``."""

    grading_id: int
    submission_id: int
    attempt: int
    # What to judge, read in the claim's own transaction (None only in the claim _give_up writes IE for).
    exercise_number: int | None = None
    code: str | None = None
    # Submitted for a course: its score (the share of cases passed, web.teaching.counting) counts.
    in_course: bool = False


def worker_name(thread: str = "") -> str:
    """``host:pid[:thread]``: who holds a claim (kept on the row for operators, and so that a
    restart on the same host can release the claims of its dead predecessor at once)."""
    name = f"{socket.gethostname()}:{os.getpid()}"
    return f"{name}:{thread}" if thread else name


def _process_is_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # alive, another user's
    return False


class GradingQueue:
    """Workers over the grading table (see the module docstring).

    ``workers`` threads judge under ``launcher``; ``lease_s`` is how long a claim lives without
    a heartbeat (renewed every third of it). ``workers=0`` makes a queue that only accepts
    submissions (the grading happens in ``python -m web grade`` processes). With ``broker``,
    each new grading's id is also published to it (for Celery workers; see the module docstring).
    ``kind`` and ``slots`` describe this process in its :class:`~web.core.models.Grader` row.
    """

    def __init__(
        self,
        sessions: sessionmaker[Session],
        launcher: Launcher | None,
        *,
        workers: int = 2,
        max_code_bytes: int = 64 * 1024,
        max_queued_per_user: int = 5,
        suites: tuple[str, ...] = ("public", "hidden"),
        exercise_resolver: Callable = resolve,
        lease_s: float = DEFAULT_LEASE_S,
        broker: Broker | None = None,
        kind: str = "threads",
        slots: int | None = None,
        lanes: int = 1,
    ) -> None:
        self.sessions = sessions
        self.launcher = launcher
        self.workers = workers
        self.max_code_bytes = max_code_bytes
        self.max_queued_per_user = max_queued_per_user
        self.suites = suites
        self.lease_s = lease_s
        self._resolve = exercise_resolver
        self._wake = threading.Condition()
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._held: dict[int, Claim] = {}  # grading id -> the claim a worker of this queue is judging
        self._held_lock = threading.Lock()
        self.broker = broker
        self.kind = kind
        self.slots = slots if slots is not None else workers
        # Learner processes per grading (judge.engine.runner.grade's lanes), never more than the
        # launcher's sandbox slots allow with every grading thread busy: a lane never waits for
        # a slot another grading holds.
        room = getattr(launcher, "slots", None)
        self.lanes = max(1, min(lanes, room // max(self.slots, 1))) if isinstance(room, int) else max(1, lanes)
        self.graded = 0  # results this process wrote (its Grader row shows it)
        self._finished = threading.Condition()  # guards graded; notified when it grows
        self._waiting = threading.BoundedSemaphore(MAX_WAITING_REQUESTS)
        self._heartbeat: threading.Thread | None = None

    # --- the web side ----------------------------------------------------------------------

    def submit(
        self, session: Session, user: User, exercise: Exercise, code: str, course_id: int | None = None
    ) -> Submission:
        """Store a submission for context ``course_id`` (None: practice; the caller chose it with
        :func:`web.access.contexts.choose_context`) with a queued live grading and wake a worker.
        Raises :class:`SubmissionRefused`, also for an exercise this site cannot grade
        (:mod:`web.grading.gradable`: an extra its hidden tests need is not installed)."""
        try:
            missing = missing_extra(self._resolve(str(exercise.number)))
        except (ExerciseError, ValueError):
            missing = None  # its folder is gone: grading says so, as for any submission of it
        if missing is not None:
            raise SubmissionRefused(not_gradable_text(missing))
        size = len(code.encode("utf-8"))
        if not code.strip():
            raise SubmissionRefused(Bilingual("the code is empty", "代码是空的"))
        if size > self.max_code_bytes:
            raise SubmissionRefused(
                Bilingual(
                    f"the code is {size} bytes; the limit is {self.max_code_bytes} bytes",
                    f"代码有 {size} 字节，上限是 {self.max_code_bytes} 字节",
                )
            )
        if count_queued(session, user) >= self.max_queued_per_user:
            raise SubmissionRefused(
                Bilingual(
                    format_text(
                        "you already have {count:# submission|# submissions} waiting; "
                        "wait for a verdict before submitting again",
                        count=self.max_queued_per_user,
                    ),
                    f"你已有 {self.max_queued_per_user} 个提交在等待评测；请等出结果后再提交",
                ),
                too_many=True,
            )
        # By their ids, not the objects: the flush then has no relationships of theirs to process
        # (0.8 ms of CPU a submission), and submission.user and .exercise still come from the session.
        submission = Submission(user_id=user.id, exercise_id=exercise.id, course_id=course_id, code=code)
        submission.gradings.append(Grading(status=Status.queued, priority=Priority.live))
        session.add(submission)
        session.commit()
        self._notify([submission.gradings[0]])
        return submission

    def rejudge(self, session: Session, submission: Submission, *, priority: int = Priority.rejudge) -> Grading:
        """Queue a new grading of ``submission`` (a fresh seed when it starts); the old ones stay.

        The submission's verdict stays the current one until the new grading finishes.
        """
        grading = Grading(status=Status.queued, priority=int(priority))
        submission.gradings.append(grading)
        session.commit()
        self._notify([grading])
        return grading

    def wake(self) -> None:
        """Tell workers that gradings were queued (by a bulk insert, say a course rejudge).

        With a broker, every queued grading not yet published is published now (live first).
        """
        if self.broker is None:
            self._notify([])
            return
        with self.sessions() as session:
            rows = session.execute(
                select(Grading.id, Grading.priority)
                .where(Grading.status == Status.queued, Grading.published_at.is_(None))
                .order_by(Grading.priority, Grading.id)
            ).all()
        self.publish([(grading_id, priority) for grading_id, priority in rows])

    def _notify(self, gradings: list[Grading]) -> None:
        if self.broker is not None:
            self.publish([(grading.id, grading.priority) for grading in gradings])
            return
        with self._wake:
            self._wake.notify()

    def publish(self, gradings: list[tuple[int, int]]) -> int:
        """Hand ``(grading id, priority)`` pairs to the broker and note when; return how many it took.

        A broker that is down takes none: they stay unpublished, and the sweep publishes them.
        """
        if self.broker is None or not gradings:
            return 0
        sent = self.broker.publish(gradings)
        if sent:
            with self.sessions() as session:
                now = database_now(session)
                for start in range(0, len(sent), 500):  # bounded IN lists
                    session.execute(
                        _update(Grading).where(Grading.id.in_(sent[start : start + 500])).values(published_at=now)
                    )
                session.commit()
        return len(sent)

    # --- lifecycle -------------------------------------------------------------------------

    def recover(self) -> int:
        """Release at once the claims of this host's graders that are no longer running; return how many.

        Other hosts' claims (and live processes' on this one) are left to their leases: a
        grader never guesses that another machine is dead.
        """
        host = socket.gethostname()
        released = 0
        with self.sessions() as session:
            rows = session.execute(
                select(Grading.id, Grading.worker).where(
                    Grading.status == Status.running, Grading.worker.like(f"{host}:%")
                )
            ).all()
            for grading_id, worker in rows:
                try:
                    pid = int((worker or "").split(":")[1])  # never None: it matched LIKE
                except (IndexError, ValueError):
                    continue
                if pid != os.getpid() and _process_is_gone(pid):
                    session.execute(
                        _update(Grading)
                        .where(Grading.id == grading_id, Grading.worker == worker, Grading.status == Status.running)
                        .values(lease_expires_at=database_now(session) - dt.timedelta(seconds=1))
                    )
                    released += 1
            session.commit()
        return released

    def start(self) -> None:
        """Start the worker threads and the heartbeat (nothing when ``workers`` is 0)."""
        if self.workers <= 0:
            return
        if self.launcher is None:
            raise ValueError("a queue with workers needs a launcher")
        self.start_heartbeat()
        for number in range(self.workers):
            thread = threading.Thread(
                target=self._work, args=(worker_name(f"w{number}"),), name=f"grader-{number}", daemon=True
            )
            thread.start()
            self._threads.append(thread)

    def start_heartbeat(self) -> None:
        """Release dead predecessors' claims, then renew leases and this process's
        :class:`~web.core.models.Grader` row every third of the lease (Celery workers call this alone)."""
        if self._heartbeat is not None:
            return
        self.recover()
        self._stopping.clear()
        self.heartbeat()
        self._heartbeat = threading.Thread(target=self._heartbeat_loop, name="grader-heartbeat", daemon=True)
        self._heartbeat.start()
        self._threads.append(self._heartbeat)

    def stop(self, timeout: float = 30.0) -> None:
        """Finish the gradings being judged and stop the workers (queued ones stay queued)."""
        self._stopping.set()
        with self._wake:
            self._wake.notify_all()
        for thread in self._threads:
            thread.join(timeout)
        self._threads.clear()
        self._heartbeat = None

    # --- claiming and finishing ------------------------------------------------------------

    def claim(self, worker: str | None = None, *, grading_id: int | None = None) -> Claim | None:
        """Take the first claimable grading by (priority, id), or grading ``grading_id`` only;
        None when there is none (for ``grading_id``: it is done, or another worker holds it).

        Claimable: ``queued``, or ``running`` with its lease run out (a takeover). A grading
        taken over :data:`MAX_GRADING_ATTEMPTS` times is stored as IE here instead.
        """
        worker = worker or worker_name()
        with self.sessions() as session:
            while True:
                now = database_now(session)
                if grading_id is None:
                    # PostgreSQL: lock the first row, skipping rows other claimers hold (it takes
                    # the next one instead of waiting); SQLite renders no FOR UPDATE: its writes
                    # are serialized, and the conditional UPDATE below decides.
                    row = session.execute(_FIRST_CLAIMABLE, {"p_now": now}).first()
                else:
                    # One grading: wait for whoever holds its row (another claimer, or the site
                    # noting its publish time) and look again. Skipping it would drop the task
                    # of a grading nobody else is about to judge.
                    row = session.execute(_THIS_CLAIMABLE, {"p_now": now, "p_grading": grading_id}).first()
                if row is None:
                    session.rollback()
                    return None
                picked, submission_id, attempts, status = row
                if status is Status.running and attempts >= MAX_GRADING_ATTEMPTS:
                    # The same conditions again, and the attempt seen: of two writers, one wins.
                    still = [Grading.id == picked, Grading.attempts == attempts, _claimable(now)]
                    self._give_up(session, picked, attempts, still)
                    if grading_id is not None:
                        return None
                    continue
                if status is Status.running:
                    log.warning(
                        "grading %s: taking it over from a worker whose lease ran out (attempt %s)",
                        picked,
                        attempts + 1,
                    )
                # The same conditions again, and the attempt seen: of two claimers, one wins.
                # execute() is typed as Result; an UPDATE's is a CursorResult, which has the row count.
                claimed = cast(
                    CursorResult[Any],
                    session.execute(
                        _TAKE,
                        {
                            "p_grading": picked,
                            "p_seen": attempts,
                            "p_now": now,
                            "p_worker": worker[:128],
                            "p_attempt": attempts + 1,
                            "p_until": now + dt.timedelta(seconds=self.lease_s),
                        },
                    ),
                )
                if claimed.rowcount != 1:
                    session.commit()
                    if grading_id is not None:
                        return None
                    continue
                # What to judge, in the same transaction: a grading costs the database two, its
                # claim and its result, and no session is held while it is judged.
                number, code, course = session.execute(_WHAT_TO_JUDGE, {"p_submission": submission_id}).one()
                session.commit()
                return Claim(picked, submission_id, attempts + 1, number, code, course is not None)

    def _give_up(self, session: Session, grading_id: int, attempts: int, still: list) -> None:
        """Store IE for a grading whose judging kept being interrupted (it may kill its grader)."""
        grading = session.get(Grading, grading_id)
        assert grading is not None  # claimed, and gradings are never deleted
        report = _internal_error_report(
            grading.submission,
            (
                f"grading this submission was interrupted {attempts} times (the grader stopped while running it); "
                "it was not graded again. This is not a verdict on your code: ask your instructor to rejudge it"
            ),
        )
        log.error("grading %s: interrupted %s times; stored as IE", grading_id, attempts)
        self._write(session, Claim(grading_id, grading.submission_id, attempts), report, _store_result(*still))

    def finish(self, claim: Claim, report: Report) -> bool:
        """Store ``report`` as the result of ``claim``'s grading; False (and nothing written) when
        the claim is no longer the grading's (taken over, or already finished)."""
        with self.sessions() as session:
            written = self._write(session, claim, report, _FINISH)
        if not written:
            log.warning(
                "grading %s: attempt %s finished after another worker took it; its result is dropped",
                claim.grading_id,
                claim.attempt,
            )
        return written

    @staticmethod
    def _write(session: Session, claim: Claim, report: Report, store: Any) -> bool:
        """One transaction: the grading's result (if ``store``'s conditions still hold: see
        :func:`_store_result`) and the submission's current grading, moved forward only."""
        report_json = report.to_json()
        failing = first_failure(report_json.get("cases", []))
        stored = cast(
            CursorResult[Any],
            session.execute(
                store,
                {
                    "p_grading": claim.grading_id,
                    "p_attempt": claim.attempt,
                    "p_verdict": report.verdict,
                    "p_passed": report.passed,
                    "p_total": len(report.cases),
                    "p_diagnosis": str(report.diagnosis) if report.diagnosis is not None else None,
                    "p_diagnosis_zh": report_json.get("diagnosis_zh"),
                    "p_failed_case": str(failing.get("name"))[:128] if failing is not None else None,
                    "p_seed": report.seed,
                    "p_judge_version": report.judge_version,
                    "p_exercise_hash": report.exercise.get("content_hash"),
                    "p_report": report_json,
                    "p_finished": database_now(session),
                },
            ),
        )
        if stored.rowcount != 1:
            session.rollback()
            return False
        session.execute(_MOVE_CURRENT, {"p_submission": claim.submission_id, "p_grading": claim.grading_id})
        session.commit()
        return True

    def heartbeat(self) -> int:
        """Renew the leases of the gradings this queue's workers hold, and this process's
        :class:`~web.core.models.Grader` row; return how many leases were renewed."""
        with self._held_lock:
            claims = list(self._held.values())
        self._seen(len(claims))
        if not claims:
            return 0
        renewed = 0
        with self.sessions() as session:
            until = database_now(session) + dt.timedelta(seconds=self.lease_s)
            for claim in claims:
                result = cast(
                    CursorResult[Any],
                    session.execute(
                        _update(Grading)
                        .where(
                            Grading.id == claim.grading_id,
                            Grading.status == Status.running,
                            Grading.attempts == claim.attempt,
                        )
                        .values(lease_expires_at=until)
                    ),
                )
                renewed += result.rowcount or 0
            session.commit()
        return renewed

    def _seen(self, busy: int) -> None:
        """Create or renew this process's Grader row (its name is unique: host and pid)."""
        name = worker_name()[:128]
        with self.sessions() as session:
            now = database_now(session)
            renewed = cast(
                CursorResult[Any],
                session.execute(
                    _update(Grader)
                    .where(Grader.name == name)
                    .values(last_seen_at=now, busy=busy, graded=self.graded, slots=self.slots, kind=self.kind)
                ),
            )
            if renewed.rowcount == 0:
                session.add(
                    Grader(
                        name=name,
                        host=socket.gethostname()[:128],
                        pid=os.getpid(),
                        kind=self.kind,
                        slots=self.slots,
                        busy=busy,
                        graded=self.graded,
                        started_at=now,
                        last_seen_at=now,
                    )
                )
            session.commit()

    # --- the workers -----------------------------------------------------------------------

    def _heartbeat_loop(self) -> None:
        while not self._stopping.wait(self.lease_s / 3):
            try:
                self.heartbeat()
            except Exception:  # noqa: BLE001 - a database hiccup: the next beat tries again
                log.exception("renewing the grading leases failed")

    def _work(self, worker: str) -> None:
        while not self._stopping.is_set():
            try:
                claim = self.claim(worker)
            except Exception:  # noqa: BLE001 - the database is busy or gone: wait, then look again
                log.exception("claiming a grading failed")
                claim = None
            if claim is None:
                with self._wake:
                    if not self._stopping.is_set():
                        self._wake.wait(POLL_SECONDS)
                continue
            self.grade_claimed(claim)

    def grade_claimed(self, claim: Claim) -> bool:
        """Judge ``claim``'s grading (its lease renewed meanwhile) and write the result once;
        return whether this worker's result was written. Never raises for the learner's code or
        the judge: what cannot be graded is stored as IE with a logged reference."""
        with self._held_lock:
            self._held[claim.grading_id] = claim
        try:
            written = self.finish(claim, self.judge(claim))
        except Exception:  # noqa: BLE001 - one bad job must not stop the worker
            reference = secrets.token_hex(4)
            log.exception("grading %s failed (internal error %s)", claim.grading_id, reference)
            written = self._store_internal_error(claim, reference)
        finally:
            with self._held_lock:
                self._held.pop(claim.grading_id, None)
        if written:
            with self._finished:
                self.graded += 1
                self._finished.notify_all()
        return written

    def wait_for_verdict(self, submission_id: int, timeout_s: float) -> bool:
        """Wait up to ``timeout_s`` seconds (at most :data:`MAX_WAIT_SECONDS`) until submission
        ``submission_id`` has a verdict to show (a current grading), or until what its waiting
        learner is shown changes (its grading starts, counts a case, or moves up the queue: see
        :mod:`web.grading.progress`); whether it has a verdict.

        This process's workers wake the wait the moment they write a result; a result or progress
        written elsewhere (grader processes, Celery workers) is seen within
        :data:`VERDICT_POLL_SECONDS`. Past :data:`MAX_WAITING_REQUESTS` waits at once it answers
        without waiting. Each look is a fresh session (a long-lived one could keep reading an old
        snapshot).
        """
        deadline = time.monotonic() + min(max(0.0, timeout_s), MAX_WAIT_SECONDS)
        if not self._waiting.acquire(blocking=False):
            return self._has_verdict(submission_id)
        try:
            first: tuple | None = None
            while True:
                with self._finished:
                    seen = self.graded
                if self._has_verdict(submission_id):
                    return True
                shown = self._shown_progress(submission_id)
                if first is None:
                    first = shown
                elif shown != first:
                    return False
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                with self._finished:
                    if self.graded == seen:  # nothing written since the look: sleep on it
                        self._finished.wait(min(left, VERDICT_POLL_SECONDS))
        finally:
            self._waiting.release()

    def _has_verdict(self, submission_id: int) -> bool:
        with self.sessions() as session:
            current = session.execute(_CURRENT_GRADING, {"p_submission": submission_id}).scalar()
        return current is not None

    def _shown_progress(self, submission_id: int) -> tuple:
        """What a learner waiting for the submission's first verdict is shown of its grading under
        way: its state, progress and place in the queue (compared, never shown, here)."""
        with self.sessions() as session:
            grading = session.execute(_UNDER_WAY, {"p_submission": submission_id}).scalar()
            if grading is None:
                return ()
            shown = (grading.id, grading.status, grading.attempts, grading.cases_done, grading.hidden_running)
            return (*shown, queue_position(session, grading))

    def judge(self, claim: Claim) -> Report:
        """Judge the code of ``claim``'s submission (no database session is held meanwhile)."""
        number, code = claim.exercise_number, claim.code
        assert number is not None and code is not None  # read by claim(), in its transaction
        exercise = self._resolve(str(number))
        recorder = ProgressRecorder(self.sessions, claim.grading_id, claim.attempt, public_cases(exercise, self.suites))
        try:
            # fingerprint: the probes' hashes for the instructors' similarity pages (docs/similarity-behaviour.md);
            # stored with the report, never shown to the learner (web.access.presenting picks what a learner sees).
            # A course submission's score is the share of its cases passed, so it runs every case; a
            # practice one stops at the first case that names a mistake (docs/statistics.md, "Sequential
            # verdicts"). Staged samples stop early either way: that changes no case's verdict.
            return grade(
                exercise,
                code,
                suites=self.suites,
                launcher=self.launcher,
                lanes=self.lanes,
                progress=recorder,
                fingerprint=True,
                settle=not claim.in_course,
            )
        finally:
            recorder.close()

    def _store_internal_error(self, claim: Claim, reference: str) -> bool:
        with self.sessions() as session:
            submission = session.get(Submission, claim.submission_id)
            if submission is None:
                return False
            report = _internal_error_report(
                submission, f"the grader failed on this submission (not your fault; internal error {reference})"
            )
        return self.finish(claim, report)


def _update(table):
    """An UPDATE statement run as SQL alone: the rows' conditions are the database's to check (the
    ORM would otherwise re-evaluate them on loaded objects, comparing SQLite's naive datetimes)."""
    return update(table).execution_options(synchronize_session=False)


# The statements of every grading, built once with bound parameters (``p_...``, typed as their
# columns): building a statement and its cache key costs SQLAlchemy a few tenths of a millisecond
# each time, and the claim and the result run six. Their SQL is what they were built from before.
def _parameter(name: str, column: Any) -> Any:
    return bindparam(name, type_=column.type)


def _claimable(now: Any) -> Any:
    """Claimable at ``now`` (a moment, or the ``p_now`` parameter): queued, or running with its lease run out."""
    return or_(
        Grading.status == Status.queued,
        (Grading.status == Status.running) & (Grading.lease_expires_at < now),
    )


_NOW = _parameter("p_now", Grading.lease_expires_at)
_CLAIMED = (Grading.id, Grading.submission_id, Grading.attempts, Grading.status)
_FIRST_CLAIMABLE = (
    select(*_CLAIMED)
    .where(_claimable(_NOW))
    .order_by(Grading.priority, Grading.id)
    .limit(1)
    .with_for_update(skip_locked=True)
)
_THIS_CLAIMABLE = (
    select(*_CLAIMED).where(_claimable(_NOW)).where(Grading.id == _parameter("p_grading", Grading.id)).with_for_update()
)
_TAKE = (
    _update(Grading)
    .where(
        Grading.id == _parameter("p_grading", Grading.id),
        Grading.attempts == _parameter("p_seen", Grading.attempts),
        _claimable(_NOW),
    )
    .values(
        status=Status.running,
        worker=_parameter("p_worker", Grading.worker),
        started_at=_parameter("p_now", Grading.started_at),
        attempts=_parameter("p_attempt", Grading.attempts),
        lease_expires_at=_parameter("p_until", Grading.lease_expires_at),
        # A takeover starts again from the first case.
        cases_done=None,
        cases_total=None,
        cases_hidden=None,
        hidden_running=False,
    )
)
_WHAT_TO_JUDGE = (
    select(Exercise.number, Submission.code, Submission.course_id)
    .join(Submission, Submission.exercise_id == Exercise.id)
    .where(Submission.id == _parameter("p_submission", Submission.id))
)


def _store_result(*conditions: Any) -> Any:
    """The UPDATE that writes a result (:meth:`GradingQueue._write`'s parameters) where ``conditions`` hold."""
    return (
        _update(Grading)
        .where(*conditions)
        .values(
            status=Status.done,
            verdict=_parameter("p_verdict", Grading.verdict),
            score_passed=_parameter("p_passed", Grading.score_passed),
            score_total=_parameter("p_total", Grading.score_total),
            diagnosis=_parameter("p_diagnosis", Grading.diagnosis),
            diagnosis_zh=_parameter("p_diagnosis_zh", Grading.diagnosis_zh),
            failed_case=_parameter("p_failed_case", Grading.failed_case),
            seed=_parameter("p_seed", Grading.seed),
            judge_version=_parameter("p_judge_version", Grading.judge_version),
            exercise_hash=_parameter("p_exercise_hash", Grading.exercise_hash),
            report_json=_parameter("p_report", Grading.report_json),
            finished_at=_parameter("p_finished", Grading.finished_at),
            lease_expires_at=None,
        )
    )


# A result is written only while the grading runs under the attempt its writer claimed.
_FINISH = _store_result(
    Grading.id == _parameter("p_grading", Grading.id),
    Grading.status == Status.running,
    Grading.attempts == _parameter("p_attempt", Grading.attempts),
)
_CURRENT_GRADING = select(Submission.current_grading_id).where(
    Submission.id == _parameter("p_submission", Submission.id)
)  # what a request waiting for a verdict looks at
_UNDER_WAY = (
    select(Grading)
    .where(Grading.submission_id == _parameter("p_submission", Grading.submission_id))
    .order_by(Grading.id.desc())
    .limit(1)
)  # the newest grading of a submission: the one a learner waiting for its first verdict is shown
_MOVE_CURRENT = (
    _update(Submission)
    .where(
        Submission.id == _parameter("p_submission", Submission.id),
        or_(
            Submission.current_grading_id.is_(None),
            Submission.current_grading_id < _parameter("p_grading", Submission.current_grading_id),
        ),
    )
    .values(current_grading_id=_parameter("p_grading", Submission.current_grading_id))
)


def _internal_error_report(submission: Submission, message: str) -> Report:
    """The report stored for a submission the grader could not judge: IE, no cases, the reason."""
    row = submission.exercise
    return Report(
        exercise={"number": row.number, "slug": row.slug, "content_hash": row.content_hash},
        verdict=Verdict.IE,
        cases=[],
        seed=None,
        device="cpu",
        sandbox="",
        suites=[],
        judge_version=JUDGE_VERSION,
        false_failure_budget={},
        message=message,
    )
