"""A site on a fresh database with one grading worker (local launcher: the sandbox has its own
tests), and the course world of tests/web/world.py on such a site.

The database comes from the ``databases`` fixture (tests/conftest.py): every test that builds a
site runs on SQLite and, when PROBJUDGE_TEST_POSTGRESQL_URL is set, on PostgreSQL too.
"""

from __future__ import annotations

import pytest

from judge.engine.process import LocalLauncher
from tests.web.site_client import stop_site
from tests.web.world import World, build_world
from web.app import create_app
from web.core.config import Settings


@pytest.fixture
def make_site(databases):
    """``make_site(**settings)`` → a Flask app on a fresh migrated database (its own, unless
    ``database_url`` is given); its workers are stopped and its engine closed after the test."""
    apps = []

    def build(start_workers: bool = True, **overrides):
        fields = dict(secret_key="test", workers=1, sandbox="local", max_code_bytes=64 * 1024)
        fields.update(overrides)
        if "database_url" not in fields:
            fields["database_url"] = databases.new()
        app = create_app(Settings(**fields), launcher=LocalLauncher(), start_workers=start_workers)
        apps.append(app)
        return app

    yield build
    for app in apps:
        stop_site(app)


@pytest.fixture
def world(make_site) -> World:
    """The course world (tests/web/world.py) with its attempts, on a site without grading workers."""
    return build_world(make_site(start_workers=False))
