"""PROBJUDGE_TRUSTED_PROXIES: behind a reverse proxy the site believes the proxy's X-Forwarded-*
headers for as many hops as configured, and none without it (a client could forge them)."""

from __future__ import annotations

import pytest
from flask import jsonify, request

from web.core.config import Settings

FORWARDED = {
    "X-Forwarded-For": "203.0.113.7",
    "X-Forwarded-Proto": "https",
    "X-Forwarded-Host": "judge.example.org",
}


def _seen(app):
    """What the site makes of one request from the proxy (a route added for the test)."""
    app.add_url_rule("/_seen", "seen", lambda: jsonify(url=request.url, secure=request.is_secure,
                                                      client=request.remote_addr))
    return app.test_client().get("/_seen", headers=FORWARDED, environ_base={"REMOTE_ADDR": "10.0.0.2"}).json


def test_behind_one_trusted_proxy_the_site_sees_the_clients_https_url_and_address(make_site):
    seen = _seen(make_site(start_workers=False, trusted_proxies=1))
    assert seen == {"url": "https://judge.example.org/_seen", "secure": True, "client": "203.0.113.7"}


def test_without_the_setting_forwarded_headers_are_ignored(make_site):
    seen = _seen(make_site(start_workers=False))
    assert seen["url"].startswith("http://localhost/") and not seen["secure"]
    assert seen["client"] == "10.0.0.2"


@pytest.mark.parametrize("raw", ["-1", "one"])
def test_a_bad_count_is_refused_at_start(raw):
    with pytest.raises(ValueError, match="PROBJUDGE_TRUSTED_PROXIES"):
        Settings.from_environment({"PROBJUDGE_TRUSTED_PROXIES": raw, "SECRET_KEY": "x", "DATABASE_URL": "sqlite://"})
