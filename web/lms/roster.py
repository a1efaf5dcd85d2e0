"""Names and Roles Provisioning (NRPS): a platform course's members become the site course's members.

:func:`sync_roster` reads every page of the context's membership container (following
``Link: <...>; rel="next"``, same origin only, at most :data:`MAX_PAGES` pages), then:

- each member is found by (issuer, ``user_id``) in ``LtiAccount``; an account is created for one
  the site does not know yet, by the launch's own :func:`web.lms.provisioning.account_for` (a
  user name from the member's name with a random suffix; a password nobody knows: they come in
  through the platform's launch). A member whose ``user_id`` a launch would refuse (over 255
  characters, a character the database cannot store) is skipped, and the others are synced;
- roles map to a course role: ``Instructor``, ``Administrator``, ``TeachingAssistant`` (any
  vocabulary: the fragment or last path part of the role URI) → instructor; ``Learner`` →
  learner; others (``Mentor``…) and members whose ``status`` is not ``Active`` are not members;
- :func:`web.teaching.courses.enroll` adds them: the platform is the registrar, so its roster
  enrols directly (a course linked to a platform course is joined by being in the platform's);
  it never demotes an instructor, as every roster here;
- **members gone from the platform** (or no longer Active) are removed with
  :func:`web.teaching.membership.remove_member`, as an instructor's removal: their submissions,
  extensions and overrides stay, they leave the gradebook, and come back with everything if the
  platform lists them again. Only members with an account of this platform (issuer) are ever
  removed: who joined with the join code is not the platform's to take out. The last instructor
  is kept (``kept``), and nothing is removed when the platform lists nobody (an empty roster
  is far more likely a platform's mistake than a course emptied) or when a page failed.

A sync is one transaction: it commits all of it or (on any :class:`ServiceError`) nothing, and
records an :class:`LtiRosterSync` row either way.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session, sessionmaker

from web.accounts.users import sealed_password_hash
from web.core.models import Course, CourseRole, Membership, User
from web.lms.models import LtiAccount, LtiContext, LtiPlatform
from web.lms.passback_models import LtiRosterSync
from web.lms.provisioning import ClaimsMissing, account_for
from web.lms.service_client import SCOPE_NRPS, Platform, ServiceClient, ServiceError, json_object, next_page, utc_now
from web.teaching.courses import CourseError, enroll
from web.teaching.membership import remove_member

MEMBERSHIPS_MEDIA = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
MAX_PAGES = 500  # 500 pages of a platform's default 50-100 members: no real course is larger
RECENT_S = 600.0  # sync_roster_after_launch leaves a course synced this recently alone
RETRY_S = 120.0  # the periodic job waits this long after a failed sync before it tries the course again
INSTRUCTOR_ROLES = {"Instructor", "Administrator", "TeachingAssistant"}
LEARNER_ROLES = {"Learner"}


@dataclass
class RosterSync:
    """What one sync did: platform members read, memberships added, roles raised, members
    removed, gone members kept (the last instructor), members skipped (no usable role, status
    or id)."""

    members: int = 0
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    skipped: int = 0


class RosterError(ValueError):
    """A sync the site refuses before calling the platform (no course, no NRPS URL)."""


def course_role(roles: object) -> CourseRole | None:
    """The course role of a member's LTI ``roles`` (see the module docstring); None: not a member."""
    if not isinstance(roles, list):
        return None
    names = {re.split(r"[#/]", role)[-1] for role in roles if isinstance(role, str)}
    if names & INSTRUCTOR_ROLES:
        return CourseRole.instructor
    if names & LEARNER_ROLES:
        return CourseRole.learner
    return None


def fetch_members(client: ServiceClient, platform: Platform, url: str) -> list[dict]:
    """Every member of the membership container at ``url``, all pages; :class:`ServiceError` on
    any failure (then nothing is used)."""
    members: list[dict] = []
    page: str | None = url
    for _ in range(MAX_PAGES):
        if page is None:
            return members
        response = client.request("GET", page, platform, (SCOPE_NRPS,), accept=MEMBERSHIPS_MEDIA)
        listed = json_object(response).get("members", [])
        if not isinstance(listed, list):
            raise ServiceError(f"{page} has no list of members")
        members.extend(m for m in listed if isinstance(m, dict) and isinstance(m.get("user_id"), str) and m["user_id"])
        page = next_page(response, page)
    raise ServiceError(f"the roster has more than {MAX_PAGES} pages: stopped")


def sync_roster(session: Session, client: ServiceClient, context_row: LtiContext) -> RosterSync:
    """Make the course of ``context_row`` hold the platform's members (module docstring); commits.

    Raises :class:`RosterError` (no course linked, no NRPS URL) or :class:`ServiceError` (the
    platform failed; the course is unchanged, and the failure is recorded)."""
    if context_row.course_id is None:
        raise RosterError("this platform course is not linked to a course of the site yet")
    if not context_row.memberships_url:
        raise RosterError("the platform did not offer its Names and Roles service for this course")
    course, platform_row = session.get(Course, context_row.course_id), session.get(LtiPlatform, context_row.platform_id)
    assert course is not None and platform_row is not None  # foreign keys
    context_id, url, issuer = context_row.id, context_row.memberships_url, context_row.issuer
    record = LtiRosterSync(context_row_id=context_id, started_at=utc_now())
    try:
        members = fetch_members(client, Platform.of(platform_row), url)
        result = _apply(session, course, issuer, members)
    except ServiceError as error:
        session.rollback()
        session.add(
            LtiRosterSync(
                context_row_id=context_id, started_at=record.started_at, finished_at=utc_now(), error=str(error)[:1000]
            )
        )
        session.commit()
        raise
    record.finished_at = utc_now()
    record.members, record.added, record.updated = result.members, len(result.added), len(result.updated)
    record.removed, record.kept = len(result.removed), len(result.kept)
    session.add(record)
    session.commit()
    return result


