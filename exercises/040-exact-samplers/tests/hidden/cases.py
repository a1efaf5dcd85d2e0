"""The inputs of exercise 40's hidden tests, generated under each case's seed, with their exact answers.

Every builder takes a :class:`random.Random` (``random.Random(ctx.fresh_seed(...))`` in a test: another
master seed, other instances) and returns the inputs turned into float32 or float64 tensors. Every
decision is verified against the oracle's margins when a case is built (a candidate that misses them
is drawn again), except the designed boundaries: steps of F exact in float64 (weights that are
multiples of 2^-40, rows summing to a power of two) with u on them or on their float32 rounding,
u = 0, the largest float below 1, subnormal uniforms, draws whose tied tokens get bitwise equal
noise, cell edges of the alias column and coins of 0 or equal to ``accept``. Each builder also checks
that its case still catches the mistakes it is there for (``Unlucky`` otherwise, and it draws again).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from ..public.checks40 import MATCHED_DRAWS
from ..public.diagnoses import MISTAKES
from . import oracle

TOP32 = 1.0 - 2.0**-24  # the largest float32 below 1
TOP64 = 1.0 - 2.0**-53  # the largest float64 below 1
NEG_INF = float("-inf")
TINY = {torch.float32: torch.finfo(torch.float32).tiny, torch.float64: torch.finfo(torch.float64).tiny}
TOP = {torch.float32: TOP32, torch.float64: TOP64}
TRIES = 200  # candidates drawn for one case before the builder gives up (a bug of the builder)


class Unlucky(ValueError):
    """A candidate case does not catch a mistake it is built to catch: draw another."""


@dataclass
class Case:
    """One noise-form call: its keyword arguments, the exact tokens, and each mistake's tokens."""

    kwargs: dict
    expected: torch.Tensor
    mistaken: dict = field(default_factory=dict)  # diagnosis -> int64 tokens (a tuple: several forms)

    def arguments(self) -> dict:
        return {
            name: value.clone() if isinstance(value, torch.Tensor) else value for name, value in self.kwargs.items()
        }


def retried(build: Callable[[random.Random], Case], rng: random.Random) -> Case:
    """``build(rng)`` until a candidate keeps its margins and catches its mistakes."""
    for _ in range(TRIES):
        try:
            return build(rng)
        except (oracle.AmbiguousCase, Unlucky):
            continue
    raise RuntimeError(f"{build.__name__}: no case in {TRIES} candidates (a bug of the case builder)")


def _differing(variants: list[torch.Tensor], expected: torch.Tensor) -> tuple[torch.Tensor, ...]:
    out = []
    for tokens in variants:
        if not torch.equal(tokens, expected) and all(not torch.equal(tokens, seen) for seen in out):
            out.append(tokens)
    return tuple(out)


def _mistaken(variants_of: Callable[[str], list[torch.Tensor]], expected: torch.Tensor, names: list[str]) -> dict:
    """Diagnosis -> the forms of each mistake that differ from ``expected`` (one tensor, or a tuple)."""
    out = {}
    for name in names:
        forms = _differing(variants_of(name), expected)
        if forms:
            out[MISTAKES[name]] = forms[0] if len(forms) == 1 else forms
    return out


def _named(tokens: torch.Tensor, expected: torch.Tensor) -> bool:
    """``tokens`` differ from the answer at enough draws for a whole-output match to name a mistake."""
    return int((tokens != expected).sum()) >= MATCHED_DRAWS


def _catches(case: Case, *names: str) -> None:
    """Some form of each named mistake differs from the answer at ``MATCHED_DRAWS`` draws or more, so
    that it is caught and can be named (else ``Unlucky``)."""
    for name in names:
        forms = case.mistaken.get(MISTAKES[name], ())
        forms = forms if isinstance(forms, tuple) else (forms,)
        if not any(_named(form, case.expected) for form in forms):
            raise Unlucky(f"the case does not catch {name} at {MATCHED_DRAWS} draws")


def _f32(value: float) -> float:
    return float(torch.tensor(value, dtype=torch.float32))


def _below(value: float, dtype: torch.dtype) -> float:
    """The largest value of ``dtype`` below ``value``."""
    return float(torch.nextafter(torch.tensor(value, dtype=dtype), torch.tensor(-1.0, dtype=dtype)))


def _margin_uniform(rng: random.Random, steps: list[float], dtype: torch.dtype) -> float:
    while True:
        value = float(torch.tensor(rng.random(), dtype=dtype))
        if value < 1.0 and all(abs(value - s) >= oracle.CDF_MARGIN for s in steps):
            return value


def _subnormal(rng: random.Random, dtype: torch.dtype, largest: float = 0.9) -> float:
    """A random positive subnormal number of ``dtype`` (above 0, below ``largest`` times tiny)."""
    tiny = TINY[dtype]
    value = float(torch.tensor(tiny * rng.uniform(1e-6, largest), dtype=dtype))
    return value if 0.0 < value < tiny else float(torch.tensor(tiny / 4, dtype=dtype))


# --- inverse CDF ----------------------------------------------------------------------------------

CDF_MISTAKES = [
    "cdf_off_by_one",
    "sorted_not_mapped_back",
    "float32_cumsum_short",
    "float32_cumsum_clamped",
    "float32_cumsum_normalised",
    "normalised_cumsum",
    "normalised_cumsum_clamped",
]


