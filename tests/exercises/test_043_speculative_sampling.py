"""Exercise 43's own parts: the theory module, the frozen cases, the wrong solutions' premises.

``theory.py`` (plain Python, judge side) and the reference solution (torch, learner side) are
written independently; agreeing on generated inputs, and a simulation agreeing with the exact
distributions, is evidence both follow the statement. The frozen top-k cases must keep their
margins and their designed ties; the statistical contexts must make every mistake move a lot of
probability (their kills are measured by benchmarks/power_043.py).
"""

from __future__ import annotations

import importlib.util
import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.exercise import resolve
from judge.suites import load_suite, suites_module


@pytest.fixture(scope="module")
def exercise43():
    return resolve("43")


@pytest.fixture(scope="module")
def parts(exercise43):
    load_suite(exercise43, "hidden")
    load_suite(exercise43, "tiny")
    where = {"cases": "hidden", "theory": "public", "checks43": "public", "diagnoses": "public", "contexts": "public"}
    return {name: suites_module(exercise43, f"{folder}.{name}") for name, folder in where.items()}


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def reference(exercise43):
    return _load(exercise43.reference_path, "reference_043")


rows = st.lists(st.floats(0.0, 5.0), min_size=2, max_size=9).filter(lambda r: sum(r) > 0.1)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_rates_and_filter_agree_with_theory(parts, reference, data):
    theory = parts["theory"]
    p = data.draw(rows)
    q = data.draw(st.lists(st.floats(0.0, 5.0), min_size=len(p), max_size=len(p)).filter(lambda r: sum(r) > 0.1))
    p = [v / sum(p) for v in p]
    q = [v / sum(q) for v in q]
    tp, tq = torch.tensor([p], dtype=torch.float64), torch.tensor([q], dtype=torch.float64)
    assert float(reference.acceptance_rate(tp, tq)[0]) == pytest.approx(theory.acceptance(p, q), abs=1e-12)
    assert float(reference.total_variation(tp, tq)[0]) == pytest.approx(1 - theory.acceptance(p, q), abs=1e-12)
    logits = data.draw(st.lists(st.integers(-8, 8), min_size=len(p), max_size=len(p)))
    logits = [v / 4 for v in logits]  # quarters: exact ties happen often
    temperature = data.draw(st.sampled_from([0.5, 1.0, 1.7]))
    top_k = data.draw(st.integers(0, len(p) + 1))
    got = reference.filtered_probs(torch.tensor([logits], dtype=torch.float64), temperature, top_k)[0].tolist()
    assert got == pytest.approx(theory.filtered(logits, temperature, top_k), abs=1e-12)


def test_exact_distributions_match_a_simulation(parts, reference):
    """verify on many rows: the empirical N and first-token frequencies are near the theory's."""
    theory, contexts = parts["theory"], parts["contexts"]
    ps, qs, rows = contexts.PS, contexts.QS, 40_000
    generator = torch.Generator().manual_seed(1)
    drafts = parts["checks43"].draw_drafts(qs, rows, generator)
    p = torch.tensor(ps).unsqueeze(0).repeat(rows, 1, 1)
    q = torch.tensor(qs).unsqueeze(0).repeat(rows, 1, 1)
    tokens, num = reference.verify(p, q, drafts, generator=generator)
    counts = torch.bincount(num, minlength=3).double() / rows
    assert counts.tolist() == pytest.approx(theory.accepted_count(ps[:2], qs), abs=0.01)
    first = torch.bincount(tokens[:, 0], minlength=4).double() / rows
    assert first.tolist() == pytest.approx(ps[0], abs=0.01)


def test_shared_uniform_theory_matches_a_simulation(parts):
    """positions_share_uniform's N distribution (an integral over u) against a direct simulation."""
    theory, contexts = parts["theory"], parts["contexts"]
    ps, qs = contexts.PS, contexts.QS
    generator = torch.Generator().manual_seed(2)
    rows = 40_000
    x = torch.stack([torch.multinomial(torch.tensor(q), rows, replacement=True, generator=generator) for q in qs], 1)
    ratio = torch.stack([torch.tensor(ps[i])[x[:, i]] / torch.tensor(qs[i])[x[:, i]] for i in range(2)], 1).clamp(max=1)
    u = torch.rand(rows, 1, generator=generator)
    num = (u < ratio).long().cumprod(1).sum(1)
    counts = (torch.bincount(num, minlength=3).double() / rows).tolist()
    assert counts == pytest.approx(theory.accepted_count(ps[:2], qs, "positions_share_uniform"), abs=0.01)


def test_distributions_sum_to_one(parts):
    theory, cases = parts["theory"], parts["cases"]
    for ps, qs in ((cases.DISAGREE_P, cases.DISAGREE_Q), (cases.CLOSE_P, cases.CLOSE_Q)):
        for mistake in (
            None,
            "resample_from_p",
            "residual_swapped",
            "residual_unnormalised",
            "ratio_inverted",
            "ratio_over_max",
        ):
            assert sum(theory.emitted(ps[0], qs[0], mistake)) == pytest.approx(1.0)
        for mistake in (None, "ratio_inverted", "ratio_over_max", "positions_share_uniform"):
            assert sum(theory.accepted_count(ps[:3], qs, mistake)) == pytest.approx(1.0)


