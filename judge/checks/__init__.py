"""The statistics and the checks that an exercise's tests call, one module per family.

An exercise's test imports each check from the module that owns it:

- :mod:`judge.checks.base`: what every family shares: ``CheckFailed`` (the learner's WA),
  ``CheckMisuse`` (the test called a check wrongly: IE), ``fail``, ``rule``, ``row_title``,
  ``Label``, ``Outcome``, ``diagnosed``.
- :mod:`judge.checks.exact`: exact values, the hard checks: ``expect``, ``expect_tensor``,
  ``expect_close``.
- :mod:`judge.checks.distributions`: draws against their target: ``expect_tokens_in_range``,
  ``expect_support``, ``expect_distribution`` (the G-test), ``best_alternative``,
  ``explaining_alternatives``, ``too_regular`` (the runner's per-case lower tail).
- :mod:`judge.checks.independence`: ``expect_independent_within_row``,
  ``expect_independent_rows``, ``expect_independent_across_rows``, ``token_groups`` and the
  dependence diagnoses (with :mod:`judge.checks.pairings`, which positions are paired).
- :mod:`judge.checks.generator_contract`: the generator argument: ``expect_generator_contract``
  (every clause) and its ``generator_contract_budget``, ``expect_seed_contract``,
  ``expect_different_under_seeds``, ``identical_draws_probability``, ``SEEDS_DIAGNOSIS``.
- :mod:`judge.checks.refusals`: bad inputs refused: ``expect_raises``, ``BadInput`` and
  ``expect_bad_inputs_refused``, ``BadCall`` and ``expect_calls_refused``; the tables that
  :mod:`judge.checks.arguments` generates from a function's argument specs end there.
- :mod:`judge.checks.estimators`: ``expect_calibrated`` (error bars), ``expect_unbiased``.
- :mod:`judge.checks.draw_sites`: ``expect_every_draw_site`` (each draw site at its extremes).
- :mod:`judge.checks.evidence`: ``Evidence`` (what a failure is evidence of) and the rule that
  names a mistake only on its own evidence.
- :mod:`judge.checks.testing`: what a test receives (``Submission``, ``Context``);
  :mod:`judge.checks.budget`: ``BudgetDeclaration``, the run's false-failure budget.
- :mod:`judge.checks.stats`: the pure-Python hypothesis tests behind the checks (the browser runs
  it); :mod:`judge.checks.stats_torch`: its torch twin on the server; :mod:`judge.checks.numbers`:
  how two numbers are written so that they differ.

This package re-exports nothing: an import here would load torch and every family for a test
that needs one, and a family that imported the package would import itself. Imports point one
way (``.importlinter``, "no import circles"): base -> exact, distributions -> independence ->
generator_contract; testing imports only base; refusals, estimators and draw_sites stand alone
on base and testing. The browser bundle ships every module here but ``stats_torch``.

May import (the layers below it in ``judge-layers``): ``judge.reports``, ``judge.sandbox``,
``judge.learner``, ``judge.i18n``, ``judge.verdicts``; in practice never the sandbox: a check
talks to the learner through ``testing``'s handle, and ``testing`` runs in the browser
(``browser-subset``).

Imported by: the exercises' suites (``exercises/NNN-slug/tests/``), ``judge.exercises``,
``judge.engine``, ``judge.authoring`` and ``judge.browser``.
"""
