"""Isolation levels for learner code.

Everything that runs next to learner code on a machine sits here: the child that loads and
serves it (:mod:`judge.sandbox.child`), the keeper that ends whatever it starts
(:mod:`judge.sandbox.keeper`), the launchers behind one protocol (:mod:`judge.sandbox.launchers`):
``local`` (:class:`~judge.sandbox.launchers.LocalLauncher`), a separate process with time and
memory limits, for learners judging their own code (:class:`~judge.sandbox.launchers.WarmLocalLauncher`
forks it from a fork server instead, for commands that judge many files), and ``strict``
(:class:`judge.sandbox.strict.StrictLauncher`), a fork server (:mod:`judge.sandbox.zygote`, started
by :mod:`judge.sandbox.zygote_client`) with
torch preloaded and every layer in :mod:`judge.sandbox.confine`, for a server grading strangers'
code. :mod:`judge.sandbox.layers` says which layers this machine offers. What the browser runs
next to learner code is :mod:`judge.browser.learner` (the browser bundle ships ``judge/browser``,
never this package); what both share is :mod:`judge.learner.code`.

- ``launchers`` — the launchers behind one protocol: ``local`` and its warm twin.
- ``strict`` — the ``strict`` level on the judge's side: worker slots over the fork server.
- ``zygote_client`` — the judge's side of the fork server: starting it, sending it jobs.
- ``zygote`` — the fork server: imports torch once, forks one child per job.
- ``child`` — the untrusted side: loads the learner's source and answers calls.
- ``keeper`` — a tiny process that ends whatever a job started.
- ``confine`` — the ``strict`` layers applied to a fresh child, with ``cgroups``, ``landlock``
  and ``seccomp`` (one layer each) and ``hugepages`` (the fork server's memory).
- ``layers`` — which layers this machine offers, and why one is missing.
- ``warmup`` — the torch operations a fork server runs once, before its first fork.

May import (the layers below it in .importlinter's ``judge-layers``): ``judge.learner``,
``judge.i18n``, ``judge.verdicts``; the standard library, torch and pyseccomp. Never what judges
(checks, reports, the engine): the child that loads learner code imports from here, and the
tests and their expected values must never enter its process.

Imported by: ``judge.engine``, ``judge.authoring``, the front doors, and on the site ``web.app``
(the server's launcher) and ``web.grading``. Never by what runs in the browser
(``browser-subset``).
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
