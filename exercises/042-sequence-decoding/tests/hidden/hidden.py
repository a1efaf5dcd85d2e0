"""Hidden tests of exercise 42. Never shown to learners; run in the judge's process only.

Nothing here is random in the learner's code, but the inputs are: every case draws its models and
sequences under its own seed (``ctx.fresh_seed``), so each grading judges other instances of the
same clause. The answers come from the float64 oracle (``oracle.py``); every decoding row is
verified when drawn to hold no decision closer than ``cases.MARGIN`` (exact ties only where a case
is about ties, and only ties exact in every float32 and float64 arithmetic). Bad inputs and legal
corners are generated from the statement's lists (``specs.py``). A failure names a known mistake
only on its own evidence: its oracle reproduces the whole case, and for the decoders also the
learner's answer on a witness model where every known mistake differs (``confirmed``); a refusal
of a legal input is named only after the same call without the twist passed.
"""

from __future__ import annotations

import random

import torch

from judge.checks.arguments import Variant, contract_refusals, legal_inputs
from judge.checks.base import diagnosed
from judge.checks.budget import BudgetDeclaration
from judge.checks.evidence import Evidence
from judge.checks.refusals import BadCall, BadInput, expect_bad_inputs_refused
from judge.checks.testing import lane_weight
from judge.i18n import Bilingual

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
from ..public.refusals import expect_refused
from . import cases, specs
from .generated import expect_accepted

BUDGET = BudgetDeclaration()  # no statistical check: every answer is exact


def _seed(ctx, what: str) -> int:
    return ctx.fresh_seed(what)


# --- sequence_log_prob ---------------------------------------------------------------------------


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


def _cleaned(case: cases.LogProbCase, *, ids: bool, logits: bool, unmasked: bool = False) -> cases.LogProbCase:
    """``case`` with its padded positions cleaned: in-range ids (``ids``), finite logits (``logits``);
    ``unmasked``: every position real as well."""
    keep = case.mask.unsqueeze(-1)
    clean_logits = torch.where(keep, case.logits, torch.zeros_like(case.logits)) if logits else case.logits
    clean_tokens = case.tokens.masked_fill(~case.mask, 0) if ids else case.tokens
    mask = torch.ones_like(case.mask) if unmasked else case.mask
    return cases.LogProbCase(clean_logits, clean_tokens, mask, case.labels)


def test_log_prob_padding(sub, ctx):
    """sequence_log_prob: rows padded on the right, on the left, in the middle, here and there, entirely, or not at all

    zh: sequence_log_prob：右侧、左侧、中间、零散、全部填充或没有填充的行
    """
    _log_prob(sub, ctx, cases.ragged(_seed(ctx, "ragged")), "sequence_log_prob with padding")


def test_log_prob_garbage_padding(sub, ctx):
    """sequence_log_prob: padded positions hold ids that are no index (-100, V, -2**63) and NaN or infinite logits

    zh: sequence_log_prob：填充位置的编号不是合法下标（-100、V、-2**63），logits 为 NaN 或无穷大
    """
    case = cases.garbage(_seed(ctx, "garbage"))
    # The same rows without padding, then with clean padding, outside any diagnosis: a refusal or a crash
    # there is no evidence about garbage.
    sub.sequence_log_prob(*_args(_cleaned(case, ids=True, logits=True, unmasked=True)))
    _log_prob(sub, ctx, _cleaned(case, ids=True, logits=True), "sequence_log_prob with clean padding")
    with diagnosed(LOG_PROB["padding_ids_gathered"], raised_only=True), refused(PADDING_REFUSED):
        only_ids = _cleaned(case, ids=False, logits=True)
        _log_prob(sub, ctx, only_ids, "sequence_log_prob with padded ids that are no index")
    with refused(PADDING_REFUSED):
        _log_prob(sub, ctx, case, "sequence_log_prob with garbage at padded positions")


def _args(case: cases.LogProbCase) -> tuple:
    return case.logits, case.tokens, case.mask


