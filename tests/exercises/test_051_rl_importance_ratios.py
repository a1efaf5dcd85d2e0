"""Exercise 51's own parts: the frozen public values against the oracle, the worked example's numbers
against the statement, the oracle against the reference on generated inputs, the generated inputs'
promises (legal, with padding, equal groups and zeros in p_old where asked), the draw targets' readability.

The oracle (judge side: float64 from the inputs as given) and the reference (learner side: torch in the
input's dtype) are written separately; agreeing on generated inputs is evidence that both follow the
statement.
"""

from __future__ import annotations

import math
import random

import pytest
import torch

from judge.exercises.exercise import resolve
from judge.exercises.suites import import_solution, load_suite, suites_module


@pytest.fixture(scope="module")
def exercise51():
    return resolve("51")


@pytest.fixture(scope="module")
def parts(exercise51):
    for suite in ("hidden", "public"):
        load_suite(exercise51, suite)
    where = {
        "oracle": "hidden",
        "cases": "hidden",
        "generated": "hidden",
        "specs": "hidden",
        "frozen51": "public",
        "draws51": "public",
        "diagnoses": "public",
    }
    return {name: suites_module(exercise51, f"{folder}.{name}") for name, folder in where.items()}


@pytest.fixture(scope="module")
def reference(exercise51):
    return import_solution(exercise51.reference_path, "reference_051")


def _same(a, b) -> bool:
    """Equal plain data, NaN equal to NaN."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def test_frozen_values_are_the_oracles(parts):
    frozen, cases = parts["frozen51"], parts["cases"]
    assert frozen.TOKEN_CASES == cases.TOKEN_CASES
    assert tuple(map(tuple, frozen.OBJECTIVES)) == cases.OBJECTIVES
    assert frozen.GRPO_CASES == cases.GRPO_CASES
    assert frozen.BIAS_CASES == cases.BIAS_CASES
    assert _same(frozen.VALUES, cases.frozen_values())


def test_every_frozen_mistake_differs_from_its_target(parts):
    """Each mistake of a family moves at least one frozen case of it (else the tiny suite could not name it)."""
    values = parts["frozen51"].VALUES
    for family in ("ratios", "objectives", "grpo", "bias"):
        mistakes = {m for case in values[family].values() for m in case["mistakes"]}
        for mistake in mistakes:
            moved = [
                name
                for name, case in values[family].items()
                if mistake in case["mistakes"] and not _same(case["mistakes"][mistake], case["target"])
            ]
            assert moved, (family, mistake)


def test_worked_example_numbers_are_the_statements(parts, exercise51):
    text = (exercise51.root / "statement.en.md").read_text(encoding="utf-8")
    values = parts["frozen51"].VALUES
    for row in values["ratios"]["example"]["target"]:
        for value in row:
            assert f"{value:.4f}" in text or f"{value:.1f}" in text
    assert f"{values['objectives']['example 0.2 token-mean']['target']:.4f}" in text
    assert f"{values['objectives']['example 0.2 sequence-mean']['target']:.4f}" in text
    assert f"{values['grpo']['example']['target'][0][0]:.4f}" in text
    assert f"[{values['bias']['example']['target'][0]:.1f}]" in text


@pytest.mark.parametrize("seed", range(12))
def test_reference_agrees_with_the_oracle(parts, reference, seed):
    rng, generated, oracle = random.Random(seed), parts["generated"], parts["oracle"]
    for dtype in (torch.float32, torch.float64):
        rtol, atol = (1e-5, 1e-6) if dtype == torch.float32 else (1e-11, 1e-12)
        case = generated.token_case(rng, dtype, deep=seed % 2 == 0, empty_row=seed % 3 == 0)
        kwargs = generated.ratios_kwargs(case)
        ratios = reference.token_ratios(**kwargs).double()
        assert torch.allclose(ratios, oracle.token_ratios(*kwargs.values()), rtol=rtol, atol=atol)
        value = float(reference.ppo_clip_objective(**case))
        args = [case[k] for k in ("logp_new", "logp_old", "advantages", "mask", "clip_eps", "aggregation")]
        assert value == pytest.approx(oracle.ppo_objective(*args), rel=rtol, abs=atol)
        rewards = generated.rewards_case(rng, dtype, equal_rows=2)
        got = reference.grpo_advantages(**rewards).double()
        assert torch.allclose(got, oracle.grpo_advantages(rewards["rewards"], rewards["eps"]), rtol=rtol, atol=atol)
        bandit = generated.bandit_case(rng, dtype)
        args = [bandit[k] for k in ("p_new", "p_old", "advantages", "clip_eps")]
        scale = oracle.bias_scale(*args)
        got = reference.clipping_bias(**bandit).double()
        assert bool(((got - oracle.clipping_bias(*args)).abs() <= 10 * atol * scale + rtol * scale).all())


@pytest.mark.parametrize("seed", range(10))
def test_generated_inputs_keep_their_promises(parts, seed):
    rng, generated = random.Random(seed), parts["generated"]
    case = generated.token_case(rng, torch.float32, deep=True, empty_row=True)
    mask = case["mask"]
    assert bool(mask.any()) and bool((~mask.any(dim=1)).any())  # a real token, and an all-padding row
    assert bool(torch.isfinite(case["logp_new"]).all()) and bool(torch.isfinite(case["logp_old"]).all())
    gap = (case["logp_new"] - case["logp_old"]).double()[mask].abs()
    assert bool((gap <= 20).all())  # the statement's promise
    assert float(case["logp_old"][mask].min()) < -103.0  # deep: exp of each side underflows in float32
    rewards = generated.rewards_case(rng, torch.float64, equal_rows=1)["rewards"]
    equal = (rewards == rewards[:, :1]).all(dim=1)
    assert int(equal.sum()) >= 1 and rewards.shape[1] >= 2
    bandit = generated.bandit_case(rng, torch.float64)
    assert bool((bandit["p_old"].sum(dim=1) > 0).all()) and bool((bandit["p_new"].sum(dim=1) > 0).all())


def test_specs_accept_their_good_calls(parts):
    """Every good call is one the statement allows (the specs would raise CheckMisuse otherwise), and a
    per-token advantage's [T] slice can never pass for [B]."""
    specs = parts["specs"]
    for seed in range(20):
        rng = random.Random(seed)
        good = specs.good_objective(rng, per_token=True)
        assert good["advantages"].shape[0] != good["advantages"].shape[1]
        assert bool(good["mask"].any(dim=1).all())


