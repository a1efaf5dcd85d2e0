"""the progress of a running grading: cases done, cases in all, hidden cases running

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06 20:00:00.000000

A running grading's worker writes how many of its public cases are done, how many cases it has
(and how many of them are hidden), and whether the hidden cases have started, so that every site
process can show "3 of 17 cases" while a learner waits (see web.grading.queue). Existing rows get NULLs
and ``false``: a finished grading has no progress to show.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table("grading", schema=None) as batch_op:
        batch_op.add_column(sa.Column("cases_done", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("cases_total", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("cases_hidden", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("hidden_running", sa.Boolean(), server_default=sa.false(), nullable=False))


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("grading", schema=None) as batch_op:
        batch_op.drop_column("hidden_running")
        batch_op.drop_column("cases_hidden")
        batch_op.drop_column("cases_total")
        batch_op.drop_column("cases_done")
