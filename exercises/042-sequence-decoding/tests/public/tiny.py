"""The tiny variant of exercise 42: what "Run" judges in the browser, after the public cases.

It never leaves the public side: no hidden input, no oracle. Its inputs are small enough for the
browser's pure-Python torch (the largest, 160 positions over 8 tokens, is built by formula),
and its answers, with what each known mistake returns on them, were computed by the judge's
float64 oracle and frozen in ``frozen.py`` (tests/exercises/test_042_sequence_decoding.py checks
them against it). The small model of four rows over five tokens was chosen so that every known
decoding mistake returns its own answer there, so a failure always names its mistake.
"""

from __future__ import annotations

import math

import torch

from judge.checks.base import diagnosed
from judge.checks.budget import BudgetDeclaration
from judge.checks.evidence import Evidence
from judge.checks.refusals import BadCall
from judge.i18n import Bilingual

from .checking import (
    check_decoded,
    check_log_probs,
    not_refuted,
    refused,
    rescorer,
    returned_decoded,
    returned_log_probs,
    same_decoded,
    same_log_probs,
)
from .diagnoses import DECODING, FULL_WIDTH_REFUSED, LOG_PROB, ONE_STEP, PADDING_REFUSED, TIES
from .frozen import (
    CROWDED_START,
    CROWDED_TRANS,
    DECODED,
    GARBAGE_INPUTS,
    LARGE_INPUTS,
    LOG_PROB_VALUES,
    PADDED_INPUTS,
    SMALL_START,
    SMALL_TRANS,
    TIE_TEMPLATES,
    TIED_START,
    TIED_TRANS,
)
from .refusals import expect_refused

BUDGET = BudgetDeclaration()  # nothing random: every check is exact

EXAMPLE_START = [[0.01, 0.55, 0.40, 0.04], [0.02, 0.50, 0.45, 0.03], [0.05, 0.70, 0.15, 0.10]]
EXAMPLE_TRANS = [
    [[0.25] * 4, [0.50, 0.20, 0.15, 0.15], [0.90, 0.04, 0.03, 0.03], [0.40, 0.20, 0.20, 0.20]],
    [[0.25] * 4, [0.40, 0.30, 0.20, 0.10], [0.10, 0.05, 0.05, 0.80], [0.95, 0.01, 0.02, 0.02]],
    [[0.25] * 4, [0.05, 0.05, 0.50, 0.40], [0.40, 0.30, 0.20, 0.10], [0.96, 0.02, 0.01, 0.01]],
]


def _frozen_mistakes(name: str) -> dict:
    mistakes = LOG_PROB_VALUES[name]["mistakes"]
    return {text: mistakes[key] for key, text in LOG_PROB.items() if key in mistakes}


def _log_prob(sub, ctx, name: str, logits, tokens, mask, what: str, *, separating: str | None = None) -> None:
    """``sequence_log_prob`` on the frozen case ``name``; ``separating``: another frozen case where
    mistakes that coincide on this one differ (the learner's answer there, asked only on failure,
    refutes some of them)."""
    frozen = LOG_PROB_VALUES[name]
    value = sub.sequence_log_prob(logits, tokens, mask)

    def mistakes() -> dict:
        if separating is None:
            return _frozen_mistakes(name)
        returned = returned_log_probs(lambda: sub.sequence_log_prob(*SEPARATING_INPUTS[separating]()))
        return not_refuted(
            _frozen_mistakes(name), _frozen_mistakes(separating), returned, same_log_probs(torch.float32)
        )

    check_log_probs(
        ctx,
        value,
        frozen["expected"],
        torch.float32,
        what=what,
        labels=[f"row {row}" for row in range(len(frozen["expected"]))],
        mistakes=mistakes,
    )


def _decoded(value) -> tuple:
    return value[0], value[1]


def _confirmed(sub, kind: str):
    """``confirm(names)`` for check_decoded: the names the learner's answer on the small models (beam_width 3,
    length_penalty 0.6, max_len 5), asked only now, also shows (the tie rule: the right answer there)."""

    def confirm(names: list[str]) -> list[str]:
        start, trans = torch.tensor(SMALL_START), torch.tensor(SMALL_TRANS)
        if kind == "beam":
            call = lambda: sub.beam_search(  # noqa: E731
                start, trans, eos_id=0, max_len=5, pad_id=-1, beam_width=3, length_penalty=0.6
            )
        else:
            call = lambda: sub.greedy_decode(start, trans, eos_id=0, max_len=5, pad_id=-1)  # noqa: E731
        returned = returned_decoded(call, torch.float32)
        if returned is None:
            return []
        frozen, same = DECODED["small"], same_decoded(torch.float32)
        there = {
            text: _decoded(frozen[f"{kind}_mistakes"][key])
            for key, text in DECODING.items()
            if key in frozen[f"{kind}_mistakes"]
        }
        truth = _decoded(frozen[kind])
        return [n for n in names if (same(truth, returned) if n == TIES else n in there and same(there[n], returned))]

    return confirm


