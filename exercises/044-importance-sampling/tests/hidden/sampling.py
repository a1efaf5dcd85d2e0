"""sample_estimate's legal corners, drawn under the case's seed as readable rows (:mod:`..public.readable44`):
every one must return normally, and every estimate and standard error fit its draws. (The extremes, the law
of the draws and the generator contract are in :mod:`..public.draws44`, shared with the tiny suite.)
"""

from __future__ import annotations

import random

import torch

from judge.checks.base import fail, rule
from judge.checks.evidence import Evidence
from judge.i18n import Bilingual
from judge.learner.interface import LearnerRaised

from ..public import readable44 as readable
from ..public.diagnoses import MISTAKES
from ..public.readable44 import ESTIMATE, ReadableRows, off_by_ulps, random_row, readable_rows

# --- the legal corners ---------------------------------------------------------------------------------


def corners(rng: random.Random) -> list[tuple[str, ReadableRows]]:
    """(kind, rows) of every legal corner, the plain rows first: kind ``zeros`` says the corner is about
    zeros (a ValueError there names :data:`MISTAKES` ``rejects_zero_probabilities``)."""
    out: list[tuple[str, ReadableRows]] = []

    def add(kind: str, en: str, zh: str, q_rows, p_rows, *, n: int, dtype: torch.dtype, cap=None) -> None:
        out.append((kind, readable_rows(q_rows, p_rows, n=n, dtype=dtype, cap=cap, rng=rng, public=Bilingual(en, zh))))

    def rows(count: int, size: int, **where):
        made = [random_row(rng, size, **where) for _ in range(count)]
        return [m[0] for m in made], [m[1] for m in made]

    dtype = rng.choice((torch.float32, torch.float64))
    q, p = rows(3, 4)
    add("plain", "3 rows of 4 outcomes", "3 行，每行 4 个结果", q, p, n=4, dtype=dtype)
    q, p = rows(3, 5, zero_p=(rng.randrange(5),))
    add("zeros", "p = 0 where q > 0", "q > 0 处 p = 0", q, p, n=4, dtype=dtype)
    made = [random_row(rng, 5, zero_q=(at,)) for at in (0, 4, rng.randrange(1, 4))]
    add(
        "zeros",
        "p = q = 0 on the first, the last and a middle outcome",
        "第一个、最后一个和中间某个结果上 p = q = 0",
        [m[0] for m in made],
        [m[1] for m in made],
        n=4,
        dtype=torch.float64 if dtype == torch.float32 else torch.float32,
    )
    made = [random_row(rng, 5, zero_q=(0, 4), tiny=(1,)), random_row(rng, 5, zero_q=(2,), tiny=(3,))]
    add(
        "zeros",
        "probabilities of 1e-25 next to exact zeros",
        "紧挨着精确 0 的 1e-25 概率",
        [m[0] for m in made],
        [m[1] for m in made],
        n=3,
        dtype=rng.choice((torch.float32, torch.float64)),
    )
    add("plain", "V = 1", "V = 1", [[1.0], [1.0]], [[1.0], [1.0]], n=3, dtype=dtype)
    q, p = rows(1, 4)
    add("plain", "a batch of one row", "只有一行的批", q, p, n=4, dtype=dtype)
    q, p = rows(3, 4)
    add("plain", "n = 2", "n = 2", q, p, n=2, dtype=dtype)
    q, p = rows(3, 4)
    add(
        "plain",
        "rows summing to a few units of rounding more or less than 1",
        "各行之和比 1 多或少几个舍入单位",
        [off_by_ulps(r, dtype, u) for r, u in zip(q, (-3, 2, -1), strict=True)],
        [off_by_ulps(r, dtype, u) for r, u in zip(p, (1, -2, 3), strict=True)],
        n=4,
        dtype=dtype,
    )
    q, p = rows(3, 4)
    add("plain", "cap = 2 (an int)", "cap = 2（int）", q, p, n=4, dtype=dtype, cap=2)
    q, p = rows(3, 4)
    as_dtype = [[float(torch.tensor(a, dtype=torch.float64).to(dtype)) for a in r] for r in (p[0], q[0])]
    tie = float(torch.tensor(as_dtype[0][1], dtype=dtype) / torch.tensor(as_dtype[1][1], dtype=dtype))
    add("plain", "a cap equal to a weight", "恰好等于某个权重的 cap", q, p, n=4, dtype=dtype, cap=tie)
    q, p = rows(3, 4)
    add("plain", "cap = 2^-30", "cap = 2^-30", q, p, n=4, dtype=dtype, cap=2.0**-30)
    q, p = rows(3, 4)
    add(
        "plain",
        "a cap near float32's largest value",
        "接近 float32 最大值的 cap",
        q,
        p,
        n=4,
        dtype=torch.float32,
        cap=1e38,
    )
    return out


def check_corners(sub, ctx) -> int:
    """Every legal corner returns normally and every row's estimate and standard error fit its draws."""
    rng = random.Random(ctx.fresh_seed("sample_estimate corners"))
    made = corners(rng)
    for kind, rows in made:
        call = f"{ESTIMATE}() with {rows.public}"
        public = Bilingual(call, f"{ESTIMATE}() 收到{rows.public.zh}时")
        try:
            value = sub.sample_estimate(**rows.kwargs(), generator=ctx.generator())
        except LearnerRaised as raised:
            if raised.memory or raised.not_implemented:
                raise
            named = None
            if kind == "zeros" and raised.derives_from(ValueError):
                named = MISTAKES["rejects_zero_probabilities"]  # a refusal of zeros, the plain rows passed
            fail(
                f"{call} must return normally: the statement allows it; it raised {raised.described()}: "
                f"{raised.message}\n{raised.traceback.strip()}".rstrip(),
                diagnosis=named,
                rule=rule(public, "raised an exception on an input the statement allows", "对题面允许的输入抛出了异常"),
                kind=Evidence.RAISED,
            )
        readable.check_readable(ctx, rows, value, what=call, public=public)
    return len(made)


# --- every uniform source at its extremes ----------------------------------------------------------------
