"""The generator contract of a sampling function, whole, in one check: :func:`expect_generator_contract`.

What a statement's "draw every random number from ``generator`` (torch's default generator when
None)" promises, clause by clause (what FlashInfer's seed/offset tests check of its kernels):

1. **The seed decides.** Generators of the same seed give the same draws, even when torch's global
   generator was seeded differently before each call; another seed gives other draws
   (``SEEDS_DIAGNOSIS`` otherwise). With ``generator=None``, the same ``torch.manual_seed`` gives
   the same draws and another one other draws (``DEFAULT_GENERATOR_DIAGNOSIS``).
2. **The generator advances.** Two calls in a row with ONE generator object give different draws
   (``RESEEDED_DIAGNOSIS``: code that re-seeds a generator of its own from
   ``generator.initial_seed()`` at every call passes clause 1), and so do two calls in a row with
   ``generator=None`` after ONE ``torch.manual_seed`` (``DEFAULT_RESEEDED_DIAGNOSIS``: re-seeding
   from ``torch.initial_seed()``).
3. **Torch's global generator is left alone** when a generator is given: the learner's side says
   whether the state of torch's default generator (the CPU one, and the run's CUDA device's on a
   CUDA run) changed during each call given a generator (``GLOBAL_RNG_DIAGNOSIS``: a draw site
   without ``generator=``, a ``torch.manual_seed`` inside the function).
4. **Rows are rows, wherever they stand** (where the statement promises it): with the batch's rows
   in another order, each row's draws still fit that row's own target (one fit per row;
   ``POSITION_DIAGNOSIS`` when they fit the target of the position instead), and two identical
   rows are not tied (:func:`judge.checks.independence.expect_independent_rows`).

A diagnosis is given only on its own evidence: each comparison names the one mistake it shows.
The chance that a correct sampler repeats itself is computed exactly
(:func:`judge.checks.generator_contract.identical_draws_probability`) and must be below the ``seeds`` level (1e-12)
for every comparison of draws that must differ; each of those spends one ``seeds`` check.
:func:`generator_contract_budget` says what one call of the check spends.

A generator "kept" by the learner's side (:meth:`judge.checks.testing.Context.kept_generator`) is what
lets two calls share one generator object; :meth:`judge.checks.testing.Submission.with_global_seed` with
``once=True`` seeds torch once before a sequence of calls; and
:meth:`judge.checks.testing.Submission.watching_global_rng` asks the learner's side about the global state.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Sequence
from typing import Any

import torch

from judge.checks.base import CheckFailed, CheckMisuse, Outcome, _describe, _misuse, _text, fail, rule
from judge.checks.budget import BudgetDeclaration
from judge.checks.distributions import _target, expect_distribution, expect_support
from judge.checks.evidence import Evidence
from judge.checks.exact import expect
from judge.checks.independence import expect_independent_rows
from judge.checks.testing import Context, _context
from judge.i18n import Bilingual, in_language
from judge.reports.report import CheckRecord

__all__ = [
    "SEEDS_DIAGNOSIS",
    "DEFAULT_GENERATOR_DIAGNOSIS",
    "RESEEDED_DIAGNOSIS",
    "DEFAULT_RESEEDED_DIAGNOSIS",
    "GLOBAL_RNG_DIAGNOSIS",
    "POSITION_DIAGNOSIS",
    "expect_generator_contract",
    "generator_contract_budget",
    "expect_seed_contract",
    "expect_different_under_seeds",
    "identical_draws_probability",
]

RESEEDED_DIAGNOSIS = Bilingual(
    "the generator is re-seeded on every call: successive calls repeat the same draws",
    "每次调用都重新设定了生成器的种子：连续调用重复同样的抽样结果",
)
DEFAULT_RESEEDED_DIAGNOSIS = Bilingual(
    "with generator=None, the generator is re-seeded on every call (from torch.initial_seed(), say): "
    "successive calls repeat the same draws",
    "generator=None 时每次调用都重新设定了生成器的种子（例如用 torch.initial_seed()）：连续调用重复同样的抽样结果",
)
GLOBAL_RNG_DIAGNOSIS = Bilingual(
    "with a generator given, the code still draws from (or re-seeds) torch's global generator",
    "传入 generator 时，代码仍从 torch 的全局生成器抽样（或重设了它的种子）",
)
POSITION_DIAGNOSIS = Bilingual(
    "a row's draws depend on its position in the batch, not only on its own inputs "
    "(rows reordered and not mapped back, say)",
    "一行的抽样结果取决于它在批中的位置，而不只取决于这一行自己的输入（例如行被重新排序后没有映射回去）",
)

SEEDS_DIAGNOSIS = Bilingual("the generator argument is ignored or overridden", "忽略或覆盖了 generator 参数")


def expect_different_under_seeds(
    ctx: Context,
    first: torch.Tensor,
    second: torch.Tensor,
    probs: torch.Tensor,
    *,
    label: str,
    how: str = "two different generator seeds",
    cause: str = "Your code seems to ignore `generator`, or to re-seed torch itself",
    diagnosis: str = SEEDS_DIAGNOSIS,
) -> float:
    """Outputs drawn under two different seeds (``how``) must differ.

    ``first``/``second``: the learner's integer draws ``[B, n]`` (``[n]`` is one row), of one
    shape; ``probs``: floating ``[B, V]``, the target of each row (``[V]``: every row's target).
    The chance that a correct sampler gives identical output is computed exactly and must be
    below the check's alpha (else the case is too small: an exercise bug, raised as
    ``RuntimeError``). Spends one ``seeds`` check (fixed level 1e-12). On failure the message is
    ``"{label}: {how} gave exactly the same N draws (...). {cause}"`` and the diagnosis
    ``diagnosis`` (``SEEDS_DIAGNOSIS`` by default). Returns that chance.

    Raises :class:`CheckFailed` (WA) when the draws are equal, or are not integer tensors of one
    shape with as many rows as ``probs``; :class:`CheckMisuse` for a malformed ``ctx``, ``probs``,
    ``label``, ``how``, ``cause`` or ``diagnosis``.
    """
    check = "expect_different_under_seeds"
    _context(check, ctx)
    probs = _target(check, "probs", probs, dims=(1, 2), normalized=False)
    for argument, value in (("label", label), ("how", how), ("cause", cause), ("diagnosis", diagnosis)):
        _text(check, argument, value)
    for draws in (first, second):
        if not isinstance(draws, torch.Tensor) or draws.dim() not in (1, 2) or draws.is_floating_point():
            fail(
                f"{label}: the draws must be a [rows, num_samples] tensor of ids, got {_describe(draws)}",
                rule=rule(label, "the draws have the wrong shape", "抽样结果的形状不对"),
                kind=Evidence.STRUCTURAL,
            )
    first, second = (d.unsqueeze(0) if d.dim() == 1 else d for d in (first, second))
    if probs.dim() == 1:
        probs = probs.unsqueeze(0).expand(first.shape[0], probs.shape[0])
    if first.shape != second.shape or first.shape[0] != probs.shape[0]:
        fail(
            f"{label}: the two calls returned draws of shapes {list(first.shape)} and {list(second.shape)}; "
            f"both must be [{probs.shape[0]}, num_samples]",
            rule=rule(label, "the draws have the wrong shape", "抽样结果的形状不对"),
            kind=Evidence.STRUCTURAL,
        )
    chance = identical_draws_probability(probs, first.shape[1])
    alpha = ctx.budget.spend("seeds")
    if chance > alpha:
        raise RuntimeError(f"{label}: a correct sampler repeats itself with probability {chance:.3g}; enlarge the case")
    same = bool(torch.equal(first, second))
    ctx.records.append(CheckRecord("seeds", label, float(same), chance if same else 1.0, alpha, not same))
    if same:
        raise CheckFailed(
            f"{label}: {how} gave exactly the same {first.numel()} draws "
            f"(a correct sampler does that with probability {chance:.3g}). {cause}",
            p_value=chance,
            diagnosis=diagnosis,
            rule=rule(label, f"{how} gave the same draws", "两个不同的种子给出了相同的抽样结果"),
            kind=Evidence.VALUE,
        )
    return chance


def identical_draws_probability(probs: torch.Tensor, n: int) -> float:
    """:func:`judge.checks.stats.identical_draws_probability` for float64 ``[B, V]`` targets, in torch (one
    pass over many rows, where the pure-Python version walks every value; a test keeps them equal)."""
    collision = (probs.to(torch.float64) ** 2).sum(dim=-1)
    return math.exp(min(0.0, n * float(torch.log(collision).sum()))) if n else 1.0


DEFAULT_GENERATOR_DIAGNOSIS = Bilingual(
    "with generator=None the draws do not come from torch's default generator (a private generator, "
    "a fixed seed, or another source of randomness)",
    "generator=None 时抽样没有使用 torch 的默认生成器（用了私有生成器、固定种子或其他随机源）",
)


def expect_seed_contract(
    sub: Any,
    ctx: Context,
    draw: Callable[[Any, Any], torch.Tensor],
    probs: torch.Tensor,
    *,
    label: str,
    default_generator: bool = True,
) -> None:
    """The generator contract of a sampling function, in one call:

    1. two calls with generators of the same seed give the same draws (else ``SEEDS_DIAGNOSIS``);
    2. a generator of another seed gives other draws (:func:`expect_different_under_seeds`);
    3. with ``default_generator``: with ``generator=None``, two calls after the same
       ``torch.manual_seed`` give the same draws, and two different ``torch.manual_seed`` values
       other draws (else ``DEFAULT_GENERATOR_DIAGNOSIS``).

    ``draw(source, generator)`` makes one call and returns its draws, checked: it calls the
    learner's function through ``source`` (``sub`` itself, or ``sub.with_global_seed(...)``),
    passing ``generator`` as the function's generator argument (``None``: the default one), and
    returns ``expect_tensor(...)``'s tensor, integer ``[B, n]`` or ``[n]``. ``probs``: floating
    ``[B, V]`` (or ``[V]``) targets, used for the exact chance that a correct sampler repeats
    itself, which must be below 1e-12 (else ``RuntimeError``: draw more). Spends 2 ``seeds``
    checks (1 without ``default_generator``): declare them in the suite's ``BUDGET``.

    Raises :class:`CheckFailed` (WA) when the contract is broken; :class:`CheckMisuse` for a
    malformed argument, or when ``draw`` returns something else than a tensor.
    """
    check = "expect_seed_contract"
    _context(check, ctx)
    if not callable(draw):
        raise _misuse(check, "draw", "a function (source, generator) -> the checked draws", draw)
    for method in ("with_global_seed",):
        if not hasattr(sub, method):
            raise _misuse(check, "sub", "the test's Submission (the first argument of the test function)", sub)
    _target(check, "probs", probs, dims=(1, 2), normalized=False)
    _text(check, "label", label)

    def drawn(source: Any, generator: Any) -> torch.Tensor:
        value = draw(source, generator)
        if not isinstance(value, torch.Tensor):
            raise _misuse(
                check,
                "draw",
                "a function returning the draws as a tensor (check the learner's value "
                "with expect_tensor and return it)",
                value,
            )
        return value

    seed = ctx.fresh_seed(f"{label}: same seed")
    first = drawn(sub, ctx.generator(seed))
    expect(
        torch.equal(first, drawn(sub, ctx.generator(seed))),
        f"{label}: two calls with generators seeded alike returned different draws: every random number "
        "must come from `generator`",
        diagnosis=SEEDS_DIAGNOSIS,
        rule=rule(label, "generators seeded alike gave different draws", "种子相同的生成器给出了不同的抽样结果"),
        kind=Evidence.VALUE,
    )
    expect_different_under_seeds(
        ctx, first, drawn(sub, ctx.generator()), probs, label=f"{label}, two different generator seeds"
    )
    if not default_generator:
        return
    seeded = sub.with_global_seed(ctx.fresh_seed(f"{label}: global seed"))
    first = drawn(seeded, None)
    expect(
        torch.equal(first, drawn(seeded, None)),
        f"{label}: with generator=None, two calls after the same torch.manual_seed returned different draws: "
        "without a generator, use torch's default generator",
        diagnosis=DEFAULT_GENERATOR_DIAGNOSIS,
        rule=rule(
            label, "the same torch.manual_seed gave different draws", "相同的 torch.manual_seed 给出了不同的抽样结果"
        ),
        kind=Evidence.VALUE,
    )
    expect_different_under_seeds(
        ctx,
        first,
        drawn(sub.with_global_seed(ctx.fresh_seed(f"{label}: other global")), None),
        probs,
        label=f"{label} with generator=None",
        how="two different torch.manual_seed values",
        cause="Without a generator, draw from torch's default generator (what "
        "torch.manual_seed seeds), not from a generator or seed of your own",
        diagnosis=DEFAULT_GENERATOR_DIAGNOSIS,
    )


CHECK = "expect_generator_contract"
Draw = Callable[..., torch.Tensor]  # draw(source, generator[, rows]) -> the checked draws


def generator_contract_budget(
    probs: torch.Tensor | int = 1,
    *,
    default_generator: bool = True,
    global_untouched: bool = True,
    positions: bool = False,
    twins: tuple[int, int] | None = None,
) -> BudgetDeclaration:
    """What one :func:`expect_generator_contract` call with these arguments spends: 2 ``seeds``
    (the other seed; the second call with one generator), 2 more with ``default_generator`` (the
    other ``torch.manual_seed``; the second call after one), one ``fit`` per row of ``probs`` (its
    target, or its number of rows) with ``positions``, and one ``independence`` with ``twins``;
    ``global_untouched`` spends nothing (the learner's side's report is exact). Add it to a suite's
    ``BUDGET``: ``BudgetDeclaration(fit=3) + generator_contract_budget(PROBS, positions=True)``.
    """
    del global_untouched  # taken so that a suite can pass the check's own options
    rows = probs if isinstance(probs, int) else (probs.shape[0] if probs.dim() == 2 else 1)
    return BudgetDeclaration(
        seeds=4 if default_generator else 2, fit=rows if positions else 0, independence=1 if twins else 0
    )


def expect_generator_contract(
    sub: Any,
    ctx: Context,
    draw: Draw,
    probs: torch.Tensor,
    *,
    label: str,
    public: str | None = None,
    default_generator: bool = True,
    global_untouched: bool = True,
    positions: bool = False,
    twins: tuple[int, int] | None = None,
    outcome: Any = "token",
) -> None:
    """The generator contract of a sampling function, every clause the statement promises (see the
    module's docstring), in one call.

    ``draw(source, generator)`` makes one call and returns its draws, checked: it calls the
    learner's function through ``source`` (a :class:`~judge.checks.testing.Submission` made from ``sub``),
    passing ``generator`` as the function's generator argument (``None``: the default one), and
    returns ``expect_tensor(...)``'s tensor, integer ``[B, n]`` or ``[n]``, as for
    :func:`judge.checks.generator_contract.expect_seed_contract`. With ``positions``, it also takes ``rows``
    (``draw(source, generator, rows=None)``): a list of the batch's row indices in the order to
    pass them (``inputs[rows]``); it may draw more then (the fits gain power). ``draw`` must not use
    torch's global generator itself (in the browser it is the learner's too).

    ``probs``: floating ``[B, V]`` (or ``[V]``), each row's target, for the exact chance that a
    correct sampler repeats itself (below 1e-12, else ``RuntimeError``: draw more) and for the fits.
    ``default_generator``: the function takes ``generator=None`` to mean torch's default generator
    (clauses 1 and 2 for it). ``global_untouched``: with a generator given the function leaves
    torch's global generator alone (clause 3). ``positions``: each row's draws follow its own
    target wherever it stands in the batch (``B >= 2``). ``twins``: two rows ``(i, j)`` of equal
    targets (and inputs) whose draws must not be tied. ``public`` names the function without
    values for the rules of hidden cases (``label`` by default); ``outcome``: the noun of one
    outcome in messages.

    Calls (8 with every clause, 4 without ``default_generator``, one more with ``positions``) and
    spends what :func:`generator_contract_budget` says: declare it in the suite's ``BUDGET``.
    Raises :class:`~judge.checks.base.CheckFailed` (WA) when the contract is broken;
    :class:`~judge.checks.base.CheckMisuse` for a malformed argument, or when ``draw`` returns something
    else than a tensor.
    """
    _context(CHECK, ctx)
    if not callable(draw):
        raise _misuse(CHECK, "draw", "a function (source, generator) -> the checked draws", draw)
    if not all(hasattr(sub, method) for method in ("with_global_seed", "watching_global_rng")):
        raise _misuse(CHECK, "sub", "the test's Submission (the first argument of the test function)", sub)
    probs = _target(CHECK, "probs", probs, dims=(1, 2), normalized=False)
    _text(CHECK, "label", label)
    _text(CHECK, "public", public, optional=True)
    noun = Outcome.of(CHECK, outcome)
    if positions:
        _positions_arguments(probs, draw)
    if twins is not None:
        _twins_argument(probs, twins)
    named = public or label
    contract = _Contract(sub, ctx, draw, probs, label, named, global_untouched)
    first = contract.generator_clauses()
    if default_generator:
        contract.default_generator_clauses()
    if twins is not None:
        i, j = twins
        rows = first if first.dim() == 2 else first.unsqueeze(0)
        expect_independent_rows(
            ctx,
            rows[i],
            rows[j],
            probs[i] if probs.dim() == 2 else probs,
            label=f"{label}, rows {i} and {j} (identical inputs)",
            public=Bilingual(
                f"{public or label}, two identical rows", f"{in_language(public or label, 'zh')}，两行输入相同"
            ),
            outcome=noun,
        )
    if positions:
        contract.positions_clause(noun)


class _Contract:
    """One :func:`expect_generator_contract` call: its arguments, and the calls it makes."""

    def __init__(
        self, sub: Any, ctx: Context, draw: Draw, probs: torch.Tensor, label: str, public: str, watched: bool
    ) -> None:
        self.sub, self.ctx, self.draw, self.probs = sub, ctx, draw, probs
        self.label, self.public, self.watched = label, public, watched

    def drawn(self, source: Any, generator: Any, **rows: Any) -> torch.Tensor:
        """``draw``'s tensor for one call through ``source``; the global generator's report checked
        for a call given a generator (where the contract says it is left alone)."""
        if self.watched and generator is not None:
            source = source.watching_global_rng()
        value = self.draw(source, generator, **rows)
        if not isinstance(value, torch.Tensor):
            raise _misuse(
                CHECK,
                "draw",
                "a function returning the draws as a tensor (check the learner's value with expect_tensor "
                "and return it)",
                value,
            )
        if self.watched and generator is not None and source.global_rng_changed_by:
            changed = ", ".join(f"{name}()" for name in dict.fromkeys(source.global_rng_changed_by))
            fail(
                f"{self.label}: with a generator given, {changed} changed the state of torch's global generator "
                "(it drew from it, or re-seeded it): every random number must come from `generator`, and torch's "
                "global random state must be left as it was",
                diagnosis=GLOBAL_RNG_DIAGNOSIS,
                rule=rule(
                    self.public,
                    "with a generator given, torch's global generator was used or re-seeded",
                    "传入 generator 时仍使用了（或重设了）torch 的全局生成器",
                ),
            )
        return value

    def generator_clauses(self) -> torch.Tensor:
        """Clauses 1 and 2 (and 3) with a generator given; the first call's draws."""
        ctx, sub, label = self.ctx, self.sub, self.label
        seed = ctx.fresh_seed(f"{label}: generator contract, same seed")
        # Torch's global generator seeded differently before each of the two: only `generator` may decide.
        first = self.drawn(
            sub.with_global_seed(ctx.fresh_seed(f"{label}: generator contract, global a")), ctx.generator(seed)
        )
        _repeat_chance(ctx, first, self.probs, label, self.public)
        kept = ctx.kept_generator(seed)
        in_a_row = sub.with_global_seed(ctx.fresh_seed(f"{label}: generator contract, global b"), once=True)
        again = self.drawn(in_a_row, kept)
        expect(
            torch.equal(first, again),
            f"{label}: two calls with generators seeded alike returned different draws (torch's global generator "
            "was seeded differently before each): every random number must come from `generator`",
            diagnosis=SEEDS_DIAGNOSIS,
            rule=rule(
                self.public, "generators seeded alike gave different draws", "种子相同的生成器给出了不同的抽样结果"
            ),
        )
        expect_different_under_seeds(
            ctx, first, self.drawn(sub, ctx.generator()), self.probs, label=f"{label}, two different generator seeds"
        )
        _expect_continued(
            ctx,
            again,
            self.drawn(in_a_row, kept),
            self.probs,
            label=label,
            public=self.public,
            how=Bilingual("two calls in a row with one generator", "用同一个生成器连续调用两次"),
            cause="Each call must continue the generator's stream where the last one left it: never re-seed it, "
            "nor a generator of your own, from its seed",
            diagnosis=RESEEDED_DIAGNOSIS,
        )
        return first

    def default_generator_clauses(self) -> None:
        """Clauses 1 and 2 with ``generator=None``: torch's default generator, seeded once."""
        ctx, sub, label = self.ctx, self.sub, self.label
        seed = ctx.fresh_seed(f"{label}: generator contract, global seed")
        in_a_row = sub.with_global_seed(seed, once=True)
        first = self.drawn(in_a_row, None)
        second = self.drawn(in_a_row, None)  # right after the first: nothing re-seeds in between
        expect(
            torch.equal(first, self.drawn(sub.with_global_seed(seed, once=True), None)),
            f"{label}: with generator=None, two calls after the same torch.manual_seed returned different draws: "
            "without a generator, use torch's default generator",
            diagnosis=DEFAULT_GENERATOR_DIAGNOSIS,
            rule=rule(
                self.public,
                "the same torch.manual_seed gave different draws",
                "相同的 torch.manual_seed 给出了不同的抽样结果",
            ),
        )
        expect_different_under_seeds(
            ctx,
            first,
            self.drawn(sub.with_global_seed(ctx.fresh_seed(f"{label}: generator contract, other global")), None),
            self.probs,
            label=f"{label} with generator=None",
            how="two different torch.manual_seed values",
            cause="Without a generator, draw from torch's default generator (what torch.manual_seed seeds), "
            "not from a generator or seed of your own",
            diagnosis=DEFAULT_GENERATOR_DIAGNOSIS,
        )
        _expect_continued(
            ctx,
            first,
            second,
            self.probs,
            label=f"{label} with generator=None",
            public=self.public,
            how=Bilingual(
                "two calls in a row after one torch.manual_seed", "在一次 torch.manual_seed 之后连续调用两次"
            ),
            cause="Without a generator, each call must continue torch's default generator where the last one "
            "left it: never re-seed it, nor a generator of your own, from torch.initial_seed()",
            diagnosis=DEFAULT_RESEEDED_DIAGNOSIS,
        )

    def positions_clause(self, noun: Outcome) -> None:
        """Clause 4: the batch's rows in another order, each row fit against its own target."""
        ctx, label, probs = self.ctx, self.label, self.probs
        order = _shuffled(ctx, probs.shape[0])
        target = probs[order]
        draws = self.drawn(self.sub, ctx.generator(), rows=order)
        if draws.dim() != 2 or draws.shape[0] != probs.shape[0]:
            fail(
                f"{label}: with the batch's rows in another order the call returned draws of shape "
                f"{list(draws.shape)}; expected {probs.shape[0]} rows",
                rule=rule(self.public, "the draws have the wrong shape", "抽样结果的形状不对"),
            )
        what = f"{label}, the batch's rows in the order {order}"
        public = Bilingual(
            f"{self.public}, the batch's rows in another order", f"{in_language(self.public, 'zh')}，批中各行换了顺序"
        )
        normalized = target.to(torch.float64) / target.to(torch.float64).sum(dim=1, keepdim=True)
        at_position = probs.to(torch.float64) / probs.to(torch.float64).sum(dim=1, keepdim=True)
        expect_support(
            draws,
            normalized,
            what=what,
            why_excluded=lambda row, token: f"row {row} is row {order[row]} of the batch, where it has probability 0",
            alternatives={POSITION_DIAGNOSIS: at_position},
            outcome=noun,
        )
        for row in range(probs.shape[0]):
            moved = not torch.equal(normalized[row], at_position[row])
            expect_distribution(
                ctx,
                draws[row],
                normalized[row],
                label=f"{what}, row {row} (row {order[row]} of the batch)",
                public=Bilingual(f"{public}, row {row}", f"{public.zh}，第 {row} 行"),
                alternatives={POSITION_DIAGNOSIS: at_position[row]} if moved else None,
                outcome=noun,
            )


