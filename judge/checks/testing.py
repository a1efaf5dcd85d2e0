"""What an exercise's test functions receive: a handle to the submission and a context.

A test is a plain function ``def test_something(sub, ctx): ...`` in ``tests/public.py`` or
``tests/hidden.py``. ``sub.sample(logits, num_samples=..., generator=ctx.generator())``
runs the learner's ``sample`` in the learner's process and returns its value with tensors on
the CPU; the test then decides with the checks of :mod:`judge.checks` (one module per family).
The first line of a test's docstring is its title in reports.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from judge.checks.base import CheckFailed, CheckMisuse, _misuse, rule
from judge.checks.budget import Spending
from judge.checks.evidence import Evidence
from judge.i18n import Bilingual
from judge.learner.code import KEPT_GENERATORS
from judge.learner.hosts import collect as collect_hosts
from judge.learner.interface import CallOptions, CallResult, DrawSitePush, Learner, LearnerRaised
from judge.learner.wire import GeneratorSpec
from judge.reports.report import CheckRecord

SEED_BITS = 53  # seeds stay exact as JSON numbers in JavaScript (2**53 - 1 is the largest safe integer)


def _seed_argument(check: str, seed: object) -> int:
    """``seed`` is an int in ``[0, 2**SEED_BITS)`` (what a browser's JavaScript keeps exact)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**SEED_BITS:
        given = f"{type(seed).__name__} {seed!r}" if isinstance(seed, (int, float)) else type(seed).__name__
        raise CheckMisuse(check, "seed", f"an int in [0, 2**{SEED_BITS}) (such as ctx.fresh_seed(name))", given)
    return seed


# The keys of kept generators (Context.kept_generator): never one twice in this judge process, so a
# learner process (which may outlive a case, a grading even) never confuses two of them.
_KEPT_KEYS = itertools.count(1)

LANE_WEIGHT_ATTRIBUTE = "lane_weight"


def valid_lane_weight(weight: object) -> bool:
    """Whether ``weight`` is a lane weight: an int or float (not a bool), finite and above 0."""
    return not isinstance(weight, bool) and isinstance(weight, (int, float)) and 0 < weight < float("inf")


def lane_weight(weight: float) -> Callable[[Callable], Callable]:
    """Decorate a test function with how much of a grading's work it is, against 1 for a case
    of ordinary size (a few milliseconds); a grading on several lanes balances them by it (see
    :func:`judge.engine.runner.lane_shares`). It never changes what a case checks or decides. An author
    measures the weights the cases need with ``python practice/judge.py lanes NNN`` (judge/authoring/balance.py).

    ``weight`` is a finite number above 0; anything else raises :class:`CheckMisuse` when the
    suite is imported.
    """
    if not valid_lane_weight(weight):
        raise CheckMisuse("lane_weight", "weight", "a finite number above 0", repr(weight))

    def mark(function: Callable) -> Callable:
        setattr(function, LANE_WEIGHT_ATTRIBUTE, float(weight))
        return function

    return mark


def derive_seed(*parts: object) -> int:
    """A 53-bit seed from a master seed and names: stable across runs, machines and Python versions."""
    digest = hashlib.blake2b("\x1f".join(str(p) for p in parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> (64 - SEED_BITS)


@dataclass
class Context:
    """Per-case state: seeds, device, the run's false-failure budget and the checks recorded.

    ``seed`` is this case's seed (derived from the run's master seed and the case name), so a
    report's seed reproduces every draw of the run. ``visible``: whether the learner may see this
    case's counts (its suite is not hidden; :func:`judge.engine.runner._run_case` sets it): only then does a
    failed check record a figure of them (:attr:`~judge.reports.report.CheckRecord.figure`). False unless
    told, so a context made elsewhere never draws a hidden case's data.
    """

    seed: int
    device: str
    budget: Spending  # the run's FalseFailureBudget, as the case's CaseBudget (or a stage's share of it)
    # Wall-clock seconds the learner's calls may still take in this case (the cap is for code that
    # sleeps or blocks). Only time inside calls is charged: the judge's own work between calls
    # (cases, targets, statistics) never is, so a busy judge cannot turn a correct answer into TLE.
    wall_left_s: float = float("inf")
    cpu_deadline: float = float("inf")  # the learner process's cpu_time_s() at which the case runs out of CPU
    cpu_limit_s: float | None = None  # the case's CPU-time limit (for messages)
    records: list[CheckRecord] = field(default_factory=list)
    fit_statistics: list[tuple[float, int, float]] = field(default_factory=list)  # (G, df, log atom)
    # The learner's functions that raised NotImplementedError in this case (not written yet), in order.
    not_implemented: list[str] = field(default_factory=list)
    # The learner's functions that returned a value in this case: written, so a NotImplementedError
    # they raise later is torch's (softmax of an integer tensor), not a function not written yet.
    returned: set[str] = field(default_factory=set)
    visible: bool = False
    # Whether staged checks may stop at an early stage (judge.checks.sequential): the run's choice
    # (grade(..., sequential=...)); False draws every staged sample whole, in one stage.
    sequential: bool = True
    _generators: int = 0
    _kept_generators: int = 0

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)  # for the test's own choices, never for the learner

    def generator(self, seed: int | None = None) -> GeneratorSpec:
        """A ``torch.Generator`` to pass to the learner; a fresh seed each call unless ``seed`` is given.

        The learner's function receives a real ``torch.Generator`` seeded with that seed, made on
        the run's device (``ctx.device``: ``torch.Generator(device=ctx.device)``), where the tensor
        arguments are too; a CUDA generator's stream differs from a CPU one's. Two generators made
        with the same ``seed`` on one device give the same stream. ``seed``: an int in
        ``[0, 2**53)``, such as ``ctx.fresh_seed(name)``; anything else raises :class:`CheckMisuse`.
        """
        if seed is None:
            self._generators += 1
            seed = derive_seed(self.seed, "generator", self._generators)
        return GeneratorSpec(_seed_argument("Context.generator", seed))

    def kept_generator(self, seed: int | None = None) -> GeneratorSpec:
        """A ``torch.Generator`` the learner's process keeps: one object for every call it is passed to.

        As :meth:`generator` (a fresh seed unless ``seed`` is given, made on ``ctx.device``), but the
        learner's side makes it at the first call it is passed to and hands the same object, in
        whatever state that call left it, to every later call: so two calls with it must continue
        one stream (a correct sampler's second call does not repeat its first). Its key is new in
        this judge process, never another case's (so nothing the learner's code did with another
        case's generators reaches it). A case may make at most
        :data:`judge.learner.code.KEPT_GENERATORS` of them (the learner's side keeps no more):
        :class:`CheckMisuse` past that, and for a bad ``seed``.
        """
        if seed is not None:
            seed = _seed_argument("Context.kept_generator", seed)
        if self._kept_generators >= KEPT_GENERATORS:
            raise CheckMisuse(
                "Context.kept_generator",
                "(the call)",
                f"made at most {KEPT_GENERATORS} times in one case",
                f"call number {self._kept_generators + 1}",
            )
        self._kept_generators += 1
        if seed is None:
            seed = derive_seed(self.seed, "kept generator", self._kept_generators)
        return GeneratorSpec(seed, next(_KEPT_KEYS))

    def fresh_seed(self, label: str) -> int:
        """A seed of this case named by ``label`` (a str): the same label gives the same seed in one
        run, and the run's master seed changes them all. Raises :class:`CheckMisuse` for a non-str."""
        if not isinstance(label, str):
            raise CheckMisuse("Context.fresh_seed", "label", "a str naming the seed", type(label).__name__)
        return derive_seed(self.seed, label)

    def remaining_s(self) -> float:
        """Wall-clock seconds the learner's calls may still take before the case's cap."""
        return max(0.0, self.wall_left_s)

    def charge_wall(self, seconds: float) -> None:
        """Count ``seconds`` spent waiting for one learner call against the case's wall cap."""
        self.wall_left_s -= max(0.0, seconds)


def _context(check: str, ctx: Any) -> None:
    """``ctx`` is the test's :class:`Context`; else :class:`~judge.checks.base.CheckMisuse` for ``check``."""
    if not isinstance(ctx, Context):
        raise _misuse(check, "ctx", "the test's Context (the second argument of the test function)", ctx)


class Submission:
    """Calls into the learner's process. Attribute access gives the exercise's functions.

    ``sub.NAME(*args, **kwargs)`` calls the learner's function ``NAME`` (one the exercise's
    ``exercise.toml`` declares) with the arguments as given: tensors travel as tensors (on the
    learner's side they are on the run's device, ``ctx.device``), Python numbers, strings, lists,
    dicts with string keys and None as themselves (a tuple as a list), a ``ctx.generator()`` as
    a ``torch.Generator`` on ``ctx.device``. It
    returns the learner's value with tensors on the CPU (``origin_device`` says where they were);
    check it before use (:func:`judge.checks.exact.expect_tensor`). It raises
    :class:`~judge.engine.process.LearnerRaised` when the learner's code raises (RE unless a check
    expects it), :class:`~judge.checks.base.CheckFailed` when the call changed an input tensor in
    place (unless the exercise allows it), ``ProcessFailed`` for a crash, timeout or memory
    limit, and ``AttributeError`` for a function the exercise does not declare.
    """

    def __init__(
        self,
        process: Learner,
        function_names: tuple[str, ...],
        ctx_getter: Callable[[], Context],
        options: CallOptions = CallOptions(),
        *,
        inputs_read_only: bool = True,
        seed_once: list[int] | None = None,
    ) -> None:
        self._inputs_read_only = inputs_read_only
        self._process = process
        self._names = function_names
        self._ctx = ctx_getter
        self._options = options
        # With draw sites counted or pushed: the most draw sites one call through it made (the
        # learner's side's count, so it only ever decides how many more calls the judge makes).
        self.draw_sites_seen: int | None = None
        # with_global_seed(seed, once=True): [seed] until the next call takes it (shared by the
        # submissions made from this one), then [].
        self._seed_once = seed_once
        # watching_global_rng(): the functions whose calls changed torch's default generators.
        self.global_rng_changed_by: list[str] = []

    def __getattr__(self, name: str) -> LearnerFunction:
        if name.startswith("_") or name not in self._names:
            raise AttributeError(
                f"the exercise declares no function {name!r} (it declares: {', '.join(self._names) or 'none'})"
            )
        return LearnerFunction(self, name)

    def _call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """``sub.NAME(*args, **kwargs)``: see the class."""
        ctx = self._ctx()
        hosts = collect_hosts([args, kwargs]).values()  # their answers' time is the judge's, never charged
        started, hosted = time.monotonic(), sum(host.seconds for host in hosts)
        try:
            result = self._process.call(
                name, list(args), kwargs, timeout_s=ctx.remaining_s(), options=self._next_options(), **self._cpu(ctx)
            )
        except LearnerRaised as raised:
            self._note(name, raised, ctx)
            raise
        finally:
            ctx.charge_wall(time.monotonic() - started - (sum(host.seconds for host in hosts) - hosted))
        if self._options.draw_sites is not None and result.draw_sites is not None:
            self.draw_sites_seen = max(self.draw_sites_seen or 0, result.draw_sites)
        return self._value(name, result)

    def _next_options(self) -> CallOptions:
        """The options of the next call (or batch of calls): the seed of ``once`` is taken by it."""
        if not self._seed_once:
            return self._options
        return replace(self._options, global_seed=self._seed_once.pop())

    @staticmethod
    def _note(name: str, raised: LearnerRaised, ctx: Context) -> None:
        """Keep in ``ctx`` that the learner's ``name`` is not written yet, when it raised
        NotImplementedError before it ever returned in this case (once it has, the error is an error)."""
        if name in ctx.returned:
            raised.written = True
        if raised.not_implemented and name not in ctx.not_implemented:
            ctx.not_implemented.append(name)

    def _value(self, name: str, result: CallResult) -> Any:
        self._ctx().returned.add(name)
        if result.modified and self._inputs_read_only:
            _fail_modified(name, result.modified)
        if self._options.watch_global_rng and result.global_rng_changed:
            self.global_rng_changed_by.append(name)
        return result.value

    @staticmethod
    def _cpu(ctx: Context) -> dict[str, Any]:
        # An in-process learner (the browser's) has no CPU clock of its own to watch.
        if ctx.cpu_deadline == float("inf"):
            return {}
        return {"cpu_deadline_s": ctx.cpu_deadline, "cpu_limit_s": ctx.cpu_limit_s}

    def _refusals(
        self, calls: Sequence[tuple[str, tuple[Any, ...], dict[str, Any]]], accept: Sequence[str]
    ) -> list[Callable[[], Any]]:
        """Calls expected to raise (``(name, args, kwargs)`` each): one function per call that does
        what ``sub.NAME(*args, **kwargs)`` does (returns its value, or raises), to be called in order.

        Where the learner can take them in one request (:meth:`judge.engine.process.LearnerProcess.refusals`:
        the calls run in order there, until the first one that is not refused, a type in
        ``accept`` with a message), they run now, and each function replays its call's outcome;
        a call the batch never reached runs when its function is called, as it would have. So a
        check that calls them in order, stopping at the first that is not refused, sees exactly
        what the calls one after the other would give, in one round trip instead of one each.
        """
        batch = getattr(self._process, "refusals", None)
        if batch is None or len(calls) < 2 or self._options.draw_sites is not None:  # batches push no sites
            return [functools.partial(self._call, name, args, kwargs) for name, args, kwargs in calls]
        ctx = self._ctx()
        started = time.monotonic()
        try:
            outcomes = batch(
                [(name, list(args), dict(kwargs)) for name, args, kwargs in calls],
                list(accept),
                timeout_s=ctx.remaining_s(),
                options=self._next_options(),
                **self._cpu(ctx),
            )
        finally:
            ctx.charge_wall(time.monotonic() - started)
        replays: list[Callable[[], Any]] = []
        for index, (name, args, kwargs) in enumerate(calls):
            if index < len(outcomes):
                replays.append(functools.partial(self._replay, name, outcomes[index]))
            else:  # the batch stopped before it, or it did not fit in one request: made when called
                replays.append(functools.partial(self._call, name, args, kwargs))
        return replays

    def _replay(self, name: str, outcome: CallResult | LearnerRaised) -> Any:
        if isinstance(outcome, LearnerRaised):
            self._note(name, outcome, self._ctx())
            raise outcome
        return self._value(name, outcome)

    def with_extreme_uniforms(self, seed: int) -> Submission:
        """The same submission, but ``torch.rand``/``rand_like``/``uniform_`` return 0.0 and 1-ulp often
        (the choice of which values, from ``seed``: an int in ``[0, 2**53)``; else :class:`CheckMisuse`)."""
        seed = _seed_argument("Submission.with_extreme_uniforms", seed)
        return self._with(replace(self._options, extreme_uniforms=seed, draw_sites=None))

    def with_global_seed(self, seed: int, *, once: bool = False) -> Submission:
        """The same submission, with ``torch.manual_seed(seed)`` run in its process before each call
        (``seed``: an int in ``[0, 2**53)``; else :class:`CheckMisuse`). Two calls through it with
        ``generator=None`` must then give the same draws.

        ``once``: seed before the next call made through it (or through a submission made from
        it) only, and never again: the calls after it continue the default generator's stream, so
        two calls in a row with ``generator=None`` must give different draws."""
        seed = _seed_argument("Submission.with_global_seed", seed)
        if once:
            return self._with(replace(self._options, global_seed=None), seed_once=[seed])
        return self._with(replace(self._options, global_seed=seed), seed_once=[])

    def with_draw_sites_counted(self) -> Submission:
        """The same submission, counting the draw sites of each call (the calls of ``torch.rand``,
        ``rand_like``, ``uniform_``, ``randint``, ``randint_like`` and ``random_`` that draw,
        :mod:`judge.learner.uniform_sources`) without changing a value: after a call,
        :attr:`draw_sites_seen` is the most that one call through it made."""
        return self._with(replace(self._options, extreme_uniforms=None, draw_sites=DrawSitePush()))

    def with_draw_site_pushed(self, site: int, *, high: bool, seed: int) -> Submission:
        """The same submission, with draw site ``site`` (counted from 0) of each call pushed to its
        lowest value (0.0, ``low``) or, with ``high``, its highest (the largest float below 1,
        ``high - 1``): wholly in a tensor of one value per line, one value per line otherwise
        (:meth:`judge.learner.uniform_sources.DrawSites.push`; ``seed`` picks those positions). ``site``:
        an int >= 0; ``seed``: an int in ``[0, 2**53)``; else :class:`CheckMisuse`."""
        if isinstance(site, bool) or not isinstance(site, int) or site < 0:
            raise CheckMisuse("Submission.with_draw_site_pushed", "site", "an int >= 0", repr(site))
        seed = _seed_argument("Submission.with_draw_site_pushed", seed)
        push = DrawSitePush(site=site, high=bool(high), seed=seed)
        return self._with(replace(self._options, extreme_uniforms=None, draw_sites=push))

    def watching_global_rng(self) -> Submission:
        """The same submission, whose calls report whether they changed the state of torch's
        default generator (the CPU one, and the run's CUDA device's on a CUDA run): the names of
        the functions whose calls did are appended to its :attr:`global_rng_changed_by`. The
        report is the learner's side's (see :class:`judge.learner.code.DefaultGeneratorWatch`)."""
        return self._with(replace(self._options, watch_global_rng=True))

    def _with(self, options: CallOptions, seed_once: list[int] | None = None) -> Submission:
        return Submission(
            self._process,
            self._names,
            self._ctx,
            options,
            inputs_read_only=self._inputs_read_only,
            seed_once=self._seed_once if seed_once is None else seed_once,
        )


class LearnerFunction:
    """``sub.NAME``: calling it calls the learner's function ``NAME`` (see :class:`Submission`).

    ``submission`` and ``name`` let a check that makes many calls of the learner's functions
    (:func:`judge.checks.refusals.expect_calls_refused`) send them together.
    """

    __slots__ = ("submission", "name", "__name__")

    def __init__(self, submission: Submission, name: str) -> None:
        self.submission = submission
        self.name = name
        self.__name__ = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.submission._call(self.name, args, kwargs)

    def __repr__(self) -> str:
        return f"<the learner's {self.name}()>"


MODIFIED_DIAGNOSIS = Bilingual(
    "the function changes its input tensors in place (for example `logits /= temperature`)",
    "函数就地修改了输入的张量（例如 `logits /= temperature`）",
)


def _fail_modified(function: str, names: tuple[str, ...]) -> None:
    """A call changed its tensor arguments in place, which every exercise's statement forbids."""
    listed = ", ".join(f"`{n}`" for n in names)
    raise CheckFailed(
        f"{function}() changed its argument{'s' if len(names) > 1 else ''} {listed} in place; the caller's tensors "
        "must be left as they were (work on a copy: `logits = logits / temperature`, not `logits /= temperature`)",
        diagnosis=MODIFIED_DIAGNOSIS,
        rule=rule(function, f"changed its input {listed} in place", f"就地修改了输入 {listed}"),
        kind=Evidence.STRUCTURAL,
    )
