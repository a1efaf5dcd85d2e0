"""Creating accounts, shared by the sign-up page, ``python -m web create-user`` and ``make run``."""

from __future__ import annotations

import re
import secrets

from sqlalchemy import select
from sqlalchemy.orm import Session

from web.models import Role, User

USER_NAME = r"^[A-Za-z0-9._-]{1,64}$"


class AccountError(ValueError):
    """The account cannot be created; the message says why."""


class NameTaken(AccountError):
    """Another account has this name."""


def create_user(session: Session, name: str, password: str, role: Role = Role.learner,
                language: str = "en") -> User:
    """Add (not commit) a user. Raises :class:`AccountError` for a bad or taken name or a short password."""
    name = name.strip()
    if not re.fullmatch(USER_NAME, name):
        raise AccountError("a user name is 1-64 letters, digits, '.', '_' or '-'")
    if session.scalar(select(User).where(User.name == name)) is not None:
        raise NameTaken(f"a user named {name!r} already exists")
    user = User(name=name, role=role, language=language)
    try:
        user.set_password(password)
    except ValueError as error:
        raise AccountError(str(error)) from None
    session.add(user)
    return user


def ensure_instructor(session: Session, name: str, password: str | None) -> tuple[User, str | None] | None:
    """On a site without an instructor, create one and commit; return it with its password.

    ``password`` None draws a random one (returned, so it can be printed once). Returns None
    when an instructor exists already (nothing changes).
    """
    if session.scalar(select(User).where(User.role == Role.instructor).limit(1)) is not None:
        return None
    password = password or secrets.token_urlsafe(12)
    user = create_user(session, name, password, Role.instructor)
    session.commit()
    return user, password
