"""Hidden tests of exercise 42. Never shown to learners; run in the judge's process only.

Nothing here is random: every case is frozen from a fixed seed, its answer computed in float64
by ``oracle.py`` and, for the decoders, verified when built to hold no decision closer than
``cases.MARGIN`` (exact ties only where a case is about ties). A failure names the known mistake
that reproduces the whole batch (the oracle computes what each one returns). Order matters:
``sequence_log_prob`` first (plain, garbage padding, long, large, float64, bad inputs), then
greedy decoding, then beam search from the worked example to random models and ties.
"""

from __future__ import annotations

import torch

from judge.budget import BudgetDeclaration
from judge.checks import BadInput, Evidence, diagnosed, expect_bad_inputs_refused
from judge.testing import lane_weight

from ..public.checking import (
    check_decoded,
    check_log_probs,
    not_refuted,
    refused,
    returned_decoded,
    returned_log_probs,
    same_decoded,
    same_log_probs,
)
from ..public.diagnoses import FULL_WIDTH_REFUSED, LOG_PROB, ONE_STEP, PADDING_REFUSED, TIES
from . import cases, oracle

BUDGET = BudgetDeclaration()  # no statistical check: every answer is exact


def _log_prob(sub, ctx, case: cases.LogProbCase, what: str, *, separating: cases.LogProbCase | None = None) -> None:
    """``sequence_log_prob`` on ``case``; ``separating``: another case where mistakes that coincide
    on this one differ (the learner's answer there, asked only on failure, refutes some of them)."""
    value = sub.sequence_log_prob(case.logits, case.tokens, case.mask)

    def mistakes() -> dict:
        found = {name: got.tolist() for name, got in case.mistakes().items()}
        if separating is None:
            return found
        other = separating
        returned = returned_log_probs(lambda: sub.sequence_log_prob(other.logits, other.tokens, other.mask))
        there = {name: got.tolist() for name, got in other.mistakes().items()}
        return not_refuted(found, there, returned, same_log_probs(other.logits.dtype))

    check_log_probs(
        ctx, value, case.exact.tolist(), case.logits.dtype, what=what, labels=case.labels, mistakes=mistakes
    )


def test_log_prob_padding(sub, ctx):
    """sequence_log_prob: rows padded on the right, on the left, in the middle, entirely, or not at all

    zh: sequence_log_prob：右侧填充、左侧填充、中间填充、全部填充或没有填充的行
    """
    _log_prob(sub, ctx, cases.ragged(), "sequence_log_prob with padding")


def test_log_prob_garbage_padding(sub, ctx):
    """sequence_log_prob: padded positions hold token id -100 and NaN or infinite logits

    zh: sequence_log_prob：填充位置的 token 编号为 -100，logits 为 NaN 或无穷大
    """
    case = cases.garbage()
    # In-range ids at the padded positions first: a crash there is no evidence that -100 is gathered.
    with refused(PADDING_REFUSED):
        sub.sequence_log_prob(case.logits, case.tokens.masked_fill(~case.mask, 0), case.mask)
    with diagnosed(LOG_PROB["padding_ids_gathered"], raised_only=True), refused(PADDING_REFUSED):
        _log_prob(sub, ctx, case, "sequence_log_prob with garbage at padded positions")


def test_log_prob_long(sub, ctx):
    """sequence_log_prob: 400 tokens, a probability far below the smallest double

    zh: sequence_log_prob：400 个 token，概率远小于最小的双精度数
    """
    _log_prob(sub, ctx, cases.long(), "sequence_log_prob of long sequences")


def test_log_prob_large_logits(sub, ctx):
    """sequence_log_prob: logits near 1000, and tokens about 1000 behind the leader

    zh: sequence_log_prob：logits 约为 1000，且有比最大值低约 1000 的 token
    """
    # log(softmax) and a product in linear space both give -inf here; on the long sequences of
    # moderate probabilities only the product underflows: the learner's answer there tells them apart.
    _log_prob(sub, ctx, cases.large(), "sequence_log_prob with large logits", separating=cases.long())


