"""Hidden tests of exercise 49. Never shown to learners; run in the judge's process only.

Exact checks first: ``allowed_mask`` on generated automata (dead states, transitions into state 0), then
``constrained_probs`` against the float64 oracle on hand-built rows that put one mistake each in plain sight
(filters off, greedy rows whose raw argmax is disallowed, filters whose raw-logit choice keeps disallowed
tokens) and on calls generated under the seed (both dtypes, per-row parameters, ties, -inf logits); then the
refusals (rows with nothing to draw, a state of -1, every malformed argument); then the draws of
``sample_constrained`` (next states, fits per row, copies of a row independent, every draw site at 0 and
just below 1, the generator contract) and of ``generate_constrained`` (the exact law of whole sequences,
dead states reached and unreached, its generator contract). Sizes and power: benchmarks/power_049.py.
"""

from __future__ import annotations

import random

import torch

from judge.checks.arguments import expect_contract_refusals
from judge.checks.base import diagnosed
from judge.checks.budget import BudgetDeclaration
from judge.checks.draw_sites import expect_every_draw_site
from judge.checks.evidence import Evidence
from judge.checks.exact import expect, expect_tensor
from judge.checks.generator_contract import expect_generator_contract, generator_contract_budget
from judge.checks.refusals import BadCall, expect_calls_refused
from judge.checks.testing import lane_weight
from judge.i18n import Bilingual
from judge.learner.interface import LearnerRaised

from ..public import checks49, example49
from ..public.diagnoses import MISTAKES
from . import cases, generated, oracle, specs

NEG = float("-inf")
LAW_COPIES = 2000  # draws of each of a law case's three rows
SEQUENCE_ROWS, SEQUENCE_STEPS = 6000, 4
CONTRACT_COPIES = 200
FIRST_STEP_ROWS = 400


def _contract_case():
    return cases.law_case(4901)


def _sequence_first_step(state_logits, transitions, start):
    return torch.tensor(oracle.step_distributions(state_logits, transitions)[start], dtype=torch.float64)


_GENERATE_CONTRACT = cases.sequence_case(4902)

BUDGET = (
    BudgetDeclaration(fit=3 + 2, independence=1)
    + generator_contract_budget(_contract_case().target, positions=True)
    + generator_contract_budget(_sequence_first_step(*_GENERATE_CONTRACT).unsqueeze(0))
)


def test_masks(sub, ctx):
    """allowed_mask: generated automata, dead states, transitions into state 0

    zh: allowed_mask：随机生成的自动机、死状态、通向状态 0 的转移
    """
    rng = random.Random(ctx.fresh_seed("masks"))
    for _ in range(3):
        auto = generated.automaton(rng, rng.randint(3, 7), rng.randint(3, 9), dead=rng.randint(0, 2))
        states = torch.tensor([rng.randrange(auto.states) for _ in range(rng.randint(1, 9))])
        checks49.check_mask(
            sub,
            ctx,
            auto.transitions,
            states,
            oracle.allowed(auto.transitions, states),
            what="allowed_mask",
            mistakes=oracle.mask_mistakes(auto.transitions, states),
        )


def _probs(sub, ctx, case, what: str) -> None:
    checks49.check_probs(sub, ctx, case.kwargs(), case.target, what=what, mistakes=case.mistakes)


def test_plain_rows(sub, ctx):
    """constrained_probs with no filter: the softmax of the allowed logits alone

    zh: 不做过滤的 constrained_probs：只对允许的 logits 做 softmax
    """
    _probs(sub, ctx, cases.plain_rows(), "constrained_probs(defaults)")


def test_greedy_rows(sub, ctx):
    """constrained_probs with temperature 0: the first largest allowed logit, not the largest logit

    zh: temperature 为 0 的 constrained_probs：取允许的 logit 中最大者（第一个），而不是全部 logit 中的最大者
    """
    case = cases.greedy_masked()
    _probs(sub, ctx, case, "constrained_probs(temperature=0)")
    value = sub.sample_constrained(**case.kwargs(), generator=ctx.generator())
    checks49.step_tokens(ctx, value, case.kwargs(), case.target, what="sample_constrained(temperature=0)")


def test_filters_after_the_mask(sub, ctx):
    """constrained_probs with top-k and top-p: they keep the most likely allowed tokens

    zh: 带 top-k 与 top-p 的 constrained_probs：保留的是概率最大的允许 token
    """
    _probs(sub, ctx, cases.filters_then_mask(), "constrained_probs(top_k, top_p)")
    _probs(sub, ctx, cases.filters_together(), "constrained_probs(top_k then top_p; a tie at the top-k cut)")


