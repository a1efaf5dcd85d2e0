"""TEMPORARY STUB of lti-core's models (branch ``lti-core`` owns this file): replace it with theirs at merge.

The names and columns are the ones the issue fixes for ``web/lms/models.py``; this stub exists
only so that the roster and score passback of branch ``lti-grades`` run and are tested before
lti-core merges. Migration ``0010_lti_core_stub`` builds these tables and goes with this file.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from web.core.models import Base, utcnow


class LtiPlatform(Base):
    """A registered LMS (issuer + client id) and the URLs the tool reaches it at."""

    __tablename__ = "lti_platform"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    issuer: Mapped[str] = mapped_column(String(255), index=True)
    client_id: Mapped[str] = mapped_column(String(255))
    auth_login_url: Mapped[str] = mapped_column(String(1000))
    auth_token_url: Mapped[str] = mapped_column(String(1000))
    key_set_url: Mapped[str] = mapped_column(String(1000))
    auth_audience: Mapped[str | None] = mapped_column(String(1000), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class LtiToolKey(Base):
    """One of the tool's RSA keys; the newest unretired one signs."""

    __tablename__ = "lti_tool_key"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kid: Mapped[str] = mapped_column(String(64), unique=True)
    private_pem: Mapped[str] = mapped_column(Text)
    public_jwk: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    retired_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class LtiAccount(Base):
    """A platform's user (issuer + sub) and the site's account that is them."""

    __tablename__ = "lti_account"
    __table_args__ = (UniqueConstraint("issuer", "sub"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    issuer: Mapped[str] = mapped_column(String(255))
    sub: Mapped[str] = mapped_column(String(255))
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id"), index=True)


class LtiContext(Base):
    """A platform's course (context) and the site's course it is, with its service URLs."""

    __tablename__ = "lti_context"
    __table_args__ = (UniqueConstraint("issuer", "context_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platform.id"), index=True)
    issuer: Mapped[str] = mapped_column(String(255))
    context_id: Mapped[str] = mapped_column(String(255))
    course_id: Mapped[int | None] = mapped_column(ForeignKey("course.id"), nullable=True, index=True)
    title: Mapped[str] = mapped_column(String(255), default="")
    memberships_url: Mapped[str | None] = mapped_column(String(1000), nullable=True)
    lineitems_url: Mapped[str | None] = mapped_column(String(1000), nullable=True)
    ags_scopes: Mapped[list] = mapped_column(JSON, default=list)


class LtiResourceLink(Base):
    """A link placed in the platform's course, to an exercise or an assignment of the site."""

    __tablename__ = "lti_resource_link"
    __table_args__ = (UniqueConstraint("context_row_id", "resource_link_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    context_row_id: Mapped[int] = mapped_column(ForeignKey("lti_context.id"), index=True)
    resource_link_id: Mapped[str] = mapped_column(String(255))
    exercise_id: Mapped[int | None] = mapped_column(ForeignKey("exercise.id"), nullable=True)
    assignment_id: Mapped[int | None] = mapped_column(ForeignKey("assignment.id"), nullable=True)
    lineitem_url: Mapped[str | None] = mapped_column(String(1000), nullable=True)
    title: Mapped[str] = mapped_column(String(255), default="")
