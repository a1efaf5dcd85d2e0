"""TEMPORARY STUB of lti-core's migration 0010 (LTI platforms, keys, accounts, contexts, links)

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07 03:40:00.000000

Branch ``lti-core`` writes the real 0010; this stub (with the stub ``web/lms/models.py``) only lets
branch ``lti-grades`` build and test its 0011 first. DELETE THIS FILE at merge: theirs replaces it.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    moment = sa.DateTime(timezone=True)
    op.create_table(
        "lti_platform",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("issuer", sa.String(255), nullable=False, index=True),
        sa.Column("client_id", sa.String(255), nullable=False),
        sa.Column("auth_login_url", sa.String(1000), nullable=False),
        sa.Column("auth_token_url", sa.String(1000), nullable=False),
        sa.Column("key_set_url", sa.String(1000), nullable=False),
        sa.Column("auth_audience", sa.String(1000), nullable=True),
        sa.Column("created_at", moment, nullable=False),
    )
    op.create_table(
        "lti_tool_key",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("kid", sa.String(64), nullable=False, unique=True),
        sa.Column("private_pem", sa.Text(), nullable=False),
        sa.Column("public_jwk", sa.JSON(), nullable=False),
        sa.Column("created_at", moment, nullable=False),
        sa.Column("retired_at", moment, nullable=True),
    )
    op.create_table(
        "lti_account",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("issuer", sa.String(255), nullable=False),
        sa.Column("sub", sa.String(255), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("user.id"), nullable=False, index=True),
        sa.UniqueConstraint("issuer", "sub"),
    )
    op.create_table(
        "lti_context",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("platform_id", sa.Integer(), sa.ForeignKey("lti_platform.id"), nullable=False, index=True),
        sa.Column("issuer", sa.String(255), nullable=False),
        sa.Column("context_id", sa.String(255), nullable=False),
        sa.Column("course_id", sa.Integer(), sa.ForeignKey("course.id"), nullable=True, index=True),
        sa.Column("title", sa.String(255), nullable=False),
        sa.Column("memberships_url", sa.String(1000), nullable=True),
        sa.Column("lineitems_url", sa.String(1000), nullable=True),
        sa.Column("ags_scopes", sa.JSON(), nullable=False),
        sa.UniqueConstraint("issuer", "context_id"),
    )
    op.create_table(
        "lti_resource_link",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("context_row_id", sa.Integer(), sa.ForeignKey("lti_context.id"), nullable=False, index=True),
        sa.Column("resource_link_id", sa.String(255), nullable=False),
        sa.Column("exercise_id", sa.Integer(), sa.ForeignKey("exercise.id"), nullable=True),
        sa.Column("assignment_id", sa.Integer(), sa.ForeignKey("assignment.id"), nullable=True),
        sa.Column("lineitem_url", sa.String(1000), nullable=True),
        sa.Column("title", sa.String(255), nullable=False),
        sa.UniqueConstraint("context_row_id", "resource_link_id"),
    )


def downgrade() -> None:
    """Downgrade schema."""
    for table in ("lti_resource_link", "lti_context", "lti_account", "lti_tool_key", "lti_platform"):
        op.drop_table(table)
