"""Shared fixtures: the project root, exercise 39, learner files written on the fly, and databases."""

from __future__ import annotations

import itertools
import os
import sqlite3
import textwrap
import uuid
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path

import ci_gate
import pytest
from hypothesis import settings

from judge.exercises.exercise import resolve
from judge.exercises.folders import PROJECT_ROOT

# CI replays the same generated examples every run (HYPOTHESIS_PROFILE=ci, set by .ci/run), so a
# landing never depends on luck; on a developer's machine each run explores new examples.
settings.register_profile("ci", derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


# `make test` runs the tests on every core (pytest-xdist, `-n auto`), then, alone and in one process,
# the tests marked `machine_wide`: they measure the whole machine, which other tests running meanwhile
# would disturb (test_host_resources.py's fallocate test: the free disk of /, /tmp and the project). A
# new test that measures or changes something machine-wide takes the same mark. The tests that start
# the strict sandbox (marker `strict_sandbox`) run in the parallel part: each judge has uids of its own
# (`base_id`, per process), job cgroups of its own (the test of a killed judge finds its judge's through
# the sleepers' /proc/PID/cgroup, and removes only those) and marker-named processes. (`xdist_group`
# cannot keep tests on one worker: pytest-xdist 3.8 rewrites `item._nodeid`, which pytest 9 no longer
# reads.) Everything else is independent of other tests.


def pytest_configure(config: pytest.Config) -> None:
    # Under CI (PROBJUDGE_CI=1, .ci/run) a skip or an xfail not listed in tests/ci_gate.py fails the run.
    ci_gate.configure(config)


@pytest.fixture(scope="session")
def exercise39():
    return resolve("39")


@pytest.fixture
def learner_file(tmp_path: Path):
    """Write a learner file from (dedented) source and return its path."""

    def write(source: str, name: str = "solution.py") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(source), encoding="utf-8")
        return path

    return write


@pytest.fixture(scope="session")
def project_root() -> Path:
    return PROJECT_ROOT


# --- databases -----------------------------------------------------------------------------------
# Every test that opens the site's database runs once per backend: on SQLite always, and on
# PostgreSQL too when PROBJUDGE_TEST_POSTGRESQL_URL names a server and a superuser on it (.ci/run
# starts one with scripts/services.py; docs/testing.md says how to do it by hand). Such a test asks
# for `database_url` (a fresh, migrated database), `databases` (`databases.new()`, as many as it
# needs) or `make_site` (tests/web/conftest.py), and gets the ids [sqlite] and [postgresql].
# Tests about SQLite itself (WAL mode, migrating an old SQLite file) build their own sqlite:/// URL.

POSTGRESQL_URL = os.environ.get("PROBJUDGE_TEST_POSTGRESQL_URL", "").strip()
DATABASE_BACKENDS = ("sqlite", "postgresql") if POSTGRESQL_URL else ("sqlite",)


def pytest_report_header(config) -> str:
    if POSTGRESQL_URL:
        return "databases: sqlite, postgresql (PROBJUDGE_TEST_POSTGRESQL_URL)"
    return "databases: sqlite (set PROBJUDGE_TEST_POSTGRESQL_URL to run the database tests on PostgreSQL too)"


def copy_sqlite(source: Path, target: Path) -> str:
    """A copy of the SQLite file ``source`` at ``target`` (SQLite's backup API: consistent whatever
    the source's WAL holds); returns its URL."""
    with closing(sqlite3.connect(source)) as original, closing(sqlite3.connect(target)) as copy:
        original.backup(copy)
    return f"sqlite:///{target}"


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory) -> Path:
    """An empty SQLite file with every migration applied, which each SQLite database is a copy of.

    Migrating a fresh file is most of what starting a site costs (about 0.4 s, for each of the
    hundreds of sites the tests start); the site still runs :func:`web.core.database.upgrade` on its
    copy (a no-op).
    """
    from web.core.database import upgrade

    path = tmp_path_factory.mktemp("migrated") / "site.db"
    upgrade(f"sqlite:///{path}")
    return path


