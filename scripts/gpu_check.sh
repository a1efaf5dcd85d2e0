#!/bin/sh
# The one command to run the day a GPU is lent (docs/testing.md, "The day a GPU is lent"): the CUDA
# tests, and every exercise's reference and three known-wrong solutions judged under --device cuda
# and --device cpu, one line per exercise, PASS or FAIL, in under five minutes on one H100.
# Without a CUDA device it prints "no CUDA device: GPU check skipped" and exits 0.
# Arguments go to scripts/gpu_check.py (--dry-run, --plan, --out DIR, exercise ids; --help).
#
# The Python: $PYTHON if set; else the project's .venv where it imports torch; else python3 (a
# machine lent for the day has its own torch with CUDA, and no network to build the venv).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)  # no cd: a relative --out is relative to where this was run
if [ -n "${PYTHON:-}" ]; then
    python=$PYTHON
elif [ -x "$root/.venv/bin/python" ] && "$root/.venv/bin/python" -c "import torch" 2>/dev/null; then
    python=$root/.venv/bin/python
else
    python=python3
fi
PYTHONUNBUFFERED=1 exec "$python" "$root/scripts/gpu_check.py" "$@"