def test_log_prob_long(sub, ctx):
    """sequence_log_prob: 400 tokens, a probability far below the smallest double

    zh: sequence_log_prob：400 个 token，概率远小于最小的双精度数
    """
    _log_prob(sub, ctx, cases.long(_seed(ctx, "long")), "sequence_log_prob of long sequences")


def test_log_prob_large_logits(sub, ctx):
    """sequence_log_prob: logits near 1000, real tokens the leader or about 1000 behind it

    zh: sequence_log_prob：logits 约为 1000，真实 token 是领先者或比它低约 1000
    """
    # log(softmax) and a product in linear space both give -inf here where a token is 1000 behind; on
    # the long sequences of moderate probabilities only the product underflows: the learner's answer
    # there tells them apart.
    _log_prob(
        sub,
        ctx,
        cases.large(_seed(ctx, "large")),
        "sequence_log_prob with large logits",
        separating=cases.long(_seed(ctx, "long")),
    )


def test_log_prob_float64(sub, ctx):
    """sequence_log_prob: float64 logits of non-dyadic values give a float64 answer at double precision

    zh: sequence_log_prob：非二进制有理数的 float64 logits 得到双精度的 float64 结果
    """
    _log_prob(sub, ctx, cases.doubles(_seed(ctx, "doubles")), "sequence_log_prob in float64")


@lane_weight(2)
def test_log_prob_bad_inputs(sub, ctx):
    """sequence_log_prob: every bad shape, dtype and out-of-vocabulary real token the statement lists raises ValueError

    zh: sequence_log_prob：题面列出的各种形状、dtype 不对或真实 token 超出词表的输入都抛出 ValueError
    """
    rng = random.Random(_seed(ctx, "log_prob refusals"))
    good = specs.log_prob_call(rng, padded=False)
    calls = contract_refusals(sub.sequence_log_prob, good, specs.LOG_PROB_ARGUMENTS, rng, name="sequence_log_prob")
    # A real token outside [0, V) in a row whose padded positions hold -100: only the real ones are checked.
    case = cases.garbage(_seed(ctx, "garbage"))
    real = case.mask.nonzero().tolist()
    for bad in (-1, case.logits.shape[-1]):
        b, t = real[rng.randrange(len(real))]
        tokens = case.tokens.clone()
        tokens[b, t] = bad
        calls.append(
            BadCall(
                sub.sequence_log_prob,
                f"sequence_log_prob() with the real token {bad} at [{b}, {t}] beside garbage padding",
                kwargs={"logits": case.logits, "tokens": tokens, "mask": case.mask},
                public="sequence_log_prob() with a real token outside [0, V) beside garbage padding",
            )
        )
    expect_refused(calls)


@lane_weight(2)
def test_log_prob_legal_corners(sub, ctx):
    """sequence_log_prob: the corners the statement allows (V = 1, B = 1, T = 1, float64, rows all or never padded)

    zh: sequence_log_prob：题面允许的边界情况（V = 1、B = 1、T = 1、float64、整行填充或没有填充）
    """
    rng = random.Random(_seed(ctx, "log_prob corners"))
    good = specs.log_prob_call(rng, padded=True)
    variants = legal_inputs(good, specs.LOG_PROB_ARGUMENTS, rng)
    # Every position of the batch padded, with garbage there: no real token to check (a check of
    # tokens[mask].max() has nothing to reduce), and every row gets 0.
    empty = {
        "logits": torch.full_like(good["logits"], float("nan")),
        "tokens": torch.full_like(good["tokens"], -100),
        "mask": torch.zeros_like(good["mask"]),
    }
    public = Bilingual("every position padded, with garbage there", "所有位置都是填充，且填着垃圾值")
    variants.append(Variant("mask", "all_padding", empty, "mask all False, ids -100, NaN logits", public))

    def check(value, kwargs, public):
        labels = [f"row {b}" for b in range(kwargs["logits"].shape[0])]
        case = cases.LogProbCase(kwargs["logits"], kwargs["tokens"], kwargs["mask"], labels)
        exact, dtype = case.exact.tolist(), case.logits.dtype
        check_log_probs(ctx, value, exact, dtype, what=str(public), labels=labels, mistakes=case.mistakes)

    expect_accepted(sub.sequence_log_prob, "sequence_log_prob", good, variants, check)


