"""Exercise 44's own parts: the oracle, the exact coverage, the frozen cases, the draw-reading case.

The oracle (judge side: math.fsum row by row) and the reference solution (learner side: torch) are
written independently; agreeing on generated inputs is evidence that both follow the statement.
"""

from __future__ import annotations

import importlib
import math
import random
import re

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.exercises.exercise import resolve
from judge.exercises.suites import import_solution, load_suite, suites_module
from judge.i18n import Bilingual


@pytest.fixture(scope="module")
def exercise44():
    return resolve("44")


@pytest.fixture(scope="module")
def parts(exercise44):
    for suite in ("hidden", "public", "tiny"):
        load_suite(exercise44, suite)
    where = {
        "oracle": "hidden",
        "cases": "hidden",
        "hidden": "hidden",
        "checks44": "public",
        "inputs44": "public",
        "frozen44": "public",
        "tiny": "public",
    }
    return {name: suites_module(exercise44, f"{folder}.{name}") for name, folder in where.items()}


@pytest.fixture(scope="module")
def reference(exercise44):
    return import_solution(exercise44.reference_path, "reference_044")


def _within(actual: torch.Tensor, expected: torch.Tensor, rtol: float, atol, share: float = 0.1) -> bool:
    """|actual - expected| within ``share`` of the judge's tolerance on every judged (non-NaN) value."""
    judged = ~torch.isnan(expected)
    atol = atol[judged] if isinstance(atol, torch.Tensor) else atol
    a, e = actual.to(torch.float64)[judged], expected[judged]
    return bool(((a - e).abs() <= share * (atol + rtol * e.abs())).all())


def _agrees(checks, case, reference, share: float = 0.1) -> None:
    weights = importlib.import_module(checks.__name__.rsplit(".", 1)[0] + ".weights44")
    rel = checks.tolerance(case.log_p.dtype, case.log_p, case.log_q)
    ordinary, sn = reference.importance_estimates(case.log_p, case.log_q, case.f)
    assert _within(sn, case.self_normalized, rel, weights.row_tolerance(case, "self_normalized", rel), share)
    assert _within(ordinary, case.ordinary, rel, weights.row_tolerance(case, "ordinary", rel), share)
    ess = reference.effective_sample_size(case.log_p, case.log_q)
    assert _within(ess, case.ess, 4 * rel, 4 * rel, share)
    truncated = reference.truncated_estimate(case.log_p, case.log_q, case.f, case.cap)
    assert _within(truncated, case.truncated, rel, weights.row_tolerance(case, "truncated", rel), share)


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(1, 4),
    n=st.integers(1, 12),
    offset=st.sampled_from([0.0, -30.0, 80.0, 600.0, -700.0]),
    spread=st.sampled_from([0.1, 3.0, 50.0]),
    seed=st.integers(0, 10_000),
    dtype=st.sampled_from([torch.float32, torch.float64]),
)
def test_reference_agrees_with_the_oracle(parts, reference, rows, n, offset, spread, seed, dtype):
    if dtype == torch.float32 and abs(offset) > 100:
        offset = math.copysign(80.0, offset)
        spread = min(spread, 3.0)
    rng = random.Random(seed)
    log_q = torch.tensor([[rng.gauss(0, 1) for _ in range(n)] for _ in range(rows)], dtype=dtype)
    log_p = log_q + torch.tensor(
        [[offset + spread * rng.gauss(0, 1) for _ in range(n)] for _ in range(rows)], dtype=dtype
    )
    f = torch.tensor([[rng.gauss(1, 2) for _ in range(n)] for _ in range(rows)], dtype=dtype)
    case = parts["oracle"].weight_case(log_p, log_q, f, 1.5, Bilingual("generated", "生成"))
    _agrees(parts["checks44"], case, reference)
    # 1 <= ESS <= N, and the ordinary estimate is judged on moderate rows.
    assert bool(((case.ess >= 1 - 1e-9) & (case.ess <= n * (1 + 1e-9))).all())
    if abs(offset) <= 30 and spread <= 3:
        assert not bool(torch.isnan(case.ordinary).any())