def _cdf_case(probs: torch.Tensor, u: torch.Tensor, exact_rows: set[int] = frozenset()) -> Case:
    oracle.check_cdf_margins(probs, u, exact_rows)
    expected = oracle.inverse_cdf(probs, u)
    mistaken = _mistaken(lambda name: oracle.inverse_cdf_variants(probs, u, name), expected, CDF_MISTAKES)
    return Case({"probs": probs, "u": u}, expected, mistaken)


def _zero_layout(rng: random.Random, vocab: int, positives: int) -> list[bool]:
    """Which tokens are positive: ``positives`` of ``vocab``, with zeros first, inside or last at random."""
    layout = [True] * positives + [False] * (vocab - positives)
    rng.shuffle(layout)
    return layout


def _composition(rng: random.Random, total: int, parts: int, largest: int) -> list[int]:
    """``parts`` positive ints summing to ``total``, each below ``largest``."""
    while True:
        cuts = sorted(rng.sample(range(1, total), parts - 1))
        values = [b - a for a, b in zip([0, *cuts], [*cuts, total], strict=True)]
        if max(values) < largest:
            return values


def _exact_rows(rng: random.Random, vocab: int) -> list[list[float]]:
    """Rows whose steps are exact in float64 in every order: three of multiples of 2^-5 (exact in
    float32 too) and three of multiples of 2^-26 with each weight below 2^-2 (exact in float32 as
    weights, not as partial sums), each row summing to 1 with zeros at the start, inside or the end."""
    rows = []
    for fine in (False, False, False, True, True, True):
        positives = rng.randint(5 if fine else 2, vocab - 1)
        scale, total = (2**26, 2**26) if fine else (32, 32)
        parts = _composition(rng, total, positives, 2**24 if fine else total)
        values = iter(p / scale for p in parts)
        rows.append([next(values) if keep else 0.0 for keep in _zero_layout(rng, vocab, positives)])
    return rows


def cdf_steps(rng: random.Random) -> tuple[Case, Case]:
    """Exact steps: u = 0, u on every step (as float64), u on each step's float32 rounding, the largest
    float32 and float64 below 1. The first call has float64 u; the second the same rows with float32 u
    (the float32 roundings, 0 and 1 - 2^-24). Both must catch a CDF accumulated in float32."""

    def build(rng: random.Random) -> tuple[Case, Case]:
        vocab = rng.randint(7, 9)
        rows = _exact_rows(rng, vocab)
        probs = torch.tensor(rows, dtype=torch.float32)
        if not oracle.exact_steps(probs):
            raise AssertionError("the exact rows are not exact")
        steps = oracle.cdf(probs)
        wide, narrow = [], []
        for r in range(len(rows)):
            inner = sorted({float(s) for s in steps[r] if s < 1.0})
            rounded = sorted({_f32(s) for s in inner} - {1.0})
            wide.append([0.0, TOP32, TOP64, *inner, *rounded])
            narrow.append([0.0, TOP32, *rounded])
        for values, dtype in ((wide, torch.float64), (narrow, torch.float32)):
            width = max(len(v) for v in values) + 2
            for r, row in enumerate(values):
                while len(row) < width:
                    row.append(_margin_uniform(rng, steps[r].tolist(), dtype))
                rng.shuffle(row)
        every = set(range(len(rows)))
        first = _cdf_case(probs, torch.tensor(wide, dtype=torch.float64), every)
        second = _cdf_case(probs, torch.tensor(narrow, dtype=torch.float32), every)
        _catches(first, "cdf_off_by_one", "float32_cumsum_normalised")
        _catches(second, "float32_cumsum_normalised")
        return first, second

    for _ in range(TRIES):
        try:
            return build(rng)
        except (oracle.AmbiguousCase, Unlucky):
            continue
    raise RuntimeError("cdf_steps: no case")


def cdf_short(rng: random.Random) -> Case:
    """float32 rows whose entries add up to less than 1 - 2^-24 (in float32 and exactly), ending with one
    or two zero-probability tokens; u = 1 - 2^-24 lies above a cumulative sum that is not normalised."""

    def build(rng: random.Random) -> Case:
        vocab = rng.randint(5, 8)
        rows = []
        while len(rows) < 4:
            trailing = rng.randint(1, 2)
            raw = [rng.uniform(0.05, 1.0) for _ in range(vocab - trailing)]
            row = (torch.tensor(raw, dtype=torch.float32) / torch.tensor(sum(raw), dtype=torch.float32)).tolist()
            if rng.random() < 0.3:
                row[rng.randrange(len(row) - 1)] = 0.0
            summed = float(torch.tensor(row, dtype=torch.float32).cumsum(0)[-1])
            if 0.0 < summed < TOP32 and math.fsum(row) < TOP32:
                rows.append(row + [0.0] * trailing)
        probs = torch.tensor(rows, dtype=torch.float32)
        steps = oracle.cdf(probs)
        us = [[TOP32, *(_margin_uniform(rng, steps[r].tolist(), torch.float32) for _ in range(5))] for r in range(4)]
        for row in us:
            rng.shuffle(row)
        case = _cdf_case(probs, torch.tensor(us, dtype=torch.float32))
        _catches(case, "float32_cumsum_short", "float32_cumsum_clamped")
        return case

    return retried(build, rng)


