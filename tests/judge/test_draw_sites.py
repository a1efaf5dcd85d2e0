"""Every draw site at the extremes: the phases of judge/learner/uniform_sources.py (server and browser twins),
the count's way through the protocol, and ``expect_every_draw_site`` against toy samplers: a bonus
draw site of one value per row that reads u == 0 wrongly, uniforms built from randint that break at
high - 1, and correct samplers of five kinds."""

from __future__ import annotations

import textwrap

import pytest
import torch

import judge.browser.torchlike as subset
from judge.browser.learner import InProcessLearner
from judge.browser.torchlike import extremes
from judge.checks.budget import BudgetDeclaration, FalseFailureBudget
from judge.checks.base import CheckFailed, CheckMisuse
from judge.checks.distributions import expect_support, expect_tokens_in_range
from judge.checks.draw_sites import DRAW_SITE_DIAGNOSIS, expect_every_draw_site
from judge.checks.exact import expect_tensor
from judge.checks.testing import Context, Submission
from judge.engine.process import LearnerProcess, LearnerRaised
from judge.learner import protocol
from judge.learner.interface import CallOptions, DrawSitePush
from judge.learner.uniform_sources import DrawSites, ExtremeUniforms, integer_range
from judge.learner.wire import WireError

TOP32, TOP64 = 1.0 - 2.0**-24, 1.0 - 2.0**-53

# --- the phases, on real torch and on the browser's subset -------------------------------------------


@pytest.mark.parametrize("call, expected", [
    (("randint", (10, (3,)), {}), (0, 10)),
    (("randint", (2, 10, (3,)), {}), (2, 10)),
    (("randint", (10,), {"size": (3,)}), (0, 10)),
    (("randint", (2, 10), {"size": (3,)}), (2, 10)),
    (("randint", (), {"low": 2, "high": 10, "size": (3,)}), (2, 10)),
    (("randint", (2,), {"high": 10, "size": (3,)}), (2, 10)),
    (("randint_like", (10,), {}), (0, 10)),
    (("randint_like", (2, 10), {}), (2, 10)),
    (("randint_like", (), {"low": 2, "high": 10}), (2, 10)),
    (("random_", (), {}), (0, None)),
    (("random_", (10,), {}), (0, 10)),
    (("random_", (2, 10), {}), (2, 10)),
    (("random_", (2,), {"to": 10}), (2, 10)),
    (("random_", (), {"from": 2, "to": 10}), (2, 10)),
    (("randint", (torch.tensor(2), (3,)), {}), None),  # not plain ints: left alone
])
def test_integer_bounds_are_read_as_torch_reads_them(call, expected):
    assert integer_range(*call) == expected


def _draws_everywhere(L, generator):
    """One value list per source, in order: these are the call's six draw sites (the rest are not)."""
    values = [
        L.rand(3, 4, generator=generator),
        L.randint(5, 9, (6,), generator=generator),
        L.zeros(5).uniform_(generator=generator),
        L.rand_like(L.zeros(2, 1)),
        L.zeros(4, dtype=L.int64).random_(0, 7, generator=generator),
        L.randint_like(L.zeros(5, dtype=L.int64), 3, 8),
    ]
    L.zeros(5).uniform_(2.0, 3.0, generator=generator)  # another range: not a site
    L.rand(0, generator=generator)  # draws nothing: not a site
    L.randn(3, generator=generator)  # no extremes: not a site
    L.multinomial(L.tensor([0.5, 0.5]), 4, replacement=True, generator=generator)  # an exact sampler
    return [v.tolist() for v in values]


LOW_HIGH = [(0.0, TOP32), (5, 8), (0.0, TOP32), (0.0, TOP32), (0, 6), (3, 7)]


@pytest.mark.parametrize("library", ["torch", "subset"])
def test_draw_sites_are_counted_and_each_one_pushed_alone(library):
    L, phase = (torch, DrawSites) if library == "torch" else (subset, extremes.DrawSites)
    saved = (L.rand, L.rand_like, L.randint, L.randint_like, L.Tensor.uniform_, L.Tensor.random_)
    with phase(L, None, False, 1) as counting:
        plain = _draws_everywhere(L, L.Generator().manual_seed(3))
    assert counting.count == 6
    assert (L.rand, L.rand_like, L.randint, L.randint_like, L.Tensor.uniform_, L.Tensor.random_) == saved
    for site, (low, high) in enumerate(LOW_HIGH):
        for pushed_high, extreme in ((False, low), (True, high)):
            with phase(L, site, pushed_high, 7) as pushing:
                got = _draws_everywhere(L, L.Generator().manual_seed(3))
            assert pushing.count == 6
            for other in range(6):
                if other != site and other not in (3, 5):  # drawn from the default generator: not comparable
                    assert got[other] == plain[other], (site, other)
            values = got[site]
            if site == 0:  # [3, 4]: one value of each row, at a position of the private stream's choosing
                assert [row.count(extreme) for row in values] == [1, 1, 1]
            else:  # one value per line: all of them
                flat = [v for row in values for v in row] if isinstance(values[0], list) else values
                assert flat == [extreme] * len(flat), (site, values)