def _number(value: float) -> str:
    return (
        "NAN" if math.isnan(value) else ("INF" if value == math.inf else "-INF" if value == -math.inf else repr(value))
    )


def _values(tensor: torch.Tensor) -> str:
    return "[" + ", ".join(_number(v) for v in tensor.tolist()) + "]"


def frozen_source(parts) -> str:
    """frozen44.py as the oracle writes it today (``PYTHONPATH=. python tests/exercises/test_044_importance_sampling.py
    --write`` rewrites the file; then ``ruff format`` it)."""
    inputs, oracle = parts["inputs44"], parts["oracle"]
    out = [
        '"""Frozen answers of the fixed cases in ``inputs44.py`` (float64), written by the judge\'s oracle.',
        "",
        "Generated (python tests/exercises/test_044_importance_sampling.py --write); the tests check them against",
        "the oracle.",
        '"""',
        "",
        'NAN = float("nan")',
        'INF = float("inf")',
        "",
        "FROZEN = {",
    ]
    for name in inputs.PUBLIC_CASES + inputs.TINY_CASES:
        log_p, log_q, f, public = inputs.case_inputs(name)
        case = oracle.weight_case(log_p, log_q, f, inputs.CAP, public)
        out.append(f'    "{name}": {{')
        for key in ("ordinary", "self_normalized", "ess", "truncated"):
            out.append(f'        "{key}": {_values(getattr(case, key))},')
        out.append('        "scales": {')
        for key, values in case.scales.items():
            out.append(f'            "{key}": {_values(values)},')
        out.append("        },")
        out.append('        "mistakes": {')
        for output, table in case.mistakes.items():
            out.append(f'            "{output}": {{')
            for mistake, values in table.items():
                out.append(f'                "{mistake}": {_values(values)},')
            out.append("            },")
        out.append("        },")
        out.append("    },")
    out.append("}")
    return "\n".join(out) + "\n"


def test_frozen_answers_are_the_oracles(parts):
    inputs, frozen, oracle, checks = parts["inputs44"], parts["frozen44"], parts["oracle"], parts["checks44"]
    for name in inputs.PUBLIC_CASES + inputs.TINY_CASES:
        log_p, log_q, f, public = inputs.case_inputs(name)
        case = oracle.weight_case(log_p, log_q, f, inputs.CAP, public)
        stored = checks.frozen_case(name)
        for key in ("ordinary", "self_normalized", "ess", "truncated"):
            assert torch.allclose(getattr(case, key), getattr(stored, key), rtol=0, atol=0, equal_nan=True), (name, key)
            assert torch.allclose(case.scales[key], stored.scales[key], rtol=0, atol=0, equal_nan=True), (name, key)
        assert set(case.mistakes) == set(stored.mistakes)
        for output, table in case.mistakes.items():
            assert set(table) == set(stored.mistakes[output]), (name, output)
            for mistake, values in table.items():
                assert torch.equal(values.isnan(), stored.mistakes[output][mistake].isnan())
                assert torch.allclose(values, stored.mistakes[output][mistake], rtol=0, atol=0, equal_nan=True)
    assert frozen.FROZEN.keys() == set(inputs.PUBLIC_CASES + inputs.TINY_CASES)


def test_constructed_special_cases(parts):
    """The readable case's numbers (the statement's example), ESS = N and ESS = 1, the overflow rows."""
    checks = parts["checks44"]
    hand = checks.frozen_case("hand")
    assert hand.ordinary.tolist() == pytest.approx([5.625, 2.5 * math.exp(2)])
    assert hand.self_normalized.tolist() == pytest.approx([3.0, 2.5])
    assert hand.ess.tolist() == pytest.approx([45 / 17, 4.0])
    assert hand.truncated.tolist() == pytest.approx([3.625, 5.0])
    extreme = checks.frozen_case("extreme64")
    assert extreme.ess[0].item() == 1.0 and extreme.self_normalized[0].item() == 4.0
    assert bool(torch.isnan(extreme.ordinary).all())  # e^900 does not fit: not judged
    for name in ("near_overflow64", "near_overflow32"):
        case = checks.frozen_case(name)
        assert not bool(torch.isnan(case.ordinary).any())  # judged ...
        naive = case.mistakes["ordinary"]["naive_exp"]
        assert bool(torch.isinf(naive[0]))  # ... and the naive sum overflows there