# --- greedy -------------------------------------------------------------------------------------


def _expected(rows) -> tuple[list[list[int]], list[float]]:
    return [r.tokens for r in rows], [r.score for r in rows]


def _call(sub, decoder: str, model: cases.Model):
    if decoder == "greedy":
        return sub.greedy_decode(model.start, model.trans, eos_id=model.eos, max_len=model.max_len, pad_id=model.pad)
    return sub.beam_search(
        model.start,
        model.trans,
        eos_id=model.eos,
        max_len=model.max_len,
        pad_id=model.pad,
        beam_width=model.width,
        length_penalty=model.alpha,
    )


def confirmed(sub, decoder: str):
    """``confirm(names)`` for check_decoded: the names the learner's answer on the decoder's witness model
    also shows (a mistake: its answer there; the tie rule: the right answer there, where nothing ties).
    An answer there that is no pair of tensors confirms nothing."""

    def confirm(names: list[str]) -> list[str]:
        witness = cases.beam_witness() if decoder == "beam" else cases.greedy_witness()
        returned = returned_decoded(lambda: _call(sub, decoder, witness), torch.float32)
        if returned is None:
            return []
        same = same_decoded(torch.float32)
        truth = _expected(witness.beam if decoder == "beam" else witness.greedy)
        mistakes = witness.beam_mistakes() if decoder == "beam" else witness.greedy_mistakes()
        there = {text: _expected(rows) for text, rows in mistakes.items()}
        return [
            name
            for name in names
            if (same(truth, returned) if name == TIES else name in there and same(there[name], returned))
        ]

    return confirm


def _decode(sub, ctx, decoder: str, model: cases.Model, what: str, *, dtype=torch.float32, ties: bool = False) -> None:
    """A decoder on ``model`` (cast to ``dtype``), judged against the oracle; a failure names the known
    mistake (or, where ``ties``, a wrong tie order) that reproduces it and the witness confirms."""
    model = model.to(dtype)
    value = _call(sub, decoder, model)
    rows = model.beam if decoder == "beam" else model.greedy

    def mistakes() -> dict:
        found = model.beam_mistakes() if decoder == "beam" else model.greedy_mistakes()
        return {text: _expected(answer) for text, answer in found.items()}

    check_decoded(
        ctx,
        value,
        _expected(rows),
        dtype,
        name="beam_search" if decoder == "beam" else "greedy_decode",
        what=what,
        labels=model.labels,
        mistakes=mistakes,
        tie_rows=range(len(model.labels)) if ties else (),
        tie_diagnosis=TIES if ties else None,
        tie_orders=(lambda: [_expected(a) for a in model.tie_orders(decoder)]) if ties else None,
        rescore=model.rescore(decoder),
        confirm=confirmed(sub, decoder),
    )


def _greedy_model(ctx) -> cases.Model:
    return cases.random_model(_seed(ctx, "greedy model"), 16, 8, 7)


def test_greedy(sub, ctx):
    """greedy_decode: sixteen random models, any eos_id, some ending at once with EOS, some running to max_len

    zh: greedy_decode：十六个随机模型，eos_id 任意，有的第一步就以 EOS 结束，有的一直生成到 max_len
    """
    _decode(sub, ctx, "greedy", _greedy_model(ctx), "greedy_decode")


def test_greedy_pad_is_eos(sub, ctx):
    """greedy_decode: pad_id equal to eos_id; nothing may read pad_id back

    zh: greedy_decode：pad_id 等于 eos_id；任何地方都不能把 pad_id 读回来用
    """
    model = _greedy_model(ctx)
    _decode(sub, ctx, "greedy", model.with_pad(model.eos), "greedy_decode with pad_id = eos_id")


