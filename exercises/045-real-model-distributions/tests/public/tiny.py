"""The tiny variant of exercise 45: what "Run" judges in the browser, after the public cases.

The browser has no transformers and no model, so the real model's tensors are frozen in
``frozen.py``: its logits at a few passage positions (all 2 000 tokens, rounded to 4 decimals),
the same rows of its int4 draft, and a slice of one decoder weight. The answers, and what each
known mistake returns, were computed by the judge's float64 oracle on exactly these frozen
values (tests/exercises/test_045_real_model_distributions.py checks both against the live model
and the oracle). It never leaves the public side: no hidden input, no oracle.
"""

from __future__ import annotations

import torch

from judge.budget import BudgetDeclaration
from judge.checks import CheckFailed

from . import frozen
from .checking import check_counts, check_identity, check_quantized, check_values, refused
from .diagnoses import (
    ACCEPTANCE,
    ENTROPY,
    OVERFLOW,
    QUANTIZE,
    TOKENS_FOR_MASS,
    TOTAL_VARIATION,
    ZERO_LOG_ZERO,
)

BUDGET = BudgetDeclaration()  # nothing random: every check is exact


def _rows(text: str) -> list[list[float]]:
    values = [float(x) for x in text.split()]
    width = frozen.VOCAB
    return [values[i : i + width] for i in range(0, len(values), width)]


def _logits(which: str, repeat: int = 1) -> torch.Tensor:
    rows = _rows(frozen.TARGET if which == "target" else frozen.DRAFT)
    return torch.tensor([row for row in rows for _ in range(repeat)])


def _named(table, found):
    return {table[key]: value for key, value in found.items() if key in table}


def _labels(temperatures) -> list[str]:
    return [f"position {p}, T = {t}" for p in frozen.POSITIONS for t in temperatures]


def test_tiny_mass(sub, ctx):
    """tokens_for_mass: three rows of the real model at T = 0.5, 1 and 1.5 per row, mass 0.9

    zh: tokens_for_mass：真实模型的三行，逐行温度 T = 0.5、1、1.5，mass 0.9
    """
    case = frozen.VALUES["mass"]
    temps = torch.tensor(frozen.TEMPERATURES * len(frozen.POSITIONS))
    with refused():
        value = sub.tokens_for_mass(_logits("target", len(frozen.TEMPERATURES)), temperature=temps, mass=0.9)
    check_counts(
        ctx,
        value,
        case["expected"],
        what="tokens_for_mass on the model's rows",
        labels=_labels(frozen.TEMPERATURES),
        mistakes=lambda: _named(TOKENS_FOR_MASS, case["mistakes"]),
    )


def test_tiny_mass_boundary(sub, ctx):
    """tokens_for_mass: four tied tokens reach mass 0.25, 0.5 and 0.75 exactly

    zh: tokens_for_mass：四个并列的 token 恰好达到 mass 0.25、0.5、0.75
    """
    inf = float("inf")
    logits = torch.tensor([[-inf, 2.0, -inf, 2.0, 2.0, 2.0], [1.0, 1.0, -inf, -inf, -inf, -inf]])
    for mass, expected, strict in ((0.25, [1, 1], [2, 1]), (0.5, [2, 1], [3, 2]), (0.75, [3, 2], [4, 2])):
        with refused():
            value = sub.tokens_for_mass(logits, temperature=0.5, mass=mass)
        check_counts(
            ctx,
            value,
            expected,
            what=f"tokens_for_mass(ties, mass={mass})",
            labels=["four ties", "two ties"],
            mistakes=lambda s=strict: {TOKENS_FOR_MASS["strict_boundary"]: s},
        )


def _entropy(sub, ctx, key: str, logits, temperature, labels, what: str, nan_diagnosis=None):
    case = frozen.VALUES[key]
    with refused():
        value = sub.entropy(logits, temperature=temperature)
    return check_values(
        ctx,
        value,
        case["expected"],
        torch.float32,
        name="entropy",
        what=what,
        labels=labels,
        mistakes=lambda: _named(ENTROPY, case["mistakes"]),
        nan_diagnosis=nan_diagnosis,
    )