def test_hidden_cases_pass_the_reference_with_margin(parts, reference):
    checks = parts["checks44"]
    for case in parts["cases"].weight_cases():
        _agrees(checks, case, reference)
        assert case.mistakes["self_normalized"]  # some mistake is visible in every case
        assert "naive_exp" in case.mistakes["ess"] or case.log_p.shape[1] == 1
    # The float64 case reaches log-weights in the hundreds on both sides.
    lw = parts["cases"].float64_extreme_rows()
    spread = lw.log_p - lw.log_q
    assert float(spread.max()) > 700 and float(spread.min()) < -700


def test_coverage_is_frozen_and_away_from_rounding(parts):
    checks = parts["checks44"]
    coverage, margin = checks.coverage_of(checks.CALIBRATION_DRAWS)
    assert coverage[None] == pytest.approx(checks.COVERAGE, rel=1e-12)
    for name, table in checks.COVERAGE_MISTAKES.items():
        assert coverage[name] == pytest.approx(table, rel=1e-12)
    # No split of the draws puts a correct interval's end within a relative 1e-4 of E_p[f]: float32 rounding
    # (1e-6 relative here) cannot change a verdict, so the exact coverage holds for float32 too.
    assert margin > 1e-4
    # Not the normal 0.683 / 0.954: assuming it would reject correct solutions.
    assert checks.COVERAGE[1.0] < 0.65 and checks.COVERAGE[2.0] < 0.93


def test_every_split_of_the_draw_case_is_readable(parts):
    checks = parts["checks44"]
    n = checks.DRAW_N
    y = checks.weighted_values(checks.DRAW_F)
    assert y == [1.0, 2.0, 1.0 + (n + 1), 1.0 + (n + 1) ** 2]
    for k1 in range(n + 1):
        for k2 in range(n + 1 - k1):
            for k3 in range(n + 1 - k1 - k2):
                k = (n - k1 - k2 - k3, k1, k2, k3)
                for dtype in (torch.float32, torch.float64):
                    values = torch.tensor([v for v, c in zip(y, k, strict=True) for _ in range(c)], dtype=dtype)
                    tol = 0.03 if dtype == torch.float32 else 1e-6
                    assert checks.decode(float(values.mean()), tol=tol) == k
                    # A float32 running mean (Welford) stays readable too.
                    if dtype == torch.float32 and k1 == k2 and k[0] <= 2:
                        mean = torch.zeros((), dtype=dtype)
                        for i, v in enumerate(values, start=1):
                            mean = mean + (v - mean) / i
                        assert checks.decode(float(mean), tol=tol) == k


def test_sampler_targets(parts):
    checks = parts["checks44"]
    truth, std = checks.moments(checks.weighted_values(checks.F))
    truncated, _ = checks.moments(checks.weighted_values(checks.F, 2.0))
    assert truth == 3.5 and truncated == 2.25
    # Exact E_p[f] from p directly.
    assert math.fsum(p * v for p, v in zip(checks.P, checks.F, strict=True)) == truth
    # The truncated gap is 1.25, more than 20 standard errors of the mean over the hidden suite's rows.
    hidden = parts["hidden"]
    _, std_cap = checks.moments(checks.weighted_values(checks.F, hidden.TRUNCATED_CAP))
    assert truth - truncated > 20 * std_cap / math.sqrt(hidden.TRUNCATED_DRAWS * hidden.TRUNCATED_ROWS)
    means = {str(k): v for k, v in checks.bias_mistakes(2.0).items()}
    assert all(abs(v - truncated) > 1 for v in means.values())
    assert std > 0