def _check(ctx, value, model: str, kind: str, name: str, what: str, rescore=None, confirm=None) -> None:
    """``rescore``: the true score of a returned row (check_decoded), for a model about ties; its frozen
    wrong tie orders, where it has them, name the tie rule too."""
    frozen = DECODED[model]
    ties = rescore is not None
    orders = frozen.get("tie_orders", [])
    rows = len(frozen[kind][0])
    check_decoded(
        ctx,
        value,
        _decoded(frozen[kind]),
        torch.float32,
        name=name,
        what=what,
        labels=[f"row {row}" for row in range(rows)],
        tie_rows=range(rows) if ties else (),
        tie_diagnosis=TIES if ties else None,
        rescore=rescore,
        tie_orders=(lambda: [_decoded(answer) for answer in orders]) if ties else None,
        confirm=confirm,
        mistakes=lambda: {
            text: _decoded(frozen[f"{kind}_mistakes"][key])
            for key, text in DECODING.items()
            if key in frozen[f"{kind}_mistakes"]
        },
    )


def _log(rows):
    """Logits as the logs of the probabilities, taken in double precision like the oracle's."""
    return torch.tensor(
        [[math.log(p) for p in row] for row in rows]
        if not isinstance(rows[0][0], list)
        else [[[math.log(p) for p in row] for row in rows_b] for rows_b in rows]
    )


def test_tiny_log_prob_padding(sub, ctx):
    """sequence_log_prob: left and right padding

    zh: sequence_log_prob：左侧填充与右侧填充
    """
    _log_prob(
        sub,
        ctx,
        "padded",
        torch.tensor(PADDED_INPUTS["logits"]),
        torch.tensor(PADDED_INPUTS["tokens"]),
        torch.tensor(PADDED_INPUTS["mask"]),
        "sequence_log_prob with padding",
    )


def test_tiny_log_prob_garbage(sub, ctx):
    """sequence_log_prob: padded positions hold id -100 and NaN or infinite logits

    zh: sequence_log_prob：填充位置的编号为 -100，logits 为 NaN 或无穷大
    """
    logits, tokens, mask = (torch.tensor(GARBAGE_INPUTS[key]) for key in ("logits", "tokens", "mask"))
    # In-range ids at the padded positions first: a crash there is no evidence that -100 is gathered.
    with refused(PADDING_REFUSED):
        sub.sequence_log_prob(logits, tokens.masked_fill(~mask, 0), mask)
    with diagnosed(LOG_PROB["padding_ids_gathered"], raised_only=True), refused(PADDING_REFUSED):
        _log_prob(sub, ctx, "garbage", logits, tokens, mask, "sequence_log_prob with garbage at padded positions")


def test_tiny_log_prob_long(sub, ctx):
    """sequence_log_prob: 160 tokens, a probability near 1e-415

    zh: sequence_log_prob：160 个 token，概率约为 1e-415
    """
    _log_prob(sub, ctx, "long", *_long_inputs(), "sequence_log_prob of a long sequence")


def _long_inputs() -> tuple:
    """The long case's logits, tokens and mask, built by formula: 160 positions over 8 tokens."""
    length, vocab = 160, 8
    logits = torch.tensor([[[((7 * t + 3 * v) % 11) * 1.2 for v in range(vocab)] for t in range(length)]])
    tokens = torch.tensor([[(5 * t + 1) % vocab for t in range(length)]])
    return logits, tokens, torch.ones(1, length, dtype=torch.bool)


SEPARATING_INPUTS = {"long": _long_inputs}


def test_tiny_log_prob_large(sub, ctx):
    """sequence_log_prob: logits near 1000, and tokens 1000 behind the leader

    zh: sequence_log_prob：logits 约为 1000，且有比最大值低约 1000 的 token
    """
    logits = torch.tensor(LARGE_INPUTS["logits"])
    tokens = torch.tensor(LARGE_INPUTS["tokens"])
    # log(softmax) and a product in linear space both give -inf here; on the long sequence only the
    # product underflows: the learner's answer there tells them apart.
    _log_prob(
        sub,
        ctx,
        "large",
        logits,
        tokens,
        torch.ones(2, 4, dtype=torch.bool),
        "sequence_log_prob with large logits",
        separating="long",
    )


def test_tiny_greedy(sub, ctx):
    """greedy_decode: four small models

    zh: greedy_decode：四个小模型
    """
    value = sub.greedy_decode(torch.tensor(SMALL_START), torch.tensor(SMALL_TRANS), eos_id=0, max_len=5, pad_id=-1)
    _check(ctx, value, "small", "greedy", "greedy_decode", "greedy_decode(small models)")


