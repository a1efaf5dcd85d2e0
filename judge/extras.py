"""The optional dependencies ("extras"): which one provides a module, and the line that says how to get it.

``pip install probjudge`` installs what a learner's CLI needs (torch, rich, the statement renderer,
the patch reader, the sandbox's seccomp layer) and nothing else: a laptop that only solves
exercises should not download a web stack. The rest comes in extras (``pyproject.toml``,
``[project.optional-dependencies]``):

- ``site``: the web site (Flask, SQLAlchemy, Alembic, the form and sign-in libraries, waitress,
  copydetect for the instructors' similarity check, pylti1p3next, jwcrypto, pyjwt and requests
  for LTI 1.3 in an LMS);
- ``scale``: grading on many machines (Celery over Redis, PostgreSQL through psycopg); it
  installs ``site`` too, since Celery workers and PostgreSQL only ever serve the site;
- ``models``: the real language model that exercise 45's hidden tests run (transformers);
- ``test``: the project's tests and maintainer tools (pytest, ruff, mypy, cosmic-ray...).

:data:`PROVIDERS` is the one table of which module comes from which extra; every front door that
needs an extra asks it (:func:`require`, :func:`missing_extra`) and prints the one line of
:meth:`MissingExtra.error_line`, in the CLI's language, instead of a traceback.
``tests/test_extras.py`` checks the table against ``pyproject.toml``.
"""

from __future__ import annotations

import importlib.util

from judge.i18n import t

EXTRAS = ("site", "scale", "models", "test")

# Top-level module -> (the distribution that installs it, the extra that lists that distribution).
# A module installed by another's dependency (kombu, redis: Celery's) names the distribution the
# extra lists. Every distribution of the site, scale and models extras has a row here, so a front
# door that checks an extra checks all of it (tests/test_extras.py).
PROVIDERS: dict[str, tuple[str, str]] = {
    "flask": ("flask", "site"),
    "sqlalchemy": ("sqlalchemy", "site"),
    "alembic": ("alembic", "site"),
    "flask_login": ("flask-login", "site"),
    "flask_wtf": ("flask-wtf", "site"),
    "wtforms": ("wtforms", "site"),
    "flask_limiter": ("flask-limiter", "site"),
    "waitress": ("waitress", "site"),
    "copydetect": ("copydetect", "site"),  # judge.similarity: instructors' similarity check
    "pylti1p3": ("pylti1p3next", "site"),  # web.lms.adapter: LTI 1.3 launches (the maintained fork)
    "jwcrypto": ("jwcrypto", "site"),  # web.lms.keys: the tool's RSA keys as JWKs
    "jwt": ("pyjwt", "site"),  # web.lms.service_client: the client assertion for LMS services
    "requests": ("requests", "site"),  # web.lms: an LMS's key set, token, roster and grade URLs
    "celery": ("celery", "scale"),
    "kombu": ("celery", "scale"),  # Celery's messaging library
    "redis": ("celery", "scale"),  # celery[redis]: the broker's client
    "psycopg": ("psycopg", "scale"),
    "transformers": ("transformers", "models"),
    "cosmic_ray": ("cosmic-ray", "test"),  # practice/judge.py mutation
    "parso": ("cosmic-ray", "test"),  # the syntax trees cosmic-ray mutates
}


class MissingExtra(ImportError):
    """``module`` cannot be imported here, and the ``extra`` that installs it is named.

    ``str()`` is the English hint (a log, a server's traceback); front doors print
    :meth:`error_line` in their language and exit with a usage error.
    """

    def __init__(self, module: str, extra: str, what: str | None = None) -> None:
        self.module = module
        self.extra = extra
        self.what = what  # the CLI key of what needs it; None: the extra's own purpose
        super().__init__(self.hint("en"), name=module)

    def hint(self, lang: str) -> str:
        """What needs which module, and how to install it (:func:`hint`)."""
        return hint(self.extra, lang, module=self.module, what=self.what)

    def error_line(self, lang: str) -> str:
        """The hint as a front door's error line: ``error: ...`` (``错误：...``)."""
        return t("error_line", lang, message=self.hint(lang))


def extra_of(module: str) -> str | None:
    """The extra that installs ``module`` (a dotted name: its top-level package counts), or None."""
    provider = PROVIDERS.get(module.split(".")[0])
    return provider[1] if provider else None


def importable(module: str) -> bool:
    """Whether ``module`` can be found here, without importing it."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a finder that refuses it, or a half-installed package
        return False


def require(extra: str, *, modules: tuple[str, ...] | None = None, what: str | None = None) -> None:
    """Raise :class:`MissingExtra` for the first of ``modules`` (default: every module of ``extra``
    in :data:`PROVIDERS`) that cannot be imported here; return when all can."""
    if extra not in EXTRAS:
        raise KeyError(f"unknown extra {extra!r}; choose from {', '.join(EXTRAS)}")
    wanted = modules if modules is not None else tuple(m for m, (_, e) in PROVIDERS.items() if e == extra)
    for module in wanted:
        if not importable(module):
            raise MissingExtra(module, extra, what)


def missing_extra(error: ImportError, *, what: str | None = None) -> MissingExtra | None:
    """``error`` as a :class:`MissingExtra` when the module it could not import comes from an
    extra (a front door's last net, for imports deep inside a library); None otherwise."""
    if isinstance(error, MissingExtra):
        return error
    name = error.name or ""
    extra = extra_of(name)
    return MissingExtra(name.split(".")[0], extra, what) if extra else None


def hint(extra: str, lang: str, *, module: str | None = None, what: str | None = None) -> str:
    """One line: what needs which module, from which extra, and the command that installs it.
    ``what`` is a CLI text key (default: the extra's purpose, ``extra_<name>``)."""
    module = module or next(m for m, (_, e) in PROVIDERS.items() if e == extra)
    return t("needs_extra", lang, what=t(what or f"extra_{extra}", lang), module=module, extra=extra)
