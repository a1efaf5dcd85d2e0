"""What makes writing an exercise easy: strict `Diagnosis:` matching in the catalogue, clear
misuse errors from the checks, the seed-contract and bad-input helpers, nouns for outcomes."""

from __future__ import annotations

import pytest

from judge.authoring.catalogue import DiagnosisPhrase, diagnosis_found, diagnosis_problem, parse_wrong_solution

# --------------------------------------------------------------------------- Diagnosis: matching

FULL = "top-k keeps one token too many (k+1)"


def _report(diagnosis, message="sample, row 0: token 3 was drawn 12 of 400 times; top-k excludes it",
            zh="top-k 多保留了一个 token（k+1 个）", verdict="WA"):
    case = {"name": "top_k", "verdict": verdict, "message": message, "diagnosis": diagnosis,
            "diagnosis_zh": zh if diagnosis else None}
    passed = {"name": "softmax", "verdict": "AC", "message": "", "diagnosis": "the rows share the same random numbers",
              "diagnosis_zh": None}
    return {"verdict": verdict, "message": f"top-k: {message}", "diagnosis": diagnosis,
            "diagnosis_zh": zh if diagnosis else None, "cases": [passed, case]}


def test_a_one_word_phrase_no_longer_passes():
    report = _report(FULL)
    for phrase in ("top-k", "token", "too many", "top-k keeps one token too many", "row 0", "excludes it"):
        assert not diagnosis_found(report, phrase), phrase


def test_the_whole_diagnosis_matches_in_either_language_whatever_its_spacing_and_case():
    report = _report(FULL)
    assert diagnosis_found(report, FULL)
    assert diagnosis_found(report, "Top-K keeps one   token\n too many (k+1).")
    assert diagnosis_found(report, "top-k 多保留了一个 token（k+1 个）")


def test_only_failing_cases_count_and_messages_never_do():
    report = _report(None)
    assert not diagnosis_found(report, "the rows share the same random numbers")  # a passing case's
    assert not diagnosis_found(report, "sample, row 0: token 3 was drawn 12 of 400 times; top-k excludes it")


def test_a_diagnosis_prefix_line_matches_the_opening_words_at_a_word_boundary():
    report = _report(FULL)
    assert diagnosis_found(report, DiagnosisPhrase("top-k keeps one token too many", prefix=True))
    assert diagnosis_found(report, "top-k keeps one", prefix=True)
    assert not diagnosis_found(report, "top-k keeps one tok", prefix=True)
    assert not diagnosis_found(report, "keeps one token too many", prefix=True)


def test_a_mismatch_shows_both_texts():
    problem = diagnosis_problem(_report(FULL), "top-k")
    assert "'top-k'" in problem and repr(FULL) in problem and "equals" in problem
    assert diagnosis_problem(_report(FULL), FULL) == ""
    assert "without a headline diagnosis" in diagnosis_problem(_report(None), FULL)


OTHER = "the rows share the same random numbers"


def _headline_and_case(headline, case_diagnosis):
    """A report whose headline (the learner's "Likely mistake") is ``headline`` while its second
    failing case names ``case_diagnosis``: what the runner writes when an earlier case named another."""
    report = _report(headline, zh="各行共用了同一组随机数")
    report["cases"].append({"name": "top_k_late", "verdict": "WA", "message": "m", "diagnosis": case_diagnosis,
                            "diagnosis_zh": "top-k 多保留了一个 token（k+1 个）"})
    return report


def test_only_the_headline_counts_not_a_later_case_that_names_the_promise():
    """A wrong solution whose learner reads another mistake first (or none) is not diagnosed as
    promised, even where a later failing case names the promised one."""
    for headline in (OTHER, None):
        report = _headline_and_case(headline, FULL)
        assert not diagnosis_found(report, FULL)
        assert not diagnosis_found(report, "top-k 多保留了一个 token（k+1 个）")  # the case's Chinese, too
        assert not diagnosis_found(report, "top-k keeps one", prefix=True)
    assert diagnosis_found(_headline_and_case(OTHER, FULL), OTHER)
    assert diagnosis_found(_headline_and_case(OTHER, FULL), "各行共用了同一组随机数")


