"""The checks of exercise 40, shared by the public, tiny and hidden suites.

Public on purpose: they hold rules, not answers. Expected tokens, targets and what each known
mistake returns come from the caller (the hidden oracle, or values frozen in ``tiny.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import torch

from judge.checks import (
    BadInput,
    expect,
    expect_bad_inputs_refused,
    expect_distribution,
    expect_generator_contract,
    expect_independent_rows,
    expect_independent_within_row,
    expect_support,
    expect_tensor,
    expect_tokens_in_range,
    rule,
)
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


def _matching(actual: torch.Tensor, mistaken: Mistaken) -> str | None:
    table = mistaken() if callable(mistaken) else (mistaken or {})
    for diagnosis, variants in table.items():
        for tokens in variants if isinstance(variants, (tuple, list)) else (variants,):
            if tokens.shape == actual.shape and torch.equal(tokens.to(torch.int64), actual):
                return diagnosis
    return None


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
    mistake whose output equals the learner's whole output is the diagnosis; failing that,
    ``diagnose(draws)`` (if given) may name one.
    """
    draws = expect_tensor(value, name=name, shape=tuple(expected.shape), dtype=torch.int64, device=ctx.device)
    if torch.equal(draws, expected):
        return draws
    diagnosis = _matching(draws, mistaken)
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


def check_sample(
    sub,
    ctx,
    method: str,
    probs: torch.Tensor,
    n: int,
    *,
    fit_rows: list[int],
    pair_row: int | None,
    twin_rows: tuple[int, int],
    alternatives: Callable[[], Mapping[str, torch.Tensor]] | None = None,
    why_zero: str = "its probability is 0",
) -> None:
    """``sample`` on ``probs`` (float [B, V]; rows ``twin_rows`` identical): support, no row repeating one
    draw, a fit per row of ``fit_rows``, pairs within ``pair_row`` (if not None), independence of the
    twins. Spends ``len(fit_rows)`` fits, one ``pairs`` (none without ``pair_row``) and one ``independence``."""
    target = probs.to(torch.float64) / probs.to(torch.float64).sum(dim=1, keepdim=True)
    label = f"sample(method={method!r})"
    draws = draws_of(sub, ctx, probs, n, method, ctx.generator())

    def row_alternatives(row: int) -> dict:
        return {diagnosis: wrong[row] for diagnosis, wrong in alternatives().items()} if alternatives else {}

    expect_support(draws, target, what=label, why_excluded=lambda row, token: why_zero, alternatives=alternatives)
    repeated = (draws == draws[:, :1]).all(dim=1) & ((target**2).sum(dim=1) < 0.9)
    if repeated.any():
        row = int(repeated.nonzero()[0])
        expect(
            False,
            f"{label}: all {n} draws of row {row} are token {int(draws[row, 0])}; each draw needs its own noise",
            diagnosis=MISTAKES["noise_reused_across_draws"],
            rule=rule(label, "every draw of a row is the same token", "一行的所有抽样都是同一个 token", row=row),
        )
    public = Bilingual(f"{label}, consecutive draws of one row", f"{label}，同一行的相邻抽样")
    for row in fit_rows:
        expect_distribution(
            ctx,
            draws[row],
            target[row],
            label=f"{label}, row {row}",
            public=Bilingual(f"{label}, row {row}", f"{label}，第 {row} 行"),
            alternatives=lambda row=row: row_alternatives(row),
        )
    if pair_row is not None:
        expect_independent_within_row(
            ctx, draws[pair_row], target[pair_row], label=f"{label}, row {pair_row}", public=public
        )
    first, second = twin_rows
    expect_independent_rows(
        ctx,
        draws[first],
        draws[second],
        target[first],
        label=f"{label}, rows {first} and {second} (identical inputs)",
        public=Bilingual(f"{label}, two identical rows", f"{label}，两行输入相同"),
    )


def check_extremes(
    sub, ctx, method: str, probs: torch.Tensor, n: int, seed: int, why_zero: str = "its probability is 0"
) -> None:
    """``sample`` while torch.rand returns exactly 0.0 and the largest float below 1 at times:
    every draw stays in [0, V) and off the zero-probability tokens. No budget."""
    target = probs.to(torch.float64) / probs.to(torch.float64).sum(dim=1, keepdim=True)
    extreme = sub.with_extreme_uniforms(seed)
    value = extreme.sample(probs, n, method, generator=ctx.generator())
    label = f"sample(method={method!r}) fed extreme uniforms (exactly 0.0 and the largest float below 1)"
    draws = expect_tensor(
        value, name=f"sample(method={method!r})", shape=(probs.shape[0], n), dtype=torch.int64, device=ctx.device
    )
    expect_tokens_in_range(draws, probs.shape[1], what=label)
    expect_support(draws, target, what=label, why_excluded=lambda row, token: why_zero)


