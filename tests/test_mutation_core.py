"""The mutation testing of ProbJudge's own code (scripts/mutation_core.py, tests/mutation_core.toml).

The hand-made mutants are bugs a person once made to show a test narrower than its name: each is
applied here, in a private copy of the checkout, and the tests it names must fail, so a later
edit that weakens those tests fails ``make test``. The tool itself is tested on a tiny project of
its own: a mutant that a test catches is killed, one it misses survives, the checkout is never
touched and the configuration refuses what does not exist.
"""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load_tool():
    spec = importlib.util.spec_from_file_location("mutation_core", ROOT / "scripts" / "mutation_core.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutation_core"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


tool = _load_tool()
CONFIG = tool.load_config()


@pytest.fixture(scope="module")
def checkout():
    with tool.private_checkout() as copy:
        yield copy


@pytest.mark.parametrize("bug", CONFIG.handmade, ids=[bug.name for bug in CONFIG.handmade])
def test_every_hand_made_bug_is_still_caught(bug, checkout):
    # That the named tests pass without the bug is make test's own business (they run there too);
    # `mutation_core.py handmade` checks it in one copy before it applies any bug.
    run = tool.judge_handmade(bug, checkout)
    assert tool.caught(bug, run), (
        f"{bug.file}: {bug.old!r} -> {bug.new!r} ({bug.finding}) is no longer caught by {list(bug.tests)}:"
        f" they {run.status}.\n{run.tail}"
    )


def test_a_catch_is_a_failure_of_a_named_test():
    bug = tool.Handmade("b", "f.py", "a", "b", ("tests/test_x.py::test_limit",), "an example")
    summary = "=== short test summary info ===\nFAILED {} - AssertionError\n1 failed in 1.00s\n"
    assert tool.caught(bug, tool.TestRun("failed", 1.0, summary.format("tests/test_x.py::test_limit[3]")))
    assert tool.caught(bug, tool.TestRun("failed", 1.0, summary.format("tests/test_x.py::test_limit")))
    # Another test failing, the tests not starting, or a pass: no catch.
    assert not tool.caught(bug, tool.TestRun("failed", 1.0, summary.format("tests/test_x.py::test_limits")))
    assert not tool.caught(bug, tool.TestRun("error", 1.0, "ImportError while loading conftest"))
    assert not tool.caught(bug, tool.TestRun("passed", 1.0, "1 passed in 1.00s"))
    whole_file = tool.Handmade("b", "f.py", "a", "b", ("tests/test_x.py",), "an example")
    assert tool.caught(whole_file, tool.TestRun("failed", 1.0, summary.format("tests/test_x.py::test_other")))


def test_every_equivalent_entry_names_a_line_that_still_exists():
    """An id is OPERATOR:HASH:RANK, HASH that of the lines the mutant changes: an entry whose lines
    are gone (edited, removed) names nothing. Hashing every span of up to 8 lines takes milliseconds;
    making the mutants themselves takes minutes (`mutation_core.py show` does, for one module)."""
    from judge.authoring.mutation.mutants import line_hash
    from judge.authoring.mutation.operators import operator_named

    stale = []
    for module in CONFIG.modules.values():
        assert all(reason.strip() for reason in module.equivalent.values()), f"{module.path}: an entry without a reason"
        lines = (ROOT / module.path).read_text(encoding="utf-8").splitlines()
        spans = {line_hash("\n".join(lines[i : i + n])) for i in range(len(lines)) for n in range(1, 9)}
        for mutant_id in module.equivalent:
            operator_named(mutant_id.split(":")[0])  # raises KeyError for an operator that does not exist
            if mutant_id.split(":")[1] not in spans:
                stale.append(f"{module.path}: {mutant_id}")
    assert not stale, f"the code changed under these entries of tests/mutation_core.toml: {stale}"


# The tool, on a project of its own: one function, one test that checks one of its two branches.
PROJECT = {
    "pkg/__init__.py": "",
    "pkg/limits.py": textwrap.dedent(
        """\
        def over(value, limit):
            if value > limit:
                return True
            return False
        """
    ),
    "tests/test_limits.py": textwrap.dedent(
        """\
        from pkg.limits import over

        def test_over():
            assert over(3, 2)
        """
    ),
}


@pytest.fixture
def project(tmp_path):
    for name, text in PROJECT.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def _module(**changes):
    values = {
        "path": "pkg/limits.py",
        "tests": ("tests/test_limits.py",),
        "sample": None,
        "floor": 0.0,
        "equivalent": {},
    }
    return tool.ModuleConfig(**{**values, **changes})


def test_a_mutant_the_tests_catch_is_killed_and_one_they_miss_survives(project):
    result = tool.mutate_module(_module(), [project], None, 0, progress=lambda line: None)
    by_change = {judged.change: judged.outcome for judged in result.results}
    # `>` becoming `>=` is caught only by over(2, 2), which the test never asks: a survivor.
    assert by_change["if value > limit:  ->  if value >= limit:"] == "survived"
    # Answering False for an over-limit value fails the test.
    assert by_change["return True  ->  return False"] == "killed"
    assert 0 < result.score < 1
    assert result.score == result.killed / len(result.results)
    # The project's file is as it was.
    assert (project / "pkg/limits.py").read_text(encoding="utf-8") == PROJECT["pkg/limits.py"]


def test_an_equivalent_survivor_is_left_out_of_the_score(project):
    plain = tool.mutate_module(_module(), [project], None, 0, progress=lambda line: None)
    survivors = {judged.id: "the test is narrower on purpose" for judged in plain.survivors}
    listed = tool.mutate_module(_module(equivalent=survivors), [project], None, 0, progress=lambda line: None)
    assert listed.survivors == [] and listed.equivalent == len(survivors) > 0
    assert listed.score == 1.0
    assert [judged.reason for judged in listed.results if judged.outcome == "equivalent"] == list(survivors.values())


def test_tests_that_fail_unmutated_are_a_configuration_error(project):
    (project / "tests/test_limits.py").write_text("def test_broken():\n    assert False\n", encoding="utf-8")
    with pytest.raises(tool.ConfigError, match="before any mutation"):
        tool.mutate_module(_module(), [project], None, 0, progress=lambda line: None)


def test_a_run_that_skips_says_so(project):
    (project / "tests/test_limits.py").write_text(
        "import pytest\n\ndef test_skipped():\n    pytest.skip('not here')\n", encoding="utf-8"
    )
    run = tool.run_tests(project, ["tests/test_limits.py"], timeout=120)
    assert (run.status, run.skipped) == ("passed", True)


def test_tests_that_run_nothing_are_a_configuration_error(project):
    with pytest.raises(tool.ConfigError, match="found nothing to run"):
        tool.run_tests(project, ["tests/test_limits.py::test_missing"], timeout=120)


def test_a_sample_is_the_same_for_the_same_seed_and_in_source_order():
    items = list(range(50))
    from judge.authoring.mutation.judging import choose_sample

    def sample_of(items, size, seed, module):  # as scripts/mutation_core.py draws a module's sample
        return choose_sample(items, size, seed, module, namespace="mutation-core")

    first, again = sample_of(items, 10, 0, "m.py"), sample_of(items, 10, 0, "m.py")
    assert first == again == sorted(first) and len(first) == 10
    assert sample_of(items, 10, 1, "m.py") != first
    assert sample_of(items, None, 0, "m.py") == items == sample_of(items, 80, 0, "m.py")


def test_a_hand_made_bug_whose_text_moved_is_refused(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_x.py").write_text("def test_x():\n    pass\n", encoding="utf-8")
    (tmp_path / "code.py").write_text("a = 1\na = 1\n", encoding="utf-8")
    entry = textwrap.dedent(
        """\
        [[handmade]]
        name = "twice"
        file = "code.py"
        old = "a = 1"
        new = "a = 2"
        tests = ["tests/test_x.py"]
        finding = "an example"
        """
    )
    (tmp_path / "config.toml").write_text(entry, encoding="utf-8")
    with pytest.raises(tool.ConfigError, match="in code.py 2 times, not once"):
        tool.load_config(tmp_path / "config.toml", tmp_path)
    (tmp_path / "config.toml").write_text(entry.replace("tests/test_x.py", "tests/test_gone.py"), encoding="utf-8")
    (tmp_path / "code.py").write_text("a = 1\n", encoding="utf-8")
    with pytest.raises(tool.ConfigError, match="test tests/test_gone.py does not exist"):
        tool.load_config(tmp_path / "config.toml", tmp_path)


def test_the_published_configuration_lists_existing_modules_with_their_tests():
    assert CONFIG.modules, "tests/mutation_core.toml lists no module"
    for module in CONFIG.modules.values():
        assert (ROOT / module.path).is_file() and module.tests
        assert 0.0 <= module.floor <= 1.0


def test_a_mutant_inside_a_type_annotation_is_left_out():
    source = "from __future__ import annotations\n\ndef f(x: int | None) -> int | None:\n    return x | 1\n"
    annotated = source.replace("x: int | None", "x: int & None")
    returned = source.replace("-> int | None", "-> int & None")
    in_body = source.replace("return x | 1", "return x & 1")
    assert tool.in_annotation(source, annotated) and tool.in_annotation(source, returned)
    assert not tool.in_annotation(source, in_body)
