#!/usr/bin/env python3
"""What CI installs before ``make test``: Debian's ``postgresql`` and ``redis-server`` (standard library only).

``.ci/run`` runs this first. It finds the servers as ``scripts/services.py`` does, installs the
missing packages with apt-get (as root: CI's machine is a Debian one, like the development
machines), and exits 1, saying what is missing and how to fix it, when they cannot be had: a
failed install must fail CI, never give a green run that tested on SQLite alone. ``make test``
installs the rest itself (the virtual environment, the browser assets, chromium); a test that
still finds something missing fails the run under ``PROBJUDGE_CI=1`` (tests/ci_gate.py).

    python3 scripts/ci_prerequisites.py      # 0: both found (installed if needed); 1: not
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from services import ServiceError, postgresql_bin, redis_server

PACKAGES = ("postgresql", "redis-server")


def missing_services() -> list[str]:
    """Why each server cannot be found (empty when both are)."""
    missing = []
    for find in (postgresql_bin, redis_server):
        try:
            find()
        except ServiceError as error:
            missing.append(str(error))
    return missing


def _apt_get(*arguments: str) -> bool:
    done = subprocess.run(["apt-get", *arguments], capture_output=True, text=True)
    if done.returncode != 0:
        print(
            f"apt-get {' '.join(arguments)} failed ({done.returncode}): {done.stderr.strip()[-2000:]}", file=sys.stderr
        )
    return done.returncode == 0


def install() -> str | None:
    """Install :data:`PACKAGES` (``apt-get update`` only when a first try fails: a stale package list,
    as the Makefile's ``browser`` target does for chromium); None, or why it could not even try."""
    if os.geteuid() != 0:
        return "not root: apt-get cannot install packages"
    if shutil.which("apt-get") is None:
        return "no apt-get on PATH (not a Debian machine?)"
    install = ("install", "-y", "-q", *PACKAGES)
    if not _apt_get(*install) and _apt_get("update", "-q"):
        _apt_get(*install)
    return None


def main() -> int:
    if not missing_services():
        return 0
    print(f"installing Debian's {' and '.join(PACKAGES)} for the database tests", file=sys.stderr)
    cannot = install()
    missing = missing_services()
    if not missing:
        return 0
    print(
        "error: CI needs PostgreSQL and Redis (the database tests on PostgreSQL, tests/web/test_scale.py, "
        "tests/test_services_script.py), and they are missing after the install:",
        file=sys.stderr,
    )
    for reason in ([cannot] if cannot else []) + missing:
        print(f"  - {reason}", file=sys.stderr)
    print(
        f"Fix: as root on Debian, `apt-get install {' '.join(PACKAGES)}` (after `apt-get update`), then run "
        ".ci/run again.",
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":
    sys.exit(main())
