"""Red-team attacks on calls expected to raise sent in one request (``op: refusals``): for each
learner, hostile or only unusual, the report of the batch is the report of the calls one after
the other (``LearnerProcess.refusals`` deleted), but for the functions a message names where the
process failed inside a batch; no learner makes the judge fail, hang or hold unbounded memory."""

from __future__ import annotations

import re
import textwrap

import pytest

from judge.engine.runner import judge_file
from judge.sandbox.launchers import WarmLocalLauncher
from judge.verdicts import Verdict
from tests.judge.refusals_support import batched_and_one_by_one, refusals_exercise

ROWS = 100  # rows of the big table: more than any exercise's table today (39's has 43)

TESTS = f'''
import torch

from judge.checks.exact import expect
from judge.checks.refusals import BadCall, expect_bad_inputs_refused, expect_calls_refused


def test_table(sub, ctx):
    """Bad inputs over two functions

    zh: 两个函数的非法输入
    """
    x = torch.arange(4.0)
    g = ctx.generator()
    expect_calls_refused([
        BadCall(getattr(sub, name), f"{{name}}() with bad input {{k}}", args=(x,), kwargs={{"k": k, "g": g}},
                public=f"{{name}}() with a bad input")
        for k in range(1, 6) for name in ("refuse", "other")
    ])


def test_seeded(sub, ctx):
    """The same under a global seed and extreme uniforms

    zh: 全局种子与极端均匀数之下
    """
    x = torch.arange(4.0)
    for source in (sub.with_global_seed(11), sub.with_extreme_uniforms(12)):
        expect_calls_refused([
            BadCall(getattr(source, name), f"{{name}}() seeded with {{k}}", args=(x,), kwargs={{"k": k, "g": None}})
            for k in range(1, 4) for name in ("refuse", "other")
        ])


def test_big(sub, ctx):
    """A big table

    zh: 大表
    """
    expect_bad_inputs_refused(sub.refuse, [(f"k = {{k}}", {{"k": k}}) for k in range(1, {ROWS} + 1)],
                              args=(torch.ones(3),), extra=lambda: {{"g": ctx.generator()}})


def test_after(sub, ctx):
    """A case after the tables, in the same process

    zh: 之后的用例
    """
    expect(sub.refuse(torch.ones(2), k=0, g=None) == 0, "refuse(k=0) returns 0")
'''

COMMON = "import os, sys, time\nimport torch\n\nSTATE = {'calls': 0}\n\n"


def _learner(body: str) -> str:
    return COMMON + textwrap.dedent(body) + "\n\ndef other(x, k, g=None):\n    return refuse(x, k, g)\n"