def _weight_row(rng: random.Random, vocab: int) -> list[float]:
    """Random weights (not summing to 1; integers, non-dyadic reals, or a tiny one next to zeros), with
    one to three zero-probability tokens at the end and perhaps one inside."""
    trailing = rng.randint(1, 3)
    kind = rng.choice(("integers", "reals", "reals", "tiny"))
    if kind == "integers":
        row = [float(rng.randint(1, 9)) for _ in range(vocab - trailing)]
    else:
        row = [rng.expovariate(1.0) * rng.choice((1.0, 7.0, 0.01)) for _ in range(vocab - trailing)]
    if kind == "tiny" and len(row) >= 3:
        at = rng.randrange(1, len(row) - 1)
        row[at - 1], row[at] = 0.0, 1e-25
    elif rng.random() < 0.4 and len(row) >= 3:
        row[rng.randrange(len(row) - 1)] = 0.0
    return row + [0.0] * trailing


def cdf_sums(rng: random.Random) -> tuple[Case, Case]:
    """Weights whose sum() (torch's reduction order, in float64 or in the dtype of probs) differs from the
    last cumulative sum, ending in zeros: float64 rows with float64 u, then float32 rows with float64 u.
    u = 1 - 2^-53 and 1 - 2^-24 catch every F normalised by a sum other than its own last entry."""

    def build(dtype: torch.dtype) -> Callable[[random.Random], Case]:
        def one(rng: random.Random) -> Case:
            vocab = rng.randint(10, 20)
            probs = torch.tensor([_weight_row(rng, vocab) for _ in range(8)], dtype=dtype)
            steps = oracle.cdf(probs)
            us = []
            for r in range(probs.shape[0]):
                row = [TOP64, TOP32, 0.0, *(_margin_uniform(rng, steps[r].tolist(), torch.float64) for _ in range(5))]
                rng.shuffle(row)
                us.append(row)
            case = _cdf_case(probs, torch.tensor(us, dtype=torch.float64))
            # The forms with a float64 sum (0, 1) and with a sum in probs' dtype (2, 3): float32 rows need
            # only the latter (the float64 sum of float32 weights is often exact, the same as C(V - 1)).
            wanted = (0, 1, 2, 3) if dtype == torch.float64 else (2, 3)
            # ... and none may coincide with a float32 CDF on the whole case, or neither could be named.
            float32 = oracle.inverse_cdf_variants(probs, case.kwargs["u"], "float32_cumsum_normalised")
            for name in ("normalised_cumsum", "normalised_cumsum_clamped"):
                forms = oracle.inverse_cdf_variants(probs, case.kwargs["u"], name)
                if not all(_named(forms[k], case.expected) for k in wanted):
                    raise Unlucky(f"a form of {name} passes, or differs at one draw only")
                wrong = [f for f in forms if not torch.equal(f, case.expected)]
                if any(torch.equal(form, other) for form in wrong for other in float32):
                    raise Unlucky(f"a form of {name} is a float32 CDF's answer too")
            return case

        one.__name__ = f"cdf_sums_{dtype}"
        return one

    return retried(build(torch.float64), rng), retried(build(torch.float32), rng)


def cdf_subnormal(rng: random.Random) -> tuple[Case, Case]:
    """float64 rows whose positive weights are subnormal between exact zeros (token 0 always a zero),
    with float64 u, then float32 u: u = 0, the largest float below 1, and random u, most above 0.9.
    Comparing C(x) with u * C(V-1) instead of dividing first rounds the product up to C(V-1) itself
    there (a row of one or two 5e-324 weights: every u above 1/2, or 5/6). Only the support is judged
    (``expected`` is the exact answer, for messages); ``mistaken`` holds that comparison's tokens."""
    vocab, draws = 6, 24
    rows = []
    for choices in ((5e-324, 1e-323), (5e-324, 1e-323, 1e-322), (1e-320, 1e-315, 1e-310)):
        values = [0.0] * vocab
        for token in rng.sample(range(1, vocab), rng.randint(1, 3)):
            values[token] = rng.choice(choices)
        rows.append(values)
    probs = torch.tensor(rows, dtype=torch.float64)
    out = []
    for dtype in (torch.float64, torch.float32):
        values = [[rng.uniform(0.9, 1.0) if rng.random() < 0.75 else rng.random() for _ in range(draws)] for _ in rows]
        u = torch.tensor(values, dtype=dtype).clamp(max=TOP[dtype])
        u[:, 0] = 0.0
        u[:, 1] = TOP[dtype]
        expected = oracle.inverse_cdf(probs, u)
        case = Case(
            {"probs": probs, "u": u},
            expected,
            _mistaken(lambda name, u=u: oracle.inverse_cdf_variants(probs, u, name), expected, ["cdf_scaled_compare"]),
        )
        _catches(case, "cdf_scaled_compare")  # row 0 alone: every u above 5/6 runs past the end
        out.append(case)
    return out[0], out[1]


def cdf_random(rng: random.Random) -> tuple[Case, Case]:
    """Eight random float32 rows of 40 tokens (a fifth of them 0) with 32 float32 uniforms each, then four
    such rows in float64 with float32 uniforms and four in float32 with float64 uniforms."""

    def rows(rng: random.Random, count: int) -> list[list[float]]:
        return [[0.0 if rng.random() < 0.2 else rng.expovariate(1.0) for _ in range(40)] for _ in range(count)]

    def build_plain(rng: random.Random) -> Case:
        probs = torch.tensor(rows(rng, 8), dtype=torch.float32)
        steps = oracle.cdf(probs)
        u = [[_margin_uniform(rng, steps[r].tolist(), torch.float32) for _ in range(32)] for r in range(8)]
        return _cdf_case(probs, torch.tensor(u, dtype=torch.float32))

    def build_mixed(rng: random.Random) -> Case:
        probs_dtype, u_dtype = rng.choice(((torch.float64, torch.float32), (torch.float32, torch.float64)))
        probs = torch.tensor(rows(rng, 4), dtype=probs_dtype)
        steps = oracle.cdf(probs)
        u = []
        for r in range(4):
            row = [0.0, TOP[u_dtype], *(_margin_uniform(rng, steps[r].tolist(), u_dtype) for _ in range(14))]
            rng.shuffle(row)
            u.append(row)
        return _cdf_case(probs, torch.tensor(u, dtype=u_dtype))

    return retried(build_plain, rng), retried(build_mixed, rng)


