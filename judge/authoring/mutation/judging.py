"""Judge an exercise's mutants with its public and hidden suites, and sort out what happened.

:func:`mutate_exercise` generates the reference's mutants, takes a seeded sample when asked,
judges the reference once (it must be AC) and then each mutant, as ``check`` judges a solution
(:func:`judge.authoring.catalogue.judge_under_seeds`, one master seed derived from the mutant's id, so a run
reproduces), and files each mutant under one outcome:

- ``killed``: rejected (any verdict but AC, TLE and IE);
- ``survived``: accepted, and not listed as equivalent: a hole in the suites, or an equivalent
  mutant the author has not listed yet;
- ``equivalent``: accepted, and listed in ``mutants.toml`` (:mod:`judge.authoring.mutation.equivalents`);
- ``timed out``: TLE under the mutation run's CPU limit per case, :data:`TIME_FACTOR` times the
  reference's slowest case (at least :data:`MIN_TIME_LIMIT_S`, at most the exercise's own limit),
  so that a mutant that loops costs seconds, not minutes;
- ``error``: IE, the suites crashed on the mutant's answers (a bug of the exercise to fix).

Every listed equivalent is judged, sampled or not: one the suites kill was not equivalent, and
one that no longer exists is stale; both are :attr:`ExerciseMutation.problems`. A killed mutant
whose report names a diagnosis is listed too (:attr:`ExerciseMutation.diagnosed`): unless the mutant
*is* a catalogued mistake (the same program as a ``wrong/*.py``, docstrings aside), a named
diagnosis is a claim about a mistake nobody catalogued, for a human to judge.
"""

from __future__ import annotations

import ast
import random
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING

from judge.authoring.catalogue import judge_under_seeds, report_diagnoses
from judge.authoring.mutation.equivalents import EQUIVALENTS_FILE, load_equivalents, stale_entries
from judge.authoring.mutation.mutants import Mutant, generate_mutants
from judge.authoring.mutation.operators import OPERATORS, MutationOperator
from judge.checks.testing import derive_seed
from judge.exercises.exercise import WALL_FACTOR, Exercise
from judge.reports.report import Report, first_failure, is_failure
from judge.verdicts import Verdict

if TYPE_CHECKING:
    from judge.sandbox.launchers import Launcher

OUTCOMES = ("killed", "survived", "equivalent", "timed out", "error")
TIME_FACTOR = 10.0  # a mutant may use this many times the reference's CPU time per case
MIN_TIME_LIMIT_S = 2.0  # ...and never less than this per case (a fork, an import, a busy machine)
# Mutants judged per exercise by default: about 15 s on two cores. Kill rates from a simple random
# sample are unbiased; `--sample all` (MUTATION_SAMPLE=all) judges every one.
DEFAULT_SAMPLE = 100


@dataclass
class MutantOutcome:
    """How one mutant fared. ``killed_by``: ``suite/case`` of the first failing case; ``diagnoses``:
    each named diagnosis of the report (English, :func:`judge.authoring.catalogue.report_diagnoses`) and the
    failing cases (``suite/case``) that gave it; ``reason``: why it is equivalent, when listed;
    ``catalogued``: the wrong solution it is the same program as, if any."""

    mutant: Mutant
    outcome: str
    verdict: str
    seed: int | None
    time_s: float
    killed_by: str = ""
    message: str = ""
    diagnoses: dict[str, list[str]] = field(default_factory=dict)
    reason: str = ""
    catalogued: str = ""

    def to_json(self) -> dict:
        mutant = self.mutant
        return {
            "id": mutant.id,
            "operator": mutant.operator,
            "line": mutant.line,
            "function": mutant.function,
            "before": mutant.before,
            "after": mutant.after,
            "outcome": self.outcome,
            "verdict": self.verdict,
            "seed": self.seed,
            "time_s": round(self.time_s, 3),
            "killed_by": self.killed_by,
            "message": self.message,
            "diagnoses": self.diagnoses,
            "equivalent_reason": self.reason,
            "catalogued": self.catalogued,
        }


