"""Public tests of exercise 42: small examples you can check by hand.

The decoding examples use the statement's model: token 0 is EOS, 1 is A, 2 is B, 3 is C, and
pad_id is -1. The hidden tests check the same rules on long sequences, huge logits, garbage at
padded positions, random models, length penalties, exact ties and bad inputs.
"""

from __future__ import annotations

import math

import torch

from judge.checks.budget import BudgetDeclaration
from judge.checks.refusals import expect_raises

from .checking import check_decoded, check_log_probs

BUDGET = BudgetDeclaration()  # nothing random: every check is exact


def _log(probs):
    return [math.log(p) for p in probs]


# The statement's worked example: P(A) = 0.55, P(B) = 0.40; after A, EOS has 0.5; after B, 0.9.
START = torch.tensor([_log([0.01, 0.55, 0.40, 0.04])])
TRANS = torch.tensor(
    [
        [
            _log([0.25, 0.25, 0.25, 0.25]),
            _log([0.50, 0.20, 0.15, 0.15]),
            _log([0.90, 0.04, 0.03, 0.03]),
            _log([0.40, 0.20, 0.20, 0.20]),
        ]
    ]
)
NO_MISTAKES = dict  # the public cases name no mistake: their messages say what differs


def test_log_prob(sub, ctx):
    """sequence_log_prob: two rows of three positions, the last position of row 1 is padding

    zh: sequence_log_prob：两行、每行三个位置，第 1 行最后一个位置是填充
    """
    logits = torch.tensor(
        [[[2.0, 1.0, 0.0], [0.0, 0.0, 0.0], [1.0, 3.0, 0.5]], [[0.5, 0.5, 2.0], [1.0, 0.0, -1.0], [9.0, 9.0, 9.0]]]
    )
    tokens = torch.tensor([[0, 2, 1], [2, 1, -100]])
    mask = torch.tensor([[True, True, True], [True, True, False]])
    value = sub.sequence_log_prob(logits, tokens, mask)
    check_log_probs(
        ctx,
        value,
        [-1.7029523500321073, -1.7765870998456956],
        torch.float32,
        what="sequence_log_prob(example)",
        labels=["no padding", "one padded position"],
        mistakes=NO_MISTAKES,
    )


def test_greedy(sub, ctx):
    """greedy_decode on the worked example: A then EOS, log(0.55 x 0.5)

    zh: 在题面例子上的 greedy_decode：先 A 后 EOS，log(0.55 x 0.5)
    """
    value = sub.greedy_decode(START, TRANS, eos_id=0, max_len=4, pad_id=-1)
    check_decoded(
        ctx,
        value,
        ([[1, 0, -1, -1]], [-1.2909841813155656]),
        torch.float32,
        name="greedy_decode",
        what="greedy_decode(example)",
        labels=["worked example"],
        mistakes=NO_MISTAKES,
    )


def test_beam(sub, ctx):
    """beam_search with beam_width=2 on the worked example: B then EOS, log(0.4 x 0.9)

    zh: 在题面例子上 beam_width=2 的 beam_search：先 B 后 EOS，log(0.4 x 0.9)
    """
    value = sub.beam_search(START, TRANS, eos_id=0, max_len=4, pad_id=-1, beam_width=2, length_penalty=0.0)
    check_decoded(
        ctx,
        value,
        ([[2, 0, -1, -1]], [-1.0216512475319812]),
        torch.float32,
        name="beam_search",
        what="beam_search(example, beam_width=2)",
        labels=["worked example"],
        mistakes=NO_MISTAKES,
    )


def test_beam_width_one(sub, ctx):
    """beam_search with beam_width=1 is greedy decoding

    zh: beam_width=1 的 beam_search 就是贪心解码
    """
    value = sub.beam_search(START, TRANS, eos_id=0, max_len=4, pad_id=-1, beam_width=1, length_penalty=0.0)
    check_decoded(
        ctx,
        value,
        ([[1, 0, -1, -1]], [-1.2909841813155656]),
        torch.float32,
        name="beam_search",
        what="beam_search(example, beam_width=1)",
        labels=["worked example"],
        mistakes=NO_MISTAKES,
    )


def test_length_penalty(sub, ctx):
    """length_penalty=1 prefers [A, EOS] (-0.904 / 2) to [EOS] (-0.693 / 1)

    zh: length_penalty=1 时 [A, EOS]（-0.904 / 2）优于 [EOS]（-0.693 / 1）
    """
    start = torch.tensor([_log([0.50, 0.45, 0.05])])
    trans = torch.tensor([[_log([1 / 3] * 3), _log([0.90, 0.05, 0.05]), _log([0.50, 0.25, 0.25])]])
    for alpha, expected in (
        (0.0, ([[0, -1, -1]], [-0.6931471805599453])),
        (1.0, ([[1, 0, -1]], [-0.9038682118755978 / 2])),
    ):
        value = sub.beam_search(start, trans, eos_id=0, max_len=3, pad_id=-1, beam_width=2, length_penalty=alpha)
        check_decoded(
            ctx,
            value,
            expected,
            torch.float32,
            name="beam_search",
            what=f"beam_search(length_penalty={alpha})",
            labels=[f"length_penalty={alpha}"],
            mistakes=NO_MISTAKES,
        )


def test_max_len_zero(sub, ctx):
    """max_len = 0 raises ValueError

    zh: max_len = 0 时抛出 ValueError
    """
    with expect_raises(ValueError, "greedy_decode(max_len=0)"):
        sub.greedy_decode(START, TRANS, eos_id=0, max_len=0, pad_id=-1)