def _expect_continued(
    ctx: Context,
    first: torch.Tensor,
    second: torch.Tensor,
    probs: torch.Tensor,
    *,
    label: str,
    public: str,
    how: Bilingual,
    cause: str,
    diagnosis: Bilingual,
) -> None:
    """Two calls in a row (``how``) on one stream must not repeat each other's draws: one ``seeds``
    check, at the exact chance that a correct sampler does (:func:`_repeat_chance`)."""
    first, second = (d.unsqueeze(0) if d.dim() == 1 else d for d in (first, second))
    if first.shape != second.shape:
        fail(
            f"{label}: {how} returned draws of shapes {list(first.shape)} and {list(second.shape)}",
            rule=rule(public, "the draws have the wrong shape", "抽样结果的形状不对"),
        )
    chance = _repeat_chance(ctx, first, probs, label, public)
    alpha = ctx.budget.spend("seeds")
    same = bool(torch.equal(first, second))
    ctx.records.append(CheckRecord("seeds", f"{label}, {how}", float(same), chance if same else 1.0, alpha, not same))
    if same:
        raise CheckFailed(
            f"{label}: {how} gave exactly the same {first.numel()} draws "
            f"(a correct sampler does that with probability {chance:.3g}). {cause}",
            p_value=chance,
            diagnosis=diagnosis,
            rule=rule(public, f"{how} gave the same draws", f"{how.zh}给出了相同的抽样结果"),
        )