@pytest.mark.parametrize("library", ["torch", "subset"])
def test_the_mixed_phase_drives_randint_and_random_too(library):
    L, phase = (torch, ExtremeUniforms) if library == "torch" else (subset, extremes.ExtremeUniforms)
    assert extremes.FRACTION == ExtremeUniforms.FRACTION
    plain = L.randint(0, 2**24, (4000,), generator=L.Generator().manual_seed(1)).tolist()
    with phase(L, 3):
        pushed = L.randint(0, 2**24, (4000,), generator=L.Generator().manual_seed(1)).tolist()
        pair = L.zeros(2, dtype=L.int64).random_(3, 5).tolist()
        unbounded = L.zeros(300, dtype=L.int64).random_().tolist()
    lows, highs = pushed.count(0), pushed.count(2**24 - 1)
    assert 15 <= lows <= 70 and 15 <= highs <= 70  # 1 % each of 4 000
    assert sum(a != b for a, b in zip(plain, pushed)) <= lows + highs  # the learner's stream is untouched
    assert sorted(pair) == [3, 4]
    assert 0 in unbounded  # random_() has no upper end to push to: only 0


# --- through the protocol ----------------------------------------------------------------------------

LEARNER = '''
import torch

TINY = torch.finfo(torch.float64).tiny


def _cdf(probs):
    cdf = probs.double().cumsum(-1)
    return cdf / cdf[..., -1:]


def inverse_cdf(probs, n, generator=None):
    u = torch.rand(probs.shape[0], n, dtype=torch.float64, generator=generator)
    return torch.searchsorted(_cdf(probs), u, right=True)


def gumbel(probs, n, generator=None):
    u = torch.rand(probs.shape[0], n, probs.shape[1], dtype=torch.float64, generator=generator)
    noise = -torch.log(-torch.log(u.clamp_min(TINY)))
    return (probs.double().log().unsqueeze(1) + noise).argmax(-1)


def exponential_race(probs, n, generator=None):
    u = torch.rand(probs.shape[0], n, probs.shape[1], dtype=torch.float64, generator=generator)
    return (-torch.log(u.clamp_min(TINY)) / probs.double().unsqueeze(1)).argmin(-1)


def exponential_noise(probs, n, generator=None):
    noise = torch.empty(probs.shape[0], n, probs.shape[1], dtype=torch.float64).exponential_(generator=generator)
    return (noise / probs.double().unsqueeze(1)).argmin(-1)


def multinomial(probs, n, generator=None):
    return torch.multinomial(probs.double(), n, replacement=True, generator=generator)


def bonus_reads_zero(probs, n, generator=None):
    """n draws, then one bonus draw per row from its own uniform: searchsorted(cdf, u) with
    right=False puts u == 0 on the first token even when its probability is 0."""
    draws = torch.multinomial(probs.double(), n, replacement=True, generator=generator)
    cdf = _cdf(probs)
    bonus = [torch.searchsorted(cdf[row], torch.rand(1, dtype=torch.float64, generator=generator))
             for row in range(probs.shape[0])]
    return torch.cat([draws, torch.stack(bonus)], dim=1)


def randint_plus_one(probs, n, generator=None):
    """Uniforms built from randint, shifted by one to stay off log(0): u = 1 at randint's high - 1
    runs past the last token."""
    u = (torch.randint(0, 2**24, (probs.shape[0], n), generator=generator) + 1).double() / 2**24
    return torch.searchsorted(_cdf(probs), u, right=True)


def always_out_of_range(probs, n, generator=None):
    draws = inverse_cdf(probs, n, generator)
    draws[0, 0] = probs.shape[1]
    return draws


def many_sites(probs, n, generator=None):
    return torch.stack([inverse_cdf(probs, n, generator)[:, 0] for _ in range(20)], dim=1)
'''
CORRECT = ("inverse_cdf", "gumbel", "exponential_race", "exponential_noise", "multinomial")
SITES = {"inverse_cdf": 1, "gumbel": 1, "exponential_race": 1, "exponential_noise": 0, "multinomial": 0}
NAMES = (*CORRECT, "bonus_reads_zero", "randint_plus_one", "always_out_of_range", "many_sites")
# Four rows; only row 1 gives token 0 probability 0 (a u == 0 mistake shows only there).
PROBS = torch.tensor(
    [[0.25, 0.25, 0.5, 0.0], [0.0, 0.5, 0.25, 0.25], [0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]], dtype=torch.float64
)


