#!/usr/bin/env python3
"""Mutation testing of ProbJudge's own code: do the tests of a module fail when it breaks?

``make mutation-core`` (maintainers; minutes to hours, not in ``make test``) takes each module
listed in ``tests/mutation_core.toml`` — the wire, the learner's child and its environment, the
limits, permissions, visibility, counting, the statistics core — makes its mutants with the same
operators as ``make mutation`` (``judge/authoring/mutation/operators.py``, cosmic-ray's parso trees: ``<``
becomes ``<=``, a statement becomes ``pass``, a keyword argument is left out…), and runs the
module's own tests against each one in a private copy of the checkout. A mutant is *killed* when
a test fails (or the tests cannot even start, or run past the time limit), *survives* when every
test passes. Each survivor gets a test, or a one-line reason in the module's ``equivalent`` table
when no correct test could tell it from the original (a log message, a cache size).

The file also keeps **hand-made mutants**: the bugs a person once made by hand to show that a test
was narrower than its name (issue 32: an environment deny-list instead of an allow-list, no
``RLIMIT_AS``, an admin check dropped…). ``tests/test_mutation_core.py`` applies each one in CI and
fails when the tests it names stop catching it, so those bugs stay caught.

    python scripts/mutation_core.py run [MODULE ...] [--sample N|all] [--seed 0] [--jobs 2]
                                        [--json PATH] [--markdown PATH] [--ratchet]
    python scripts/mutation_core.py handmade [NAME ...]
    python scripts/mutation_core.py show MODULE ID [ID ...]

``run`` prints each module's score (killed / (judged - equivalent)) and its survivors with their
ids, lines and changes; ``--ratchet`` exits 1 when a module's score falls below its ``floor``.
``handmade`` exits 1 when one of them survives. Exit 2 for a configuration error (a module or test
that does not exist, a hand-made mutant whose ``old`` text is not in its file exactly once, tests
that fail before any mutation).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "tests" / "mutation_core.toml"
# Built outputs a test may need, linked (never copied) into each private copy of the checkout.
LINKED = (".venv", "web/frontend/node_modules", "web/static/build")


class ConfigError(Exception):
    """The configuration names something that does not exist, or its tests fail unmutated."""


@dataclass(frozen=True)
class ModuleConfig:
    """One module under mutation: its path from the checkout's root, the tests that must kill its
    mutants (paths or node ids), how many mutants ``make mutation-core`` samples by default
    (``None``: all), the lowest score the ratchet accepts, and the equivalent mutants by id with
    the one-line reason no correct test can kill each."""

    path: str
    tests: tuple[str, ...]
    sample: int | None
    floor: float
    equivalent: dict[str, str]


@dataclass(frozen=True)
class Handmade:
    """A bug once made by hand: in ``file``, the text ``old`` (present exactly once) becomes
    ``new``; ``tests`` must then fail. ``finding`` says which weak test it exposed."""

    name: str
    file: str
    old: str
    new: str
    tests: tuple[str, ...]
    finding: str


@dataclass(frozen=True)
class Config:
    modules: dict[str, ModuleConfig]
    handmade: tuple[Handmade, ...]


def load_config(path: Path = CONFIG, root: Path = ROOT) -> Config:
    """Read ``tests/mutation_core.toml``. Raises :class:`ConfigError` for an unknown key, a module or
    test file that does not exist, or a hand-made mutant whose ``old`` text is not in its file
    exactly once (its file changed: update the entry)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    unknown = set(data) - {"modules", "handmade"}
    if unknown:
        raise ConfigError(f"{path.name}: unknown tables {sorted(unknown)}")
    modules: dict[str, ModuleConfig] = {}
    for module, entry in data.get("modules", {}).items():
        extra = set(entry) - {"tests", "sample", "floor", "equivalent"}
        if extra:
            raise ConfigError(f"{path.name}: module {module}: unknown keys {sorted(extra)}")
        if not (root / module).is_file():
            raise ConfigError(f"{path.name}: module {module} does not exist")
        tests = tuple(entry["tests"])
        _check_tests(tests, root, f"module {module}")
        sample = entry.get("sample", "all")
        modules[module] = ModuleConfig(
            module,
            tests,
            None if sample == "all" else int(sample),
            float(entry.get("floor", 0.0)),
            dict(entry.get("equivalent", {})),
        )
    handmade = []
    for entry in data.get("handmade", []):
        extra = set(entry) - {"name", "file", "old", "new", "tests", "finding"}
        if extra:
            raise ConfigError(f"{path.name}: hand-made mutant {entry.get('name')}: unknown keys {sorted(extra)}")
        bug = Handmade(
            entry["name"], entry["file"], entry["old"], entry["new"], tuple(entry["tests"]), entry["finding"]
        )
        target = root / bug.file
        if not target.is_file():
            raise ConfigError(f"hand-made mutant {bug.name!r}: {bug.file} does not exist")
        found = target.read_text(encoding="utf-8").count(bug.old)
        if found != 1:
            raise ConfigError(f"hand-made mutant {bug.name!r}: its old text is in {bug.file} {found} times, not once")
        _check_tests(bug.tests, root, f"hand-made mutant {bug.name!r}")
        handmade.append(bug)
    names = [bug.name for bug in handmade]
    if len(set(names)) != len(names):
        raise ConfigError(f"{path.name}: two hand-made mutants share a name")
    return Config(modules, tuple(handmade))


