"""The Flask extensions, made once here and bound to each app in :func:`web.app.create_app`.

- Flask-Login keeps the signed-in session's token in the (signed, HttpOnly) session cookie;
  the token names a server-side :class:`~web.core.models.UserSession` row (see :mod:`web.accounts.auth`).
- Flask-WTF's CSRFProtect checks a token on every form POST; the JSON API is exempt because
  it authenticates with bearer tokens, which a browser never sends on its own.
- Flask-Limiter limits signing in, signing up, submitting, joining a course by its code, creating
  API tokens and diffing attempts (memory storage by default; a deployment with several processes
  points ``PROBJUDGE_RATELIMIT_STORAGE`` at Redis). docs/security.md lists every limit.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from flask import g, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_login import LoginManager, current_user
from flask_wtf import CSRFProtect

from web.core.names import name_key

P = ParamSpec("P")
R = TypeVar("R")

login_manager = LoginManager()
csrf = CSRFProtect()
limiter = Limiter(key_func=get_remote_address)

# A class often shares one address (a school's NAT), so the tight sign-in limit is per account
# name and address (password guessing), and the per-address limits leave room for a whole class.
SIGN_IN_LIMIT = "10 per minute; 60 per hour"  # per (address, account name)
SIGN_IN_ADDRESS_LIMIT = "120 per minute"  # per address
SIGN_UP_LIMIT = "60 per hour"  # per address
SUBMIT_LIMIT = "20 per minute; 300 per hour"  # per account
SUBMIT_LIMIT_MESSAGE = "too many submissions: at most 20 a minute and 300 an hour; wait a little"
# A join code is a secret worth guessing, so wrong codes are counted per account and per address
# (a right one is not: a learner joining many courses never waits); past the limit every try,
# right or wrong, is refused until the window passes.
JOIN_LIMIT = "10 per minute; 30 per hour"  # wrong codes, per account
JOIN_ADDRESS_LIMIT = "60 per minute; 300 per hour"  # wrong codes, per address (a class behind one NAT)
JOIN_LIMIT_MESSAGE = "too many wrong join codes: at most 10 a minute and 30 an hour; wait, then try again"
TOKEN_LIMIT = "10 per hour; 30 per day"  # API tokens created, per account
DIFF_LIMIT = "60 per minute; 600 per hour"  # diff pages, per account (each is bounded work, see web.teaching.diffing)


def refused_attempt(response) -> bool:
    """Whether a response refused what was asked (what a guessing limit counts)."""
    return response.status_code >= 400


def sign_in_key() -> str:
    """The address and the account name being tried, by its key ("Ann" and "ａｎｎ" are one account)."""
    name = name_key((request.form.get("name") or "")[:256])[:64]
    return f"{get_remote_address()}|{name}"


def account_key() -> str:
    """The signed-in account (not the session: signing in again must not reset a limit)."""
    return f"user:{current_user.id}"


def join_code_limits(view: Callable[P, R]) -> Callable[P, R]:
    """Limit wrong join codes on ``view`` per account and per address, one count shared by the
    page and the API (guessing through both doubles nothing)."""
    view = limiter.shared_limit(
        JOIN_ADDRESS_LIMIT, scope="join-code-address", deduct_when=refused_attempt, error_message=JOIN_LIMIT_MESSAGE
    )(view)
    return limiter.shared_limit(
        JOIN_LIMIT,
        scope="join-code",
        key_func=signed_in_key,
        deduct_when=refused_attempt,
        error_message=JOIN_LIMIT_MESSAGE,
    )(view)


def signed_in_key() -> str:
    """The account signed in by cookie or by bearer token (``g.user``, set by ``token_required``)."""
    user = current_user if current_user.is_authenticated else g.get("user")
    return f"user:{user.id}" if user is not None else "address:" + get_remote_address()


def submitter_key() -> str:
    """Rate-limit submissions per account: the signed-in user, else the owner of the bearer token
    (every token of one account shares its count), else the address (a request that is refused
    as unauthenticated anyway)."""
    if current_user.is_authenticated:
        return account_key()
    header = request.headers.get("Authorization", "")
    if header.lower().startswith("bearer "):
        from web.core.models import ApiToken  # here: web.core.models is not needed to build the app's extensions

        owner = ApiToken.find_user(g.db, header[7:].strip())
        if owner is not None:
            return f"user:{owner.id}"
        return "token:" + hashlib.sha256(header[7:].strip().encode()).hexdigest()
    return "address:" + get_remote_address()


def submit_limits(view: Callable[P, R]) -> Callable[P, R]:
    """Limit submissions on ``view`` per account, one count shared by the page and the API (and
    by every token of the account), so that neither a second door nor a second token adds any."""
    return limiter.shared_limit(
        SUBMIT_LIMIT, scope="submit", key_func=submitter_key, error_message=SUBMIT_LIMIT_MESSAGE
    )(view)