def test_parameter_values(sub, ctx):
    """constrained_probs: float64 temperatures float32 cannot hold, top_p = 1 with a tail of 1e-14, logits near 1000
    at temperatures 1e-20 and 50

    zh: constrained_probs：float32 无法精确表示的 float64 温度、带 1e-14 尾部的 top_p = 1、接近 1000 的 logits
    配以 1e-20 与 50 的温度
    """
    _probs(sub, ctx, cases.float64_temperatures(), "constrained_probs(float64, temperature 0.7 and 1.3)")
    _probs(sub, ctx, cases.tiny_tail(), "constrained_probs(top_p=1, tokens of probability 1e-14)")
    _probs(sub, ctx, cases.extreme_temperatures(), "constrained_probs(logits near 1000, temperature 1e-20 and 50)")
    _probs(sub, ctx, cases.huge_logits(), "constrained_probs(float32 logits of 1e19, temperature 1e-20)")


@lane_weight(2)
def test_generated_probs(sub, ctx):
    """constrained_probs on generated calls: both dtypes, per-row parameters, ties, -inf logits, greedy rows

    zh: 随机生成的 constrained_probs 调用：两种 dtype、按行参数、并列、-inf logits、贪心行
    """
    rng = random.Random(ctx.fresh_seed("generated probs"))
    for dtype in (torch.float32, torch.float64, torch.float32, torch.float64):
        _probs(sub, ctx, generated.probs_case(rng, dtype=dtype), f"constrained_probs (generated, {dtype})")


def test_nothing_to_draw(sub, ctx):
    """a dead state, or allowed tokens all at -inf: constrained_probs and sample_constrained raise ValueError

    zh: 死状态，或允许的 token 全为 -inf：constrained_probs 与 sample_constrained 抛出 ValueError
    """
    rng = random.Random(ctx.fresh_seed("nothing to draw"))

    def extra():
        return {"generator": ctx.generator()}

    expect_calls_refused(specs.nothing_to_draw(sub, rng, extra, dead=True))
    expect_calls_refused(specs.nothing_to_draw(sub, rng, extra, dead=False))


def test_negative_state(sub, ctx):
    """a state of -1 raises ValueError in every function

    zh: 值为 -1 的状态在每个函数中都抛出 ValueError
    """
    rng = random.Random(ctx.fresh_seed("negative state"))
    expect_calls_refused(specs.negative_states(sub, rng, lambda: {"generator": ctx.generator()}))


@lane_weight(2)
def test_bad_automaton_inputs(sub, ctx):
    """malformed transitions, states, shapes, state_logits and num_steps raise ValueError

    zh: 不合法的 transitions、states、形状、state_logits 与 num_steps 抛出 ValueError
    """
    rng = random.Random(ctx.fresh_seed("automaton refusals"))
    expect_calls_refused(specs.automaton_refusals(sub, rng, lambda: {"generator": ctx.generator()}))


@lane_weight(6)
def test_generated_bad_inputs(sub, ctx):
    """constrained_probs and sample_constrained: every bad logits and parameter the statement names, generated

    zh: constrained_probs 与 sample_constrained：按题面生成的各种非法 logits 与参数
    """
    rng = random.Random(ctx.fresh_seed("generated refusals"))
    good = specs.good_probs_call(rng)
    expect_contract_refusals(sub.constrained_probs, ctx, good=good, arguments=specs.PROBS_ARGUMENTS)
    expect_contract_refusals(
        sub.sample_constrained,
        ctx,
        good=good,
        arguments=specs.PROBS_ARGUMENTS,
        extra=lambda: {"generator": ctx.generator()},
    )


def test_next_states(sub, ctx):
    """sample_constrained: next_states[b] = transitions[states[b], tokens[b]], fewer rows than states

    zh: sample_constrained：next_states[b] = transitions[states[b], tokens[b]]，行数少于状态数
    """
    case = cases.next_state_rows()
    value = sub.sample_constrained(**case.kwargs(), generator=ctx.generator())
    checks49.step_tokens(ctx, value, case.kwargs(), case.target, what="sample_constrained (4 rows, 5 states)")


@lane_weight(3)
def test_step_law(sub, ctx):
    """sample_constrained: 2 000 copies of each of three rows fit their targets; copies are independent

    zh: sample_constrained：三行各复制 2 000 份，抽样服从各自的目标分布；各份相互独立
    """
    case = cases.law_case(ctx.fresh_seed("law case"))
    checks49.check_step_law(sub, ctx, case.kwargs(), case.target, LAW_COPIES, label="sample_constrained")