# --- Gumbel-max and the exponential race -----------------------------------------------------------

GUMBEL_MISTAKES = ["gumbel_wrong_sign", "gumbel_on_probs", "log_zero_at_u0", "ties_not_first"]
RACE_MISTAKES = ["race_multiplies", "race_argmin", "log_zero_at_u0", "race_one_minus_u", "ties_not_first"]
# Designed draws: a zero (or subnormal) uniform on the best token, whose score beats (or loses to) the
# runner-up's by this much in log space: any clamp other than max(u, tiny of u's dtype) flips one of them.
CLAMP_GAP = 2e-3


def _clamp_mistaken(function, args: tuple, u: torch.Tensor, expected: torch.Tensor) -> dict:
    """``clamp_not_tiny``: the tokens under each wrong floor (or the zeros-only clamp) that differ."""
    forms = _differing([function(*args, floor=floor) for floor in oracle.wrong_floors(u.dtype)], expected)
    return {MISTAKES["clamp_not_tiny"]: forms} if forms else {}


def _every_floor_caught(function, args: tuple, u: torch.Tensor, expected: torch.Tensor) -> None:
    """Each wrong floor, and the zeros-only clamp, changes ``MATCHED_DRAWS`` tokens or more (else ``Unlucky``)."""
    for floor in oracle.wrong_floors(u.dtype):
        if not _named(function(*args, floor=floor), expected):
            raise Unlucky(f"a clamp of u to {floor} passes, or changes one draw only")


def _gumbel_log_scores(logits, u):
    return oracle.gumbel_scores(logits, u)


def _race_log_scores(probs, u):
    return oracle.race_log_scores(probs, u)


def _designed_clamp_draws(
    rng: random.Random, u: torch.Tensor, base: torch.Tensor, log_base: torch.Tensor, score
) -> int:
    """Overwrite draws 1 to 4 of each row: every uniform 0 (draws 1, 2) or subnormal (draws 3, 4) but
    the runner-up's, set so that its score is CLAMP_GAP above (draws 1, 3) or below (draws 2, 4) the
    best token's score at u = tiny. Draws that miss the margins keep their random uniforms. Returns
    how many were designed."""
    dtype = u.dtype
    zero_noise = -math.log(-math.log(TINY[dtype]))
    designed = 0
    for row in range(u.shape[0]):
        finite = [(v, t) for t, v in enumerate(log_base[row].tolist()) if math.isfinite(v)]
        if len(finite) < 2:
            continue
        (best, _), (second, runner) = sorted(finite, key=lambda pair: (-pair[0], pair[1]))[:2]
        for draw, gap, subnormal in (
            (1, CLAMP_GAP, False),
            (2, -CLAMP_GAP, False),
            (3, CLAMP_GAP, True),
            (4, -CLAMP_GAP, True),
        ):
            noise = best + zero_noise + gap - second  # the Gumbel noise the runner-up needs
            candidate = torch.zeros(1, 1, u.shape[2], dtype=dtype)
            if subnormal:
                for token in range(u.shape[2]):
                    candidate[0, 0, token] = _subnormal(rng, dtype, largest=1e-2)  # E 5 % above -log(tiny)
            candidate[0, 0, runner] = math.exp(-math.exp(-noise))
            if not TINY[dtype] <= float(candidate[0, 0, runner]) < 1.0:
                continue
            try:
                oracle.check_score_margins(score(base[row : row + 1], candidate))
            except oracle.AmbiguousCase:
                continue
            u[row, draw] = candidate[0, 0]
            designed += 1
    return designed


def _noise(rng: random.Random, base: torch.Tensor, draws: int, dtype: torch.dtype, score) -> tuple:
    """Uniforms [B, n, V] with margins: draw 0 of each row all 0 (a designed tie), and in the
    others about one value in ten set to 0 or to the largest float below 1. Draws that miss the margins
    are drawn again (all at once, a few rounds)."""
    batch, vocab = base.shape
    top = TOP[dtype]

    def fresh(count: int) -> torch.Tensor:
        values = [[rng.random() for _ in range(vocab)] for _ in range(count)]
        for row in values:
            for token in range(vocab):
                pick = rng.random()
                if pick < 0.05:
                    row[token] = 0.0
                elif pick < 0.1:
                    row[token] = top
        return torch.tensor(values, dtype=dtype)

    u = torch.zeros(batch, draws, vocab, dtype=dtype)
    redo = torch.zeros(batch, draws, dtype=torch.bool)
    redo[:, 1:] = True
    for _ in range(TRIES):
        count = int(redo.sum())
        if count == 0:
            break
        u[redo] = fresh(count)
        top2 = torch.topk(score(base, u), 2, dim=2).values
        redo = (top2[..., 0] - top2[..., 1] < oracle.SCORE_MARGIN) & redo
    else:
        raise oracle.AmbiguousCase("no draws with margins")
    exact = {(row, 0) for row in range(batch)}
    return u, exact


