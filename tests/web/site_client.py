"""Helpers for driving the pages through Flask's test client (CSRF tokens included)."""

from __future__ import annotations

import re
import threading
import time
from html import unescape

from flask.testing import FlaskClient

from web.services import services

_CSRF = re.compile(r'name="csrf_token" type="hidden" value="([^"]+)"|name="csrf_token" value="([^"]+)"')


def csrf_token(client: FlaskClient, url: str) -> str:
    """The CSRF token of the first form on the page at ``url``."""
    html = client.get(url).get_data(as_text=True)
    match = _CSRF.search(html)
    assert match, f"no CSRF token in {url}"
    return match.group(1) or match.group(2)


def sign_up(client: FlaskClient, name: str, password: str = "password123", language: str = "en",
            next_url: str = ""):
    token = csrf_token(client, "/auth/sign-up")
    return client.post("/auth/sign-up", query_string={"next": next_url} if next_url else None,
                       data={"csrf_token": token, "name": name, "password": password, "confirm": password,
                             "language": language})


def sign_in(client: FlaskClient, name: str, password: str = "password123", next_url: str = ""):
    token = csrf_token(client, "/auth/sign-in")
    url = "/auth/sign-in" + (f"?next={next_url}" if next_url else "")
    return client.post(url, data={"csrf_token": token, "name": name, "password": password})


def submit(client: FlaskClient, code: str, exercise: str = "39"):
    token = csrf_token(client, f"/exercises/{exercise}")
    return client.post(f"/exercises/{exercise}/submit", data={"csrf_token": token, "code": code})


def wait_for_result(client: FlaskClient, submission_url: str, timeout: float = 120.0) -> str:
    """Follow the result region as the page does (its poll URL, which waits on the server for the
    verdict); return its HTML once the verdict is in."""
    deadline = time.monotonic() + timeout
    html = client.get(submission_url + "/result").get_data(as_text=True)
    while time.monotonic() < deadline:
        if 'data-status="done"' in html:
            assert "data-poll-url" not in html  # the page stops polling
            return html
        poll = re.search(r'data-poll-url="([^"]+)"', html)
        assert poll is not None and "wait=" in poll.group(1), html[:300]
        html = client.get(unescape(poll.group(1))).get_data(as_text=True)
    raise AssertionError(f"{submission_url} got no verdict in {timeout} s")


def rules(app, *, api: bool | None = None, method: str | None = None) -> list:
    """The app's URL rules (not /static/), optionally only the API's (or only the pages') and one method's."""
    found = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static" or (method and method not in rule.methods):
            continue
        if api is None or rule.rule.startswith("/api/") == api:
            found.append(rule)
    return sorted(found, key=lambda r: r.rule)


def build_url(rule, default=None, **values) -> str:
    """``rule`` with each ``<converter:name>`` replaced by ``values[name]``, as given (not checked);
    a name missing from ``values`` takes ``default`` (a KeyError when that is None)."""
    def value(match) -> str:
        name = match.group(1)
        if name not in values and default is None:
            raise KeyError(name)
        return str(values.get(name, default))

    return re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", value, rule.rule)


def signed_in(app, name: str) -> FlaskClient:
    """A test client of ``app`` signed in as ``name`` (password ``password123``)."""
    client = app.test_client()
    assert sign_in(client, name).status_code == 302
    return client


def user_id(app, name: str) -> int:
    """The id of the account named ``name``."""
    from sqlalchemy import select

    from web.core.models import User

    with services(app).sessions() as session:
        found = session.scalar(select(User.id).where(User.name == name))
    assert found is not None, name
    return found


def stop_site(app) -> None:
    """Stop ``app``'s grading workers, then close its database connections (PostgreSQL cannot
    drop a test's database while connections hold it)."""
    services(app).queue.stop()
    stop_passback = app.extensions.get("lti_passback_stop")
    if stop_passback is not None:
        stop_passback.set()  # the LTI score job (web.lms.services_job)
    services(app).engine.dispose()


class HeldWait:
    """While in use, every ``?wait=`` of ``app`` waits until :meth:`release`, whatever the time:
    a test does something *during* a wait (a revoke, a removal) without racing a clock, and
    :attr:`entered` tells it the request is inside its wait.

        with HeldWait(app) as held:
            start the waiting request in a thread; held.entered.wait(); act; held.release(); join
    """

    def __init__(self, app) -> None:
        self.queue = services(app).queue
        self.entered, self._released = threading.Event(), threading.Event()

    def __enter__(self) -> HeldWait:
        def wait_for_verdict(submission_id: int, timeout_s: float) -> bool:
            self.entered.set()
            assert self._released.wait(60), "the test never released the wait"
            return self.queue._has_verdict(submission_id)

        self.queue.wait_for_verdict = wait_for_verdict  # an instance attribute: the class's stays
        return self

    def release(self) -> None:
        self._released.set()

    def __exit__(self, *exc) -> None:
        self.release()
        del self.queue.wait_for_verdict