def test_sampler_pair_and_seed_checks_have_power(parts):
    """The split table behind the independence and seeds checks: every split of the draw case, summing to 1;
    a correct sampler repeats 8 rows under a second seed with chance far below the seeds alpha (1e-12), and
    32 pairs of identical rows that all agree are far below the independence alpha (1e-8)."""
    checks = parts["checks44"]
    index, probs = checks.split_probabilities()
    n = checks.DRAW_N
    assert len(index) == (n + 1) * (n + 2) * (n + 3) // 6 == probs.shape[0]
    assert float(probs.sum()) == pytest.approx(1.0, abs=1e-12)
    collision = float((probs**2).sum())
    assert collision**8 < 1e-15
    assert collision**32 < 1e-60


def test_zero_probability_case_is_readable(parts):
    """p = 0 where q > 0 and p = q = 0 in the zero case: w f = 1, 0, n + 1 on the drawable tokens, so the
    estimate tells the split, and the statement's rules make both zeros valid (q covers p)."""
    checks = parts["checks44"]
    n = checks.DRAW_N
    p, q, f = checks.ZERO_P, checks.ZERO_Q, checks.ZERO_F
    assert math.fsum(p) == 1.0 and math.fsum(q) == 1.0
    assert all(b > 0 for a, b in zip(p, q, strict=True) if a > 0)  # q > 0 wherever p > 0
    assert any(a == 0 and b > 0 for a, b in zip(p, q, strict=True)) and any(
        a == b == 0 for a, b in zip(p, q, strict=True)
    )
    y = [a / b * v if b > 0 else 0.0 for a, b, v in zip(p, q, f, strict=True)]
    assert y == [1.0, 0.0, n + 1.0, 0.0]
    seen = set()
    for k0 in range(n + 1):
        for k2 in range(n + 1 - k0):
            whole = k0 + (n + 1) * k2
            assert divmod(whole, n + 1) == (k2, k0)
            seen.add(whole)
    assert len(seen) == (n + 1) * (n + 2) // 2


def test_sequence_case_defeats_exponentiating_each_side(parts):
    """The float32 sequence case: the log-weights are small (a naive exp of the difference is right), yet
    exp(log p) / exp(log q) and the version shifted by each side's own maximum give NaN on every row."""
    checks = parts["checks44"]
    case = checks.frozen_case("sequences32")
    lw = case.log_p - case.log_q
    assert float(lw.abs().max()) <= 2.5 and float(case.log_q.min()) < -200
    for output in ("ordinary", "self_normalized", "ess", "truncated"):
        assert bool(torch.isnan(case.mistakes[output]["exp_each_side"]).all()), output
    assert "naive_exp" not in case.mistakes["self_normalized"]
    shifted = (case.log_p - case.log_p.amax(dim=1, keepdim=True)).exp() / (
        case.log_q - case.log_q.amax(dim=1, keepdim=True)
    ).exp()
    assert bool(torch.isnan(shifted.sum(dim=1)).all())
    for name in ("near_overflow64", "near_overflow32"):
        overflow = checks.frozen_case(name).mistakes["ordinary"]["ordinary_sum_overflows"]
        assert bool(torch.isinf(overflow).all())


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/exercises/test_044_importance_sampling.py --write")
    exercise = resolve("44")
    for suite in ("hidden", "public", "tiny"):
        load_suite(exercise, suite)
    found = {
        name: suites_module(exercise, f"{folder}.{name}")
        for name, folder in (("inputs44", "public"), ("oracle", "hidden"))
    }
    target = exercise.root / "tests" / "public" / "frozen44.py"
    target.write_text(frozen_source(found), encoding="utf-8")
    print(f"wrote {target}; now run: ruff format {target}")


# --- the generated cases, the readable rows and the laws of the draws (sample_estimate) -----------------