def test_a_headline_mismatch_shows_the_headline_the_promise_and_the_case_that_names_it():
    problem = diagnosis_problem(_headline_and_case(OTHER, FULL), FULL)
    assert repr(OTHER) in problem and repr(FULL) in problem and "headline" in problem
    assert "case top_k_late names the promised one" in problem
    problem = diagnosis_problem(_headline_and_case(None, FULL), FULL)
    assert "without a headline diagnosis" in problem and "case top_k_late" in problem
    assert "case " not in diagnosis_problem(_headline_and_case(OTHER, "something else"), FULL)


def test_report_diagnoses_lists_the_headline_then_each_failing_case_once():
    from judge.authoring.catalogue import report_diagnoses

    assert report_diagnoses(_headline_and_case(OTHER, FULL)) == [OTHER, FULL]
    assert report_diagnoses(_headline_and_case(None, FULL)) == [FULL]
    assert report_diagnoses(_report(None)) == []  # the passing case's diagnosis is not named


def test_the_docstring_gives_the_diagnosis_whole_or_as_a_prefix(tmp_path):
    from judge.exercises.folders import ExerciseError

    path = tmp_path / "wrong.py"
    path.write_text('"""Mistake: keeps k+1 tokens.\n\nDiagnosis: top-k keeps one token\n   too many (k+1)\n"""\n')
    wrong = parse_wrong_solution(path)
    assert wrong.diagnosis == FULL and not wrong.diagnosis.prefix
    path.write_text('"""Mistake: keeps k+1 tokens.\n\nDiagnosis-prefix: top-k keeps one token\n"""\n')
    wrong = parse_wrong_solution(path)
    assert wrong.diagnosis == "top-k keeps one token" and wrong.diagnosis.prefix
    path.write_text('"""Mistake: keeps k+1 tokens.\n\nDiagnosis: a\n\nDiagnosis-prefix: b\n"""\n')
    with pytest.raises(ExerciseError, match="not both"):
        parse_wrong_solution(path)


# --------------------------------------------------------------------------- misuse of a check


import torch  # noqa: E402

from judge.checks import base, distributions, draw_sites, estimators, exact, generator_contract, independence, refusals  # noqa: E402
from judge.checks.base import CheckFailed, CheckMisuse  # noqa: E402
from judge.checks.budget import BudgetDeclaration, FalseFailureBudget  # noqa: E402
from judge.checks.testing import Context  # noqa: E402
from judge.i18n import Bilingual  # noqa: E402

COIN = torch.tensor([0.7, 0.3], dtype=torch.float64)


@pytest.fixture
def ctx():
    budget = FalseFailureBudget(1e-6, BudgetDeclaration(fit=4, pairs=4, independence=2, seeds=4))
    return Context(seed=1, device="cpu", budget=budget)


def _tosses(n=4_000, seed=0, p=0.3):
    return (torch.rand(n, generator=torch.Generator().manual_seed(seed), dtype=torch.float64) < p).to(torch.int64)