def _check_tests(tests: Sequence[str], root: Path, owner: str) -> None:
    if not tests:
        raise ConfigError(f"{owner}: names no tests")
    for test in tests:
        if not (root / test.split("::")[0]).exists():
            raise ConfigError(f"{owner}: test {test} does not exist")


@contextlib.contextmanager
def private_checkout(root: Path = ROOT) -> Iterator[Path]:
    """A temporary copy of the checkout's files (tracked and untracked, not ignored), with the
    built outputs of :data:`LINKED` linked in; removed afterwards. Mutants are written here, never
    in the checkout itself."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        check=True,
        capture_output=True,
    ).stdout.decode()
    with tempfile.TemporaryDirectory(prefix="probjudge-mutation-") as folder:
        copy = Path(folder)
        for name in filter(None, listed.split("\0")):
            source = root / name
            if not source.is_file() or source.is_symlink():
                continue
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
        for name in LINKED:
            if (root / name).exists():
                (copy / name).parent.mkdir(parents=True, exist_ok=True)
                (copy / name).symlink_to((root / name).resolve())
        yield copy


@dataclass(frozen=True)
class TestRun:
    """How the tests ended: ``passed`` (exit 0), ``failed`` (exit 1), ``error`` (exit 2 or 3: they
    could not run, an import failed), ``timeout``. ``tail``: the end of pytest's output."""

    status: str
    seconds: float
    tail: str
    skipped: bool = False  # some test skipped: it never ran, so it caught nothing


def run_tests(checkout: Path, tests: Sequence[str], timeout: float) -> TestRun:
    """Run ``tests`` with pytest in ``checkout``, stopping at the first failure, on SQLite only.

    Raises :class:`ConfigError` when pytest was given nothing to run (exit 4 or 5)."""
    environment = dict(os.environ)
    # The copy's code, never the checkout's (the editable install points there); no stale bytecode:
    # a mutant the same size as the original, written within the same second, would reuse it.
    environment["PYTHONPATH"] = str(checkout)
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    environment.pop("PROBJUDGE_TEST_POSTGRESQL_URL", None)  # one backend is enough to kill a mutant
    environment.pop("PYTEST_XDIST_WORKER", None)
    environment.pop("PROBJUDGE_CI", None)  # CI's skip gate would fail a run for a skip, which is no catch
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-o", "addopts=", *tests]
    started = time.monotonic()
    process = subprocess.Popen(
        command,
        cwd=checkout,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # the tests' own children die with it on a timeout
    )
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        return TestRun("timeout", time.monotonic() - started, output.decode(errors="replace")[-2000:])
    seconds = time.monotonic() - started
    tail = output.decode(errors="replace")[-2000:]
    code = process.returncode
    if code in (4, 5):
        raise ConfigError(f"pytest found nothing to run in {list(tests)} (exit {code}):\n{tail}")
    status = {0: "passed", 1: "failed"}.get(code, "error")
    return TestRun(status, seconds, tail, bool(re.search(r"\b\d+ skipped\b", tail)))


