"""Who is in a course, and by whose act: invitations, accepting them, removal and leaving.

Joining is the account holder's act (ARCHITECTURE.md, invariant 9). An instructor's roster line
or "add" makes an :class:`~web.core.models.Invitation`, never a membership; the membership exists
from the moment the invited account accepts. The join code is the other way in (the learner
types it). Rules:

- at most one invitation per course and account is pending: inviting again changes nothing
  (an instructor invitation replaces a pending learner one, as the roster never demotes);
  inviting a member of the course is a no-op, reported as such;
- only the invited account answers (accept, decline); only the course's instructors withdraw
  a pending one; answered and withdrawn rows stay, with who decided and when;
- an instructor removes a learner or another instructor, a member leaves by themselves, and
  never the last instructor either way. Their submissions, extensions and overrides stay: they
  are the course's history; a removed learner is not in the gradebook while they are out, and
  is back in it, with everything, if they join again.

Each function adds rows to the session without committing and raises
:class:`~web.teaching.courses.CourseError` for what it refuses; authorization is the caller's.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from sqlalchemy import CursorResult, func, or_, select, update
from sqlalchemy.orm import Session, object_session

from web.accounts.users import find_user
from web.core.models import Course, CourseRole, Invitation, InvitationState, Membership, Role, User, utcnow
from web.teaching.courses import CourseError, enroll, normalize_join_code, roster_names


class Invited(str, enum.Enum):
    """What :func:`invite` did."""

    invited = "invited"  # a new pending invitation
    pending = "pending"  # one was already pending (unchanged, or raised to instructor)
    member = "member"  # already a member in that role or above: nothing to do


def _membership(session: Session, course: Course, user: User) -> Membership | None:
    return session.scalar(select(Membership).where(Membership.course_id == course.id, Membership.user_id == user.id))


def pending_invitation(session: Session, course: Course, user: User) -> Invitation | None:
    return session.scalar(
        select(Invitation).where(
            Invitation.course_id == course.id,
            Invitation.user_id == user.id,
            Invitation.state == InvitationState.pending,
        )
    )


def invite(session: Session, course: Course, user: User, role: CourseRole, by: User) -> Invited:
    """Invite ``user`` into ``course`` as ``role`` (see the module docstring); idempotent."""
    membership = _membership(session, course, user)
    if membership is not None and (membership.role is CourseRole.instructor or role is CourseRole.learner):
        return Invited.member
    pending = pending_invitation(session, course, user)
    if pending is not None:
        if role is CourseRole.instructor:
            pending.role = role
        return Invited.pending
    session.add(Invitation(course_id=course.id, user_id=user.id, role=role, invited_by_id=by.id))
    session.flush()
    return Invited.invited


def _decide(invitation: Invitation, state: InvitationState, by: User) -> None:
    """Move a pending ``invitation`` to ``state``, or raise :class:`CourseError` if it is decided.

    One conditional UPDATE (``WHERE state = 'pending'``), not a read then a write: an accept and a
    withdraw at the same moment cannot both win (the database serializes the two updates of the
    row, and the second finds it decided)."""
    if invitation.state is not InvitationState.pending:
        raise CourseError(f"this invitation is already {invitation.state.value}")
    session = object_session(invitation)
    assert session is not None
    changed = session.execute(
        update(Invitation)
        .where(Invitation.id == invitation.id, Invitation.state == InvitationState.pending)
        .values(state=state, decided_by_id=by.id, decided_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    session.refresh(invitation)
    if cast(CursorResult[Any], changed).rowcount != 1:
        raise CourseError(f"this invitation is already {invitation.state.value}")


def accept(session: Session, invitation: Invitation, user: User) -> Course:
    """``user`` (the invited account) accepts: from now on they are a member with its role.

    An invitation whose sender no longer teaches the course (nor is an admin) has lapsed and is
    refused: what a removed instructor handed out is not theirs to give any more."""
    sender = invitation.invited_by
    if sender is not None and sender.role is not Role.admin:
        still = _membership(session, invitation.course, sender)
        if still is None or still.role is not CourseRole.instructor:
            raise CourseError("this invitation has lapsed: whoever sent it no longer teaches the course")
    _decide(invitation, InvitationState.accepted, user)
    enroll(session, invitation.course, user, invitation.role)
    return invitation.course


def decline(invitation: Invitation, user: User) -> None:
    """``user`` (the invited account) says no: no membership is made."""
    _decide(invitation, InvitationState.declined, user)


def withdraw(invitation: Invitation, by: User) -> None:
    """An instructor of the course takes a pending invitation back."""
    _decide(invitation, InvitationState.withdrawn, by)


def settle_on_join(session: Session, course: Course, user: User) -> None:
    """``user`` joined ``course`` with its code: a pending learner invitation is thereby accepted."""
    pending = pending_invitation(session, course, user)
    if pending is not None and pending.role is CourseRole.learner:
        _decide(pending, InvitationState.accepted, user)


def invitations_for(session: Session, user: User) -> Sequence[Invitation]:
    """``user``'s pending invitations, newest first."""
    return session.scalars(
        select(Invitation)
        .where(Invitation.user_id == user.id, Invitation.state == InvitationState.pending)
        .order_by(Invitation.id.desc())
    ).all()