def test_tiny_beam_beats_greedy(sub, ctx):
    """beam_search: three models where greedy misses the most probable sequence

    zh: beam_search：三个贪心会错过最可能序列的模型
    """
    value = sub.beam_search(
        _log(EXAMPLE_START), _log(EXAMPLE_TRANS), eos_id=0, max_len=4, pad_id=-1, beam_width=2, length_penalty=0.0
    )
    _check(ctx, value, "example", "beam", "beam_search", "beam_search(beam_width=2, where greedy misses)")


def test_tiny_beam(sub, ctx):
    """beam_search: beam_width=3 and length_penalty=0.6 on four small models

    zh: beam_search：四个小模型上 beam_width=3、length_penalty=0.6
    """
    value = sub.beam_search(
        torch.tensor(SMALL_START),
        torch.tensor(SMALL_TRANS),
        eos_id=0,
        max_len=5,
        pad_id=-1,
        beam_width=3,
        length_penalty=0.6,
    )
    _check(ctx, value, "small", "beam", "beam_search", "beam_search(beam_width=3, length_penalty=0.6)")


def test_tiny_ties(sub, ctx):
    """greedy_decode and beam_search: exact ties go to the lowest id and the lexicographically smaller sequence

    zh: greedy_decode 与 beam_search：精确并列时取编号最小的 token、字典序较小的序列
    """
    start, trans = torch.tensor(TIED_START), torch.tensor(TIED_TRANS)
    value = sub.greedy_decode(start, trans, eos_id=0, max_len=5, pad_id=-1)
    greedy_rescore = rescorer(TIED_START, TIED_TRANS, 0, -1, 0.0)
    _check(ctx, value, "tied", "greedy", "greedy_decode", "greedy_decode(tied maxima)", greedy_rescore)
    value = sub.beam_search(start, trans, eos_id=0, max_len=5, pad_id=-1, beam_width=3, length_penalty=0.5)
    _check(
        ctx,
        value,
        "tied",
        "beam",
        "beam_search",
        "beam_search(exact ties)",
        rescorer(TIED_START, TIED_TRANS, 0, -1, 0.5),
    )


def test_tiny_tie_rule(sub, ctx):
    """beam_search: exact ties across parents of unequal log-probability, across tied parents, across steps

    zh: beam_search：对数概率不同的父假设之间、两个并列父假设之间以及跨步最终选择时的精确并列
    """
    for name, model in TIE_TEMPLATES.items():
        value = sub.beam_search(
            torch.tensor(model["start"]),
            torch.tensor(model["trans"]),
            eos_id=0,
            max_len=model["max_len"],
            pad_id=-1,
            beam_width=model["width"],
            length_penalty=model["alpha"],
        )
        rescore = rescorer(model["start"], model["trans"], 0, -1, model["alpha"])
        what = f"beam_search(exact ties, {name})"
        _check(ctx, value, f"template_{name}", "beam", "beam_search", what, rescore, _confirmed(sub, "beam"))


def test_tiny_corners(sub, ctx):
    """beam_search with beam_width = V, and both decoders with max_len = 1

    zh: beam_width = V 的 beam_search，以及 max_len = 1 的两个解码函数
    """
    start, trans = torch.tensor(SMALL_START), torch.tensor(SMALL_TRANS)

    def beam(width: int, max_len: int):
        return sub.beam_search(start, trans, eos_id=0, max_len=max_len, pad_id=-1, beam_width=width, length_penalty=0.6)

    # beam_width = 3 and max_len = 5 first, outside the diagnoses: a failure there is about neither corner.
    _check(ctx, beam(3, 5), "small", "beam", "beam_search", "beam_search(beam_width=3, length_penalty=0.6)")
    with refused(FULL_WIDTH_REFUSED):
        _check(ctx, beam(5, 5), "small_full_width", "beam", "beam_search", "beam_search(beam_width = V = 5)")
    value = sub.greedy_decode(start, trans, eos_id=0, max_len=1, pad_id=-1)
    _check(ctx, value, "small_one_step", "greedy", "greedy_decode", "greedy_decode(max_len=1)")
    with diagnosed(ONE_STEP, evidence=(Evidence.VALUE, Evidence.RAISED)):
        _check(ctx, beam(3, 1), "small_one_step", "beam", "beam_search", "beam_search(max_len=1)")


def _bad(function, name: str, en: str, zh: str, **kwargs) -> BadCall:
    """A bad call, named in the words of the hidden suite's generated calls (the same diagnosis)."""
    public = Bilingual(f"{name}() with {en}", f"{name}() 收到{zh}时")
    return BadCall(function, f"{name}() with {en}", kwargs=kwargs, public=public)