def _misuses(ctx):
    """(check, argument, the call misusing it) for each public check and helper."""
    draws = _tosses()
    rows = torch.stack([_tosses(seed=1), _tosses(seed=2)])
    sub = object()
    return [
        ("expect_tensor", "shape", lambda: exact.expect_tensor(draws, name="flip", shape=4_000, dtype=torch.int64)),
        ("expect_tensor", "dtype", lambda: exact.expect_tensor(draws, name="flip", shape=(4_000,), dtype="int64")),
        ("expect_tensor", "name", lambda: exact.expect_tensor(draws, name=None, shape=(4_000,), dtype=torch.int64)),
        ("expect_close", "expected", lambda: exact.expect_close(COIN, [0.7, 0.3], rtol=0, atol=0, what="p")),
        ("expect_close", "rtol", lambda: exact.expect_close(COIN, COIN, rtol=-1, atol=0, what="p")),
        ("expect_close", "expected",
         lambda: exact.expect_close(COIN.reshape(1, 1, 2), COIN.reshape(1, 1, 2), rtol=0, atol=0, what="p")),
        ("expect_close", "outcome", lambda: exact.expect_close(COIN, COIN, rtol=0, atol=0, what="p", outcome=3)),
        ("expect_tokens_in_range", "vocab_size", lambda: distributions.expect_tokens_in_range(rows, 0, what="flip")),
        ("expect_support", "probs", lambda: distributions.expect_support(rows, torch.tensor([1, 0]), what="flip",
                                                                   why_excluded=lambda r, t: "")),
        ("expect_support", "why_excluded", lambda: distributions.expect_support(rows, COIN, what="flip", why_excluded="no")),
        ("expect_distribution", "ctx", lambda: distributions.expect_distribution(sub, draws, COIN, label="flip")),
        ("expect_distribution", "probs", lambda: distributions.expect_distribution(ctx, draws, COIN * 2, label="flip")),
        ("expect_distribution", "probs",
         lambda: distributions.expect_distribution(ctx, draws, torch.stack([COIN, COIN]), label="flip")),
        ("expect_distribution", "label", lambda: distributions.expect_distribution(ctx, draws, COIN, label=3)),
        ("expect_distribution", "alternatives",
         lambda: distributions.expect_distribution(ctx, draws, COIN, label="flip", alternatives=[COIN])),
        ("expect_independent_within_row", "probs",
         lambda: independence.expect_independent_within_row(ctx, draws, torch.tensor([0.5, float("nan")]), label="flip")),
        ("expect_independent_rows", "probs",
         lambda: independence.expect_independent_rows(ctx, draws, draws, COIN.to(torch.int64), label="flip")),
        ("expect_independent_across_rows", "second_probs",
         lambda: independence.expect_independent_across_rows(ctx, draws, draws, COIN, [0.5, 0.5], label="flip")),
        ("expect_independent_across_rows", "label",
         lambda: independence.expect_independent_across_rows(ctx, draws, draws, COIN, COIN, label=None)),
        ("expect_different_under_seeds", "probs",
         lambda: generator_contract.expect_different_under_seeds(ctx, rows, rows, [0.7, 0.3], label="flip")),
        ("expect_different_under_seeds", "how",
         lambda: generator_contract.expect_different_under_seeds(ctx, rows, rows, COIN, label="flip", how=None)),
        ("expect_raises", "exception", lambda: refusals.expect_raises("ValueError", "flip(p=2)").__enter__()),
        ("expect", "condition", lambda: exact.expect(draws == draws, "equal")),
        ("expect", "message", lambda: exact.expect(True, None)),
        ("diagnosed", "diagnosis", lambda: base.diagnosed(None).__enter__()),
        ("rule", "en", lambda: base.rule("flip", None, "错")),
        ("best_alternative", "alternatives['half']",
         lambda: distributions.best_alternative([1, 2], {"half": torch.tensor([0.5, 0.25, 0.25])})),
        ("expect_seed_contract", "sub",
         lambda: generator_contract.expect_seed_contract(sub, ctx, lambda s, g: draws, COIN, label="flip")),
        ("expect_generator_contract", "sub",
         lambda: generator_contract.expect_generator_contract(sub, ctx, lambda s, g: draws, COIN, label="flip")),
        ("expect_bad_inputs_refused", "table", lambda: refusals.expect_bad_inputs_refused(print, [])),
        ("expect_bad_inputs_refused", "table[0]",
         lambda: refusals.expect_bad_inputs_refused(print, [("p = 2", "p=2")])),
        ("expect_calls_refused", "calls", lambda: refusals.expect_calls_refused([])),
        ("expect_calls_refused", "calls[0]", lambda: refusals.expect_calls_refused([("print", {})])),
        ("expect_calls_refused", "calls[0].call", lambda: refusals.expect_calls_refused([refusals.BadCall(print, 3)])),
        ("expect_calls_refused", "exception",
         lambda: refusals.expect_calls_refused([refusals.BadCall(print, "p")], exception="ValueError")),
        ("expect_calibrated", "coverage[1.0]",
         lambda: estimators.expect_calibrated(ctx, COIN, COIN, 0.5, label="p", coverage={1.0: 1.5})),
        ("expect_calibrated", "coverage",
         lambda: estimators.expect_calibrated(ctx, COIN, COIN, 0.5, label="p", coverage={-1.0: 0.5})),
        ("expect_calibrated", "truth",
         lambda: estimators.expect_calibrated(ctx, COIN, COIN, "0.5", label="p", coverage={1.0: 0.68})),
        ("expect_unbiased", "std", lambda: estimators.expect_unbiased(ctx, COIN, 0.5, std=-1.0, label="p")),
        ("expect_unbiased", "truth", lambda: estimators.expect_unbiased(ctx, COIN, None, std=1.0, label="p")),
        ("Context.generator", "seed", lambda: ctx.generator(-1)),
        ("Context.generator", "seed", lambda: ctx.generator(2 ** 60)),
        ("Context.fresh_seed", "label", lambda: ctx.fresh_seed(3)),
        ("expect_every_draw_site", "sub",
         lambda: draw_sites.expect_every_draw_site(sub, ctx, lambda s, g: None, lambda v, w: None, label="draw")),
    ]


