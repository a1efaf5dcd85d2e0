"""Calls from the tool to a platform's LTI Advantage services, with OAuth2 access tokens.

The tool asks the platform's token URL (``LtiPlatform.auth_token_url``) for a bearer token with
the ``client_credentials`` grant and a JWT client assertion (IMS Security Framework 4.1) signed
by the tool's newest unretired key (``LtiToolKey``, its ``kid`` in the header). Tokens are cached
per (platform, scopes) in this process until a minute before they expire; a 401 from a service
drops the cached token and tries once more with a new one.

Contracts:

- every failure (network, timeout, an HTTP error status, a body that is not the JSON expected)
  raises :class:`ServiceError`, whose message says what and where, and never holds a token;
- a request never waits more than :data:`TIMEOUT_S` for a platform;
- :func:`next_page` follows a ``Link: <...>; rel="next"`` only to the same scheme, host and port
  as the page it came from, and a line item the platform names is used only on the host of its
  line items URL (:func:`same_origin`): a platform's answer cannot send our bearer token to
  another host.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import jwt
import requests
from sqlalchemy import select
from sqlalchemy.orm import Session

from web.lms.models import LtiPlatform, LtiToolKey

TIMEOUT_S = 10.0
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
ASSERTION_LIFETIME_S = 300
EXPIRY_MARGIN_S = 60.0  # a token this close to its end is not used: a request may take that long
SCOPE_NRPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
SCOPE_LINEITEM = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCOPE_SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"


class ServiceError(RuntimeError):
    """A platform's service could not be used; ``status`` is the HTTP status when there was one."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Platform:
    """What a service call needs of an :class:`LtiPlatform` row, detached from any session."""

    id: int
    issuer: str
    client_id: str
    token_url: str
    audience: str

    @classmethod
    def of(cls, row: LtiPlatform) -> Platform:
        return cls(row.id, row.issuer, row.client_id, row.auth_token_url, row.auth_audience or row.auth_token_url)


@dataclass(frozen=True)
class SigningKey:
    kid: str
    private_pem: str


def signing_key(session: Session) -> SigningKey:
    """The tool's newest unretired key; :class:`ServiceError` when there is none."""
    row = session.scalar(
        select(LtiToolKey)
        .where(LtiToolKey.retired_at.is_(None))
        .order_by(LtiToolKey.created_at.desc(), LtiToolKey.id.desc())
    )
    if row is None:
        raise ServiceError("the tool has no signing key: create one (the LTI registration page) first")
    return SigningKey(row.kid, row.private_pem)


def client_assertion(platform: Platform, key: SigningKey, now: float | None = None) -> str:
    """The signed JWT the tool authenticates with at ``platform``'s token URL."""
    issued = int(time.time() if now is None else now)
    claims = {
        "iss": platform.client_id,
        "sub": platform.client_id,
        "aud": platform.audience,
        "iat": issued,
        "exp": issued + ASSERTION_LIFETIME_S,
        "jti": uuid.uuid4().hex,  # a platform may refuse an assertion it saw before
    }
    return jwt.encode(claims, key.private_pem, algorithm="RS256", headers={"kid": key.kid})


@dataclass
class _Token:
    value: str
    expires_at: float


