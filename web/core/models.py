"""The site's data (SQLAlchemy 2): users, their sign-in sessions, API tokens, exercises, submissions.

A signed-in browser is a :class:`UserSession` row: the session cookie carries a random token,
the row only its SHA-256, and Flask-Login's user id *is* that token (:meth:`User.get_id`), so
deleting the row signs that browser out for good, whatever copy of the cookie exists. User
names are unique by their ``name_key`` (see :mod:`web.core.names`).

A ``submission`` row is what a learner handed in; each judging of it is a ``grading`` row, and
the gradings are the queue of record: a grading is written ``queued`` before any worker sees
it, and one whose worker died is taken over when its lease runs out, so no submission is ever
lost. A rejudge adds a grading and keeps the old ones. The judge's report is stored whole
(``report_json``), next to the columns the pages and the gradebook query.
"""

from __future__ import annotations

import datetime as dt
import enum
import hashlib
import secrets
from typing import TYPE_CHECKING, Any, cast

from flask_login import UserMixin
from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CursorResult,
    DateTime,
    Enum,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    bindparam,
    delete,
    false,
    func,
    select,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, relationship, validates
from werkzeug.security import check_password_hash, generate_password_hash

from judge.verdicts import Verdict
from web.core.names import NAME_KEY_LENGTH, display_name, name_key
from web.core.validation import text_problem


class Base(DeclarativeBase):
    pass


class Role(str, enum.Enum):
    """What an account may do site-wide. Within a course, :class:`CourseRole` decides.

    ``instructor`` may create courses (and is then an instructor of them); ``admin`` (the
    account ``make run`` creates at first start) may do everything, in every course.
    """

    learner = "learner"
    instructor = "instructor"
    admin = "admin"


class Status(str, enum.Enum):
    queued = "queued"
    running = "running"
    done = "done"


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


# Built once: every claim, result and heartbeat asks the time (see web.grading.queue on why).
_SERVER_NOW = select(func.now())
_SQLITE_NOW = select(func.strftime("%Y-%m-%d %H:%M:%f", "now"))


def database_now(session: Session) -> dt.datetime:
    """The database server's clock, UTC and aware: what leases, heartbeats and the sweep compare.

    Graders on many machines write and read the same lease and heartbeat times; taken from each
    machine's own clock, a grader a minute slow would write leases already over for the others
    (its gradings taken over at once), and one a few minutes fast would look alive after it died.
    On PostgreSQL this is ``now()`` (the transaction's start); on SQLite (one machine) its own
    ``'now'``, in milliseconds.
    """
    bind = session.get_bind()
    if bind.dialect.name == "postgresql":
        value = session.scalar(_SERVER_NOW)
        assert isinstance(value, dt.datetime)
        return value.astimezone(dt.UTC)
    if bind.dialect.name == "sqlite":
        text = session.scalar(_SQLITE_NOW)
        return dt.datetime.fromisoformat(str(text)).replace(tzinfo=dt.UTC)
    return utcnow()