def _logit_rows(rng: random.Random, batch: int, vocab: int) -> list[list[float]]:
    rows = []
    for row in range(batch):
        values = [round(rng.gauss(0.0, 1.5), 2) for _ in range(vocab)]
        if row % 2 == 0:
            values[0] = NEG_INF  # token 0 excluded: a draw of all-zero uniforms must not return it
            values[rng.randrange(1, vocab)] = NEG_INF
        rows.append(values)
    return rows


def _prob_rows(rng: random.Random, batch: int, vocab: int) -> list[list[float]]:
    rows = []
    for row in range(batch):
        values = [rng.expovariate(1.0) for _ in range(vocab)]
        if row % 2 == 0:
            values[0] = 0.0
            values[rng.randrange(1, vocab)] = 0.0
        total = sum(values)
        rows.append([v / total for v in values])
    return rows


def gumbel_case(rng: random.Random, logits_dtype: torch.dtype, u_dtype: torch.dtype) -> Case:
    """Rows of logits (-inf in half of them, token 0 among them) in ``logits_dtype``, uniforms in ``u_dtype``:
    draw 0 of each row all 0, draws 1 to 4 designed against a wrong clamp, the rest random with margins."""

    def build(rng: random.Random) -> Case:
        batch, vocab, draws = (4, 10, 16) if logits_dtype == u_dtype == torch.float32 else (2, 6, 10)
        logits = torch.tensor(_logit_rows(rng, batch, vocab), dtype=logits_dtype)
        u, exact = _noise(rng, logits, draws, u_dtype, _gumbel_log_scores)
        if _designed_clamp_draws(rng, u, logits, logits.to(torch.float64), _gumbel_log_scores) < 2 * batch:
            raise Unlucky("too few draws designed against a wrong clamp")
        oracle.check_score_margins(_gumbel_log_scores(logits, u), exact)
        expected = oracle.gumbel_max(logits, u)
        mistaken = _mistaken(lambda name: [oracle.gumbel_max(logits, u, name)], expected, GUMBEL_MISTAKES)
        mistaken.update(_clamp_mistaken(oracle.gumbel_max, (logits, u), u, expected))
        case = Case({"logits": logits, "u": u}, expected, mistaken)
        _catches(case, "log_zero_at_u0")
        _every_floor_caught(oracle.gumbel_max, (logits, u), u, expected)
        return case

    return retried(build, rng)


def race_case(rng: random.Random, probs_dtype: torch.dtype, u_dtype: torch.dtype) -> Case:
    """The same for the race: rows of probabilities (zeros in half of them, token 0 among them)."""

    def build(rng: random.Random) -> Case:
        batch, vocab, draws = (4, 10, 16) if probs_dtype == u_dtype == torch.float32 else (2, 6, 10)
        probs = torch.tensor(_prob_rows(rng, batch, vocab), dtype=probs_dtype)
        u, exact = _noise(rng, probs, draws, u_dtype, _race_log_scores)
        if _designed_clamp_draws(rng, u, probs, probs.to(torch.float64).log(), _race_log_scores) < 2 * batch:
            raise Unlucky("too few draws designed against a wrong clamp")
        oracle.check_score_margins(_race_log_scores(probs, u), exact)
        expected = oracle.exponential_race(probs, u)
        mistaken = _mistaken(lambda name: [oracle.exponential_race(probs, u, name)], expected, RACE_MISTAKES)
        mistaken.update(_clamp_mistaken(oracle.exponential_race, (probs, u), u, expected))
        case = Case({"probs": probs, "u": u}, expected, mistaken)
        _catches(case, "log_zero_at_u0")
        _every_floor_caught(oracle.exponential_race, (probs, u), u, expected)
        return case

    return retried(build, rng)


def _tied_rows(rng: random.Random, batch: int, vocab: int, *, probabilities: bool) -> tuple[list, list]:
    """Rows whose best value is shared by two or three tokens at random places (the others at least 0.05
    lower in log space); with ``probabilities``, weights (zeros among them), else logits (-inf among them)."""
    rows, tied = [], []
    for _ in range(batch):
        best = rng.uniform(0.5, 2.0) if probabilities else round(rng.gauss(0.0, 1.0), 3)
        places = set(rng.sample(range(vocab), rng.randint(2, 3)))
        row = []
        for token in range(vocab):
            if token in places:
                row.append(best)
            elif rng.random() < 0.25:
                row.append(0.0 if probabilities else NEG_INF)
            else:
                row.append(best * rng.uniform(0.05, 0.9) if probabilities else best - rng.uniform(0.05, 3.0))
        rows.append(row)
        tied.append([token in places for token in range(vocab)])
    return rows, tied


def _tie_draws(rng: random.Random, tied: list[list[bool]], dtype: torch.dtype, draws: int) -> torch.Tensor:
    """Uniforms that give the tied tokens bitwise equal noise, in several ways: every token the same u
    (0, 0.5, the largest float below 1, a random one); the tied tokens one random u and the others
    random; every token a value at or below tiny (0, subnormal, tiny itself: all clamp to tiny)."""
    batch, vocab = len(tied), len(tied[0])
    u = torch.zeros(batch, draws, vocab, dtype=dtype)
    for row in range(batch):
        for draw in range(draws):
            kind = draw % 6
            if kind < 4:
                value = (0.0, 0.5, TOP[dtype], _f32(rng.random()))[kind]
                u[row, draw] = value
            elif kind == 4:  # the others' noise at least 1.3 below the tied tokens'
                shared = _f32(rng.uniform(0.3, 0.95))
                for token in range(vocab):
                    u[row, draw, token] = shared if tied[row][token] else _f32(rng.uniform(0.0, 0.01))
            else:
                for token in range(vocab):
                    u[row, draw, token] = rng.choice((0.0, _subnormal(rng, dtype), TINY[dtype]))
    return u