def test_tiny_bad_inputs(sub, ctx):
    """every function: one bad input of each kind the statement lists raises ValueError

    zh: 每个函数：题面列出的每一类非法输入各举一例，都抛出 ValueError
    """
    logits = torch.tensor(PADDED_INPUTS["logits"])
    tokens, mask = torch.tensor(PADDED_INPUTS["tokens"]), torch.tensor(PADDED_INPUTS["mask"])
    f, name = sub.sequence_log_prob, "sequence_log_prob"
    calls = [
        _bad(
            f,
            name,
            "logits with one dimension fewer",
            "少一个维度的 logits",
            logits=logits[0],
            tokens=tokens,
            mask=mask,
        ),
        _bad(f, name, "tokens of an integer dtype", "整数类型的 tokens", logits=logits, tokens=tokens.int(), mask=mask),
        _bad(f, name, "mask of an integer dtype", "整数类型的 mask", logits=logits, tokens=tokens, mask=mask.long()),
        _bad(
            f, name, "tokens holding a negative id", "含负数 id 的 tokens", logits=logits, tokens=tokens - 1, mask=mask
        ),
        _bad(
            f, name, "tokens holding an id >= V", "含 >= V 的 id 的 tokens", logits=logits, tokens=tokens + 1, mask=mask
        ),
    ]
    start, trans = torch.tensor(SMALL_START), torch.tensor(SMALL_TRANS)
    good = {"start_logits": start, "transition_logits": trans, "eos_id": 0, "max_len": 3, "pad_id": -1}
    one = {**good, "start_logits": start[:, :1], "transition_logits": trans[:, :1, :1]}
    infinite = start.clone()
    infinite[0, 2] = float("inf")
    for f, name, more in (
        (sub.greedy_decode, "greedy_decode", {}),
        (sub.beam_search, "beam_search", {"beam_width": 2, "length_penalty": 0.5}),
    ):
        calls += [
            _bad(
                f,
                name,
                "start_logits with one dimension fewer",
                "少一个维度的 start_logits",
                **{**good, **more, "start_logits": start[0]},
            ),
            _bad(
                f,
                name,
                "transition_logits of another dtype than start_logits",
                "dtype 与 start_logits 不同的 transition_logits",
                **{**good, **more, "transition_logits": trans.double()},
            ),
            _bad(
                f,
                name,
                "start_logits holding +inf",
                "含 +inf 的 start_logits",
                **{**good, **more, "start_logits": infinite},
            ),
            _bad(f, name, "V = 1", "V = 1", **{**one, **more, **({"beam_width": 1} if more else {})}),
            _bad(f, name, "eos_id below 0", "小于 0 的 eos_id", **{**good, **more, "eos_id": -1}),
            _bad(
                f,
                name,
                "eos_id as a whole float (such as 2.0)",
                "整数值浮点数形式的 eos_id",
                **{**good, **more, "eos_id": 0.0},
            ),
            _bad(f, name, "max_len below 1", "小于 1 的 max_len", **{**good, **more, "max_len": 0}),
            _bad(
                f,
                name,
                "max_len as a whole float (such as 2.0)",
                "整数值浮点数形式的 max_len",
                **{**good, **more, "max_len": 3.0},
            ),
        ]
    beam = {**good, "beam_width": 2, "length_penalty": 0.5}
    calls += [
        _bad(sub.beam_search, "beam_search", "beam_width below 1", "小于 1 的 beam_width", **{**beam, "beam_width": 0}),
        _bad(sub.beam_search, "beam_search", "beam_width above V", "大于 V 的 beam_width", **{**beam, "beam_width": 6}),
        _bad(
            sub.beam_search,
            "beam_search",
            "NaN as length_penalty",
            "length_penalty 为 NaN",
            **{**beam, "length_penalty": float("nan")},
        ),
        _bad(
            sub.beam_search,
            "beam_search",
            "a negative value as length_penalty",
            "length_penalty 为负值",
            **{**beam, "length_penalty": -0.5},
        ),
    ]
    expect_refused(calls)


def test_tiny_finished_keep_their_place(sub, ctx):
    """beam_search: a finished [EOS] keeps its slot even when later continuations are likelier

    zh: beam_search：即使后来的延续概率更大，已结束的 [EOS] 也保留它的位置
    """
    value = sub.beam_search(
        torch.tensor(CROWDED_START),
        torch.tensor(CROWDED_TRANS),
        eos_id=0,
        max_len=3,
        pad_id=-1,
        beam_width=2,
        length_penalty=0.0,
    )
    _check(ctx, value, "crowded", "beam", "beam_search", "beam_search(a finished [EOS] and likelier continuations)")
    value = sub.greedy_decode(torch.tensor(CROWDED_START), torch.tensor(CROWDED_TRANS), eos_id=0, max_len=3, pad_id=-1)
    _check(ctx, value, "crowded", "greedy", "greedy_decode", "greedy_decode(EOS the likeliest first token in row 3)")
