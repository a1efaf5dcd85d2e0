"""The behavioural signal of similarity: probes declared, run, hashed and compared.

The red team: a renamed and reformatted copy must keep its fingerprint; a copy with one line of
its sampling order changed must lose it; independent correct solutions must not match strongly
(except the pairs that draw one stream by equivalent code, listed here with why); a
learner that raises, hangs or returns junk on a probe must cost the grading nothing.
"""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

import pytest

from judge.engine.probing import HASH_HEX, output_digest, run_probes
from judge.engine.runner import grade, judge_file
from judge.exercises.exercise import WRITE_THE_TEST, load_all, resolve
from judge.exercises.folders import ExerciseError
from judge.exercises.probes import parse_probes
from judge.learner.interface import CallResult, LearnerRaised, ProcessFailed
from judge.learner.protocol import ExceptionInfo
from judge.similarity.behaviour import STRONG_IDENTICAL, behaviour_match, common_hashes, fingerprint_file
from judge.verdicts import Verdict

FUNCTIONS = {"flip": ("p", "n", "generator"), "softmax": ("logits",)}
TOML = Path("exercise.toml")


# --- comparing -------------------------------------------------------------------------------


def test_a_match_needs_every_compared_probe_identical_and_enough_of_them():
    a = {"one": "aa", "two": "bb", "three": "cc"}
    match = behaviour_match(a, dict(a))
    assert (match.compared, match.identical, match.strong) == (3, 3, True)
    partial = behaviour_match(a, {**a, "three": "zz"})
    assert (partial.compared, partial.identical, partial.strong) == (3, 2, False)
    single = behaviour_match({"one": "aa"}, {"one": "aa"})
    assert (single.identical, single.strong) == (1, STRONG_IDENTICAL <= 1)


def test_a_hash_both_share_with_the_reference_is_dropped_before_comparing():
    a = {"one": "aa", "two": "bb", "three": "cc"}
    # "three": both hash as the reference does, which every correct solution may: no evidence.
    match = behaviour_match(a, dict(a), common={"three": {"cc"}})
    assert (match.compared, match.identical, match.strong) == (2, 2, True)
    everything = behaviour_match(a, dict(a), common={"one": {"aa"}, "two": {"bb"}, "three": {"cc"}})
    assert (everything.compared, everything.identical, everything.strong) == (0, 0, False)


def test_a_difference_counts_even_where_one_side_is_the_references():
    """The attack: a copy that differs on one probe where the original hashes as the reference
    must not hide that difference behind the common hashes and come out strong."""
    a = {"one": "aa", "two": "bb", "three": "cc"}
    b = {"one": "aa", "two": "bb", "three": "dd"}
    match = behaviour_match(a, b, common={"three": {"cc"}})
    assert (match.compared, match.identical, match.strong) == (3, 2, False)


def test_probes_one_side_lacks_and_values_that_are_not_hashes_are_not_compared():
    a = {"one": "aa", "two": "bb", "junk": 7}
    b = {"one": "aa", "junk": 7, "extra": "ee"}
    match = behaviour_match(a, b)  # type: ignore[arg-type]  # stored JSON: anything
    assert (match.compared, match.identical) == (1, 1)


# --- declaring -------------------------------------------------------------------------------


def test_a_probe_declaration_is_parsed_with_its_tensors_and_generator():
    probes = parse_probes(
        {"seeds": [5, 6], "probes": [{"name": "coins", "function": "flip", "args": {"p": {"tensor": [0.5]}, "n": 3}}]},
        FUNCTIONS,
        TOML,
    )
    (probe,) = probes.probes
    assert probes.seeds == (5, 6) and probe.seeded
    arguments = probe.arguments()
    assert arguments["n"] == 3 and arguments["p"].dtype.is_floating_point and arguments["p"].tolist() == [0.5]
    assert arguments["p"] is not probe.arguments()["p"]  # a call that changes it cannot change the next


@pytest.mark.parametrize(
    "table, complaint",
    [
        ({"probes": [{"name": "x", "function": "nope"}]}, "not declared"),
        ({"probes": [{"name": "x", "function": "flip", "args": {"q": 1}}]}, "no parameter q"),
        ({"probes": [{"name": "x", "function": "flip"}, {"name": "x", "function": "flip"}]}, "x named twice"),
        ({"probes": [{"name": "x", "function": "flip", "args": {"p": {"tensor": [1], "dtype": "int3"}}}]}, "dtype"),
        ({"probes": [{"name": "x", "function": "flip", "args": {"p": {"values": [1]}}}]}, "tensor"),
        ({"probes": [{"name": "Bad Name", "function": "flip"}]}, "lower_snake_case"),
        ({"seeds": [1, 1]}, "distinct"),
        ({"seeds": []}, "distinct"),
        ({"seeds": [True]}, "distinct"),
        ({"probes": {"name": "x"}}, "array of tables"),
    ],
)
def test_a_malformed_declaration_names_what_is_wrong(table, complaint):
    with pytest.raises(ExerciseError, match=complaint):
        parse_probes(table, FUNCTIONS, TOML)


