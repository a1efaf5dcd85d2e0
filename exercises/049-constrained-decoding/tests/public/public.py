"""Public tests of exercise 49: the statement's worked example (the number format over six tokens), read
and judged as the hidden tests judge larger, generated calls.
"""

from __future__ import annotations

import torch

from judge.checks.budget import BudgetDeclaration
from judge.checks.refusals import BadInput, expect_bad_inputs_refused

from . import checks49, example49, frozen49

BUDGET = BudgetDeclaration(fit=2)

STEP_COPIES, SEQUENCE_ROWS = 3000, 3000


def test_example_mask(sub, ctx):
    """allowed_mask for states 0, 1 and 3 of the number automaton

    zh: 数字自动机状态 0、1、3 的 allowed_mask
    """
    checks49.check_mask(
        sub,
        ctx,
        example49.REGEX,
        example49.EXAMPLE_STATES,
        frozen49.mask(),
        what="allowed_mask",
        mistakes=frozen49.mask_mistakes(),
    )


def test_example_probs(sub, ctx):
    """constrained_probs: the statement's table ("x" is masked although its logit is the largest)

    zh: constrained_probs：题面中的表格（"x" 的 logit 虽然最大，却被掩码去掉）
    """
    for name, call in example49.CALLS.items():
        what = "constrained_probs(defaults)" if name == "defaults" else "constrained_probs(the table's settings)"
        checks49.check_probs(sub, ctx, call, frozen49.probs(name), what=what, mistakes=frozen49.probs_mistakes(name))


def test_example_draws(sub, ctx):
    """sample_constrained: 3 000 draws in state 1 never give "x" and follow the table's first state-1 row

    zh: sample_constrained：状态 1 下抽 3 000 次，从不抽到 "x"，且服从表中状态 1 的那一行
    """
    call = example49.state_one()
    checks49.check_step_law(
        sub, ctx, call, frozen49.probs("defaults")[1:2], STEP_COPIES, label="sample_constrained(state 1)", twins=None
    )


def test_example_sequences(sub, ctx):
    """generate_constrained: 3 000 sequences of 4 tokens from state 0, each a prefix of a number

    zh: generate_constrained：从状态 0 出发生成 3 000 条长为 4 的序列，每条都是某个数的前缀
    """
    call = example49.generate_call(SEQUENCE_ROWS)
    sequences, law = frozen49.sequence_law()
    checks49.check_sequence_law(
        sub,
        ctx,
        call["state_logits"],
        call["transitions"],
        0,
        call["num_steps"],
        SEQUENCE_ROWS,
        sequences,
        law,
        label="generate_constrained(4 steps from state 0)",
    )


def test_nothing_to_draw(sub, ctx):
    """state 4 with <eos> at -inf, and a state of -1: ValueError

    zh: 状态 4 且 <eos> 为 -inf，以及值为 -1 的状态：抛出 ValueError
    """
    blocked = torch.tensor([[1.0, 0.5, 2.0, 1.5, 3.0, float("-inf")]])
    expect_bad_inputs_refused(
        sub.constrained_probs,
        [
            BadInput(
                "state 4 whose only allowed token has logit -inf",
                {"logits": blocked, "transitions": example49.REGEX, "states": torch.tensor([4])},
            ),
            BadInput(
                "states = [-1]", {"logits": blocked, "transitions": example49.REGEX, "states": torch.tensor([-1])}
            ),
        ],
        name="constrained_probs",
    )