@pytest.mark.parametrize("seed", range(40))
def test_the_corners_good_calls_hold_real_values_at_real_tokens(parts, reference, seed):
    """The good objective calls (whose dtype corner is judged against the float64 oracle) have real
    tokens with a real token's values, and so does padding, which the mask's all-True corner makes
    real: differences within 6, log-probabilities at most 0, so the reference's float32 answer is
    finite and matches. Seed 12 of the catalogue once made padding's garbage (differences up to 100)
    real, and the reference's float32 ratio overflowed; seed 20261129 made the pair 0 / -800 real, and
    the oracle's scale was infinite (an internal error)."""
    specs, oracle = parts["specs"], parts["oracle"]
    good = specs.good_objective(random.Random(seed), per_token=seed % 2 == 0)
    gap = (good["logp_new"] - good["logp_old"]).double().abs()  # padding too: the all-True corner makes it real
    assert bool((gap <= 6.0 + 1e-6).all()) and float(good["logp_new"].double().max()) <= 0.0
    everything = torch.ones_like(good["mask"])
    for dtype, mask in ((torch.float32, good["mask"]), (torch.float64, good["mask"]), (torch.float32, everything)):
        case = good | {k: good[k].to(dtype) for k in ("logp_new", "logp_old", "advantages")} | {"mask": mask}
        args = [case[k] for k in ("logp_new", "logp_old", "advantages", "mask", "clip_eps", "aggregation")]
        value = float(reference.ppo_clip_objective(**case))
        assert math.isfinite(value) and value == pytest.approx(oracle.ppo_objective(*args), rel=1e-5, abs=1e-6)


def test_draw_targets_are_readable(parts):
    """Distinct values of g within each target, far apart, and the q = 0 response first or last."""
    draws = parts["draws51"]
    for p, q, a in draws.TARGETS:
        values = draws.table(p, q, a)
        live = values[~torch.isnan(values)]
        gaps = (live.unsqueeze(0) - live.unsqueeze(1)).abs() + torch.eye(len(live))
        assert float(gaps.min()) > 0.01
        assert abs(sum(p) - 1) < 1e-12 and abs(sum(q) - 1) < 1e-12
        assert q[0] == 0 or q[-1] == 0
    clipped = [draws.expected_value(*t) for t in draws.TARGETS]
    unclipped = [draws.expected_value(*t, clip=False) for t in draws.TARGETS]
    assert all(c < u - 0.05 for c, u in zip(clipped, unclipped))  # clipping is pessimistic here