def test_greedy_float64(sub, ctx):
    """greedy_decode: float64 logits give float64 scores

    zh: greedy_decode：float64 的 logits 得到 float64 的得分
    """
    _decode(sub, ctx, "greedy", _greedy_model(ctx), "greedy_decode in float64", dtype=torch.float64)


# --- beam search --------------------------------------------------------------------------------

# The beam mistakes every drawn model of a kind must show (those its width and penalty can show at a
# few rows in a hundred or more: benchmarks/power_042.py). finished_compete needs a finished [EOS]
# outranked by two continuations at once: the constructed crowded() shows it.
_BASE = (
    "transition_wrong_axis",
    "beams_not_deduplicated",
    "finished_beams_dropped",
    "per_beam_best_only",
    "eos_not_first",
)
_PENALTY = ("length_penalty_only_reported", "length_penalty_twice", "length_penalty_ignored", "length_excludes_eos")
_ENDINGS = ("stops_at_first_eos", "unfinished_dropped_at_max_len", "beam_not_shrunk")
WANTED = {
    "width_one": frozenset({"transition_wrong_axis", "eos_not_first"}),
    "narrow": frozenset(_BASE),
    "penalized": frozenset({*_BASE, *_PENALTY, "stops_at_first_eos", "unfinished_dropped_at_max_len"}),
    "wide": frozenset({*_BASE, *_PENALTY, *_ENDINGS}),
    "pad_is_a_token": frozenset({*_BASE, *_PENALTY, *_ENDINGS, "length_counts_non_pad"}),
    "full_width": frozenset({"finished_beams_dropped", *_PENALTY, *_ENDINGS}),
    "one_step": frozenset({"length_excludes_eos", "eos_not_first", "unfinished_dropped_at_max_len"}),
}
BEAM_CALLS = {  # kind -> (rows, V, max_len, beam_width, length_penalty)
    "width_one": (16, 8, 7, 1, 0.0),
    "narrow": (16, 8, 6, 2, 0.0),
    "penalized": (16, 8, 5, 3, 0.6),
    "wide": (16, 8, 7, 4, 1.0),
}


def _beam_model(ctx, kind: str) -> cases.Model:
    rows, vocab, max_len, width, alpha = BEAM_CALLS[kind]
    return cases.random_model(_seed(ctx, f"beam model {kind}"), rows, vocab, max_len, width, alpha, wanted=WANTED[kind])


def test_beam_beats_greedy(sub, ctx):
    """beam_search: the worked example and two variations where greedy misses the most probable sequence

    zh: beam_search：题面的例子及两个变体，贪心错过了概率最大的序列
    """
    _decode(sub, ctx, "beam", cases.greedy_misses(), "beam_search, beam_width=2, where greedy misses")


def test_beam_width_one(sub, ctx):
    """beam_search: beam_width=1 and length_penalty=0 give what greedy decoding gives

    zh: beam_search：beam_width=1 且 length_penalty=0 时与贪心解码的结果相同
    """
    _decode(sub, ctx, "beam", _beam_model(ctx, "width_one"), "beam_search, beam_width=1")


def test_beam_narrow(sub, ctx):
    """beam_search: beam_width=2, no length penalty, sixteen random models

    zh: beam_search：beam_width=2，无长度惩罚，十六个随机模型
    """
    _decode(sub, ctx, "beam", _beam_model(ctx, "narrow"), "beam_search, beam_width=2, length_penalty=0")


@lane_weight(2)
def test_beam_penalized(sub, ctx):
    """beam_search: beam_width=3 and length_penalty=0.6, sixteen random models

    zh: beam_search：beam_width=3、length_penalty=0.6，十六个随机模型
    """
    _decode(sub, ctx, "beam", _beam_model(ctx, "penalized"), "beam_search, beam_width=3, length_penalty=0.6")