@pytest.fixture(scope="module")
def more(exercise44, parts):
    names = {
        "readable44": "public",
        "draws44": "public",
        "generated": "hidden",
        "specs": "hidden",
        "sampling": "hidden",
    }
    return {name: suites_module(exercise44, f"{folder}.{name}") for name, folder in names.items()}


@pytest.mark.parametrize("seed", range(12))
def test_generated_batches_pass_the_reference_with_margin(parts, more, reference, seed):
    rng = random.Random(seed)
    for dtype in (torch.float64, torch.float32):
        case = more["generated"].generated_case(rng, dtype)
        _agrees(parts["checks44"], case, reference)
        # Every kind of row is judged where the statement judges it: SN and ESS always, and some ordinary rows.
        assert not bool(torch.isnan(case.self_normalized).any()) and not bool(torch.isnan(case.ess).any())
        assert bool((~torch.isnan(case.ordinary)).any())


def _learner_mean(y: list[float], counts, dtype) -> tuple[float, float]:
    """What a learner's float computation returns for these draws: the mean and the sample std / sqrt(n),
    in ``dtype`` (torch's mean and std), in the order the draws came."""
    values = torch.tensor([v for v, k in zip(y, counts, strict=True) for _ in range(k)], dtype=dtype)
    return float(values.mean()), float(values.std() / math.sqrt(values.numel()))


@pytest.mark.parametrize("seed", range(6))
def test_every_split_of_generated_readable_rows_reads_back(more, seed):
    """Legal corners of every kind: n draws' mean, as float32 or float64 computes it, decodes to its split,
    and the standard error of those draws is within the statement's tolerance."""
    readable, sampling = more["readable44"], more["sampling"]
    rng = random.Random(seed)
    for _, rows in sampling.corners(rng):
        assert readable.total_tolerance(rows) < 0.2
        for b in range(rows.p.shape[0]):
            # The learner computes y with its own dtype's rounding: w = p / q, then times f.
            w = torch.where(rows.q[b] > 0, rows.p[b] / torch.where(rows.q[b] > 0, rows.q[b], 1.0), 0.0)
            if rows.cap is not None:
                w = w.clamp(max=float(rows.cap))
            y = (w * rows.f[b]).to(torch.float64).tolist()
            legal = [v for v in range(rows.p.shape[1]) if float(rows.q[b, v]) > 0]
            for _ in range(20):
                picks = [rng.choice(legal) for _ in range(rows.n)]
                counts = [picks.count(v) for v in range(rows.p.shape[1])]
                mean, se = _learner_mean(y, counts, rows.p.dtype)
                found = readable.decode(rows, b, mean)
                assert found is not None, (rows.public, b, counts)
                # Draws on weight-0 outcomes are pooled on the first of them: the same y, the same estimate.
                right = readable.standard_error(rows, b, found)
                assert abs(se - right) <= readable.se_tolerance(rows, b, found, right), (rows.public, counts)


def test_a_draw_where_q_is_zero_never_reads_as_legal_draws(more):
    """The extreme rows have p > 0 wherever q > 0: a draw of an outcome with q = 0 (w f = 0) leaves the estimate
    short of a draw, which decode refuses and missing_draws counts."""
    readable = more["readable44"]
    for dtype in (torch.float64, torch.float32):
        rows = readable.extreme_rows(random.Random(5), dtype)
        for b in range(rows.p.shape[0]):
            zeros = [v for v in range(rows.p.shape[1]) if float(rows.q[b, v]) == 0]
            legal = [v for v in range(rows.p.shape[1]) if float(rows.q[b, v]) > 0]
            assert zeros
            counts = [0] * rows.p.shape[1]
            counts[legal[0]] = rows.n - 1
            counts[zeros[0]] = 1
            mean = math.fsum(k * y for k, y in zip(counts, rows.y[b].tolist(), strict=True)) / rows.n
            assert readable.decode(rows, b, mean) is None
            assert readable.missing_draws(rows, b, mean) == 1


