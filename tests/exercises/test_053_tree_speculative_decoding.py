"""Exercise 53's own parts: the exact laws (theory53) against the reference's frequencies and the
statement's numbers, the generated instances' promises (each aimed mistake named by its fit), the
fixed instances of the public and tiny suites, and the refusals against the reference.

The laws (judge side: Python floats, enumerating the rule) and the reference (learner side: batched
torch) are written independently; agreeing is evidence that both follow the statement.
"""

from __future__ import annotations

import random

import pytest
import torch

from judge.exercises.exercise import resolve
from judge.exercises.suites import import_solution, load_suite, suites_module


@pytest.fixture(scope="module")
def exercise53():
    return resolve("53")


@pytest.fixture(scope="module")
def parts(exercise53):
    for suite in ("hidden", "public", "tiny"):
        load_suite(exercise53, suite)
    where = {
        "theory": "public.theory53",
        "checks": "public.checks53",
        "diagnoses": "public.diagnoses",
        "public": "public.public",
        "tiny": "public.tiny",
        "generated": "hidden.generated",
        "drawn": "hidden.drawn",
        "specs": "hidden.specs",
    }
    return {name: suites_module(exercise53, path) for name, path in where.items()}


@pytest.fixture(scope="module")
def reference(exercise53):
    return import_solution(exercise53.reference_path, "reference_053")


def test_worked_example_numbers_are_the_statements(parts, exercise53):
    """The statement's numbers are the laws' (acceptance for k = 1..4, the duplicate, the tree)."""
    theory = parts["theory"]
    text = exercise53.statement("en")
    p, q = [0.5, 0.3, 0.2, 0.0], [0.25] * 4
    for k, shown in ((2, "0.825"), (3, "0.86875"), (4, "0.9015625")):
        assert f"{theory.acceptance_probability(p, q, k):.10g}" == shown and shown in text
    accepted, final = theory.node_law(p, q, [2, 2])
    assert accepted == pytest.approx([0.8, 0.0]) and final == pytest.approx([0.2, 0.0, 0.0, 0.0])
    public = parts["public"]
    law = theory.tree_law(public.PARENTS, public.TREE_TOKENS, public.TREE_P, public.TREE_Q)
    assert law == pytest.approx({(2, 2): 0.2, (0, 0): 0.05, (-1, 2): 0.75 / 14, (-1, 3): 0.75 * 13 / 14})


def test_reference_frequencies_follow_the_laws(parts, reference):
    """The reference's (last_node, final token) frequencies on a generated tree are the exact law."""
    checks, generated = parts["checks"], parts["generated"]
    seed = 1
    case = generated.tree_case(random.Random(seed), 4000)
    rows, vocab = 20_000, len(case.ps[0])
    tree = torch.tensor([case.tokens] * rows)
    out, num, last = reference.verify_tree(
        torch.tensor(case.parents),
        tree,
        checks.expand(case.ps, rows, torch.float64),
        checks.expand(case.qs, rows, torch.float64),
        generator=torch.Generator().manual_seed(seed),
    )
    final = out.gather(1, num.unsqueeze(1)).squeeze(1)
    counts = torch.bincount((last + 1) * vocab + final, minlength=(len(case.parents) + 1) * vocab).double() / rows
    law = torch.tensor(checks.tree_law(case.parents, case.tokens, case.ps, case.qs), dtype=torch.float64)
    assert (counts - law).abs().max() < 0.02  # 5 standard errors at 20 000 rows
    assert bool((counts[law == 0] == 0).all())


def test_acceptance_probability_is_the_rate_of_drawn_candidates(parts, reference):
    """acceptance_probability is the rate at which k i.i.d. candidates from q get one accepted."""
    theory = parts["theory"]
    p, q = [0.1, 0.6, 0.3, 0.0], [0.4, 0.1, 0.2, 0.3]
    rows, k = 30_000, 3
    generator = torch.Generator().manual_seed(5)
    candidates = torch.multinomial(torch.tensor([q] * rows), k, replacement=True, generator=generator)
    index, token = reference.verify_candidates(
        torch.tensor([p] * rows, dtype=torch.float64),
        torch.tensor([q] * rows, dtype=torch.float64),
        candidates,
        generator,
    )
    assert float((index >= 0).double().mean()) == pytest.approx(theory.acceptance_probability(p, q, k), abs=0.015)
    assert (torch.bincount(token, minlength=4).double() / rows).tolist() == pytest.approx(p, abs=0.015)


