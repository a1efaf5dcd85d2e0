"""The Flask extensions, made once here and bound to each app in :func:`web.app.create_app`.

- Flask-Login keeps the signed-in user in the (signed, HttpOnly) session cookie.
- Flask-WTF's CSRFProtect checks a token on every form POST; the JSON API is exempt because
  it authenticates with bearer tokens, which a browser never sends on its own.
- Flask-Limiter limits signing in, signing up and submitting (memory storage by default; a
  deployment with several processes points ``PROBJUDGE_RATELIMIT_STORAGE`` at Redis).
"""

from __future__ import annotations

import hashlib

from flask import request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_login import LoginManager, current_user
from flask_wtf import CSRFProtect

login_manager = LoginManager()
csrf = CSRFProtect()
limiter = Limiter(key_func=get_remote_address)

SIGN_IN_LIMIT = "10 per minute; 60 per hour"
SIGN_UP_LIMIT = "10 per hour"
SUBMIT_LIMIT = "20 per minute; 300 per hour"


def submitter_key() -> str:
    """Rate-limit submissions per account: the signed-in user, else the bearer token, else the address."""
    if current_user.is_authenticated:
        return f"user:{current_user.get_id()}"
    header = request.headers.get("Authorization", "")
    if header.lower().startswith("bearer "):
        return "token:" + hashlib.sha256(header[7:].strip().encode()).hexdigest()
    return "address:" + get_remote_address()