@dataclass
class ExerciseMutation:
    """One exercise's mutation run: every mutant generated, those judged, and what went wrong."""

    exercise: Exercise
    generated: list[Mutant]
    judged: list[MutantOutcome]
    sample: int | None  # the sample size asked for (None: every mutant)
    sample_seed: int
    time_limit_s: float  # the CPU limit per case the mutants ran under
    equivalents_path: Path
    stale: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    time_s: float = 0.0
    sampled: bool = False  # the sample left some mutants unjudged

    def count(self, outcome: str) -> int:
        return sum(1 for judged in self.judged if judged.outcome == outcome)

    def with_outcome(self, outcome: str) -> list[MutantOutcome]:
        return [judged for judged in self.judged if judged.outcome == outcome]

    @property
    def diagnosed(self) -> list[MutantOutcome]:
        """Killed mutants whose report names a diagnosis: each name for a human to judge."""
        return [judged for judged in self.judged if judged.diagnoses]

    @property
    def kill_rate(self) -> float | None:
        """Killed or timed out, over the judged mutants that are not equivalent (None: none judged)."""
        judged = len(self.judged) - self.count("equivalent")
        return (self.count("killed") + self.count("timed out")) / judged if judged else None

    def to_json(self) -> dict:
        return {
            "exercise": self.exercise.number,
            "slug": self.exercise.slug,
            "generated": len(self.generated),
            "judged": len(self.judged),
            **{outcome.replace(" ", "_"): self.count(outcome) for outcome in OUTCOMES},
            "kill_rate": self.kill_rate,
            "sample": self.sample,
            "sampled": self.sampled,
            "sample_seed": self.sample_seed,
            "time_limit_s": self.time_limit_s,
            "time_s": round(self.time_s, 1),
            "equivalents_file": str(self.equivalents_path),
            "stale": self.stale,
            "problems": self.problems,
            "mutants": [judged.to_json() for judged in self.judged],
        }


def tool_version() -> str:
    """The mutation tool, as the reports name it."""
    return f"cosmic-ray {version('cosmic-ray')}"


def choose_sample(
    mutants: list[Mutant], size: int | None, seed: int, label: str, namespace: str = "mutation"
) -> list[Mutant]:
    """A simple random sample of ``size`` mutants (all of them when ``size`` is None or not smaller),
    drawn with ``random.Random`` seeded by ``namespace``, ``seed`` and ``label`` (the exercise's
    folder; a module's path for ``scripts/mutation_core.py``, whose namespace is "mutation-core"),
    in the mutants' order. The same mutants and seed always give the same sample."""
    if size is None or size >= len(mutants):
        return list(mutants)
    chosen = set(random.Random(f"{namespace}:{seed}:{label}").sample(range(len(mutants)), size))
    return [mutant for index, mutant in enumerate(mutants) if index in chosen]


def mutate_exercise(
    exercise: Exercise,
    *,
    sample: int | None = None,
    seed: int = 0,
    jobs: int = 2,
    launcher: Launcher | None = None,
    operators: Iterable[MutationOperator] = OPERATORS,
    keep: Path | None = None,
    progress: Callable[[MutantOutcome], None] | None = None,
) -> ExerciseMutation:
    """Generate the mutants of ``exercise``'s reference, judge a sample of ``sample`` of them (None:
    all) and every listed equivalent, ``jobs`` at a time; see the module's docstring.

    ``seed`` seeds the sample and each mutant's master seed. ``launcher`` starts the learner
    processes (default: a :class:`~judge.sandbox.launchers.WarmLocalLauncher` for this call).
    ``keep``: a folder to write each judged mutant to (``<keep>/<NNN-slug>/<id>.py``, ``:`` as
    ``_``), to judge one again by hand; by default they live in a temporary folder.
    Raises :class:`~judge.exercises.folders.ExerciseError` for an unreadable ``mutants.toml``, and
    ``ValueError`` for a ``sample`` below 1.
    """
    if sample is not None and sample < 1:
        raise ValueError(f"the sample must hold at least one mutant, got {sample}")
    if launcher is None:
        from judge.sandbox.launchers import WarmLocalLauncher

        with WarmLocalLauncher() as warm:
            return mutate_exercise(
                exercise,
                sample=sample,
                seed=seed,
                jobs=jobs,
                launcher=warm,
                operators=operators,
                keep=keep,
                progress=progress,
            )
    started = time.monotonic()
    source = exercise.reference_path.read_text(encoding="utf-8")
    mutants = generate_mutants(source, operators)
    equivalents_path = exercise.solutions_root / EQUIVALENTS_FILE
    listed = load_equivalents(equivalents_path)
    run = ExerciseMutation(exercise, mutants, [], sample, seed, exercise.time_limit_s, equivalents_path)
    run.stale = stale_entries(listed, (m.id for m in mutants))
    run.problems += [
        f"{equivalents_path.name}: stale entry {mutant_id!r}: no such mutant now" for mutant_id in run.stale
    ]

    baseline = judge_under_seeds(exercise, exercise.reference_path, [derive_seed(seed, "mutation")], launcher=launcher)
    if baseline[0].verdict is not Verdict.AC:
        run.problems.append(f"the reference got {baseline[0].verdict.value} ({baseline[0].message}): no mutant judged")
        run.time_s = time.monotonic() - started
        return run
    judging = _limited(exercise, baseline[0])
    run.time_limit_s = judging.time_limit_s

    pool = [m for m in mutants if m.id not in listed]
    chosen = choose_sample(pool, sample, seed, exercise.folder)
    run.sampled = len(chosen) < len(pool)
    chosen_ids = {m.id for m in chosen}
    to_judge = [m for m in mutants if m.id in chosen_ids or m.id in listed]
    catalogue = _catalogue_shapes(exercise)

    with tempfile.TemporaryDirectory(prefix="probjudge-mutants-") as scratch:
        folder = (keep if keep is not None else Path(scratch)) / exercise.folder
        folder.mkdir(parents=True, exist_ok=True)

        def judge_one(mutant: Mutant) -> MutantOutcome:
            path = folder / f"{mutant.id.replace(':', '_')}.py"
            path.write_text(mutant.source, encoding="utf-8")
            mutant_seed = derive_seed(seed, "mutation", mutant.id)
            began = time.monotonic()
            report = judge_under_seeds(judging, path, [mutant_seed], launcher=launcher)[0]
            outcome = _outcome(mutant, report, listed, time.monotonic() - began)
            if progress:
                progress(outcome)
            return outcome

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as threads:
            run.judged = list(threads.map(judge_one, to_judge))
    for judged in run.judged:  # here, not in the threads: CPython 3.11's ast.parse is not thread-safe
        judged.catalogued = catalogue.get(program_shape(judged.mutant.source), "")
    for judged in run.judged:
        if judged.reason and judged.outcome != "equivalent":
            run.problems.append(
                f"{equivalents_path.name}: {judged.mutant.id} is listed as equivalent, but it got "
                f"{judged.verdict} ({judged.killed_by}): it is not equivalent, or the suites fail a correct program"
            )
    run.time_s = time.monotonic() - started
    return run


