"""scripts/services.py: throwaway PostgreSQL and Redis on loopback, stopped and removed afterwards.

Skipped where Debian's `postgresql` or `redis-server` is not installed: .ci/run installs both, and under
its PROBJUDGE_CI=1 such a skip fails the run (tests/ci_gate.py)."""

from __future__ import annotations

import importlib.util
import socket
import sys

import pytest

from judge.exercises.folders import PROJECT_ROOT

_spec = importlib.util.spec_from_file_location("probjudge_services", PROJECT_ROOT / "scripts" / "services.py")
assert _spec is not None and _spec.loader is not None
services = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = services  # dataclasses look their module up while the class is made
_spec.loader.exec_module(services)


def _needs(check) -> None:
    try:
        check()
    except services.ServiceError as missing:
        pytest.skip(str(missing))


def _ping(url: str) -> bytes:
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
        connection.sendall(b"SET k v\r\nGET k\r\n")
        return connection.recv(64)


def test_redis_restarts_empty_on_its_port_and_stop_is_idempotent():
    _needs(services.redis_server)
    with services.local_services(postgresql=False) as found:
        assert found.postgresql_url is None and found.redis_url.startswith("redis://127.0.0.1:")
        assert _ping(found.redis_url) == b"+OK\r\n$1\r\nv\r\n"
        found.restart_redis()
        assert _ping(found.redis_url) == b"+OK\r\n$1\r\nv\r\n"  # the same port answers again
        folder = found.directory
        found.stop()
        found.stop()
    assert not folder.exists()


def test_postgresql_starts_as_the_owner_it_must_and_answers_on_loopback():
    _needs(services.postgresql_bin)
    from sqlalchemy import create_engine, text
    from sqlalchemy.pool import NullPool

    with services.local_services(redis=False) as found:
        assert found.postgresql_url.startswith("postgresql+psycopg://postgres@127.0.0.1:")
        engine = create_engine(found.postgresql_url, poolclass=NullPool)
        with engine.connect() as connection:
            assert connection.execute(text("SHOW fsync")).scalar() == "off"
            assert connection.execute(text("SHOW listen_addresses")).scalar() == "127.0.0.1"
        engine.dispose()
        assert f"export PROBJUDGE_TEST_POSTGRESQL_URL={found.postgresql_url}" in found.exports()


def test_the_command_line_stops_nothing_gracefully_and_names_missing_packages(tmp_path, monkeypatch, capsys):
    assert services.main(["stop", str(tmp_path / "never-started")]) == 0
    monkeypatch.setenv("PATH", str(tmp_path))
    assert services.main(["start", str(tmp_path / "s"), "--no-postgresql"]) == 1
    assert "redis-server" in capsys.readouterr().err
