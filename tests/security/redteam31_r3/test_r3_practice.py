"""Red team 31, third round: claim 9 (practice/judge.py works whatever PYTHONPATH holds).

The fix moves PYTHONPATH's entries after the interpreter's own, but it recognises them by their
resolved paths and skips empty entries; Python reads an empty entry (``:/x``, ``/x:``, what
``export PYTHONPATH=$PYTHONPATH:/x`` gives when it was unset) as the working folder, which then
counts as one of the interpreter's own and goes before the standard library."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from judge.exercises.folders import PROJECT_ROOT


@pytest.mark.parametrize("pythonpath", [":/nonexistent", "/nonexistent:", ":"])
def test_claim9_an_empty_pythonpath_entry_does_not_put_the_learners_folder_first(tmp_path, pythonpath):
    (tmp_path / "random.py").write_text('raise ImportError("impostor random.py from the learner folder")\n')
    env = {**os.environ, "PYTHONPATH": pythonpath}
    done = subprocess.run(
        [sys.executable, str(PROJECT_ROOT / "practice" / "judge.py"), "list"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and "impostor" not in done.stderr, done.stderr[-400:]
