"""graders seen, and when each grading was handed to a broker

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 10:30:00.000000

Grading on many machines (Celery on Redis, see ``web/grading/tasks.py``) keeps the grading rows as the
queue of record; the broker only carries grading ids. ``grading.published_at`` is when the
grading's id was last handed to the broker (NULL: never, which is always so without a broker),
so that a periodic sweep can publish again what never reached it or what it lost.

``grader`` has one row per grading process (in the site or beside it, Celery or not), renewed
by its heartbeat: the health endpoint counts the graders seen in the last minute from it.
``ix_grading_finished_at`` serves the latency percentiles of recent gradings.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table("grading") as batch:
        batch.add_column(sa.Column("published_at", sa.DateTime(timezone=True), nullable=True))
        batch.create_index("ix_grading_finished_at", ["finished_at"])
    op.create_table(
        "grader",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=128), nullable=False),
        sa.Column("host", sa.String(length=128), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("slots", sa.Integer(), nullable=False),
        sa.Column("busy", sa.Integer(), nullable=False),
        sa.Column("graded", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_grader_name", "grader", ["name"], unique=True)
    op.create_index("ix_grader_last_seen_at", "grader", ["last_seen_at"])


def downgrade() -> None:
    """Downgrade schema (what the broker was handed is forgotten; the gradings stay)."""
    op.drop_index("ix_grader_last_seen_at", table_name="grader")
    op.drop_index("ix_grader_name", table_name="grader")
    op.drop_table("grader")
    with op.batch_alter_table("grading") as batch:
        batch.drop_index("ix_grading_finished_at")
        batch.drop_column("published_at")
