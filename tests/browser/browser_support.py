"""What the browser tests need, and the one rule when it is missing: skip, or fail under CI."""

from __future__ import annotations

import os
import shutil

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
