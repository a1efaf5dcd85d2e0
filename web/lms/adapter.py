"""The one module that imports pylti1p3 (the maintained fork ``pylti1p3next``): everything else
calls the functions here, so the library can change without touching the pages.

- :class:`DatabaseToolConf` — pylti1p3's tool configuration read from our tables: the platform of
  an ``(issuer, client_id)``, its deployments, and our newest signing key.
- :class:`DatabaseLaunchStorage` — pylti1p3's launch-data storage in ``lti_launch_value`` rows, so
  that every process of the site sees the same nonces; reading a nonce *consumes* it (a delete
  that only one request can win), so a nonce is accepted once.
- :func:`login_redirect`, :func:`validate_launch`, :func:`deep_link_response` — the three steps
  the pages take; each failure of the library is raised as :class:`LtiError`, whose ``reason``
  names the kind of failure for the error page (the library's own message goes to the log).

What pylti1p3 checks at a launch: the state (its cookie, set at login), the JWT's form, the nonce
(ours, once), the registration of ``iss`` and ``aud``/``azp`` (a wrong audience finds none), the
signature against the platform's JWKS (fetched from its ``key_set_url``), ``exp`` and ``iat``,
the deployment id, and the claims its message type requires.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any

import requests
from pylti1p3.contrib.flask import (
    FlaskCookieService,
    FlaskMessageLaunch,
    FlaskOIDCLogin,
    FlaskRequest,
    FlaskSessionService,
)
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.deployment import Deployment
from pylti1p3.exception import LtiException, LtiInvalidNonceException, LtiKeyException, OIDCException
from pylti1p3.launch_data_storage.base import LaunchDataStorage
from pylti1p3.lineitem import LineItem
from pylti1p3.registration import Registration
from pylti1p3.tool_config.abstract import ToolConfAbstract
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from web.core.models import as_utc, utcnow
from web.lms.keys import signing_key
from web.lms.models import LtiDeployment, LtiLaunchValue, LtiPlatform
from web.lms.registry import find_platform

log = logging.getLogger("probjudge.lti")

LAUNCH_LIFETIME_S = 2 * 3600  # a nonce, or a deep-linking launch waiting for the picker's answer
FETCH_TIMEOUT_S = 10  # the platform's JWKS: a slow LMS must not hold a worker for ever


class LtiError(Exception):
    """A launch or login that must be refused; ``reason`` is one of :data:`REASONS`."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


# reason → the HTTP status of its page (403: we know who you claim to be and refuse it).
REASONS = {
    "unknown_platform": 400,
    "unknown_deployment": 403,
    "bad_signature": 403,
    "expired": 403,
    "replayed": 403,
    "bad_state": 400,
    "wrong_message": 400,
    "missing_claims": 400,
}


class DatabaseLaunchStorage(LaunchDataStorage[Any]):
    """pylti1p3's launch data in ``lti_launch_value`` rows (shared by every process of the site).

    No session-id prefix (``get_session_cookie_name`` is None): the keys are random (nonces of
    64 hex digits, launch ids of a UUID), and a cookie set inside an LMS's iframe may never come
    back. The state is still bound to the browser by pylti1p3's state cookie.
    """

    def __init__(self, session: Session) -> None:
        super().__init__()
        self._db = session

    def get_session_cookie_name(self) -> None:
        return None

    def can_set_keys_expiration(self) -> bool:
        return True

    def get_value(self, key: str) -> Any:
        row = self._db.get(LtiLaunchValue, self._prepare_key(key))
        if row is None or as_utc(row.expires_at) <= utcnow():
            return None
        return row.value

    def set_value(self, key: str, value: Any, exp: int | None = None) -> None:
        expires = utcnow() + dt.timedelta(seconds=exp or LAUNCH_LIFETIME_S)
        self._db.merge(LtiLaunchValue(key=self._prepare_key(key), value=value, expires_at=expires))
        self._db.commit()  # the next request (the launch) may reach another process

    def check_value(self, key: str) -> bool:
        key = self._prepare_key(key)
        if "-nonce-" not in key:
            return self.get_value(key) is not None
        # A nonce is good once: the delete succeeds for one request only, and is committed at
        # once, so a launch that fails after this point cannot be replayed either.
        gone = self._db.execute(
            delete(LtiLaunchValue).where(LtiLaunchValue.key == key, LtiLaunchValue.expires_at > utcnow())
        )
        self._db.commit()
        return getattr(gone, "rowcount", 0) == 1