@lane_weight(11)
def test_extreme_uniforms(sub, ctx):
    """sample_constrained: every draw site at 0 and just below 1 never gives a disallowed token (both dtypes)

    zh: sample_constrained：每个抽样点取 0 或略小于 1 的值时，都绝不抽出不允许的 token（两种 dtype）
    """
    for dtype in (torch.float32, torch.float64):
        case = cases.extreme_case(ctx.fresh_seed(f"extreme case {dtype}"), dtype)

        def call(source, generator, case=case):
            return source.sample_constrained(**case.kwargs(), generator=generator)

        def check(value, what, case=case):
            checks49.check_extreme_draws(value, case.kwargs(), case.target, ctx, what)

        expect_every_draw_site(sub, ctx, call, check, label=f"sample_constrained ({dtype})")
        single = example49.single_token_call(dtype)
        support = (single["transitions"][single["states"]] >= 0).to(torch.float64)

        def call_single(source, generator, single=single):
            return source.sample_constrained(**single, generator=generator)

        def check_single(value, what, single=single, support=support):
            checks49.check_extreme_draws(value, single, support, ctx, what)

        expect_every_draw_site(sub, ctx, call_single, check_single, label=f"sample_constrained (one token, {dtype})")
        mixed = sub.with_extreme_uniforms(ctx.fresh_seed(f"mixed extremes {dtype}"))
        big = checks49.replicate(case.kwargs(), 8)
        value = mixed.sample_constrained(**big, generator=ctx.generator())
        checks49.step_tokens(
            ctx,
            value,
            big,
            case.target,
            copies=8,
            what=f"sample_constrained ({dtype}), 2 % of the uniforms at 0 or just below 1",
        )


@lane_weight(12)
def test_generator(sub, ctx):
    """sample_constrained: the generator contract (seeds, the stream advances, the default generator, positions)

    zh: sample_constrained：生成器的约定（种子、随机数流向前推进、默认生成器、行的位置）
    """
    case = _contract_case()

    def draw(source, generator, rows=None):
        rows = list(range(case.target.shape[0])) if rows is None else rows
        picked = {
            k: (v[rows] if isinstance(v, torch.Tensor) and k != "transitions" and v.dim() >= 1 else v)
            for k, v in case.kwargs().items()
        }
        kwargs = checks49.replicate(picked, CONTRACT_COPIES)
        value = source.sample_constrained(**kwargs, generator=generator)
        tokens = checks49.step_tokens(
            ctx, value, kwargs, case.target[rows], what="sample_constrained", copies=CONTRACT_COPIES
        )
        grid = tokens.view(len(rows), CONTRACT_COPIES)
        for r, row in enumerate(rows):
            checks49.expect_not_constant(grid[r], case.target[row], what=f"sample_constrained, row {row}")
        return grid

    expect_generator_contract(sub, ctx, draw, case.target, label="sample_constrained", positions=True)


def test_generate_unreachable_dead_state(sub, ctx):
    """generate_constrained: a dead state no row draws from (unreachable, or reached after the last step) is legal

    zh: generate_constrained：没有任何行需要从中抽样的死状态（不可达，或在最后一步之后才到达）是合法的
    """
    transitions, state_logits = example49.UNREACHABLE_TRANSITIONS, example49.UNREACHABLE_LOGITS
    start = torch.zeros(40, dtype=torch.int64)
    # One step of the number automaton, then the same shapes without dead states, outside the block: a
    # refusal of everything (or a crash at these shapes) is not this mistake.
    checks49.expect_generates(sub, ctx)
    checks49.expect_generates(sub, ctx, example49.live_call())
    with diagnosed(MISTAKES["generate_refuses_unreachable"], raised_only=True):
        value = sub.generate_constrained(
            state_logits=state_logits,
            transitions=transitions,
            start_states=start,
            num_steps=2,
            generator=ctx.generator(),
        )
    sequences, _ = oracle.sequence_law(state_logits, transitions, 0, 2)
    checks49.sequence_ids(
        ctx,
        value,
        state_logits,
        transitions,
        start,
        2,
        sequences,
        what="generate_constrained (a dead state after the last step)",
    )