def invitations_in(session: Session, course: Course) -> Sequence[Invitation]:
    """The course's pending invitations, oldest first (what its instructors see)."""
    return session.scalars(
        select(Invitation)
        .where(Invitation.course_id == course.id, Invitation.state == InvitationState.pending)
        .order_by(Invitation.id)
    ).all()


def _instructor_count(session: Session, course: Course) -> int:
    return (
        session.scalar(
            select(func.count())
            .select_from(Membership)
            .where(Membership.course_id == course.id, Membership.role == CourseRole.instructor)
        )
        or 0
    )


def remove_member(session: Session, course: Course, user: User, by: User | None = None) -> CourseRole:
    """End ``user``'s membership of ``course`` (removed by ``by``, an instructor, or leaving when
    ``by`` is None); their role.

    Refuses a non-member and the last instructor (a course always has someone to manage it).
    Their submissions, extensions and overrides stay (see the module docstring); pending
    invitations to them, and those a removed instructor sent, are withdrawn, so that taking back
    a role takes back what was still on its way.
    """
    membership = _membership(session, course, user)
    if membership is None:
        raise CourseError(f"{user.name!r} is not a member of this course")
    if membership.role is CourseRole.instructor and _instructor_count(session, course) <= 1:
        raise CourseError("the last instructor of a course cannot leave it: add another instructor first")
    role = membership.role
    # Taken out means out: the invitations a removed instructor sent, and any still waiting for
    # the removed member (a pending instructor one would bring them back), are withdrawn.
    pending = session.scalars(
        select(Invitation).where(
            Invitation.course_id == course.id,
            Invitation.state == InvitationState.pending,
            or_(Invitation.user_id == user.id, Invitation.invited_by_id == user.id)
            if role is CourseRole.instructor
            else Invitation.user_id == user.id,
        )
    ).all()
    for invitation in pending:
        _decide(invitation, InvitationState.withdrawn, by or user)
    session.delete(membership)
    return role


@dataclass
class RosterResult:
    """What a roster upload did, by name: newly invited, invited before and still pending,
    already members (nothing done), and names with no account (nothing done)."""

    invited: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)


def add_roster(session: Session, course: Course, data: bytes | str, by: User) -> RosterResult:
    """Invite every existing account a roster CSV names as a learner of ``course``
    (see :func:`web.teaching.courses.roster_names` for the CSV); nobody joins until they accept."""
    result = RosterResult()
    outcome_list = {Invited.invited: result.invited, Invited.pending: result.pending, Invited.member: result.already}
    for name in roster_names(data):
        user = find_user(session, name)
        if user is None:
            result.unknown.append(name)
        else:
            outcome_list[invite(session, course, user, CourseRole.learner, by)].append(user.name)
    return result


def add_instructor(session: Session, course: Course, name: object, by: User) -> tuple[User, Invited]:
    """Invite the account called ``name`` to be an instructor of ``course``; who, and what was done."""
    if not isinstance(name, str) or not name.strip():
        raise CourseError("a user name is required")
    user = find_user(session, name)
    if user is None:
        raise CourseError(f"no account is called {name.strip()[:64]!r}; they sign up first")
    return user, invite(session, course, user, CourseRole.instructor, by)


def join(session: Session, user: User, code: object) -> Course:
    """``user`` joins the course whose join code is ``code`` (as a learner)."""
    if not isinstance(code, str) or not code.strip():
        raise CourseError("a join code is required (your instructor gives it out)")
    course = session.scalar(select(Course).where(Course.join_code == normalize_join_code(code)[:64]))
    if course is None:
        raise CourseError("no course has this join code; check it with your instructor")
    enroll(session, course, user)
    settle_on_join(session, course, user)
    return course
