"""A live site on loopback and a headless Debian chromium driven by Python playwright.

Chromium comes from Debian (``make test`` installs it when it runs as root); the tests never
run ``playwright install``. Without chromium they are skipped, unless
``PROBJUDGE_REQUIRE_BROWSER=1`` (set by ``.ci/run``) makes that a failure.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_support import CHROMIUM, CHROMIUM_ARGS, ServedSite, unavailable
from werkzeug.serving import make_server

from judge.engine.process import LocalLauncher
from web.app import create_app
from web.core.config import Settings
from web.serve import missing_assets
from web.services import services


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).is_file():
        unavailable(f"no chromium at {CHROMIUM} (install Debian's chromium package)")
    if missing_assets():
        unavailable(f"the browser assets are not built ({', '.join(missing_assets())}): run `make assets`")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


# The browser tests stay on SQLite (sqlite_database, tests/conftest.py), whether or not PostgreSQL
# is set: each drives a page in chromium for seconds, and the database code behind those pages
# runs on both backends under tests/web/, so a PostgreSQL run here would add minutes and no check.
@pytest.fixture
def served_site(sqlite_database) -> Iterator[ServedSite]:
    """The site served on 127.0.0.1 (a free port) by a thread."""
    settings = Settings(database_url=sqlite_database(), secret_key="browser-tests", workers=1,
                        sandbox="local")
    app = create_app(settings, launcher=LocalLauncher())
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield ServedSite(url=f"http://127.0.0.1:{server.server_port}", app=app)
    server.shutdown()
    services(app).queue.stop()


@pytest.fixture
def live_site(served_site: ServedSite) -> str:
    """The served site's base URL."""
    return served_site.url


@pytest.fixture
def page(browser, live_site, request):
    """A fresh browser profile on the live site, recording every request and every console error.

    Tests marked ``audit`` get a profile that may inject the accessibility checker (bypass_csp).
    """
    audit = request.node.get_closest_marker("audit") is not None
    context = browser.new_context(base_url=live_site, viewport={"width": 1400, "height": 1000}, bypass_csp=audit)
    page = context.new_page()
    page.requests = []
    page.console_errors = []
    page.on("request", lambda request: page.requests.append(request.url))
    page.on("console", lambda message: message.type == "error" and page.console_errors.append(message.text))
    page.on("pageerror", lambda error: page.console_errors.append(str(error)))
    page.set_default_timeout(30_000)
    yield page
    context.close()
