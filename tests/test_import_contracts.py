"""The import contracts of `.importlinter` hold, and each of them bites.

`test_the_code_keeps_every_import_contract` runs `lint-imports` itself, as `make lint` does, and
fails with its report: which contract broke and by which chain of imports.

The other tests prove that each contract would catch what it is there to catch. They use
import-linter's Python API on the project's own import graph (grimp, the library under
`lint-imports`) and the contracts exactly as `.importlinter` writes them, add one import that no
module has, and check that the contract is then broken *by that import*: it names the two
modules, which it did not before. A contract that a typo made toothless (a layer misspelled, a
package missing from `source_modules`) keeps passing `lint-imports`; these tests fail instead.
Every contract of `.importlinter` must have such a case here (`CASES`). The last test keeps the
modules of `OWN_NAMES_ONLY` from serving names they only import (a re-export for old importers).
"""

from __future__ import annotations

import ast
import copy
import importlib.util
import io
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import grimp
import pytest
from importlinter.api import read_configuration
from importlinter.contracts.acyclic_siblings import AcyclicSiblingsContract
from importlinter.contracts.forbidden import ForbiddenContract
from importlinter.contracts.layers import LayersContract
from importlinter.domain.contract import Contract

from judge.browser.bundle import engine_bundle
from judge.browser.subset import BROWSER_SUBSET, NOT_SHIPPED

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / ".importlinter"
CONTRACT_TYPES: dict[str, type[Contract]] = {
    "layers": LayersContract,
    "forbidden": ForbiddenContract,
    "acyclic_siblings": AcyclicSiblingsContract,
}

# One import per contract that must break it: (contract id, importer, imported, what it shows).
CASES = [
    ("judge-layers", "judge.sandbox.launchers", "judge.cli", "the sandbox importing the CLI above it"),
    ("web-layers", "web.core.models", "web.teaching.courses", "web.core importing a domain above it"),
    ("web-layers", "web.teaching.gradebook", "web.api.gradebook", "a domain importing the JSON API"),
    ("judge-never-imports-web", "judge.reports.report", "flask", "a report importing Flask"),
    ("judge-never-imports-web", "judge.engine.runner", "web.app", "the engine importing the site"),
    # web.core.models imports web.core.names: the way back closes a circle of two siblings.
    ("no-circles", "web.core.names", "web.core.models", "a circle between two sibling modules"),
    ("browser-subset", "judge.learner.wire", "judge.sandbox.launchers", "the learner's side importing the sandbox"),
]


def _options() -> dict[str, Any]:
    return read_configuration(str(CONFIG))


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    """The import graph of this checkout, built as `lint-imports` builds it (no cache)."""
    session = _options()["session_options"]
    for package in session["root_packages"]:
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.origin is not None and Path(spec.origin).is_relative_to(ROOT), (
            f"{package} is imported from {spec and spec.origin}, not from this checkout {ROOT}"
        )
    return grimp.build_graph(
        *session["root_packages"],
        include_external_packages=session.get("include_external_packages") in ("True", "true"),
        exclude_type_checking_imports=session.get("exclude_type_checking_imports") in ("True", "true"),
        cache_dir=None,
    )


def _broken_by(graph: grimp.ImportGraph, contract_id: str, extra: tuple[str, str] | None = None) -> str:
    """What the contract ``contract_id`` reports against ``graph`` (plus the import ``extra``,
    importer to imported); empty when it is kept."""
    options = _options()
    (contract_options,) = [found for found in options["contracts_options"] if found["id"] == contract_id]
    contract = CONTRACT_TYPES[contract_options["type"]](
        name=contract_options["name"], session_options=options["session_options"], contract_options=contract_options
    )
    checked = copy.deepcopy(graph)  # a contract may change the graph it checks (lint-imports copies it too)
    if extra is not None:
        importer, imported = extra
        checked.add_import(importer=importer, imported=imported, line_number=1, line_contents=f"import {imported}")
    check = contract.check(checked, verbose=False)
    return "" if check.kept else repr(check.metadata)


def _names(report: str, importer: str, imported: str) -> bool:
    return f"'{importer}'" in report and f"'{imported}'" in report


