"""Public suite of exercise 54: one run of your test against a correct sampler, as the hidden cases run it.

It shows what a run is: your `test_sampler` receives `sample_fn`, a function of the judge's process
(a correct top-p sampler with its own seed here), may call it within the budget, and returns a
bool. Its answer is not judged here (one run says nothing about a rate); the hidden cases count
answers over many runs.
"""

import torch

from judge.checks.budget import BudgetDeclaration
from judge.checks.exact import expect
from judge.learner.hosts import HostFunction
from judge.learner.interface import LearnerRaised

BUDGET = BudgetDeclaration()  # no statistical check: one run decides nothing


def _top_p_sampler(generator):
    """A correct top-p sampler written out here (the hidden cases use exercise 39's samplers)."""

    def sample_fn(logits, num_samples=1, top_p=1.0):
        if not isinstance(logits, torch.Tensor) or logits.dim() != 2 or not logits.is_floating_point():
            raise ValueError("logits must be a float tensor [B, V]")
        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples < 1:
            raise ValueError("num_samples must be an int >= 1")
        if not isinstance(top_p, (int, float, torch.Tensor)) or isinstance(top_p, bool):
            raise ValueError("top_p must be a number or a tensor [B]")
        rows = logits.shape[0]
        p = top_p if isinstance(top_p, torch.Tensor) else torch.full((rows,), float(top_p))
        p = p.to(torch.float64).unsqueeze(1)
        if ((p <= 0) | (p > 1)).any():
            raise ValueError("top_p must be in (0, 1]")
        probs = torch.softmax(logits.to(torch.float64), dim=-1)
        ordered, order = probs.sort(dim=-1, descending=True)
        keep = ((ordered.cumsum(dim=-1) - ordered) < p) | (p >= 1)
        kept = torch.zeros_like(probs).scatter(1, order, ordered * keep)
        return torch.multinomial(kept, num_samples, replacement=True, generator=generator)

    return sample_fn


def _draws(args, kwargs):
    """What one call costs of the budget: B x num_samples (ValueError for arguments it cannot read)."""
    try:
        logits = args[0] if args else kwargs["logits"]
        num_samples = args[1] if len(args) > 1 else kwargs.get("num_samples", 1)
        return int(logits.shape[0]) * int(num_samples)
    except (AttributeError, IndexError, KeyError, TypeError, ValueError):
        raise ValueError("sample_fn(logits, num_samples, top_p): logits must be a tensor [B, V]") from None


def test_one_run(sub, ctx):
    """One run against a correct sampler returns a bool within the budget

    zh: 对正确采样器运行一次：在预算之内返回一个 bool
    """
    generator = torch.Generator().manual_seed(ctx.fresh_seed("public run"))
    proxy = HostFunction(_top_p_sampler(generator), calls=50, units=100_000, cost=_draws, name="sample_fn")
    try:
        answer = sub.test_sampler(sample_fn=proxy)
    except LearnerRaised:
        if proxy.violation is None:
            raise
        answer = None  # the refusal of a call over the budget ended the run
    expect(proxy.violation is None, f"test_sampler went over its budget: {proxy.violation}")
    expect(type(answer) is bool, f"test_sampler must return True or False, not {type(answer).__name__}")