@pytest.fixture(scope="module")
def process(tmp_path_factory):
    path = tmp_path_factory.mktemp("draw_sites") / "solution.py"
    path.write_text(textwrap.dedent(LEARNER))
    with LearnerProcess(path) as learner:
        yield learner


@pytest.fixture(params=["process", "in-process"])
def learner(request, process):
    if request.param == "process":
        yield process
        return
    in_process = InProcessLearner(textwrap.dedent(LEARNER))
    yield in_process
    in_process.close()


def _context():
    return Context(seed=4, device="cpu", budget=FalseFailureBudget(1e-6, BudgetDeclaration()))


def _judge(learner, name: str, n: int = 50, probs: torch.Tensor = PROBS) -> int:
    ctx = _context()
    sub = Submission(learner, NAMES, lambda: ctx)

    def call(source, generator):
        return getattr(source, name)(probs, n, generator=generator)

    def check(value, what):
        width = 20 if name == "many_sites" else n + (name == "bonus_reads_zero")
        draws = expect_tensor(value, name=name, shape=(probs.shape[0], width), dtype=torch.int64)
        expect_tokens_in_range(draws, probs.shape[1], what=what)
        expect_support(draws, probs, what=what, why_excluded=lambda row, token: "its probability is 0")

    return expect_every_draw_site(sub, ctx, call, check, label=f"{name}(probs, {n})")


@pytest.mark.parametrize("name", CORRECT)
def test_correct_samplers_pass_with_every_site_at_each_end(learner, name):
    assert _judge(learner, name) == SITES[name]


def test_a_bonus_site_that_reads_zero_wrongly_is_caught_and_named(learner):
    with pytest.raises(CheckFailed) as failed:
        _judge(learner, "bonus_reads_zero")
    assert failed.value.diagnosis == DRAW_SITE_DIAGNOSIS
    assert "with draw site 2 of 4 pushed to its lowest value" in str(failed.value)  # row 1's bonus
    assert failed.value.diagnosis.zh == "某个抽样点在极端的均匀随机数（0 或小于 1 的最大浮点数）下出错"


def test_the_mixed_phase_rarely_reaches_a_bonus_site_of_one_value(process):
    """What the draw sites are for: 2 % of one value per row almost never lands on row 1's bonus."""
    caught = 0
    for seed in range(10):
        draws, _ = process.call("bonus_reads_zero", [PROBS, 50], {"generator": _seed(seed)}, timeout_s=30,
                                options=CallOptions(extreme_uniforms=seed))
        caught += int(draws[1, -1]) == 0
    assert caught <= 1


def test_uniforms_built_from_randint_are_driven_to_high_minus_one(learner):
    with pytest.raises(CheckFailed) as failed:
        _judge(learner, "randint_plus_one")
    assert failed.value.diagnosis == DRAW_SITE_DIAGNOSIS
    assert "pushed to its highest value" in str(failed.value) and "outside the vocabulary" in str(failed.value)


def test_a_failure_of_the_ordinary_run_is_not_blamed_on_extremes(learner):
    with pytest.raises(CheckFailed) as failed:
        _judge(learner, "always_out_of_range")
    assert failed.value.diagnosis is None
    assert "pushed" not in str(failed.value)


def test_at_most_sixteen_sites_are_pushed(process):
    assert _judge(process, "many_sites", n=3) == 16


def test_the_count_crosses_the_protocol(process):
    options = CallOptions(draw_sites=DrawSitePush())
    result = process.call("gumbel", [PROBS, 5], {"generator": _seed(1)}, timeout_s=30, options=options)
    assert result.draw_sites == 1
    assert process.call("gumbel", [PROBS, 5], {"generator": _seed(1)}, timeout_s=30).draw_sites is None


@pytest.mark.parametrize("header, message", [
    ({"ok": True, "value": None, "draw_sites": "3"}, "'draw_sites' must be a whole number in"),
    ({"ok": True, "value": None, "draw_sites": -1}, "'draw_sites' must be a whole number in"),
    ({"ok": True, "value": None, "draw_sites": True}, "'draw_sites' must be a whole number in"),
    ({"ok": True, "value": None, "draw_sites": 1 << 40}, "'draw_sites' must be a whole number in"),
    ({"raised": {"type": "E", "message": "", "line": None, "traceback": "", "memory": False}, "draw_sites": 2},
     "an answer cannot both raise and return"),
])
def test_a_forged_count_is_refused(header, message):
    with pytest.raises(WireError, match=message):
        protocol.reply(header)


