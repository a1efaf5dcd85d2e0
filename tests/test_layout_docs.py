"""The words of the house stay true to the house.

- Every package of ``judge/`` and ``web/`` says in its ``__init__`` docstring what it may import (a
  paragraph that starts with "May import"), and every module that paragraph names (in backticks)
  exists and is allowed by ``.importlinter``: a package of a layer names only packages of the
  layers below it, and the judge never names the site.
- Every path that README's "Where things live" table names exists.
- Every package or module of ``.importlinter``'s layers appears in docs/layout.md, the page that
  says why they are in that order.

Each reads the files as text (the docstrings through ``ast``): nothing is imported.
"""

from __future__ import annotations

import ast
import configparser
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TREES = ("judge", "web")
SKIPPED_DIRS = {"node_modules", "__pycache__", "static", "frontend"}
BACKTICKED = re.compile(r"`+([^`]+?)`+")


def packages(root: Path = ROOT) -> list[Path]:
    """Every package directory (one with an ``__init__.py``) under judge/ and web/, the trees' roots included."""
    found = []
    for tree in TREES:
        for init in sorted((root / tree).rglob("__init__.py")):
            if not SKIPPED_DIRS & set(init.relative_to(root).parts):
                found.append(init.parent)
    return found


def layers(importlinter: str) -> dict[str, list[set[str]]]:
    """Each layers contract's container -> its layers, top first, each a set of names."""
    parser = configparser.ConfigParser()
    parser.read_string(importlinter)
    contracts = {}
    for section in parser.sections():
        if parser[section].get("type") == "layers":
            container = parser[section]["containers"].strip()
            contracts[container] = [
                {name.strip() for name in line.split("|")}
                for line in parser[section]["layers"].splitlines()
                if line.strip()
            ]
    return contracts


def may_import(docstring: str) -> str | None:
    """The docstring's paragraph that starts with "May import", up to an "Imported by" in it, or None.

    It names what the package may import, nothing else: what it must not import goes in a paragraph
    of its own (a name there would read as allowed).
    """
    for paragraph in docstring.split("\n\n"):
        if paragraph.lstrip().startswith("May import"):
            return paragraph.split("Imported by")[0]
    return None


def _module_exists(dotted: str, root: Path) -> bool:
    path = root.joinpath(*dotted.split("."))
    return (path / "__init__.py").is_file() or path.with_suffix(".py").is_file()


def import_problems(package: Path, contracts: dict[str, list[set[str]]], root: Path = ROOT) -> list[str]:
    """What is wrong with the "May import" paragraph of ``package``'s docstring (empty: nothing)."""
    name = ".".join(package.relative_to(root).parts)
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8")))
    if not docstring:
        return [f"{name}: no docstring"]
    paragraph = may_import(docstring)
    if paragraph is None:
        return [f'{name}: its docstring has no paragraph that starts with "May import"']
    problems = []
    tree, _, _ = name.partition(".")
    for token in BACKTICKED.findall(paragraph):
        target = token.strip()
        if target.split(".")[0] not in TREES:
            continue
        if not _module_exists(target, root):
            problems.append(f"{name}: may import {target}, which does not exist")
            continue
        if tree == "judge" and target.split(".")[0] == "web":
            problems.append(f"{name}: may import {target}, but the judge never imports the site")
        if "." not in name or target.split(".")[0] != tree or tree not in contracts:
            continue
        own, other = name.split(".")[1], target.split(".")[1] if "." in target else None
        if other is None or other == own:
            continue
        order = {member: index for index, layer in enumerate(contracts[tree]) for member in layer}
        if own in order and other in order and order[other] <= order[own]:
            problems.append(f"{name}: may import {target}, which is not in a layer below {own!r}")
    return problems


def where_things_live(readme: str) -> list[tuple[str, str]]:
    """README's "Where things live" table as (what, where) rows."""
    match = re.search(r"^## Where things live\n(.*?)(?=^## )", readme, re.S | re.M)
    if match is None:
        return []
    rows = []
    for line in match.group(1).splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 2 and not set(cells[1]) <= set("-: ") and cells != ["what", "where"]:
            rows.append((cells[0], cells[1]))
    return rows


def missing_paths(rows: list[tuple[str, str]], root: Path = ROOT) -> list[str]:
    """Each path a row's "where" names (a backticked text with a slash or a leading dot) that is not there."""
    missing = []
    for what, where in rows:
        for token in BACKTICKED.findall(where):
            if "/" not in token and not token.startswith("."):
                continue  # a dotted module or a command, not a path
            found = any(root.glob(token.rstrip("/"))) if "*" in token else (root / token).exists()
            if not found:
                missing.append(f"{what}: {token}")
    return missing


def unexplained_layers(contracts: dict[str, list[set[str]]], layout: str) -> list[str]:
    """Each member of a layer that docs/layout.md does not name (as `name`, `name/` or `name.py`)."""
    named = set(BACKTICKED.findall(layout))
    return [
        f"{container}.{member}"
        for container, contract_layers in contracts.items()
        for layer in contract_layers
        for member in sorted(layer)
        if not {member, f"{member}/", f"{member}.py"} & named
    ]


CONTRACTS = layers((ROOT / ".importlinter").read_text(encoding="utf-8"))


@pytest.mark.parametrize("package", packages(), ids=lambda path: ".".join(path.relative_to(ROOT).parts))
def test_every_package_says_what_it_may_import_and_the_contracts_allow_it(package):
    assert import_problems(package, CONTRACTS) == []


def test_the_packages_are_found():
    names = {".".join(path.relative_to(ROOT).parts) for path in packages()}
    assert {"judge", "judge.engine", "judge.sandbox", "web", "web.core", "web.api"} <= names


def test_every_path_in_the_where_things_live_table_exists():
    rows = where_things_live((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(rows) >= 10, "README has no 'Where things live' table (or it lost its rows)"
    assert missing_paths(rows) == []


def test_every_package_of_the_layers_appears_in_the_layout_page():
    assert set(CONTRACTS) == {"judge", "web"}
    assert unexplained_layers(CONTRACTS, (ROOT / "docs" / "layout.md").read_text(encoding="utf-8")) == []