def test_log_prob_float64(sub, ctx):
    """sequence_log_prob: float64 logits give a float64 answer at double precision

    zh: sequence_log_prob：float64 的 logits 得到双精度的 float64 结果
    """
    _log_prob(sub, ctx, cases.doubles(), "sequence_log_prob in float64")


def test_log_prob_bad_inputs(sub, ctx):
    """sequence_log_prob: bad shapes, dtypes and real tokens outside the vocabulary raise ValueError

    zh: sequence_log_prob：形状、dtype 不对或真实 token 超出词表时抛出 ValueError
    """
    logits = torch.zeros(2, 3, 4)
    tokens = torch.tensor([[0, 1, 2], [3, 2, 1]])
    mask = torch.ones(2, 3, dtype=torch.bool)
    expect_bad_inputs_refused(
        sub.sequence_log_prob,
        [
            BadInput(
                "logits of shape [2, 4]", {"logits": logits[:, 0], "tokens": tokens, "mask": mask}, public="2-D logits"
            ),
            BadInput("float tokens", {"logits": logits, "tokens": tokens.float(), "mask": mask}),
            BadInput("an int64 mask", {"logits": logits, "tokens": tokens, "mask": mask.long()}),
            BadInput(
                "tokens of shape [2, 2]",
                {"logits": logits, "tokens": tokens[:, :2], "mask": mask},
                public="tokens of the wrong shape",
            ),
            BadInput(
                "a real token equal to V = 4",
                {"logits": logits, "tokens": tokens + 1, "mask": mask},
                public="a real token outside the vocabulary",
            ),
            BadInput(
                "a real token -1",
                {"logits": logits, "tokens": tokens - 1, "mask": mask},
                public="a negative real token",
            ),
        ],
        name="sequence_log_prob",
    )


# --- greedy -------------------------------------------------------------------------------------


def _expected(rows) -> tuple[list[list[int]], list[float]]:
    return [r.tokens for r in rows], [r.score for r in rows]


def _greedy(sub, ctx, model: cases.Model, what: str, *, dtype=torch.float32, tie_rows=()) -> None:
    value = sub.greedy_decode(
        model.start.to(dtype), model.trans.to(dtype), eos_id=cases.EOS, max_len=model.max_len, pad_id=model.pad
    )
    check_decoded(
        ctx,
        value,
        _expected(model.greedy),
        dtype,
        name="greedy_decode",
        what=what,
        labels=model.labels,
        tie_rows=tie_rows,
        tie_diagnosis=TIES,
        mistakes=lambda: {text: _expected(rows) for text, rows in model.greedy_mistakes().items()},
    )


def _beam(sub, ctx, model: cases.Model, what: str, *, dtype=torch.float32, tie_rows=()) -> None:
    value = sub.beam_search(
        model.start.to(dtype),
        model.trans.to(dtype),
        eos_id=cases.EOS,
        max_len=model.max_len,
        pad_id=model.pad,
        beam_width=model.width,
        length_penalty=model.alpha,
    )
    check_decoded(
        ctx,
        value,
        _expected(model.beam),
        dtype,
        name="beam_search",
        what=what,
        labels=model.labels,
        tie_rows=tie_rows,
        tie_diagnosis=TIES,
        mistakes=lambda: {text: _expected(rows) for text, rows in model.beam_mistakes().items()},
    )


def test_greedy(sub, ctx):
    """greedy_decode: sixteen random models, some ending early with EOS, some running to max_len

    zh: greedy_decode：十六个随机模型，有的提前以 EOS 结束，有的一直生成到 max_len
    """
    _greedy(sub, ctx, cases.greedy_random(), "greedy_decode")


def test_greedy_ties(sub, ctx):
    """greedy_decode: tied maxima go to the lowest token id

    zh: greedy_decode：并列最大值取编号最小的 token
    """
    model = cases.tied()
    _greedy(sub, ctx, model, "greedy_decode with tied maxima", tie_rows=range(len(model.labels)))


def test_greedy_pad_is_eos(sub, ctx):
    """greedy_decode: pad_id equal to eos_id (0); nothing may read pad_id back

    zh: greedy_decode：pad_id 等于 eos_id（0）；任何地方都不能把 pad_id 读回来用
    """
    _greedy(sub, ctx, cases.pad_as_eos(), "greedy_decode with pad_id = eos_id = 0")


