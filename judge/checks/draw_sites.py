"""Every draw site at the extremes: the learner's call re-run with each of its uniform-drawing
calls pushed, in turn, to 0.0 and to the largest float below 1, under the exercise's hard checks.

The mixed phase (:meth:`judge.checks.testing.Submission.with_extreme_uniforms`) changes 2 % of every
tensor's values: a second draw site of one value per row (a replacement token, a bonus token, the
coin of an alias draw) is rarely driven to an extreme where its row uses it, and a single-row
case almost never. :func:`expect_every_draw_site` asks the learner's side how many draw sites the
call makes (:class:`judge.learner.uniform_sources.DrawSites`) and pushes each one in turn, wholly.

Authors import it from here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from judge.checks.base import _misuse, _text, diagnosed
from judge.checks.evidence import Evidence
from judge.checks.testing import Context, Submission, _context
from judge.i18n import Bilingual
from judge.learner.wire import GeneratorSpec

__all__ = ["DRAW_SITE_DIAGNOSIS", "expect_every_draw_site"]

DRAW_SITE_DIAGNOSIS = Bilingual(
    "a draw site fails at an extreme uniform (0 or the largest float below 1)",
    "某个抽样点在极端的均匀随机数（0 或小于 1 的最大浮点数）下出错",
)
MAX_DRAW_SITES = 16  # draw sites pushed per check, each to both ends: at most 1 + 2 x 16 calls
_ENDS = (
    (False, "its lowest value (0.0; low for randint)"),
    (True, "its highest value (the largest float below 1; high - 1 for randint)"),
)

_PUSHED_EVIDENCE = (Evidence.STRUCTURAL, Evidence.VALUE, Evidence.RAISED)


def expect_every_draw_site(
    sub: Submission,
    ctx: Context,
    call: Callable[[Submission, GeneratorSpec], Any],
    check: Callable[[Any, str], Any],
    *,
    label: str,
    max_sites: int = MAX_DRAW_SITES,
    diagnosis: str = DRAW_SITE_DIAGNOSIS,
) -> int:
    """Run ``call`` with ordinary random numbers, then once with each of its draw sites pushed to
    each extreme, applying the hard checks ``check`` to every run.

    ``call(source, generator)`` makes the learner's call through ``source`` (a submission that
    counts or pushes draw sites) with ``generator`` as its generator argument (the same seed every
    run, so the runs differ only where a site is pushed) and returns what ``check`` takes;
    ``check(value, what)`` applies the exercise's hard checks (shape, range, support: none that
    a correct sampler can fail on legal uniform values, so never a statistical one) and names
    the run by ``what``. A draw site is one call of ``torch.rand``, ``rand_like``,
    ``Tensor.uniform_`` (on [0, 1)), ``randint``, ``randint_like`` or ``Tensor.random_`` that draws,
    in the order the learner's call makes them (:mod:`judge.learner.uniform_sources`); site k is pushed
    wholly where its tensor holds one value per line (last dimension), one value per line otherwise.

    1. The ordinary run, counting the sites: its failure is the check's own, undiagnosed here.
    2. For each of the first ``max_sites`` sites the run reported, site k at its lowest value
       (0.0; ``low`` for randint), then at its highest (the largest float below 1; ``high - 1``):
       a failure here, or an exception the learner's code raises, gets ``diagnosis`` unless the
       check gave one of its own (named only when the ordinary run passed and a pushed one failed).

    The count is the learner's side's word: it decides only how many runs the judge makes, and
    a call that hides its draws from the patched functions escapes this check, never another.
    Budget: none. Returns the number of sites pushed (0 for a call that draws none, an exact
    sampler such as ``torch.multinomial``). Raises :class:`~judge.checks.base.CheckFailed` as ``check``
    does; :class:`~judge.checks.base.CheckMisuse` for ``sub`` not the submission, ``call`` or ``check``
    not callable, a bad ``ctx``, ``label``, ``diagnosis``, or ``max_sites`` not an int in [1, 64].
    """
    name = "expect_every_draw_site"
    if not isinstance(sub, Submission):
        raise _misuse(name, "sub", "the test's submission (the `sub` argument of the test)", sub)
    _context(name, ctx)
    for argument, value in (("call", call), ("check", check)):
        if not callable(value):
            raise _misuse(name, argument, "a function", value)
    _text(name, "label", label)
    _text(name, "diagnosis", diagnosis)
    if isinstance(max_sites, bool) or not isinstance(max_sites, int) or not 1 <= max_sites <= 64:
        raise _misuse(name, "max_sites", "an int in [1, 64]", max_sites)
    seed = ctx.fresh_seed(f"draw sites: {label}")
    counting = sub.with_draw_sites_counted()
    check(call(counting, ctx.generator(seed)), label)
    found = counting.draw_sites_seen or 0
    pushed = min(found, max_sites)
    for site in range(pushed):
        for high, end in _ENDS:
            source = sub.with_draw_site_pushed(site, high=high, seed=ctx.fresh_seed(f"draw site {site}: {label}"))
            what = f"{label}, with draw site {site + 1} of {found} pushed to {end}"
            # The same call passed unpushed: any failure here (a value, a malformed one, a raise) is
            # this site's at its extreme (a NotImplementedError never is: diagnosed leaves it).
            with diagnosed(diagnosis, evidence=_PUSHED_EVIDENCE):
                check(call(source, ctx.generator(seed)), what)
    return pushed
