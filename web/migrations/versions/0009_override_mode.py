"""an override's mode: "replace" (the override is the score) or "at_least" (a floor)

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-06 20:00:00.000000

``score_override.mode`` says how an override meets the graded score: ``replace`` (the override
is the cell's score, as every override was before) or ``at_least`` (the better of the two).
Existing rows get ``replace``: that is what they meant when they were set. A withdrawal row
gets ``replace`` too; its mode, like its score, means nothing.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table("score_override") as batch:
        batch.add_column(
            sa.Column(
                "mode",
                sa.Enum("replace", "at_least", name="overridemode", native_enum=False, length=16),
                nullable=False,
                server_default="replace",
            )
        )


def downgrade() -> None:
    """Downgrade schema. An "at least" override becomes a plain score (it replaces the graded
    score again); the history rows stay, so who set what and when is not lost."""
    with op.batch_alter_table("score_override") as batch:
        batch.drop_column("mode")
