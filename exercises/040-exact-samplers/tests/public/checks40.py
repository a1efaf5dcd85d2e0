"""The checks of exercise 40, shared by the public, tiny and hidden suites.

Public on purpose: they hold rules, not answers. Expected tokens, targets and what each known
mistake returns come from the caller (the hidden oracle, or values frozen in ``tiny.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import torch

from judge.checks.base import rule
from judge.checks.distributions import expect_distribution, expect_support, expect_tokens_in_range
from judge.checks.draw_sites import expect_every_draw_site
from judge.checks.exact import expect, expect_tensor
from judge.checks.generator_contract import expect_generator_contract
from judge.checks.independence import (
    expect_independent_across_rows,
    expect_independent_rows,
    expect_independent_within_row,
)
from judge.checks.refusals import BadInput, expect_bad_inputs_refused
from judge.i18n import Bilingual

from .diagnoses import MISTAKES

METHODS = ("inverse_cdf", "gumbel", "race", "alias")
EXTREMES = Bilingual(
    "sample fed extreme uniforms (exactly 0.0 and the largest float below 1)",
    "sample（均匀随机数恰为 0.0 和小于 1 的最大浮点数）",
)

# A mapping (or a function returning one) from a diagnosis to the tokens that mistake returns
# (or a tuple of them, when the mistake comes in several variants).
Mistaken = Mapping[str, torch.Tensor | tuple] | Callable[[], Mapping[str, torch.Tensor | tuple]] | None


# A mistake is named by whole-output equality only where it changes at least this many draws: one
# differing draw matched is too easy a coincidence (a token 0 returned for another reason, say).
MATCHED_DRAWS = 2


def _matching(actual: torch.Tensor, expected: torch.Tensor, mistaken: Mistaken) -> str | None:
    """The one listed mistake whose tokens are the learner's, where it differs from the answer at
    ``MATCHED_DRAWS`` draws or more; None when none is, or several are."""
    table = mistaken() if callable(mistaken) else (mistaken or {})
    found = []
    for diagnosis, variants in table.items():
        for tokens in variants if isinstance(variants, (tuple, list)) else (variants,):
            if tokens.shape != actual.shape or not torch.equal(tokens.to(torch.int64), actual):
                continue
            if int((tokens.to(torch.int64) != expected).sum()) >= MATCHED_DRAWS:
                found.append(diagnosis)
                break
    return found[0] if len(found) == 1 else None


def expect_tokens(
    ctx,
    value,
    expected: torch.Tensor,
    *,
    name: str,
    what: str,
    public: Bilingual,
    mistaken: Mistaken = None,
    noise: Callable[[int, int], str] | None = None,
    diagnose: Callable[[torch.Tensor], str | None] | None = None,
) -> torch.Tensor:
    """A noise-form result equals ``expected`` (int64 [B, n]) token for token.

    ``what`` may quote inputs (it goes into the message); ``public`` names the case without values.
    ``noise(row, draw)`` describes that draw's uniforms for the message. On a mismatch the known
    mistake whose output equals the learner's whole output (and differs from the answer at two draws
    or more) is the diagnosis; failing that, ``diagnose(draws)`` (if given) may name one.
    """
    draws = expect_tensor(value, name=name, shape=tuple(expected.shape), dtype=torch.int64, device=ctx.device)
    if torch.equal(draws, expected):
        return draws
    diagnosis = _matching(draws, expected, mistaken)
    if diagnosis is None and diagnose is not None:
        diagnosis = diagnose(draws)
    row, draw = (draws != expected).nonzero()[0].tolist()
    got, want = int(draws[row, draw]), int(expected[row, draw])
    detail = f" ({noise(row, draw)})" if noise else ""
    expect(
        False,
        f"{what}: row {row}, draw {draw}{detail}: you returned token {got}, expected {want}",
        diagnosis=diagnosis,
        rule=rule(public, "a draw differs from the exact answer", "某次抽样与精确答案不一致"),
    )
    return draws


def race_underflows(probs: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """bool [B, n]: the draws where every positive p / E of the row (float64, E = -log(max(u, tiny)))
    underflows to 0, so that a plain argmax of p / E ties the zero-probability tokens with the positive
    ones: the evidence of the mistake ``race_zero_underflow``."""
    exponential = -torch.log(u.clamp(min=torch.finfo(u.dtype).tiny).to(torch.float64))
    weights = probs.to(torch.float64).unsqueeze(1)
    scores = (weights / exponential).masked_fill(weights == 0, -1.0)
    return scores.amax(dim=2) == 0


def implied_distribution(accept: torch.Tensor, alias: torch.Tensor) -> torch.Tensor:
    """The distribution an alias table draws, float64 [B, V]: cell i gives i with accept[i] / V and
    alias[i] with (1 - accept[i]) / V."""
    vocab = accept.shape[1]
    lent = torch.zeros_like(accept).scatter_add(1, alias, 1.0 - accept)
    return (accept + lent) / vocab


def expect_alias_table(
    ctx,
    value,
    target: torch.Tensor,
    *,
    what: str,
    public: Bilingual,
    mistaken: Callable[[], Mapping[str, torch.Tensor]] | None = None,
) -> tuple:
    """``build_alias`` returned ``(accept float64 [B, V], alias int64 [B, V])`` whose implied distribution
    equals ``target`` (float64 [B, V], rows summing to 1) within float64 rounding, and exactly 0 where
    the target is 0. ``mistaken()`` maps diagnoses to the implied distributions of known mistakes."""
    shape = tuple(target.shape)
    expect(
        isinstance(value, (tuple, list)) and len(value) == 2,
        f"{what}: build_alias must return a pair (accept, alias), got {type(value).__name__}",
        rule=rule(public, "did not return a pair (accept, alias)", "返回的不是 (accept, alias) 二元组"),
    )
    accept = expect_tensor(value[0], name="build_alias (accept)", shape=shape, dtype=torch.float64, device=ctx.device)
    alias = expect_tensor(value[1], name="build_alias (alias)", shape=shape, dtype=torch.int64, device=ctx.device)
    valid = bool(
        torch.isfinite(accept).all()
        and (accept >= 0).all()
        and (accept <= 1).all()
        and (alias >= 0).all()
        and (alias < shape[1]).all()
    )
    expect(
        valid,
        f"{what}: accept must lie in [0, 1] and alias must hold ids in [0, {shape[1]})",
        diagnosis=MISTAKES["alias_table_invalid"],
        rule=rule(public, "the table holds values out of range", "表中有越界的值"),
    )
    implied = implied_distribution(accept, alias)

    def diagnose(default: str | None) -> str | None:
        for diagnosis, wrong in ((mistaken() if mistaken else {}) or {}).items():
            if torch.allclose(implied, wrong, rtol=1e-9, atol=1e-12):
                return diagnosis
        return default

    reachable = (target == 0) & (implied != 0)
    if reachable.any():
        row, token = reachable.nonzero()[0].tolist()
        expect(
            False,
            f"{what}: row {row}: token {token} has probability 0, yet the table draws it with "
            f"probability {float(implied[row, token]):.6g}",
            diagnosis=diagnose(MISTAKES["alias_zero_reachable"]),
            rule=rule(public, "the table can draw a token of probability 0", "表可能抽到概率为 0 的 token"),
        )
    gap = (implied - target).abs() - (1e-12 + 1e-9 * target)
    if (gap > 0).any():
        rounded = bool(((implied - target).abs() <= 1e-9 + 1e-5 * target).all())
        row, token = (gap > 0).nonzero()[0].tolist()
        expect(
            False,
            f"{what}: row {row}, token {token}: the table draws it with probability "
            f"{float(implied[row, token]):.12g}, the target is {float(target[row, token]):.12g}",
            diagnosis=diagnose(MISTAKES["alias_float32"] if rounded else None),
            rule=rule(public, "the table's implied distribution differs from the target", "表所隐含的分布与目标不一致"),
        )
    return accept, alias


# --- sample: the generator form ------------------------------------------------------------------


def draws_of(source, ctx, probs: torch.Tensor, n: int, method: str, generator) -> torch.Tensor:
    """One call of ``sample``, its value checked: int64 [B, n] of ids in [0, V)."""
    value = source.sample(probs, n, method, generator=generator)
    draws = expect_tensor(
        value, name=f"sample(method={method!r})", shape=(probs.shape[0], n), dtype=torch.int64, device=ctx.device
    )
    expect_tokens_in_range(draws, probs.shape[1], what=f"sample(method={method!r})")
    return draws


def _normalised(probs: torch.Tensor) -> torch.Tensor:
    weights = probs.to(torch.float64)
    return weights / weights.sum(dim=1, keepdim=True)


def _why_zero(row: int, token: int) -> str:
    return "its probability is 0"


# Calls made, only after a row repeated one token, to see whether the repeated token moves with the
# generator: the tiny rows' twins keep one token with probability about 0.46 per row and call, so eight
# calls leave noise reused unnamed about once in 250 000 gradings that make this mistake.
PROBES = 8


def _expect_rows_vary(sub, ctx, method: str, probs: torch.Tensor, draws: torch.Tensor, target: torch.Tensor) -> None:
    """No row of ``draws`` repeats one token in every draw (where its target allows several). The mistake
    "noise drawn once per row" is named only on its own evidence: a repeating row, drawn again with another
    generator (up to ``PROBES`` calls), repeats another token (the noise is random, only reused); rows that
    always repeat the same token are a deterministic answer, and get no name."""
    label = f"sample(method={method!r})"
    repeated = (draws == draws[:, :1]).all(dim=1) & ((target**2).sum(dim=1) < 0.9)
    if not repeated.any():
        return
    row = int(repeated.nonzero()[0])
    token = int(draws[row, 0])
    diagnosis = None
    for _ in range(PROBES):
        again = draws_of(sub, ctx, probs, 16, method, ctx.generator())
        moved = repeated & (again == again[:, :1]).all(dim=1) & (again[:, 0] != draws[:, 0])
        if bool(moved.any()):
            diagnosis = MISTAKES["noise_reused_across_draws"]
            break
    expect(
        False,
        f"{label}: all {draws.shape[1]} draws of row {row} are token {token}; each draw needs its own noise",
        diagnosis=diagnosis,
        rule=rule(label, "every draw of a row is the same token", "一行的所有抽样都是同一个 token", row=row),
        kind="value",
    )


def check_sample(
    sub,
    ctx,
    method: str,
    probs: torch.Tensor,
    n: int,
    *,
    fit_rows: list[int],
    twin_rows: tuple[int, int],
    apart_rows: tuple[int, int] | None = None,
    within: bool = True,
    alternatives: Callable[[], Mapping[str, torch.Tensor]] | None = None,
) -> None:
    """``sample`` on ``probs`` (float [B, V]; rows ``twin_rows`` identical): support, no row repeating one
    draw, a fit per row of ``fit_rows``; with ``within``, the twins' draws independent within each row at
    every distance (consecutive, half a row apart, mirrored); the twins independent of each other; with
    ``apart_rows`` (two rows of different targets), those independent of each other. Spends
    ``len(fit_rows)`` fits, one ``pairs`` for ``within`` and one for ``apart_rows``, one ``independence``."""
    target = _normalised(probs)
    label = f"sample(method={method!r})"
    draws = draws_of(sub, ctx, probs, n, method, ctx.generator())

    def row_alternatives(row: int) -> dict:
        return {diagnosis: wrong[row] for diagnosis, wrong in alternatives().items()} if alternatives else {}

    expect_support(draws, target, what=label, why_excluded=_why_zero, alternatives=alternatives)
    _expect_rows_vary(sub, ctx, method, probs, draws, target)
    for row in fit_rows:
        expect_distribution(
            ctx,
            draws[row],
            target[row],
            label=f"{label}, row {row}",
            public=Bilingual(f"{label}, row {row}", f"{label}，第 {row} 行"),
            alternatives=lambda row=row: row_alternatives(row),
        )
    first, second = twin_rows
    if within:
        expect_independent_within_row(
            ctx,
            draws[[first, second]],
            target[first],
            label=f"{label}, rows {first} and {second}",
            public=Bilingual(f"{label}, the draws of one row", f"{label}，同一行的抽样"),
        )
    expect_independent_rows(
        ctx,
        draws[first],
        draws[second],
        target[first],
        label=f"{label}, rows {first} and {second} (identical inputs)",
        public=Bilingual(f"{label}, two identical rows", f"{label}，两行输入相同"),
    )
    if apart_rows is not None:
        a, b = apart_rows
        expect_independent_across_rows(
            ctx,
            draws[a],
            draws[b],
            target[a],
            target[b],
            label=f"{label}, rows {a} and {b}",
            public=Bilingual(f"{label}, two rows of different distributions", f"{label}，分布不同的两行"),
        )


def check_extremes(
    sub, ctx, method: str, probs: torch.Tensor, n: int, seed: int, tiny: torch.Tensor | None = None
) -> None:
    """``sample`` while torch.rand returns exactly 0.0 and the largest float below 1 at times: every draw
    stays in [0, V) and off the zero-probability tokens; then, with ``tiny`` (float64 rows of tiny and
    subnormal weights between zeros), ordinary draws off the zero-probability tokens too (for the race,
    a zero token drawn only where every positive weight of the row is below 1e-300 is an underflow of
    p / E). No budget."""
    target = _normalised(probs)
    extreme = sub.with_extreme_uniforms(seed)
    value = extreme.sample(probs, n, method, generator=ctx.generator())
    label = f"sample(method={method!r}) fed extreme uniforms (exactly 0.0 and the largest float below 1)"
    draws = expect_tensor(
        value, name=f"sample(method={method!r})", shape=(probs.shape[0], n), dtype=torch.int64, device=ctx.device
    )
    expect_tokens_in_range(draws, probs.shape[1], what=label)
    expect_support(draws, target, what=label, why_excluded=_why_zero)
    if tiny is None:
        return
    label = f"sample(method={method!r}) on rows of tiny and subnormal weights"
    value = sub.sample(tiny, n, method, generator=ctx.generator())
    draws = expect_tensor(value, name=label, shape=(tiny.shape[0], n), dtype=torch.int64, device=ctx.device)
    expect_tokens_in_range(draws, tiny.shape[1], what=label)
    weights = tiny.to(torch.float64)
    underflow = None
    if method == "race":
        tiny_rows = (weights.amax(dim=1) < 1e-300).tolist()
        drawn_zero = (weights.gather(1, draws) == 0).any(dim=1).tolist()
        if any(drawn_zero) and all(t for t, z in zip(tiny_rows, drawn_zero, strict=True) if z):
            underflow = MISTAKES["race_zero_underflow"]
    expect_support(
        draws,
        _normalised(tiny),
        what=label,
        why_excluded=_why_zero,
        diagnosis=underflow,
    )


def check_draw_sites(sub, ctx, method: str, probs: torch.Tensor, n: int) -> int:
    """Every draw site of ``sample(probs, n, method)`` pushed, in turn, wholly to 0.0 and to the largest
    float below 1 (``expect_every_draw_site``): every draw stays in [0, V) and off the zero-probability
    tokens. No budget. Returns the number of sites pushed."""
    target = _normalised(probs)

    def call(source, generator):
        return source.sample(probs, n, method, generator=generator)

    def check(value, what: str) -> None:
        draws = expect_tensor(
            value, name=f"sample(method={method!r})", shape=(probs.shape[0], n), dtype=torch.int64, device=ctx.device
        )
        expect_tokens_in_range(draws, probs.shape[1], what=what)
        expect_support(draws, target, what=what, why_excluded=_why_zero)

    return expect_every_draw_site(sub, ctx, call, check, label=f"sample(method={method!r})")


def check_seeds(sub, ctx, method: str, probs: torch.Tensor, n: int, *, positions: int | None = None) -> None:
    """The generator contract of ``sample``: the generator decides the draws and advances from one call to
    the next, torch's global generator is left alone when one is given, and without one torch's default
    generator decides (4 ``seeds``); with ``positions`` (a number of draws per row), each row's draws
    also fit its own target with the batch's rows in another order (one ``fit`` per row of ``probs``):
    what ``generator_contract_budget(probs, positions=...)`` says. Every call's draws are checked first:
    against the support, and for rows that all repeat one token each (a sampler whose draws do not depend
    on its random numbers at all, which the seed clauses would otherwise blame on the generator). That
    check runs only where a correct sampler repeats one token in every row with probability
    prod_b sum_x q_bx^n below 1e-30 (the hidden rows at n = 32: about 1e-76), so it spends no budget."""
    target = _normalised(probs)
    label = f"sample(method={method!r})"
    constant_chance = float((target**n).sum(dim=1).prod())

    def draw(source, generator, rows=None):
        if rows is None:
            draws = draws_of(source, ctx, probs, n, method, generator)
            expect_support(draws, target, what=label, why_excluded=_why_zero)
            expect(
                constant_chance > 1e-30 or not bool((draws == draws[:, :1]).all()),
                f"{label}: every row repeats one token in all {n} draws ({draws[:, 0].tolist()}): the draws do not "
                "depend on the random numbers",
                rule=rule(label, "every row repeats one token", "每一行都重复同一个 token"),
                kind="value",
            )
            return draws
        return draws_of(source, ctx, probs[rows], positions, method, generator)

    expect_generator_contract(
        sub, ctx, draw, target, label=f"sample(method={method!r})", positions=positions is not None
    )


def check_bad_inputs(sub, ctx) -> int:
    """A bad input of each kind the statement lists, for every function, raises ValueError (no budget).

    The browser's small table (the hidden suite generates its bad inputs from the contract). Within a
    function, a bad value that names a known mistake when it alone gets through (a NaN uniform, +inf
    logits, an alias out of range on a cell with accept = 1, ...) comes after the other bad values of its
    argument, so that the name stands on its own evidence."""
    nan, inf = float("nan"), float("inf")
    good = torch.tensor([[0.25, 0.75], [0.5, 0.5]])
    u2 = torch.tensor([[0.1, 0.2], [0.3, 0.4]])
    u3 = torch.full((2, 1, 2), 0.5)
    accept = torch.tensor([[0.5, 1.0], [1.0, 1.0]], dtype=torch.float64)
    alias = torch.tensor([[1, 1], [0, 1]])

    def draw(**changed) -> dict:
        return {"accept": accept, "alias": alias, "column_u": u2, "coin_u": u2, **changed}

    def with_value(tensor: torch.Tensor, at: tuple, value) -> torch.Tensor:
        out = tensor.clone()
        out[at] = value
        return out

    count = expect_bad_inputs_refused(
        sub.inverse_cdf,
        [
            BadInput(
                "probs with a negative entry", {"probs": torch.tensor([[-0.25, 1.25]]), "u": torch.tensor([[0.5]])}
            ),
            BadInput("probs holding NaN", {"probs": torch.tensor([[nan, 1.0]]), "u": torch.tensor([[0.5]])}),
            BadInput("probs holding inf", {"probs": torch.tensor([[inf, 1.0]]), "u": torch.tensor([[0.5]])}),
            BadInput("1-D probs", {"probs": torch.tensor([0.5, 0.5]), "u": torch.tensor([0.5])}),
            BadInput("int64 probs", {"probs": torch.tensor([[1, 3]]), "u": torch.tensor([[0.5]])}),
            BadInput("u = 1", {"probs": good, "u": with_value(u2, (0, 1), 1.0)}),
            BadInput("a negative u", {"probs": good, "u": with_value(u2, (1, 0), -0.5)}),
            BadInput("int64 u", {"probs": good, "u": torch.zeros(2, 2, dtype=torch.int64)}),
            BadInput("u with 3 rows for 2", {"probs": good, "u": torch.zeros(3, 2)}),
            BadInput(
                "u holding NaN",
                {"probs": good, "u": with_value(u2, (1, 1), nan)},
                diagnosis=MISTAKES["uniform_nan_accepted"],
            ),
            BadInput(
                "a row of zeros",
                {"probs": torch.tensor([[0.5, 0.5], [0.0, 0.0]]), "u": u2},
                diagnosis=MISTAKES["zero_row_accepted"],
            ),
        ],
        name="inverse_cdf",
    )
    count += expect_bad_inputs_refused(
        sub.gumbel_max,
        [
            BadInput("int64 logits", {"logits": torch.tensor([[0, 1], [1, 0]]), "u": u3}),
            BadInput("u of shape [B, n] (must be [B, n, V])", {"logits": torch.zeros(2, 2), "u": u2}),
            BadInput(
                "u of 1 column for 2 tokens (it would broadcast)", {"logits": torch.zeros(2, 2), "u": u3[:, :, :1]}
            ),
            BadInput("u = 1", {"logits": torch.zeros(2, 2), "u": torch.ones(2, 1, 2)}),
            BadInput("logits holding NaN", {"logits": torch.tensor([[0.0, nan], [0.0, 1.0]]), "u": u3}),
            BadInput(
                "a row of -inf logits",
                {"logits": torch.tensor([[0.0, 1.0], [-inf, -inf]]), "u": u3},
                diagnosis=MISTAKES["neginf_row_accepted"],
            ),
            BadInput(
                "logits holding +inf",
                {"logits": torch.tensor([[0.0, inf], [0.0, 1.0]]), "u": u3},
                diagnosis=MISTAKES["logits_posinf_accepted"],
            ),
        ],
        name="gumbel_max",
    )
    count += expect_bad_inputs_refused(
        sub.exponential_race,
        [
            BadInput("a negative probability", {"probs": torch.tensor([[-0.5, 1.5]]), "u": torch.full((1, 1, 2), 0.5)}),
            BadInput("u of 3 columns for 2 tokens", {"probs": good, "u": torch.full((2, 1, 3), 0.5)}),
        ],
        name="exponential_race",
    )
    count += expect_bad_inputs_refused(
        sub.build_alias,
        [
            BadInput("probs with an inf", {"probs": torch.tensor([[inf, 1.0]])}),
            BadInput("a row of zeros", {"probs": torch.tensor([[0.0, 0.0]])}),
        ],
        name="build_alias",
    )
    count += expect_bad_inputs_refused(
        sub.alias_draw,
        [
            BadInput("coin_u = 1", draw(coin_u=with_value(u2, (0, 1), 1.0))),
            BadInput("a float32 accept", draw(accept=accept.float())),
            BadInput("an accept of 1.5", draw(accept=with_value(accept, (0, 0), 1.5))),
            BadInput("an accept holding NaN", draw(accept=with_value(accept, (0, 0), nan))),
            BadInput("an int32 alias", draw(alias=alias.to(torch.int32))),
            BadInput("an alias of shape [2, 3]", draw(alias=torch.tensor([[1, 1, 0], [0, 1, 1]]))),
            BadInput("an alias id of 2 for V = 2 on a cell with accept 0.5", draw(alias=with_value(alias, (0, 0), 2))),
            BadInput(
                "an alias id of -1 on a cell with accept 1",
                draw(alias=with_value(alias, (1, 0), -1)),
                diagnosis=MISTAKES["alias_range_where_used"],
            ),
            BadInput("column_u holding NaN", draw(column_u=with_value(u2, (0, 0), nan))),
        ],
        name="alias_draw",
    )
    count += expect_bad_inputs_refused(
        sub.sample,
        [
            BadInput("num_samples = 0", {"probs": good, "num_samples": 0, "method": "alias"}),
            BadInput(
                "a negative probability",
                {"probs": torch.tensor([[-0.5, 1.5]]), "num_samples": 3, "method": "inverse_cdf"},
            ),
            BadInput(
                "num_samples = 2.5",
                {"probs": good, "num_samples": 2.5, "method": "race"},
                diagnosis=MISTAKES["num_samples_not_int"],
            ),
            BadInput(
                "num_samples = '3'",
                {"probs": good, "num_samples": "3", "method": "gumbel"},
                diagnosis=MISTAKES["num_samples_not_int"],
            ),
            BadInput(
                "method = 'multinomial'",
                {"probs": good, "num_samples": 3, "method": "multinomial"},
                diagnosis=MISTAKES["unknown_method_accepted"],
            ),
        ],
        extra=lambda: {"generator": ctx.generator()},
        name="sample",
    )
    return count
