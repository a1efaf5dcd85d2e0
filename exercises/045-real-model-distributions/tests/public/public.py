"""Public tests of exercise 45: small examples you can check by hand.

The hidden tests check the same rules on the real model's logits (a tiny Qwen3 the judge runs:
every position of a held-out passage, several temperatures), on its 14 decoder weight matrices,
and on the logits of its int4-quantized draft.
"""

from __future__ import annotations

import torch

from judge.checks.budget import BudgetDeclaration
from judge.checks.refusals import expect_raises

from .checking import (
    check_counts,
    check_identity,
    check_quantized,
    check_values,
    entropy_non_finite,
    entropy_overflow_values,
)
from .diagnoses import GROUP_SIZE_REFUSED

BUDGET = BudgetDeclaration()  # nothing random: every check is exact

INF = float("inf")
# The statement's worked example: two rows of five tokens.
LOGITS = torch.tensor([[3.0, 2.0, 1.0, 0.0, -1.0], [0.5, 2.5, 2.0, 0.0, 1.5]])
NO_MISTAKES = dict  # the public cases name mistakes only by rule: their messages say what differs


def test_mass_example(sub, ctx):
    """tokens_for_mass on the worked example: 3 and 3 tokens at T = 1, 2 and 3 at T = 0.5

    zh: 题面例子上的 tokens_for_mass：T = 1 时 3 个和 3 个 token，T = 0.5 时 2 个和 3 个
    """
    for temperature, expected in ((1.0, [3, 3]), (0.5, [2, 3]), (torch.tensor([0.5, 2.0]), [2, 4])):
        shown = temperature.tolist() if isinstance(temperature, torch.Tensor) else temperature
        value = sub.tokens_for_mass(LOGITS, temperature=temperature, mass=0.9)
        check_counts(
            ctx,
            value,
            expected,
            what=f"tokens_for_mass(example, temperature={shown}, mass=0.9)",
            labels=["row 0", "row 1"],
            mistakes=NO_MISTAKES,
        )


def test_mass_boundary(sub, ctx):
    """tokens_for_mass: four tied tokens of 0.25 each reach mass 0.5 exactly with 2 tokens

    zh: tokens_for_mass：四个并列的 token 各占 0.25，2 个 token 恰好达到 mass 0.5
    """
    # Logits 0 (the rest -inf): every usual computation gives exactly 0.25 (the statement's exact ties).
    logits = torch.tensor([[0.0, 0.0, 0.0, 0.0, -INF, -INF]])
    value = sub.tokens_for_mass(logits, temperature=1.0, mass=0.5)
    check_counts(ctx, value, [2], what="tokens_for_mass(four ties, mass=0.5)", labels=["ties"], mistakes=NO_MISTAKES)


def test_entropy_example(sub, ctx):
    """entropy on the worked example at T = 1 and T = 0.5 (nats)

    zh: 题面例子在 T = 1 与 T = 0.5 时的熵（单位：奈特）
    """
    for temperature, expected in (
        (1.0, [0.9999728282753986, 1.3080566018774813]),
        (0.5, [0.45794932249772297, 0.9119437881847963]),
    ):
        value = sub.entropy(LOGITS, temperature=temperature)
        check_values(
            ctx,
            value,
            expected,
            torch.float32,
            name="entropy",
            what=f"entropy(example, temperature={temperature})",
            labels=["row 0", "row 1"],
            mistakes=NO_MISTAKES,
        )


def test_entropy_edges(sub, ctx):
    """entropy: -inf logits add nothing (two equal tokens: log 2), and T = 0.1 with logits up to 30 stays finite

    zh: entropy：-inf 的 logits 不贡献（两个相等的 token：log 2）；T = 0.1、logits 达到 30 时结果仍有限
    """
    masked = torch.tensor([[1.0, 1.0, -INF, -INF], [2.0, -INF, 0.0, -INF]])
    value = sub.entropy(masked, temperature=1.0)
    check_values(
        ctx,
        value,
        [0.6931471805599453, 0.3653338551521301],
        torch.float32,
        name="entropy",
        what="entropy with -inf logits",
        labels=["two equal tokens", "logits 2 and 0"],
        mistakes=NO_MISTAKES,
        non_finite=entropy_non_finite(masked, 1.0),
    )
    # Logits / T of 240 to 300 overflow exp in float32, while no probability underflows to 0: a NaN
    # here is the overflow's, not 0 x log 0's. The third row does not overflow.
    hot = torch.tensor([[30.0, 29.0, 27.5], [25.0, 25.0, 24.0], [0.1, 0.0, -0.1]])
    value = sub.entropy(hot, temperature=0.1)
    check_values(
        ctx,
        value,
        [0.0004993779473051161, 0.6933968747632315, 0.8323955755158184],
        torch.float32,
        name="entropy",
        what="entropy at T = 0.1",
        labels=["one token dominates", "two equal leaders", "no overflow"],
        mistakes=lambda: entropy_overflow_values(hot, 0.1),
        non_finite=entropy_non_finite(hot, 0.1),
    )


