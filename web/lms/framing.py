"""Living inside an LMS's iframe: the session cookie and the framing headers of LTI sessions.

A session begun by an LTI launch is marked (``session[LTI_ORIGINS]``: the LMS origins that may
frame us). For such a session only:

- the session cookie is ``SameSite=None; Secure`` (:class:`LtiSessionInterface`): inside the
  LMS's page we are a third party, and a ``Lax`` cookie would never come back from the iframe;
- pages may be framed by those origins (:func:`frame_ancestors`), not by anyone else.

Every other session keeps ``SameSite=Lax`` and ``frame-ancestors 'none'``: signing in on the site
itself clears the session (:func:`web.accounts.auth.start_session`), so the mark goes with it and
normal sign-in is not weakened.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import g, has_request_context, session
from flask.sessions import SecureCookieSessionInterface

LTI_ORIGINS = "lti_origins"


def origin(url: object) -> str | None:
    """The ``https://host[:port]`` origin of ``url``; None for anything else (no http, no paths)."""
    if not isinstance(url, str):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme != "https" or not parts.netloc or any(c in parts.netloc for c in " '\";,"):
        return None
    return f"https://{parts.netloc}"


def _lti_session() -> bool:
    return has_request_context() and bool(session.get(LTI_ORIGINS))


class LtiSessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie sessions, with ``SameSite=None; Secure`` for LTI sessions."""

    def get_cookie_samesite(self, app) -> str | None:
        return "None" if _lti_session() else super().get_cookie_samesite(app)

    def get_cookie_secure(self, app) -> bool:
        return True if _lti_session() else super().get_cookie_secure(app)


ANY_HTTPS = "https:"


def allow_any_lms_frame() -> None:
    """Let any https page frame this response: the login's cookie check and the launch's error
    pages come before we know which LMS page holds the frame, and show nothing worth a click."""
    g.lti_frames = [ANY_HTTPS]


def frame_ancestors() -> list[str]:
    """The origins that may frame this response (empty: none may)."""
    if not has_request_context():
        return []
    if g.get("lti_frames"):
        return list(g.lti_frames)
    origins = session.get(LTI_ORIGINS)
    return [o for o in origins if origin(o) == o] if isinstance(origins, list) else []
