"""A learner can hide an in-place change of its input from the judge, and gains nothing by it.

Which inputs a call changed is measured in the learner's own process (:mod:`judge.sandbox.child`),
where the learner's code can change anything, the measurement included: the judge trusts that
report only to *fail* a call (the exercises forbid changing inputs, as a lesson), never to pass
one. What the judge uses stays its own: its tensors cross the wire as copies, so a change in place
that the learner hides changes nothing the judge reads afterwards.
"""

from __future__ import annotations

import torch

from judge.engine.process import LearnerProcess
from judge.sandbox.launchers import LocalLauncher

HIDES_A_CHANGE = """
    import sys

    def scale(x):
        for module in (sys.modules.get("__main__"), sys.modules.get("judge.sandbox.child")):
            if hasattr(module, "_Snapshot"):
                module._Snapshot.holds = lambda self, tensor, torch: True  # "nothing changed"
        x.mul_(2)
        return x
"""


def test_a_hidden_change_in_place_leaves_the_judges_tensor_as_it_was(learner_file):
    judges = torch.arange(4.0)
    with LearnerProcess(learner_file(HIDES_A_CHANGE), launcher=LocalLauncher()) as process:
        result = process.call("scale", [judges], {}, timeout_s=30)
    assert result.modified == ()  # the forgery works: the learner's process said nothing changed
    assert torch.equal(result.value, torch.arange(4.0) * 2)
    assert torch.equal(judges, torch.arange(4.0))  # and gains nothing: the judge's tensor is its own
