"""Accounts: creating, finding and authenticating users, and ending their sign-in sessions.

Shared by the sign-up and sign-in pages, the profile's password change, ``python -m web
create-user``/``set-password`` and ``make run``, so that every path applies the same rules:

- names are unique by :func:`web.core.names.name_key` (case and Unicode width do not matter);
- :func:`authenticate` hashes the password once whether or not the name exists (against a
  dummy hash made like real ones), so its time does not tell which names exist;
- changing a password ends every other sign-in session of the account
  (:func:`change_password`); API tokens are separate credentials and stay valid unless the
  caller also revokes them (:func:`revoke_tokens`: the profile offers it, checked by default);
- an admin can end all of an account's credentials at once (:func:`revoke_credentials`).
"""

from __future__ import annotations

import functools
import re
import secrets
from typing import Any, cast

from sqlalchemy import CursorResult, delete, or_, select
from sqlalchemy.orm import Session
from werkzeug.security import check_password_hash

from web.core.models import ApiToken, Role, User, UserSession, hash_password
from web.core.names import USER_NAME, display_name, name_key
from web.core.validation import text_problem


class AccountError(ValueError):
    """The account cannot be created; the message says why."""


class NameTaken(AccountError):
    """Another account has this name."""


def _new_user(session: Session, name: str, role: Role, language: str) -> User:
    """A user called ``name`` (not added yet); :class:`AccountError` for a bad or taken name."""
    name = display_name(name)
    if not re.fullmatch(USER_NAME, name):
        raise AccountError("a user name is 1-64 letters, digits, '.', '_' or '-'")
    # The key decides; the exact name too, for accounts from before keys whose key is "<key>#<id>".
    taken = select(User.id).where(or_(User.name_key == name_key(name), User.name == name)).limit(1)
    if session.scalar(taken) is not None:
        raise NameTaken(f"a user named {name!r} already exists")
    return User(name=name, role=role, language=language)


def create_user(session: Session, name: str, password: str, role: Role = Role.learner, language: str = "en") -> User:
    """Add (not commit) a user. Raises :class:`AccountError` for a bad or taken name or a short password."""
    user = _new_user(session, name, role, language)
    try:
        user.set_password(password)
    except ValueError as error:
        raise AccountError(str(error)) from None
    session.add(user)
    return user


def sealed_password_hash() -> str:
    """The hash of a random secret that is thrown away: an account holding it has no password
    anyone knows, yet :func:`authenticate` spends on it the time of any real one."""
    return hash_password(secrets.token_urlsafe(32))


def create_sealed_user(session: Session, name: str, sealed_hash: str) -> User:
    """Add (not commit) a learner who signs in only through another system (an LMS's launch):
    ``sealed_hash`` from :func:`sealed_password_hash`, which a batch of such accounts may share
    (one hash costs about 0.1 s; a roster of hundreds would otherwise take a minute). An admin's
    ``set-password`` gives such an account a password of its own. Raises as :func:`create_user`."""
    user = _new_user(session, name, Role.learner, "en")
    user.password_hash = sealed_hash
    session.add(user)
    return user


def find_user(session: Session, name: str) -> User | None:
    """The account called ``name``: the exact (normalized) name first, else the same key.

    The exact name comes first so that accounts whose names collided before keys existed each
    keep signing in with their own name; any other spelling finds the owner of the key.
    """
    if text_problem(name) is not None:
        return None  # such a name cannot exist, and the database may refuse to compare it
    shown = display_name(name)
    exact = session.scalar(select(User).where(User.name == shown))
    return exact or session.scalar(select(User).where(User.name_key == name_key(shown)))


@functools.cache
def dummy_password_hash() -> str:
    """A hash of a random password, made once with the same method as real ones."""
    return hash_password(secrets.token_urlsafe(16))


def authenticate(session: Session, name: str, password: str) -> User | None:
    """The account when ``name`` and ``password`` match, else None (same work either way)."""
    user = find_user(session, name)
    usable = text_problem(password) is None  # a lone surrogate cannot even be hashed
    # An unknown name still costs one hash check, so the answer takes as long as for a known
    # name with a wrong password, and timing does not reveal which names exist.
    stored = user.password_hash if user is not None and usable else dummy_password_hash()
    matches = check_password_hash(stored, password if usable else "")
    return user if matches and usable and user is not None else None


def change_password(session: Session, user: User, password: str, keep: UserSession | None = None) -> int:
    """Set ``user``'s password and end their sign-in sessions except ``keep`` (not committed).

    Returns how many sessions ended. Raises ``ValueError`` for a password that cannot be set.
    """
    user.set_password(password)
    return UserSession.end_all(session, user, keep=keep)


def revoke_tokens(session: Session, user: User) -> int:
    """Delete (not commit) every API token of ``user``: each is refused from the commit on."""
    ended = cast(CursorResult[Any], session.execute(delete(ApiToken).where(ApiToken.user_id == user.id)))
    session.expire(user, ["tokens"])
    return ended.rowcount or 0


def revoke_credentials(session: Session, user: User) -> tuple[int, int]:
    """End everything ``user`` is signed in with: all API tokens and all sign-in sessions
    (not committed); how many of each. Their password still works: they can sign in again."""
    return revoke_tokens(session, user), UserSession.end_all(session, user)


def ensure_admin(session: Session, name: str, password: str | None) -> tuple[User, str | None] | None:
    """On a site without an admin, create one (the site admin: may do everything) and commit;
    return it with its password.

    ``password`` None draws a random one (returned, so it can be printed once). Returns None
    when an admin exists already (nothing changes).
    """
    if session.scalar(select(User).where(User.role == Role.admin).limit(1)) is not None:
        return None
    password = password or secrets.token_urlsafe(12)
    user = create_user(session, name, password, Role.admin)
    session.commit()
    return user, password