def test_every_exercise_declares_probes_on_its_functions():
    for exercise in load_all():
        probes = exercise.similarity.probes
        if exercise.kind == WRITE_THE_TEST:
            # Its one argument is a function of the judge (a sampler), which a probe's values cannot
            # carry: no probes, and the textual signal alone (docs/authoring.md, "Write-the-test exercises").
            assert not probes, exercise.number
            continue
        assert len(probes) >= 3, exercise.number
        random_functions = {f.name for f in exercise.functions if "generator" in f.params}
        assert random_functions <= {p.function for p in probes}, exercise.number


# --- hashing -----------------------------------------------------------------------------------


def test_a_hash_tells_dtype_shape_and_values_apart():
    import hashlib

    import torch

    def digest(value) -> str:
        h = hashlib.sha256()
        output_digest(value, h)
        return h.hexdigest()

    base = torch.tensor([[1, 2], [3, 4]])
    variants = [base, base.to(torch.int32), base.reshape(4), base.T.contiguous(), base.flip(0), (base, 1), [base]]
    assert len({digest(v) for v in variants}) == len(variants)
    assert digest(base) == digest(base.T.T)  # a view hashes as its values, not its strides
    assert digest(torch.tensor([True, False])) != digest(torch.tensor([1, 0], dtype=torch.uint8))


# --- running: a learner that misbehaves on a probe costs the grading nothing ---------------------


class InProcessLearner:
    """A learner whose answers the test chooses, per probe name (found by the call's arguments),
    with no CPU clock of its own (as the browser's)."""

    sandbox = "local"

    def __init__(self, answers):
        self.answers = answers
        self.calls: list[tuple[str, dict]] = []
        self.deadlines: list[float] = []

    def call(self, function, args, kwargs, *, timeout_s, options, cpu_deadline_s=float("inf"), cpu_limit_s=None):
        self.calls.append((function, kwargs))
        self.deadlines.append(cpu_deadline_s)
        answer = self.answers(kwargs)
        if isinstance(answer, Exception):
            raise answer
        return CallResult(answer, 0.0, ())


class FakeLearner(InProcessLearner):
    """As :class:`InProcessLearner`, in a process of its own: a CPU clock that says 100 s."""

    def cpu_time_s(self) -> float:
        return 100.0


def _probe_of(kwargs) -> str:
    return {8: "three_coins", 40: "one_coin_many_flips", 5: "float64_coins"}[kwargs["n"]]


def test_a_probe_that_raises_or_returns_junk_gets_no_hash_and_the_others_do():
    exercise = resolve("1")
    raised = LearnerRaised(ExceptionInfo("ValueError", "no", None, "", False, ("builtins.ValueError",)))

    def answers(kwargs):
        return {"three_coins": raised, "one_coin_many_flips": object()}.get(_probe_of(kwargs), kwargs["p"])

    learner = FakeLearner(answers)
    hashes = run_probes(exercise, learner)
    assert list(hashes) == ["float64_coins"] and len(hashes["float64_coins"]) == HASH_HEX
    # Held to one case's CPU time from the start, every call.
    assert set(learner.deadlines) == {100.0 + exercise.time_limit_s}


def test_a_process_that_dies_or_runs_out_of_time_ends_the_probing():
    exercise = resolve("1")
    died = ProcessFailed(Verdict.TLE, "your calls used up the CPU time")

    def answers(kwargs):
        return died if _probe_of(kwargs) == "one_coin_many_flips" else kwargs["p"]

    learner = FakeLearner(answers)
    assert list(run_probes(exercise, learner)) == ["three_coins"]
    assert "float64_coins" not in {_probe_of(kwargs) for _, kwargs in learner.calls}


def test_an_in_process_learner_is_not_probed():
    learner = InProcessLearner(lambda kwargs: kwargs["p"])
    assert run_probes(resolve("1"), learner) == {} and learner.calls == []
    assert len(run_probes(resolve("1"), FakeLearner(lambda kwargs: kwargs["p"]))) == 3  # the same, with a clock


