"""Mutation testing (judge/authoring/mutation/): stable mutant ids, the equivalents file, and a toy exercise
whose three mutants are judged and counted (one killed, one survivor, one equivalent)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from cosmic_ray.mutating import mutate_code

from judge.authoring.mutation import operators as ours
from judge.authoring.mutation.equivalents import entry_line, load_equivalents, stale_entries
from judge.authoring.mutation.judging import choose_sample, mutate_exercise, program_shape
from judge.authoring.mutation.mutants import ID_PATTERN, generate_mutants, line_hash
from judge.authoring.mutation.operators import OPERATORS, operator_named
from judge.authoring.mutation.tables import markdown_table, report_lines, to_json
from judge.cli import main
from judge.exercises.exercise import load_exercise
from judge.exercises.folders import ExerciseError
from judge.sandbox.launchers import WarmLocalLauncher

SOURCE = textwrap.dedent(
    """\
    import torch


    def normalise(x, dim=-1):
        total = x.sum(dim=dim, keepdim=True)
        if (total <= 0).any():
            raise ValueError("every row needs a positive sum")
        return (x / total).to(torch.float64)
    """
)


# --- operators: each of ours makes the change its examples state ---------------------------------


@pytest.mark.parametrize(
    ("operator_class", "example"),
    [
        (cls, example)
        for cls in (
            ours.NumberShifted,
            ours.DtypeSwapped,
            ours.MethodCallDropped,
            ours.KeywordArgumentDropped,
            ours.StatementDropped,
        )
        for example in cls.examples()
    ],
)
def test_our_operators_mutate_as_their_examples_say(operator_class, example):
    operator = operator_class(**example.operator_args)
    mutated = mutate_code(example.pre_mutation_code, operator, example.occurrence)
    expected = None if example.post_mutation_code == example.pre_mutation_code else example.post_mutation_code
    assert mutated == expected


def test_the_operators_make_the_mutants_the_brief_names():
    changes = {(m.operator, m.change()) for m in generate_mutants(SOURCE)}
    afters = {m.after.strip() for m in generate_mutants(SOURCE)}
    assert "total = x.sum(dim=dim)" in afters  # a keyword argument dropped (keepdim)
    assert "return (x * total).to(torch.float64)" in afters  # arithmetic
    assert "if (total < 0).any():" in afters  # the boundary of a comparison
    assert "return (x / total).to(torch.float32)" in afters  # precision
    assert "return (x / total)" in afters  # a method call dropped
    assert "def normalise(x, dim=- 0):" in afters or "def normalise(x, dim=-0):" in afters  # dim=-1 -> 0
    assert any(operator == "stmt.drop" and "pass" in change for operator, change in changes)
    # Module calls, imports, docstrings and returns are never dropped.
    assert not any(
        m.operator == "stmt.drop" and m.before.lstrip().startswith("return") for m in generate_mutants(SOURCE)
    )
    assert len({m.id for m in generate_mutants(SOURCE)}) == len(generate_mutants(SOURCE))


def test_every_mutant_compiles_and_changes_the_source():
    for mutant in generate_mutants(SOURCE):
        assert mutant.source != SOURCE
        compile(mutant.source, mutant.id, "exec")
        assert ID_PATTERN.match(mutant.id), mutant.id


def test_operator_names_are_unique_and_unknown_names_are_refused():
    assert len({o.name for o in OPERATORS}) == len(OPERATORS)
    assert operator_named("cmp.lt-le").name == "cmp.lt-le"
    with pytest.raises(KeyError, match="cmp.lt-le"):
        operator_named("cmp.less")


# --- ids: stable across unrelated edits, changed by edits of the line itself ---------------------


def _ids(source: str) -> dict[str, str]:
    return {m.id: m.after.strip() for m in generate_mutants(source)}


def test_ids_survive_unrelated_edits_and_reindentation():
    before = _ids(SOURCE)
    body = SOURCE.split("\n\n\n", 1)[1].replace("dim=-1):", "dim=-1):\n    x = helper(x)")  # a line added
    edited = "import torch\n\nSCALE = 3\n\n\ndef helper(y):\n    return y + 1\n\n\n" + body  # a function added
    after = _ids(edited)
    # Every mutant of the untouched lines keeps its id (and makes the same change).
    for mutant_id, change in before.items():
        assert after.get(mutant_id) == change, mutant_id
    # A line's id depends on its text, not on where it is or how it is indented.
    assert line_hash("    return (x / total)") == line_hash("return  (x / total)")


def test_an_edit_of_the_mutated_line_changes_its_ids():
    before = generate_mutants(SOURCE)
    edited = _ids(SOURCE.replace("if (total <= 0).any():", "if (total <= 0.0).any():"))
    changed = [m for m in before if m.id not in edited]
    # Exactly the mutants of that line lose their ids (the `if` dropped spans its body too).
    assert changed and {m.line for m in changed} == {6}
    assert all(m.id not in edited for m in before if m.line == 6)
    assert all(line_hash("if (total <= 0).any():") in m.id for m in changed if m.operator != "stmt.drop")


def test_identical_lines_get_ranked_ids():
    source = "def f(x):\n    x = x + 1\n    x = x + 1\n    return x\n"
    ids = [m.id for m in generate_mutants(source, [operator_named("arith.add-sub")])]
    digest = line_hash("x = x + 1")
    assert ids == [f"arith.add-sub:{digest}:0", f"arith.add-sub:{digest}:1"]


# --- the equivalents file ------------------------------------------------------------------------


def test_equivalents_are_read_with_their_reasons(tmp_path):
    path = tmp_path / "mutants.toml"
    assert load_equivalents(path) == {}  # no file: none listed
    path.write_text(
        "# why each is equivalent\n[equivalent]\n"
        + entry_line("cmp.lt-le:0123abcd:0", 'at x = 0 both "sides" give 0')
        + "\n"
        + '"stmt.drop:89abcdef:2" = "a cache   fill"\n',
        encoding="utf-8",
    )
    assert load_equivalents(path) == {
        "cmp.lt-le:0123abcd:0": 'at x = 0 both "sides" give 0',
        "stmt.drop:89abcdef:2": "a cache fill",
    }


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ('[equivalent]\n"cmp.lt-le:0123abcd" = "no rank"\n', "is not a mutant id"),
        ('[equivalent]\n"cmp.lt-le:0123abcd:0" = "  "\n', "one line of text"),
        ('[equivalent]\n"cmp.lt-le:0123abcd:0" = 3\n', "one line of text"),
        ('[equivalents]\n"cmp.lt-le:0123abcd:0" = "typo in the table"\n', "unknown key"),
        ("equivalent = 3\n", "must be a table"),
        ('[equivalent]\n"cmp.lt-le:0123abcd:0" = "a"\n"cmp.lt-le:0123abcd:0" = "b"\n', "mutants.toml"),
    ],
)
def test_a_malformed_equivalents_file_is_refused_naming_it(tmp_path, text, complaint):
    path = tmp_path / "mutants.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ExerciseError, match=complaint):
        load_equivalents(path)


def test_stale_entries_are_the_listed_ids_no_mutant_has():
    assert stale_entries(["a:00000000:0", "b:00000000:0"], ["b:00000000:0", "c:00000000:0"]) == ["a:00000000:0"]
    assert stale_entries([], ["b:00000000:0"]) == []


# --- the sample ----------------------------------------------------------------------------------


def test_the_sample_is_seeded_and_keeps_source_order():
    mutants = generate_mutants(SOURCE)
    first = choose_sample(mutants, 5, 0, "901-toy")
    assert first == choose_sample(mutants, 5, 0, "901-toy")
    assert len(first) == 5 and [mutants.index(m) for m in first] == sorted(mutants.index(m) for m in first)
    assert choose_sample(mutants, 5, 1, "901-toy") != first  # another seed, another sample
    assert choose_sample(mutants, None, 0, "901-toy") == mutants
    assert choose_sample(mutants, len(mutants) + 3, 0, "901-toy") == mutants


# --- a toy exercise, judged ----------------------------------------------------------------------

TOY_REFERENCE = """\
def clip_double(x):
    if x < 0:
        return 0
    return x * 2
