"""gradings as their own records

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 21:10:00.000000

A submission held its code *and* its one result, so a rejudge could only overwrite it. Now a
``grading`` row is one judging of a submission (status, priority, seed, verdict, score,
diagnosis, report, lease), and ``submission.current_grading_id`` names the newest finished one.

Every existing submission becomes one grading with the same id, carrying its result columns;
a finished one is its submission's current grading. A grading left ``running`` by the old
queue goes back to ``queued`` (no lease was recorded; its attempts are kept, so the bound on
interrupted gradings still holds). Nothing is lost in either direction: the downgrade copies
each submission's current grading (else its newest) back into the submission's columns.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

RESULT_COLUMNS = (
    "seed",
    "verdict",
    "score_passed",
    "score_total",
    "judge_version",
    "exercise_hash",
    "report_json",
    "attempts",
    "started_at",
    "finished_at",
)
STATUS = sa.Enum("queued", "running", "done", name="status", native_enum=False, length=16)
VERDICT = sa.Enum("AC", "WA", "TLE", "MLE", "RE", "CE", "IE", "SK", name="verdict", native_enum=False, length=8)


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        "grading",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("status", STATUS, nullable=False),
        sa.Column("priority", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=True),
        sa.Column("verdict", VERDICT, nullable=True),
        sa.Column("score_passed", sa.Integer(), nullable=True),
        sa.Column("score_total", sa.Integer(), nullable=True),
        sa.Column("diagnosis", sa.Text(), nullable=True),
        sa.Column("judge_version", sa.String(length=32), nullable=True),
        sa.Column("exercise_hash", sa.String(length=64), nullable=True),
        sa.Column("report_json", sa.JSON(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("worker", sa.String(length=128), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["submission_id"],
            ["submission.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("grading", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_grading_submission_id"), ["submission_id"], unique=False)
        batch_op.create_index("ix_grading_queue", ["status", "priority", "id"], unique=False)
    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.add_column(sa.Column("current_grading_id", sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f("ix_submission_current_grading_id"), ["current_grading_id"], unique=False)

    connection = op.get_bind()
    old = sa.table(
        "submission",
        sa.column("id"),
        sa.column("status"),
        sa.column("created_at"),
        sa.column("current_grading_id"),
        sa.column("report_json", sa.JSON()),
        *(sa.column(name) for name in RESULT_COLUMNS if name != "report_json"),
    )
    grading = sa.table(
        "grading",
        *(
            sa.column(name)
            for name in ("id", "submission_id", "status", "priority", "diagnosis", "created_at", *RESULT_COLUMNS)
        ),
    )
    grading.c.report_json.type = sa.JSON()
    rows = connection.execute(sa.select(old)).mappings().all()
    for row in rows:
        report = row["report_json"] or {}
        status = "queued" if row["status"] == "running" else row["status"]
        values = {name: row[name] for name in RESULT_COLUMNS}
        if row["status"] == "running":
            values["started_at"] = None
        connection.execute(
            grading.insert().values(
                id=row["id"],
                submission_id=row["id"],
                status=status,
                priority=0,
                diagnosis=report.get("diagnosis") if isinstance(report, dict) else None,
                created_at=row["created_at"],
                **values,
            )
        )
        if status == "done":
            connection.execute(old.update().where(old.c.id == row["id"]).values(current_grading_id=row["id"]))

    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_submission_status"))
        batch_op.drop_column("status")
        for name in RESULT_COLUMNS:
            batch_op.drop_column(name)


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.add_column(sa.Column("status", STATUS, nullable=False, server_default="queued"))
        batch_op.add_column(sa.Column("verdict", sa.String(length=8), nullable=True))
        batch_op.add_column(sa.Column("score_passed", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("score_total", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("seed", sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column("judge_version", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("exercise_hash", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("report_json", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("started_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index(batch_op.f("ix_submission_status"), ["status"], unique=False)

    connection = op.get_bind()
    submission = sa.table(
        "submission",
        sa.column("id"),
        sa.column("status"),
        sa.column("current_grading_id"),
        *(sa.column(name) for name in RESULT_COLUMNS),
    )
    submission.c.report_json.type = sa.JSON()
    grading = sa.table(
        "grading",
        sa.column("id"),
        sa.column("submission_id"),
        sa.column("status"),
        *(sa.column(name) for name in RESULT_COLUMNS),
    )
    grading.c.report_json.type = sa.JSON()
    for current_id, submission_id in connection.execute(sa.select(submission.c.current_grading_id, submission.c.id)):
        if current_id is None:
            current_id = connection.scalar(
                sa.select(sa.func.max(grading.c.id)).where(grading.c.submission_id == submission_id)
            )
        if current_id is None:
            continue
        row = connection.execute(sa.select(grading).where(grading.c.id == current_id)).mappings().one()
        connection.execute(
            submission.update()
            .where(submission.c.id == submission_id)
            .values(status=row["status"], **{name: row[name] for name in RESULT_COLUMNS})
        )

    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_submission_current_grading_id"))
        batch_op.drop_column("current_grading_id")
    with op.batch_alter_table("grading", schema=None) as batch_op:
        batch_op.drop_index("ix_grading_queue")
        batch_op.drop_index(batch_op.f("ix_grading_submission_id"))
    op.drop_table("grading")