# Each body defines refuse(x, k, g); k = 0 is the one good input.
ATTACKS = {
    # --- exceptions of every kind
    "refuses everything": """
        def refuse(x, k, g=None):
            if k:
                raise ValueError(f'bad k {k}')
            return 0
    """,
    "keyboard interrupt at k = 3": """
        def refuse(x, k, g=None):
            if k == 3:
                raise KeyboardInterrupt('stop')
            if k:
                raise ValueError('bad')
            return 0
    """,
    "system exit with a message at k = 2": """
        def refuse(x, k, g=None):
            if k == 2:
                raise SystemExit('bye')
            if k:
                raise ValueError('bad')
            return 0
    """,
    "generator exit at k = 4": """
        def refuse(x, k, g=None):
            if k == 4:
                raise GeneratorExit('closed')
            if k:
                raise ValueError('bad')
            return 0
    """,
    "a BaseException subclass named ValueError": """
        class ValueError(BaseException):
            pass

        def refuse(x, k, g=None):
            if k:
                raise ValueError('bad')
            return 0
    """,
    "a subclass of ValueError named like a builtin one": """
        class UnicodeError(Exception):
            pass

        def refuse(x, k, g=None):
            if k == 7:
                raise UnicodeError('not really')
            if k:
                raise ValueError('bad')
            return 0
    """,
    "recursion error at k = 3": """
        def deep(n):
            return deep(n + 1) + 1

        def refuse(x, k, g=None):
            if k == 3:
                deep(0)
            if k:
                raise ValueError('bad')
            return 0
    """,
    "ValueError from deep recursion": """
        def deep(n):
            if n > 400:
                raise ValueError('deep ' * 1000)
            return deep(n + 1)

        def refuse(x, k, g=None):
            if k:
                deep(0)
            return 0
    """,
    "a __str__ that changes each time": """
        class Odd(ValueError):
            def __str__(self):
                STATE['calls'] += 1
                return '' if STATE['calls'] % 3 else 'now a message'

        def refuse(x, k, g=None):
            if k:
                raise Odd()
            return 0
    """,
    "a __str__ that spins": """
        class Odd(ValueError):
            def __str__(self):
                while STATE['calls'] >= 0:
                    pass
                return 'never'

        def refuse(x, k, g=None):
            if k == 4:
                raise Odd()
            if k:
                raise ValueError('bad')
            return 0
    """,
    "a __str__ that raises SystemExit": """
        class Odd(ValueError):
            def __str__(self):
                raise SystemExit(3)

        def refuse(x, k, g=None):
            if k:
                raise Odd()
            return 0
    """,
    "odd names and messages": """
        def refuse(x, k, g=None):
            if k:
                raise ValueError('\\ud800 \\x00 \\u200b' + '\\n' * (k % 3) + '"\\\\' * k)
            return 0
    """,
    # --- state, inputs, randomness
    "keeps count": """
        def refuse(x, k, g=None):
            STATE['calls'] += 1
            if k and STATE['calls'] < 9:
                raise ValueError(f"call {STATE['calls']}")
            return STATE['calls']
    """,
    "changes its input and raises": """
        def refuse(x, k, g=None):
            if k:
                if x.sum() != 6:
                    return 'saw a changed input'
                x += 1
                raise ValueError('bad')
            return 0
    """,
    "keeps its inputs and compares": """
        SEEN = []

        def refuse(x, k, g=None):
            if k:
                if any(s is x or s.data_ptr() == x.data_ptr() for s in SEEN):
                    return 'an input shared with an earlier call'
                SEEN.append(x)
                raise ValueError('bad')
            return 0
    """,
    "draws from the generator it is given": """
        def refuse(x, k, g=None):
            if k and g is not None:
                u = torch.rand(1, generator=g).item()
                STATE.setdefault('draws', []).append(u)
                if len(set(STATE['draws'])) != len(STATE['draws']):
                    return 'the same draws twice'
            if k:
                raise ValueError('bad')
            return 0
    """,
    "decides by the global generator": """
        def refuse(x, k, g=None):
            # Seeded only under sub.with_global_seed (g is None there), so the verdict is the same
            # in every run.
            if k and g is None and torch.rand(()).item() < 0.3:
                return 'accepted by chance'
            if k:
                raise ValueError('bad')
            return 0
    """,
    "a generator function": """
        def refuse(x, k, g=None):
            if k == 3:
                yield 1
            raise ValueError('bad')
    """,
    "returns a tensor that aliases an earlier input": """
        KEPT = []

        def refuse(x, k, g=None):
            KEPT.append(x)
            if k == 5:
                return KEPT[0]
            if k:
                raise ValueError('bad')
            return 0
    """,
    # --- resources
    "prints a flood": """
        def refuse(x, k, g=None):
            print('x' * 1_000_000)
            if k:
                raise ValueError('bad')
            return 0
    """,
    "prints past the output limit at k = 4": """
        def refuse(x, k, g=None):
            if k == 4:
                while True:
                    sys.stdout.write('y' * 1_000_000)
            if k:
                raise ValueError('bad')
            return 0
    """,
    "catches the output limit and refuses": """
        def refuse(x, k, g=None):
            try:
                while k == 4:
                    sys.stdout.write('y' * 1_000_000)
                    sys.stdout.flush()
            except OSError:
                pass
            if k:
                raise ValueError('bad')
            return 0
    """,
    "runs out of memory at k = 3": """
        def refuse(x, k, g=None):
            if k == 3:
                STATE['hog'] = [bytearray(1 << 26) for _ in range(10_000)]
            if k:
                raise ValueError('bad')
            return 0
    """,
    "catches MemoryError and refuses": """
        def refuse(x, k, g=None):
            if k == 3:
                try:
                    STATE['hog'] = [bytearray(1 << 26) for _ in range(10_000)]
                except MemoryError:
                    STATE.pop('hog', None)
            if k:
                raise ValueError('bad')
            return 0
    """,
    "a message about memory": """
        def refuse(x, k, g=None):
            if k:
                raise ValueError('CUDA out of memory. Tried to allocate')
            return 0
    """,
    "dies quietly at k = 60": """
        def refuse(x, k, g=None):
            if k == 60:
                os.kill(os.getpid(), 9)
            if k:
                raise ValueError('bad')
            return 0
    """,
    # --- long answers: many refusals, each as long as a description can be
    "long ASCII messages": """
        def refuse(x, k, g=None):
            if k:
                raise ValueError(f'bad k {k}: ' + repr(list(range(4000))))
            return 0
    """,
    "long messages of escaped characters": """
        def refuse(x, k, g=None):
            if k:
                raise ValueError('\\x01' * 4000)
            return 0
    """,
    "long messages of wide characters": """
        def refuse(x, k, g=None):
            if k:
                raise ValueError('参数错误' * 1000)
            return 0
    """,
}