def test_a_seeded_probe_gets_a_generator_and_the_global_seed_of_each_seed():
    exercise = resolve("1")
    learner = FakeLearner(lambda kwargs: kwargs["p"])
    run_probes(exercise, learner)
    seeds = [kwargs["generator"].seed for _, kwargs in learner.calls[: len(exercise.similarity.seeds)]]
    assert seeds == list(exercise.similarity.seeds)


HANGS_ON_A_PROBE = """
import torch

def flip(p, n, generator=None):
    if not isinstance(p, torch.Tensor) or p.dim() != 1 or not p.is_floating_point():
        raise ValueError("p must be a 1-D floating tensor")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError("n must be an int >= 1")
    if torch.isnan(p).any() or ((p < 0) | (p > 1)).any():
        raise ValueError("p must lie in [0, 1]")
    if n == 40:  # the second probe's n, which no public case uses: spin until the CPU runs out
        while True:
            pass
    print("flipped")
    u = torch.rand(p.shape[0], n, generator=generator, dtype=p.dtype)
    return (u < p.unsqueeze(1)).to(torch.int64)
"""


def test_a_learner_that_hangs_on_a_probe_keeps_its_verdict_cases_and_output():
    exercise = resolve("1")
    plain = grade(exercise, HANGS_ON_A_PROBE, suites=("public",), seed=7)
    probed = grade(exercise, HANGS_ON_A_PROBE, suites=("public",), seed=7, fingerprint=True)
    assert plain.verdict is probed.verdict is Verdict.AC
    assert [(c.name, c.verdict, c.message) for c in plain.cases] == [
        (c.name, c.verdict, c.message) for c in probed.cases
    ]
    assert probed.output == plain.output and probed.message == plain.message
    assert list(probed.fingerprint or {}) == ["three_coins"]  # the probes after the hang never ran
    assert probed.timing["fingerprint_ms"] >= 0.5 * exercise.time_limit_s * 1000  # held to one case's CPU time
    assert probed.timing["fingerprint_cpu_ms"] >= 0
    assert "fingerprint" not in plain.to_json() and plain.fingerprint is None
    assert probed.to_json()["fingerprint"] == probed.fingerprint


# --- validation on the catalogue ---------------------------------------------------------------


class _Renamer(ast.NodeTransformer):
    """Renames every name the module assigns or defines privately (locals, helpers), keeping the
    declared functions and their parameters (the judge calls them by name and keyword)."""

    def __init__(self, tree: ast.Module) -> None:
        stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        private = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name.startswith("_")}
        # Parameters and keywords stay: the judge passes keywords, and so may the file's own calls.
        kept = {n.arg for n in ast.walk(tree) if isinstance(n, (ast.arg, ast.keyword)) and n.arg}
        self.names = {name: f"renamed_{i}" for i, name in enumerate(sorted((stored | private) - kept))}

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self.names.get(node.id, node.id)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        node.name = self.names.get(node.name, node.name)
        self.generic_visit(node)
        return node


def renamed_and_reformatted(source: str) -> str:
    """``source`` with its local names renamed, its comments and docstrings' layout gone, and
    ast.unparse's formatting: what a learner who copies and disguises would hand in."""
    tree = ast.parse(source)
    return ast.unparse(_Renamer(tree).visit(tree))


# The one line of each reference whose change keeps the distribution but draws in another order.
SAMPLING_ORDER = {
    "1": (
        "u = torch.rand(p.shape[0], n, generator=generator, dtype=p.dtype, device=p.device)",
        "u = torch.rand(n, p.shape[0], generator=generator, dtype=p.dtype, device=p.device).T",
    ),
    "39": (
        "return torch.multinomial(probs, num_samples, replacement=True, generator=generator)",
        "return torch.multinomial(probs.flip(0), num_samples, replacement=True, generator=generator).flip(0)",
    ),
}


