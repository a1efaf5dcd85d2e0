"""The grading queue: submission rows are the queue of record, worker threads grade them.

:meth:`GradingQueue.submit` writes a ``queued`` row and wakes a worker; nothing else holds the
job, so a crash or restart loses nothing: :meth:`GradingQueue.recover` (called at start-up)
puts rows left ``running`` back to ``queued``. A worker claims a row with a conditional UPDATE
(only one claimer can flip ``queued`` to ``running``), judges the code with the engine under the
configured sandbox, and stores the whole report. Seeds are drawn when grading starts, so nobody
can know them before.

Recovery is bounded: a row's ``attempts`` counts the gradings started for it, and a submission
whose grading was interrupted :data:`MAX_GRADING_ATTEMPTS` times (it may be what kills the
grader) is stored as IE with the reason, instead of being queued again forever. Whatever a
worker cannot grade ends as IE with a reference to the logged details, never as a stuck row.
"""

from __future__ import annotations

import logging
import secrets
import tempfile
import threading
from pathlib import Path
from typing import Callable

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from judge import JUDGE_VERSION
from judge.exercise import resolve
from judge.i18n import Bilingual
from judge.process import Launcher
from judge.report import Report
from judge.runner import judge_file
from judge.verdicts import Verdict
from web.models import Exercise, Status, Submission, User, count_queued, utcnow

log = logging.getLogger("probjudge.grading")
POLL_SECONDS = 1.0  # also pick up rows written by other processes
MAX_GRADING_ATTEMPTS = 3  # gradings interrupted (the process died) before a submission is stored as IE


class SubmissionRefused(ValueError):
    """The submission was not stored: empty, too large, or too many queued.

    ``str(error)`` is English; ``error.text`` is the :class:`~judge.i18n.Bilingual` message, and
    ``error.too_many`` is true when the user should wait (the API answers 429) rather than fix it.
    """

    def __init__(self, text: Bilingual, *, too_many: bool = False) -> None:
        super().__init__(str(text))
        self.text = text
        self.too_many = too_many


