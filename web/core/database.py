"""Engine, sessions and schema migrations (Alembic) for the site's database.

The schema is created and changed only by the migrations in ``web/migrations/``, never by
``create_all``: :func:`upgrade` brings any database (a fresh SQLite file included) to the
newest revision. SQLite runs in WAL mode, so pages keep reading while a worker writes.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

MIGRATIONS = Path(__file__).resolve().parents[1] / "migrations"


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite files get their folder created and WAL + foreign keys turned on."""
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, future=True)
    if engine.dialect.name == "sqlite":

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(connection, _record) -> None:
            cursor = connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=5000")
            cursor.close()

    return engine


def alembic_config(url: str):
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str) -> None:
    """Apply every migration that ``url``'s database lacks."""
    from alembic import command

    command.upgrade(alembic_config(url), "head")


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)