def test_the_check_refuses_misuse():
    ctx = _context()
    with pytest.raises(CheckMisuse, match="argument `sub`"):
        expect_every_draw_site(object(), ctx, lambda s, g: None, lambda v, w: None, label="x")
    sub = Submission(object(), NAMES, lambda: ctx)  # type: ignore[arg-type]
    with pytest.raises(CheckMisuse, match="argument `check`"):
        expect_every_draw_site(sub, ctx, lambda s, g: None, None, label="x")
    with pytest.raises(CheckMisuse, match="argument `max_sites`"):
        expect_every_draw_site(sub, ctx, lambda s, g: None, lambda v, w: None, label="x", max_sites=0)
    with pytest.raises(CheckMisuse, match="argument `site`"):
        sub.with_draw_site_pushed(-1, high=False, seed=1)


def test_a_learner_raising_on_a_pushed_site_gets_the_diagnosis(learner_file):
    source = learner_file('''
        import torch

        def sample(probs, n, generator=None):
            u = torch.rand(probs.shape[0], n, dtype=torch.float64, generator=generator)
            if bool((u == 0).any()):
                raise IndexError("index out of range")
            return torch.zeros(probs.shape[0], n, dtype=torch.int64)
    ''')
    ctx = _context()
    with LearnerProcess(source) as process:
        sub = Submission(process, ("sample",), lambda: ctx)
        with pytest.raises(LearnerRaised) as raised:
            expect_every_draw_site(sub, ctx, lambda s, g: s.sample(PROBS[2:], 10, generator=g),
                                   lambda value, what: None, label="sample")
    assert raised.value.diagnosis == DRAW_SITE_DIAGNOSIS


# The same check where the browser runs it: the subset installed as torch, the in-process learner,
# the subset's own DrawSites (in a fresh interpreter: real torch must not be loaded there).
BROWSER = """
import json, textwrap
import judge.browser.torchlike as subset
subset.install()
import torch
from judge.browser.learner import InProcessLearner
from judge.checks.budget import BudgetDeclaration, FalseFailureBudget
from judge.checks.base import CheckFailed
from judge.checks.distributions import expect_support, expect_tokens_in_range
from judge.checks.draw_sites import expect_every_draw_site
from judge.checks.exact import expect_tensor
from judge.checks.testing import Context, Submission

NAMES = ("inverse_cdf", "bonus_reads_zero", "randint_plus_one")
PROBS = torch.tensor([[0.25, 0.25, 0.5, 0.0], [0.0, 0.5, 0.25, 0.25], [0.1, 0.2, 0.3, 0.4]], dtype=torch.float64)
learner = InProcessLearner(textwrap.dedent(SOURCE))
out = {}
for name in NAMES:
    ctx = Context(seed=4, device="cpu", budget=FalseFailureBudget(1e-6, BudgetDeclaration()))
    sub = Submission(learner, NAMES, lambda: ctx)
    width = 20 + (name == "bonus_reads_zero")

    def check(value, what):
        draws = expect_tensor(value, name=name, shape=(3, width), dtype=torch.int64)
        expect_tokens_in_range(draws, 4, what=what)
        expect_support(draws, PROBS, what=what, why_excluded=lambda r, t: "p = 0")

    try:
        sites = expect_every_draw_site(sub, ctx, lambda s, g: getattr(s, name)(PROBS, 20, generator=g), check, label=name)
        out[name] = ["AC", sites, torch.__name__]
    except CheckFailed as failed:
        out[name] = ["WA", str(failed.diagnosis), torch.__name__]
print(json.dumps(out))
"""


def test_the_browser_subset_runs_the_same_check(project_root, tmp_path):
    import json
    import os
    import subprocess
    import sys

    script = tmp_path / "browser_sites.py"
    script.write_text(BROWSER.replace("SOURCE", repr(LEARNER)))
    env = {**os.environ, "PYTHONPATH": str(project_root)}
    done = subprocess.run([sys.executable, str(script)], cwd=project_root, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    assert out["inverse_cdf"][:2] == ["AC", 1]
    for name in ("bonus_reads_zero", "randint_plus_one"):
        assert out[name][:2] == ["WA", DRAW_SITE_DIAGNOSIS], out
    assert out["inverse_cdf"][2] != "torch"  # the subset, not real torch


def _seed(seed):
    from judge.learner.wire import GeneratorSpec

    return GeneratorSpec(seed)