class ServiceClient:
    """HTTP calls to platforms with cached access tokens (one per process is enough; thread-safe).

    ``key_source`` gives the signing key when a new token is needed (a function of nothing, so
    the client holds no database session); ``http`` is a ``requests.Session``-like object.
    """

    def __init__(self, key_source: Callable[[], SigningKey], http: requests.Session | None = None) -> None:
        self._key_source = key_source
        self._http = http or requests.Session()
        self._tokens: dict[tuple[int, str], _Token] = {}
        self._lock = threading.Lock()
        self.tokens_fetched = 0  # how many times a token was asked for (tests and logs read it)

    def token(self, platform: Platform, scopes: tuple[str, ...]) -> str:
        """A bearer token for ``scopes`` at ``platform``, from the cache while it is valid."""
        cache_key = (platform.id, " ".join(sorted(scopes)))
        with self._lock:
            cached = self._tokens.get(cache_key)
            if cached is not None and cached.expires_at - EXPIRY_MARGIN_S > time.time():
                return cached.value
        form = {
            "grant_type": "client_credentials",
            "client_assertion_type": ASSERTION_TYPE,
            "client_assertion": client_assertion(platform, self._key_source()),
            "scope": " ".join(sorted(scopes)),
        }
        try:
            response = self._http.post(platform.token_url, data=form, timeout=TIMEOUT_S)
        except requests.RequestException as error:
            raise ServiceError(f"token request to {platform.token_url} failed: {type(error).__name__}") from None
        if response.status_code != 200:
            raise ServiceError(
                f"the platform's token URL answered {response.status_code}: {response.text[:200]}", response.status_code
            )
        body = _json(response, platform.token_url)
        value, lifetime = body.get("access_token"), body.get("expires_in", 3600)
        if not isinstance(value, str) or not value or not isinstance(lifetime, int | float):
            raise ServiceError(f"the platform's token URL gave no access_token: keys {sorted(body)[:10]}")
        self.tokens_fetched += 1
        with self._lock:
            self._tokens[cache_key] = _Token(value, time.time() + float(lifetime))
        return value

    def forget(self, platform: Platform) -> None:
        """Drop ``platform``'s cached tokens (after a 401: revoked, or the platform restarted)."""
        with self._lock:
            for cache_key in [k for k in self._tokens if k[0] == platform.id]:
                del self._tokens[cache_key]

    def request(
        self,
        method: str,
        url: str,
        platform: Platform,
        scopes: tuple[str, ...],
        *,
        accept: str,
        body: Mapping[str, Any] | None = None,
        content_type: str | None = None,
        params: Mapping[str, str] | None = None,
    ) -> requests.Response:
        """``method`` ``url`` with a bearer token; the response if its status is 2xx, else
        :class:`ServiceError` (with the status). A 401 gets one retry with a fresh token."""
        for attempt in (1, 2):
            headers = {"Authorization": f"Bearer {self.token(platform, scopes)}", "Accept": accept}
            if content_type is not None:
                headers["Content-Type"] = content_type
            try:
                response = self._http.request(
                    method, url, headers=headers, json=body, params=params, timeout=TIMEOUT_S, allow_redirects=False
                )
            except requests.RequestException as error:
                raise ServiceError(f"{method} {url} failed: {type(error).__name__}") from None
            if response.status_code == 401 and attempt == 1:
                self.forget(platform)
                continue
            if not 200 <= response.status_code < 300:
                raise ServiceError(
                    f"{method} {url} answered {response.status_code}: {response.text[:200]}", response.status_code
                )
            return response
        raise AssertionError("unreachable")  # the loop returns or raises


def _json(response: requests.Response, where: str) -> dict:
    try:
        body = response.json()
    except ValueError:
        raise ServiceError(f"{where} did not answer JSON") from None
    if not isinstance(body, dict):
        raise ServiceError(f"{where} answered JSON that is not an object")
    return body


def json_object(response: requests.Response) -> dict:
    """The response's JSON object, or :class:`ServiceError`."""
    return _json(response, response.url or "the platform")


def json_list(response: requests.Response) -> list:
    """The response's JSON array, or :class:`ServiceError`."""
    try:
        body = response.json()
    except ValueError:
        raise ServiceError(f"{response.url} did not answer JSON") from None
    if not isinstance(body, list):
        raise ServiceError(f"{response.url} answered JSON that is not a list")
    return body


def same_origin(url: str, reference: str) -> bool:
    """Whether ``url`` has the scheme, host and port of ``reference``."""
    here, there = urlsplit(reference), urlsplit(url)
    return (there.scheme, there.netloc) == (here.scheme, here.netloc)


def next_page(response: requests.Response, current: str) -> str | None:
    """The ``rel="next"`` link of ``response``, if it is on the same origin as ``current``;
    :class:`ServiceError` for a next link to another origin (it would get our token)."""
    link = response.links.get("next", {}).get("url")
    if not link:
        return None
    if not same_origin(link, current):
        raise ServiceError(f"the platform's next page is on another host ({urlsplit(link).netloc[:100]}): not followed")
    return link


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)