def _g(alt, target, n):
    return 2 * n * sum(a * math.log(a / t) for a, t in zip(alt, target, strict=True) if a > 0 and t > 0)


def test_hidden_contexts_move_every_statistical_mistake_far(parts):
    """Each alternative is far from the truth at the hidden sizes: expected G above 150 (threshold ~45)."""
    checks43, cases, hidden = parts["checks43"], parts["cases"], None
    del hidden
    for ps, qs, n in ((cases.DISAGREE_P, cases.DISAGREE_Q, 3_000),):
        alts = checks43.verify_alternatives(ps, qs)
        counts = parts["theory"].accepted_count(ps[:3], qs)
        for alt in alts["count_alternatives"].values():
            assert _g(alt, counts, n) > 150
        for name, alt in alts["first_alternatives"].items():
            if any(a > 0 and t == 0 for a, t in zip(alt, ps[0], strict=True)):
                continue  # a zero-probability token: the support check kills it outright
            assert _g(alt, ps[0], n) > 150, name


def test_topk_cases_keep_their_margins_and_ties(parts):
    cases = parts["cases"]
    for args in (("float32", 0.7, 2, 43_201), ("float64", 1.6, 4, 43_202), ("float32", 1.0, 0, 43_203)):
        case = cases.topk_case(*args)  # raises AmbiguousCase otherwise
        assert len(case.target) in (6, 8)
    tied = cases.topk_case("float32", 0.7, 2, 43_201)
    for row in (6, 7):  # each designed tie changes the answer of a filter that keeps exactly k
        assert tied.mistakes()["topk_exact_k"][row] != pytest.approx(tied.expected()[row], rel=1e-3)


def test_every_mistake_has_both_languages_and_a_wrong_file(parts, exercise43):
    mistakes = parts["diagnoses"].MISTAKES
    stems = {p.stem for p in exercise43.wrong_solutions()}
    judge_diagnosed = {"verify_private_generator"}  # the judge's own DEFAULT_GENERATOR_DIAGNOSIS
    assert stems == set(mistakes) | judge_diagnosed
    for text in mistakes.values():
        assert text.zh and str(text)


def test_new_mistakes_are_distributions_and_move_far(parts):
    """The red-team alternatives sum to 1, and each is far at the hidden sizes (or drawn outside the support)."""
    theory, cases, checks43 = parts["theory"], parts["cases"], parts["checks43"]
    for ps, qs, n in ((cases.DISAGREE_P, cases.DISAGREE_Q, 3_000), (cases.CLOSE_P, cases.CLOSE_Q, 2_000)):
        for mistake in ("residual_abs", "accept_without_uniform"):
            assert sum(theory.emitted(ps[0], qs[0], mistake)) == pytest.approx(1.0)
        for mistake in ("accept_without_uniform", "num_counts_all_acceptances"):
            law = theory.accepted_count(ps[:3], qs, mistake)
            assert sum(law) == pytest.approx(1.0)
            assert _g(law, theory.accepted_count(ps[:3], qs), n) > 150
        counts = theory.accepted_count(ps[:3], qs)
        for i, alternatives in enumerate(checks43.verify_alternatives(ps, qs)["middle_alternatives"], start=1):
            wrong = alternatives["residual_wrong_position"]
            assert sum(wrong) == pytest.approx(1.0)
            assert _g(wrong, ps[i], n * sum(counts[i:])) > 100, i


def test_k_one_rows_are_what_the_reference_returns(parts, reference):
    """test_verify_one_draft's certain rows: the reference gives exactly the expected tokens, K = 1 and 2."""
    load_suite(resolve("43"), "hidden")
    hidden = suites_module(resolve("43"), "hidden.hidden")
    for k in (1, 2):
        p, q, drafts, tokens, num = hidden._k_one_rows(k)
        got_tokens, got_num = reference.verify(p, q, drafts, generator=torch.Generator().manual_seed(k))
        assert got_tokens.tolist() == tokens and got_num.tolist() == num


def test_pad_rule_separates_a_wrong_pad_from_continuing(parts):
    """A constant 0 after the emitted tokens is a wrong pad; a draft continued there is not."""
    checks43, diagnoses = parts["checks43"], parts["diagnoses"]
    from judge.checks import CheckFailed

    drafts = torch.tensor([[1, 2]] * 2)
    num = torch.tensor([0, 0])
    for tokens, mistake in (
        (torch.tensor([[3, 0, 0], [3, 0, 0]]), "pad_not_minus_one"),
        (torch.tensor([[3, 2, 1], [3, 2, 0]]), "continues_after_rejection"),
    ):
        with pytest.raises(CheckFailed) as failed:
            checks43.check_structure(tokens, num, drafts, 4, what="t")
        assert failed.value.diagnosis == diagnoses.MISTAKES[mistake]
