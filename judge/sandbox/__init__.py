"""Isolation levels for learner code.

Everything that runs next to learner code on a machine sits here: the child that loads and serves it
(:mod:`judge.sandbox.child`), the keeper that ends whatever it starts (:mod:`judge.sandbox.keeper`),
the launchers behind one protocol (:mod:`judge.sandbox.launchers`): ``local``
(:class:`~judge.sandbox.launchers.LocalLauncher`), a separate process with time and memory limits,
for learners judging their own code (:class:`~judge.sandbox.launchers.WarmLocalLauncher` forks it
from a fork server instead, for commands that judge many files), and ``strict``
(:class:`judge.sandbox.strict.StrictLauncher`), a fork server (:mod:`judge.sandbox.zygote`, started
by :mod:`judge.sandbox.zygote_client`) with torch preloaded and every layer in
:mod:`judge.sandbox.confine`, for a server grading strangers' code. :mod:`judge.sandbox.layers` says
which layers this machine offers. What the browser runs next to learner code is
:mod:`judge.browser.learner` (the browser bundle ships ``judge/browser``, never this package); what
both share is :mod:`judge.learner.code`.
"""

from __future__ import annotations

import logging

LEVELS = ("local", "strict")
log = logging.getLogger("probjudge.sandbox")


def launcher_for(level: str, *, allow_weaker: bool = False, slots: int = 2):
    """The launcher for ``level``, for a server.

    ``strict`` raises :class:`judge.sandbox.zygote_client.SandboxUnavailable` when a required layer is
    missing, unless ``allow_weaker`` is set: then it logs, loudly, that strangers' code will run
    under the ``local`` level, and returns that. Raises ``ValueError`` for an unknown level.
    """
    from judge.sandbox.launchers import LocalLauncher

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
        log.critical(
            "STRICT SANDBOX UNAVAILABLE (%s); grading under the 'local' level because the "
            "configuration allows a weaker level. Submitted code is NOT isolated.",
            error,
        )
        return LocalLauncher()