def test_each_check_names_itself_the_argument_what_it_wanted_and_what_it_got(ctx):
    seen = set()
    for check, argument, call in _misuses(ctx):
        with pytest.raises(CheckMisuse) as misuse:
            call()
        text = str(misuse.value)
        assert text.startswith(f"{check}(): argument `{argument}` must be "), text
        assert "; got " in text and "not in the learner's code" in text, text
        assert isinstance(misuse.value, TypeError) and not isinstance(misuse.value, CheckFailed)
        seen.add(check)
    families = (base, distributions, draw_sites, estimators, exact, generator_contract, independence, refusals)
    public = {n for family in families for n in family.__all__ if n.startswith("expect") or n in ("diagnosed", "rule")}
    assert public <= seen, public - seen


def test_a_misuse_survives_pickling_with_its_parts():
    import pickle

    misuse = CheckMisuse("expect_close", "rtol", "a finite number >= 0", "int -1")
    again = pickle.loads(pickle.dumps(misuse))
    assert str(again) == str(misuse) and again.argument == "rtol"


def test_one_row_given_in_one_dimension_is_accepted(ctx):
    """Where a 1-D input has an obvious meaning (one row), the checks take it."""
    first, second = _tosses(200, seed=1), _tosses(200, seed=2)
    coin = torch.tensor([0.5, 0.5], dtype=torch.float64)
    assert generator_contract.expect_different_under_seeds(ctx, first, second, coin, label="flip") < 1e-12
    with pytest.raises(CheckFailed, match="gave exactly the same 200 draws"):
        generator_contract.expect_different_under_seeds(ctx, first, first.clone(), coin, label="flip")
    distributions.expect_support(first, coin, what="flip", why_excluded=lambda r, t: "")
    distributions.expect_tokens_in_range(first, 2, what="flip")
    exact.expect_close(coin, coin, rtol=0, atol=0, what="p")
    with pytest.raises(CheckFailed, match="flip: row 0, token 1: you returned 0.6"):
        exact.expect_close(torch.tensor([0.4, 0.6]), coin, rtol=1e-6, atol=0, what="flip",
                            mistakes={"biased": torch.tensor([0.4, 0.6])})
    distributions.expect_distribution(ctx, _tosses(), COIN.reshape(1, 2), label="flip")


def test_learner_values_of_the_wrong_shape_stay_the_learners_verdict(ctx):
    """Draws are the learner's: a wrong one is WA with a message, never a misuse or a crash."""
    with pytest.raises(CheckFailed, match="must be a .rows, num_samples. tensor of ids"):
        generator_contract.expect_different_under_seeds(ctx, "no", torch.zeros(3, dtype=torch.int64), COIN, label="flip")
    with pytest.raises(CheckFailed, match="both must be"):
        generator_contract.expect_different_under_seeds(ctx, torch.zeros(2, 3, dtype=torch.int64),
                                            torch.zeros(2, 4, dtype=torch.int64), COIN, label="flip")
    with pytest.raises(CheckFailed, match="integer tensor of token ids"):
        distributions.expect_tokens_in_range(torch.zeros(3), 2, what="flip")


# --------------------------------------------------------------------------- the noun of an outcome

SIDE = Bilingual("side", "面")


