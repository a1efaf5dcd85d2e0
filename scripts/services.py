#!/usr/bin/env python3
"""Throwaway PostgreSQL and Redis servers for the tests, CI and benchmarks (standard library only).

Both listen on 127.0.0.1 only, on free ports chosen at start, and keep everything in one folder:
``DIR/postgresql`` (the cluster, a unix socket in it too), ``DIR/redis`` (pid file, log, port).
The cluster is tuned for speed, not safety (fsync, synchronous_commit and full_page_writes off)
and trusts every local connection: never point a real deployment at it.

    eval "$(python scripts/services.py start /tmp/probjudge-services)"   # prints `export ...` lines
    python scripts/services.py stop /tmp/probjudge-services               # idempotent

    with local_services() as found:          # a temporary folder, removed afterwards
        found.postgresql_url, found.redis_url
        found.restart_redis()                 # the same port, an empty server

As root, PostgreSQL runs as the ``postgres`` user (``initdb`` refuses root), so that user must be
able to reach DIR: a folder under /tmp, not under /root. Binaries: the newest
``/usr/lib/postgresql/*/bin`` (Debian's layout), else ``pg_ctl`` on PATH; ``redis-server`` on PATH.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

POSTGRESQL_USER = "postgres"  # the superuser the cluster is created with, whoever runs it
POSTGRESQL_SETTINGS = {
    "listen_addresses": "'127.0.0.1'",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "max_connections": "300",  # test processes each hold a few sites' pools at once
}
SOCKET_PATH_LIMIT = 100  # a unix socket's path must fit sockaddr_un (108 bytes on Linux)
POSTGRESQL_VARIABLE = "PROBJUDGE_TEST_POSTGRESQL_URL"
REDIS_VARIABLE = "PROBJUDGE_TEST_REDIS_URL"


class ServiceError(RuntimeError):
    """A server could not be found, started or stopped; the message says what to do."""


# --- finding the programs --------------------------------------------------------------------


def postgresql_bin() -> Path:
    """The folder with ``initdb`` and ``pg_ctl``: the newest Debian version, else ``pg_ctl``'s on PATH."""

    def version(folder: Path) -> tuple[int, ...]:
        return tuple(int(part) for part in folder.parent.name.split(".") if part.isdigit())

    debian = [folder for folder in Path("/usr/lib/postgresql").glob("*/bin") if (folder / "initdb").exists()]
    if debian:
        return max(debian, key=version)
    found = shutil.which("pg_ctl")
    if found and (Path(found).resolve().parent / "initdb").exists():
        return Path(found).resolve().parent
    raise ServiceError(
        "PostgreSQL is not installed: install Debian's `postgresql` package (apt-get install postgresql)"
    )


def redis_server() -> str:
    found = shutil.which("redis-server")
    if not found:
        raise ServiceError(
            "Redis is not installed: install Debian's `redis-server` package (apt-get install redis-server)"
        )
    return found


def free_port() -> int:
    """A TCP port nothing listens on now (the kernel's choice; a race is retried by the caller)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _as_postgres_user(command: list[str]) -> list[str]:
    """``command`` run as the cluster's owner: ``postgres`` when we are root, else ourselves."""
    if os.geteuid() != 0:
        return command
    if shutil.which("runuser") is None:
        raise ServiceError("running as root needs `runuser` (Debian's util-linux) to start PostgreSQL as postgres")
    return ["runuser", "-u", POSTGRESQL_USER, "--", *command]


