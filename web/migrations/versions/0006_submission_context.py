"""each submission belongs to the course it was made for (its context), or to none

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-06 14:00:00.000000

Until now an instructor's reach over a submission was decided by the roster: one who rostered a
learner of course A into course B (assigning the same exercise) saw, counted and rejudged the
learner's course-A work. ``submission.course_id`` records the course the learner submitted for
(NULL: practice), and every instructor view, count and rejudge follows it.

Existing rows are filled with the course they were most likely made for, and never with one
they cannot have been made for: a submission gets a course whose assignments include its
exercise, of which its author was a learner when it was made (joined at or before it) and whose
assignment was open then (at or after ``opens_at``: earlier work was never counted); of several
such courses, the one of the author's oldest membership (then the lowest membership id); of
none, NULL (practice). So a gradebook keeps every attempt it counted except those made before
the learner joined the course: work done before any tie to a course is not handed to its
instructors. ``ix_submission_course`` serves one course's attempts
as ``ix_submission_user_exercise`` serves one learner's. Down, the column is dropped (the
roster decides again).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema, then fill each existing submission's course (see the docstring)."""
    with op.batch_alter_table("submission") as batch:
        batch.add_column(sa.Column("course_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_submission_course_id_course", "course", ["course_id"], ["id"])
        batch.create_index(
            "ix_submission_course", ["course_id", "user_id", "exercise_id", "created_at", "current_grading_id"]
        )
    submission = sa.table(
        "submission",
        sa.column("id"),
        sa.column("user_id"),
        sa.column("exercise_id"),
        sa.column("course_id"),
        sa.column("created_at"),
    )
    membership = sa.table(
        "membership",
        sa.column("id"),
        sa.column("course_id"),
        sa.column("user_id"),
        sa.column("role"),
        sa.column("joined_at"),
    )
    item = sa.table("assignment_exercise", sa.column("assignment_id"), sa.column("course_id"), sa.column("exercise_id"))
    assignment = sa.table("assignment", sa.column("id"), sa.column("opens_at"))
    # The first learner membership (oldest, then lowest id) whose course assigns the exercise,
    # held when the submission was made, to an assignment open by then.
    chosen = (
        sa.select(membership.c.course_id)
        .select_from(membership)
        .join(item, sa.and_(item.c.course_id == membership.c.course_id, item.c.exercise_id == submission.c.exercise_id))
        .join(assignment, assignment.c.id == item.c.assignment_id)
        .where(
            membership.c.user_id == submission.c.user_id,
            membership.c.role == "learner",
            membership.c.joined_at <= submission.c.created_at,
            assignment.c.opens_at <= submission.c.created_at,
        )
        .order_by(membership.c.joined_at, membership.c.id)
        .limit(1)
        .scalar_subquery()
    )
    op.execute(submission.update().values(course_id=chosen))


def downgrade() -> None:
    """Downgrade schema (which course each submission was made for is forgotten)."""
    with op.batch_alter_table("submission") as batch:
        batch.drop_index("ix_submission_course")
        batch.drop_constraint("fk_submission_course_id_course", type_="foreignkey")
        batch.drop_column("course_id")
