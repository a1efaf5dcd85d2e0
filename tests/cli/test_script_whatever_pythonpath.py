"""practice/judge.py runs the checkout's judge whatever PYTHONPATH holds: its own folder (which
holds judge.py itself), the checkout, nothing, or an unrelated folder with a judge.py of its own."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


@pytest.mark.parametrize("entry", ["checkout", "practice", "empty", "impostor"])
def test_the_script_is_never_shadowed_by_a_judge_module(tmp_path, project_root, entry):
    impostor = tmp_path / "impostor"
    impostor.mkdir()
    (impostor / "judge.py").write_text("raise SystemExit('the impostor judge.py was imported')\n")
    pythonpath = {"checkout": str(project_root), "practice": str(project_root / "practice"), "empty": "",
                  "impostor": str(impostor)}[entry]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = subprocess.run([sys.executable, str(project_root / "practice" / "judge.py"), "list"],
                          cwd=elsewhere, env={**os.environ, "PYTHONPATH": pythonpath}, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "sampling" in done.stdout and "impostor" not in done.stderr


def test_test_39_runs_from_another_folder_with_the_checkout_on_pythonpath(tmp_path, project_root):
    done = subprocess.run([sys.executable, str(project_root / "practice" / "judge.py"), "test", "39",
                           str(project_root / "solutions" / "039-sampling" / "reference.py"), "--public-only",
                           "--seed", "1"], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(project_root)},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