def _limited(exercise: Exercise, reference: Report) -> Exercise:
    """``exercise`` with the mutation run's CPU limit per case (see the module's docstring)."""
    slowest_s = max((case.cpu_ms or 0.0 for case in reference.cases), default=0.0) / 1000
    limit = min(exercise.time_limit_s, max(MIN_TIME_LIMIT_S, TIME_FACTOR * slowest_s))
    return replace(exercise, time_limit_s=limit, wall_limit_s=min(exercise.wall_cap_s, WALL_FACTOR * limit))


def _outcome(mutant: Mutant, report: Report, listed: dict[str, str], elapsed_s: float) -> MutantOutcome:
    verdict = report.verdict
    if verdict is Verdict.AC:
        outcome = "equivalent" if mutant.id in listed else "survived"
    elif verdict is Verdict.TLE:
        outcome = "timed out"
    elif verdict is Verdict.IE:
        outcome = "error"
    else:
        outcome = "killed"
    failing = first_failure(report.cases)
    message = (report.message or "").strip().splitlines()
    return MutantOutcome(
        mutant,
        outcome,
        verdict.value,
        report.seed,
        elapsed_s,
        killed_by=f"{failing.suite}/{failing.name}" if failing is not None else "",
        message=message[0][:300] if message and verdict is not Verdict.AC else "",
        diagnoses=_diagnoses(report),
        reason=listed.get(mutant.id, ""),
    )


def _diagnoses(report: Report) -> dict[str, list[str]]:
    """Each diagnosis the report names, and the failing cases that name it (in the report's order)."""
    failing = [case for case in report.cases if is_failure(case.verdict) and case.diagnosis]
    return {
        diagnosis: [f"{case.suite}/{case.name}" for case in failing if str(case.diagnosis) == diagnosis]
        for diagnosis in report_diagnoses(report)
    }


def program_shape(source: str) -> str:
    """What a program does, for comparing two: its AST without docstrings, as text ("" if it does not parse)."""
    try:
        module = ast.parse(source)
    except SyntaxError:
        return ""
    for node in ast.walk(module):
        body = getattr(node, "body", None)
        if (
            isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(module, annotate_fields=False)


def _catalogue_shapes(exercise: Exercise) -> dict[str, str]:
    """The shape of each wrong solution (:func:`program_shape`) -> its name."""
    shapes = {}
    for path in exercise.wrong_solutions():
        shape = program_shape(path.read_text(encoding="utf-8"))
        if shape:
            shapes[shape] = path.stem
    return shapes