# Where the process fails inside a batch, the message names the batch's functions.
FAILING_PROCESSES = {
    "a __str__ that spins",
    "prints past the output limit at k = 4",
    "prints a flood",
    "catches the output limit and refuses",
    "runs out of memory at k = 3",
    "catches MemoryError and refuses",
    "dies quietly at k = 60",
}


@pytest.fixture(scope="module")
def exercise(tmp_path_factory):
    folder = tmp_path_factory.mktemp("attacks") / "908-refusal-attacks"
    return refusals_exercise(folder, TESTS, ("x", "k", "g"), time_limit_s=2.0, wall_limit_s=8.0)


@pytest.fixture(scope="module")
def warm():
    with WarmLocalLauncher() as launcher:
        yield launcher


def _named(message: str) -> str:
    """A message that names one of the functions where a process failed, as a batch's names them."""
    message = message.replace("refuse() or other()", "refuse()")
    return re.sub(r"(?<![\w.])(refuse|other)\(\)(?! with| seeded)", "refuse() or other()", message)


def summary(report, loose: bool) -> tuple:
    def text(message: str) -> str:
        message = re.sub(r"internal error [0-9a-f]+", "internal error", message)  # a fresh id each time
        return _named(message) if loose else message

    cases = [(c.name, c.verdict, text(c.message), c.diagnosis, c.rule) for c in report.cases]
    message = text(report.message)
    return report.verdict, message, report.diagnosis, cases, report.false_failure_budget


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_an_attack_gets_the_report_of_one_call_at_a_time(name, exercise, warm, learner_file, monkeypatch):
    path = learner_file(_learner(ATTACKS[name]))
    batched, one_by_one = batched_and_one_by_one(exercise, path, monkeypatch, launcher=warm)
    loose = name in FAILING_PROCESSES
    assert summary(batched, loose) == summary(one_by_one, loose)
    assert batched.verdict is not Verdict.IE, batched.message


def _exercise(folder, tests: str, time_limit_s: float = 2.0):
    return refusals_exercise(folder, tests, ("x", "k", "g"), time_limit_s=time_limit_s, wall_limit_s=20.0)