class PostgresqlServer:
    """The test server of PROBJUDGE_TEST_POSTGRESQL_URL: a migrated template database for this
    test process, and databases made from it (``CREATE DATABASE ... TEMPLATE``: a file copy, about
    as fast as SQLite's) and dropped after their test."""

    def __init__(self, url: str) -> None:
        from sqlalchemy import create_engine
        from sqlalchemy.engine import make_url
        from sqlalchemy.pool import NullPool

        self.url = make_url(url)
        # CREATE and DROP DATABASE run outside transactions; NullPool holds no connection between them.
        self.admin = create_engine(self.url, isolation_level="AUTOCOMMIT", poolclass=NullPool)
        # pytest-xdist's workers share the server: each process has its own template and names.
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        self.prefix = f"pj_{worker}_{os.getpid()}"
        self.template = f"{self.prefix}_template"
        self._numbers = itertools.count()
        self._execute(f'DROP DATABASE IF EXISTS "{self.template}" WITH (FORCE)')
        self._execute(f'CREATE DATABASE "{self.template}"')
        from web.core.database import upgrade

        upgrade(self.url_of(self.template))
        self._terminate(self.template)  # a template must have no connection while it is copied

    def url_of(self, name: str) -> str:
        return self.url.set(database=name).render_as_string(hide_password=False)

    def create(self) -> str:
        """A fresh database with every migration applied; returns its URL."""
        name = f"{self.prefix}_{next(self._numbers)}_{uuid.uuid4().hex[:6]}"
        self._execute(f'CREATE DATABASE "{name}" TEMPLATE "{self.template}"')
        return self.url_of(name)

    def drop(self, url: str) -> None:
        """Drop the database of ``url``, ending whatever connections a test left open to it."""
        from sqlalchemy.engine import make_url

        # FORCE (PostgreSQL 13+) first ends the connections a test left open, as a crashed site would.
        self._execute(f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)')

    def close(self) -> None:
        self.drop(self.url_of(self.template))
        self.admin.dispose()

    def _terminate(self, name: str | None) -> None:
        from sqlalchemy import text

        with self.admin.connect() as connection:
            connection.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :name "
                    "AND pid <> pg_backend_pid()"
                ),
                {"name": name},
            )

    def _execute(self, statement: str) -> None:
        from sqlalchemy import text

        with self.admin.connect() as connection:
            connection.execute(text(statement))


@pytest.fixture(scope="session")
def postgresql_server() -> Iterator[PostgresqlServer]:
    """This process's template on the test server (made on first use: SQLite-only runs never connect)."""
    server = PostgresqlServer(POSTGRESQL_URL)
    yield server
    server.close()


class Databases:
    """Fresh, migrated databases of one backend, for one test (or one module's fixture).

    ``new()`` returns a URL: a copy of the migrated SQLite file in ``folder``, or a PostgreSQL
    database made from the template, which ``close()`` drops (whoever opened an engine on it
    disposes of it first, as ``make_site`` does; connections left open are ended by the drop).
    """

    def __init__(self, request: pytest.FixtureRequest, backend: str, folder: Path) -> None:
        self.backend = backend
        self._folder = folder
        # Resolved now, not in new(): a fixture's request may not set up others after its own set-up.
        self._sqlite: Path | None = request.getfixturevalue("migrated_sqlite") if backend == "sqlite" else None
        self._server: PostgresqlServer | None = (
            request.getfixturevalue("postgresql_server") if backend == "postgresql" else None
        )
        self._made: list[str] = []

    def new(self) -> str:
        if self._server is not None:
            url = self._server.create()
        else:
            assert self._sqlite is not None
            url = copy_sqlite(self._sqlite, self._folder / f"site{len(self._made)}.db")
        self._made.append(url)
        return url

    def close(self) -> None:
        if self._server is not None:
            for url in self._made:
                self._server.drop(url)
        self._made.clear()


@pytest.fixture(scope="module", params=DATABASE_BACKENDS)
def database_backend(request) -> str:
    """``sqlite``, and ``postgresql`` when PROBJUDGE_TEST_POSTGRESQL_URL is set (module scope, so
    that a module's shared site can run on each backend too)."""
    return request.param


@pytest.fixture
def databases(database_backend, tmp_path, request) -> Iterator[Databases]:
    made = Databases(request, database_backend, tmp_path)
    yield made
    made.close()


@pytest.fixture(scope="module")
def module_databases(database_backend, tmp_path_factory, request) -> Iterator[Databases]:
    """:class:`Databases` for a module-scoped fixture (a site shared by a module's tests)."""
    made = Databases(request, database_backend, tmp_path_factory.mktemp("databases"))
    yield made
    made.close()


@pytest.fixture
def database_url(databases: Databases) -> str:
    """A fresh database with every migration applied, on each backend in turn."""
    return databases.new()


@pytest.fixture
def sqlite_database(tmp_path, migrated_sqlite) -> Callable[[], str]:
    """``sqlite_database()`` → a fresh migrated SQLite URL, for tests that stay SQLite-only on purpose."""
    numbers = itertools.count()
    return lambda: copy_sqlite(migrated_sqlite, tmp_path / f"sqlite{next(numbers)}.db")
