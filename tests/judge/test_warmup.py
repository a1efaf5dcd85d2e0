"""The fork server's warm-up: every listed operator runs on this torch, and nothing a job sees changes."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
import torch

from judge.sandbox import warmup

# In a fresh process: the first calls are the ones the warm-up is for, and what it leaves behind
# (generator states, CUDA) must be checked in a process that did nothing else first.
FRESH = textwrap.dedent(
    """
    import torch
    from judge.sandbox import warmup
    torch.set_num_threads(1)
    before = torch.default_generator.get_state().clone()
    assert warmup.warm_up(torch) is None
    print(torch.equal(before, torch.default_generator.get_state()), torch.cuda.is_initialized())
    """
)


def test_the_warm_up_leaves_the_default_generator_and_cuda_alone():
    done = subprocess.run([sys.executable, "-c", FRESH], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split() == ["True", "False"]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_every_floating_operator_runs_on_this_torch(dtype):
    # warm_up skips what raises, so a renamed operator would go cold without a word: called
    # directly, it fails here instead.
    warmup._floating(torch, dtype, torch.Generator().manual_seed(1))


def test_every_integral_operator_runs_on_this_torch():
    warmup._integral(torch, torch.Generator().manual_seed(1))


def test_an_operator_this_torch_lacks_does_not_stop_the_fork_server(monkeypatch):
    def missing(*args, **kwargs):
        raise RuntimeError("not in this build")

    monkeypatch.setattr(torch, "softmax", missing)
    monkeypatch.setattr(torch, "bincount", missing)
    assert warmup.warm_up(torch) is None
