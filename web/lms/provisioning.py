"""From a validated launch to our rows: the account, the course, the membership, the link.

- ``sub`` and ``iss`` find an :class:`~web.lms.models.LtiAccount` (one per person of an issuer,
  whatever client id they came through); the first launch (or roster sync) that names the person
  creates a ProbJudge user with a generated unique name (from the name claims when given) and no
  password anyone knows: such a user only ever signs in through the LMS (:func:`account_for`,
  the one path for both).
- ``context.id`` finds the course. An instructor's launch into an unknown context creates the
  course; a learner's is refused (:class:`NoCourseYet`): a learner must not make a course whose
  first instructor would be nobody, so the instructor launches first.
- roles give the course role: Instructor, Administrator, TeachingAssistant (context or
  institution roles) → instructor; anything else (Learner, Mentor, none) → learner. The LMS may
  promote a member but never demotes one (as a roster: :func:`web.teaching.courses.enroll`).
- the resource link remembers the exercise or assignment its custom parameters name
  (``probjudge_exercise`` = a slug, ``probjudge_assignment`` = an id of *this* course's
  assignments; anything else is ignored and the link opens the course).
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from web.accounts.users import NameTaken, create_sealed_user, sealed_password_hash
from web.core.models import Assignment, Course, CourseRole, Exercise, User, utcnow
from web.core.validation import text_problem
from web.lms.models import LtiAccount, LtiContext, LtiPlatform, LtiResourceLink
from web.teaching.courses import CourseError, create_course, enroll

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
TEACHING_ROLES = ("#Instructor", "#Administrator", "#TeachingAssistant", "Instructor#TeachingAssistant")
NAME_TRIES = 8  # random 6-hex suffixes: eight collisions in a row mean something else is wrong


class NoCourseYet(Exception):
    """A learner launched from an LMS course no instructor has opened ProbJudge from yet."""


class ClaimsMissing(ValueError):
    """The launch lacks a claim we need (``sub``, the context); the message names it."""


@dataclass(frozen=True)
class Placement:
    """Where a launch lands: who, in which course, with which role, through which link."""

    user: User
    course: Course
    role: CourseRole
    context: LtiContext
    link: LtiResourceLink | None


def _text(value: Any, limit: int) -> str:
    """A claim's text for a title: stripped and cut, or empty when the database could not store it."""
    return value.strip()[:limit] if isinstance(value, str) and text_problem(value) is None else ""


def _id(value: Any) -> str:
    """An LMS identifier (``sub``, a context or link id), whole or not at all: cutting a long one
    could make two people or courses one; the spec bounds them at 255 characters."""
    usable = isinstance(value, str) and 0 < len(value) <= 255 and text_problem(value) is None
    return value if usable and value.strip() == value else ""


def teaches(claims: dict[str, Any]) -> bool:
    """Whether the launch's roles make its user an instructor of the course."""
    roles = claims.get(CLAIM + "roles")
    if not isinstance(roles, list):
        return False
    return any(isinstance(role, str) and role.endswith(TEACHING_ROLES) for role in roles)


def _name_stem(person: Mapping[str, Any]) -> str:
    """The ASCII letters, digits, '.', '_' and '-' of the person's first name claim that has any
    (``preferred_username``, ``name``, ``given_name``, the local part of ``email``), else ``lti-user``."""
    for key in ("preferred_username", "name", "given_name", "email"):
        value = person.get(key)
        if not isinstance(value, str):
            continue
        ascii_name = unicodedata.normalize("NFKD", value.split("@")[0]).encode("ascii", "ignore").decode()
        stem = re.sub(r"[^A-Za-z0-9._-]+", "-", ascii_name).strip("-.")[:40]
        if stem:
            return stem
    return "lti-user"


def account_for(
    session: Session, issuer: str, sub: object, person: Mapping[str, Any], language: str = "en", sealed_hash: str = ""
) -> User:
    """The user of the LMS person ``sub`` of ``issuer``: the one path by which a launch
    (:func:`place`) and a Names and Roles roster (:mod:`web.lms.roster`) find or create an account.

    ``sub`` must be a usable LMS identifier (:func:`_id`: a string of 1 to 255 characters the
    database can store), else :class:`ClaimsMissing`, and nothing is added. A new person gets a
    learner account (added and flushed, not committed) named from ``person``'s name claims (a
    launch's claims or a roster's member: :func:`_name_stem`) with a random suffix, so a name
    chosen in the LMS never takes a plain site name ("admin", another learner's), and a sealed
    password (:func:`web.accounts.users.create_sealed_user`; ``sealed_hash`` lets a roster share one
    hash across its new accounts, empty: one is made)."""
    usable = _id(sub)
    if not usable:
        raise ClaimsMissing("the LMS names no usable user (sub)")
    account = session.scalar(select(LtiAccount).where(LtiAccount.issuer == issuer, LtiAccount.sub == usable))
    if account is not None:
        return account.user
    stem, sealed_hash = _name_stem(person), sealed_hash or sealed_password_hash()
    for _ in range(NAME_TRIES):
        try:
            with session.begin_nested():  # a name taken since the check inside rolls back alone
                user = create_sealed_user(session, f"{stem}-{secrets.token_hex(3)}", sealed_hash)
                session.flush()
        except NameTaken:
            continue
        user.language = language
        session.add(LtiAccount(issuer=issuer, sub=usable, user_id=user.id))
        session.flush()
        return user
    raise NameTaken(f"no free user name from {stem!r} after {NAME_TRIES} tries")


