"""What the generator contract rests on, between the judge and the learner's side: a generator the
learner's process keeps by key (two calls, one stream), torch seeded once before several calls, and
the report of whether a call changed torch's global generator; on the server's learner process and
the browser's in-process learner, and for CUDA runs on paper (and on a GPU where there is one)."""

from __future__ import annotations

import itertools
import textwrap

import pytest
import torch

from judge.browser.learner import InProcessLearner
from judge.checks.budget import BudgetDeclaration, FalseFailureBudget
from judge.checks.base import CheckMisuse
from judge.checks.testing import Context
from judge.engine.process import LearnerProcess
from judge.learner import protocol, wire
from judge.learner.code import KEPT_GENERATORS, DefaultGeneratorWatch, LearnerGenerators
from judge.learner.interface import CallOptions


def test_a_kept_generator_crosses_the_wire_and_nothing_else_reads_as_one():
    specs, payloads = [], []
    encoded = wire.encode_values([wire.GeneratorSpec(5), wire.GeneratorSpec(5, kept=9)], specs, payloads)
    assert encoded == [{"$generator": 5}, {"$generator": 5, "$kept": 9}]
    back = wire.decode_values(encoded, specs, payloads)
    assert [(g.seed, g.kept) for g in back] == [(5, None), (5, 9)]
    for forged in ({"$generator": 5, "$kept": -1}, {"$generator": 5, "$kept": True}, {"$generator": 5, "$kept": "a"},
                   {"$generator": 5, "$kept": 2**64}):
        with pytest.raises(wire.WireError, match="generator key"):
            wire.decode_values(forged, [], [])
    assert wire.decode_values({"$generator": 5, "$kept": 1, "x": 2}, [], []) == {"$generator": 5, "$kept": 1, "x": 2}


def test_the_learner_side_keeps_a_generator_by_key_and_forgets_the_oldest():
    generators = LearnerGenerators(torch, "cpu")
    kept = generators.make(wire.GeneratorSpec(3, kept=1))
    assert generators.make(wire.GeneratorSpec(3, kept=1)) is kept
    assert generators.make(wire.GeneratorSpec(4, kept=1)) is not kept  # another seed: another generator
    assert generators.make(wire.GeneratorSpec(3)) is not generators.make(wire.GeneratorSpec(3))
    first = torch.rand(4, generator=kept)
    assert not torch.equal(torch.rand(4, generator=generators.make(wire.GeneratorSpec(3, kept=1))), first)
    for key in range(2, KEPT_GENERATORS):  # with (1, 3) and (1, 4): as many as are kept
        generators.make(wire.GeneratorSpec(3, kept=key))
    assert generators.make(wire.GeneratorSpec(3, kept=1)) is kept  # still there
    generators.make(wire.GeneratorSpec(3, kept=KEPT_GENERATORS + 1))
    assert len(generators.kept) == KEPT_GENERATORS and (1, 3) not in generators.kept


def test_a_case_makes_at_most_as_many_kept_generators_as_the_learner_keeps():
    ctx = Context(seed=1, device="cpu", budget=FalseFailureBudget(1e-6, BudgetDeclaration()))
    keys = {ctx.kept_generator().kept for _ in range(KEPT_GENERATORS)}
    assert len(keys) == KEPT_GENERATORS
    with pytest.raises(CheckMisuse, match="kept_generator"):
        ctx.kept_generator()
    with pytest.raises(CheckMisuse, match="seed"):
        Context(seed=1, device="cpu", budget=ctx.budget).kept_generator(seed=-1)
    again = Context(seed=1, device="cpu", budget=ctx.budget)
    assert again.kept_generator().seed == Context(seed=1, device="cpu", budget=ctx.budget).kept_generator().seed
    assert again.kept_generator().kept not in keys  # the same case again: the same seeds, new keys