def test_greedy_float64(sub, ctx):
    """greedy_decode: float64 logits give float64 scores

    zh: greedy_decode：float64 的 logits 得到 float64 的得分
    """
    _greedy(sub, ctx, cases.greedy_random(), "greedy_decode in float64", dtype=torch.float64)


# --- beam search --------------------------------------------------------------------------------


def test_beam_beats_greedy(sub, ctx):
    """beam_search: the worked example and two variations where greedy misses the most probable sequence

    zh: beam_search：题面的例子及两个变体，贪心错过了概率最大的序列
    """
    _beam(sub, ctx, cases.greedy_misses(), "beam_search, beam_width=2, where greedy misses")


def test_beam_width_one(sub, ctx):
    """beam_search: beam_width=1 and length_penalty=0 give what greedy decoding gives

    zh: beam_search：beam_width=1 且 length_penalty=0 时与贪心解码的结果相同
    """
    _beam(sub, ctx, cases.beam_random("width_one"), "beam_search, beam_width=1")


def test_beam_narrow(sub, ctx):
    """beam_search: beam_width=2, no length penalty, sixteen random models

    zh: beam_search：beam_width=2，无长度惩罚，十六个随机模型
    """
    _beam(sub, ctx, cases.beam_random("narrow"), "beam_search, beam_width=2, length_penalty=0")


def test_beam_penalized(sub, ctx):
    """beam_search: beam_width=3 and length_penalty=0.6, sixteen random models

    zh: beam_search：beam_width=3、length_penalty=0.6，十六个随机模型
    """
    _beam(sub, ctx, cases.beam_random("penalized"), "beam_search, beam_width=3, length_penalty=0.6")


def test_beam_wide(sub, ctx):
    """beam_search: beam_width=4 and length_penalty=1, sixteen random models

    zh: beam_search：beam_width=4、length_penalty=1，十六个随机模型
    """
    _beam(sub, ctx, cases.beam_random("wide"), "beam_search, beam_width=4, length_penalty=1")


def test_beam_ties(sub, ctx):
    """beam_search: equal log-probabilities and scores go to the lexicographically smaller sequence

    zh: beam_search：对数概率或得分相等时取字典序较小的序列
    """
    model = cases.tied()
    _beam(sub, ctx, model, "beam_search with exact ties", tie_rows=range(len(model.labels)))


def test_beam_finished_keep_their_place(sub, ctx):
    """beam_search: a finished hypothesis keeps its slot even when later continuations are likelier

    zh: beam_search：即使后来的延续概率更大，已结束的假设也保留它的位置
    """
    _beam(sub, ctx, cases.crowded(), "beam_search, beam_width=2, a finished [EOS] and likelier continuations")


def test_beam_pad_is_a_token(sub, ctx):
    """beam_search: pad_id equal to a real token (2), with length_penalty=1

    zh: beam_search：pad_id 等于一个真实 token（2），length_penalty=1
    """
    _beam(sub, ctx, cases.pad_as_token(), "beam_search with pad_id = 2, a real token")


def test_one_step(sub, ctx):
    """greedy_decode and beam_search with max_len=1: the first step is also the last

    zh: max_len=1 的 greedy_decode 与 beam_search：第一步也是最后一步
    """
    model = cases.one_step()
    _greedy(sub, ctx, model, "greedy_decode, max_len=1")
    # Every other length passed the earlier cases: a wrong answer or a crash at max_len=1 is about it.
    with diagnosed(ONE_STEP, evidence=(Evidence.VALUE, Evidence.RAISED)):
        _beam(sub, ctx, model, "beam_search, beam_width=3, max_len=1")


def test_beam_ties_across_parents(sub, ctx):
    """beam_search: four candidates tie across two tied parents; the lexicographically smaller two are kept

    zh: beam_search：两个并列父假设产生四个并列候选，保留字典序较小的两个
    """
    model = cases.tied_across()
    value = sub.beam_search(
        model.start,
        model.trans,
        eos_id=cases.EOS,
        max_len=model.max_len,
        pad_id=model.pad,
        beam_width=model.width,
        length_penalty=model.alpha,
    )
    check_decoded(
        ctx,
        value,
        _expected(model.beam),
        torch.float32,
        name="beam_search",
        what="beam_search with ties across parents",
        labels=model.labels,
        tie_rows=range(len(model.labels)),
        tie_diagnosis=TIES,
        mistakes=lambda: _ties_across_mistakes(sub, model),
    )