class GradingQueue:
    """In-process workers over the submission table (see the module docstring)."""

    def __init__(self, sessions: sessionmaker[Session], launcher: Launcher, *, workers: int = 2,
                 max_code_bytes: int = 64 * 1024, max_queued_per_user: int = 5,
                 suites: tuple[str, ...] = ("public", "hidden"),
                 exercise_resolver: Callable = resolve) -> None:
        self.sessions = sessions
        self.launcher = launcher
        self.workers = workers
        self.max_code_bytes = max_code_bytes
        self.max_queued_per_user = max_queued_per_user
        self.suites = suites
        self._resolve = exercise_resolver
        self._wake = threading.Condition()
        self._stopping = False
        self._threads: list[threading.Thread] = []
        self._scratch = tempfile.TemporaryDirectory(prefix="probjudge-queue-")

    # --- the web side ----------------------------------------------------------------------

    def submit(self, session: Session, user: User, exercise: Exercise, code: str) -> Submission:
        """Store a queued submission and wake a worker. Raises :class:`SubmissionRefused`."""
        size = len(code.encode("utf-8"))
        if not code.strip():
            raise SubmissionRefused(Bilingual("the code is empty", "代码是空的"))
        if size > self.max_code_bytes:
            raise SubmissionRefused(Bilingual(f"the code is {size} bytes; the limit is {self.max_code_bytes} bytes",
                                              f"代码有 {size} 字节，上限是 {self.max_code_bytes} 字节"))
        if count_queued(session, user) >= self.max_queued_per_user:
            raise SubmissionRefused(Bilingual(
                f"you already have {self.max_queued_per_user} submissions waiting; "
                "wait for a verdict before submitting again",
                f"你已有 {self.max_queued_per_user} 个提交在等待评测；请等出结果后再提交"), too_many=True)
        submission = Submission(user=user, exercise=exercise, code=code, status=Status.queued)
        session.add(submission)
        session.commit()
        with self._wake:
            self._wake.notify()
        return submission

    # --- lifecycle -------------------------------------------------------------------------

    def recover(self) -> int:
        """Put submissions left ``running`` by a stopped process back in the queue; return how many.

        A submission whose grading has been interrupted :data:`MAX_GRADING_ATTEMPTS` times is
        not queued again: it is stored as IE, with the reason in its report.
        """
        with self.sessions() as session:
            exhausted = session.scalars(select(Submission).where(
                Submission.status == Status.running, Submission.attempts >= MAX_GRADING_ATTEMPTS)).all()
            for submission in exhausted:
                log.error("submission %s: grading interrupted %s times; stored as IE", submission.id,
                          submission.attempts)
                self._store_report(submission, _internal_error_report(
                    submission, f"grading this submission was interrupted {submission.attempts} times (the grader "
                                "stopped while running it); it was not graded again. This is not a verdict on your "
                                "code: ask your instructor to rejudge it"))
            result = session.execute(update(Submission).where(Submission.status == Status.running)
                                     .values(status=Status.queued, started_at=None))
            session.commit()
            return result.rowcount or 0

    def start(self) -> None:
        self.recover()
        self._stopping = False
        for number in range(self.workers):
            thread = threading.Thread(target=self._work, name=f"grader-{number}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self, timeout: float = 30.0) -> None:
        """Finish the submissions being graded and stop the workers (queued ones stay queued)."""
        with self._wake:
            self._stopping = True
            self._wake.notify_all()
        for thread in self._threads:
            thread.join(timeout)
        self._threads.clear()

    # --- the workers -----------------------------------------------------------------------

    def claim(self) -> int | None:
        """Flip the oldest queued row to running; return its id, or None when the queue is empty."""
        with self.sessions() as session:
            while True:
                candidate = session.scalar(select(Submission.id).where(Submission.status == Status.queued)
                                           .order_by(Submission.id).limit(1))
                if candidate is None:
                    return None
                claimed = session.execute(
                    update(Submission).where(Submission.id == candidate, Submission.status == Status.queued)
                    .values(status=Status.running, started_at=utcnow(), attempts=Submission.attempts + 1))
                session.commit()
                if claimed.rowcount == 1:
                    return candidate

    def _work(self) -> None:
        while True:
            with self._wake:
                if self._stopping:
                    return
            submission_id = self.claim()
            if submission_id is None:
                with self._wake:
                    if not self._stopping:
                        self._wake.wait(POLL_SECONDS)
                continue
            try:
                self.grade(submission_id)
            except Exception:  # noqa: BLE001 - one bad job must not stop the worker
                reference = secrets.token_hex(4)
                log.exception("grading submission %s failed (internal error %s)", submission_id, reference)
                self._store_internal_error(submission_id, reference)

    def grade(self, submission_id: int) -> None:
        """Judge one claimed submission and store its report."""
        with self.sessions() as session:
            submission = session.get(Submission, submission_id)
            exercise = self._resolve(str(submission.exercise.number))
            folder = Path(self._scratch.name) / str(submission_id)
            folder.mkdir(exist_ok=True)
            path = folder / "solution.py"
            path.write_text(submission.code, encoding="utf-8")
            try:
                report = judge_file(exercise, path, suites=self.suites, launcher=self.launcher)
            finally:
                path.unlink(missing_ok=True)
                folder.rmdir()
            self._store_report(submission, report)
            session.commit()

    @staticmethod
    def _store_report(submission: Submission, report: Report) -> None:
        """Write ``report`` into ``submission``'s row (the caller commits)."""
        submission.status = Status.done
        submission.verdict = report.verdict.value
        submission.score_passed, submission.score_total = report.passed, len(report.cases)
        submission.seed = report.seed
        submission.judge_version = report.judge_version
        submission.exercise_hash = report.exercise.get("content_hash")
        submission.report_json = report.to_json()
        submission.finished_at = utcnow()

    def _store_internal_error(self, submission_id: int, reference: str) -> None:
        with self.sessions() as session:
            submission = session.get(Submission, submission_id)
            if submission is not None:
                self._store_report(submission, _internal_error_report(
                    submission, f"the grader failed on this submission (not your fault; internal error {reference})"))
                session.commit()


def _internal_error_report(submission: Submission, message: str) -> Report:
    """The report stored for a submission the grader could not judge: IE, no cases, the reason."""
    row = submission.exercise
    return Report(exercise={"number": row.number, "slug": row.slug, "content_hash": row.content_hash},
                  verdict=Verdict.IE, cases=[], seed=submission.seed, device="cpu", sandbox="",
                  suites=[], judge_version=JUDGE_VERSION, false_failure_budget={}, message=message)