@pytest.mark.parametrize("seed", range(4))
def test_generated_cases_name_their_aimed_mistakes(parts, seed):
    """Each generated case separates its aimed mistakes from the truth and from the others."""
    checks, generated = parts["checks"], parts["generated"]
    rng = random.Random(seed)
    for aim in generated.CANDIDATES_AIMED:
        case = generated.candidate_case(rng, 4000, aim)
        assert all(case.q[x] > 0 for x in case.candidates)
        laws = {r: checks.candidates_law(case.p, case.q, case.candidates, r) for r in checks.NODE_RULES}
        assert checks.separated(checks.candidates_law(case.p, case.q, case.candidates), laws, 4000, aim)
    tree = generated.tree_case(rng, 4000)
    laws = {r: checks.tree_law(tree.parents, tree.tokens, tree.ps, tree.qs, r) for r in checks.TREE_RULES}
    truth = checks.tree_law(tree.parents, tree.tokens, tree.ps, tree.qs)
    assert checks.separated(truth, laws, 4000, generated.TREE_AIMED)
    assert all(tree.qs[a + 1][t] > 0 for a, t in zip(tree.parents, tree.tokens, strict=True))


def test_fallbacks_and_fixed_instances_name_their_mistakes(parts):
    """The fallbacks and the public and tiny instances separate what they are there for."""
    checks, generated, public, tiny = parts["checks"], parts["generated"], parts["public"], parts["tiny"]
    for aim, case in zip(generated.CANDIDATES_AIMED, generated.FALLBACK_CANDIDATES, strict=True):
        laws = {r: checks.candidates_law(case.p, case.q, case.candidates, r) for r in checks.NODE_RULES}
        assert checks.separated(checks.candidates_law(case.p, case.q, case.candidates), laws, 4000, aim)
    fb = generated.FALLBACK_TREE
    for rows in (1500, 4000):
        laws = {r: checks.tree_law(fb.parents, fb.tokens, fb.ps, fb.qs, r) for r in checks.TREE_RULES}
        assert checks.separated(checks.tree_law(fb.parents, fb.tokens, fb.ps, fb.qs), laws, rows, generated.TREE_AIMED)
    dup = ("duplicates_skipped", "final_from_p", "residual_not_updated")
    laws = {r: checks.candidates_law(public.DUP_P, public.DUP_Q, [0, 2, 2], r) for r in checks.NODE_RULES}
    assert checks.separated(checks.candidates_law(public.DUP_P, public.DUP_Q, [0, 2, 2]), laws, 2000, dup)
    aimed = {
        (tuple(tiny.P), tuple(tiny.CANDIDATES)): ("residual_unnormalised", "original_p", "without_replacement"),
        (tuple(tiny.SHARED_P), tuple(tiny.SHARED_CANDIDATES)): ("shared_uniform",),
    }
    for (p, candidates), aim in aimed.items():
        q = tiny.Q if p == tuple(tiny.P) else tiny.SHARED_Q
        laws = {r: checks.candidates_law(list(p), q, list(candidates), r) for r in checks.NODE_RULES}
        assert checks.separated(checks.candidates_law(list(p), q, list(candidates)), laws, 1500, aim)


def test_drawn_language_law_is_the_targets(parts):
    """accepted_mass plus the final residual's share is p: the drawn-tree case's joint law is sound."""
    theory, drawn = parts["theory"], parts["drawn"]
    p, q, k = [0.2, 0.5, 0.3], [0.6, 0.1, 0.3], 3
    mass = drawn.accepted_mass(p, q, k)
    rate = theory.acceptance_probability(p, q, k)
    assert sum(mass) == pytest.approx(rate)
    assert all(m <= a + 1e-12 for m, a in zip(mass, p, strict=True))


def test_reference_refuses_every_generated_bad_input(parts, reference):
    """The specs' bad calls are refused by the reference, and its corners accepted (no learner needed)."""
    specs = parts["specs"]
    rng = random.Random(3)

    class Sub:
        acceptance_probability = staticmethod(reference.acceptance_probability)
        verify_candidates = staticmethod(reference.verify_candidates)
        verify_tree = staticmethod(reference.verify_tree)

    class Ctx:
        def generator(self, seed=None):
            return torch.Generator().manual_seed(seed or 0)

    calls = specs.extra_refusals(Sub, Ctx(), rng)
    for call in calls:
        with pytest.raises(ValueError) as caught:
            call.function(*call.args, **call.kwargs)
        assert str(caught.value), call.call  # a refusal says what is wrong
    assert len(calls) >= 25
