"""Exercise 43's own parts: the theory module, the frozen cases, the wrong solutions' premises.

``theory.py`` (plain Python, judge side) and the reference solution (torch, learner side) are
written independently; agreeing on generated inputs, and a simulation agreeing with the exact
distributions, is evidence both follow the statement. The frozen top-k cases must keep their
margins and their designed ties; the statistical contexts must make every mistake move a lot of
probability (their kills are measured by benchmarks/power_043.py).
"""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.exercises.exercise import resolve
from judge.exercises.suites import import_solution, load_suite, suites_module


@pytest.fixture(scope="module")
def exercise43():
    return resolve("43")


@pytest.fixture(scope="module")
def parts(exercise43):
    load_suite(exercise43, "hidden")
    load_suite(exercise43, "tiny")
    where = {"cases": "hidden", "theory": "public", "checks43": "public", "diagnoses": "public", "contexts": "public"}
    return {name: suites_module(exercise43, f"{folder}.{name}") for name, folder in where.items()}


@pytest.fixture(scope="module")
def reference(exercise43):
    return import_solution(exercise43.reference_path, "reference_043")


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
    """Each diagnosis of the table is promised by a wrong solution, and each wrong solution promises one of the
    table or one of the judge's own (its generator contract, its draw sites)."""
    from judge.authoring.catalogue import parse_wrong_solution
    from judge.checks.draw_sites import DRAW_SITE_DIAGNOSIS
    from judge.checks.generator_contract import DEFAULT_GENERATOR_DIAGNOSIS, RESEEDED_DIAGNOSIS

    mistakes = parts["diagnoses"].MISTAKES
    promised = {str(parse_wrong_solution(path).diagnosis) for path in exercise43.wrong_solutions()}
    judges = {str(d) for d in (DEFAULT_GENERATOR_DIAGNOSIS, DRAW_SITE_DIAGNOSIS, RESEEDED_DIAGNOSIS)}
    assert {" ".join(str(text).split()) for text in mistakes.values()} <= promised
    assert promised <= {" ".join(str(text).split()) for text in mistakes.values()} | judges
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
    for k in (1, 2):
        p, q, drafts, tokens, num = parts["checks43"]._k_one_rows(k)
        got_tokens, got_num = reference.verify(p, q, drafts, generator=torch.Generator().manual_seed(k))
        assert got_tokens.tolist() == tokens and got_num.tolist() == num


def test_pad_rule_separates_a_wrong_pad_from_continuing(parts):
    """A constant 0 after the emitted tokens is a wrong pad; a draft continued there is not."""
    checks43, diagnoses = parts["checks43"], parts["diagnoses"]
    from judge.checks.base import CheckFailed

    drafts = torch.tensor([[1, 2]] * 2)
    num = torch.tensor([0, 0])
    for tokens, mistake in (
        (torch.tensor([[3, 0, 0], [3, 0, 0]]), "pad_not_minus_one"),
        (torch.tensor([[3, 2, 1], [3, 2, 0]]), "continues_after_rejection"),
    ):
        with pytest.raises(CheckFailed) as failed:
            checks43.check_structure(tokens, num, drafts, 4, what="t")
        assert failed.value.diagnosis == diagnoses.MISTAKES[mistake]


@pytest.fixture(scope="module")
def generated(exercise43, parts):
    return suites_module(exercise43, "hidden.generated")


def test_frozen_tiny_inputs_are_what_the_generator_makes(parts, generated):
    """The tiny variant cannot import the hidden generator: its frozen draw-site inputs must be its output."""
    import random

    contexts = parts["contexts"]
    rng = random.Random(contexts.FREEZE_SEED)
    past = generated.past_end_rows(rng, torch.float32, rows=2, k=2, vocab=12)
    vanish = generated.vanishing_residual_rows(rng, torch.float32, rows=2, vocab=5)
    target, draft, top_k = generated.step_site_logits(rng, torch.float32, vocab=6)
    assert (contexts.PAST_END_P, contexts.PAST_END_Q, contexts.PAST_END_DRAFTS) == (past.p, past.q, past.drafts)
    assert (contexts.VANISH_P, contexts.VANISH_Q, contexts.VANISH_DRAFTS) == (vanish.p, vanish.q, vanish.drafts)
    assert (contexts.STEP_SITES_TARGET, contexts.STEP_SITES_DRAFT, contexts.STEP_SITES_TOP_K) == (target, draft, top_k)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("seed", range(5))