def as_utc(moment: dt.datetime) -> dt.datetime:
    """``moment`` with its time zone: SQLite hands back naive datetimes (all stored in UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.UTC)


def token_digest(token: str) -> str:
    """What is stored of a secret token (a sign-in session's, an API token): its SHA-256, in hex."""
    return hashlib.sha256(token.encode()).hexdigest()


def hash_password(password: str) -> str:
    """The stored form of ``password``: one method for every account and the sign-in dummy."""
    return generate_password_hash(password)


class User(UserMixin, Base):
    __tablename__ = "user"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    name_key: Mapped[str] = mapped_column(String(NAME_KEY_LENGTH), unique=True, index=True)
    password_hash: Mapped[str] = mapped_column(String(256))
    role: Mapped[Role] = mapped_column(Enum(Role, native_enum=False, length=16), default=Role.learner)
    language: Mapped[str] = mapped_column(String(8), default="en")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    submissions: Mapped[list[Submission]] = relationship(back_populates="user")
    tokens: Mapped[list[ApiToken]] = relationship(back_populates="user", cascade="all, delete-orphan")
    sessions: Mapped[list[UserSession]] = relationship(back_populates="user", cascade="all, delete-orphan")

    # Not a column: the token of the sign-in session this object was loaded for (or is signing
    # in), set by web.accounts.auth; Flask-Login keeps it in the session cookie as the user id. Annotated for
    # the type checker only: SQLAlchemy takes every annotation on a mapped class for a column.
    if TYPE_CHECKING:
        login_token: str | None
    login_token = None

    @validates("name")
    def _normalize_name(self, _key: str, name: str) -> str:
        """Store the display form and keep the unique key in step with it (see web.core.names)."""
        name = display_name(name)
        self.name_key = name_key(name)
        return name

    def get_id(self) -> str | None:
        """Flask-Login's user id: this sign-in's token, never the account id (see the module docstring)."""
        return self.login_token

    def set_password(self, password: str) -> None:
        """Hash and store ``password``; raise ``ValueError`` when it is shorter than 8 characters
        or holds a character that cannot be stored (see :mod:`web.core.validation`)."""
        if len(password) < 8:
            raise ValueError("a password needs at least 8 characters")
        problem = text_problem(password)
        if problem is not None:
            raise ValueError(f"the password cannot be used: {problem}")
        self.password_hash = hash_password(password)

    def check_password(self, password: str) -> bool:
        return check_password_hash(self.password_hash, password)


class UserSession(Base):
    """One signed-in browser. The cookie holds the token; only its SHA-256 is stored.

    A row lives from sign-in until sign-out, a password change (the user's other rows),
    ``python -m web set-password`` (all the user's rows), or :data:`IDLE_LIMIT` without a request.
    """

    __tablename__ = "user_session"
    IDLE_LIMIT = dt.timedelta(days=30)
    # last_seen_at is written at most this often, so that pages do not write on every request.
    SEEN_RESOLUTION = dt.timedelta(minutes=5)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_seen_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    user: Mapped[User] = relationship(back_populates="sessions")

    digest = staticmethod(token_digest)

    @classmethod
    def issue(cls, user: User) -> tuple[UserSession, str]:
        """A new session for ``user``: the row to add and the token for the cookie."""
        token = secrets.token_urlsafe(32)
        return cls(user=user, token_hash=cls.digest(token)), token

    @classmethod
    def find(cls, session: Session, token: str, now: dt.datetime | None = None) -> UserSession | None:
        """The live session with ``token`` (None when unknown, ended or idle too long)."""
        if not token.isascii():  # tokens are URL-safe base64; anything else was never issued
            return None
        now = now or utcnow()
        return session.scalar(
            select(cls).where(cls.token_hash == cls.digest(token), cls.last_seen_at > now - cls.IDLE_LIMIT)
        )

    def touch(self, now: dt.datetime | None = None) -> bool:
        """Note a request; True when ``last_seen_at`` changed (the caller commits)."""
        now = now or utcnow()
        if now - as_utc(self.last_seen_at) < self.SEEN_RESOLUTION:
            return False
        self.last_seen_at = now
        return True

    @classmethod
    def end(cls, session: Session, token: str) -> None:
        """Delete (not commit) the session with ``token``, if it exists."""
        session.execute(delete(cls).where(cls.token_hash == cls.digest(token)))

    @classmethod
    def end_idle(cls, session: Session, user: User, now: dt.datetime | None = None) -> int:
        """Delete (not commit) ``user``'s sessions idle past :data:`IDLE_LIMIT` (they no longer count)."""
        cutoff = (now or utcnow()) - cls.IDLE_LIMIT
        # execute() is typed as Result; a DELETE's is a CursorResult, which has the row count.
        ended = cast(
            CursorResult[Any], session.execute(delete(cls).where(cls.user_id == user.id, cls.last_seen_at <= cutoff))
        )
        return ended.rowcount or 0

    @classmethod
    def end_all(cls, session: Session, user: User, keep: UserSession | None = None) -> int:
        """Delete (not commit) ``user``'s sessions except ``keep``; return how many ended."""
        query = delete(cls).where(cls.user_id == user.id)
        if keep is not None:
            query = query.where(cls.id != keep.id)
        return cast(CursorResult[Any], session.execute(query)).rowcount or 0  # as in end_idle


class ApiToken(Base):
    """A bearer token for the JSON API. Only its SHA-256 is stored; the token is shown once."""

    __tablename__ = "api_token"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    label: Mapped[str] = mapped_column(String(64), default="")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    user: Mapped[User] = relationship(back_populates="tokens")

    digest = staticmethod(token_digest)

    @classmethod
    def issue(cls, user: User, label: str = "") -> tuple[ApiToken, str]:
        """A new token for ``user``: the row to add and the secret to show once."""
        secret = "pj_" + secrets.token_urlsafe(32)
        return cls(user=user, token_hash=cls.digest(secret), label=label), secret

    @classmethod
    def find_user(cls, session: Session, token: str) -> User | None:
        """The owner of ``token`` (None: no such token), in one query: every API request asks."""
        return session.scalar(_TOKEN_OWNER, {"p_hash": cls.digest(token)})


# Built once, as every API request runs it (building a statement costs SQLAlchemy more than its SQLite query).
_TOKEN_OWNER = (
    select(User)
    .join(ApiToken, ApiToken.user_id == User.id)
    .where(ApiToken.token_hash == bindparam("p_hash", type_=ApiToken.token_hash.type))
)


class Exercise(Base):
    """An exercise as last synced from ``exercises/`` (``content_hash`` notices a change)."""

    __tablename__ = "exercise"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    number: Mapped[int] = mapped_column(Integer, unique=True, index=True)
    slug: Mapped[str] = mapped_column(String(64), unique=True)
    title_en: Mapped[str] = mapped_column(String(200))
    title_zh: Mapped[str] = mapped_column(String(200))
    difficulty: Mapped[str] = mapped_column(String(32))
    tags: Mapped[list] = mapped_column(JSON, default=list)
    runs_in: Mapped[list] = mapped_column(JSON, default=list)
    content_hash: Mapped[str] = mapped_column(String(64))
    synced_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    submissions: Mapped[list[Submission]] = relationship(back_populates="exercise")


class Submission(Base):
    """What a learner handed in: who, which exercise, the code, when, and for which course
    (its **context**). Never changes once stored.

    ``course_id`` is the course the learner submitted for (None: practice, no course), written
    once at submission (:func:`web.access.contexts.choose_context`) and never changed. With the
    exercise it determines the assignment, as an exercise is in at most one assignment per
    course (:class:`AssignmentExercise`). Who sees it as an instructor, what a course counts,
    rejudges and shows the learner all follow it (see :mod:`web.access.permissions`).

    Its verdicts live in :class:`Grading` rows, one per judging. :attr:`current` is the newest
    finished grading (a rejudge that finishes replaces the verdict shown, the old one is kept);
    :attr:`shown` is what the pages show: the current grading, else the newest one (queued or
    running) while nothing has finished yet.
    """

    __tablename__ = "submission"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id"), index=True)
    exercise_id: Mapped[int] = mapped_column(ForeignKey("exercise.id"), index=True)
    # The context (None: practice); indexed by ix_submission_course below.
    course_id: Mapped[int | None] = mapped_column(ForeignKey("course.id"), nullable=True)
    code: Mapped[str] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
    # The newest finished grading, written in the same transaction as its result (see
    # web.grading.queue.GradingQueue.finish); no foreign key, so that the two tables do not depend on
    # each other in a cycle. Queries join it to count verdicts; None until a grading finishes.
    current_grading_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)

    user: Mapped[User] = relationship(back_populates="submissions")
    exercise: Mapped[Exercise] = relationship(back_populates="submissions")
    course: Mapped[Course | None] = relationship()
    gradings: Mapped[list[Grading]] = relationship(
        back_populates="submission", order_by="Grading.id", cascade="all, delete-orphan"
    )
    current: Mapped[Grading | None] = relationship(
        primaryjoin="foreign(Submission.current_grading_id) == Grading.id", viewonly=True
    )

    # The gradebook and the course lists read one learner's attempts at one exercise in time order.
    # current_grading_id makes it covering: the course queries read no submission row (not the code).
    # ix_submission_course is the same for one course's attempts (web.teaching.counting.attempts_query).
    __table_args__ = (
        Index("ix_submission_user_exercise", "user_id", "exercise_id", "created_at", "current_grading_id"),
        Index("ix_submission_course", "course_id", "user_id", "exercise_id", "created_at", "current_grading_id"),
    )

    @property
    def latest(self) -> Grading | None:
        """The newest grading, whatever its status."""
        return self.gradings[-1] if self.gradings else None

    @property
    def shown(self) -> Grading | None:
        """The grading the pages show: the current one, else the newest (still queued or running)."""
        wanted = self.current_grading_id
        if "gradings" in self.__dict__ and "current" not in self.__dict__:
            # The gradings are loaded, and the current one is among them (it is written only for a
            # grading of this submission): no query for it. Not there (a list older than the
            # submission's row), it is asked for as before.
            if wanted is None:
                return self.latest
            found = next((grading for grading in self.gradings if grading.id == wanted), None)
            if found is not None:
                return found
        return self.current or self.latest