@pytest.mark.parametrize("outcome, en, zh", [(SIDE, "side", "面"), (("side", "面"), "side", "面"),
                                             ("side", "side", "side")])
def test_a_coin_says_side_in_both_languages(outcome, en, zh):
    rows = torch.tensor([[0, 1, 5]])
    with pytest.raises(CheckFailed) as failed:
        distributions.expect_tokens_in_range(rows, 2, what="flip", outcome=outcome)
    assert f"drew {en} id 5, outside the possible {en}s [0, 2)" in failed.value.message
    assert "token" not in failed.value.message and "token" not in failed.value.rule.zh
    assert zh in failed.value.rule.zh and "词表" not in failed.value.rule.zh
    with pytest.raises(CheckFailed) as failed:
        distributions.expect_support(torch.tensor([[0, 1, 1, 0]]), torch.tensor([[1.0, 0.0]]), what="flip",
                              why_excluded=lambda r, t: "the coin is two-headed", outcome=outcome)
    assert f"flip: row 0: {en} 1 was drawn 2 of 4 times" in failed.value.message
    assert failed.value.rule == f"flip, row 0: drew a {en} that must never be drawn"
    assert zh in failed.value.rule.zh and "token" not in failed.value.rule.zh


def test_a_fit_failure_names_the_side_with_the_largest_gap(ctx):
    with pytest.raises(CheckFailed) as failed:
        distributions.expect_distribution(ctx, _tosses(p=0.45), COIN, label="4 000 tosses", outcome=SIDE)
    assert "the largest gap is side " in failed.value.message and "token" not in failed.value.message
    with pytest.raises(CheckFailed) as failed:
        exact.expect_close(torch.tensor([0.5, 0.5]), COIN, rtol=0, atol=1e-6, what="p", outcome=SIDE)
    assert "row 0, side 1: you returned 0.5" in failed.value.message


def test_the_default_noun_keeps_every_message_as_it_was():
    with pytest.raises(CheckFailed) as failed:
        distributions.expect_tokens_in_range(torch.tensor([[0, 3]]), 3, what="sample")
    assert failed.value.message == "sample: row 0 drew token id 3, outside the vocabulary [0, 3)"
    assert failed.value.rule == "sample, row 0: drew a token id outside the vocabulary"
    assert failed.value.rule.zh == "sample，第 0 行：抽到了词表之外的 token 编号"
    with pytest.raises(CheckFailed) as failed:
        distributions.expect_support(torch.tensor([[2, 1, 2]]), torch.tensor([[0.5, 0.0, 0.0, 0.5]]), what="sample",
                              why_excluded=lambda r, t: "top-k excludes it")
    assert "token 2 was drawn 2 of 3 times (and 1 other excluded token)" in failed.value.message
    assert failed.value.rule.zh == "sample，第 0 行：抽到了不应被抽到的 token"


# --------------------------------------------------------------------------- the helpers, through the runner

DIE_TESTS = '''
import torch
from judge.checks.budget import BudgetDeclaration
from judge.checks.exact import expect_tensor
from judge.checks.generator_contract import expect_seed_contract
from judge.checks.refusals import BadInput, expect_bad_inputs_refused

BUDGET = BudgetDeclaration(seeds=2)
PROBS = torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=torch.float64)


def test_seeds(sub, ctx):
    """roll: the generator decides the draws

    zh: roll：由 generator 决定抽样结果
    """
    def draw(source, generator):
        return expect_tensor(source.roll(PROBS, 100, generator=generator), name="roll", shape=(100,),
                             dtype=torch.int64)

    expect_seed_contract(sub, ctx, draw, PROBS, label="roll")


def test_bad_inputs(sub, ctx):
    """roll: bad inputs raise ValueError

    zh: roll：非法输入抛出 ValueError
    """
    expect_bad_inputs_refused(sub.roll, [
        ("n = 0", {"probs": PROBS, "n": 0}),
        BadInput("probabilities [-0.5, 1.5]", {"probs": torch.tensor([-0.5, 1.5], dtype=torch.float64), "n": 3},
                 public="a negative probability", diagnosis="negative probabilities are accepted"),
    ], extra=lambda: {"generator": ctx.generator()})
'''