@lane_weight(2)
def test_beam_wide(sub, ctx):
    """beam_search: beam_width=4 and length_penalty=1, sixteen random models

    zh: beam_search：beam_width=4、length_penalty=1，十六个随机模型
    """
    _decode(sub, ctx, "beam", _beam_model(ctx, "wide"), "beam_search, beam_width=4, length_penalty=1")


@lane_weight(10)
def test_ties(sub, ctx):
    """greedy_decode and beam_search: exact ties in a step, across parents of unequal log-probability, across steps

    zh: greedy_decode 与 beam_search：同一步内、对数概率不同的父假设之间以及跨步最终选择时的精确并列
    """
    # One case for both decoders: drawing the tie models (each tie verified in every arithmetic) is the
    # judge's dearest work here, done once.
    for model in (cases.tied(), *cases.tie_models(_seed(ctx, "tie models"))):
        _decode(sub, ctx, "greedy", model, "greedy_decode with tied maxima", ties=True)
        _decode(sub, ctx, "beam", model, "beam_search with exact ties", ties=True)


def test_beam_finished_keep_their_place(sub, ctx):
    """beam_search: a finished hypothesis keeps its slot even when later continuations are likelier

    zh: beam_search：即使后来的延续概率更大，已结束的假设也保留它的位置
    """
    _decode(sub, ctx, "beam", cases.crowded(), "beam_search, beam_width=2, a finished [EOS] and likelier continuations")


@lane_weight(2)
def test_beam_pad_is_a_token(sub, ctx):
    """beam_search: pad_id equal to a real token, with length_penalty=1

    zh: beam_search：pad_id 等于一个真实 token，length_penalty=1
    """
    seed = _seed(ctx, "pad is a token")
    model = cases.random_model(seed, 8, 6, 6, width=3, alpha=1.0, pad=None, wanted=WANTED["pad_is_a_token"])
    _decode(sub, ctx, "beam", model, "beam_search with pad_id a real token")


def test_one_step(sub, ctx):
    """greedy_decode and beam_search with max_len=1: the first step is also the last

    zh: max_len=1 的 greedy_decode 与 beam_search：第一步也是最后一步
    """
    seed = _seed(ctx, "one step")
    model = cases.random_model(seed, 8, 6, 1, width=3, alpha=0.5, wanted=WANTED["one_step"])
    _decode(sub, ctx, "greedy", model, "greedy_decode, max_len=1")
    # The same rows with max_len = 2 first, outside the diagnosis: a failure only at max_len = 1 is about it.
    _decode(sub, ctx, "beam", cases.random_model(seed, 8, 6, 2, width=3, alpha=0.5), "beam_search, max_len=2")
    with diagnosed(ONE_STEP, evidence=(Evidence.VALUE, Evidence.RAISED)):
        _decode(sub, ctx, "beam", model, "beam_search, beam_width=3, max_len=1")


def test_beam_ties_across_parents(sub, ctx):
    """beam_search: four candidates tie across two tied parents; the lexicographically smaller two are kept

    zh: beam_search：两个并列父假设产生四个并列候选，保留字典序较小的两个
    """
    _decode(sub, ctx, "beam", cases.tied_across(), "beam_search with ties across parents", ties=True)


@lane_weight(2)
def test_beam_full_width(sub, ctx):
    """beam_search: beam_width = V, the widest valid beam, with length_penalty=0.5

    zh: beam_search：beam_width = V（最宽的合法束），length_penalty=0.5
    """
    seed = _seed(ctx, "full width")
    # beam_width = V - 1 first, outside the diagnosis: refusing it is no evidence that V is refused.
    _decode(sub, ctx, "beam", cases.random_model(seed, 6, 4, 4, width=3, alpha=0.5), "beam_search, beam_width = V - 1")
    model = cases.random_model(seed, 6, 4, 4, width=4, alpha=0.5, wanted=WANTED["full_width"])
    with refused(FULL_WIDTH_REFUSED):
        _decode(sub, ctx, "beam", model, "beam_search, beam_width = V = 4")


