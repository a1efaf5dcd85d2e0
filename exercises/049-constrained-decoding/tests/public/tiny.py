"""The tiny variant of exercise 49: what "Run" judges in the browser, after the public cases.

The hidden suite's checks (``checks49.py``, beside this file) at sizes the browser's pure-Python torch runs
quickly: a mask with transitions into state 0, next states with fewer rows than states, 600 copies of one
row, every draw site pushed on 128 long rows of each dtype, 600 sequences of a toy model whose logits change
with the state, a dead state after the last step, the rows with nothing to draw, the generator contract.
Values frozen in ``frozen49.py`` from the server's oracle.
"""

from __future__ import annotations

import torch

from judge.checks.base import diagnosed
from judge.checks.budget import BudgetDeclaration
from judge.checks.draw_sites import expect_every_draw_site
from judge.checks.generator_contract import expect_generator_contract
from judge.checks.refusals import BadInput, expect_bad_inputs_refused

from . import checks49, example49, frozen49
from .diagnoses import MISTAKES

# fit: one row's copies, the sequences; independence: the copies; seeds: the generator contract.
BUDGET = BudgetDeclaration(fit=2, independence=1, seeds=4)

COPIES, SEQUENCE_ROWS = 600, 600


def test_tiny_mask(sub, ctx):
    """allowed_mask on an automaton with transitions into state 0 and dead states

    zh: 在含有通向状态 0 的转移和死状态的自动机上求 allowed_mask
    """
    expected, mistakes = frozen49.unreachable_mask()
    checks49.check_mask(
        sub,
        ctx,
        example49.UNREACHABLE_TRANSITIONS,
        example49.UNREACHABLE_STATES,
        expected,
        what="allowed_mask",
        mistakes=mistakes,
    )


def test_tiny_next_states(sub, ctx):
    """sample_constrained: next states for 4 rows in states 3, 2, 1, 0

    zh: sample_constrained：状态为 3、2、1、0 的 4 行的下一状态
    """
    call = {
        "logits": example49.EXAMPLE_LOGITS[:1].repeat(4, 1),
        "transitions": example49.REGEX,
        "states": torch.tensor([3, 2, 1, 0]),
    }
    support = (example49.REGEX[call["states"]] >= 0).to(torch.float64)
    checks49.step_tokens(
        ctx,
        sub.sample_constrained(**call, generator=ctx.generator()),
        call,
        support,
        what="sample_constrained(states [3, 2, 1, 0])",
    )


def test_tiny_draws(sub, ctx):
    """sample_constrained: 600 copies of the state-1 row fit its distribution, and copies are independent

    zh: sample_constrained：状态 1 那一行复制 600 份，服从其分布，且各份相互独立
    """
    call = example49.state_one()
    checks49.check_step_law(sub, ctx, call, frozen49.probs("defaults")[1:2], COPIES, label="sample_constrained")


def test_tiny_extremes(sub, ctx):
    """sample_constrained: every draw site at 0 and just below 1 keeps tokens allowed (128 rows, both dtypes)

    zh: sample_constrained：每个抽样点取 0 或略小于 1 时 token 仍被允许（128 行，两种 dtype）
    """
    calls = [example49.extreme_call(torch.float32), example49.extreme_call(torch.float64)]
    calls.append(example49.single_token_call(torch.float32))
    for call in calls:
        dtype = call["logits"].dtype
        support = (call["transitions"][call["states"]] >= 0).to(torch.float64)

        def draw(source, generator, call=call):
            return source.sample_constrained(**call, generator=generator)

        def check(value, what, call=call, support=support):
            checks49.check_extreme_draws(value, call, support, ctx, what)

        expect_every_draw_site(sub, ctx, draw, check, label=f"sample_constrained ({dtype})")


def test_tiny_sequences(sub, ctx):
    """generate_constrained: 600 sequences of 3 tokens follow their law when the logits change with the state

    zh: generate_constrained：logits 随状态变化时，600 条长为 3 的序列服从其分布
    """
    sequences, law, alternatives = frozen49.tiny_sequence_law()
    checks49.check_sequence_law(
        sub,
        ctx,
        example49.SEQUENCE_LOGITS,
        example49.REGEX,
        0,
        3,
        SEQUENCE_ROWS,
        sequences,
        law,
        label="generate_constrained(3 steps)",
        alternatives=alternatives,
    )


def test_tiny_dead_state_after_the_last_step(sub, ctx):
    """generate_constrained: a dead state reached after the last step, and one never reached, are legal

    zh: generate_constrained：最后一步之后才到达的死状态，以及从未到达的死状态，都是合法的
    """
    transitions, logits = example49.UNREACHABLE_TRANSITIONS, example49.UNREACHABLE_LOGITS
    start = torch.zeros(40, dtype=torch.int64)
    # The same shapes without dead states first, outside the block: a refusal of everything is not this mistake.
    checks49.expect_generates(sub, ctx, example49.live_call())
    with diagnosed(MISTAKES["generate_refuses_unreachable"], raised_only=True):
        value = sub.generate_constrained(
            state_logits=logits, transitions=transitions, start_states=start, num_steps=2, generator=ctx.generator()
        )
    sequences = [(0, 0), (0, 2), (1, 0), (1, 1)]
    checks49.sequence_ids(ctx, value, logits, transitions, start, 2, sequences, what="generate_constrained(2 steps)")


def test_tiny_nothing_to_draw(sub, ctx):
    """a dead state, allowed tokens all at -inf, a state of -1: ValueError

    zh: 死状态、允许的 token 全为 -inf、值为 -1 的状态：抛出 ValueError
    """
    logits = example49.EXAMPLE_LOGITS[:2]
    dead = torch.cat([example49.REGEX, torch.full((1, 6), -1)])
    blocked = logits.clone()
    blocked[1, 5] = float("-inf")
    expect_bad_inputs_refused(
        sub.constrained_probs,
        [
            BadInput(
                "a row in a dead state",
                {"logits": logits, "transitions": dead, "states": torch.tensor([1, 5])},
                diagnosis=MISTAKES["dead_state_token_zero"],
            ),
            BadInput(
                "state 4 with <eos> at -inf",
                {"logits": blocked, "transitions": example49.REGEX, "states": torch.tensor([1, 4])},
                diagnosis=MISTAKES["neginf_row_not_refused"],
            ),
            BadInput(
                "a state of -1",
                {"logits": logits, "transitions": example49.REGEX, "states": torch.tensor([1, -1])},
                diagnosis=MISTAKES["negative_state_accepted"],
            ),
        ],
        name="constrained_probs",
    )


def test_tiny_generator(sub, ctx):
    """sample_constrained: the seed decides, the stream advances, generator=None uses torch's default generator

    zh: sample_constrained：种子决定结果，随机数流向前推进，generator=None 时使用 torch 的默认生成器
    """
    call = example49.state_one(200)
    target = frozen49.probs("defaults")[1:2]

    def draw(source, generator):
        tokens = checks49.step_tokens(
            ctx,
            source.sample_constrained(**call, generator=generator),
            call,
            target,
            what="sample_constrained",
            copies=200,
        )
        checks49.expect_not_constant(tokens, target[0], what="sample_constrained")
        return tokens.view(1, 200)

    expect_generator_contract(sub, ctx, draw, target, label="sample_constrained")