@contextlib.contextmanager
def mutated(checkout: Path, relative: str, source: str) -> Iterator[None]:
    """``relative`` in ``checkout`` holds ``source`` for the duration, then its original text."""
    target = checkout / relative
    original = target.read_bytes()
    target.write_text(source, encoding="utf-8")
    try:
        yield
    finally:
        target.write_bytes(original)


@dataclass
class MutantResult:
    """One mutant's outcome: ``killed`` (a test failed, or the tests could not start), ``timeout``
    (they ran past three times the unmutated run's time plus 30 s: counted as killed), ``survived``,
    or ``equivalent`` (it survived and the configuration says why no test can kill it)."""

    id: str
    line: int
    function: str
    change: str
    outcome: str
    seconds: float
    reason: str = ""


@dataclass
class ModuleResult:
    module: str
    mutants: int
    floor: float
    results: list[MutantResult] = field(default_factory=list)

    @property
    def killed(self) -> int:
        """Killed mutants, those that ran past the time limit included (as cosmic-ray counts them)."""
        return sum(result.outcome in ("killed", "timeout") for result in self.results)

    @property
    def survivors(self) -> list[MutantResult]:
        return [result for result in self.results if result.outcome == "survived"]

    @property
    def equivalent(self) -> int:
        return sum(result.outcome == "equivalent" for result in self.results)

    @property
    def score(self) -> float:
        """Killed over the mutants that some test could kill (judged minus equivalent); 1.0 when none."""
        killable = len(self.results) - self.equivalent
        return self.killed / killable if killable else 1.0


def mutate_module(
    module: ModuleConfig,
    checkouts: Sequence[Path],
    size: int | None,
    seed: int,
    progress=print,
) -> ModuleResult:
    """Judge a sample of ``module``'s mutants with its tests, one checkout per job.

    Raises :class:`ConfigError` when the tests fail without any mutant."""
    from judge.authoring.mutation.judging import choose_sample
    from judge.authoring.mutation.mutants import generate_mutants

    source = (checkouts[0] / module.path).read_text(encoding="utf-8")
    mutants = [mutant for mutant in generate_mutants(source) if not in_annotation(source, mutant.source)]
    chosen = choose_sample(mutants, size, seed, module.path, namespace="mutation-core")
    baseline = run_tests(checkouts[0], module.tests, timeout=1800)
    if baseline.status != "passed":
        raise ConfigError(f"{module.path}: its tests {baseline.status} before any mutation:\n{baseline.tail}")
    limit = 3 * baseline.seconds + 30
    result = ModuleResult(module.path, len(mutants), module.floor)
    free = list(checkouts)

    def judge_one(mutant) -> MutantResult:
        checkout = free.pop()
        try:
            with mutated(checkout, module.path, mutant.source):
                run = run_tests(checkout, module.tests, timeout=limit)
        finally:
            free.append(checkout)
        outcome = {"passed": "survived", "timeout": "timeout"}.get(run.status, "killed")
        reason = module.equivalent.get(mutant.id, "")
        if outcome == "survived" and reason:
            outcome = "equivalent"
        return MutantResult(mutant.id, mutant.line, mutant.function, mutant.change(), outcome, run.seconds, reason)

    with ThreadPoolExecutor(max_workers=len(checkouts)) as pool:
        for done, judged in enumerate(pool.map(judge_one, chosen), start=1):
            result.results.append(judged)
            progress(f"  {module.path} {done}/{len(chosen)} {judged.outcome:10} {judged.id} line {judged.line}")
    return result