def sweep(session: Session) -> int:
    """Delete (not commit) expired launch values; how many."""
    gone = session.execute(delete(LtiLaunchValue).where(LtiLaunchValue.expires_at <= utcnow()))
    return getattr(gone, "rowcount", 0) or 0


class DatabaseToolConf(ToolConfAbstract):
    """Registrations from ``lti_platform``/``lti_deployment``: one issuer may have many client ids."""

    def __init__(self, session: Session) -> None:
        self._db = session

    def check_iss_has_one_client(self, iss: str) -> bool:
        return False

    def check_iss_has_many_clients(self, iss: str) -> bool:
        return True

    def _registration(self, platform: LtiPlatform | None) -> Registration | None:
        if platform is None:
            return None
        key = signing_key(self._db)
        registration = (
            Registration()
            .set_issuer(platform.issuer)
            .set_client_id(platform.client_id)
            .set_auth_login_url(platform.auth_login_url)
            .set_auth_token_url(platform.auth_token_url)
            .set_key_set_url(platform.key_set_url)
            .set_tool_private_key(key.private_pem)
            .set_tool_public_key(_public_pem(key.public_jwk))
        )
        if platform.auth_audience:
            registration.set_auth_audience(platform.auth_audience)
        return registration

    def find_registration_by_issuer(self, iss: str, *args, **kwargs) -> Registration | None:  # type: ignore[override]
        return self._registration(find_platform(self._db, iss, None))

    def find_registration_by_params(self, iss: str, client_id: str, *args, **kwargs) -> Registration | None:  # type: ignore[override]
        return self._registration(find_platform(self._db, iss, client_id or None))

    def find_deployment(self, iss: str, deployment_id: str) -> Deployment | None:
        return self.find_deployment_by_params(iss, deployment_id, None)  # type: ignore[arg-type]

    def find_deployment_by_params(
        self, iss: str, deployment_id: str, client_id: str, *args, **kwargs
    ) -> Deployment | None:
        platform = find_platform(self._db, iss, client_id or None)
        if platform is None or not isinstance(deployment_id, str):
            return None
        row = self._db.scalar(
            select(LtiDeployment).where(
                LtiDeployment.platform_id == platform.id, LtiDeployment.deployment_id == deployment_id
            )
        )
        return None if row is None else Deployment().set_deployment_id(deployment_id)


def _public_pem(public_jwk: dict) -> str:
    from jwcrypto.jwk import JWK

    return JWK(**public_jwk).export_to_pem().decode()


class _TimedSession(requests.Session):
    """requests with a timeout on every call (pylti1p3 fetches the platform's JWKS without one)."""

    def request(self, *args, **kwargs):
        kwargs.setdefault("timeout", FETCH_TIMEOUT_S)
        return super().request(*args, **kwargs)


def _services(session: Session):
    request = FlaskRequest()
    storage = DatabaseLaunchStorage(session)
    return request, DatabaseToolConf(session), storage


def _reason(error: Exception) -> str:
    """Which kind of failure pylti1p3's exception is (its messages are the only sign)."""
    message = str(error).lower()
    if isinstance(error, LtiInvalidNonceException):
        return "replayed"
    if isinstance(error, LtiKeyException) or "signature verification" in message or "can't decode" in message:
        return "expired" if "expired" in message else "bad_signature"
    if "expired" in message or "iat" in message or "not yet valid" in message:
        return "expired"
    if "deployment" in message:
        return "unknown_deployment"
    if "registration" in message or "client id" in message or "issuer" in message:
        return "unknown_platform"
    if "state" in message:
        return "bad_state"
    if "message type" in message or "validation failed" in message:
        return "wrong_message"
    return "missing_claims"


class _Login(FlaskOIDCLogin):
    cookie_check_template_name = "lti/cookie_check.html"  # ours: its script is a file (our CSP)