MISUSING_TESTS = '''
import torch
from judge.checks.budget import BudgetDeclaration
from judge.checks.distributions import expect_distribution

BUDGET = BudgetDeclaration(fit=1)


def test_fit(sub, ctx):
    """roll: the draws follow the target

    zh: roll：抽样结果服从目标分布
    """
    draws = sub.roll(torch.tensor([0.5, 0.5], dtype=torch.float64), 100)
    expect_distribution(ctx, draws, [0.5, 0.5], label="100 rolls")
'''

ROLL = '''
import torch


def roll(probs, n, generator=None):
    if n < 1:
        raise ValueError("n must be >= 1")
    if (probs < 0).any():
        raise ValueError("probabilities must be >= 0")
    {body}
'''
CORRECT = "return torch.multinomial(probs, n, replacement=True, generator=generator)"
WRONG = {
    "ignores_generator": ("return torch.multinomial(probs, n, replacement=True, "
                          "generator=torch.Generator().manual_seed(7))", generator_contract.SEEDS_DIAGNOSIS),
    "private_default": ("generator = generator or torch.Generator().manual_seed(7)\n"
                        "    return torch.multinomial(probs, n, replacement=True, generator=generator)",
                        generator_contract.DEFAULT_GENERATOR_DIAGNOSIS),
}


def _die(tmp_path, tests: str):
    import sys
    import textwrap

    from judge.exercises.exercise import load_exercise

    folder = tmp_path / "exercises" / "951-die"
    for part in ("public", "hidden"):
        (folder / "tests" / part).mkdir(parents=True)
    (folder / "exercise.toml").write_text(textwrap.dedent("""
        number = 951
        slug = "die"
        difficulty = "easy"
        [title]
        en = "A die"
        zh = "骰子"
        [functions.roll]
        params = ["probs", "n", "generator"]
    """))
    for suite in ("public", "hidden"):
        (folder / "tests" / suite / f"{suite}.py").write_text(tests)
    for name in [m for m in sys.modules if m.startswith("_probjudge_tests_951")]:
        del sys.modules[name]
    return load_exercise(folder)


def _judge(tmp_path, exercise, name: str, source: str):
    from judge.engine.runner import judge_file

    path = tmp_path / f"{name}.py"
    path.write_text(source)
    return judge_file(exercise, path, seed=3, suites=("hidden",))


def test_the_seed_contract_and_bad_input_helpers_pass_a_correct_die_and_name_each_mistake(tmp_path):
    exercise = _die(tmp_path, DIE_TESTS)
    report = _judge(tmp_path, exercise, "reference", ROLL.format(body=CORRECT))
    assert report.verdict.value == "AC", report.message
    assert report.false_failure_budget["checks"]["seeds"]["used"] == 2
    for name, (body, diagnosis) in WRONG.items():
        report = _judge(tmp_path, exercise, name, ROLL.format(body=body))
        assert report.verdict.value == "WA" and report.diagnosis == diagnosis, (name, report.message)
    lenient = ROLL.format(body=CORRECT).replace('raise ValueError("probabilities must be >= 0")',
                                                "probs = probs.clamp(min=0)")
    report = _judge(tmp_path, exercise, "lenient", lenient)
    assert report.verdict.value == "WA" and report.diagnosis == "negative probabilities are accepted"
    bad = next(c for c in report.cases if c.name == "bad_inputs")
    assert bad.message == "roll() with probabilities [-0.5, 1.5] must raise ValueError; it returned normally"
    assert bad.rule == "roll() with a negative probability: must raise ValueError"


def test_a_misused_check_is_ie_for_the_learner_and_its_message_is_logged_for_the_author(tmp_path, caplog):
    exercise = _die(tmp_path, MISUSING_TESTS)
    with caplog.at_level("ERROR", logger="probjudge.runner"):
        report = _judge(tmp_path, exercise, "reference", ROLL.format(body=CORRECT))
    assert report.verdict.value == "IE" and "not your fault" in report.message
    assert "expect_distribution" not in report.message  # the learner sees no detail of the exercise
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "CheckMisuse: expect_distribution(): argument `probs` must be a floating tensor of shape [V]" in logged
    assert "got a list of 2 items" in logged
