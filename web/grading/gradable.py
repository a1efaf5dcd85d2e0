"""Which exercises this site can grade: those whose hidden tests find the optional extras they declare.

An exercise names the extras its hidden tests import (``judging.extras`` in its exercise.toml;
:mod:`judge.extras` knows which module each extra installs): exercise 45 loads a tiny Qwen3
through ``transformers``, the ``models`` extra. On a site installed without it, the exercise can
still be read, run in the browser (its public and tiny suites need nothing more) and downloaded,
but a grading would end at the hidden suite's ``prepare()`` with an internal error on every
case. So the exercise list marks it, its page says which extra the deployer must install, and
:meth:`web.grading.queue.GradingQueue.submit` refuses a submission with that message before
anything is stored. A rejudge leaves its submissions out (:mod:`web.teaching.rejudging`): their
gradings would end in IE and, once finished, replace the verdicts they had.

The check is this process's: a deployment whose grading workers run elsewhere installs the same
extras on the site (docs/deploying.md).
"""

from __future__ import annotations

from judge.exercises.exercise import Exercise as ExerciseSpec
from judge.exercises.exercise import load_all
from judge.extras import MissingExtra, require
from judge.i18n import Bilingual
from web.core.i18n import bilingual


def missing_extra(spec: ExerciseSpec) -> MissingExtra | None:
    """The first extra ``spec``'s hidden tests declare that this process cannot import (None: all
    are there, or it declares none). Cheap: it looks the modules up, it imports nothing."""
    for extra in spec.extras:
        try:
            require(extra, what="extra_judging")
        except MissingExtra as missing:
            return missing
    return None


def not_gradable_text(missing: MissingExtra) -> Bilingual:
    """What the page and a refused submission say: the site cannot grade the exercise, and the
    extra its deployer must install."""
    return bilingual("not_gradable_here", module=missing.module, extra=missing.extra)


def ungradable_here() -> dict[int, MissingExtra]:
    """Exercise number -> the extra it lacks, for every exercise (of the site's packs) this process
    cannot grade; empty on a site with every extra installed."""
    found = {}
    for spec in load_all():
        missing = missing_extra(spec)
        if missing is not None:
            found[spec.number] = missing
    return found