def _apply(session: Session, course: Course, issuer: str, members: list[dict]) -> RosterSync:
    result = RosterSync(members=len(members))
    listed: set[int] = set()
    sealed = sealed_password_hash()  # one hash for the accounts this sync creates (users.create_sealed_user)
    for member in members:
        role = course_role(member.get("roles"))
        if role is None or member.get("status", "Active") != "Active":
            result.skipped += 1
            continue
        try:
            user = account_for(session, issuer, member["user_id"], member, sealed_hash=sealed)
        except ClaimsMissing:  # an id a launch refuses too (over 255 characters): that one member only
            result.skipped += 1
            continue
        listed.add(user.id)
        before = session.scalar(
            select(Membership.role).where(Membership.course_id == course.id, Membership.user_id == user.id)
        )
        if enroll(session, course, user, role):
            (result.added if before is None else result.updated).append(user.name)
        session.flush()
    if not listed:
        return result  # an empty roster removes nobody (module docstring)
    gone = session.scalars(
        select(User)
        .join(Membership, Membership.user_id == User.id)
        .join(LtiAccount, LtiAccount.user_id == User.id)
        .where(Membership.course_id == course.id, LtiAccount.issuer == issuer, User.id.not_in(listed))
        .order_by(User.id)
    ).all()
    for user in gone:
        try:
            remove_member(session, course, user)
        except CourseError:
            result.kept.append(user.name)  # the last instructor: a course always keeps one
            continue
        result.removed.append(user.name)
    session.flush()
    return result


def last_sync(session: Session, context_row_id: int) -> LtiRosterSync | None:
    """The newest sync of a platform course, finished or failed."""
    return session.scalar(
        select(LtiRosterSync).where(LtiRosterSync.context_row_id == context_row_id).order_by(LtiRosterSync.id.desc())
    )


def sync_roster_after_launch(session: Session, client: ServiceClient, context_row: LtiContext) -> RosterSync | None:
    """What a launch calls: a sync unless one succeeded in the last :data:`RECENT_S` seconds
    (then None, with one indexed query); a platform's failure is recorded and returns None, as
    a launch must not fail because the roster could not be read."""
    if context_row.course_id is None or not context_row.memberships_url:
        return None
    since = utc_now() - dt.timedelta(seconds=RECENT_S)
    recent = session.scalar(
        select(LtiRosterSync.id).where(
            LtiRosterSync.context_row_id == context_row.id,
            LtiRosterSync.error.is_(None),
            LtiRosterSync.started_at >= since,
        )
    )
    if recent is not None:
        return None
    try:
        return sync_roster(session, client, context_row)
    except ServiceError:
        return None


def launched_since_synced(session: Session) -> list[LtiContext]:
    """The platform courses launched since their last roster sync that succeeded (or never synced):
    what the periodic job syncs, so a launch brings the roster in within a round without making
    the launch itself wait on the LMS. A course whose last try failed waits :data:`RETRY_S`
    before the next, so an LMS that is down is not asked every round."""
    last_try = (
        select(func.max(LtiRosterSync.started_at))
        .where(LtiRosterSync.context_row_id == LtiContext.id)
        .correlate(LtiContext)
        .scalar_subquery()
    )
    last_sync = (
        select(func.max(LtiRosterSync.started_at))
        .where(LtiRosterSync.context_row_id == LtiContext.id, LtiRosterSync.error.is_(None))
        .correlate(LtiContext)
        .scalar_subquery()
    )
    return list(
        session.scalars(
            select(LtiContext)
            .where(LtiContext.memberships_url.is_not(None), LtiContext.memberships_url != "")
            .where(or_(last_sync.is_(None), LtiContext.updated_at > last_sync))
            .where(or_(last_try.is_(None), last_try < utc_now() - dt.timedelta(seconds=RETRY_S)))
            .order_by(LtiContext.id)
        )
    )


def roster_round(sessions: sessionmaker[Session], client: ServiceClient) -> int:
    """Sync the roster of every platform course launched since its last sync
    (:func:`sync_roster_after_launch`, so at most once per :data:`RECENT_S` each); how many ran.
    A site with no platform course runs one existence check and nothing else."""
    synced = 0
    with sessions() as session:
        if session.scalar(select(LtiContext.id).limit(1)) is None:
            return 0  # no platform course yet (most sites): one primary-key look-up every round
        ids = [context.id for context in launched_since_synced(session)]
    for context_id in ids:
        with sessions() as session:
            context_row = session.get(LtiContext, context_id)
            if context_row is not None and sync_roster_after_launch(session, client, context_row) is not None:
                synced += 1
    return synced
