"""server-side sign-in sessions; case-insensitive user names

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-06 10:00:00.000000

Adds ``user_session`` (one row per signed-in browser; the cookie holds a token, the row its
SHA-256) and ``user.name_key``, the unique lookup key of a name (NFKC, case-folded, NFKC).

Existing names may collide once case is ignored ("Ann" and "ann"). Nobody is deleted or
renamed: the account with the lowest id gets the key, each later one gets ``"<key>#<id>"``
('#' is never in a name, so no new name can take it) and a warning is printed; those accounts
keep signing in with their exact name. Sessions from before (plain signed cookies) no longer
sign anyone in: everyone signs in again once.
"""

import sys
import unicodedata
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _name_key(name: str) -> str:
    """web.core.names.name_key as of this revision (copied: a migration must not change with the app)."""
    shown = unicodedata.normalize("NFKC", name).strip()
    return unicodedata.normalize("NFKC", shown.casefold())


def _keys(rows: list[tuple[int, str]]) -> dict[int, str]:
    """Each user id's key, by increasing id; a later collision gets "<key>#<id>" (and a warning)."""
    keys: dict[int, str] = {}
    owners: dict[str, tuple[int, str]] = {}
    for user_id, name in sorted(rows):
        key = _name_key(name)
        if key in owners:
            owner_id, owner_name = owners[key]
            keys[user_id] = f"{key}#{user_id}"
            print(
                f"warning: user {name!r} (id {user_id}) has the same name as {owner_name!r} (id {owner_id}) "
                f"once case and width are ignored; it keeps its name and signs in with exactly {name!r}",
                file=sys.stderr,
            )
        else:
            owners[key] = (user_id, name)
            keys[user_id] = key
    return keys


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "user_session",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["user.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("user_session", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_user_session_token_hash"), ["token_hash"], unique=True)
        batch_op.create_index(batch_op.f("ix_user_session_user_id"), ["user_id"], unique=False)

    # The column starts nullable, is filled, then becomes NOT NULL with its unique index.
    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.add_column(sa.Column("name_key", sa.String(length=80), nullable=True))
    user = sa.table("user", sa.column("id", sa.Integer), sa.column("name", sa.String), sa.column("name_key", sa.String))
    connection = op.get_bind()
    rows = [(row.id, row.name) for row in connection.execute(sa.select(user.c.id, user.c.name))]
    for user_id, key in _keys(rows).items():
        connection.execute(user.update().where(user.c.id == user_id).values(name_key=key))
    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.alter_column("name_key", existing_type=sa.String(length=80), nullable=False)
        batch_op.create_index(batch_op.f("ix_user_name_key"), ["name_key"], unique=True)


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("user_session", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_user_session_user_id"))
        batch_op.drop_index(batch_op.f("ix_user_session_token_hash"))

    op.drop_table("user_session")
    with op.batch_alter_table("user", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_user_name_key"))
        batch_op.drop_column("name_key")