def test_nasty_rows_are_as_promised(generated, dtype, seed):
    """Past-end rows: a cumulative sum that ends early with zeros at the end, certain rejections where the
    residual is p_0; vanishing rows: rejected at the largest uniform, with a residual 0 at every token."""
    import random

    rng = random.Random(seed)
    rows = generated.past_end_rows(rng, dtype)
    p, q, x = rows.tensors()
    top = torch.nextafter(torch.tensor(1.0, dtype=dtype), torch.tensor(0.0, dtype=dtype))
    for row in range(p.shape[0]):
        source = p[row, 0] if row % 2 == 0 else p[row, -1]
        assert generated._cdf_ends_early(source.tolist(), dtype) and float(source[-1]) == 0.0
        if row % 2 == 0:
            assert float(p[row, 0, x[row, 0]]) == 0.0
            assert torch.equal((p[row, 0] - q[row, 0]).clamp(min=0), p[row, 0])
        else:
            assert torch.equal(p[row, :-1], q[row])
    rows = generated.vanishing_residual_rows(rng, dtype)
    p, q, x = rows.tensors()
    picked_p, picked_q = p[:, 0].gather(1, x), q[:, 0].gather(1, x)
    assert not bool((top * picked_q < picked_p).any())  # rejected at the largest uniform
    assert bool(((p[:, 0] - q[:, 0]).clamp(min=0) == 0).all()) and bool((picked_p > 0).all())


def test_step_site_logits_filter_both_ends(parts, generated):
    """The drafts of the step's draw-site case have exact zeros at token 0 and V - 1 after top-k."""
    import random

    theory = parts["theory"]
    for dtype in (torch.float32, torch.float64):
        target, draft, top_k = generated.step_site_logits(random.Random(3), dtype)
        for rows in draft:
            for z in rows:
                q = theory.filtered(z, 0.7, top_k)
                assert q[0] == 0.0 and q[-1] == 0.0 and sum(v > 0 for v in q) == top_k


def test_final_law_matches_a_simulation(parts, reference):
    """theory.final_law, the law of a row's (N, last token), with drafts drawn and with drafts fixed."""
    theory, cases, checks43 = parts["theory"], parts["cases"], parts["checks43"]
    ps, qs, rows = cases.HALF_P, cases.HALF_Q, 60_000
    generator = torch.Generator().manual_seed(5)
    for drafts, fixed in (
        (checks43.draw_drafts(qs, rows, generator), None),
        (torch.tensor([[1, 2, 0]] * rows), [1, 2, 0]),
    ):
        p, q = checks43.expand(ps, rows, torch.float64), checks43.expand(qs, rows, torch.float64)
        tokens, num = reference.verify(p, q, drafts, generator=generator)
        law = theory.final_law(ps, qs, fixed)
        seen = torch.bincount(checks43.outcome_ids(tokens, num, 6), minlength=len(law)).double() / rows
        assert sum(law) == pytest.approx(1.0)
        assert seen.tolist() == pytest.approx(law, abs=0.01)


