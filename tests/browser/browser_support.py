"""What the browser tests need, and the one rule when it is missing: skip, or fail under CI; the
steps every site test takes (sign up, type into the editor, run the accessibility checker, take a
picture for docs/); and the learner files the browser tests judge."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from flask import Flask
from playwright.sync_api import Locator, Page, expect

CHROMIUM = os.environ.get("PROBJUDGE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
# Quiet, offline chromium: no background connections to Google's services (this machine has no network).
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync",
                 "--disable-background-networking", "--disable-component-update"]


def unavailable(reason: str) -> None:
    """Skip the test, or fail it when ``PROBJUDGE_REQUIRE_BROWSER=1`` (``.ci/run`` sets it)."""
    if os.environ.get("PROBJUDGE_REQUIRE_BROWSER") == "1":
        pytest.fail(f"browser tests required but {reason}")
    pytest.skip(reason)


ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "web" / "frontend" / "node_modules" / "axe-core" / "axe.min.js"
# Where pictures for docs/ go: a folder, or "1" for docs/screenshots; unset, none are taken.
SCREENSHOTS = os.environ.get("PROBJUDGE_SCREENSHOTS")
PASSWORD = "password123"


@dataclass(frozen=True)
class ServedSite:
    """A site served on loopback: its base URL, and its app for arranging what no page makes
    (an instructor's account) through :func:`web.services.services`."""

    url: str
    app: Flask


def sign_up(page: Page, name: str) -> None:
    page.goto("/auth/sign-up")
    page.get_by_label("User name").fill(name)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password again").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_text(f"Welcome, {name}!")).to_be_visible()


def type_into_editor(page: Page, code: str) -> None:
    """Replace the editor's text the way a learner would: select all, then type (insert) the code."""
    editor = page.locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)


def accessibility_violations(page: Page) -> list[str]:
    """axe-core's WCAG 2 A/AA and best-practice violations on the current page (the test must be
    marked ``audit``: the site's CSP forbids the injected script otherwise)."""
    page.add_script_tag(path=str(AXE))
    return page.evaluate("""async () =>
        (await axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'best-practice']})).violations.map(v =>
            `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map(n => n.target.join(' ')).join(', ')}`)""")


def sideways_overflow(page: Page) -> list[str]:
    """What makes the page scroll sideways: empty when it does not, else the outermost elements
    whose right edge passes the viewport's width (tag, id or class, and the edge in px), so a
    failure names the culprit instead of "False". Measured after the next animation frame, so a
    viewport just resized has been laid out again."""
    return page.evaluate("""() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => {
        const root = document.documentElement, width = root.clientWidth;
        if (root.scrollWidth <= width) return done([]);
        const wide = [...document.body.querySelectorAll('*')]
            .filter(e => e.getBoundingClientRect().right > width + 0.5);
        const outermost = wide.filter(e => !wide.includes(e.parentElement));
        const name = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
            (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\\s+/).join('.') : '');
        done([`page ${root.scrollWidth} px wide in a ${width} px viewport`, ...outermost.slice(0, 8).map(e =>
            `${name(e)} to ${Math.round(e.getBoundingClientRect().right)} px`)]);
    })))""")


def shoot(page: Page, name: str, focus: Locator | None = None) -> None:
    """Save a picture for docs/ when PROBJUDGE_SCREENSHOTS is set (top of the page, or ``focus``)."""
    if not SCREENSHOTS:
        return
    folder = ROOT / "docs" / "screenshots" if SCREENSHOTS == "1" else Path(SCREENSHOTS)
    folder.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    if focus is not None:
        focus.evaluate("element => element.scrollIntoView({block: 'center'})")
    page.screenshot(path=str(folder / name), full_page=False)


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
_REFERENCE_39 = (ROOT / "solutions" / "039-sampling" / "reference.py").read_text()
_LAST_LINE = "    return torch.multinomial(probs, num_samples, replacement=True, generator=generator)\n"
# What the learner's code does -> (the reference doing it, the operation the message must name).
UNAVAILABLE_39 = {
    "a missing function": (_REFERENCE_39.replace(_LAST_LINE, "    torch.fft.fft(probs)\n" + _LAST_LINE), "torch.fft"),
    "a missing method": (_REFERENCE_39.replace(_LAST_LINE, "    probs.matmul(probs.T)\n" + _LAST_LINE),
                         "Tensor.matmul"),
    "a keyword the subset lacks": (_REFERENCE_39.replace("generator=generator)", "generator=generator, out=None)"),
                                   "torch.multinomial(..., out=...)"),
    "an import of a missing module": ("import torch.linalg\n" + _REFERENCE_39, "torch.linalg"),
    "from torch import a missing name": ("from torch import fft\n" + _REFERENCE_39, "torch.fft"),
}
# Only Pyodide lacks it: CPython, where the other tests run the subset, has numpy installed.
UNAVAILABLE_IN_PYODIDE_39 = {
    "a module the server has": ("import numpy as np\n" + _REFERENCE_39, "numpy"),
}
