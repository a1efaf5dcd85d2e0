"""The tiny variant of exercise 45: what "Run" judges in the browser, after the public cases.

The browser has no transformers and no model, so the real model's tensors are frozen in
``frozen.py``: its logits at a few passage positions (all 2 000 tokens, rounded to 4 decimals),
the same rows of its int4 draft, and a slice of one decoder weight. The answers, and what each
known mistake returns, were computed by the judge's float64 oracle on exactly these frozen
values (tests/exercises/test_045_real_model_distributions.py checks both against the live model
and the oracle). It never leaves the public side: no hidden input, no oracle.
"""

from __future__ import annotations

import math

import torch

from judge.checks.base import CheckFailed
from judge.checks.budget import BudgetDeclaration
from judge.checks.refusals import BadInput, expect_bad_inputs_refused

from . import frozen
from .checking import (
    check_counts,
    check_identity,
    check_quantized,
    check_values,
    entropy_non_finite,
    entropy_overflow_values,
    refused,
)
from .diagnoses import (
    ACCEPTANCE,
    ENTROPY,
    GROUP_SIZE_NOT_CHECKED,
    GROUP_SIZE_REFUSED,
    LOGITS_MISMATCH,
    LOGITS_NOT_CHECKED,
    MASS_NOT_CHECKED,
    QUANTIZE,
    TEMPERATURE_ENTRIES,
    TEMPERATURE_NOT_POSITIVE,
    TEMPERATURE_SHAPE,
    TOKENS_FOR_MASS,
    TOTAL_VARIATION,
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
    # The T = 1 rows again, the temperature given as the int 1 (a number may be an int).
    ones = [i for i, t in enumerate(frozen.TEMPERATURES * len(frozen.POSITIONS)) if t == 1.0]
    with refused():
        value = sub.tokens_for_mass(_logits("target"), temperature=1, mass=0.9)
    check_counts(
        ctx,
        value,
        [case["expected"][i] for i in ones],
        what="tokens_for_mass on the model's rows, temperature=1 (an int)",
        labels=_labels([1]),
        mistakes=dict,
    )


def test_tiny_mass_boundary(sub, ctx):
    """tokens_for_mass: four tied tokens reach mass 0.25, 0.5 and 0.75 exactly

    zh: tokens_for_mass：四个并列的 token 恰好达到 mass 0.25、0.5、0.75
    """
    inf = float("inf")
    # The statement's exact ties: finite logits all 0 (the rest -inf), so each probability is exactly 1/n.
    logits = torch.tensor([[-inf, 0.0, -inf, 0.0, 0.0, 0.0], [0.0, 0.0, -inf, -inf, -inf, -inf]])
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


def _entropy(sub, ctx, key: str, logits, temperature, labels, what: str):
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
        mistakes=lambda: {**_named(ENTROPY, case["mistakes"]), **entropy_overflow_values(logits, temperature)},
        non_finite=entropy_non_finite(logits, temperature),
    )


def test_tiny_entropy(sub, ctx):
    """entropy: the model's rows at T = 0.5, 1 and 1.5, at T = 0.02, and cut to their top 40 tokens

    zh: entropy：模型的几行在 T = 0.5、1、1.5 下、在 T = 0.02 下，以及只保留前 40 个 token 时的熵
    """
    # float64 temperatures for float32 logits: the results keep the logits' dtype.
    temps = torch.tensor(frozen.TEMPERATURES * len(frozen.POSITIONS), dtype=torch.float64)
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
    )
    logits = _logits("target")
    kept = logits.topk(40, dim=-1).indices
    masked = torch.full_like(logits, float("-inf")).scatter(1, kept, logits.gather(1, kept))
    _entropy(sub, ctx, "entropy_masked", masked, 0.7, _labels([0.7]), "entropy with -inf logits")


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


HALVES = [[7.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5], [-7.0, 4.5, -4.5, 5.5, -5.5, 6.5, -6.5, 0.25]]
EPSILON = 1e-8  # the known mistakes' epsilon, as hidden/oracle.py's SCALE_EPSILON and SCALE_CLAMP


def _levels(rows: list[list[float]], scale: float, rounding) -> list[list[float]]:
    return [[rounding(x / scale) * scale for x in row] for row in rows]


def _half_up(x: float) -> float:
    return float(math.floor(x + 0.5))


def _half_away(x: float) -> float:
    return math.copysign(math.floor(abs(x) + 0.5), x)


def test_tiny_quantize_halves(sub, ctx):
    """fake_quantize_int4: exact halves round to the even level, at scales 1, 2^-20 and 2^-28

    zh: fake_quantize_int4：恰好的中间值舍入到偶数，scale 为 1、2^-20 与 2^-28
    """
    # max|w| = 7 x 2^k in every group: the scale 2^k is exact and the halves stay halves. At 2^-20 an
    # epsilon added to the scale is 1 % of it; at 2^-28 (below 1e-8) a scale clamped to 1e-8 shows too.
    for k in (0, -20, -28):
        scale = 2.0**k
        rows = [[x * scale for x in row] for row in HALVES]
        expected = _levels(rows, scale, round)  # Python's round: halves to even, as torch.round
        with refused():
            value = sub.fake_quantize_int4(torch.tensor(rows), group_size=8)
        check_quantized(
            ctx,
            value,
            torch.tensor(rows),
            expected=torch.tensor(expected, dtype=torch.float64),
            alternative=torch.tensor(expected, dtype=torch.float64),
            scales=torch.full((2, 8), scale, dtype=torch.float64),
            what=f"fake_quantize_int4(halves x 2^{k}, group_size=8)",
            mistakes=lambda rows=rows, scale=scale: {
                QUANTIZE["half_up"]: _levels(rows, scale, _half_up),
                QUANTIZE["half_away"]: _levels(rows, scale, _half_away),
                QUANTIZE["scale_epsilon"]: _levels(rows, scale + EPSILON, round),
                QUANTIZE["scale_clamp"]: _levels(rows, max(scale, EPSILON), round),
            },
        )


