"""Run an exercise's browser variant under Node.js, exactly as the exercise page runs it.

Used by ``practice/judge.py test N FILE --browser``: the same Pyodide files the site serves
(``web/static/build/pyodide``, built by ``make assets``), the same JavaScript steps
(``web/frontend/src/pyodide-core.mjs``) and the same engine bundle.
"""

from __future__ import annotations

import base64
import json
import secrets
import shutil
import subprocess

from judge.browser.bundle import engine_bundle, exercise_files
from judge.checks.testing import SEED_BITS
from judge.exercises.exercise import Exercise
from judge.exercises.folders import PROJECT_ROOT

PYODIDE_DIR = PROJECT_ROOT / "web" / "static" / "build" / "pyodide"
NODE_RUNNER = PROJECT_ROOT / "web" / "frontend" / "src" / "node-run.mjs"
STARTUP_ALLOWANCE_S = 120.0  # loading Pyodide, on top of the run's own time limit
# node-run.mjs bounds each run by CPU time, and by a wall clock of this many times the limit.
WALL_FACTOR = 3


class BrowserRunUnavailable(RuntimeError):
    """Node.js or the Pyodide files are missing, or the runner failed; the message says which."""


def run_in_node(exercise: Exercise, source: str, seed: int | None = None) -> dict:
    """The report (docs/report.md) of ``source`` on the browser variant of ``exercise``, as a dict."""
    return run_many_in_node(exercise, [source], seed)[0]


def run_many_in_node(exercise: Exercise, sources: list[str], seed: int | None = None) -> list[dict]:
    """One report per source, judged one after the other in one Pyodide (after a TLE, no more)."""
    if exercise.browser is None:
        raise BrowserRunUnavailable(f"exercise {exercise.number} has no browser variant")
    node = shutil.which("node")
    if node is None:
        raise BrowserRunUnavailable("Node.js is not installed (`node` is not on PATH); it runs Pyodide here")
    if not (PYODIDE_DIR / "pyodide.mjs").is_file():
        raise BrowserRunUnavailable(f"the Pyodide files are not built ({PYODIDE_DIR}); run `make assets`")
    job = {
        "pyodideDir": str(PYODIDE_DIR),
        "engineZip": base64.b64encode(engine_bundle()).decode(),
        "folder": exercise.folder,
        "files": exercise_files(exercise),
        "codes": list(sources),
        "seed": secrets.randbits(SEED_BITS) if seed is None else int(seed),
        "timeLimit": exercise.browser.time_limit_s,
    }
    try:
        done = subprocess.run(
            [node, str(NODE_RUNNER)],
            input=json.dumps(job),
            capture_output=True,
            text=True,
            timeout=exercise.browser.time_limit_s * WALL_FACTOR * len(sources) + STARTUP_ALLOWANCE_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise BrowserRunUnavailable("Node.js did not finish loading Pyodide in time") from None
    if done.returncode != 0:
        raise BrowserRunUnavailable(done.stderr.strip()[-2000:] or f"node exited with status {done.returncode}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