WIDE_TABLE = """
    import torch

    from judge.checks.refusals import expect_bad_inputs_refused


    def test_wide(sub, ctx):
        '''A table whose rows each carry five tensors: more than one frame may hold (1024)

        zh: 每行带五个张量的表
        '''
        expect_bad_inputs_refused(sub.refuse, [(f"k = {k}", {"k": k, "g": [torch.ones(1)] * 4}) for k in range(1, 301)],
                                  args=(torch.ones(2),))


    def test_long(sub, ctx):
        '''A table of more calls than one request takes (256)

        zh: 调用数超过一次请求上限的表
        '''
        expect_bad_inputs_refused(sub.refuse, [(f"k = {k}", {"k": k}) for k in range(1, 301)], args=(torch.ones(2),))
"""


@pytest.mark.parametrize("name", ["refuses everything", "accepts k = 280", "dies quietly at k = 60"])
def test_a_table_bigger_than_one_request_is_judged_as_one_at_a_time(name, tmp_path, warm, learner_file, monkeypatch):
    """A batch takes the calls one frame to the child holds; the rest go one at a time. (Before,
    the child refused the frame, and every learner got RE.)"""
    exercise = _exercise(tmp_path / "909-wide", WIDE_TABLE)
    body = (
        ATTACKS.get(name)
        or "def refuse(x, k, g=None):\n    if k and k != 280:\n        raise ValueError('bad')\n    return 0\n"
    )
    path = learner_file(_learner(body))
    batched, one_by_one = batched_and_one_by_one(exercise, path, monkeypatch, launcher=warm)
    if name == "refuses everything":
        assert one_by_one.verdict is Verdict.AC, one_by_one.message
    assert summary(batched, name in FAILING_PROCESSES) == summary(one_by_one, name in FAILING_PROCESSES)


LONG_TABLE = """
    import torch

    from judge.checks.refusals import expect_bad_inputs_refused


    def test_long(sub, ctx):
        '''A long table

        zh: 长表
        '''
        expect_bad_inputs_refused(sub.refuse, [(f"k = {k}", {"k": k}) for k in range(1, 201)], args=(torch.ones(2),))
"""


@pytest.mark.xfail(
    strict=True,
    reason="the CPU watch reads the clock every 100 ms of one wait: one call at a time, calls shorter than "
    "that are never watched, and the case's CPU total is checked only when it passed (runner._run_case), "
    "so a wrong answer after the limit is WA; a batch is one long wait, watched, so TLE. Which one the "
    "calls one at a time give already depends on the machine's load (a call slowed past 100 ms is "
    "watched); a verdict that does not, either way, is the runner's to decide (TLE for any case past "
    "its CPU time, or the child stopping a batch at the case's CPU time so the rest go one at a time). "
    "Where every call is refused, both are TLE, with other messages: 'your calls used up the test case's "
    "CPU time of 1 s (1.61 s in all)' one at a time, 'refuse() used up the test case's CPU time of 1 s' "
    "in a batch",
)
def test_a_table_past_the_cases_cpu_time_in_short_calls(tmp_path, warm, learner_file, monkeypatch):
    exercise = _exercise(tmp_path / "910-long", LONG_TABLE, time_limit_s=1.0)
    body = """
        def refuse(x, k, g=None):
            t = time.process_time()
            while time.process_time() - t < 0.008:
                pass
            if k and k != 200:
                raise ValueError('bad')
            return 0
    """
    batched, one_by_one = batched_and_one_by_one(exercise, learner_file(_learner(body)), monkeypatch, launcher=warm)
    assert one_by_one.cases[0].verdict is Verdict.WA, one_by_one.cases[0].message
    assert summary(batched, True) == summary(one_by_one, True)


FORGER = """
    from judge.learner import wire

    INFO = {"type": "ValueError", "message": "bad", "line": 1, "traceback": "", "memory": False}

    def _frames():
        frame = sys._getframe()
        while frame is not None:
            yield frame
            frame = frame.f_back

    def forge(header, payloads=()):
        outbox = next(f.f_locals["outbox"] for f in _frames() if "outbox" in f.f_locals)
        header.setdefault("tensors", [])
        wire.write_frame(outbox, header, payloads)

    def batch():
        '''The calls of the request being answered (the judge's side of them is the learner's to see).'''
        request = next((f.f_locals["request"] for f in _frames() if f.f_locals.get("request", {}).get("op")), {})
        return request.get("calls", [None])
"""

