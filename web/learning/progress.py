"""Counts the pages show: a learner's status per exercise, site-wide acceptance, a profile's progress.

The acceptance rate of an exercise is the share of its graded submissions that were accepted,
leaving out internal errors (IE is never the learner's fault). Anyone, signed in or not, sees
it, so it counts only what every viewer may know: the submissions whose verdicts are withheld
from their authors now (:func:`web.access.visibility.withheld_submissions`, by each one's own course)
are left out of it until they are shown (otherwise "A of G accepted" would move with a withheld
AC). A submission counts with its current grading (the newest finished one,
:attr:`web.core.models.Submission.current`): a rejudge changes the counts once it finishes, and never
counts one submission twice.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy import case, distinct, func, select
from sqlalchemy.orm import Session

from judge.verdicts import Verdict
from web.access.visibility import withheld_submissions
from web.core.models import Exercise, Grading, Submission, User

SOLVED, ATTEMPTED = "solved", "attempted"


@dataclass(frozen=True)
class ExerciseStats:
    graded: int  # submissions with a verdict other than IE
    accepted: int
    solvers: int  # distinct users with an AC

    @property
    def acceptance_rate(self) -> float | None:
        return self.accepted / self.graded if self.graded else None


def exercise_stats(session: Session) -> dict[int, ExerciseStats]:
    """Exercise id → its site-wide :class:`ExerciseStats` (exercises nobody tried are absent),
    without the submissions whose verdicts are withheld from their authors (see the module docstring)."""
    accepted = Grading.verdict == Verdict.AC
    withheld = withheld_submissions()
    rows = session.execute(
        select(
            Submission.exercise_id,
            func.count(),
            func.sum(case((accepted, 1), else_=0)),
            func.count(distinct(case((accepted, Submission.user_id)))),
        )
        .join(Grading, Grading.id == Submission.current_grading_id)
        .where(Grading.verdict != Verdict.IE)
        .where(Submission.id.not_in(withheld))
        .group_by(Submission.exercise_id)
    )
    return {
        exercise_id: ExerciseStats(graded, accepted or 0, solvers) for exercise_id, graded, accepted, solvers in rows
    }


def user_status(session: Session, user: User, withheld: Collection[int] = frozenset()) -> dict[int, str]:
    """Exercise id → ``solved`` (an AC) or ``attempted`` (submitted, no AC yet) for ``user``.

    Exercises in ``withheld`` (whose verdicts the learner's course does not show yet, see
    :func:`web.access.visibility.withheld_exercises`) are at most ``attempted``.
    """
    rows = session.execute(
        select(Submission.exercise_id, func.max(case((Grading.verdict == Verdict.AC, 1), else_=0)))
        .outerjoin(Grading, Grading.id == Submission.current_grading_id)
        .where(Submission.user_id == user.id)
        .group_by(Submission.exercise_id)
    )
    return {
        exercise_id: SOLVED if solved and exercise_id not in withheld else ATTEMPTED for exercise_id, solved in rows
    }


@dataclass(frozen=True)
class Progress:
    exercises: int
    solved: int
    attempted: int
    submissions: int
    verdicts: dict[str, int]  # verdict → how many of the user's graded submissions got it
    status: dict[int, str]  # exercise id → solved / attempted (see user_status)


def user_progress(session: Session, user: User, withheld: Collection[int] = frozenset()) -> Progress:
    """``user``'s progress; verdicts of exercises in ``withheld`` (see :func:`user_status`) are left out."""
    status = user_status(session, user, withheld)
    verdicts = dict(
        session.execute(
            select(Grading.verdict, func.count())
            .join(Submission, Grading.id == Submission.current_grading_id)
            .where(Submission.user_id == user.id, Submission.exercise_id.not_in(withheld))
            .group_by(Grading.verdict)
        ).all()
    )
    return Progress(
        exercises=session.scalar(select(func.count()).select_from(Exercise)) or 0,
        solved=sum(1 for s in status.values() if s == SOLVED),
        attempted=sum(1 for s in status.values() if s == ATTEMPTED),
        submissions=session.scalar(select(func.count()).select_from(Submission).where(Submission.user_id == user.id))
        or 0,
        verdicts={verdict.value: count for verdict, count in verdicts.items() if verdict},
        status=status,
    )