def test_the_code_keeps_every_import_contract():
    lint_imports = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run(
        [str(lint_imports), "--config", str(CONFIG), "--no-cache", "--no-logo"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"lint-imports found imports that break .importlinter:\n{done.stdout}{done.stderr}"


@pytest.mark.parametrize(("contract_id", "importer", "imported", "shows"), CASES, ids=[case[3] for case in CASES])
def test_each_contract_is_broken_by_the_import_it_forbids(graph, contract_id, importer, imported, shows):
    assert importer in graph.modules, f"{importer} is gone: pick another module for {shows!r}"
    assert not graph.direct_import_exists(importer=importer, imported=imported), f"{importer} imports {imported}"
    before = _broken_by(graph, contract_id)
    assert not _names(before, importer, imported), f"{contract_id} already reports {importer} and {imported}"
    after = _broken_by(graph, contract_id, (importer, imported))
    assert after, f"{contract_id} is kept with {importer} -> {imported} ({shows})"
    assert _names(after, importer, imported), f"{contract_id} broke, but not by {importer} -> {imported}: {after}"


def test_the_circle_case_closes_a_real_circle(graph):
    """The no-circles case adds one import only: the other way must be there already."""
    assert graph.direct_import_exists(importer="web.core.models", imported="web.core.names")


def test_every_contract_has_a_case():
    contracts = {contract["id"] for contract in _options()["contracts_options"]}
    assert contracts == {case[0] for case in CASES}
    assert {contract["type"] for contract in _options()["contracts_options"]} <= set(CONTRACT_TYPES)


def _browser_contract() -> dict[str, Any]:
    (found,) = [found for found in _options()["contracts_options"] if found["id"] == "browser-subset"]
    return found


def test_the_browser_contract_checks_exactly_what_the_bundle_ships():
    """One list: judge/browser/subset.py. The contract must name it whole, or `lint-imports` would
    let a shipped module import the sandbox, or hold to the rule a module the browser never gets."""
    assert sorted(_browser_contract()["source_modules"]) == sorted(BROWSER_SUBSET)


def test_the_bundle_ships_every_module_the_browser_subset_imports(graph):
    """Follow every import of the judge from the shipped modules (the contract's ignored ones
    aside: they never run in the browser); each module reached must be in the bundle."""
    ignored = {tuple(part.strip() for part in line.split("->")) for line in _browser_contract()["ignore_imports"]}
    shipped = {
        name.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        for name in zipfile.ZipFile(io.BytesIO(engine_bundle())).namelist()
    }
    frontier = {module for name in BROWSER_SUBSET for module in {name, *graph.find_descendants(name)}}
    frontier -= set(NOT_SHIPPED)
    assert frontier <= shipped, f"listed in judge/browser/subset.py but not shipped: {sorted(frontier - shipped)}"
    reached: set[str] = set()
    while frontier:
        module = frontier.pop()
        reached.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported.startswith("judge.") and (module, imported) not in ignored and imported not in NOT_SHIPPED:
                frontier |= {imported} - reached
    assert reached <= shipped, f"the browser imports these, and the bundle lacks them: {sorted(reached - shipped)}"


# Names that a module imports from elsewhere are not its own: import them from where they live, so
# that moving one breaks its importers loudly, and a module is not kept alive as a hall of aliases.
OWN_NAMES_ONLY = ("judge.exercises.exercise",)
TREES = ("judge", "web", "practice", "scripts", "tests", "benchmarks", "exercises", "solutions")


def _defined_at_top(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


@pytest.mark.parametrize("module", OWN_NAMES_ONLY)
def test_names_are_imported_from_the_module_that_defines_them(module):
    own = _defined_at_top(ROOT / (module.replace(".", "/") + ".py"))
    borrowed = [
        f"{path.relative_to(ROOT)}:{node.lineno} {alias.name}"
        for tree in TREES
        for path in sorted((ROOT / tree).rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.module == module and node.level == 0
        for alias in node.names
        if alias.name not in own
    ]
    assert not borrowed, f"these import from {module} names it only imports itself: {borrowed}"