def test_reused_draft_uniform_law_matches_its_patch(parts, exercise43):
    """accept_joint's "draft_uniform_reused" is the law of the catalogued patch (inverse CDF in token order)."""
    theory, cases, checks43 = parts["theory"], parts["cases"], parts["checks43"]
    wrong = next(path for path in exercise43.wrong_solutions() if path.stem == "draft_uniform_reused")
    module = import_solution(wrong, "draft_uniform_reused_043")
    rows = 60_000
    target = checks43.expand(cases.STEP_TARGET, rows, torch.float64)
    draft = checks43.expand(cases.STEP_DRAFT, rows, torch.float64)
    temperature, top_k = cases.STEP_TEMPERATURE, cases.STEP_TOP_K
    tokens, num, drafts = module.speculative_step(target, draft, temperature, top_k, torch.Generator().manual_seed(6))
    ps = [theory.filtered(z, temperature, top_k) for z in cases.STEP_TARGET]
    qs = [theory.filtered(z, temperature, top_k) for z in cases.STEP_DRAFT]
    seen = torch.bincount(drafts[:, 0] * 2 + (num > 0).long(), minlength=12).double() / rows
    assert seen.tolist() == pytest.approx(theory.accept_joint(ps[0], qs[0], "draft_uniform_reused"), abs=0.01)


def test_step_context_separates_the_acceptance_mistakes(parts):
    """At each position of the hidden step, the law of a draft with its acceptance is at least 0.07 (total
    variation) from the rule's under every listed mistake, and they from each other: each names itself."""
    import itertools

    theory, cases, checks43 = parts["theory"], parts["cases"], parts["checks43"]
    ps, qs, raw_ps, raw_qs, (times_ps, times_qs) = checks43.step_distributions(
        cases.STEP_TARGET, cases.STEP_DRAFT, cases.STEP_TEMPERATURE, cases.STEP_TOP_K
    )
    for i in range(2):
        laws = [
            theory.accept_joint(ps[i], qs[i]),
            theory.accept_joint(ps[i], qs[i], "draft_uniform_reused"),
            theory.accept_joint(ps[i], qs[i], verify_q=raw_qs[i]),
            theory.accept_joint(ps[i], qs[i], verify_p=raw_ps[i]),
            theory.accept_joint(times_ps[i], times_qs[i]),
            *(
                theory.accept_joint(ps[i], qs[i], m)
                for m in ("ratio_inverted", "ratio_over_max", "accept_without_uniform")
            ),
        ]
        for a, b in itertools.combinations(laws, 2):
            assert 0.5 * sum(abs(x - y) for x, y in zip(a, b, strict=True)) >= 0.07


def _rows_of(module, ps, qs, rows, seed):
    generator = torch.Generator().manual_seed(seed)
    drafts = parts_checks43().draw_drafts(qs, rows, generator)
    p = torch.tensor(ps).unsqueeze(0).repeat(rows, 1, 1)
    q = torch.tensor(qs).unsqueeze(0).repeat(rows, 1, 1)
    tokens, num = module.verify(p, q, drafts, generator=generator)
    return tokens, num, drafts


def parts_checks43():
    return suites_module(resolve("43"), "public.checks43")


@pytest.mark.parametrize("seed", range(4))
def test_threshold_rule_names_shared_uniforms_not_correct_rows(parts, reference, exercise43, seed):
    """_threshold_decisions passes a correct verify and names rows that share u (of its own evidence)."""
    from judge.checks.base import CheckFailed

    checks43, cases, mistakes = parts["checks43"], parts["cases"], parts["diagnoses"].MISTAKES
    ps, qs = cases.DISAGREE_P, cases.DISAGREE_Q
    tokens, num, drafts = _rows_of(reference, ps, qs, 3_000, seed)
    checks43._threshold_decisions(num, drafts, ps, qs, what="t")
    shared = import_solution(
        next(p for p in exercise43.wrong_solutions() if p.stem == "rows_share_uniforms"), "shared_043"
    )
    tokens, num, drafts = _rows_of(shared, ps, qs, 3_000, seed)
    with pytest.raises(CheckFailed) as failed:
        checks43._threshold_decisions(num, drafts, ps, qs, what="t")
    assert failed.value.diagnosis in (mistakes["rows_not_independent"], None)