ECHO = """
import torch

def draw(generator=None):
    return torch.rand(3, generator=generator)

def clobber(generator=None):
    torch.manual_seed(0)
    return torch.rand(3, generator=generator)

def restore(generator=None):
    state = torch.get_rng_state()
    torch.rand(5)
    torch.set_rng_state(state)
    return torch.rand(3, generator=generator)

def rebind(generator=None):
    torch.default_generator = torch.Generator()  # does not fool the watch: it holds torch's own
    torch.equal = lambda a, b: True
    torch.rand(2)
    return torch.rand(3, generator=generator)
"""


@pytest.fixture(scope="module")
def echo(tmp_path_factory):
    path = tmp_path_factory.mktemp("echo") / "echo.py"
    path.write_text(ECHO)
    with LearnerProcess(path) as process:
        yield process


@pytest.fixture
def in_process():
    learner = InProcessLearner(ECHO)
    yield learner
    learner.close()


@pytest.mark.parametrize("which", ["process", "in-process"])
def test_two_calls_with_one_kept_generator_continue_one_stream(echo, in_process, which):
    learner = echo if which == "process" else in_process
    kept, fresh = wire.GeneratorSpec(11, kept=next(itertools.count(5_000))), wire.GeneratorSpec(11)
    first = learner.call("draw", [kept], {}, timeout_s=30).value
    second = learner.call("draw", [kept], {}, timeout_s=30).value
    assert torch.equal(first, learner.call("draw", [fresh], {}, timeout_s=30).value)
    assert torch.equal(first, learner.call("draw", [fresh], {}, timeout_s=30).value)
    assert not torch.equal(first, second)
    stream = torch.Generator().manual_seed(11)
    assert torch.equal(first, torch.rand(3, generator=stream)) and torch.equal(second, torch.rand(3, generator=stream))


@pytest.mark.parametrize("which", ["process", "in-process"])
def test_the_learners_side_says_whether_a_call_changed_torchs_global_generator(echo, in_process, which):
    learner = echo if which == "process" else in_process
    watch = CallOptions(watch_global_rng=True, global_seed=5)
    generator = wire.GeneratorSpec(3)
    assert learner.call("draw", [generator], {}, timeout_s=30, options=watch).global_rng_changed is False
    assert learner.call("draw", [], {}, timeout_s=30, options=watch).global_rng_changed is True
    assert learner.call("clobber", [generator], {}, timeout_s=30, options=watch).global_rng_changed is True
    assert learner.call("restore", [generator], {}, timeout_s=30, options=watch).global_rng_changed is False
    assert learner.call("draw", [generator], {}, timeout_s=30).global_rng_changed is None  # not asked: not read


def test_rebinding_torchs_names_does_not_fool_the_watch(tmp_path):
    """Attack: the learner's code rebinds ``torch.default_generator`` and ``torch.equal`` before it
    draws from the global generator; the watch holds torch's own objects, made before the code ran."""
    path = tmp_path / "rebind.py"
    path.write_text(ECHO)
    with LearnerProcess(path) as process:
        options = CallOptions(watch_global_rng=True)
        assert process.call("rebind", [wire.GeneratorSpec(3)], {}, timeout_s=30, options=options).global_rng_changed


def test_an_answer_about_the_global_generator_is_read_only_where_asked():
    ok = {"ok": True, "value": 1, "elapsed_ms": 0.5, "modified": []}
    assert protocol.reply({**ok, "global_rng_changed": False}, watched=True).global_rng_changed is False
    assert protocol.reply(ok).global_rng_changed is None
    for header, watched, fragment in (
        (ok, True, "must be true or false"),  # asked, not answered: a forged "untouched" by omission
        ({**ok, "global_rng_changed": 0}, True, "must be true or false"),
        ({**ok, "global_rng_changed": "no"}, True, "must be true or false"),
        ({**ok, "global_rng_changed": False}, False, "did not ask"),
        ({"raised": {"type": "E", "message": "m", "line": None, "traceback": "", "memory": False},
          "global_rng_changed": False}, True, "both raise and return"),
    ):
        with pytest.raises(wire.WireError, match=fragment):
            protocol.reply(header, watched=watched)