class Priority(enum.IntEnum):
    """Which gradings a worker takes first (lower first, then by id): a learner waiting for a
    verdict always goes before a rejudge."""

    live = 0
    rejudge = 10


class Grading(Base):
    """One judging of a submission: the queue's unit of work and, once finished, its verdict.

    Lifecycle: ``queued`` → ``running`` (claimed by a worker, which holds a lease it renews while
    it judges) → ``done``. A worker that stops renewing (it died) loses the lease, and another
    worker takes the grading over, counting one more ``attempt``. The result is written only by
    the worker holding the current attempt, and only once (see :mod:`web.grading.queue`).
    """

    __tablename__ = "grading"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submission.id"), index=True)
    status: Mapped[Status] = mapped_column(Enum(Status, native_enum=False, length=16), default=Status.queued)
    priority: Mapped[int] = mapped_column(Integer, default=Priority.live)
    seed: Mapped[int | None] = mapped_column(BigInteger, nullable=True)  # drawn when grading starts, never before
    verdict: Mapped[Verdict | None] = mapped_column(Enum(Verdict, native_enum=False, length=8), nullable=True)
    score_passed: Mapped[int | None] = mapped_column(Integer, nullable=True)
    score_total: Mapped[int | None] = mapped_column(Integer, nullable=True)
    diagnosis: Mapped[str | None] = mapped_column(Text, nullable=True)  # the report's diagnosis, in English
    diagnosis_zh: Mapped[str | None] = mapped_column(Text, nullable=True)  # the same, in Chinese
    # The name of the first case that failed (None: none did), for the course analytics.
    failed_case: Mapped[str | None] = mapped_column(String(128), nullable=True)
    judge_version: Mapped[str | None] = mapped_column(String(32), nullable=True)
    exercise_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    report_json: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)  # grading starts (a takeover adds one)
    worker: Mapped[str | None] = mapped_column(String(128), nullable=True)  # who holds (or last held) it
    lease_expires_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True, index=True)
    # Progress of a running grading (None until its first case starts; cleared by a takeover),
    # written by its worker at most every PROGRESS_WRITE_S (web.grading.queue). ``cases_done`` counts
    # public cases only and stops when the first hidden case starts (``hidden_running``): the
    # moments hidden cases end would time them (see web.access.presenting).
    cases_done: Mapped[int | None] = mapped_column(Integer, nullable=True)
    cases_total: Mapped[int | None] = mapped_column(Integer, nullable=True)  # public and hidden
    cases_hidden: Mapped[int | None] = mapped_column(Integer, nullable=True)  # of cases_total
    hidden_running: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # When the grading's id was last handed to the broker (None: never; always None without one).
    published_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    # Set on gradings a rejudge added: which rejudge, and the grading that was current when it
    # was asked for (None: the submission had no finished grading), to show which verdicts changed.
    rejudge_id: Mapped[int | None] = mapped_column(ForeignKey("rejudge.id"), nullable=True, index=True)
    replaces_id: Mapped[int | None] = mapped_column(Integer, nullable=True)

    submission: Mapped[Submission] = relationship(back_populates="gradings")

    __table_args__ = (Index("ix_grading_queue", "status", "priority", "id"),)

    @property
    def verdict_code(self) -> str | None:
        """The verdict's short code ("AC"), for templates and JSON."""
        return self.verdict.value if self.verdict is not None else None