def _repeat_chance(ctx: Context, draws: torch.Tensor, probs: torch.Tensor, label: str, public: str) -> float:
    """The exact chance that a correct sampler's ``draws`` (``[B, n]`` or ``[n]``) come out the same
    twice; ``RuntimeError`` (the case is too small) above the ``seeds`` level. Draws whose rows
    do not match ``probs`` are the learner's: :class:`~judge.checks.base.CheckFailed`."""
    rows = draws.unsqueeze(0) if draws.dim() == 1 else draws
    if draws.dim() not in (1, 2) or draws.is_floating_point() or (probs.dim() == 2 and rows.shape[0] != probs.shape[0]):
        fail(
            f"{label}: the draws must be a [rows, num_samples] tensor of ids, one row per target, got "
            f"a {draws.dtype} tensor of shape {list(draws.shape)}",
            rule=rule(public, "the draws have the wrong shape", "抽样结果的形状不对"),
        )
    targets = probs.unsqueeze(0).expand(rows.shape[0], probs.shape[0]) if probs.dim() == 1 else probs
    chance = identical_draws_probability(targets, rows.shape[1])
    if chance > ctx.budget.alpha("seeds"):
        raise RuntimeError(f"{label}: a correct sampler repeats itself with probability {chance:.3g}; enlarge the case")
    return chance


