"""Public tests of exercise 47: the statement's worked example, which you can redo by hand.

Every row uses the logits [2, 1, 1, 0, -1, -inf] of the worked example. The hidden tests check the same
rules on many more rows (generated afresh for each submission), float64, per-row parameters, greedy rows,
bad inputs, the generator and the distribution of many thousands of draws.
"""

from __future__ import annotations

import torch

from judge.checks.budget import BudgetDeclaration
from judge.checks.refusals import expect_raises
from judge.i18n import Bilingual

from .checks47 import draws_of, expect_draws, expect_probs, probs_of

BUDGET = BudgetDeclaration(fit=2)

LOGITS = [2.0, 1.0, 1.0, 0.0, -1.0, float("-inf")]


def _expect(sub, ctx, expected: list[float], method: str, param: float, temperature: float = 1.0) -> None:
    what = f"truncated_probs(logits, method={method!r}, param={param}, temperature={temperature})"
    arguments = {"logits": torch.tensor([LOGITS]), "method": method, "param": param, "temperature": temperature}
    out = probs_of(sub, ctx, arguments, what=what)
    expect_probs(out, torch.tensor([expected], dtype=torch.float64), what=what)


def test_typical_drops_the_most_likely(sub, ctx):
    """typical, tau = 0.3: the two tied tokens closest to the entropy are kept, the most likely token is not

    zh: typical，tau = 0.3：保留最接近熵的两个并列 token，最可能的 token 反而被丢掉
    """
    _expect(sub, ctx, [0.0, 0.5, 0.5, 0.0, 0.0, 0.0], "typical", 0.3)


def test_typical_mass(sub, ctx):
    """typical, tau = 0.5 and 0.95: the token that carries the mass to tau is kept

    zh: typical，tau = 0.5 与 0.95：把累计概率推到 tau 的那个 token 被保留
    """
    _expect(sub, ctx, [0.576116885, 0.211941558, 0.211941558, 0.0, 0.0, 0.0], "typical", 0.5)
    _expect(sub, ctx, [0.534446645, 0.196611933, 0.196611933, 0.072329488, 0.0, 0.0], "typical", 0.95)


def test_epsilon(sub, ctx):
    """epsilon = 0.05 drops the token of probability 0.0259

    zh: epsilon = 0.05 丢掉概率为 0.0259 的 token
    """
    _expect(sub, ctx, [0.534446645, 0.196611933, 0.196611933, 0.072329488, 0.0, 0.0], "epsilon", 0.05)


def test_eta(sub, ctx):
    """eta = 0.3: threshold min(0.3, sqrt(0.3) exp(-H)) = 0.1562 at temperature 1, 0.2605 at temperature 0.5

    zh: eta = 0.3：温度为 1 时阈值 min(0.3, sqrt(0.3) exp(-H)) = 0.1562，温度为 0.5 时为 0.2605
    """
    _expect(sub, ctx, [0.576116885, 0.211941558, 0.211941558, 0.0, 0.0, 0.0], "eta", 0.3)
    _expect(sub, ctx, [1.0, 0.0, 0.0, 0.0, 0.0, 0.0], "eta", 0.3, temperature=0.5)


def test_sample(sub, ctx):
    """sample_truncated with typical, tau = 0.3: only tokens 1 and 2, about half and half

    zh: sample_truncated，typical，tau = 0.3：只抽到 token 1 和 2，大约各占一半
    """
    what = Bilingual("sample_truncated(typical, tau = 0.3)", "sample_truncated（typical，tau = 0.3）")
    arguments = {"logits": torch.tensor([LOGITS]), "method": "typical", "param": 0.3}
    draws = draws_of(sub, ctx, arguments, 2000, ctx.generator(), what=str(what))
    expect_draws(
        ctx, draws, torch.tensor([[0.0, 0.5, 0.5, 0.0, 0.0, 0.0]], dtype=torch.float64), what=what, fit_rows=(0,)
    )


def test_default_temperature(sub, ctx):
    """without a temperature argument both functions work at temperature 1 (eta = 0.3 keeps tokens 0 to 2)

    zh: 不传 temperature 时两个函数都按温度 1 计算（eta = 0.3 保留 token 0 到 2）
    """
    expected = [0.576116885, 0.211941558, 0.211941558, 0.0, 0.0, 0.0]
    what = "truncated_probs(logits, method='eta', param=0.3)"
    out = probs_of(sub, ctx, {"logits": torch.tensor([LOGITS]), "method": "eta", "param": 0.3}, what=what)
    expect_probs(out, torch.tensor([expected], dtype=torch.float64), what=what)
    what = Bilingual("sample_truncated(eta, eta = 0.3)", "sample_truncated（eta，eta = 0.3）")
    arguments = {"logits": torch.tensor([LOGITS]), "method": "eta", "param": 0.3}
    draws = draws_of(sub, ctx, arguments, 2000, ctx.generator(), what=str(what))
    expect_draws(ctx, draws, torch.tensor([expected], dtype=torch.float64), what=what, fit_rows=(0,))


def test_unknown_method(sub, ctx):
    """an unknown method raises ValueError

    zh: 未知的方法抛出 ValueError
    """
    with expect_raises(ValueError, "truncated_probs(logits, method='top_p', param=0.9)"):
        sub.truncated_probs(torch.tensor([LOGITS]), method="top_p", param=0.9)