@lane_weight(12)
def test_generate_dead_state_on_some_paths(sub, ctx):
    """generate_constrained: a dead state reached with probability 1/2 raises on some calls, not on others

    zh: generate_constrained：以 1/2 的概率到达的死状态，有时报错，有时不报错
    """
    # One row from state 0: token 0 stays in live state 1, token 1 leads to the dead state 2, equally likely;
    # step 2 must draw where the row is. 60 calls all alike: probability 2 * 2**-60 for a correct solution.
    transitions = torch.tensor([[1, 2], [1, 1], [-1, -1]])
    state_logits = torch.zeros(3, 2)
    start = torch.zeros(1, dtype=torch.int64)
    checks49.expect_generates(sub, ctx, example49.live_call())
    returned = raised = 0
    for _ in range(60):
        try:
            value = sub.generate_constrained(
                state_logits=state_logits,
                transitions=transitions,
                start_states=start,
                num_steps=2,
                generator=ctx.generator(),
            )
        except LearnerRaised as error:
            if not error.derives_from(ValueError):
                raise
            raised += 1
            continue
        returned += 1
        checks49.sequence_ids(
            ctx,
            value,
            state_logits,
            transitions,
            start,
            2,
            [(0, 0), (0, 1)],
            what="generate_constrained (a dead state behind token 1)",
        )
    expect(
        returned > 0,
        "generate_constrained raised ValueError in all 60 calls, although a row that draws token 0 "
        "at step 1 never reaches the dead state (probability 1/2 each call)",
        diagnosis=MISTAKES["generate_refuses_reachable"],
        rule=Bilingual(
            "generate_constrained: refused a dead state the row did not reach",
            "generate_constrained：因行并未到达的死状态而报错",
        ),
        kind=Evidence.RAISED,
    )
    expect(
        raised > 0,
        "generate_constrained returned in all 60 calls, although half the rows reach the dead state "
        "at step 2 and must raise ValueError",
        rule=Bilingual(
            "generate_constrained: a dead state reached did not raise", "generate_constrained：到达死状态却没有报错"
        ),
        kind=Evidence.VALUE,
    )


def test_generate_dead_state_reached(sub, ctx):
    """generate_constrained raises ValueError when a row must draw in a dead state or at -inf logits

    zh: 某一行需要在死状态或全为 -inf 的 logits 下抽样时，generate_constrained 抛出 ValueError
    """
    chain = torch.tensor([[1, -1], [2, -1], [-1, -1]])  # every row reaches the dead state 2 at step 3
    logits = torch.zeros(3, 2)
    blocked = torch.tensor([[0.0, 1.0], [NEG, 0.0], [0.0, 0.0]])  # state 1 allows token 0 only, at -inf
    start = torch.zeros(4, dtype=torch.int64)
    expect_calls_refused(
        [
            BadCall(
                sub.generate_constrained,
                "generate_constrained() reaching a dead state at step 3",
                kwargs={
                    "state_logits": logits,
                    "transitions": chain,
                    "start_states": start,
                    "num_steps": 3,
                    "generator": ctx.generator(),
                },
            ),
            BadCall(
                sub.generate_constrained,
                "generate_constrained() reaching a state whose allowed logits are -inf",
                kwargs={
                    "state_logits": blocked,
                    "transitions": chain,
                    "start_states": start,
                    "num_steps": 2,
                    "generator": ctx.generator(),
                },
            ),
        ]
    )


@lane_weight(11)
def test_generate_law(sub, ctx):
    """generate_constrained: 6 000 sequences of 4 tokens follow their exact law (two generated automata)

    zh: generate_constrained：6 000 条长为 4 的序列服从其精确分布（两个随机生成的自动机）
    """
    for k in range(2):
        state_logits, transitions, start = cases.sequence_case(ctx.fresh_seed(f"sequence case {k}"))
        sequences, law = oracle.sequence_law(state_logits, transitions, start, SEQUENCE_STEPS)
        _, start_law = oracle.sequence_law(state_logits, transitions, start, SEQUENCE_STEPS, logits_state=start)
        alternatives = {MISTAKES["generate_start_logits"]: start_law} if not torch.allclose(start_law, law) else {}
        checks49.check_sequence_law(
            sub,
            ctx,
            state_logits,
            transitions,
            start,
            SEQUENCE_STEPS,
            SEQUENCE_ROWS,
            sequences,
            law,
            label=f"generate_constrained (automaton {k + 1})",
            alternatives=alternatives,
        )


@lane_weight(3)
def test_generate_generator(sub, ctx):
    """generate_constrained: the generator contract, on the first step's tokens

    zh: generate_constrained：生成器的约定（看第一步的 token）
    """
    state_logits, transitions, start = _GENERATE_CONTRACT
    first = _sequence_first_step(state_logits, transitions, start)

    def draw(source, generator):
        starts = torch.full((FIRST_STEP_ROWS,), start, dtype=torch.int64)
        value = source.generate_constrained(
            state_logits=state_logits, transitions=transitions, start_states=starts, num_steps=2, generator=generator
        )
        tokens = expect_tensor(
            value, name="generate_constrained", shape=(FIRST_STEP_ROWS, 2), dtype=torch.int64, device=ctx.device
        )
        first_tokens = tokens[:, 0].contiguous().view(1, FIRST_STEP_ROWS)
        checks49.expect_not_constant(first_tokens, first, what="generate_constrained, first step")
        return first_tokens

    expect_generator_contract(sub, ctx, draw, first.unsqueeze(0), label="generate_constrained")
