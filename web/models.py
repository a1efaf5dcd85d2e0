"""The site's data (SQLAlchemy 2): users, API tokens, exercises, submissions.

The ``submission`` rows are the grading queue of record: a row is written ``queued`` before any
worker sees it, and on start-up rows left ``queued`` or ``running`` are graded again, so no
submission is ever lost. The judge's report is stored whole (``report_json``), next to the
columns the pages and the gradebook query.
"""

from __future__ import annotations

import datetime as dt
import enum
import hashlib
import secrets

from sqlalchemy import JSON, BigInteger, DateTime, Enum, ForeignKey, Integer, String, Text, func, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, relationship
from flask_login import UserMixin
from werkzeug.security import check_password_hash, generate_password_hash


class Base(DeclarativeBase):
    pass


class Role(str, enum.Enum):
    learner = "learner"
    instructor = "instructor"


class Status(str, enum.Enum):
    queued = "queued"
    running = "running"
    done = "done"


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


class User(UserMixin, Base):
    __tablename__ = "user"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    password_hash: Mapped[str] = mapped_column(String(256))
    role: Mapped[Role] = mapped_column(Enum(Role, native_enum=False, length=16), default=Role.learner)
    language: Mapped[str] = mapped_column(String(8), default="en")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    submissions: Mapped[list["Submission"]] = relationship(back_populates="user")
    tokens: Mapped[list["ApiToken"]] = relationship(back_populates="user", cascade="all, delete-orphan")

    def set_password(self, password: str) -> None:
        """Hash and store ``password``; raise ``ValueError`` when it is shorter than 8 characters."""
        if len(password) < 8:
            raise ValueError("a password needs at least 8 characters")
        self.password_hash = generate_password_hash(password)

    def check_password(self, password: str) -> bool:
        return check_password_hash(self.password_hash, password)


class ApiToken(Base):
    """A bearer token for the JSON API. Only its SHA-256 is stored; the token is shown once."""

    __tablename__ = "api_token"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    label: Mapped[str] = mapped_column(String(64), default="")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    user: Mapped[User] = relationship(back_populates="tokens")

    @staticmethod
    def digest(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()

    @classmethod
    def issue(cls, user: User, label: str = "") -> tuple["ApiToken", str]:
        """A new token for ``user``: the row to add and the secret to show once."""
        secret = "pj_" + secrets.token_urlsafe(32)
        return cls(user=user, token_hash=cls.digest(secret), label=label), secret

    @classmethod
    def find_user(cls, session: Session, token: str) -> User | None:
        row = session.scalar(select(cls).where(cls.token_hash == cls.digest(token)))
        return row.user if row else None


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

    submissions: Mapped[list["Submission"]] = relationship(back_populates="exercise")


class Submission(Base):
    __tablename__ = "submission"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id"), index=True)
    exercise_id: Mapped[int] = mapped_column(ForeignKey("exercise.id"), index=True)
    code: Mapped[str] = mapped_column(Text)
    status: Mapped[Status] = mapped_column(Enum(Status, native_enum=False, length=16), default=Status.queued,
                                           index=True)
    verdict: Mapped[str | None] = mapped_column(String(8), nullable=True)
    score_passed: Mapped[int | None] = mapped_column(Integer, nullable=True)
    score_total: Mapped[int | None] = mapped_column(Integer, nullable=True)
    seed: Mapped[int | None] = mapped_column(BigInteger, nullable=True)  # drawn when grading starts, never before
    judge_version: Mapped[str | None] = mapped_column(String(32), nullable=True)
    exercise_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    report_json: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)  # grading starts (a restart may add one)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
    started_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    user: Mapped[User] = relationship(back_populates="submissions")
    exercise: Mapped[Exercise] = relationship(back_populates="submissions")


def count_queued(session: Session, user: User) -> int:
    return session.scalar(select(func.count()).select_from(Submission).where(
        Submission.user_id == user.id, Submission.status != Status.done)) or 0
