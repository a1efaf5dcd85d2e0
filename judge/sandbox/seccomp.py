"""A seccomp filter for learner processes, built with libseccomp (PyPI ``pyseccomp``, ctypes).

Why each rule: Landlock and the network namespace do not cover named Unix sockets, so
``socket()`` itself is refused (``socketpair()`` stays: it reaches nothing outside the process
tree). The rest closes the doors out of the other layers: new namespaces (a user namespace gives
an unprivileged process root inside it), mounts, tracing other processes, loading kernel code,
io_uring (it opens files on the process's behalf), and changing identity. ``fallocate`` and
``memfd_create`` are refused too: ``fallocate(FALLOC_FL_KEEP_SIZE)`` reserves space that
``RLIMIT_FSIZE`` does not count, and a memfd is memory outside every file-size limit; Python and
torch need neither. So is ``prctl(PR_SET_DUMPABLE)``: a job stays unable to dump core.
"""

from __future__ import annotations

import errno
from typing import Any

# Calls refused with EPERM. Names unknown to this kernel or libseccomp are skipped.
DENIED = (
    "socket",
    "unshare",
    "setns",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsmount",
    "fsconfig",
    "fspick",
    "mount_setattr",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "pidfd_getfd",
    "kcmp",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "bpf",
    "perf_event_open",
    "keyctl",
    "add_key",
    "request_key",
    "userfaultfd",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "open_by_handle_at",
    "name_to_handle_at",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "mknod",
    "mknodat",
    "setuid",
    "setgid",
    "setreuid",
    "setregid",
    "setresuid",
    "setresgid",
    "setgroups",
    "setfsuid",
    "setfsgid",
    "personality",
    "quotactl",
    "syslog",
    "vhangup",
    "lookup_dcookie",
    "fallocate",
    "memfd_create",
    "memfd_secret",
)
CLONE_NEWUSER = 0x10000000
CLONE_NAMESPACES = 0x7E020000  # NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET (with NEWTIME below)
CLONE_NEWTIME = 0x00000080
PR_SET_DUMPABLE = 4


class SeccompUnavailable(RuntimeError):
    """pyseccomp or the libseccomp shared library is missing."""


def build_filter() -> Any:
    """Build the filter (tens of ms); load it in each child with :func:`load`."""
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError) as exc:
        raise SeccompUnavailable(f"pyseccomp/libseccomp not available: {exc}") from None
    refused = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(seccomp.ALLOW)
    for name in DENIED:
        try:
            rules.add_rule(refused, name)
        except (RuntimeError, ValueError, OSError):
            continue  # not a syscall on this architecture
    # New namespaces through clone() are refused; clone3 passes its flags in memory, which
    # seccomp cannot read, so it answers ENOSYS and the C library falls back to clone().
    rules.add_rule(refused, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER))
    for flag in (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x20000000, 0x40000000, CLONE_NEWTIME):
        rules.add_rule(refused, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    # A job made dumpable again would dump its whole memory on SIGSEGV or SIGXCPU to a host whose
    # core_pattern is a pipe (systemd-coredump, apport): RLIMIT_CORE does not bind those, the
    # non-dumpable state that dropping to the slot's uid gave it does.
    rules.add_rule(refused, "prctl", seccomp.Arg(0, seccomp.EQ, PR_SET_DUMPABLE))
    try:
        rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    except (RuntimeError, ValueError, OSError):
        pass
    return rules


def load(rules: Any) -> None:
    """Install ``rules`` in the calling process for good (it is inherited by its children)."""
    rules.load()
