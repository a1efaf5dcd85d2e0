"""courses, assignments, extensions, overrides and rejudges; the site admin

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 00:10:00.000000

The instructor's side: a ``course`` with its ``membership`` rows (learner or instructor), its
``assignment`` rows (exercises through ``assignment_exercise``, each exercise in at most one
assignment of a course), per-learner ``extension`` rows, ``score_override`` rows (never
changed, the newest counts) and ``rejudge`` requests, whose gradings point back at them
(``grading.rejudge_id``) and at the grading they may replace (``grading.replaces_id``).

Accounts: the new site-wide role ``admin`` may do everything. Before this revision every
instructor saw every submission; so that nobody loses what they could reach, every existing
instructor becomes an admin (the downgrade makes admins instructors again). Instructors made
afterwards reach only the courses they teach.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _enum(name: str, *values: str) -> sa.Enum:
    return sa.Enum(*values, name=name, native_enum=False, length=16)


def _moment(name: str, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "course",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("join_code", sa.String(length=32), nullable=False),
        sa.Column("time_zone", sa.String(length=64), nullable=False),
        sa.Column("created_by_id", sa.Integer(), sa.ForeignKey("user.id"), nullable=True),
        _moment("created_at"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_course_join_code", "course", ["join_code"], unique=True)
    op.create_table(
        "membership",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("course_id", sa.Integer(), sa.ForeignKey("course.id"), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("user.id"), nullable=False),
        sa.Column("role", _enum("courserole", "learner", "instructor"), nullable=False),
        _moment("joined_at"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("course_id", "user_id", name="uq_membership_course_user"),
    )
    op.create_index("ix_membership_course_id", "membership", ["course_id"])
    op.create_index("ix_membership_user_id", "membership", ["user_id"])
    op.create_table(
        "assignment",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("course_id", sa.Integer(), sa.ForeignKey("course.id"), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        _moment("opens_at"),
        _moment("due_at"),
        sa.Column("late_policy", _enum("latepolicy", "not_accepted", "penalty", "flagged"), nullable=False),
        sa.Column("penalty_per_day", sa.Float(), nullable=False),
        sa.Column("visibility_before", _enum("visibility", "rule", "diagnosis", "nothing"), nullable=False),
        sa.Column("visibility_after", _enum("visibility", "rule", "diagnosis", "nothing"), nullable=False),
        _moment("created_at"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_assignment_course_id", "assignment", ["course_id"])
    op.create_table(
        "assignment_exercise",
        sa.Column("assignment_id", sa.Integer(), sa.ForeignKey("assignment.id"), nullable=False),
        sa.Column("exercise_id", sa.Integer(), sa.ForeignKey("exercise.id"), nullable=False),
        sa.Column("course_id", sa.Integer(), sa.ForeignKey("course.id"), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("assignment_id", "exercise_id"),
        sa.UniqueConstraint("course_id", "exercise_id", name="uq_assignment_exercise_course"),
    )
    op.create_index("ix_assignment_exercise_course_id", "assignment_exercise", ["course_id"])
    op.create_table(
        "extension",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), sa.ForeignKey("assignment.id"), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("user.id"), nullable=False),
        _moment("due_at"),
        sa.Column("granted_by_id", sa.Integer(), sa.ForeignKey("user.id"), nullable=True),
        _moment("granted_at"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("assignment_id", "user_id", name="uq_extension_assignment_user"),
    )
    op.create_index("ix_extension_assignment_id", "extension", ["assignment_id"])
    op.create_index("ix_extension_user_id", "extension", ["user_id"])
    op.create_table(
        "score_override",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("course_id", sa.Integer(), sa.ForeignKey("course.id"), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("user.id"), nullable=False),
        sa.Column("exercise_id", sa.Integer(), sa.ForeignKey("exercise.id"), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("comment", sa.Text(), nullable=False),
        sa.Column("by_id", sa.Integer(), sa.ForeignKey("user.id"), nullable=True),
        _moment("created_at"),
        sa.PrimaryKeyConstraint("id"),
    )
    for column in ("course_id", "user_id", "exercise_id"):
        op.create_index(f"ix_score_override_{column}", "score_override", [column])
    op.create_table(
        "rejudge",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("scope", _enum("rejudgescope", "submission", "exercise", "assignment"), nullable=False),
        sa.Column("course_id", sa.Integer(), sa.ForeignKey("course.id"), nullable=True),
        sa.Column("exercise_id", sa.Integer(), sa.ForeignKey("exercise.id"), nullable=True),
        sa.Column("assignment_id", sa.Integer(), sa.ForeignKey("assignment.id"), nullable=True),
        sa.Column("submission_id", sa.Integer(), sa.ForeignKey("submission.id"), nullable=True),
        sa.Column("requested_by_id", sa.Integer(), sa.ForeignKey("user.id"), nullable=True),
        _moment("created_at"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_rejudge_course_id", "rejudge", ["course_id"])
    with op.batch_alter_table("grading", schema=None) as batch_op:
        batch_op.add_column(sa.Column("diagnosis_zh", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("failed_case", sa.String(length=128), nullable=True))
        batch_op.add_column(sa.Column("rejudge_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("replaces_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key("fk_grading_rejudge_id_rejudge", "rejudge", ["rejudge_id"], ["id"])
        batch_op.create_index("ix_grading_rejudge_id", ["rejudge_id"], unique=False)
    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.create_index(
            "ix_submission_user_exercise", ["user_id", "exercise_id", "created_at", "current_grading_id"], unique=False
        )
    _fill_analytics_columns()
    user = sa.table("user", sa.column("role"))
    op.execute(user.update().where(user.c.role == "instructor").values(role="admin"))


def _fill_analytics_columns() -> None:
    """Copy each finished grading's Chinese diagnosis and first failed case out of its report."""
    grading = sa.table(
        "grading",
        sa.column("id"),
        sa.column("report_json", sa.JSON()),
        sa.column("diagnosis_zh"),
        sa.column("failed_case"),
    )
    connection = op.get_bind()
    for grading_id, report in connection.execute(sa.select(grading.c.id, grading.c.report_json)).all():
        if not isinstance(report, dict):
            continue
        cases = report.get("cases")
        if not isinstance(cases, list):
            cases = []
        # judge.reports.report.first_failure as of this revision: the first case whose verdict is not AC or SK.
        failing = next((c for c in cases if isinstance(c, dict) and c.get("verdict") not in ("AC", "SK")), None)
        zh = report.get("diagnosis_zh")
        connection.execute(
            grading.update()
            .where(grading.c.id == grading_id)
            .values(
                diagnosis_zh=zh if isinstance(zh, str) else None,
                failed_case=str(failing.get("name"))[:128] if failing is not None else None,
            )
        )


def downgrade() -> None:
    """Downgrade schema."""
    user = sa.table("user", sa.column("role"))
    op.execute(user.update().where(user.c.role == "admin").values(role="instructor"))
    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.drop_index("ix_submission_user_exercise")
    with op.batch_alter_table("grading", schema=None) as batch_op:
        batch_op.drop_index("ix_grading_rejudge_id")
        batch_op.drop_constraint("fk_grading_rejudge_id_rejudge", type_="foreignkey")
        batch_op.drop_column("replaces_id")
        batch_op.drop_column("rejudge_id")
        batch_op.drop_column("failed_case")
        batch_op.drop_column("diagnosis_zh")
    for table in (
        "rejudge",
        "score_override",
        "extension",
        "assignment_exercise",
        "assignment",
        "membership",
        "course",
    ):
        op.drop_table(table)