def test_the_red_team_row_sums_to_one_but_its_cumulative_sum_does_not(more):
    readable = more["readable44"]
    row = torch.tensor([float.fromhex(h) for h in readable.RED_TEAM_ROWS[torch.float32]], dtype=torch.float32)
    assert float(row.sum()) == 1.0 and float(row.cumsum(0)[-1]) < 1.0 and float(row[-1]) == 0.0
    for dtype in (torch.float32, torch.float64):
        q = torch.tensor(readable.off_by_ulps([0.1, 0.2, 0.3, 0.4], dtype, -3), dtype=torch.float64).to(dtype)
        assert float(q.cumsum(0)[-1]) < 1.0  # an inverse CDF that trusts the sum runs off the end


def test_the_laws_of_a_rows_split(more):
    """Each law sums to 1; the without-replacement and antithetic laws are those of their samplers (exact
    counts from 200 000 simulated rows, compared with the laws by a G-test at 1e-6)."""
    readable = more["readable44"]
    from judge.checks.stats import g_test

    q, n = (0.35, 0.25, 0.2, 0.12, 0.08), 4
    order = readable.splits(len(q), n)
    laws = {
        "multinomial": readable.multinomial_law(q, n),
        "without": readable.without_replacement_law(q, n),
        "antithetic": readable.antithetic_law(q, n),
    }
    for law in laws.values():
        assert math.fsum(law.values()) == pytest.approx(1.0, abs=1e-12)
    g = torch.Generator().manual_seed(1)
    probs = torch.tensor(q, dtype=torch.float64).expand(200_000, len(q))
    u = torch.rand(200_000, n // 2, generator=g, dtype=torch.float64)
    cdf = torch.tensor(q, dtype=torch.float64).cumsum(0)
    pairs = torch.cat([u, 1 - u], dim=1)
    simulated = {
        "multinomial": torch.multinomial(probs, n, replacement=True, generator=g),
        "without": torch.multinomial(probs, n, generator=g),
        "antithetic": torch.searchsorted(cdf, pairs * cdf[-1], right=True).clamp(max=len(q) - 1),
    }
    index = {k: i for i, k in enumerate(order)}
    for name, draws in simulated.items():
        counts = torch.nn.functional.one_hot(draws, len(q)).sum(dim=1)
        ids = torch.tensor([index[tuple(k)] for k in counts.tolist()])
        observed = torch.bincount(ids, minlength=len(order))
        result = g_test(observed.tolist(), readable.law_tensor(laws[name], order).tolist())
        assert result.pvalue > 1e-6, name
    # ... and they differ from each other where the checks need them to.
    assert laws["antithetic"] != laws["multinomial"] and laws["without"] != laws["multinomial"]


# The reference's message for each refusal group: a bad call is refused by the check its group names,
# not by another that raises ValueError too (the estimators first, then sample_estimate).
ESTIMATOR_REFUSALS = {
    "not_2d_floating": "inputs must be 2-D floating tensors [B, N]",
    "shapes_or_dtypes": "inputs must share one shape [B, N] and one dtype",
    "no_sample": "each row needs at least one sample",
    "not_finite": "inputs must be finite",
    "bad_cap": "cap must be a finite number > 0, got ",
}
SAMPLER_REFUSALS = {
    "not_2d_floating": "p, q and f must be 2-D floating tensors [B, V]",
    "shapes_or_dtypes": "p, q and f must share one shape [B, V] and one dtype",
    "bad_num_samples": "num_samples must be an integer >= 2, got ",
    "not_finite": "p, q and f must be finite, p and q >= 0",
    "negative_probability": "p, q and f must be finite, p and q >= 0",
    "q_does_not_cover_p": "q must be > 0 wherever p > 0",
    "no_sample": "every row of q needs a positive value (V >= 1)",  # V = 0 here: no outcome to draw
    "zero_row_of_q": "every row of q needs a positive value (V >= 1)",
    "bad_cap": "cap must be a finite number > 0, got ",
}


def _refused_by(specs, name: str, bad) -> str:
    """The start of the message of the check that must refuse ``bad``."""
    group = next(key for key, value in specs.REFUSALS.items() if value == bad.diagnosis)
    if name != "sample_estimate":
        return ESTIMATOR_REFUSALS[group]
    p, q = bad.kwargs.get("p"), bad.kwargs.get("q")
    if group == "zero_row_of_q" and bool(((q == 0) & (p > 0)).any()):
        # a generated zero row of q keeps p's row: q = 0 where p > 0 is refused first
        return SAMPLER_REFUSALS["q_does_not_cover_p"]
    return SAMPLER_REFUSALS[group]


@pytest.mark.parametrize("seed", range(8))
def test_generated_refusals_are_refused_and_corners_accepted_by_the_reference(more, reference, seed):
    specs = more["specs"]
    rng = random.Random(seed)
    generator = torch.Generator().manual_seed(seed)
    for name, good, arguments in (
        ("importance_estimates", specs.good_estimates(rng), specs.ESTIMATE_ARGUMENTS),
        ("effective_sample_size", specs.good_ess(rng), specs.ESS_ARGUMENTS),
        ("truncated_estimate", specs.good_truncated(rng), specs.TRUNCATED_ARGUMENTS),
        ("sample_estimate", specs.good_sample(rng), specs.SAMPLE_ARGUMENTS),
    ):
        function = getattr(reference, name)
        extra = (lambda: {"generator": generator}) if name == "sample_estimate" else None
        calls = specs.refusals(function, name, good, arguments, rng, extra)
        calls += specs.empty_rows(function, name, good) + specs.all_integer(function, name, good, extra)
        if name == "truncated_estimate":
            calls += specs.truncated_extras(function, good)
        if name == "sample_estimate":
            calls += specs.sampler_extras(function, good, rng, extra)
        for bad in calls:
            assert bad.diagnosis, bad.call  # every refusal is named by the sentence it breaks
            with pytest.raises(ValueError, match="^" + re.escape(_refused_by(specs, name, bad))):
                bad.function(*bad.args, **bad.kwargs)
        function(**good, **(extra() if extra else {}))


def test_every_generated_flaw_has_a_refusal_group(more):
    """A flaw the specs refuse but no group names would give an accepted bad input no name (or crash)."""
    specs = more["specs"]
    from judge.checks.arguments import Variant

    for arguments in (specs.ESTIMATE_ARGUMENTS, specs.TRUNCATED_ARGUMENTS, specs.SAMPLE_ARGUMENTS):
        for argument, spec in arguments.items():
            for flaw in spec.refuse:
                variant = Variant(argument, flaw.value, {}, "", Bilingual("", ""))
                assert specs.refusal_name(variant) in parts_refusals(more)


def parts_refusals(more):
    return importlib.import_module(more["specs"].__name__.rsplit(".", 2)[0] + ".public.diagnoses").REFUSALS


@pytest.mark.parametrize("kind", ["raised", "not_implemented"])
def test_a_crash_on_a_bad_input_is_named_after_a_legal_call_returned(parts, kind):
    """torch raises NotImplementedError for some integer tensors ("not implemented for 'Int'"): inside a
    function that returned on legal inputs that is a crash, named like an input not refused, and the kind
    becomes RAISED so that the runner keeps the name (it drops every NOT_IMPLEMENTED failure's)."""
    from judge.checks.base import CheckFailed
    from judge.checks.evidence import Evidence

    call = "effective_sample_size() with every tensor in torch.int64"
    failure = CheckFailed(f"{call} must raise ValueError; it raised ...", kind=Evidence(kind))
    parts["checks44"].name_crash(failure, [("other() with x", "other"), (call, "named")])
    assert failure.diagnosis == "named" and failure.kind is Evidence.RAISED
    # A failure that is no crash of a listed call keeps no name.
    failure = CheckFailed("a value was wrong", kind=Evidence.NOT_IMPLEMENTED)
    parts["checks44"].name_crash(failure, [(call, "named")])
    assert failure.diagnosis is None and failure.kind is Evidence.NOT_IMPLEMENTED