FORGERIES = {
    "thousands of refusals": "forge({'refused': [INFO] * 5000, 'refused_ms': [0.0] * 5000})",
    "a header past its room": "forge({'refused': [INFO], 'refused_ms': [0.0], 'pad': 'x' * (40 << 20)})",
    "every call refused, then the real answer": (
        "forge({'refused': [INFO] * len(batch()), 'refused_ms': [0.0] * len(batch())})"
    ),
    "every call refused, then exits": (
        "forge({'refused': [INFO] * len(batch()), 'refused_ms': [0.0] * len(batch())}); os._exit(0)"
    ),
    "refusals and a tensor value": (
        "v = torch.ones(3); forge({'refused': [INFO] * (len(batch()) - 1),"
        " 'refused_ms': [0.0] * (len(batch()) - 1), 'ok': True,"
        " 'elapsed_ms': 0.0, 'modified': [], 'value': {'$tensor': 0},"
        " 'tensors': [{'dtype': 'float32', 'shape': [3], 'nbytes': 12, 'device': 'cpu'}]}, [v.numpy().tobytes()])"
    ),
    "tensors no answer refers to": (
        "forge({'refused': [INFO] * len(batch()), 'refused_ms': [0.0] * len(batch()),"
        " 'tensors': [{'dtype': 'uint8', 'shape': [50 << 20], 'nbytes': 50 << 20, 'device': 'cpu'}]},"
        " [bytes(50 << 20)])"
    ),
    "a refusal of a type the judge does not accept": (
        "forge({'refused': [{**INFO, 'type': 'KeyError'}] * len(batch()), 'refused_ms': [0.0] * len(batch())})"
    ),
}


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_a_forged_refusals_reply_gains_nothing(name, exercise, warm, learner_file):
    """A learner that writes its own reply to the judge's pipe (it shares the child's process) gets
    an RE, a WA, or what it could get by raising ValueError itself: never an internal error, and a
    submission whose functions accept every bad input never passes."""
    body = f"""
        def refuse(x, k, g=None):
            {FORGERIES[name]}
            return 0
    """
    source = _learner(textwrap.dedent(FORGER) + textwrap.dedent(body))
    report = judge_file(exercise, learner_file(source), seed=908, launcher=warm)
    verdicts = [c.verdict for c in report.cases]
    assert verdicts[0] is not Verdict.SK, report.message  # it loaded, and forged
    assert Verdict.IE not in verdicts and report.verdict is not Verdict.IE, report.message
    assert report.verdict is not Verdict.AC, [(c.name, c.verdict, c.message) for c in report.cases]


@pytest.fixture(scope="module")
def strict():
    from judge.sandbox.layers import missing_required

    missing = missing_required()
    if missing:
        pytest.skip("strict sandbox unavailable here: " + ", ".join(layer.name for layer in missing))
    from judge.sandbox.strict import StrictLauncher

    launcher = StrictLauncher(slots=2)
    yield launcher
    launcher.close()


STRICT_ATTACKS = [
    "refuses everything",
    "keeps count",
    "changes its input and raises",
    "a __str__ that raises SystemExit",
    "long messages of escaped characters",
    "dies quietly at k = 60",
    "runs out of memory at k = 3",
    "prints past the output limit at k = 4",
]


@pytest.mark.strict_sandbox
@pytest.mark.parametrize("name", STRICT_ATTACKS)
def test_an_attack_in_the_strict_sandbox_on_two_lanes(name, exercise, strict, learner_file, monkeypatch):
    path = learner_file(_learner(ATTACKS[name]))
    batched, one_by_one = batched_and_one_by_one(exercise, path, monkeypatch, launcher=strict, lanes=2)
    loose = name in FAILING_PROCESSES
    assert summary(batched, loose) == summary(one_by_one, loose)
    assert batched.verdict is not Verdict.IE, batched.message
    if name == "refuses everything":
        assert batched.verdict is Verdict.AC, batched.message