def _services(context: LtiContext, claims: dict[str, Any]) -> str | None:
    """Refresh the context's service URLs from the launch; the resource link's line item URL."""
    nrps = claims.get(NRPS_CLAIM)
    if isinstance(nrps, dict) and isinstance(nrps.get("context_memberships_url"), str):
        context.memberships_url = nrps["context_memberships_url"]
    ags = claims.get(AGS_CLAIM)
    if not isinstance(ags, dict):
        return None
    if isinstance(ags.get("lineitems"), str):
        context.lineitems_url = ags["lineitems"]
    scopes = ags.get("scope")
    if isinstance(scopes, list):
        context.ags_scopes = [scope for scope in scopes if isinstance(scope, str)]
    return ags["lineitem"] if isinstance(ags.get("lineitem"), str) else None


def _target(session: Session, course: Course, custom: Any) -> tuple[int | None, int | None]:
    """The (exercise id, assignment id) the custom parameters name, within ``course``."""
    if not isinstance(custom, dict):
        return None, None
    slug = custom.get("probjudge_exercise")
    if isinstance(slug, str) and slug:
        exercise = session.scalar(select(Exercise).where(Exercise.slug == slug))
        if exercise is not None:
            return exercise.id, None
    number = custom.get("probjudge_assignment")
    if isinstance(number, str) and number.isascii() and number.isdigit() and len(number) < 10:
        assignment = session.get(Assignment, int(number))
        if assignment is not None and assignment.course_id == course.id:  # never another course's
            return None, assignment.id
    return None, None


def place(session: Session, platform: LtiPlatform, claims: dict[str, Any], language: str = "en") -> Placement:
    """Account, course, membership, context and resource link for a validated launch (added,
    not committed). Raises :class:`ClaimsMissing` or :class:`NoCourseYet`."""
    user = account_for(session, platform.issuer, claims.get("sub"), claims, language)
    context_claim = claims.get(CLAIM + "context")
    if not isinstance(context_claim, dict):
        context_claim = {}
    context_id = _id(context_claim.get("id"))
    if not context_id:
        raise ClaimsMissing("the launch names no course (context.id)")
    title = _text(context_claim.get("title"), 200) or _text(context_claim.get("label"), 200) or context_id[:200]
    instructor = teaches(claims)
    role = CourseRole.instructor if instructor else CourseRole.learner
    context = session.scalar(
        select(LtiContext).where(LtiContext.issuer == platform.issuer, LtiContext.context_id == context_id)
    )
    if context is None:
        if not instructor:
            raise NoCourseYet(context_id)
        try:
            course = create_course(session, user, title)
        except CourseError:  # a title our courses refuse (a control character): the id names it
            course = create_course(session, user, f"LMS course {context_id[:180]}")
        context = LtiContext(
            platform_id=platform.id, issuer=platform.issuer, context_id=context_id, course_id=course.id, ags_scopes=[]
        )
        session.add(context)
    else:
        enroll(session, context.course, user, role)
    context.title = title
    context.updated_at = utcnow()
    lineitem_url = _services(context, claims)
    session.flush()
    link = _resource_link(session, context, claims, lineitem_url)
    return Placement(user, context.course, role, context, link)


def _resource_link(
    session: Session, context: LtiContext, claims: dict[str, Any], lineitem_url: str | None
) -> LtiResourceLink | None:
    claim = claims.get(CLAIM + "resource_link")
    link_id = _id(claim.get("id")) if isinstance(claim, dict) else ""
    if not link_id:
        return None  # a deep-linking request has none
    link = session.scalar(
        select(LtiResourceLink).where(
            LtiResourceLink.context_row_id == context.id, LtiResourceLink.resource_link_id == link_id
        )
    )
    if link is None:
        link = LtiResourceLink(context_row_id=context.id, resource_link_id=link_id, title="")
        session.add(link)
    exercise_id, assignment_id = _target(session, context.course, claims.get(CLAIM + "custom"))
    if exercise_id or assignment_id:
        link.exercise_id, link.assignment_id = exercise_id, assignment_id
    link.title = _text(claim.get("title"), 200) if isinstance(claim, dict) else ""
    if lineitem_url:
        link.lineitem_url = lineitem_url
    session.flush()
    return link
