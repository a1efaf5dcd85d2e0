"""invitations to courses; withdrawn overrides; the history of extensions

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-06 14:00:00.000000

Joining a course is the account holder's act: a roster line or an instructor's "add" now makes
an ``invitation`` (pending → accepted / declined / withdrawn, with who decided and when), and
only an accepted one makes a membership. Existing memberships stay as they are: they were made
before this rule, and removing them would take learners out of their courses' gradebooks.
No invitation row is made for them.

An override can be withdrawn: ``score_override.withdrawn`` marks a row that means "no
override" (existing rows get ``false``: every one of them was a score). The newest row of a
cell still decides, so the history of who set what stays.

An extension can be withdrawn or changed: ``extension`` keeps the one in force (what the
counting joins), and ``extension_event`` is the append-only history of grants (``due_at``) and
withdrawals (``due_at`` NULL). Each existing extension gets one event, its grant, with its
``granted_by_id`` and ``granted_at``.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "invitation",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("course_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column(
            "role", sa.Enum("learner", "instructor", name="courserole", native_enum=False, length=16), nullable=False
        ),
        sa.Column(
            "state",
            sa.Enum(
                "pending", "accepted", "declined", "withdrawn", name="invitationstate", native_enum=False, length=16
            ),
            nullable=False,
        ),
        sa.Column("invited_by_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("decided_by_id", sa.Integer(), nullable=True),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["course_id"], ["course.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"]),
        sa.ForeignKeyConstraint(["invited_by_id"], ["user.id"]),
        sa.ForeignKeyConstraint(["decided_by_id"], ["user.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_invitation_course_id", "invitation", ["course_id"])
    op.create_index("ix_invitation_user_id", "invitation", ["user_id"])
    op.create_table(
        "extension_event",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("by_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["assignment_id"], ["assignment.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"]),
        sa.ForeignKeyConstraint(["by_id"], ["user.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_extension_event_assignment_id", "extension_event", ["assignment_id"])
    op.create_index("ix_extension_event_user_id", "extension_event", ["user_id"])
    op.execute(
        "INSERT INTO extension_event (assignment_id, user_id, due_at, by_id, created_at) "
        "SELECT assignment_id, user_id, due_at, granted_by_id, granted_at FROM extension ORDER BY id"
    )
    with op.batch_alter_table("score_override") as batch:
        batch.add_column(sa.Column("withdrawn", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    """Downgrade schema. Pending invitations and the extension history are lost; a withdrawn
    override is deleted (the newest remaining row counts again, as it did before it)."""
    op.execute("DELETE FROM score_override WHERE withdrawn")
    with op.batch_alter_table("score_override") as batch:
        batch.drop_column("withdrawn")
    op.drop_index("ix_extension_event_user_id", table_name="extension_event")
    op.drop_index("ix_extension_event_assignment_id", table_name="extension_event")
    op.drop_table("extension_event")
    op.drop_index("ix_invitation_user_id", table_name="invitation")
    op.drop_index("ix_invitation_course_id", table_name="invitation")
    op.drop_table("invitation")