"""
# With these three operators the reference has exactly three mutants:
TOY_OPERATORS = ("cmp.lt-le", "arith.mul-div", "stmt.drop")
# x <= 0: clip_double(0) is 0 either way (equivalent); x / 2: clip_double(3) is 1.5 (killed);
# the `if` dropped: negative x doubled, which the suite never tries (a survivor).


def _toy_pack(root: Path, equivalents: str | None) -> Path:
    folder = root / "exercises" / "901-toy"
    (folder / "tests" / "public").mkdir(parents=True)
    (folder / "tests" / "hidden").mkdir(parents=True)
    (folder / "exercise.toml").write_text(
        textwrap.dedent("""
        number = 901
        slug = "toy"
        difficulty = "easy"
        [title]
        en = "Clip and double"
        zh = "截断并加倍"
        [functions.clip_double]
        params = ["x"]
        [judging]
        time_limit_s = 5.0
        """),
        encoding="utf-8",
    )
    (folder / "tests" / "public" / "public.py").write_text(
        textwrap.dedent('''
        from judge.checks.base import diagnosed
        from judge.checks.exact import expect
        from judge.checks.evidence import Evidence


        def test_three(sub, ctx):
            """three doubles to six"""
            with diagnosed("halves instead of doubling"):
                expect(sub.clip_double(3) == 6, "clip_double(3) must be 6", kind=Evidence.VALUE)
        '''),
        encoding="utf-8",
    )
    (folder / "tests" / "hidden" / "hidden.py").write_text(
        textwrap.dedent('''
        from judge.checks.exact import expect


        def test_zero(sub, ctx):
            """zero stays zero"""
            expect(sub.clip_double(0) == 0, "clip_double(0) must be 0")
        '''),
        encoding="utf-8",
    )
    solutions = root / "solutions" / "901-toy"
    (solutions / "wrong").mkdir(parents=True)
    (solutions / "reference.py").write_text(TOY_REFERENCE, encoding="utf-8")
    (solutions / "wrong" / "halves.py").write_text(
        '"""Mistake: halves.\n\nDiagnosis: halves instead of doubling\n"""\n\n\n'
        + TOY_REFERENCE.replace("x * 2", "x / 2"),
        encoding="utf-8",
    )
    if equivalents is not None:
        (solutions / "mutants.toml").write_text(equivalents, encoding="utf-8")
    return folder


def _toy_ids() -> dict[str, str]:
    mutants = generate_mutants(TOY_REFERENCE, [operator_named(n) for n in TOY_OPERATORS])
    return {m.operator: m.id for m in mutants}


@pytest.fixture(scope="module")
def launcher():
    with WarmLocalLauncher() as warm:
        yield warm


def test_a_toy_exercise_gets_one_killed_one_survivor_one_equivalent(tmp_path, launcher):
    ids = _toy_ids()
    assert sorted(ids) == sorted(TOY_OPERATORS)
    folder = _toy_pack(tmp_path, f'[equivalent]\n"{ids["cmp.lt-le"]}" = "at x = 0 both branches give 0"\n')
    run = mutate_exercise(
        load_exercise(folder), launcher=launcher, operators=[operator_named(n) for n in TOY_OPERATORS], jobs=2
    )
    outcomes = {judged.mutant.operator: judged for judged in run.judged}
    assert {operator: judged.outcome for operator, judged in outcomes.items()} == {
        "cmp.lt-le": "equivalent",
        "arith.mul-div": "killed",
        "stmt.drop": "survived",
    }
    assert (len(run.generated), len(run.judged), run.count("killed"), run.count("survived")) == (3, 3, 1, 1)
    assert run.count("equivalent") == 1 and run.count("timed out") == 0 and run.count("error") == 0
    assert run.problems == [] and run.stale == []
    assert run.kill_rate == 0.5
    killed = outcomes["arith.mul-div"]
    assert killed.verdict == "WA" and killed.killed_by == "public/three"
    # Its diagnosis is listed for a human, marked as the catalogued mistake it is.
    assert run.diagnosed == [killed]
    assert killed.diagnoses == {"halves instead of doubling": ["public/three"]} and killed.catalogued == "halves"
    assert outcomes["cmp.lt-le"].reason == "at x = 0 both branches give 0"

    text = "\n".join(report_lines(run))
    assert "3 mutants generated, 3 judged (all): 1 killed, 1 survived, 1 equivalent, 0 timed out" in text
    assert ids["stmt.drop"] in text and "halves instead of doubling" in text and "the catalogued halves" in text
    assert "| 901 toy | 3 | 3 | 1 | 1 | 1 | 0 | 0 | 50.0% | 1 |" in markdown_table([run])
    document = json.loads(json.dumps(to_json([run])))
    [exercise] = document["exercises"]
    assert {m["id"]: m["outcome"] for m in exercise["mutants"]} == {
        ids["cmp.lt-le"]: "equivalent",
        ids["arith.mul-div"]: "killed",
        ids["stmt.drop"]: "survived",
    }


def test_a_stale_entry_and_a_killed_equivalent_are_problems(tmp_path, launcher):
    ids = _toy_ids()
    folder = _toy_pack(
        tmp_path,
        "[equivalent]\n"
        f'"{ids["arith.mul-div"]}" = "claimed, wrongly"\n'
        '"cmp.lt-le:0123abcd:0" = "a line that is gone"\n',
    )
    run = mutate_exercise(
        load_exercise(folder), launcher=launcher, operators=[operator_named(n) for n in TOY_OPERATORS], jobs=1
    )
    assert run.stale == ["cmp.lt-le:0123abcd:0"]
    assert len(run.problems) == 2
    assert "stale entry 'cmp.lt-le:0123abcd:0'" in run.problems[0]
    assert ids["arith.mul-div"] in run.problems[1] and "not equivalent" in run.problems[1]
    assert run.count("killed") == 1 and run.count("equivalent") == 0


def test_the_reference_must_pass_before_any_mutant_is_judged(tmp_path, launcher):
    folder = _toy_pack(tmp_path, None)
    (tmp_path / "solutions" / "901-toy" / "reference.py").write_text(TOY_REFERENCE.replace("* 2", "* 3"))
    run = mutate_exercise(load_exercise(folder), launcher=launcher, operators=[operator_named("cmp.lt-le")])
    assert run.judged == [] and "the reference got WA" in run.problems[0]


def test_catalogued_mistakes_are_recognised_whatever_their_docstrings():
    assert program_shape('"""A."""\ndef f():\n    """b"""\n    return 1\n') == program_shape("def f():\n    return 1\n")
    assert program_shape("def f():\n    return 1\n") != program_shape("def f():\n    return 2\n")


# --- the command ---------------------------------------------------------------------------------


def test_the_command_fails_on_stale_entries_and_on_survivors_only_when_strict(tmp_path, monkeypatch, capsys):
    ids = _toy_ids()
    _toy_pack(tmp_path, f'[equivalent]\n"{ids["cmp.lt-le"]}" = "at x = 0 both branches give 0"\n')
    monkeypatch.setenv("PROBJUDGE_EXERCISES", str(tmp_path / "exercises"))
    args = ["mutation", "901", "--operators", ",".join(TOY_OPERATORS), "--jobs", "1"]
    table, document = tmp_path / "out" / "table.md", tmp_path / "out" / "mutants.json"
    assert main([*args, "--markdown", str(table), "--json", str(document)]) == 0  # a survivor, not strict
    assert "| 901 toy | 3 | 3 | 1 | 1 | 1 |" in table.read_text()
    assert json.loads(document.read_text())["tool"].startswith("cosmic-ray 8.")
    assert main([*args, "--strict"]) == 1
    (tmp_path / "solutions" / "901-toy" / "mutants.toml").write_text('[equivalent]\n"stmt.drop:0123abcd:0" = "gone"\n')
    assert main(args) == 1  # a stale entry fails without --strict
    assert "stale entry 'stmt.drop:0123abcd:0'" in capsys.readouterr().out
    assert main([*args, "--sample", "0"]) == 2
    assert main(["mutation", "901", "--operators", "cmp.less"]) == 2