def in_annotation(source: str, mutated: str) -> bool:
    """Whether the first change of ``mutated`` lies in a type annotation of ``source`` (``User | None``
    becoming ``User & None``): every module here starts ``from __future__ import annotations``, so
    an annotation is never evaluated and no test could tell such a mutant from the original."""
    offset = next(
        (i for i, (a, b) in enumerate(zip(source, mutated, strict=False)) if a != b), min(len(source), len(mutated))
    )
    line = source.count("\n", 0, offset) + 1
    column = offset - (source.rfind("\n", 0, offset) + 1)
    for node in ast.walk(ast.parse(source)):
        annotations = []
        if isinstance(node, ast.arg | ast.AnnAssign) and node.annotation is not None:
            annotations.append(node.annotation)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns is not None:
            annotations.append(node.returns)
        for annotation in annotations:
            start = (annotation.lineno, annotation.col_offset)
            end = (annotation.end_lineno or annotation.lineno, annotation.end_col_offset or 0)
            if start <= (line, column) < end:
                return True
    return False


def judge_handmade(bug: Handmade, checkout: Path, timeout: float = 900) -> TestRun:
    """Apply the hand-made bug in ``checkout`` and run its tests (they must fail). A bug in the
    browser's sources (``web/frontend/src``) is built into the copy's own assets, and the copy's
    assets are built again once the bug is gone."""
    target = checkout / bug.file
    source = target.read_text(encoding="utf-8")
    if source.count(bug.old) != 1:
        raise ConfigError(f"hand-made mutant {bug.name!r}: its old text is not in {bug.file} exactly once")
    in_assets = bug.file.startswith("web/frontend/src/")
    try:
        with mutated(checkout, bug.file, source.replace(bug.old, bug.new)):
            if in_assets:
                build_assets(checkout)
            return run_tests(checkout, bug.tests, timeout=timeout)
    finally:
        if in_assets:
            build_assets(checkout)


def caught(bug: Handmade, run: TestRun) -> bool:
    """Whether ``run`` (the tests of ``bug``, with the bug in) caught it: pytest failed, and a test
    the entry names is among the failures. An import error, or another test's failure, is no catch."""
    if run.status != "failed":
        return False
    failed = re.findall(r"^FAILED (\S+)", run.tail, re.MULTILINE)
    return any(name == test or name.startswith((test + "::", test + "[")) for name in failed for test in bug.tests)


def build_assets(checkout: Path) -> None:
    """Build the copy's browser assets into its own ``web/static/build`` (never the checkout's,
    which the copy links to until then)."""
    built = checkout / "web" / "static" / "build"
    if built.is_symlink():
        built.unlink()
    subprocess.run(["node", "build.mjs"], cwd=checkout / "web" / "frontend", check=True, capture_output=True)