def check_seeds(sub, ctx, method: str, probs: torch.Tensor, n: int, *, positions: int | None = None) -> None:
    """The generator contract of ``sample``: the generator decides the draws and advances from one call to
    the next, torch's global generator is left alone when one is given, and without one torch's default
    generator decides (4 ``seeds``); with ``positions`` (a number of draws per row), each row's draws
    also fit its own target with the batch's rows in another order (one ``fit`` per row of ``probs``):
    what ``generator_contract_budget(probs, positions=...)`` says."""
    target = probs.to(torch.float64) / probs.to(torch.float64).sum(dim=1, keepdim=True)

    def draw(source, generator, rows=None):
        if rows is None:
            return draws_of(source, ctx, probs, n, method, generator)
        return draws_of(source, ctx, probs[rows], positions, method, generator)

    expect_generator_contract(
        sub, ctx, draw, target, label=f"sample(method={method!r})", positions=positions is not None
    )


def check_bad_inputs(sub, ctx) -> int:
    """Bad inputs of every function raise ValueError (no budget)."""
    good = torch.tensor([[0.25, 0.75], [0.5, 0.5]])
    u2 = torch.tensor([[0.1, 0.2], [0.3, 0.4]])
    u3 = torch.full((2, 1, 2), 0.5)
    table = (torch.tensor([[0.5, 1.0], [1.0, 1.0]], dtype=torch.float64), torch.tensor([[1, 1], [0, 1]]))
    count = expect_bad_inputs_refused(
        sub.inverse_cdf,
        [
            BadInput(
                "probs with a negative entry", {"probs": torch.tensor([[-0.25, 1.25]]), "u": torch.tensor([[0.5]])}
            ),
            BadInput("probs holding NaN", {"probs": torch.tensor([[float("nan"), 1.0]]), "u": torch.tensor([[0.5]])}),
            BadInput("a row of zeros", {"probs": torch.tensor([[0.5, 0.5], [0.0, 0.0]]), "u": u2}),
            BadInput("1-D probs", {"probs": torch.tensor([0.5, 0.5]), "u": torch.tensor([0.5])}),
            BadInput("u = 1", {"probs": good, "u": torch.tensor([[0.1, 1.0], [0.3, 0.4]])}),
            BadInput("a negative u", {"probs": good, "u": torch.tensor([[0.1, -0.5], [0.3, 0.4]])}),
            BadInput("u with 3 rows for 2", {"probs": good, "u": torch.zeros(3, 2)}),
        ],
        name="inverse_cdf",
    )
    count += expect_bad_inputs_refused(
        sub.gumbel_max,
        [
            BadInput(
                "logits holding NaN", {"logits": torch.tensor([[0.0, float("nan")]]), "u": torch.full((1, 1, 2), 0.5)}
            ),
            BadInput("a row of -inf logits", {"logits": torch.tensor([[0.0, 1.0], [float("-inf")] * 2]), "u": u3}),
            BadInput("u of shape [B, n] (must be [B, n, V])", {"logits": torch.zeros(2, 2), "u": u2}),
            BadInput("u = 1", {"logits": torch.zeros(2, 2), "u": torch.ones(2, 1, 2)}),
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
            BadInput("probs with an inf", {"probs": torch.tensor([[float("inf"), 1.0]])}),
            BadInput("a row of zeros", {"probs": torch.tensor([[0.0, 0.0]])}),
        ],
        name="build_alias",
    )
    count += expect_bad_inputs_refused(
        sub.alias_draw,
        [
            BadInput(
                "coin_u = 1",
                {
                    "accept": table[0],
                    "alias": table[1],
                    "column_u": u2,
                    "coin_u": torch.tensor([[0.1, 1.0], [0.3, 0.4]]),
                },
            ),
            BadInput(
                "an alias id of 2 for V = 2",
                {"accept": table[0], "alias": torch.tensor([[2, 1], [0, 1]]), "column_u": u2, "coin_u": u2},
            ),
        ],
        name="alias_draw",
    )
    count += expect_bad_inputs_refused(
        sub.sample,
        [
            BadInput("num_samples = 0", {"probs": good, "num_samples": 0, "method": "alias"}),
            BadInput("method = 'multinomial'", {"probs": good, "num_samples": 3, "method": "multinomial"}),
            BadInput(
                "a negative probability",
                {"probs": torch.tensor([[-0.5, 1.5]]), "num_samples": 3, "method": "inverse_cdf"},
            ),
        ],
        extra=lambda: {"generator": ctx.generator()},
        name="sample",
    )
    return count
