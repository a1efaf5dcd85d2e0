"""Who may reach what: one home for every authorization rule of pages and API routes.

- A **site admin** (:attr:`Role.admin`, the account created at first start) may do everything.
- An account with the site role **instructor** may create courses; within a course,
  :class:`CourseRole` decides: a course's instructors manage it and see the work done for it,
  nothing of other courses.
- A **learner** sees their own submissions and the courses they joined, never an instructor page.
- An **invitation** is answered by the account it is addressed to, and no one else (not even an
  admin: joining is the account holder's act); it is withdrawn by one who teaches its course.
- Another account's credentials (tokens, sign-in sessions) are revoked by an admin alone.

A submission belongs to its **context** (``Submission.course_id``: the course it was made for,
or none for practice, see :mod:`web.access.contexts`): one sees it as an instructor iff one teaches
its course (an admin: every submission). Who teaches the author in another course sees nothing
of it; a practice submission is seen by its author and admins only.

Refusals are 404s with the same text as for an id that does not exist, so a probe cannot
tell another course or submission exists (as :mod:`web.access.lookup` does for submissions).
"""

from __future__ import annotations

from flask import abort, g
from sqlalchemy import bindparam, exists, select
from sqlalchemy.orm import Session

from web.core.models import Course, CourseRole, Invitation, Membership, Rejudge, Role, Submission, User


def is_admin(user: User | None) -> bool:
    return user is not None and user.role is Role.admin


def may_create_courses(user: User | None) -> bool:
    """Whether ``user`` may create a course (site instructors and admins)."""
    return user is not None and user.role in (Role.instructor, Role.admin)


def course_role(session: Session, user: User, course: Course) -> CourseRole | None:
    """``user``'s role in ``course`` (None: not a member)."""
    return session.scalar(
        select(Membership.role).where(Membership.course_id == course.id, Membership.user_id == user.id)
    )


def teaches(session: Session, user: User | None, course: Course) -> bool:
    """Whether ``user`` may manage ``course``: an admin, or one of its instructors."""
    if user is None:
        return False
    return is_admin(user) or course_role(session, user, course) is CourseRole.instructor


def teaches_anything(session: Session, user: User | None) -> bool:
    """Whether ``user`` should see the instructor's menu (an admin, a site instructor or a course's)."""
    if user is None:
        return False
    if may_create_courses(user):
        return True
    return (
        session.scalar(
            select(Membership.id)
            .where(Membership.user_id == user.id, Membership.role == CourseRole.instructor)
            .limit(1)
        )
        is not None
    )


# Built once with a bound parameter: every view of a submission asks it.
_TEACHES_COURSE = select(
    exists().where(
        Membership.course_id == bindparam("p_course", type_=Membership.course_id.type),
        Membership.user_id == bindparam("p_viewer", type_=Membership.user_id.type),
        Membership.role == CourseRole.instructor,
    )
)


def teaches_context_of(session: Session, viewer: User | None, submission: Submission) -> bool:
    """Whether ``viewer`` may see ``submission`` as an instructor (full hidden messages, seeds,
    rejudging): an admin, or an instructor of the course it was made for (none for practice)."""
    if viewer is None:
        return False
    if is_admin(viewer):
        return True
    if submission.course_id is None:
        return False
    return bool(session.scalar(_TEACHES_COURSE, {"p_course": submission.course_id, "p_viewer": viewer.id}))


def may_see(session: Session, viewer: User | None, submission: Submission) -> bool:
    """Whether ``viewer`` may open ``submission`` at all: its author or one who teaches its course."""
    return viewer is not None and (submission.user_id == viewer.id or teaches_context_of(session, viewer, submission))


def course_to_teach(course_id: int, viewer: User) -> Course:
    """Course ``course_id`` if ``viewer`` teaches it (see :func:`teaches`). A learner of the
    course gets a 403 (they know the course exists); anyone else the 404 of a missing course."""
    course = g.db.get(Course, course_id)
    if course is None:
        abort(404, description=f"no course {course_id}")
    if not teaches(g.db, viewer, course):
        if course_role(g.db, viewer, course) is CourseRole.learner:
            abort(403, description="this is for the course's instructors")
        abort(404, description=f"no course {course_id}")
    return course


def course_to_examine(course_id: int, viewer: User) -> Course:
    """Course ``course_id`` if ``viewer`` teaches it, for the similarity pages; anyone else, its
    learners too, gets the 404 of a missing course: learners are never told the check exists."""
    course = g.db.get(Course, course_id)
    if course is None or not teaches(g.db, viewer, course):
        abort(404, description=f"no course {course_id}")
    return course


def course_to_attend(course_id: int, viewer: User) -> Course:
    """Course ``course_id`` if ``viewer`` is in it (either role) or is an admin; else a 404."""
    course = g.db.get(Course, course_id)
    if course is None or not (is_admin(viewer) or course_role(g.db, viewer, course) is not None):
        abort(404, description=f"no course {course_id}")
    return course


def refuse_unless(allowed: bool, what: str = "this page") -> None:
    """A 403 for a signed-in user who may not use ``what`` (a learner on an instructor page):
    these pages exist for everyone, so their existence is no secret."""
    if not allowed:
        abort(403, description=f"{what} is for instructors")


def may_see_rejudge(session: Session, user: User, rejudge: Rejudge) -> bool:
    """Whether ``user`` may see what ``rejudge`` changed: one who teaches its course, or for a
    single submission, one who teaches the course it was made for."""
    if is_admin(user):
        return True
    if rejudge.course_id is not None:
        course = session.get(Course, rejudge.course_id)
        return course is not None and teaches(session, user, course)
    submission = session.get(Submission, rejudge.submission_id) if rejudge.submission_id is not None else None
    return submission is not None and teaches_context_of(session, user, submission)


def invitation_to_answer(invitation_id: int, viewer: User) -> Invitation:
    """Invitation ``invitation_id`` if it is addressed to ``viewer``; else the 404 of a missing one."""
    invitation = g.db.get(Invitation, invitation_id)
    if invitation is None or invitation.user_id != viewer.id:
        abort(404, description=f"no invitation {invitation_id}")
    return invitation


def invitation_of(course: Course, invitation_id: int) -> Invitation:
    """Invitation ``invitation_id`` of ``course`` (the caller checked the course); else a 404."""
    invitation = g.db.get(Invitation, invitation_id)
    if invitation is None or invitation.course_id != course.id:
        abort(404, description=f"no invitation {invitation_id} in this course")
    return invitation


def user_to_administer(user_id: int, viewer: User) -> User:
    """Account ``user_id`` for an admin; anyone else gets the 404 of a missing page."""
    user = g.db.get(User, user_id) if is_admin(viewer) else None
    if user is None:
        abort(404, description=f"no user {user_id}")
    return user