def test_tiny_entropy(sub, ctx):
    """entropy: the model's rows at T = 0.5, 1 and 1.5, at T = 0.02, and cut to their top 40 tokens

    zh: entropy：模型的几行在 T = 0.5、1、1.5 下、在 T = 0.02 下，以及只保留前 40 个 token 时的熵
    """
    temps = torch.tensor(frozen.TEMPERATURES * len(frozen.POSITIONS))
    _entropy(
        sub,
        ctx,
        "entropy",
        _logits("target", len(frozen.TEMPERATURES)),
        temps,
        _labels(frozen.TEMPERATURES),
        "entropy on the model's rows",
    )
    _entropy(
        sub,
        ctx,
        "entropy_low",
        _logits("target"),
        0.02,
        _labels([0.02]),
        "entropy at T = 0.02",
        nan_diagnosis=OVERFLOW,
    )
    logits = _logits("target")
    kept = logits.topk(40, dim=-1).indices
    masked = torch.full_like(logits, float("-inf")).scatter(1, kept, logits.gather(1, kept))
    _entropy(
        sub, ctx, "entropy_masked", masked, 0.7, _labels([0.7]), "entropy with -inf logits", nan_diagnosis=ZERO_LOG_ZERO
    )


def _weight() -> torch.Tensor:
    return torch.tensor(_rows_of(frozen.WEIGHT, frozen.WEIGHT_COLUMNS))


def _rows_of(text: str, width: int) -> list[list[float]]:
    values = [float(x) for x in text.split()]
    return [values[i : i + width] for i in range(0, len(values), width)]