def _scales(weight: torch.Tensor, group_size: int) -> torch.Tensor:
    rows, columns = weight.shape
    groups = weight.double().reshape(rows, columns // group_size, group_size)
    return (groups.abs().amax(dim=-1, keepdim=True) / 7).expand_as(groups).reshape(rows, columns)


def test_quantize_example(sub, ctx):
    """fake_quantize_int4 on a 2 x 8 weight with group_size 4 (one group all zero)

    zh: 在 2 x 8 的权重上做 fake_quantize_int4，group_size 4（其中一组全为零）
    """
    weight = torch.tensor([[0.7, -0.3, 0.12, 0.0, 1.4, 0.55, -0.2, 0.9], [0.0, 0.0, 0.0, 0.0, -2.1, 0.3, 0.65, 1.0]])
    expected = torch.tensor(
        [[0.7, -0.3, 0.1, 0.0, 1.4, 0.6, -0.2, 0.8], [0.0, 0.0, 0.0, 0.0, -2.1, 0.3, 0.6, 0.9]], dtype=torch.float64
    )
    zero = torch.zeros(2, 8, dtype=torch.bool)
    zero[1, :4] = True
    value = sub.fake_quantize_int4(weight, group_size=4)
    check_quantized(
        ctx,
        value,
        weight,
        expected=expected,
        alternative=expected,
        scales=_scales(weight, 4),
        what="fake_quantize_int4(example, group_size=4)",
        mistakes=NO_MISTAKES,
        zero_groups=zero,
    )


def test_quantize_halves(sub, ctx):
    """fake_quantize_int4: 0.5, 2.5 and -2.5 round to the even level (0, 2, -2), 3.5 to 4

    zh: fake_quantize_int4：0.5、2.5、-2.5 舍入到偶数（0、2、-2），3.5 舍入到 4
    """
    weight = torch.tensor([[7.0, 0.5, 1.5, 2.5], [-7.0, -0.5, 3.5, -2.5]])
    expected = torch.tensor([[7.0, 0.0, 2.0, 2.0], [-7.0, 0.0, 4.0, -2.0]], dtype=torch.float64)
    value = sub.fake_quantize_int4(weight, group_size=4)
    check_quantized(
        ctx,
        value,
        weight,
        expected=expected,
        alternative=expected,
        scales=_scales(weight, 4),
        what="fake_quantize_int4(halves, group_size=4)",
        mistakes=NO_MISTAKES,
    )


def test_acceptance_example(sub, ctx):
    """acceptance_rate and total_variation on three small rows, at T = 1 and T = 0.5

    zh: 三个小例子上的 acceptance_rate 与 total_variation，T = 1 与 T = 0.5
    """
    target = torch.tensor([[2.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 3.0, -1.0]])
    draft = torch.tensor([[1.0, 2.0, 0.0], [1.0, 1.0, 1.0], [0.5, 2.0, 0.0]])
    labels = ["the two leaders swapped", "identical rows", "a close draft"]
    for temperature, accept, tv in (
        (1.0, [0.5794875152799757, 1.0, 0.7998851724360881], [0.4205124847200241, 0.0, 0.20011482756391188]),
        (0.5, [0.25049709562886346, 1.0, 0.9390458691015935], [0.7495029043711363, 0.0, 0.06095413089840665]),
    ):
        got = check_values(
            ctx,
            sub.acceptance_rate(target, draft, temperature=temperature),
            accept,
            torch.float32,
            name="acceptance_rate",
            what=f"acceptance_rate(example, temperature={temperature})",
            labels=labels,
            mistakes=NO_MISTAKES,
        )
        distance = check_values(
            ctx,
            sub.total_variation(target, draft, temperature=temperature),
            tv,
            torch.float32,
            name="total_variation",
            what=f"total_variation(example, temperature={temperature})",
            labels=labels,
            mistakes=NO_MISTAKES,
        )
        check_identity(ctx, got, distance, what=f"example, temperature={temperature}", labels=labels)


def test_bad_group_size(sub, ctx):
    """fake_quantize_int4: 8 input columns with group_size 3 raise ValueError

    zh: fake_quantize_int4：8 个输入列、group_size 为 3 时抛出 ValueError
    """
    with expect_raises(ValueError, "fake_quantize_int4(weight [2, 8], group_size=3)", diagnosis=GROUP_SIZE_REFUSED):
        sub.fake_quantize_int4(torch.ones(2, 8), group_size=3)
