"""The tiny variant of exercise 47: what "Run" judges in the browser, after the public cases.

It never leaves the public side: no hidden input, no oracle. Five float32 batches of six tokens
(``frozen47.py``): typical rows that drop the most likely token, keep a tie group whole and reach a running
total of 1 before a token of probability 5e-14 at tau = 1; epsilon rows with a tie at the top below epsilon;
eta rows with -inf logits and temperatures that move the threshold; rows made greedy after the same rows
passed sampled; and rows where every probability is below epsilon after the same rows passed with a small
one. Every distribution mistake of the catalogue moves some probability of some batch by 0.01 or more (or
cuts a token the target keeps), and no two return the same batch, so the diagnosis is never ambiguous. Then
3 000 draws of the typical batch fit its rows. The generator contract is the hidden suite's.
"""

from __future__ import annotations

import torch

from judge.checks.base import diagnosed
from judge.checks.budget import BudgetDeclaration
from judge.checks.evidence import Evidence
from judge.i18n import Bilingual

from .checks47 import draws_of, expect_draws, expect_probs, frozen_mistakes, probs_of
from .diagnoses import MISTAKES
from .frozen47 import FROZEN

FIT_ROWS = (0, 1, 2, 4)  # of the typical batch: row 3 is tau = 1 on two tied tokens and a 5e-14 one
BUDGET = BudgetDeclaration(fit=len(FIT_ROWS))
DRAWS = 3000
EVERY_KIND = (Evidence.STRUCTURAL, Evidence.VALUE, Evidence.RAISED)


def _arguments(case: dict, params=None, temperatures=None) -> dict:
    return {
        "logits": torch.tensor(case["logits"], dtype=torch.float32),
        "method": case["method"],
        "param": torch.tensor(case["params"] if params is None else params, dtype=torch.float32),
        "temperature": torch.tensor(case["temperatures"] if temperatures is None else temperatures),
    }


def _labels(case: dict, params=None, temperatures=None) -> list[str]:
    params = case["params"] if params is None else params
    temperatures = case["temperatures"] if temperatures is None else temperatures
    return [f"{case['method']} {p:g}, temperature {t:g}" for p, t in zip(params, temperatures, strict=True)]


def _judge(sub, ctx, name: str) -> None:
    case = FROZEN[name]
    what = f"truncated_probs ({name} batch)"
    if "plain" in case:  # the same rows without the twist first: they must pass before the twist is judged
        plain = case["plain"]
        out = probs_of(sub, ctx, _arguments(case, plain["params"], plain["temperatures"]), what=what)
        expect_probs(
            out,
            torch.tensor(plain["expected"], dtype=torch.float64),
            what=what,
            labels=_labels(case, plain["params"], plain["temperatures"]),
        )
    twist = {"greedy": "no_greedy", "above_top": "no_top_kept"}.get(name)
    exact = torch.tensor(case["expected"], dtype=torch.float64)
    mistakes = frozen_mistakes(case["mistakes"], MISTAKES)
    if twist is None:
        out = probs_of(sub, ctx, _arguments(case), what=what)
        expect_probs(out, exact, what=what, labels=_labels(case), mistakes=mistakes)
        return
    with diagnosed(MISTAKES[twist], evidence=EVERY_KIND):
        out = probs_of(sub, ctx, _arguments(case), what=what)
        expect_probs(out, exact, what=what, labels=_labels(case), mistakes=mistakes)


def test_tiny_typical(sub, ctx):
    """typical rows: the most likely token dropped, a tie group kept whole, tau = 1

    zh: typical 各行：最可能的 token 被丢掉，并列的一组整体保留，tau = 1
    """
    _judge(sub, ctx, "typical")


def test_tiny_epsilon(sub, ctx):
    """epsilon rows: a tie at the top below epsilon, temperatures other than 1

    zh: epsilon 各行：最大概率处的并列低于 epsilon，温度不为 1
    """
    _judge(sub, ctx, "epsilon")


def test_tiny_eta(sub, ctx):
    """eta rows: -inf logits, the entropy after temperature

    zh: eta 各行：-inf logits，加温度之后的熵
    """
    _judge(sub, ctx, "eta")


def test_tiny_greedy(sub, ctx):
    """temperature 0 rows are one-hot at the first largest logit

    zh: 温度为 0 的行是第一个最大 logit 处的 one-hot
    """
    _judge(sub, ctx, "greedy")


def test_tiny_all_below(sub, ctx):
    """every probability below epsilon: the most probable token stays

    zh: 所有概率都低于 epsilon：概率最大的 token 仍然保留
    """
    _judge(sub, ctx, "above_top")


def test_tiny_draws(sub, ctx):
    """sample_truncated on the typical rows: never a cut token, and the draws fit

    zh: sample_truncated 作用于 typical 各行：从不抽到被截掉的 token，抽样分布相符
    """
    case = FROZEN["typical"]
    what = Bilingual("sample_truncated (typical batch)", "sample_truncated（typical 批）")
    draws = draws_of(sub, ctx, _arguments(case), DRAWS, ctx.generator(), what=str(what))
    exact = torch.tensor(case["expected"], dtype=torch.float64)
    expect_draws(
        ctx,
        draws,
        exact,
        what=what,
        labels=_labels(case),
        fit_rows=FIT_ROWS,
    )