def markdown_table(results: Sequence[ModuleResult], sampled: str) -> str:
    """The table docs/testing.md publishes: one row per module."""
    lines = [
        f"| module | mutants | judged ({sampled}) | killed | equivalent | survived | score | floor |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for result in results:
        lines.append(
            f"| `{result.module}` | {result.mutants} | {len(result.results)} | {result.killed} | "
            f"{result.equivalent} | {len(result.survivors)} | {result.score:.0%} | {result.floor:.0%} |"
        )
    return "\n".join(lines) + "\n"


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="judge the listed modules' mutants with their tests")
    run.add_argument("modules", nargs="*", help="module paths (default: every one in the configuration)")
    run.add_argument("--sample", default=None, help="mutants per module: a number or 'all' (default: the file's)")
    run.add_argument("--seed", type=int, default=0, help="seeds each module's sample")
    run.add_argument("--jobs", type=int, default=2, help="mutants judged at once (one checkout copy each)")
    run.add_argument("--json", dest="json_path", metavar="PATH", help="write every mutant's outcome as JSON")
    run.add_argument("--markdown", metavar="PATH", help="write the table for docs/testing.md")
    run.add_argument("--ratchet", action="store_true", help="exit 1 when a module's score is below its floor")
    show = commands.add_parser("show", help="print mutants of a module by id: line, function, change")
    show.add_argument("module", help="a module path")
    show.add_argument("ids", nargs="+", help="mutant ids, as a run prints them")
    handmade = commands.add_parser("handmade", help="apply each hand-made mutant; exit 1 when one survives")
    handmade.add_argument("names", nargs="*", help="their names (default: all)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = _parse(argv)
    try:
        config = load_config()
        if arguments.command == "handmade":
            return _main_handmade(config, arguments.names)
        if arguments.command == "show":
            return _main_show(arguments.module, arguments.ids)
        return _main_run(config, arguments)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


def _main_show(module: str, ids: Sequence[str]) -> int:
    from judge.authoring.mutation.mutants import generate_mutants
    from judge.authoring.mutation.operators import operator_named

    if not (ROOT / module).is_file():
        raise ConfigError(f"no module {module}")
    try:
        operators = {operator_named(mutant_id.split(":")[0]) for mutant_id in ids}
    except KeyError as error:
        raise ConfigError(f"not a mutant id: {error.args[0]}") from None
    found = {mutant.id: mutant for mutant in generate_mutants((ROOT / module).read_text(encoding="utf-8"), operators)}
    for mutant_id in ids:
        mutant = found.get(mutant_id)
        if mutant is None:
            print(f"{mutant_id}: no such mutant now (the line changed?)")
            continue
        print(f"{mutant_id} line {mutant.line} in {mutant.function or '(module)'}: {mutant.change()}")
    return 0


def _main_handmade(config: Config, names: Sequence[str]) -> int:
    unknown = set(names) - {bug.name for bug in config.handmade}
    if unknown:
        raise ConfigError(f"no hand-made mutant named {sorted(unknown)}")
    chosen = [bug for bug in config.handmade if not names or bug.name in names]
    survived = 0
    with private_checkout() as checkout:
        # Without the bugs their tests pass and none skips: else a failure would prove nothing.
        baseline = run_tests(checkout, sorted({test for bug in chosen for test in bug.tests}), timeout=3600)
        if baseline.status != "passed" or baseline.skipped:
            raise ConfigError(f"the hand-made mutants' tests {baseline.status} without any bug:\n{baseline.tail}")
        for bug in chosen:
            run = judge_handmade(bug, checkout)
            found = caught(bug, run)
            survived += not found
            print(f"{'caught  ' if found else 'SURVIVED'} {bug.name} ({run.status}, {run.seconds:.0f} s)")
    return 1 if survived else 0


def _main_run(config: Config, arguments: argparse.Namespace) -> int:
    chosen = arguments.modules or list(config.modules)
    unknown = [module for module in chosen if module not in config.modules]
    if unknown:
        raise ConfigError(f"not in {CONFIG.name}: {unknown}")
    results = []
    with contextlib.ExitStack() as stack:
        checkouts = [stack.enter_context(private_checkout()) for _ in range(max(1, arguments.jobs))]
        for name in chosen:
            module = config.modules[name]
            size = (
                module.sample
                if arguments.sample is None
                else (None if arguments.sample == "all" else int(arguments.sample))
            )
            print(f"{name}: mutating with {', '.join(module.tests)}", flush=True)
            result = mutate_module(
                module, checkouts, size, arguments.seed, progress=lambda line: print(line, flush=True)
            )
            results.append(result)
    below = False
    for result in results:
        print(
            f"\n{result.module}: {result.killed} killed, {result.equivalent} equivalent, "
            f"{len(result.survivors)} survived of {len(result.results)} judged ({result.mutants} mutants): "
            f"score {result.score:.0%}, floor {result.floor:.0%}"
        )
        for survivor in result.survivors:
            where = survivor.function or "(module)"
            print(f"  survived {survivor.id} line {survivor.line} in {where}: {survivor.change}")
        below |= result.score < result.floor
    sampled = "all" if arguments.sample == "all" else "sample"
    if arguments.markdown:
        Path(arguments.markdown).parent.mkdir(parents=True, exist_ok=True)
        Path(arguments.markdown).write_text(markdown_table(results, sampled), encoding="utf-8")
    if arguments.json_path:
        Path(arguments.json_path).parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "seed": arguments.seed,
            "modules": [
                {
                    **{k: v for k, v in asdict(result).items() if k != "results"},
                    "score": result.score,
                    "results": [asdict(judged) for judged in result.results],
                }
                for result in results
            ],
        }
        Path(arguments.json_path).write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    return 1 if arguments.ratchet and below else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))  # judge.authoring.mutation, from this checkout
    sys.exit(main())