def test_a_process_that_leaves_out_the_answer_about_the_global_generator_is_re(tmp_path):
    """Attack: the learner draws from torch's global generator, then writes an answer of its own
    without the field (claiming "untouched" by omission) to every descriptor it has."""
    from judge.learner.interface import ProcessFailed
    from judge.verdicts import Verdict

    path = tmp_path / "forger.py"
    path.write_text(textwrap.dedent("""
        import json, os, struct, time
        import torch

        def draw(generator=None):
            torch.rand(3)
            body = json.dumps({"ok": True, "value": None, "elapsed_ms": 0.0, "modified": [], "tensors": []}).encode()
            for fd in range(3, 1024):
                try:
                    os.write(fd, b"PJ1" + struct.pack(">I", len(body)) + body)
                except OSError:
                    pass
            time.sleep(60)
    """))
    with LearnerProcess(path) as process, pytest.raises(ProcessFailed) as failed:
        process.call("draw", [wire.GeneratorSpec(1)], {}, timeout_s=30, options=CallOptions(watch_global_rng=True))
    assert failed.value.verdict is Verdict.RE and "global_rng_changed" in str(failed.value)


def test_with_global_seed_once_seeds_the_next_call_only(echo):
    from judge.checks.testing import Submission

    ctx = Context(seed=1, device="cpu", budget=FalseFailureBudget(1e-6, BudgetDeclaration()))
    sub = Submission(echo, ("draw",), lambda: ctx)
    once = sub.with_global_seed(9, once=True)
    first, second = once.draw(), once.draw()
    stream = torch.Generator().manual_seed(9)
    assert torch.equal(first, torch.rand(3, generator=stream)) and torch.equal(second, torch.rand(3, generator=stream))
    every = sub.with_global_seed(9)
    assert torch.equal(every.draw(), first) and torch.equal(every.draw(), first)
    shared = sub.with_global_seed(9, once=True)
    watched = shared.watching_global_rng()  # made from it: shares its one seeding
    assert torch.equal(watched.draw(), first) and torch.equal(shared.draw(), second)
    assert watched.global_rng_changed_by == ["draw"] and shared.global_rng_changed_by == []


# --------------------------------------------------------------------------- CUDA, on paper


class _RecordingTorch:
    """Enough of torch to see on which device generators are made and which default ones are read."""

    def __init__(self):
        self.made, self.inits = [], 0
        self.default_generator = _State("cpu")
        outer = self

        class Generator:
            def __init__(self, device="cpu"):
                outer.made.append(device)
                self.device = device

            def manual_seed(self, seed):
                return self

        class Cuda:
            default_generators = (_State("cuda:0"), _State("cuda:1"))

            @staticmethod
            def init():
                outer.inits += 1

            @staticmethod
            def current_device():
                return 1

        self.Generator, self.cuda = Generator, Cuda
        self.device = torch.device
        self.equal = lambda a, b: a == b


class _State:
    def __init__(self, name):
        self.name, self.count = name, 0

    def get_state(self):
        return (self.name, self.count)


@pytest.mark.parametrize("device, read", [("cuda", "cuda:1"), ("cuda:0", "cuda:0"), ("cpu", None)])
def test_on_a_cuda_run_generators_are_cuda_ones_and_the_watch_reads_that_devices_default(device, read):
    fake = _RecordingTorch()
    generators = LearnerGenerators(fake, device)
    generators.make(wire.GeneratorSpec(1))
    generators.make(wire.GeneratorSpec(1, kept=2))
    assert fake.made == [device, device]
    watch = DefaultGeneratorWatch(fake, device)
    before = watch.snapshot()
    assert [state[0] for state in before] == ["cpu"] + ([read] if read else [])
    assert fake.inits == (1 if read else 0)
    assert not watch.changed(before)
    if read:
        fake.cuda.default_generators[int(read[-1])].count += 1
        assert watch.changed(before)
