"""Registering platforms: what the admin page and ``python -m web lti register`` share.

A platform is one ``(issuer, client_id)``; registering the same pair again adds the deployment
id to it (an LMS gives a new deployment id per install) and updates its URLs, so re-running the
command with a new deployment never makes a second platform.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from sqlalchemy import select
from sqlalchemy.orm import Session

from web.core.validation import text_problem
from web.lms.models import LtiDeployment, LtiPlatform


class RegistrationError(ValueError):
    """The registration cannot be saved; ``field`` names the input at fault."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class PlatformFields:
    """What an admin types in (the LMS's side of the registration)."""

    issuer: str
    client_id: str
    deployment_id: str
    auth_login_url: str
    auth_token_url: str
    key_set_url: str
    name: str = ""
    auth_audience: str | None = None


def _text(value: str | None, field: str, limit: int = 255) -> str:
    value = (value or "").strip()
    if not value:
        raise RegistrationError(f"{field} is required", field)
    if len(value) > limit or text_problem(value) is not None:
        raise RegistrationError(f"{field} is too long or holds characters that cannot be stored", field)
    return value


def _url(value: str | None, field: str) -> str:
    value = _text(value, field, 1024)
    parts = urlsplit(value)
    if parts.scheme not in ("https", "http") or not parts.netloc:
        raise RegistrationError(f"{field} must be an https:// URL", field)
    return value


def register(session: Session, fields: PlatformFields) -> tuple[LtiPlatform, bool]:
    """Add or update (not commit) the platform of ``fields`` and its deployment; the platform and
    whether the deployment is new. Raises :class:`RegistrationError` for a missing or bad field."""
    issuer = _url(fields.issuer, "issuer")
    client_id = _text(fields.client_id, "client_id")
    deployment_id = _text(fields.deployment_id, "deployment_id")
    urls = {name: _url(getattr(fields, name), name) for name in ("auth_login_url", "auth_token_url", "key_set_url")}
    audience = (fields.auth_audience or "").strip() or None
    platform = session.scalar(
        select(LtiPlatform).where(LtiPlatform.issuer == issuer, LtiPlatform.client_id == client_id)
    )
    if platform is None:
        platform = LtiPlatform(issuer=issuer, client_id=client_id, name="", **urls)
        session.add(platform)
    else:
        for name, value in urls.items():
            setattr(platform, name, value)
    platform.name = (fields.name or "").strip()[:200] or urlsplit(issuer).netloc
    platform.auth_audience = audience
    session.flush()
    known = session.scalar(
        select(LtiDeployment).where(
            LtiDeployment.platform_id == platform.id, LtiDeployment.deployment_id == deployment_id
        )
    )
    if known is None:
        session.add(LtiDeployment(platform_id=platform.id, deployment_id=deployment_id))
        session.flush()
    return platform, known is None


def platforms(session: Session) -> list[LtiPlatform]:
    """Every registered platform, oldest first."""
    return list(session.scalars(select(LtiPlatform).order_by(LtiPlatform.id)))


def find_platform(session: Session, issuer: str, client_id: str | None) -> LtiPlatform | None:
    """The platform of ``issuer`` and ``client_id``; with no client id, the issuer's only platform."""
    query = select(LtiPlatform).where(LtiPlatform.issuer == issuer)
    if client_id is not None:
        return session.scalar(query.where(LtiPlatform.client_id == client_id))
    found = list(session.scalars(query.limit(2)))
    return found[0] if len(found) == 1 else None


def tool_urls(base: str) -> dict[str, str]:
    """What to paste into the LMS, for a site served at ``base`` (``https://judge.example.org``)."""
    base = base.rstrip("/")
    return {
        "jwks_url": f"{base}/lti/jwks",
        "login_url": f"{base}/lti/login",
        "launch_url": f"{base}/lti/launch",
        "deep_link_url": f"{base}/lti/launch",
    }
