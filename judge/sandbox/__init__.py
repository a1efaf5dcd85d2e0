"""Isolation levels for learner code.

``local`` (:class:`judge.process.LocalLauncher`): a separate process with time and memory
limits, for learners judging their own code. ``strict`` (:class:`judge.sandbox.strict.StrictLauncher`):
a fork server with torch preloaded and every layer in :mod:`judge.sandbox.confine`, for a server
grading strangers' code. :mod:`judge.sandbox.layers` says which layers this machine offers.
"""

from __future__ import annotations

import logging

LEVELS = ("local", "strict")
log = logging.getLogger("probjudge.sandbox")


def launcher_for(level: str, *, allow_weaker: bool = False, slots: int = 2):
    """The launcher for ``level``, for a server.

    ``strict`` raises :class:`judge.sandbox.strict.SandboxUnavailable` when a required layer is
    missing, unless ``allow_weaker`` is set: then it logs, loudly, that strangers' code will run
    under the ``local`` level, and returns that. Raises ``ValueError`` for an unknown level.
    """
    from judge.process import LocalLauncher

    if level not in LEVELS:
        raise ValueError(f"unknown sandbox level {level!r}; choose one of {', '.join(LEVELS)}")
    if level == "local":
        log.warning("sandbox level 'local': submitted code is NOT isolated; use it only for your own code")
        return LocalLauncher()
    from judge.sandbox.strict import SandboxUnavailable, StrictLauncher

    try:
        return StrictLauncher(slots=slots)
    except SandboxUnavailable as error:
        if not allow_weaker:
            raise
        log.critical("STRICT SANDBOX UNAVAILABLE (%s); grading under the 'local' level because the "
                     "configuration allows a weaker level. Submitted code is NOT isolated.", error)
        return LocalLauncher()
