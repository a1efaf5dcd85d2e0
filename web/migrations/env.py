"""Alembic environment: migrations run against the URL that web.core.database passes in."""

from alembic import context

import web.lms.models  # noqa: F401  (its tables are on Base too: autogenerate must see them)
from web.core.database import make_engine
from web.core.models import Base

# The LMS tables live in web/lms: imported so that they are in Base.metadata.
from web.lms import models as _lms_models  # noqa: F401 - imported for its tables
from web.lms import passback_models as _lms_passback  # noqa: F401 - imported for its tables

config = context.config
target_metadata = Base.metadata


def run_migrations_offline() -> None:
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    url = config.get_main_option("sqlalchemy.url")
    assert url is not None  # web.core.database sets it before running the migrations
    engine = make_engine(url)
    with engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            # Batch mode rebuilds a table by copying it and dropping the old one, which SQLite's
            # foreign keys forbid while other rows point at it (every submission points at its
            # user). Off for the migration (outside any transaction, or SQLite ignores it); the
            # check below proves that no rebuilt table left a dangling reference.
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
            connection.commit()
        # render_as_batch: SQLite cannot ALTER most things; batch mode rebuilds tables instead.
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        if sqlite:
            dangling = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
            connection.exec_driver_sql("PRAGMA foreign_keys=ON")
            connection.commit()
            if dangling:
                raise RuntimeError(f"the migration left rows pointing at nothing: {dangling[:5]}")
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