def login_redirect(session: Session, launch_url: str, texts: tuple[str, str, str]):
    """The answer to an OIDC login initiation: the cookies-allowed check page on a first
    request, then (``lti1p3_new_window`` set) a redirect to the platform's authorization URL
    with a fresh state (also set as a cookie) and nonce (a row). ``texts``: the check page's
    (blocked, open in a new window, loading). Raises :class:`LtiError`."""
    request, conf, storage = _services(session)
    login = _Login(request, conf, launch_data_storage=storage)
    blocked, open_new, loading = texts
    try:
        # The registration is checked before the check page, so an unknown LMS is refused at once.
        login.validate_oidc_login()
        login.enable_check_cookies(main_msg=blocked, click_msg=open_new, loading_msg=loading)
        login.set_launch_data_storage(storage)  # pylti1p3 applies it only later, after the lifetime
        return login.set_launch_data_lifetime(LAUNCH_LIFETIME_S).redirect(launch_url)
    except (OIDCException, LtiException) as error:
        log.warning("LTI login refused: %s", error)
        raise LtiError("unknown_platform", str(error)) from error


@dataclass(frozen=True)
class Launch:
    """A validated launch: its claims (the id_token's body) and the id it is kept under."""

    launch_id: str
    claims: dict[str, Any]

    @property
    def message_type(self) -> str:
        return str(self.claims.get("https://purl.imsglobal.org/spec/lti/claim/message_type", ""))

    @property
    def client_id(self) -> str:
        aud = self.claims.get("aud")
        return str(self.claims.get("azp") or (aud[0] if isinstance(aud, list) else aud))


def validate_launch(session: Session) -> Launch:
    """Validate the POSTed ``id_token`` and ``state`` (see the module docstring). Raises
    :class:`LtiError` with the kind of failure; the library's message is logged."""
    request, conf, storage = _services(session)
    message = FlaskMessageLaunch(
        request,
        conf,
        launch_data_storage=storage,
        requests_session=_TimedSession(),
        cookie_service=FlaskCookieService(request),
    )
    try:
        message.set_launch_data_lifetime(LAUNCH_LIFETIME_S).validate()
        claims = dict(message.get_launch_data())
    except (LtiException, OIDCException) as error:
        reason = _reason(error)
        log.warning("LTI launch refused (%s): %s", reason, error)
        raise LtiError(reason, str(error)) from error
    except (ValueError, TypeError, KeyError, AttributeError) as error:  # a body of the wrong shape
        log.warning("LTI launch refused (malformed): %r", error)
        raise LtiError("missing_claims", repr(error)) from error
    return Launch(message.get_launch_id(), claims)


@dataclass(frozen=True)
class LinkItem:
    """One item of a deep-linking answer: a resource link to ``url`` with ``custom`` parameters,
    and a gradebook column of ``score_maximum`` points (None: no column)."""

    title: str
    url: str
    custom: dict[str, str]
    score_maximum: float | None = None
    resource_id: str | None = None


def deep_link_response(session: Session, launch_id: str, items: list[LinkItem]) -> tuple[str, str]:
    """The signed ``LtiDeepLinkingResponse`` for the kept deep-linking launch ``launch_id``:
    (the platform's return URL, the JWT to POST there as ``JWT``). Raises :class:`LtiError`
    when the launch is unknown or expired."""
    request, conf, storage = _services(session)
    try:
        message = FlaskMessageLaunch.from_cache(
            launch_id,
            request,
            conf,
            launch_data_storage=storage,
            session_service=FlaskSessionService(request),
            cookie_service=FlaskCookieService(request),
        )
        link = message.get_deep_link()
    except (LtiException, OIDCException) as error:
        log.warning("LTI deep-linking answer refused: %s", error)
        raise LtiError("bad_state", str(error)) from error
    resources = []
    for item in items:
        resource = DeepLinkResource().set_url(item.url).set_title(item.title).set_custom_params(item.custom)
        if item.score_maximum is not None:
            line = LineItem().set_score_maximum(item.score_maximum).set_label(item.title)
            if item.resource_id:
                line.set_resource_id(item.resource_id)
            resource.set_lineitem(line)
        resources.append(resource)
    settings = message.get_launch_data().get("https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings", {})
    return str(settings.get("deep_link_return_url", "")), link.get_response_jwt(resources)
