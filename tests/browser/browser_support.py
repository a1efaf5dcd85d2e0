"""What the browser tests need, and the one rule when it is missing: skip, or fail under CI; and the
learner files the browser tests judge."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("PROBJUDGE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
# Quiet, offline chromium: no background connections to Google's services (this machine has no network).
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync",
                 "--disable-background-networking", "--disable-component-update"]


def unavailable(reason: str) -> None:
    """Skip the test, or fail it when ``PROBJUDGE_REQUIRE_BROWSER=1`` (``.ci/run`` sets it)."""
    if os.environ.get("PROBJUDGE_REQUIRE_BROWSER") == "1":
        pytest.fail(f"browser tests required but {reason}")
    pytest.skip(reason)


# A submission that never returns: the browser run must stop it (TLE) and stay usable.
ENDLESS = '''import torch


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0):
    while True:
        pass


def sample(logits, num_samples=1, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0, generator=None):
    while True:
        pass
'''


# Exercise 39's browser-only catalogue: mistakes only the tiny variant's edge cases catch, each with
# the first case that must catch it (and its diagnosis), and correct samplers in other styles.
HERE = Path(__file__).resolve().parent
WRONG_39 = HERE / "wrong_solutions" / "039"
CORRECT_39 = HERE / "correct_solutions" / "039"
CAUGHT_BY_39 = {
    "exponential_race_log_zero": "tiny_extreme_uniforms",
    "gumbel_log_zero": "tiny_extreme_uniforms",
    "inverse_cdf_clamped_to_vocab": "tiny_extreme_uniforms",
    "squeezed_default_shape": "tiny_generator",  # its first call without num_samples
    "top_k_above_vocab_crashes": "tiny_top_k_edges",
    "top_k_keeps_exactly_k": "tiny_top_k_edges",
}

# What the learner reads when their code needs an operation the browser's torch subset lacks.
NOT_AVAILABLE = "not available in the browser: Submit to grade on the server"
NOT_AVAILABLE_ZH = "在浏览器中不可用：请点 Submit（提交）到服务器上评测"
_REFERENCE_39 = (HERE.parents[1] / "solutions" / "039-sampling" / "reference.py").read_text()
_LAST_LINE = "    return torch.multinomial(probs, num_samples, replacement=True, generator=generator)\n"
# What the learner's code does -> (the reference doing it, the operation the message must name).
UNAVAILABLE_39 = {
    "a missing function": (_REFERENCE_39.replace(_LAST_LINE, "    torch.fft.fft(probs)\n" + _LAST_LINE), "torch.fft"),
    "a missing method": (_REFERENCE_39.replace(_LAST_LINE, "    probs.matmul(probs.T)\n" + _LAST_LINE),
                         "Tensor.matmul"),
    "a keyword the subset lacks": (_REFERENCE_39.replace("generator=generator)", "generator=generator, out=None)"),
                                   "torch.multinomial(..., out=...)"),
    "an import of a missing module": ("import torch.linalg\n" + _REFERENCE_39, "torch.linalg"),
    "from torch import a missing name": ("from torch import special\n" + _REFERENCE_39, "torch.special"),
}