def ties_case(rng: random.Random, function: str) -> Case:
    """``gumbel_max`` (float32 logits, float32 u) or ``exponential_race`` (float64 probabilities, float64 u)
    on rows whose best value is shared, with draws that give the tied tokens equal noise: ties go to the
    first of them."""
    gumbel = function == "gumbel_max"
    dtype = torch.float32 if gumbel else torch.float64

    def build(rng: random.Random) -> Case:
        rows, tied = _tied_rows(rng, 3, 6, probabilities=not gumbel)
        base = torch.tensor(rows, dtype=dtype)
        u = _tie_draws(rng, tied, dtype, 12)
        score = _gumbel_log_scores if gumbel else _race_log_scores
        oracle.check_tie_margins(score(base, u), torch.tensor(tied))
        exact = oracle.gumbel_max if gumbel else oracle.exponential_race
        expected = exact(base, u)
        mistaken = _mistaken(
            lambda name: [exact(base, u, name)], expected, GUMBEL_MISTAKES if gumbel else RACE_MISTAKES
        )
        mistaken.update(_clamp_mistaken(exact, (base, u), u, expected))
        case = Case({"logits" if gumbel else "probs": base, "u": u}, expected, mistaken)
        _catches(case, "ties_not_first")
        return case

    return retried(build, rng)


def race_tiny(rng: random.Random) -> Case:
    """float64 rows with tiny positive weights (1e-25 to 1e-30) next to exact zeros among ordinary ones,
    and rows made only of such tiny weights and zeros; uniforms with margins (draw 0 all zero)."""

    def build(rng: random.Random) -> Case:
        vocab, draws = 8, 10
        rows = []
        for row in range(4):
            values = [0.0] * vocab
            for token in range(vocab):
                pick = rng.random()
                if pick < 0.3:
                    values[token] = 0.0
                elif pick < 0.6 or row >= 2:
                    values[token] = rng.uniform(1.0, 3.0) * 10.0 ** -rng.randint(25, 30)
                else:
                    values[token] = rng.uniform(0.1, 1.0)
            if not any(values):
                values[rng.randrange(vocab)] = 1e-25
            rows.append(values)
        probs = torch.tensor(rows, dtype=torch.float64)
        u, exact = _noise(rng, probs, draws, torch.float64, _race_log_scores)
        oracle.check_score_margins(_race_log_scores(probs, u), exact)
        expected = oracle.exponential_race(probs, u)
        mistaken = _mistaken(lambda name: [oracle.exponential_race(probs, u, name)], expected, RACE_MISTAKES)
        return Case({"probs": probs, "u": u}, expected, mistaken)

    return retried(build, rng)


def race_subnormal(rng: random.Random) -> Case:
    """float64 rows whose positive weights are subnormal between exact zeros (token 0 always a zero):
    row 0 of the smallest subnormals only (5e-324, 1e-323: p / E underflows to 0 for E above 1 or 2),
    row 1 of those and 1e-322, row 2 deeper in the subnormal range; draw 0 of every row all zero (E =
    708), the rest random. A plain p / E underflows to 0 in most draws of rows 0 and 1. Only the support
    is judged here (``expected`` is the exact answer in log space, for messages)."""
    vocab, draws = 6, 24
    rows = []
    for choices in ((5e-324, 1e-323), (5e-324, 1e-323, 1e-322), (1e-320, 1e-315, 1e-310)):
        values = [0.0] * vocab
        for token in rng.sample(range(1, vocab), rng.randint(1, 3)):
            values[token] = rng.choice(choices)
        rows.append(values)
    probs = torch.tensor(rows, dtype=torch.float64)
    u = torch.tensor(
        [[[rng.random() for _ in range(vocab)] for _ in range(draws)] for _ in range(3)], dtype=torch.float64
    )
    u[:, 0] = 0.0
    return Case({"probs": probs, "u": u}, oracle.exponential_race(probs, u))


# --- the alias method ------------------------------------------------------------------------------

ALIAS_KINDS = (
    "random",
    "uniform",
    "one_hot",
    "dyadic",
    "integers",
    "huge_and_tiny",
    "zero_ends",
    "ratios",
    "tiny_next_to_zero",
    "equal_non_dyadic",
)