class Grader(Base):
    """A grading process (worker threads in the site, ``python -m web grade``, or a Celery worker),
    as its heartbeat last saw it. Rows are never deleted: a grader not seen lately is gone."""

    __tablename__ = "grader"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(128), unique=True, index=True)  # host:pid (see web.grading.queue)
    host: Mapped[str] = mapped_column(String(128))
    pid: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))  # "threads" (polls the database) or "celery"
    slots: Mapped[int] = mapped_column(Integer)  # gradings it runs at once
    busy: Mapped[int] = mapped_column(Integer, default=0)  # gradings it was running when last seen
    graded: Mapped[int] = mapped_column(Integer, default=0)  # results it has written since it started
    started_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_seen_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)


class CourseRole(str, enum.Enum):
    learner = "learner"
    instructor = "instructor"


class LatePolicy(str, enum.Enum):
    """What a submission after the (learner's) due date counts for."""

    not_accepted = "not_accepted"  # nothing: only submissions up to the due date count
    penalty = "penalty"  # its score less ``penalty_per_day`` per started day late (not below 0)
    flagged = "flagged"  # its full score, flagged late in the gradebook and the export


class Visibility(str, enum.Enum):
    """What a learner sees of the hidden cases' results of a submission to an assignment."""

    rule = "rule"  # each hidden case's verdict and, when it failed, its rule and row label (the default)
    diagnosis = "diagnosis"  # each hidden case's verdict and the report's diagnosis, no rule
    nothing = "nothing"  # no hidden case, no diagnosis, no verdict or score that depends on them