def test_tiny_bad_inputs(sub, ctx):
    """every function: a bad input of each kind the statement lists raises ValueError

    zh: 每个函数：题面列出的每一类非法输入都抛出 ValueError
    """
    logits = _logits("target")[:, :8]
    rows = logits.shape[0]
    for name, extra in (("tokens_for_mass", {"mass": 0.9}), ("entropy", {})):
        expect_bad_inputs_refused(
            getattr(sub, name),
            [
                BadInput(
                    "1-D logits", {"logits": logits[0], "temperature": 1.0, **extra}, diagnosis=LOGITS_NOT_CHECKED
                ),
                BadInput(
                    "int64 logits",
                    {"logits": logits.round().to(torch.int64), "temperature": 1.0, **extra},
                    diagnosis=LOGITS_NOT_CHECKED,
                ),
                BadInput(
                    "temperature 0", {"logits": logits, "temperature": 0.0, **extra}, diagnosis=TEMPERATURE_NOT_POSITIVE
                ),
                BadInput(
                    "temperature -1", {"logits": logits, "temperature": -1, **extra}, diagnosis=TEMPERATURE_NOT_POSITIVE
                ),
                BadInput(
                    "temperature NaN",
                    {"logits": logits, "temperature": math.nan, **extra},
                    diagnosis=TEMPERATURE_NOT_POSITIVE,
                ),
                BadInput(
                    "a temperature tensor holding 0",
                    {"logits": logits, "temperature": torch.tensor([1.0] * (rows - 1) + [0.0]), **extra},
                    diagnosis=TEMPERATURE_ENTRIES,
                ),
                BadInput(
                    "a temperature tensor holding NaN",
                    {"logits": logits, "temperature": torch.tensor([math.nan] + [1.0] * (rows - 1)), **extra},
                    diagnosis=TEMPERATURE_ENTRIES,
                ),
                BadInput(
                    "a 0-d temperature tensor",
                    {"logits": logits, "temperature": torch.tensor(1.0), **extra},
                    diagnosis=TEMPERATURE_SHAPE,
                ),
                BadInput(
                    "a [B, 1] temperature tensor",
                    {"logits": logits, "temperature": torch.ones(rows, 1), **extra},
                    diagnosis=TEMPERATURE_SHAPE,
                ),
                BadInput(
                    "a [1] temperature tensor",
                    {"logits": logits, "temperature": torch.ones(1), **extra},
                    diagnosis=TEMPERATURE_SHAPE,
                ),
            ],
            name=name,
        )
    expect_bad_inputs_refused(
        sub.tokens_for_mass,
        [
            BadInput(f"mass {mass!r}", {"logits": logits, "temperature": 1.0, "mass": mass}, diagnosis=MASS_NOT_CHECKED)
            for mass in (1.0, 0.0, 1.5, math.nan, "0.5")
        ],
        name="tokens_for_mass",
    )
    draft = _logits("draft")[:, :8]
    for name in ("acceptance_rate", "total_variation"):
        expect_bad_inputs_refused(
            getattr(sub, name),
            [
                BadInput(
                    "float64 draft logits with float32 target logits",
                    {"target_logits": logits, "draft_logits": draft.double(), "temperature": 1.0},
                    diagnosis=LOGITS_MISMATCH,
                ),
                BadInput(
                    "draft logits of another shape",
                    {"target_logits": logits, "draft_logits": draft[:, :7], "temperature": 1.0},
                    diagnosis=LOGITS_MISMATCH,
                ),
                BadInput(
                    "1-D logits",
                    {"target_logits": logits[0], "draft_logits": draft[0], "temperature": 1.0},
                    diagnosis=LOGITS_NOT_CHECKED,
                ),
                BadInput(
                    "temperature 0",
                    {"target_logits": logits, "draft_logits": draft, "temperature": 0.0},
                    diagnosis=TEMPERATURE_NOT_POSITIVE,
                ),
            ],
            name=name,
        )
    weight = _weight()[:2, :32]
    expect_bad_inputs_refused(
        sub.fake_quantize_int4,
        [
            BadInput("in = 32, group_size = 12", {"weight": weight, "group_size": 12}, diagnosis=GROUP_SIZE_REFUSED),
            BadInput("group_size = True", {"weight": weight, "group_size": True}, diagnosis=GROUP_SIZE_NOT_CHECKED),
            BadInput("group_size = -8", {"weight": weight, "group_size": -8}, diagnosis=GROUP_SIZE_NOT_CHECKED),
            BadInput("group_size = 0", {"weight": weight, "group_size": 0}, diagnosis=GROUP_SIZE_NOT_CHECKED),
            BadInput("group_size = 8.0", {"weight": weight, "group_size": 8.0}, diagnosis=GROUP_SIZE_NOT_CHECKED),
            BadInput("a 1-D weight", {"weight": weight[0], "group_size": 8}),
        ],
        name="fake_quantize_int4",
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
