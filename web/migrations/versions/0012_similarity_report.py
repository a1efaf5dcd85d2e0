"""similarity reports: one row per similarity check of a course

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-07 03:40:00.000000

``similarity_report`` keeps each check an instructor runs (web.teaching.similarity): its scope,
threshold, parameters, state and progress, and the pairs it found as JSON, so that its page
reloads without comparing again and a later run keeps the earlier ones.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "similarity_report",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("course_id", sa.Integer(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=True),
        sa.Column("exercise_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_by_id", sa.Integer(), nullable=True),
        sa.Column("threshold", sa.Float(), nullable=False),
        sa.Column("parameters", sa.JSON(), nullable=False),
        sa.Column("results", sa.JSON(), nullable=True),
        sa.Column(
            "state",
            sa.Enum("queued", "running", "done", "failed", name="similaritystate", native_enum=False, length=16),
            nullable=False,
        ),
        sa.Column("done_count", sa.Integer(), nullable=False),
        sa.Column("total_count", sa.Integer(), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["course_id"], ["course.id"]),
        sa.ForeignKeyConstraint(["assignment_id"], ["assignment.id"]),
        sa.ForeignKeyConstraint(["exercise_id"], ["exercise.id"]),
        sa.ForeignKeyConstraint(["created_by_id"], ["user.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_similarity_report_course_id", "similarity_report", ["course_id"])


def downgrade() -> None:
    """Downgrade schema. The reports go with the table: they are derived from submissions, which stay."""
    op.drop_index("ix_similarity_report_course_id", table_name="similarity_report")
    op.drop_table("similarity_report")
