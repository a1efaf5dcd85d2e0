"""LTI 1.3: platforms, deployments, tool keys, accounts, contexts, resource links, launch values

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07 03:40:00.000000

New tables only (web/lms/models.py says what each holds); no existing row changes, so the
downgrade drops them and loses only what LTI launches made (the users and courses those
launches created stay: they are ordinary rows of ``user``, ``course`` and ``membership``).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

URL = 1024


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "lti_platform",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("issuer", sa.String(URL), nullable=False),
        sa.Column("client_id", sa.String(255), nullable=False),
        sa.Column("auth_login_url", sa.String(URL), nullable=False),
        sa.Column("auth_token_url", sa.String(URL), nullable=False),
        sa.Column("key_set_url", sa.String(URL), nullable=False),
        sa.Column("auth_audience", sa.String(URL), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("issuer", "client_id", name="uq_lti_platform_issuer_client"),
    )
    op.create_index("ix_lti_platform_issuer", "lti_platform", ["issuer"])
    op.create_table(
        "lti_deployment",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("deployment_id", sa.String(255), nullable=False),
        sa.ForeignKeyConstraint(["platform_id"], ["lti_platform.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("platform_id", "deployment_id", name="uq_lti_deployment_platform"),
    )
    op.create_index("ix_lti_deployment_platform_id", "lti_deployment", ["platform_id"])
    op.create_table(
        "lti_tool_key",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kid", sa.String(64), nullable=False),
        sa.Column("private_pem", sa.Text(), nullable=False),
        sa.Column("public_jwk", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("retired_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("kid"),
    )
    op.create_table(
        "lti_account",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("issuer", sa.String(URL), nullable=False),
        sa.Column("sub", sa.String(255), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["user.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("issuer", "sub", name="uq_lti_account_issuer_sub"),
    )
    op.create_index("ix_lti_account_user_id", "lti_account", ["user_id"])
    op.create_table(
        "lti_context",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("platform_id", sa.Integer(), nullable=False),
        sa.Column("issuer", sa.String(URL), nullable=False),
        sa.Column("context_id", sa.String(255), nullable=False),
        sa.Column("course_id", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("memberships_url", sa.String(URL), nullable=True),
        sa.Column("lineitems_url", sa.String(URL), nullable=True),
        sa.Column("ags_scopes", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["platform_id"], ["lti_platform.id"]),
        sa.ForeignKeyConstraint(["course_id"], ["course.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("issuer", "context_id", name="uq_lti_context_issuer_context"),
    )
    op.create_index("ix_lti_context_platform_id", "lti_context", ["platform_id"])
    op.create_index("ix_lti_context_course_id", "lti_context", ["course_id"])
    op.create_table(
        "lti_resource_link",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("context_row_id", sa.Integer(), nullable=False),
        sa.Column("resource_link_id", sa.String(255), nullable=False),
        sa.Column("exercise_id", sa.Integer(), nullable=True),
        sa.Column("assignment_id", sa.Integer(), nullable=True),
        sa.Column("lineitem_url", sa.String(URL), nullable=True),
        sa.Column("title", sa.String(200), nullable=False),
        sa.ForeignKeyConstraint(["context_row_id"], ["lti_context.id"]),
        sa.ForeignKeyConstraint(["exercise_id"], ["exercise.id"]),
        sa.ForeignKeyConstraint(["assignment_id"], ["assignment.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("context_row_id", "resource_link_id", name="uq_lti_resource_link_context_link"),
    )
    op.create_index("ix_lti_resource_link_context_row_id", "lti_resource_link", ["context_row_id"])
    op.create_table(
        "lti_launch_value",
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("value", sa.JSON(), nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_index("ix_lti_launch_value_expires_at", "lti_launch_value", ["expires_at"])


def downgrade() -> None:
    """Downgrade schema: the LTI tables go; users, courses and memberships they made stay."""
    for table in (
        "lti_launch_value",
        "lti_resource_link",
        "lti_context",
        "lti_account",
        "lti_tool_key",
        "lti_deployment",
        "lti_platform",
    ):
        op.drop_table(table)