@lane_weight(2)
def test_beam_float64(sub, ctx):
    """beam_search: float64 logits give float64 scores

    zh: beam_search：float64 的 logits 得到 float64 的得分
    """
    _decode(sub, ctx, "beam", _beam_model(ctx, "penalized"), "beam_search in float64", dtype=torch.float64)


# @lane_weight: a heavy case's share of a grading's work, so that two lanes finish together;
# measured with `python practice/judge.py lanes 42` on a quiet machine (docs/authoring.md).
@lane_weight(5)
def test_decoders_bad_inputs(sub, ctx):
    """greedy_decode and beam_search: every bad tensor, id, length, width or penalty listed raises ValueError

    zh: greedy_decode 与 beam_search：题面列出的各种不合法的张量、编号、长度、束宽或惩罚都抛出 ValueError
    """
    rng = random.Random(_seed(ctx, "decoder refusals"))
    for beam, function, name in ((False, sub.greedy_decode, "greedy_decode"), (True, sub.beam_search, "beam_search")):
        good, _ = specs.decoder_calls(rng, beam)
        arguments = specs.BEAM_ARGUMENTS if beam else specs.GREEDY_ARGUMENTS
        calls = contract_refusals(function, good, arguments, rng, name=name)
        # V = 1 in both tensors (a spec changes one argument at a time)
        one = {**good, "start_logits": good["start_logits"][:, :1], "eos_id": 0}
        one["transition_logits"] = good["transition_logits"][:, :1, :1]
        if beam:
            one["beam_width"] = 1
        calls.append(BadCall(function, f"{name}() with V = 1", kwargs=one, public=f"{name}() with V = 1"))
        # both logit tensors of one integer dtype: "not floating", though their dtypes agree
        whole = {**good, **{k: good[k].round().long() for k in ("start_logits", "transition_logits")}}
        public = f"{name}() with start_logits and transition_logits both of an integer dtype"
        calls.append(BadCall(function, public, kwargs=whole, public=public))
        expect_refused(calls)
    # the statement's own examples, named as it names them
    start, trans = torch.zeros(2, 5), torch.zeros(2, 5, 5)
    good = {"start_logits": start, "transition_logits": trans, "eos_id": 0, "max_len": 4, "pad_id": -1}
    expect_bad_inputs_refused(
        sub.beam_search,
        [
            BadInput("eos_id = 0.0", {**good, "eos_id": 0.0, "beam_width": 2, "length_penalty": 1.0}),
            BadInput("max_len = 2.0", {**good, "max_len": 2.0, "beam_width": 2, "length_penalty": 1.0}),
            BadInput("eos_id = -1", {**good, "eos_id": -1, "beam_width": 2, "length_penalty": 1.0}),
            BadInput("length_penalty = -5e-324", {**good, "beam_width": 2, "length_penalty": -5e-324}),
        ],
        name="beam_search",
    )


@lane_weight(7)
def test_decoders_legal_corners(sub, ctx):
    """greedy_decode and beam_search: the legal corners (V = 2, B = 1, widths 1 and V, max_len = 1, any pad_id)

    zh: greedy_decode 与 beam_search：题面允许的边界情况（V = 2、B = 1、束宽 1 与 V、max_len = 1、任意 pad_id）
    """
    rng = random.Random(_seed(ctx, "decoder corners"))
    for beam, function, name in ((False, sub.greedy_decode, "greedy_decode"), (True, sub.beam_search, "beam_search")):
        good, variants = specs.decoder_calls(rng, beam, random.Random(rng.getrandbits(64)))

        def check(value, kwargs, public, beam=beam, name=name):
            rows = specs.answers(kwargs, beam)
            dtype = kwargs["start_logits"].dtype
            check_decoded(
                ctx,
                value,
                _expected(rows),
                dtype,
                name=name,
                what=str(public),
                labels=[f"row {b}" for b in range(len(rows))],
                mistakes=dict,
            )

        expect_accepted(function, name, good, variants, check)
