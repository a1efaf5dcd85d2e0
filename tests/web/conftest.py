"""A site on a fresh SQLite file with one grading worker (local launcher: the sandbox has its own tests)."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest

from judge.process import LocalLauncher
from web.services import services
from web.app import create_app
from web.config import Settings
from web.database import upgrade


@pytest.fixture(scope="session")
def migrated_database(tmp_path_factory):
    """An empty database with every migration applied, which each site starts from a copy of.

    Migrating a fresh file is most of what starting a site costs (about 0.4 s, for each of the
    hundreds of sites the tests start); the site still runs :func:`web.database.upgrade` on its
    copy (a no-op), and ``test_data.py`` and ``test_names.py`` run the migrations themselves.
    """
    path = tmp_path_factory.mktemp("migrated") / "site.db"
    upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture
def database_url(tmp_path, migrated_database):
    """A fresh migrated database's URL (SQLite here)."""
    path = tmp_path / "fresh.db"
    with closing(sqlite3.connect(migrated_database)) as source, closing(sqlite3.connect(path)) as copy:
        source.backup(copy)
    return f"sqlite:///{path}"


@pytest.fixture
def make_site(tmp_path, migrated_database):
    """``make_site(**settings)`` → a Flask app; its workers are stopped after the test."""
    apps = []

    def build(start_workers: bool = True, **overrides):
        path = tmp_path / f"site{len(apps)}.db"
        fields = dict(database_url=f"sqlite:///{path}", secret_key="test", workers=1,
                      sandbox="local", max_code_bytes=64 * 1024)
        fields.update(overrides)
        if fields["database_url"] == f"sqlite:///{path}" and not path.exists():
            # SQLite's backup API: a consistent copy, whatever the source's WAL holds.
            with closing(sqlite3.connect(migrated_database)) as source, closing(sqlite3.connect(path)) as copy:
                source.backup(copy)
        app = create_app(Settings(**fields), launcher=LocalLauncher(), start_workers=start_workers)
        apps.append(app)
        return app

    yield build
    for app in apps:
        services(app).queue.stop()
