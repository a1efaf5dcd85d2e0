"""What the site's pages, API and commands reach at run time, as one typed object.

``create_app`` builds a :class:`Services` and attaches it to the app; views read it with
:func:`services` (``services().queue``), so a missing or misspelt service is an attribute
error a type checker sees, not a ``KeyError`` at request time.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Flask, current_app
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from web.core.config import Settings
from web.grading.queue import GradingQueue

EXTENSION_KEY = "probjudge"


@dataclass(frozen=True)
class Services:
    """The site's shared objects: its settings, database, grading queue and sandbox level."""

    settings: Settings
    engine: Engine
    sessions: sessionmaker[Session]
    queue: GradingQueue
    sandbox: str  # the level learners' code runs at ("strict" or "local"; "" when this site grades nothing)

    def attach(self, app: Flask) -> None:
        app.extensions[EXTENSION_KEY] = self


def services(app: Flask | None = None) -> Services:
    """The :class:`Services` of ``app`` (default: the app of the current request or context)."""
    found = (app or current_app).extensions.get(EXTENSION_KEY)
    if not isinstance(found, Services):
        raise RuntimeError("this Flask app was not built by web.app.create_app")
    return found