ODD_INPUT_TABLE = """
    import torch

    from judge.checks.refusals import expect_bad_inputs_refused


    def test_odd(sub, ctx):
        '''A table whose fifth row holds an input the wire cannot carry (the exercise's mistake)

        zh: 第五行的输入无法传送
        '''
        rows = [(f"k = {k}", {"k": k}) for k in range(1, 5)] + [("k = an object", {"k": object()})]
        expect_bad_inputs_refused(sub.refuse, rows, args=(torch.ones(2),))
"""


@pytest.mark.parametrize("accepts", [3, None])
def test_an_input_the_wire_cannot_carry_fails_where_the_call_would(accepts, tmp_path, warm, learner_file, monkeypatch):
    """One call at a time, a learner that accepts k = 3 is WA before the fifth call's input fails
    (IE, the exercise's); a batch must not fail first. (Before, the batch's encoding raised IE
    for every learner.)"""
    exercise = _exercise(tmp_path / "911-odd", ODD_INPUT_TABLE)
    body = f"def refuse(x, k, g=None):\n    if k != {accepts}:\n        raise ValueError('bad')\n    return 0\n"
    batched, one_by_one = batched_and_one_by_one(exercise, learner_file(_learner(body)), monkeypatch, launcher=warm)
    assert one_by_one.cases[0].verdict is (Verdict.WA if accepts else Verdict.IE), one_by_one.cases[0].message
    assert summary(batched, False) == summary(one_by_one, False)


def test_a_table_past_the_cases_wall_cap_is_tle_either_way(exercise, warm, learner_file, monkeypatch):
    """Each call sleeps: the big table runs past the case's wall cap (8 s). One call at a time, the
    message gives what was left of the cap when the last call began (a figure that depends on the
    machine already); a batch, what was left when the batch began. The rest is the same."""
    body = """
        def refuse(x, k, g=None):
            if k > 20:
                time.sleep(0.2)
            if k:
                raise ValueError('bad')
            return 0
    """
    batched, one_by_one = batched_and_one_by_one(exercise, learner_file(_learner(body)), monkeypatch, launcher=warm)
    big = [c for c in one_by_one.cases if c.name == "big"][0]
    assert big.verdict is Verdict.TLE and "did not finish within" in big.message, big.message

    def figures(report):
        verdict, message, diagnosis, cases, budget = summary(report, True)
        cases = [(n, v, re.sub(r"within [0-9.]+ s", "within N s", m), d, r) for n, v, m, d, r in cases]
        return verdict, re.sub(r"within [0-9.]+ s", "within N s", message), diagnosis, cases, budget

    assert figures(batched) == figures(one_by_one)


LISTS_TABLE = """
    import torch

    from judge.checks.refusals import expect_bad_inputs_refused


    def test_lists(sub, ctx):
        '''A table whose rows each carry a list of a thousand numbers, or a long text

        zh: 每行带一千个数的列表或长文本
        '''
        rows = [(f"k = {k}", {"k": k, "g": [0.5] * 1000 if k % 2 else "\\u0001" * 20000}) for k in range(1, 251)]
        expect_bad_inputs_refused(sub.refuse, rows, args=(torch.ones(2),))
"""


def test_a_table_past_what_one_request_header_holds_is_judged_as_one_at_a_time(
    tmp_path, warm, learner_file, monkeypatch
):
    """Past 200 000 values or 4 MiB of header in one request, the child would refuse the frame."""
    exercise = _exercise(tmp_path / "912-lists", LISTS_TABLE)
    batched, one_by_one = batched_and_one_by_one(
        exercise, learner_file(_learner(ATTACKS["refuses everything"])), monkeypatch, launcher=warm
    )
    assert one_by_one.verdict is Verdict.AC, one_by_one.message
    assert summary(batched, False) == summary(one_by_one, False)