class Course(Base):
    """A class: its people (:class:`Membership`), its assignments, its time zone.

    Date-times are stored in UTC; ``time_zone`` (an IANA name) is how pages show them and how a
    date-time typed without an offset is read.
    """

    __tablename__ = "course"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    join_code: Mapped[str] = mapped_column(String(32), unique=True, index=True)
    time_zone: Mapped[str] = mapped_column(String(64), default="UTC")
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    memberships: Mapped[list[Membership]] = relationship(back_populates="course", cascade="all, delete-orphan")
    assignments: Mapped[list[Assignment]] = relationship(
        back_populates="course", order_by="Assignment.due_at", cascade="all, delete-orphan"
    )


class Membership(Base):
    """``user`` is a learner or an instructor of ``course`` (one row per pair)."""

    __tablename__ = "membership"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    course_id: Mapped[int] = mapped_column(ForeignKey("course.id"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id"), index=True)
    role: Mapped[CourseRole] = mapped_column(Enum(CourseRole, native_enum=False, length=16))
    joined_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    course: Mapped[Course] = relationship(back_populates="memberships")
    user: Mapped[User] = relationship()

    __table_args__ = (UniqueConstraint("course_id", "user_id", name="uq_membership_course_user"),)


class Assignment(Base):
    """Exercises of a course due at one date-time, with a late policy and what learners see."""

    __tablename__ = "assignment"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    course_id: Mapped[int] = mapped_column(ForeignKey("course.id"), index=True)
    title: Mapped[str] = mapped_column(String(200))
    opens_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    due_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    late_policy: Mapped[LatePolicy] = mapped_column(
        Enum(LatePolicy, native_enum=False, length=16), default=LatePolicy.not_accepted
    )
    penalty_per_day: Mapped[float] = mapped_column(Float, default=0.0)  # a share of the score, 0..1
    visibility_before: Mapped[Visibility] = mapped_column(
        Enum(Visibility, native_enum=False, length=16), default=Visibility.rule
    )
    visibility_after: Mapped[Visibility] = mapped_column(
        Enum(Visibility, native_enum=False, length=16), default=Visibility.rule
    )
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    course: Mapped[Course] = relationship(back_populates="assignments")
    items: Mapped[list[AssignmentExercise]] = relationship(
        back_populates="assignment", order_by="AssignmentExercise.position", cascade="all, delete-orphan"
    )
    extensions: Mapped[list[Extension]] = relationship(back_populates="assignment", cascade="all, delete-orphan")

    @property
    def exercises(self) -> list[Exercise]:
        return [item.exercise for item in self.items]


class AssignmentExercise(Base):
    """One exercise of an assignment. An exercise is in at most one assignment of a course, so
    that a gradebook cell (learner, exercise) has one deadline (``course_id`` makes that a
    unique constraint)."""

    __tablename__ = "assignment_exercise"

    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignment.id"), primary_key=True)
    exercise_id: Mapped[int] = mapped_column(ForeignKey("exercise.id"), primary_key=True)
    course_id: Mapped[int] = mapped_column(ForeignKey("course.id"), index=True)
    position: Mapped[int] = mapped_column(Integer, default=0)

    assignment: Mapped[Assignment] = relationship(back_populates="items")
    exercise: Mapped[Exercise] = relationship()

    __table_args__ = (UniqueConstraint("course_id", "exercise_id", name="uq_assignment_exercise_course"),)


class Extension(Base):
    """A later due date for one learner on one assignment: the one in force (what counts).

    Granting again changes this row and withdrawing deletes it; every grant and withdrawal is
    also an :class:`ExtensionEvent`, so the history stays while the counting joins one row.
    """

    __tablename__ = "extension"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignment.id"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id"), index=True)
    due_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    granted_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"), nullable=True)
    granted_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    assignment: Mapped[Assignment] = relationship(back_populates="extensions")
    user: Mapped[User] = relationship(foreign_keys=[user_id])

    __table_args__ = (UniqueConstraint("assignment_id", "user_id", name="uq_extension_assignment_user"),)