def _alias_row(rng: random.Random, kind: str, vocab: int) -> list[float]:
    if kind == "random":
        row = [rng.expovariate(1.0) for _ in range(vocab)]
        for token in rng.sample(range(vocab), 2):
            row[token] = 0.0
        return row
    if kind == "uniform":
        return [1.0] * vocab
    if kind == "one_hot":
        row = [0.0] * vocab
        row[rng.randrange(vocab)] = rng.choice((1.0, 0.3, 7.0))
        return row
    if kind == "dyadic":
        return [2.0 ** -rng.randint(1, 10) for _ in range(vocab)]
    if kind == "integers":
        return [float(rng.choice((0, 1, 2, 3, 5, 7, 8))) or 0.0 for _ in range(vocab - 1)] + [1.0]
    if kind == "huge_and_tiny":
        return [rng.uniform(1.0, 9.0) * 10.0 ** rng.randint(-6, 6) for _ in range(vocab)]
    if kind == "zero_ends":
        return [0.0, *(rng.uniform(0.1, 1.0) for _ in range(vocab - 2)), 0.0]
    if kind == "ratios":  # whole-number ratios of a non-dyadic float: V q is a whole or half number exactly
        base = rng.choice((0.1, 0.3, 0.7, 1.0 / 3.0, 0.2))
        return [base * rng.choice((0, 1, 1, 2, 3)) for _ in range(vocab - 1)] + [base]
    if kind == "tiny_next_to_zero":
        row = [rng.uniform(0.1, 1.0) for _ in range(vocab)]
        for token in rng.sample(range(vocab), 3):
            row[token] = 0.0
        for token in rng.sample([t for t in range(vocab) if row[t] > 0], 2):
            row[token] = rng.uniform(1.0, 9.0) * 1e-26
        return row
    base = rng.choice((0.1, 0.3, 0.7))  # equal_non_dyadic: V q = 1 only up to rounding
    return [base] * vocab


def alias_rows(rng: random.Random) -> torch.Tensor:
    """Rows of 12 tokens of every kind, in random order, float32 or float64: random with zeros, uniform,
    one-hot, dyadic, integer weights, huge and tiny together, a zero at each end, whole-number ratios of
    a non-dyadic float, tiny weights (1e-26) next to zeros, equal non-dyadic weights."""
    kinds = list(ALIAS_KINDS)
    rng.shuffle(kinds)
    rows = [_alias_row(rng, kind, 12) for kind in kinds]
    return torch.tensor(rows, dtype=rng.choice((torch.float32, torch.float64)))


def alias_long_rows(rng: random.Random) -> torch.Tensor:
    """Two float64 rows of 300 tokens (a Zipf-like tail and a fifth of zeros)."""
    zipf = [1.0 / (rank**1.1) for rank in range(1, 301)]
    rng.shuffle(zipf)
    sparse = [0.0 if rng.random() < 0.2 else rng.expovariate(1.0) for _ in range(300)]
    return torch.tensor([zipf, sparse], dtype=torch.float64)


def alias_mistaken(probs: torch.Tensor) -> dict:
    """Diagnosis -> the implied distribution of the table each known build mistake makes."""
    return {
        MISTAKES[name]: oracle.implied(*oracle.build_alias(probs, name))
        for name in ("alias_off_by_one_cell", "alias_unnormalised")
    }


DRAW_MISTAKES = ["alias_coin_le", "alias_swapped", "alias_one_uniform", "alias_column_float32"]


def _edge_uniforms(vocab: int) -> list[float]:
    """float32 uniforms just below a cell edge k / V whose float32 product u V rounds up to k."""
    out = []
    for k in range(1, vocab):
        u = torch.tensor(k / vocab, dtype=torch.float32)
        for _ in range(3):
            u = torch.nextafter(u, torch.tensor(0.0))
            if int((u * vocab).floor()) != int((u.double() * vocab).floor()):
                out.append(float(u))
    return out


# Vocabularies with float32 uniforms just below a cell edge that a float32 product rounds up into it.
EDGE_VOCABS = tuple(v for v in range(8, 41) if _edge_uniforms(v))


def _random_table(rng: random.Random, batch: int, vocab: int) -> tuple[torch.Tensor, torch.Tensor]:
    """A table of any in-range values (not one build_alias need build): accept exactly 0, exactly 1,
    a few dyadic values and random float32 values; alias any token id."""
    accept = [
        [rng.choice((0.0, 1.0, 0.5, 0.25, 0.75, _f32(rng.random()), _f32(rng.random()))) for _ in range(vocab)]
        for _ in range(batch)
    ]
    alias = [[rng.randrange(vocab) for _ in range(vocab)] for _ in range(batch)]
    return torch.tensor(accept, dtype=torch.float64), torch.tensor(alias, dtype=torch.int64)


