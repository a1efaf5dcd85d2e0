"""The rows of the roster sync and the score passback (tables ``lti_score_post``, ``lti_roster_sync``).

- :class:`LtiScorePost`: one score to send to a platform's line item for one learner. A row is
  never deleted: it is pending (``posted_at`` and ``superseded_at`` NULL) until it is posted,
  or until a newer value for the same (link, learner) supersedes it. ``sequence`` numbers the
  rows of one (link, learner) from 1; the unique constraint on it makes two sweeps that queue
  the same change at once insert one row, not two.
- :class:`LtiRosterSync`: one Names and Roles sync of a platform course, what it did or why it failed.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import DateTime, Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from web.core.models import Base, utcnow

ACTIVITY_COMPLETED = "Completed"
GRADING_FULLY_GRADED = "FullyGraded"


class LtiScorePost(Base):
    """A score for ``user_id`` on the line item of resource link ``link_id`` (see the module docstring)."""

    __tablename__ = "lti_score_post"
    __table_args__ = (UniqueConstraint("link_id", "user_id", "sequence"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    link_id: Mapped[int] = mapped_column(ForeignKey("lti_resource_link.id"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id"), index=True)
    sequence: Mapped[int] = mapped_column(Integer)
    lineitem_url: Mapped[str] = mapped_column(String(1000))
    lti_user_id: Mapped[str] = mapped_column(String(255))  # the learner's ``sub`` on the platform
    score_given: Mapped[float] = mapped_column(Float)
    score_maximum: Mapped[float] = mapped_column(Float)
    comment: Mapped[str] = mapped_column(Text, default="")
    activity_progress: Mapped[str] = mapped_column(String(32), default=ACTIVITY_COMPLETED)
    grading_progress: Mapped[str] = mapped_column(String(32), default=GRADING_FULLY_GRADED)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    posted_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True, index=True)
    superseded_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class LtiRosterSync(Base):
    """One roster sync of platform course ``context_row_id``: counts, or the error that stopped it."""

    __tablename__ = "lti_roster_sync"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    context_row_id: Mapped[int] = mapped_column(ForeignKey("lti_context.id"), index=True)
    started_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    members: Mapped[int] = mapped_column(Integer, default=0)
    added: Mapped[int] = mapped_column(Integer, default=0)
    updated: Mapped[int] = mapped_column(Integer, default=0)
    removed: Mapped[int] = mapped_column(Integer, default=0)
    kept: Mapped[int] = mapped_column(Integer, default=0)  # gone from the platform but kept (see roster.py)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