def _quantize(sub, ctx, key: str, weight, what: str, zero_groups=None):
    case = frozen.VALUES[key]
    expected = torch.tensor(case["expected"], dtype=torch.float64)
    alternative = expected.clone()
    for row, column, value in case["alternative"]:  # a hair from a half: either neighbour
        alternative[int(row), int(column)] = value
    groups = weight.double().abs().reshape(weight.shape[0], -1, 32).amax(dim=-1, keepdim=True) / 7
    with refused():
        value = sub.fake_quantize_int4(weight, group_size=32)
    check_quantized(
        ctx,
        value,
        weight,
        expected=expected,
        alternative=alternative,
        scales=groups.expand(weight.shape[0], weight.shape[1] // 32, 32).reshape(weight.shape),
        what=what,
        mistakes=lambda: _named(QUANTIZE, case["mistakes"]),
        zero_groups=zero_groups,
    )


def test_tiny_quantize(sub, ctx):
    """fake_quantize_int4: a 32 x 32 slice of a real weight, a 4 x 64 one, the same with all-zero groups

    zh: fake_quantize_int4：真实权重的 32 x 32 切片、4 x 64 切片，以及含全零组的同一切片
    """
    # The square slice has 32 rows, so groups along either dimension form; to keep frozen.py small
    # its table holds only the mistake it exists for (groups along the output dimension), while the
    # 4 x 64 slices' tables hold every mistake. A failure that no table names waits for the next
    # slice, which may name it; the first failure stands when none does.
    square = torch.tensor(_rows_of(frozen.SQUARE, 32))
    weight = _weight()
    mask = torch.zeros(weight.shape, dtype=torch.bool)
    mask[::2, :32] = True
    slices = (
        ("quantize_square", square, f"fake_quantize_int4({frozen.SQUARE_NAME} 32 x 32 slice)", None),
        ("quantize", weight, f"fake_quantize_int4({frozen.WEIGHT_NAME} slice, group_size=32)", None),
        ("quantize_zero", weight.masked_fill(mask, 0.0), "fake_quantize_int4 with all-zero groups", mask),
    )
    unnamed: list[CheckFailed] = []
    for key, tensor, what, zero_groups in slices:
        try:
            _quantize(sub, ctx, key, tensor, what, zero_groups=zero_groups)
        except CheckFailed as failure:
            if failure.diagnosis:
                raise
            unnamed.append(failure)
    if unnamed:
        raise unnamed[0]


def test_tiny_quantize_halves(sub, ctx):
    """fake_quantize_int4: exact halves round to the even level

    zh: fake_quantize_int4：恰好的中间值舍入到偶数
    """
    weight = torch.tensor([[7.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5], [-7.0, 4.5, -4.5, 5.5, -5.5, 6.5, -6.5, 0.25]])
    expected = torch.tensor(
        [[7.0, 0.0, 2.0, 2.0, 0.0, -2.0, -2.0, 4.0], [-7.0, 4.0, -4.0, 6.0, -6.0, 6.0, -6.0, 0.0]], dtype=torch.float64
    )
    half_up = torch.tensor(
        [[7.0, 1.0, 2.0, 3.0, 0.0, -1.0, -2.0, 4.0], [-7.0, 5.0, -4.0, 6.0, -5.0, 7.0, -6.0, 0.0]], dtype=torch.float64
    )
    with refused():
        value = sub.fake_quantize_int4(weight, group_size=8)
    check_quantized(
        ctx,
        value,
        weight,
        expected=expected,
        alternative=expected,
        scales=torch.ones(2, 8, dtype=torch.float64),
        what="fake_quantize_int4(halves, group_size=8)",
        mistakes=lambda: {QUANTIZE["half_up"]: half_up},
    )
    # The same weights times 2^-20 (exact in binary: the scale is 2^-20, the halves stay halves): an
    # epsilon added to the scale is now 1 % of it, and shows.
    tiny = 2.0**-20
    epsilon = 1e-8  # the known mistake's epsilon, as in hidden/oracle.py's SCALE_EPSILON
    rows = [[x * tiny for x in row] for row in weight.tolist()]
    scale = tiny + epsilon  # the mistaken scale of every group (max|w| = 7 x 2^-20)
    with_epsilon = [[round(x / scale) * scale for x in row] for row in rows]
    with refused():
        value = sub.fake_quantize_int4(torch.tensor(rows), group_size=8)
    check_quantized(
        ctx,
        value,
        torch.tensor(rows),
        expected=torch.tensor([[x * tiny for x in row] for row in expected.tolist()], dtype=torch.float64),
        alternative=torch.tensor([[x * tiny for x in row] for row in expected.tolist()], dtype=torch.float64),
        scales=torch.tensor([[tiny] * 8, [tiny] * 8], dtype=torch.float64),
        what="fake_quantize_int4(halves x 2^-20, group_size=8)",
        mistakes=lambda: {
            QUANTIZE["half_up"]: [[x * tiny for x in row] for row in half_up.tolist()],
            QUANTIZE["scale_epsilon"]: with_epsilon,
        },
    )


def _acceptance(sub, ctx, key: str, temperature, temps: list[float], repeat: int, what: str):
    case = frozen.VALUES[key]
    target, draft = _logits("target", repeat), _logits("draft", repeat)
    labels = _labels(temps)
    with refused():
        accept = sub.acceptance_rate(target, draft, temperature=temperature)
    accept = check_values(
        ctx,
        accept,
        case["expected"],
        torch.float32,
        name="acceptance_rate",
        what=f"acceptance_rate, {what}",
        labels=labels,
        mistakes=lambda: _named(ACCEPTANCE, case["mistakes"]),
    )
    tv_case = frozen.VALUES[key + "_tv"]
    with refused():
        tv = sub.total_variation(target, draft, temperature=temperature)
    tv = check_values(
        ctx,
        tv,
        tv_case["expected"],
        torch.float32,
        name="total_variation",
        what=f"total_variation, {what}",
        labels=labels,
        mistakes=lambda: _named(TOTAL_VARIATION, tv_case["mistakes"]),
    )
    check_identity(ctx, accept, tv, what=f"acceptance_rate and total_variation, {what}", labels=labels)


def test_tiny_acceptance(sub, ctx):
    """acceptance_rate and total_variation: the model against its int4 draft, T = 1, then 0.5 and 1.5 per row

    zh: acceptance_rate 与 total_variation：模型与其 int4 草稿，T = 1，然后逐行 T = 0.5 与 1.5
    """
    _acceptance(sub, ctx, "acceptance", 1.0, [1.0], 1, "T = 1")
    pair = [0.5, 1.5]
    _acceptance(sub, ctx, "acceptance_tempered", torch.tensor(pair * len(frozen.POSITIONS)), pair, 2, "T = 0.5 and 1.5")
