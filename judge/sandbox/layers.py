"""Which isolation layers of the ``strict`` level this machine offers, and why one is missing.

``python practice/judge.py doctor`` prints this list; :class:`~judge.sandbox.strict.StrictLauncher`
refuses to start when a required layer is missing (a server must then either fix the machine or
explicitly configure a weaker level).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from judge.sandbox import cgroups, landlock


@dataclass(frozen=True)
class Layer:
    name: str
    active: bool
    detail: str
    required: bool  # strict refuses to run without it


def _namespaces() -> tuple[bool, str]:
    if os.geteuid() != 0:
        return False, "needs root"
    from judge.sandbox import confine

    pid = os.fork()
    if pid == 0:
        flags = confine.CLONE_NEWNS | confine.CLONE_NEWNET | confine.CLONE_NEWIPC | confine.CLONE_NEWUTS
        os._exit(0 if confine._libc.unshare(flags) == 0 else 1)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) == 0:
        return True, "network, mount, IPC and UTS namespaces"
    return False, "unshare() was refused (a container without CAP_SYS_ADMIN?)"


def _seccomp() -> tuple[bool, str]:
    from judge.sandbox import seccomp

    try:
        seccomp.build_filter()
    except seccomp.SeccompUnavailable as exc:
        return False, str(exc)
    return True, "socket(), namespaces, mounts, ptrace, io_uring, identity changes refused"


def probe() -> list[Layer]:
    """Probe every layer (forks once; takes a few tens of milliseconds)."""
    linux = sys.platform.startswith("linux")
    root = linux and os.geteuid() == 0
    layers = [Layer("root", root, "switches to a uid/gid per worker slot" if root else "the judge is not root", True)]
    if not linux:
        return layers + [Layer("linux", False, "the strict level needs Linux", True)]
    ok, detail = _namespaces()
    layers.append(Layer("namespaces", ok, detail, True))
    abi = landlock.abi_version()
    if abi >= 6:
        detail = f"ABI {abi}: files, TCP, signals, abstract Unix sockets"
    elif abi >= 4:
        detail = f"ABI {abi}: files and TCP (signal and abstract-socket scoping need ABI 6)"
    elif abi >= 1:
        detail = f"ABI {abi}: files only (TCP needs ABI 4, signal scoping ABI 6)"
    else:
        detail = "not enabled in this kernel (needs lsm=landlock)"
    layers.append(Layer("landlock", abi >= 1, detail, True))
    ok, detail = _seccomp()
    layers.append(Layer("seccomp", ok, detail, True))
    support = cgroups.detect()
    layers.append(Layer("cgroups", support.available, support.reason, False))
    layers.append(Layer("rlimits", True, "CPU, address space, processes, file size, open files, no core dumps", True))
    return layers


def missing_required(layers: list[Layer] | None = None) -> list[Layer]:
    return [layer for layer in (layers if layers is not None else probe()) if layer.required and not layer.active]
