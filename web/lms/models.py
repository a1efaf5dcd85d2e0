"""The LTI 1.3 tables: platforms registered with us, our signing keys, and what launches map to.

An LMS (a *platform*) is one ``(issuer, client_id)``: Canvas gives every developer key of one
issuer its own client id, so an issuer may have many. A person is one :class:`LtiAccount` per
``(issuer, sub)`` whatever the client id they came through; a course of the LMS is one
:class:`LtiContext` per ``(issuer, context_id)``, bound to one ProbJudge course. Launch state
(nonces, launches kept for deep linking) lives in :class:`LtiLaunchValue` rows with an expiry,
not in a process cache, so any process of the site can check a nonce, and only once.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from web.core.models import Base, Course, User, utcnow

URL = 1024  # LMS URLs (Canvas's are long); a column wide enough for every one we have seen


class LtiPlatform(Base):
    """One registration of ProbJudge in an LMS: the issuer and client id it gave us, and its URLs."""

    __tablename__ = "lti_platform"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    issuer: Mapped[str] = mapped_column(String(URL), index=True)
    client_id: Mapped[str] = mapped_column(String(255))
    auth_login_url: Mapped[str] = mapped_column(String(URL))
    auth_token_url: Mapped[str] = mapped_column(String(URL))
    key_set_url: Mapped[str] = mapped_column(String(URL))
    auth_audience: Mapped[str | None] = mapped_column(String(URL), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    deployments: Mapped[list[LtiDeployment]] = relationship(back_populates="platform", cascade="all, delete-orphan")

    __table_args__ = (UniqueConstraint("issuer", "client_id", name="uq_lti_platform_issuer_client"),)


class LtiDeployment(Base):
    """A deployment id of a platform (an install of the tool in an account, a course, a site)."""

    __tablename__ = "lti_deployment"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platform.id"), index=True)
    deployment_id: Mapped[str] = mapped_column(String(255))

    platform: Mapped[LtiPlatform] = relationship(back_populates="deployments")

    __table_args__ = (UniqueConstraint("platform_id", "deployment_id", name="uq_lti_deployment_platform"),)


class LtiToolKey(Base):
    """One of our RSA signing keys. The newest unretired key signs; a retired key is still
    published in the JWKS for :data:`web.lms.keys.GRACE` after ``retired_at``."""

    __tablename__ = "lti_tool_key"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kid: Mapped[str] = mapped_column(String(64), unique=True)
    private_pem: Mapped[str] = mapped_column(Text)
    public_jwk: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    retired_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class LtiAccount(Base):
    """The ProbJudge user of one person of one issuer (``sub`` is the LMS's stable id)."""

    __tablename__ = "lti_account"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    issuer: Mapped[str] = mapped_column(String(URL))
    sub: Mapped[str] = mapped_column(String(255))
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id"), index=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    user: Mapped[User] = relationship()

    __table_args__ = (UniqueConstraint("issuer", "sub", name="uq_lti_account_issuer_sub"),)


class LtiContext(Base):
    """A course of the LMS bound to a ProbJudge course; its service URLs are refreshed at each launch."""

    __tablename__ = "lti_context"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platform.id"), index=True)
    issuer: Mapped[str] = mapped_column(String(URL))
    context_id: Mapped[str] = mapped_column(String(255))
    course_id: Mapped[int] = mapped_column(ForeignKey("course.id"), index=True)
    title: Mapped[str] = mapped_column(String(200), default="")
    memberships_url: Mapped[str | None] = mapped_column(String(URL), nullable=True)  # NRPS claim
    lineitems_url: Mapped[str | None] = mapped_column(String(URL), nullable=True)  # AGS claim
    ags_scopes: Mapped[list] = mapped_column(JSON, default=list)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    platform: Mapped[LtiPlatform] = relationship()
    course: Mapped[Course] = relationship()

    __table_args__ = (UniqueConstraint("issuer", "context_id", name="uq_lti_context_issuer_context"),)


class LtiResourceLink(Base):
    """A link placed in an LMS course, and the exercise or assignment it opens (neither: the course)."""

    __tablename__ = "lti_resource_link"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    context_row_id: Mapped[int] = mapped_column(ForeignKey("lti_context.id"), index=True)
    resource_link_id: Mapped[str] = mapped_column(String(255))
    exercise_id: Mapped[int | None] = mapped_column(ForeignKey("exercise.id"), nullable=True)
    assignment_id: Mapped[int | None] = mapped_column(ForeignKey("assignment.id"), nullable=True)
    lineitem_url: Mapped[str | None] = mapped_column(String(URL), nullable=True)  # the launch's AGS claim
    title: Mapped[str] = mapped_column(String(200), default="")

    context: Mapped[LtiContext] = relationship()

    __table_args__ = (UniqueConstraint("context_row_id", "resource_link_id", name="uq_lti_resource_link_context_link"),)


class LtiLaunchValue(Base):
    """A value of pylti1p3's launch-data storage (a nonce, a launch kept for deep linking), with
    its expiry. Expired rows are swept at each login initiation."""

    __tablename__ = "lti_launch_value"

    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    value: Mapped[dict | list | str | bool | None] = mapped_column(JSON, nullable=True)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), index=True)