def _ties_across_mistakes(sub, model: cases.Model) -> dict:
    """The known mistakes of the ties-across-parents case. Here per_beam_best_only returns what the
    token-major tie order does, so the case alone names neither; where greedy misses the best
    sequence they differ (the tie order is no matter there), and the learner's answer there, asked
    now, refutes the one it does not make."""

    def table(m: cases.Model) -> dict:
        token_major = oracle.beam(m.start, m.trans, cases.EOS, m.max_len, m.pad, m.width, m.alpha, "ties_token_major")
        return {TIES: _expected(token_major), **{text: _expected(rows) for text, rows in m.beam_mistakes().items()}}

    found, other = table(model), cases.greedy_misses()
    there = table(other)
    returned = returned_decoded(
        lambda: sub.beam_search(
            other.start,
            other.trans,
            eos_id=cases.EOS,
            max_len=other.max_len,
            pad_id=other.pad,
            beam_width=other.width,
            length_penalty=other.alpha,
        ),
        torch.float32,
    )
    return not_refuted(found, there, returned, same_decoded(torch.float32))


def test_beam_full_width(sub, ctx):
    """beam_search: beam_width = V, the widest valid beam, with length_penalty=0.5

    zh: beam_search：beam_width = V（最宽的合法束），length_penalty=0.5
    """
    with refused(FULL_WIDTH_REFUSED):
        _beam(sub, ctx, cases.full_width(), "beam_search, beam_width = V = 4")


def test_beam_float64(sub, ctx):
    """beam_search: float64 logits give float64 scores

    zh: beam_search：float64 的 logits 得到 float64 的得分
    """
    _beam(sub, ctx, cases.beam_random("penalized"), "beam_search in float64", dtype=torch.float64)


# @lane_weight: a heavy case's share of a grading's work, so that two lanes finish together;
# measured with `python practice/judge.py lanes 42` on a quiet machine (docs/authoring.md).
@lane_weight(2)
def test_decoders_bad_inputs(sub, ctx):
    """greedy_decode and beam_search: bad shapes, ids, lengths, widths and penalties raise ValueError

    zh: greedy_decode 与 beam_search：形状、编号、长度、束宽或惩罚不合法时抛出 ValueError
    """
    start = torch.zeros(2, 5)
    trans = torch.zeros(2, 5, 5)
    good = {"start_logits": start, "transition_logits": trans, "eos_id": 0, "max_len": 4, "pad_id": -1}
    common = [
        BadInput(
            "transition_logits of shape [2, 5, 4]",
            {**good, "transition_logits": trans[:, :, :4]},
            public="transition_logits of the wrong shape",
        ),
        BadInput("start_logits of shape [5]", {**good, "start_logits": start[0]}, public="1-D start_logits"),
        BadInput("an infinite start logit", {**good, "start_logits": torch.tensor([[0.0, float("inf"), 0, 0, 0]] * 2)}),
        BadInput("eos_id = 5 with V = 5", {**good, "eos_id": 5}, public="eos_id outside the vocabulary"),
        BadInput("max_len = 0", {**good, "max_len": 0}),
    ]
    expect_bad_inputs_refused(sub.greedy_decode, common, name="greedy_decode")
    beam = {"beam_width": 2, "length_penalty": 1.0}
    expect_bad_inputs_refused(
        sub.beam_search,
        [
            *[BadInput(row.description, {**row.kwargs, **beam}, row.public, row.diagnosis) for row in common],
            BadInput("beam_width = 0", {**good, **beam, "beam_width": 0}),
            BadInput("beam_width = 6 with V = 5", {**good, **beam, "beam_width": 6}, public="beam_width above V"),
            BadInput(
                "length_penalty = -0.5", {**good, **beam, "length_penalty": -0.5}, public="a negative length_penalty"
            ),
        ],
        name="beam_search",
    )