def test_dependence_evidence_tells_a_wrong_law_from_tied_rows(parts, reference, exercise43):
    """A wrong law of each row (the bonus from q) is no evidence of dependent rows; antithetic rows are."""
    checks43, cases = parts["checks43"], parts["cases"]
    ps, qs, rows = cases.HALF_P, cases.HALF_Q, 4_000

    def pairs(module):
        tokens, num, _ = _rows_of(module, ps, qs, rows, 9)
        classes = checks43._classes(checks43.outcome_ids(tokens, num, 6), parts["theory"].final_law(ps, qs))
        half = rows // 2
        return [
            (classes[0::2][: half // 2 * 2 : 2], classes[1::2][: half // 2 * 2 : 2]),
            (classes[:half], classes[half:]),
        ]

    by_name = {p.stem: p for p in exercise43.wrong_solutions()}
    assert not checks43._dependent(pairs(import_solution(by_name["bonus_from_q"], "bonus_from_q_043")))
    assert not checks43._dependent(pairs(reference))
    assert checks43._dependent(pairs(import_solution(by_name["rows_antithetic"], "rows_antithetic_043")))


@pytest.mark.parametrize("seed", range(3))
def test_generated_calls_keep_their_promises(exercise43, seed):
    """Every spec of specs.py makes bad calls with exactly one flaw and legal corners with none (the engine
    checks each call against the specs: a broken K + 1 relation or a sum-breaking corner raises)."""
    import random

    from judge.checks.arguments import bad_inputs, legal_inputs

    specs = suites_module(exercise43, "hidden.specs")
    for good, arguments in (
        (specs.good_rate_call, specs.RATE_ARGUMENTS),
        (specs.good_filter_call, specs.FILTER_ARGUMENTS),
        (specs.good_topk_rate_call, specs.TOPK_RATE_ARGUMENTS),
        (specs.good_verify_call, specs.VERIFY_ARGUMENTS),
        (specs.good_step_call, specs.STEP_ARGUMENTS),
    ):
        rng = random.Random(seed)
        call = good(rng)
        assert bad_inputs(call, arguments, rng)
        corners = legal_inputs(call, arguments, rng)
        assert corners
        for variant in corners:
            if "target_probs" in variant.kwargs and "draft_tokens" in variant.kwargs:
                p, q, x = (variant.kwargs[k] for k in ("target_probs", "draft_probs", "draft_tokens"))
                assert p.shape[1] == q.shape[1] + 1 and bool((q.gather(2, x.unsqueeze(2)) > 0).all())


@pytest.mark.parametrize("seed", range(6))
def test_tiny_threshold_rows_name_shared_uniforms_every_time(parts, reference, exercise43, seed):
    """The tiny suite's one-threshold rows: a correct verify passes them; rows sharing u are named as such
    whatever the shared uniform (the browser's only robust evidence of that mistake)."""
    from judge.checks.base import CheckFailed

    tiny = suites_module(exercise43, "public.tiny")
    checks43, mistakes = parts["checks43"], parts["diagnoses"].MISTAKES
    batch = 3 * tiny.THRESHOLD_ROWS
    drafts = torch.tensor([[row % 3] for row in range(batch)])
    p = checks43.expand(tiny.THRESHOLD_P, batch, torch.float32)
    q = checks43.expand(tiny.THRESHOLD_Q, batch, torch.float32)
    shared = import_solution(
        next(p for p in exercise43.wrong_solutions() if p.stem == "rows_share_uniforms"), "shared_t043"
    )
    _, num = reference.verify(p, q, drafts, generator=torch.Generator().manual_seed(seed))
    checks43._threshold_decisions(num, drafts, tiny.THRESHOLD_P, tiny.THRESHOLD_Q, what="t")
    for draw in range(20):
        generator = torch.Generator().manual_seed(1000 * seed + draw)
        _, num = shared.verify(p, q, drafts, generator=generator)
        with pytest.raises(CheckFailed) as failed:
            checks43._threshold_decisions(num, drafts, tiny.THRESHOLD_P, tiny.THRESHOLD_Q, what="t")
        assert failed.value.diagnosis == mistakes["rows_not_independent"]
