"""The token engine of judge/similarity/: disguised copies found, independent work and boilerplate spared.

The corpus is exercise 39's: its reference and the correct solutions written independently of it
(benchmarks/similarity.py measures all exercises; docs/similarity.md has the figures).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.similarity_obfuscator import obfuscate
from judge.exercises.exercise import resolve
from judge.similarity import (
    CoursePair,
    ExercisePair,
    Source,
    across_exercises,
    boilerplate_for,
    clusters,
    compare_sources,
)
from judge.similarity.text import SUGGESTED_CONTAINMENT, SUGGESTED_THRESHOLD
from judge.similarity.tokens import normalised_tokens

ROOT = Path(__file__).resolve().parents[2]
EXERCISE = resolve("39")
KEEP = frozenset({"sample", "sampling_probs", "logits", "num_samples", "temperature", "top_k", "top_p", "min_p",
                  "generator"})  # fmt: skip
# Written independently of the reference (benchmarks/similarity.py's difflib ratio below 0.5); the
# other correct solutions of 39 are the reference with its last lines changed.
INDEPENDENT = ("hf_logit_space_gumbel", "one_sort_exponential_race", "randint_binary_search", "rowloop_inverse_cdf")


def _text(name: str) -> str:
    path = EXERCISE.reference_path if name == "reference" else EXERCISE.solutions_root / "correct" / f"{name}.py"
    return path.read_text(encoding="utf-8")


def _pool(*extra: Source) -> list[Source]:
    return [Source(name, _text(name)) for name in ("reference", *INDEPENDENT)] + list(extra)


def _score(scores, left: str, right: str) -> float:
    (found,) = [p.similarity for p in scores if {p.left, p.right} == {left, right}]
    return found


def _starter() -> str:
    return EXERCISE.starter_path.read_text(encoding="utf-8")


@pytest.mark.parametrize("layout", ["black", "compact"])
def test_a_renamed_and_reformatted_copy_scores_above_the_threshold(layout):
    copy = obfuscate(_text("reference"), 7, keep=KEEP, disguises=("rename", "format"), layout=layout)
    assert "def _validate" not in copy  # the helpers were renamed: the disguise did its work
    scores = compare_sources(_pool(Source("copy", copy)), [_starter()])
    assert _score(scores, "reference", "copy") >= 0.95


def test_a_copy_with_every_disguise_scores_above_the_threshold():
    copy = obfuscate(_text("rowloop_inverse_cdf"), 11, keep=KEEP)
    scores = compare_sources(_pool(Source("copy", copy)), [_starter()])
    assert _score(scores, "rowloop_inverse_cdf", "copy") >= SUGGESTED_THRESHOLD
    assert scores[0].left == "copy" and scores[0].right == "rowloop_inverse_cdf"  # ranked first, keys ordered


def test_independent_correct_solutions_score_below_the_threshold():
    scores = compare_sources(_pool(), [_starter()])
    assert len(scores) == 10  # threshold 0: every pair of the five
    assert max(p.similarity for p in scores) < SUGGESTED_THRESHOLD / 2


def test_rare_fragments_weigh_more_than_the_lines_every_sampler_shares():
    """Without the rarity weighting, independent solutions that share the common steps score higher."""
    pool = [Source(p.stem, p.read_text(encoding="utf-8")) for p in sorted(EXERCISE.solutions_root.glob("*/*.py"))]
    pool += [Source("reference", _text("reference"))]
    weighted = compare_sources(pool, [_starter()])
    flat = compare_sources(pool, [_starter()], rarity=False)
    pair = ("hf_logit_space_gumbel", "rowloop_inverse_cdf")
    assert _score(weighted, *pair) < _score(flat, *pair)


def test_the_pasted_starter_never_counts():
    starter = _starter()
    a = starter + "\n\ndef extra_one(x):\n    return x + 1\n"
    b = starter + "\n\nclass Other:\n    pass\n"
    without = compare_sources([Source("a", a), Source("b", b)])
    assert without[0].similarity > 0.8  # the starter alone makes them look alike...
    excluded = compare_sources([Source("a", a), Source("b", b)], [starter])
    assert excluded[0].similarity == 0.0  # ...and it is excluded
    assert excluded[0].fragments == ()


def test_the_exercise_boilerplate_holds_every_file_a_learner_may_start_from():
    texts = boilerplate_for(EXERCISE)
    assert _starter() in texts and _text("reference") in texts and _text("gumbel_max") in texts
    wrong = len(EXERCISE.wrong_solution_files())
    assert len(texts) == 2 + len(EXERCISE.correct_solutions()) + wrong
    # Pasting the reference is excluded too: with it, two copies of the reference share nothing.
    reference = _text("reference")
    scores = compare_sources([Source("a", reference), Source("b", obfuscate(reference, 3, keep=KEEP))], texts)
    assert scores[0].similarity == 0.0


def _tokens_within(text: str, span: tuple[int, int]) -> list[str]:
    """The normalised tokens of ``text`` (read whole: a docstring is one only in its context) inside ``span``."""
    return [t.text for t in normalised_tokens(text) if span[0] <= t.start and t.end <= span[1]]


def test_fragments_point_at_the_same_code_on_both_sides():
    left_text = _text("reference")
    right_text = obfuscate(left_text, 5, keep=KEEP)
    (pair,) = compare_sources([Source("a", left_text), Source("b", right_text)])
    assert pair.fragments
    starts = {t.start for t in normalised_tokens(left_text)}
    for fragment in pair.fragments:
        left, right = _tokens_within(left_text, fragment.left), _tokens_within(right_text, fragment.right)
        assert left == right, fragment
        assert len(left) >= 12  # at least one run of K tokens
        assert fragment.left[0] in starts  # a fragment starts on a token, not inside a name
    covered = sum(end - start for start, end in (f.left for f in pair.fragments))
    assert covered > len(left_text) / 3  # most of the code, not a stray line


def test_reordered_functions_are_still_found_fragment_by_fragment():
    text = _text("reference")
    reordered = obfuscate(text, 2, disguises=("reorder",))
    order = [line for line in text.splitlines() if line.startswith("def ")]
    assert [line for line in reordered.splitlines() if line.startswith("def ")] != order  # the seed reorders
    (pair,) = compare_sources([Source("a", text), Source("b", reordered)])
    assert pair.similarity > 0.9
    shifts = {f.right[0] - f.left[0] for f in pair.fragments}
    assert len(shifts) >= 2  # blocks that moved: one fragment per place they went


def test_renaming_comments_and_docstrings_leave_the_tokens_unchanged_and_attributes_count():
    one = 'def f(probs):\n    """Sum."""\n    return torch.cumsum(probs, dim=-1)  # c\n'
    two = "def g(p):\n    # another comment\n    return torch.cumsum(p, dim=-1,)\n"
    three = "def g(p):\n    return torch.cumprod(p, dim=-1)\n"
    assert [t.text for t in normalised_tokens(one)] == [t.text for t in normalised_tokens(two)]
    assert [t.text for t in normalised_tokens(one)] != [t.text for t in normalised_tokens(three)]


@pytest.mark.parametrize(
    "text",
    ["", "x", "def broken(:\n  return '''never closed", "\x00\x01 binary", "    indented\nwrongly\n  here", "é" * 5000],
)
def test_any_text_compares_without_raising(text):
    scores = compare_sources([Source("a", text), Source("b", _text("reference"))])
    assert len(scores) == 1 and 0.0 <= scores[0].similarity <= 1.0


def test_a_broken_source_still_matches_its_copy():
    broken = _text("reference") + "\ndef oops(:\n"  # a syntax error at the end: tokenize gives up
    (pair,) = compare_sources([Source("a", broken), Source("b", broken.replace("probs", "pp"))])
    assert pair.similarity > 0.9


def test_scores_are_the_same_in_every_process():
    """Hashes are stable: str hashes are salted per process (PYTHONHASHSEED), the engine's must not be."""
    script = (
        "from pathlib import Path; from judge.similarity import Source, compare_sources; "
        "p = Path('solutions/039-sampling'); "
        "s = [Source(f.stem, f.read_text()) for f in sorted(p.glob('correct/*.py'))]; "
        "print(repr([(x.left, x.right, x.similarity) for x in compare_sources(s)]))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1


@pytest.mark.parametrize(
    ("sources", "threshold", "message"),
    [
        ([Source("a", "x"), Source("a", "y")], 0.0, "repeated: a"),
        ([Source("a", "x")], 1.5, "threshold must be within"),
        ([Source("a", "x")], -0.1, "threshold must be within"),
    ],
)
def test_bad_arguments_are_refused(sources, threshold, message):
    with pytest.raises(ValueError, match=message):
        compare_sources(sources, threshold=threshold)


def test_a_containment_threshold_outside_0_1_is_refused():
    with pytest.raises(ValueError, match="containment_threshold must be within"):
        compare_sources([Source("a", "x")], containment_threshold=float("nan"))


def test_a_copy_padded_with_unrelated_code_keeps_its_containment():
    """Padding dilutes the similarity (a limit docs/similarity.md states); containment still finds the copy."""
    padding = "\n\n".join(resolve(other).reference_path.read_text(encoding="utf-8") for other in ("40", "42"))
    padded = obfuscate(_text("rowloop_inverse_cdf") + "\n\n" + padding, 3, keep=KEEP)
    sources = _pool(Source("padded", padded))
    scores = compare_sources(sources, [_starter()])
    pair = next(p for p in scores if {p.left, p.right} == {"padded", "rowloop_inverse_cdf"})
    assert pair.similarity < SUGGESTED_THRESHOLD <= SUGGESTED_CONTAINMENT <= pair.containment
    assert max(p.containment for p in scores if "padded" not in (p.left, p.right)) < SUGGESTED_CONTAINMENT / 2
    kept = compare_sources(sources, [_starter()], threshold=0.9, containment_threshold=SUGGESTED_CONTAINMENT)
    assert [(p.left, p.right) for p in kept] == [("padded", "rowloop_inverse_cdf")]
    assert compare_sources(sources, [_starter()], threshold=0.9) == []


def test_the_threshold_filters_pairs():
    scores = compare_sources(_pool(Source("copy", _text("reference"))), threshold=0.9)
    assert [(p.left, p.right) for p in scores] == [("copy", "reference")]


def test_a_pair_similar_on_three_exercises_ranks_above_one_similar_on_one():
    pairs = [
        ExercisePair("39", "ann", "bob", 0.99),
        *(ExercisePair(e, "cy", "dee", 0.45) for e in ("39", "40", "41")),
        ExercisePair("42", "dee", "cy", 0.5),  # given the other way round: the same pair
        ExercisePair("43", "ann", "bob", 0.2),  # below the threshold: not counted
        ExercisePair("39", "eve", "fay", 0.1),  # never above: not listed
    ]
    ranked = across_exercises(pairs, threshold=0.4)
    assert ranked == [
        CoursePair("cy", "dee", ("39", "40", "41", "42"), pytest.approx(1.85)),
        CoursePair("ann", "bob", ("39",), 0.99),
    ]


def test_at_a_low_threshold_more_exercises_still_rank_first():
    """Three exercises at 0.25 sum to 0.75, under one exercise at 0.99: the count decides first."""
    pairs = [ExercisePair("39", "ann", "bob", 0.99), *(ExercisePair(e, "cy", "dee", 0.25) for e in ("39", "40", "41"))]
    assert [(p.a, p.b) for p in across_exercises(pairs, threshold=0.2)] == [("cy", "dee"), ("ann", "bob")]


def test_one_exercise_given_twice_for_a_pair_keeps_its_highest_similarity():
    pairs = [ExercisePair("39", "a", "b", 0.5), ExercisePair("39", "b", "a", 0.7)]
    assert across_exercises(pairs, threshold=0.4) == [CoursePair("a", "b", ("39",), 0.7)]


def test_clusters_are_the_connected_groups_of_two_or_more():
    found = clusters([("a", "b"), ("c", "b"), ("x", "y"), ("d", "c"), ("z", "z")])
    assert found == [frozenset("abcd"), frozenset("xy")]
    assert clusters([]) == []
