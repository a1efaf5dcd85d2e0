"""Confine a freshly forked learner process: the ``strict`` sandbox level, layer by layer.

Called in the child between ``fork()`` and the learner's code, as root, in this order (each
step needs the privileges that a later one gives up): new session, job cgroups, new network /
mount / IPC / UTS namespaces, a size-limited tmpfs scratch directory, the interpreter made
reachable for the sandbox uid, resource limits, the slot's uid/gid, no-new-privileges,
Landlock, seccomp. Any step that fails raises :class:`ConfinementError`; the caller must then
exit without running learner code.
"""

from __future__ import annotations

import ctypes
import os
import resource
import stat
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from judge.sandbox import cgroups, landlock, seccomp

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWNET = 0x00020000, 0x04000000, 0x08000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE = (
    1,
    2,
    4,
    8,
    4096,
    8192,
    16384,
    1 << 18,
)

_libc = ctypes.CDLL(None, use_errno=True)


class ConfinementError(RuntimeError):
    """A layer could not be put in place; the learner's code must not run."""


@dataclass
class Confinement:
    """What one strict job gets; sent from the judge to the zygote as JSON."""

    uid: int
    gid: int
    scratch: str  # an empty directory; a private tmpfs is mounted over it
    scratch_mb: int = 64
    memory_mb: int = 4096  # RLIMIT_AS
    cpu_seconds: int = 60
    max_processes: int = 64
    max_open_files: int = 256
    file_size_mb: int = 16
    cgroup_dirs: list[str] = field(default_factory=list)
    readable: list[str] = field(default_factory=list)  # the interpreter and its packages

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Confinement:
        return cls(**data)


def _check(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise ConfinementError(f"{what}: {os.strerror(error)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(
        _libc.mount(
            source.encode() if source else None,
            target.encode(),
            fstype.encode() if fstype else None,
            ctypes.c_ulong(flags),
            data.encode() if data else None,
        ),
        f"mount {target}",
    )


def confine(config: Confinement, seccomp_filter: Any) -> None:
    """Apply every layer to the calling process, for good."""
    os.setsid()
    if config.cgroup_dirs:
        cgroups.join(config.cgroup_dirs)
    _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS), "unshare")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing mounted here propagates to the host
    _mount(
        "probjudge",
        config.scratch,
        "tmpfs",
        MS_NOSUID | MS_NODEV,
        f"size={config.scratch_mb}m,mode=0700,uid={config.uid},gid={config.gid}",
    )
    _make_reachable([Path(p) for p in config.readable], Path(config.scratch))
    limits = {
        resource.RLIMIT_AS: config.memory_mb << 20,
        resource.RLIMIT_NPROC: config.max_processes,
        resource.RLIMIT_FSIZE: config.file_size_mb << 20,
        resource.RLIMIT_NOFILE: config.max_open_files,
        resource.RLIMIT_CORE: 0,
    }
    for which, value in limits.items():
        resource.setrlimit(which, (value, value))
    # CPU: SIGXCPU at the soft limit (reported as TLE); the hard limit's SIGKILL only if it is ignored.
    resource.setrlimit(resource.RLIMIT_CPU, (config.cpu_seconds, config.cpu_seconds + 2))
    os.setgroups([])
    os.setresgid(config.gid, config.gid, config.gid)
    os.setresuid(config.uid, config.uid, config.uid)
    os.chdir(config.scratch)
    os.environ.clear()
    os.environ.update({"HOME": config.scratch, "TMPDIR": config.scratch, "PATH": "/usr/bin:/bin"})
    try:
        landlock.restrict(list(config.readable), [config.scratch])
    except landlock.LandlockError as exc:
        raise ConfinementError(str(exc)) from None
    seccomp.load(seccomp_filter)


def _make_reachable(paths: list[Path], staging: Path) -> None:
    """Let the sandbox uid reach ``paths`` where an ancestor (a mode-700 home) would stop it.

    In this process's private mount namespace: bind each such path aside, cover its closed
    ancestor with an empty world-traversable tmpfs (which also hides everything else in it),
    recreate the route and move the bind mounts back. The host's file system is not touched.
    """
    by_ancestor: dict[Path, list[Path]] = {}
    for path in sorted({p.resolve() for p in paths if p.exists()}):
        closed = next((a for a in reversed(path.parents) if a != Path("/") and not _traversable(a)), None)
        if closed is None:
            continue
        kept = by_ancestor.setdefault(closed, [])
        if not any(path.is_relative_to(other) for other in kept):
            kept.append(path)
    for closed, kept in by_ancestor.items():
        aside = []
        for index, path in enumerate(kept):
            spot = staging / f".reachable-{index}"
            spot.mkdir()
            _mount(str(path), str(spot), None, MS_BIND | MS_REC)
            aside.append((spot, path))
        _mount("probjudge-hidden", str(closed), "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755")
        for spot, path in aside:
            path.mkdir(parents=True, exist_ok=True)
            _mount(str(spot), str(path), None, MS_MOVE)
            os.rmdir(spot)


def _traversable(path: Path) -> bool:
    mode = os.stat(path).st_mode
    return bool(mode & stat.S_IXOTH)
