"""``doctor``: what this machine can judge (Python, torch, CUDA, the strict sandbox's layers,
each exercise's devices) and how fast a learner process starts."""

from __future__ import annotations

import argparse
import platform
import sys
import time

from rich.console import Console, Group
from rich.table import Table

from judge import JUDGE_VERSION
from judge.cli.common import cuda_available
from judge.exercises.exercise import load_all
from judge.extras import EXTRAS, MissingExtra, require


def cmd_doctor(args: argparse.Namespace, lang: str, out: Console, err: Console) -> int:
    environment, has_torch = _environment_table()
    out.print(environment)
    if not has_torch:
        return 1
    out.print(_strict_layers())
    out.print(_exercises_here())
    return 0


def _environment_table() -> tuple[Table, bool]:
    """ProbJudge, Python, the platform, torch, CUDA, how fast a learner process starts, the levels;
    and whether torch is there (without it nothing else can be judged, nor is it probed)."""
    table = Table(box=None, show_header=False)
    table.add_row("ProbJudge", JUDGE_VERSION)
    table.add_row("Python", f"{platform.python_version()} ({sys.executable})")
    table.add_row("Platform", platform.platform())
    try:
        import torch
    except ImportError:
        table.add_row("torch", "[red]not installed[/]: run `make test` or `pip install -e .`")
        return table, False
    table.add_row("torch", torch.__version__)
    if cuda_available():
        names = ", ".join(torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count()))
        table.add_row("CUDA", f"available: {names} (torch CUDA {torch.version.cuda})")
    else:
        table.add_row("CUDA", "not available (CPU judging only)")
    table.add_row("Learner process", _learner_startup_seconds())
    from judge.exercises import models

    table.add_row("Model tiny-qwen3", models.describe("tiny-qwen3"))
    table.add_row("Model SmolLM2", models.describe("smollm2"))
    table.add_row("Extras", _extras_installed())
    table.add_row("Sandbox levels", "local: available (a child process with time and memory limits)")
    return table, True


def _extras_installed() -> str:
    """Which optional extras (judge/extras.py) this install has: a learner needs none of them."""
    parts = []
    for extra in EXTRAS:
        try:
            require(extra)
            parts.append(f"{extra}: installed")
        except MissingExtra as missing:
            parts.append(f"{extra}: [yellow]no[/] (needs {missing.module})")
    return "; ".join(parts) + " (`pip install 'probjudge\\[NAME]'`)"  # rich markup: \\[ is a bracket


def _strict_layers() -> Group:
    """Each layer of the strict sandbox, active or missing, and whether strict can run here."""
    from judge.sandbox.layers import missing_required, probe

    layers = probe()
    strict = Table(box=None, header_style="bold", title="strict sandbox layers", title_justify="left")
    for heading in ("layer", "state", "detail"):
        strict.add_column(heading)
    for layer in layers:
        state = "[green]active[/]" if layer.active else ("[red]missing[/]" if layer.required else "[yellow]missing[/]")
        strict.add_row(layer.name, state, layer.detail + ("" if layer.required else " (optional)"))
    missing = missing_required(layers)
    verdict = "strict: " + (
        "[green]available[/]"
        if not missing
        else "[red]unavailable[/] (missing: " + ", ".join(layer.name for layer in missing) + ")"
    )
    return Group(strict, verdict)


def _exercises_here() -> Table:
    """Each exercise, the devices it declares and those it can be judged on here."""
    cuda = cuda_available()
    exercises = Table(box=None, header_style="bold")
    for heading in ("#", "slug", "devices declared", "can judge here"):
        exercises.add_column(heading)
    for exercise in load_all():
        here = [d for d in exercise.devices if d == "cpu" or (d == "cuda" and cuda)]
        exercises.add_row(f"{exercise.number:03d}", exercise.slug, ", ".join(exercise.devices), ", ".join(here) or "-")
    return exercises


def _learner_startup_seconds() -> str:
    from judge.engine.process import LearnerProcess, LoadFailed, ProcessFailed

    exercises = load_all()
    if not exercises:
        return "no exercises to try"
    exercise = exercises[0]
    started = time.monotonic()
    try:
        with LearnerProcess(exercise.starter_path):
            pass
    except (LoadFailed, ProcessFailed) as error:
        return f"[red]failed[/]: {error}"
    return f"starts and imports torch in {time.monotonic() - started:.1f} s"