@pytest.mark.parametrize("number", sorted(SAMPLING_ORDER))
def test_a_disguised_copy_keeps_the_fingerprint_and_a_reordered_one_loses_it(number, tmp_path):
    exercise = resolve(number)
    source = exercise.reference_path.read_text(encoding="utf-8")
    original = fingerprint_file(exercise, exercise.reference_path)
    assert set(original) == {p.name for p in exercise.similarity.probes}  # the reference answers every probe

    disguised = tmp_path / "disguised.py"
    disguised.write_text(renamed_and_reformatted(source), encoding="utf-8")
    assert "renamed_0" in disguised.read_text() and disguised.read_text() != source
    assert fingerprint_file(exercise, disguised) == original

    old, new = SAMPLING_ORDER[number]
    assert source.count(old) == 1
    reordered = tmp_path / "reordered.py"
    reordered.write_text(source.replace(old, new), encoding="utf-8")
    assert judge_file(exercise, reordered, suites=("public",), seed=3).verdict is Verdict.AC  # still correct
    changed = fingerprint_file(exercise, reordered)
    # Every random probe of more than one row draws in another order (one row reads the same
    # stream either way: exercise 1's one_coin_many_flips).
    random_probes = {p.name for p in exercise.similarity.probes if p.seeded}
    assert sum(changed[name] != original[name] for name in random_probes) >= 2
    match = behaviour_match(changed, original)
    assert not match.strong and match.identical < match.compared


# The pairs of catalogued correct solutions that come out strong when compared as two learners
# would be (the other solutions' hashes dropped): each draws the very same stream as the other,
# so every probe is identical (docs/similarity-behaviour.md has all five of the catalogue).
SAME_STREAM = {
    # torch.bernoulli on the CPU draws one uniform per entry, in order, and compares it with p:
    # the reference's rand < p, entry for entry. Five of the eight catalogued solutions draw that
    # stream (reference, bernoulli, expanded_bernoulli, row_by_row, where_compare), so a third
    # one masks every pair of them: none is strong.
    "1": set(),
    "43": {
        # Gumbel-max and an exponential race pick the same token from the same uniforms, and the
        # two files share 125 of their 137 lines: shared code, caught.
        frozenset({"gumbel_residual", "race_residual"}),
        # torch.randint(0, 2**53) * 2**-53 is torch.rand's float64 uniform, bit for bit, and both
        # draw one per position in the same order.
        frozenset({"randint_uniforms", "rescaled_uniform"}),
    },
}


def _label(path: Path) -> str:
    return "reference" if path.name == "reference.py" else path.stem


@pytest.mark.parametrize("number", sorted(SAME_STREAM))
def test_only_solutions_that_draw_one_stream_match_strongly(number):
    """Leave the pair out: its probes compared less the other catalogued solutions' hashes (the
    reference's included unless it is one of the pair), as a site compares two learners."""
    exercise = resolve(number)
    prints = {
        _label(p): fingerprint_file(exercise, p) for p in [exercise.reference_path, *exercise.correct_solutions()]
    }
    strong = set()
    for a, b in itertools.combinations(prints, 2):
        common: dict[str, set[str]] = {}
        for other, fingerprint in prints.items():
            if other not in (a, b):
                for probe, digest in fingerprint.items():
                    common.setdefault(probe, set()).add(digest)
        if behaviour_match(prints[a], prints[b], common=common).strong:
            strong.add(frozenset({a, b}))
    assert strong == SAME_STREAM[number], sorted(map(sorted, strong ^ SAME_STREAM[number]))
    assert all(len(fingerprint) == len(exercise.similarity.probes) for fingerprint in prints.values())
    # With the whole catalogue's hashes common, as a site compares, no two of them match strongly.
    everything = common_hashes(exercise)
    assert not [
        pair
        for pair in itertools.combinations(prints, 2)
        if behaviour_match(prints[pair[0]], prints[pair[1]], common=everything).strong
    ]


def test_the_hash_names_no_input():
    """A fingerprint is 16 hex digits per probe name, nothing else (no value, no seed, no shape)."""
    exercise = resolve("1")
    report = grade(exercise, exercise.reference_path.read_text(), suites=("public",), seed=5, fingerprint=True)
    assert report.fingerprint and all(re.fullmatch(r"[0-9a-f]{16}", h) for h in report.fingerprint.values())
    assert set(report.fingerprint) == {p.name for p in exercise.similarity.probes}


def test_no_front_door_of_the_learner_asks_for_a_fingerprint():
    """The CLI, the autograder and the browser never pass ``fingerprint=``: their reports (the
    CLI's --json, results.json, the browser's JSON) then carry none. Only the site's queue asks."""
    root = Path(__file__).resolve().parents[2]
    doors = [*(root / "judge" / "cli").glob("*.py"), *(root / "judge" / "browser").rglob("*.py")]
    doors.append(root / "judge" / "gradescope.py")
    asking = [
        path.relative_to(root).as_posix()
        for path in doors
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.keyword) and node.arg == "fingerprint"
    ]
    assert asking == []
    queue = (root / "web" / "grading" / "queue.py").read_text(encoding="utf-8")
    assert "fingerprint=True" in queue  # the site's gradings do, so the door test above is not vacuous