def _draw_plan(
    rng: random.Random, accept: torch.Tensor, draws: int, column_dtype: torch.dtype, coin_dtype: torch.dtype
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Column and coin uniforms [B, n]: coins of exactly 0 on cells with accept 0, coins equal to accept
    (where the coin's dtype holds it), column uniforms at 0, the largest float below 1 and just below
    cell edges; the rest random with margins. Returns (column_u, coin_u, exact)."""
    batch, vocab = accept.shape
    edges = _edge_uniforms(vocab)
    column_u = torch.zeros(batch, draws, dtype=column_dtype)
    coin_u = torch.zeros(batch, draws, dtype=coin_dtype)
    exact = torch.zeros(batch, draws, dtype=torch.bool)
    for row in range(batch):
        cells = accept[row].tolist()
        plan: list[tuple[float, float, bool]] = []
        for cell, value in enumerate(cells):
            at = (cell + rng.uniform(0.2, 0.8)) / vocab
            if value == 0.0:
                plan.append((at, 0.0, True))
            elif 0.0 < value < 1.0 and float(torch.tensor(value, dtype=coin_dtype)) == value:
                plan.append((at, value, True))
        required = [(column, _f32(rng.uniform(0.1, 0.9)), True) for column in (0.0, TOP[column_dtype])]
        required += [(edge, _f32(rng.uniform(0.1, 0.9)), True) for edge in rng.sample(edges, min(3, len(edges)))]
        rng.shuffle(plan)
        plan = required + plan[: draws - 4 - len(required)]
        while len(plan) < draws:
            cu, co = (
                float(torch.tensor(rng.random(), dtype=column_dtype)),
                float(torch.tensor(rng.random(), dtype=coin_dtype)),
            )
            scaled = cu * vocab
            column = int(scaled)
            if (
                abs(scaled - round(scaled)) >= oracle.COIN_MARGIN * vocab
                and abs(co - cells[column]) >= oracle.COIN_MARGIN
            ):
                plan.append((cu, co, False))
        rng.shuffle(plan)
        for draw, (cu, co, designed) in enumerate(plan):
            column_u[row, draw], coin_u[row, draw], exact[row, draw] = cu, co, designed
            # a designed column may leave its coin near that cell's accept: keep the coin's margin too
            column = int((column_u[row, draw].double() * vocab).floor())
            if designed and co not in (0.0, cells[column]) and abs(co - cells[column]) < oracle.COIN_MARGIN:
                coin_u[row, draw] = 0.5 if abs(0.5 - cells[column]) > 1e-3 else 0.25
    return column_u, coin_u, exact


def alias_draw_cases(rng: random.Random) -> tuple[Case, Case]:
    """Two calls: tables that build_alias makes of random rows (zeros among them) with float32 column
    uniforms and float64 coins (equal to accept on every cell with 0 < accept < 1: a coin rounded to
    float32 misses it); then tables of any in-range values (dyadic and float32 accepts) with float64
    columns and float32 coins. Both hold coins of 0 on empty cells, coins equal to accept, columns at 0,
    at the largest float below 1 and just below cell edges (where a float32 product rounds up)."""

    def build(kind: str) -> Callable[[random.Random], Case]:
        def one(rng: random.Random) -> Case:
            vocab = rng.choice(EDGE_VOCABS)
            if kind == "built":
                rows = _prob_rows(rng, 4, vocab)
                for row in rows:
                    row[rng.randrange(vocab)] = 0.0
                accept, alias = oracle.build_alias(torch.tensor(rows, dtype=torch.float32))
                column_dtype, coin_dtype = torch.float32, torch.float64  # float64 coins equal to any accept
            else:
                accept, alias = _random_table(rng, 4, vocab)
                column_dtype, coin_dtype = torch.float64, torch.float32
            column_u, coin_u, exact = _draw_plan(rng, accept, 24, column_dtype, coin_dtype)
            oracle.check_alias_margins(accept, column_u, coin_u, exact)
            args = (accept, alias, column_u, coin_u)
            expected = oracle.alias_draw(*args)
            mistaken = _mistaken(lambda name: [oracle.alias_draw(*args, name)], expected, DRAW_MISTAKES)
            case = Case({"accept": accept, "alias": alias, "column_u": column_u, "coin_u": coin_u}, expected, mistaken)
            _catches(case, "alias_coin_le", "alias_column_float32")
            return case

        one.__name__ = f"alias_draw_{kind}"
        return one

    return retried(build("built"), rng), retried(build("any"), rng)


# --- sample: rows for the statistical checks ----------------------------------------------------------


def sample_rows() -> torch.Tensor:
    """Four rows of 8 tokens for ``sample``: zeros at the ends and inside, an uneven row, a flat-ish
    row, and row 3 a copy of row 0 (the twins of the independence check). Fixed: the power benchmark
    sizes the draws on these rows."""
    first = [0.0, 0.05, 0.3, 0.0, 0.15, 0.25, 0.25, 0.0]
    return torch.tensor(
        [first, [0.02, 0.08, 0.1, 0.2, 0.3, 0.15, 0.1, 0.05], [0.1, 0.12, 0.14, 0.16, 0.1, 0.12, 0.14, 0.12], first],
        dtype=torch.float32,
    )


def extreme_rows(rng: random.Random) -> torch.Tensor:
    """Rows where the boundary uniforms bite, in random order: zeros first and last, a float32 row summing
    below 1, and integer weights whose cumulative sum, divided by the sum first, ends below 1."""
    rows = [
        [0.0, 0.4, 0.0, 0.6, 0.0, 0.0],
        [0.0, 0.25, 0.25, 0.25, 0.25 - 2.0**-23, 0.0],
        [0.0, 0.0, 0.5, 0.5, 0.0, 0.0],
        [5.0, 8.0, 5.0, 1.0, 0.0, 0.0],
    ]
    rng.shuffle(rows)
    return torch.tensor(rows, dtype=torch.float32)


def tiny_rows(rng: random.Random) -> torch.Tensor:
    """float64 rows for ``sample`` whose positive weights are tiny: subnormal weights between zeros
    (where a plain p / E underflows), and 1e-25-sized weights next to zeros beside an ordinary one."""
    subnormal = [0.0] * 6  # p / E underflows to 0 for E above 1 or 2: most draws of a plain race
    for token in rng.sample(range(1, 6), 2):
        subnormal[token] = rng.choice((5e-324, 1e-323))
    mixed = [0.0, rng.uniform(1.0, 9.0) * 1e-25, 0.0, 1.0, 0.0, rng.uniform(1.0, 9.0) * 1e-25]
    deep = [0.0, 1e-310, 0.0, 3e-310, 0.0, 0.0]
    rows = [subnormal, mixed, deep]
    rng.shuffle(rows)
    return torch.tensor(rows, dtype=torch.float64)
