"""A site on a fresh SQLite file with one grading worker (local launcher: the sandbox has its own tests)."""

from __future__ import annotations

import pytest

from judge.process import LocalLauncher
from web.services import services
from web.app import create_app
from web.config import Settings


@pytest.fixture
def make_site(tmp_path):
    """``make_site(**settings)`` → a Flask app; its workers are stopped after the test."""
    apps = []

    def build(start_workers: bool = True, **overrides):
        fields = dict(database_url=f"sqlite:///{tmp_path / f'site{len(apps)}.db'}", secret_key="test", workers=1,
                      sandbox="local", max_code_bytes=64 * 1024)
        fields.update(overrides)
        app = create_app(Settings(**fields), launcher=LocalLauncher(), start_workers=start_workers)
        apps.append(app)
        return app

    yield build
    for app in apps:
        services(app).queue.stop()