class ExtensionEvent(Base):
    """One grant (``due_at`` set) or withdrawal (``due_at`` None) of an extension: append-only history."""

    __tablename__ = "extension_event"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignment.id"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id"), index=True)
    due_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    user: Mapped[User] = relationship(foreign_keys=[user_id])
    by: Mapped[User | None] = relationship(foreign_keys=[by_id])


class OverrideMode(enum.Enum):
    """How an override's score meets the graded (computed) one. (Not a ``str`` enum as the others
    are: a member named ``replace`` would hide ``str.replace``.)"""

    replace = "replace"  # the override is the cell's score, whatever the gradings say
    at_least = "at_least"  # the better of the override and the computed score: a floor


class Override(Base):
    """An instructor's score for one learner's exercise in a course: per ``mode``, it replaces
    the counted score or is a floor under it (:class:`OverrideMode`, applied by
    :func:`web.teaching.counting.overridden_score`).

    Rows are never changed: a new override is a new row and the newest counts, so the history of
    who set what, when and why stays. The learner sees the newest one with its comment. A
    withdrawal is a row too (``withdrawn``, its score 0 and meaningless): when the newest row is
    one, no override counts and the graded score is the cell's again.
    """

    __tablename__ = "score_override"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    course_id: Mapped[int] = mapped_column(ForeignKey("course.id"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id"), index=True)
    exercise_id: Mapped[int] = mapped_column(ForeignKey("exercise.id"), index=True)
    score: Mapped[float] = mapped_column(Float)  # a share of the exercise's points, 0..1
    comment: Mapped[str] = mapped_column(Text, default="")
    withdrawn: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    mode: Mapped[OverrideMode] = mapped_column(
        Enum(OverrideMode, native_enum=False, length=16), default=OverrideMode.replace, server_default="replace"
    )
    by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    by: Mapped[User | None] = relationship(foreign_keys=[by_id])


class InvitationState(str, enum.Enum):
    pending = "pending"  # waits for the account holder
    accepted = "accepted"  # they accepted: a membership exists from then on
    declined = "declined"  # they said no
    withdrawn = "withdrawn"  # an instructor took it back before an answer


class Invitation(Base):
    """An instructor's offer of a place in a course (a roster line or an "add"): no membership
    exists until the invited account accepts it (joining is the learner's act). Rows are kept
    after the answer, with who decided and when; at most one is pending per course and account
    (:mod:`web.teaching.membership` keeps that)."""

    __tablename__ = "invitation"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    course_id: Mapped[int] = mapped_column(ForeignKey("course.id"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id"), index=True)
    role: Mapped[CourseRole] = mapped_column(Enum(CourseRole, native_enum=False, length=16))
    state: Mapped[InvitationState] = mapped_column(
        Enum(InvitationState, native_enum=False, length=16), default=InvitationState.pending
    )
    invited_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    decided_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"), nullable=True)
    decided_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    course: Mapped[Course] = relationship()
    user: Mapped[User] = relationship(foreign_keys=[user_id])
    invited_by: Mapped[User | None] = relationship(foreign_keys=[invited_by_id])


class RejudgeScope(str, enum.Enum):
    submission = "submission"
    exercise = "exercise"  # an exercise within a course: its learners' submissions
    assignment = "assignment"  # every exercise of an assignment, its course's learners


class Rejudge(Base):
    """One request to judge submissions again: its gradings carry its id (``Grading.rejudge_id``)."""

    __tablename__ = "rejudge"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    scope: Mapped[RejudgeScope] = mapped_column(Enum(RejudgeScope, native_enum=False, length=16))
    course_id: Mapped[int | None] = mapped_column(ForeignKey("course.id"), nullable=True, index=True)
    exercise_id: Mapped[int | None] = mapped_column(ForeignKey("exercise.id"), nullable=True)
    assignment_id: Mapped[int | None] = mapped_column(ForeignKey("assignment.id"), nullable=True)
    submission_id: Mapped[int | None] = mapped_column(ForeignKey("submission.id"), nullable=True)
    requested_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    gradings: Mapped[list[Grading]] = relationship(order_by="Grading.id", viewonly=True)


class SimilarityState(str, enum.Enum):
    queued = "queued"  # asked for; its thread has not started
    running = "running"
    done = "done"
    failed = "failed"  # the check raised (``error`` says what); a new run is asked from the page


class SimilarityReport(Base):
    """One similarity check of a course (web.teaching.similarity): what was compared, with which
    threshold, by whom, and what it found. Rows are never changed once done, nor deleted by a
    later run: each run is a new row. ``assignment_id`` and ``exercise_id`` narrow the scope
    (both None: every exercise of the course's assignments). ``results`` holds the pairs above
    ``threshold`` (web.teaching.similarity's docstring gives its shape); None until done."""

    __tablename__ = "similarity_report"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    course_id: Mapped[int] = mapped_column(ForeignKey("course.id"), index=True)
    assignment_id: Mapped[int | None] = mapped_column(ForeignKey("assignment.id"), nullable=True)
    exercise_id: Mapped[int | None] = mapped_column(ForeignKey("exercise.id"), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id"), nullable=True)
    threshold: Mapped[float] = mapped_column(Float)
    parameters: Mapped[dict] = mapped_column(JSON, default=dict)
    results: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    state: Mapped[SimilarityState] = mapped_column(
        Enum(SimilarityState, native_enum=False, length=16), default=SimilarityState.queued
    )
    # Progress while running: exercises compared of those to compare.
    done_count: Mapped[int] = mapped_column(Integer, default=0)
    total_count: Mapped[int] = mapped_column(Integer, default=0)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)


# Built once: every submission asks.
_QUEUED = (
    select(func.count())
    .select_from(Grading)
    .join(Submission)
    .where(
        Submission.user_id == bindparam("p_user", type_=Submission.user_id.type),
        Grading.status != Status.done,
        Grading.priority == Priority.live,
    )
)


def count_queued(session: Session, user: User) -> int:
    """How many of ``user``'s submissions wait for their first verdict (rejudges do not count)."""
    return session.scalar(_QUEUED, {"p_user": user.id}) or 0
