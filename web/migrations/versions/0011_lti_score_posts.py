"""LTI services: the scores waiting for (or sent to) a platform's gradebook, and roster syncs

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-07 03:45:00.000000

``lti_score_post``: one row per score to post to a line item (Assignment and Grade Services),
kept after it is posted (``posted_at``) or superseded by a newer value (``superseded_at``), so
what the platform was sent, when and after how many tries stays on record. ``lti_roster_sync``:
one row per Names and Roles sync of a platform course. Both tables are new: nothing to convert.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    moment = sa.DateTime(timezone=True)
    op.create_table(
        "lti_score_post",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("link_id", sa.Integer(), sa.ForeignKey("lti_resource_link.id"), nullable=False, index=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("user.id"), nullable=False, index=True),
        sa.Column("sequence", sa.Integer(), nullable=False),
        sa.Column("lineitem_url", sa.String(1000), nullable=False),
        sa.Column("lti_user_id", sa.String(255), nullable=False),
        sa.Column("score_given", sa.Float(), nullable=False),
        sa.Column("score_maximum", sa.Float(), nullable=False),
        sa.Column("comment", sa.Text(), nullable=False),
        sa.Column("activity_progress", sa.String(32), nullable=False),
        sa.Column("grading_progress", sa.String(32), nullable=False),
        sa.Column("created_at", moment, nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", moment, nullable=False, index=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("posted_at", moment, nullable=True, index=True),
        sa.Column("superseded_at", moment, nullable=True),
        sa.UniqueConstraint("link_id", "user_id", "sequence"),
    )
    op.create_table(
        "lti_roster_sync",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("context_row_id", sa.Integer(), sa.ForeignKey("lti_context.id"), nullable=False, index=True),
        sa.Column("started_at", moment, nullable=False),
        sa.Column("finished_at", moment, nullable=True),
        sa.Column("members", sa.Integer(), nullable=False),
        sa.Column("added", sa.Integer(), nullable=False),
        sa.Column("updated", sa.Integer(), nullable=False),
        sa.Column("removed", sa.Integer(), nullable=False),
        sa.Column("kept", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
    )


def downgrade() -> None:
    """Downgrade schema. The score and sync history goes with the tables."""
    op.drop_table("lti_roster_sync")
    op.drop_table("lti_score_post")
