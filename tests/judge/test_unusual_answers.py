"""Correct but unusual answers: whatever tensor a learner returns, the judge gets its values or a clear error.

A view, a transposed or expanded tensor, a Parameter, a subclass, a tensor that still needs grad,
one with a negative-bit view: each must reach the judge with the values it holds. A tensor the
wire cannot carry (sparse, nested, meta) is the learner's TypeError naming what was returned,
never a crash of the learner's process read as "do not call exit()".
"""

from __future__ import annotations

import pytest
import torch

from judge.engine.process import LearnerProcess, LearnerRaised, ProcessFailed
from judge.learner import wire
from judge.sandbox.launchers import WarmLocalLauncher
from judge.verdicts import Verdict

UNUSUAL = {
    "a view at an offset": lambda: torch.arange(10.0)[7:],
    "transposed": lambda: torch.arange(6.0).reshape(2, 3).t(),
    "expanded": lambda: torch.tensor([1.5]).expand(3),
    "flipped": lambda: torch.arange(4.0).flip(0),
    "channels last": lambda: torch.arange(16.0).reshape(1, 4, 2, 2).to(memory_format=torch.channels_last),
    "a Parameter": lambda: torch.nn.Parameter(torch.tensor([1.0, 2.0])),
    "needing grad": lambda: torch.tensor([1.0, 2.0], requires_grad=True) * 2,
    "a subclass": lambda: torch.tensor([1.0, 2.0]).as_subclass(type("Sub", (torch.Tensor,), {})),
    "a negative view": lambda: torch._neg_view(torch.tensor([1.0, -2.0])),
}


@pytest.mark.parametrize("name", list(UNUSUAL))
def test_what_is_sent_holds_the_tensors_values(name):
    tensor = UNUSUAL[name]()
    spec, raw = wire.tensor_to_buffer(tensor)
    received = wire.payload_to_tensor(spec, bytearray(raw))
    assert received.shape == tensor.shape and received.dtype == tensor.dtype
    assert torch.equal(received, tensor.detach().clone()), (received, tensor)


SOURCE = """
    import torch

    def negative():
        return torch._neg_view(torch.tensor([1.0, -2.0]))

    def sparse():
        return torch.tensor([1.0, 0.0, 2.0]).to_sparse()

    def meta():
        return torch.empty(3, device="meta")

    def alive():
        return 1
"""


@pytest.fixture(scope="module")
def warm():
    with WarmLocalLauncher() as launcher:
        yield launcher


def test_a_negative_view_arrives_with_its_values(warm, learner_file):
    with LearnerProcess(learner_file(SOURCE), launcher=warm) as process:
        value, _ = process.call("negative", [], {}, timeout_s=30)
    assert torch.equal(value, torch.tensor([-1.0, 2.0]))


@pytest.mark.parametrize("function", ["sparse", "meta"])
def test_a_tensor_the_wire_cannot_carry_is_the_learners_type_error(warm, learner_file, function):
    with LearnerProcess(learner_file(SOURCE), launcher=warm) as process:
        with pytest.raises(LearnerRaised, match="returned") as raised:
            process.call(function, [], {}, timeout_s=30)
        assert raised.value.type_name == "TypeError"
        assert process.call("alive", [], {}, timeout_s=30).value == 1  # the process goes on answering


# Answers of every odd kind a learner can return (or write as a frame of its own): the judge's
# checks see them as a value of some type, and the verdict is the learner's (WA or RE), never AC
# and never the judge's own IE. The first two are dicts whose keys the wire uses for its markers.
ODD_ANSWERS = {
    "a dict that reads as a generator": '{"$generator": 1}',
    "a dict that reads as a tensor": '[torch.ones(3), {"$tensor": 0}]',
    "a generator": "torch.Generator()",
    "a nest deeper than the wire allows": "eval('[' * 40 + ']' * 40)",
    "a huge integer": "2 ** 70",
    "NaN": 'float("nan")',
    "an empty tensor of a huge shape": "torch.empty(0, 2 ** 40)",
    "a huge-shaped empty tensor in a tuple": "(torch.empty(2 ** 40, 0, dtype=torch.int64),) * 2",
}


@pytest.mark.parametrize("name", list(ODD_ANSWERS))
def test_an_odd_answer_is_the_learners_failure_never_the_judges(warm, exercise39, learner_file, name):
    from judge.engine.runner import judge_file

    source = exercise39.reference_path.read_text() + "\n\ndef _odd(*args, **kwargs):\n"
    source += f"    return {ODD_ANSWERS[name]}\n\n"
    source += "".join(f"{function.name} = _odd\n" for function in exercise39.functions)
    report = judge_file(exercise39, learner_file(source), seed=1, suites=("public",), launcher=warm)
    assert report.verdict in (Verdict.WA, Verdict.RE), report.message
    assert all(case.verdict is not Verdict.IE for case in report.cases), report.message


CLOSES_ITS_PIPE = """
    import os, sys, time

    def close_and_wait():
        frame = sys._getframe()
        while "outbox" not in frame.f_locals:  # child.serve's: the result pipe
            frame = frame.f_back
        os.close(frame.f_locals["outbox"].fd)
        time.sleep(600)
"""


def test_a_process_that_closes_its_pipe_is_told_so_not_told_it_called_exit(warm, learner_file):
    with LearnerProcess(learner_file(CLOSES_ITS_PIPE), launcher=warm) as process:
        with pytest.raises(ProcessFailed) as failed:
            process.call("close_and_wait", [], {}, timeout_s=30)
    assert failed.value.verdict is Verdict.RE
    assert "closed its pipe" in str(failed.value) and "exit()" not in str(failed.value)