def _run(command: list[str], what: str) -> None:
    done = subprocess.run(command, cwd="/", capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ServiceError(f"{what} failed ({done.returncode}): {(done.stderr or done.stdout).strip()}")


# --- PostgreSQL ------------------------------------------------------------------------------


def _postgresql_url(port: int) -> str:
    return f"postgresql+psycopg://{POSTGRESQL_USER}@127.0.0.1:{port}/postgres"


def _postgresql_port(data: Path) -> int | None:
    """The port of the server running on ``data``, or None (line 4 of postmaster.pid is the port)."""
    try:
        lines = (data / "postmaster.pid").read_text().splitlines()
        pid, port = int(lines[0]), int(lines[3])
    except (OSError, IndexError, ValueError):
        return None
    return port if _alive(pid) else None


def _prepare_cluster(data: Path, bin_dir: Path) -> None:
    """Create the cluster in ``data`` once (a later start reuses it)."""
    if (data / "PG_VERSION").exists():
        return
    data.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        import pwd

        try:
            owner = pwd.getpwnam(POSTGRESQL_USER)
        except KeyError:
            raise ServiceError(f"no `{POSTGRESQL_USER}` user: install Debian's `postgresql` package") from None
        os.chown(data, owner.pw_uid, owner.pw_gid)
        data.chmod(0o700)
        probe = subprocess.run(_as_postgres_user(["test", "-w", str(data)]), cwd="/", check=False)
        if probe.returncode != 0:
            raise ServiceError(
                f"the {POSTGRESQL_USER} user cannot reach {data} (a folder above it is closed to others, "
                "like /root): choose a folder under /tmp"
            )
    _run(
        _as_postgres_user(
            [
                str(bin_dir / "initdb"),
                "-D",
                str(data),
                "-U",
                POSTGRESQL_USER,
                "--auth=trust",
                "--no-locale",
                "--encoding=UTF8",
                "--no-sync",
            ]
        ),
        "initdb",
    )
    settings = dict(POSTGRESQL_SETTINGS)
    socket_dir = str(data.resolve())
    # The socket lives beside the data; a path too long for a socket gets TCP only.
    settings["unix_socket_directories"] = f"'{socket_dir}'" if len(socket_dir) < SOCKET_PATH_LIMIT else "''"
    with (data / "postgresql.conf").open("a", encoding="utf-8") as conf:
        conf.write("\n# scripts/services.py: a throwaway server for tests\n")
        conf.writelines(f"{name} = {value}\n" for name, value in settings.items())


def start_postgresql(directory: Path) -> str:
    """Start (creating it the first time) the cluster under ``directory``; return its superuser URL."""
    data = directory / "postgresql"
    running = _postgresql_port(data)
    if running is not None:
        return _postgresql_url(running)
    bin_dir = postgresql_bin()
    _prepare_cluster(data, bin_dir)
    error: ServiceError | None = None
    for _ in range(3):  # a port taken between choosing and binding: choose again
        port = free_port()
        try:
            _run(
                _as_postgres_user(
                    # The log inside the data folder: the one place the postgres user may write.
                    [
                        str(bin_dir / "pg_ctl"),
                        "start",
                        "-D",
                        str(data),
                        "-l",
                        str(data / "server.log"),
                        "-w",
                        "-t",
                        "60",
                        "-o",
                        f"-p {port}",
                    ]
                ),
                "pg_ctl start",
            )
        except ServiceError as failed:
            error = failed
            continue
        return _postgresql_url(port)
    assert error is not None
    log = data / "server.log"
    tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
    raise ServiceError(f"{error}\n{tail}")


def stop_postgresql(directory: Path) -> None:
    data = directory / "postgresql"
    if _postgresql_port(data) is None:
        return
    _run(
        _as_postgres_user([str(postgresql_bin() / "pg_ctl"), "stop", "-D", str(data), "-m", "fast", "-w"]),
        "pg_ctl stop",
    )


# --- Redis -----------------------------------------------------------------------------------


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _redis_pid(folder: Path) -> int | None:
    try:
        pid = int((folder / "redis.pid").read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if _alive(pid) else None


def _redis_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def start_redis(directory: Path, port: int | None = None) -> str:
    """Start Redis under ``directory`` (on ``port``, default a free one) unless it runs; return its URL."""
    folder = directory / "redis"
    folder.mkdir(parents=True, exist_ok=True)
    port_file = folder / "port"
    if _redis_pid(folder) is not None and port_file.exists():
        return f"redis://127.0.0.1:{int(port_file.read_text())}/0"
    program = redis_server()
    for _ in range(3):
        chosen = port or free_port()
        (folder / "redis.pid").unlink(missing_ok=True)
        _run(
            [
                program,
                "--port",
                str(chosen),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(folder),
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "yes",
                "--pidfile",
                str(folder / "redis.pid"),
                "--logfile",
                str(folder / "redis.log"),
            ],
            "redis-server",
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if _redis_answers(chosen):
                port_file.write_text(str(chosen))
                return f"redis://127.0.0.1:{chosen}/0"
            time.sleep(0.05)
        stop_redis(directory)
        if port:
            break
    log = folder / "redis.log"
    tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
    raise ServiceError(f"redis-server did not answer on 127.0.0.1\n{tail}")


def stop_redis(directory: Path) -> None:
    folder = directory / "redis"
    pid = _redis_pid(folder)
    if pid is None:
        return
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _alive(pid):
        os.kill(pid, signal.SIGKILL)
    (folder / "redis.pid").unlink(missing_ok=True)


# --- both ------------------------------------------------------------------------------------


@dataclass
class Services:
    """Servers started under ``directory``; a URL is None for a server not asked for."""

    directory: Path
    postgresql_url: str | None = None
    redis_url: str | None = None
    _redis_port: int | None = field(default=None, repr=False)

    def restart_redis(self) -> None:
        """Stop Redis and start it again, empty, on the same port (tests of lost connections)."""
        if self.redis_url is None:
            raise ServiceError("Redis was not started")
        stop_redis(self.directory)
        start_redis(self.directory, port=self._redis_port)

    def stop(self) -> None:
        stop(self.directory)

    def exports(self) -> str:
        """``export NAME=URL`` lines for a shell's eval."""
        lines = []
        if self.postgresql_url:
            lines.append(f"export {POSTGRESQL_VARIABLE}={self.postgresql_url}")
        if self.redis_url:
            lines.append(f"export {REDIS_VARIABLE}={self.redis_url}")
        return "\n".join(lines)


def start(directory: str | Path, *, postgresql: bool = True, redis: bool = True) -> Services:
    """Start the servers asked for under ``directory`` (created if missing); one already running is reused."""
    folder = Path(directory).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        folder.chmod(0o755)  # the postgres user must enter it (mkdtemp makes it 0700)
    found = Services(folder)
    try:
        if postgresql:
            found.postgresql_url = start_postgresql(folder)
        if redis:
            found.redis_url = start_redis(folder)
            found._redis_port = int((folder / "redis" / "port").read_text())
    except BaseException:
        stop(folder)
        raise
    return found


def stop(directory: str | Path) -> None:
    """Stop whatever runs under ``directory``; nothing running (or no folder) is fine."""
    folder = Path(directory).resolve()
    try:
        stop_redis(folder)
    finally:
        stop_postgresql(folder)


@contextlib.contextmanager
def local_services(
    directory: str | Path | None = None, *, postgresql: bool = True, redis: bool = True
) -> Iterator[Services]:
    """Servers for the ``with`` block, stopped after it; no ``directory``: a temporary one, removed too."""
    temporary = directory is None
    folder = Path(tempfile.mkdtemp(prefix="probjudge-services-")) if directory is None else Path(directory)
    try:
        found = start(folder, postgresql=postgresql, redis=redis)
        try:
            yield found
        finally:
            found.stop()
    finally:
        if temporary:
            shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    starting = commands.add_parser("start", help="start the servers; print `export ...` lines for eval")
    starting.add_argument("directory", type=Path)
    starting.add_argument("--no-postgresql", action="store_true", help="Redis only")
    starting.add_argument("--no-redis", action="store_true", help="PostgreSQL only")
    stopping = commands.add_parser("stop", help="stop the servers under the folder (idempotent)")
    stopping.add_argument("directory", type=Path)
    options = parser.parse_args(argv)
    try:
        if options.command == "start":
            found = start(options.directory, postgresql=not options.no_postgresql, redis=not options.no_redis)
            print(found.exports())
        else:
            stop(options.directory)
    except ServiceError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