def _shuffled(ctx: Context, rows: int) -> list[int]:
    """An order of ``rows`` rows (from the case's own ``ctx.rng``) that moves every row."""
    order = list(range(rows))
    while any(index == row for index, row in enumerate(order)):
        ctx.rng.shuffle(order)
    return order


def _positions_arguments(probs: torch.Tensor, draw: Draw) -> None:
    if probs.dim() != 2 or probs.shape[0] < 2:
        raise _misuse(CHECK, "probs", "a [B, V] target with B >= 2 when positions=True", probs)
    try:
        parameters = inspect.signature(draw).parameters
    except (TypeError, ValueError):
        return  # a callable without a signature: its call will say
    if "rows" not in parameters and not any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
        raise _misuse(CHECK, "draw", "a function (source, generator, rows=None) when positions=True", draw)


def _twins_argument(probs: torch.Tensor, twins: Any) -> None:
    rows = probs.shape[0] if probs.dim() == 2 else 1
    valid = (
        isinstance(twins, Sequence)
        and len(twins) == 2
        and all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < rows for i in twins)
        and twins[0] != twins[1]
    )
    if not valid or not torch.equal(probs[twins[0]], probs[twins[1]]):
        raise CheckMisuse(
            CHECK,
            "twins",
            f"two different rows (i, j) in [0, {rows}) with equal targets",
            repr(twins)[:80],
        )
