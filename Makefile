# ProbJudge: `make run` starts the site, `make test` runs every test. Both set up .venv first.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# The CPU wheel where this machine offers it; a torch already in the venv (say a CUDA build) is kept.
TORCH_SPEC ?= torch==2.13.0
STAMP := $(VENV)/.probjudge-installed
PYTEST_ARGS ?=

.PHONY: venv test run check bench clean help

help:
	@echo "make run    set up .venv and start the web site"
	@echo "make test   set up .venv and run every test"
	@echo "make check  maintainers: every reference passes, every known-wrong solution fails"
	@echo "make bench  calibration, power and speed benchmarks (figures for docs and notes)"

venv: $(STAMP)

$(STAMP): pyproject.toml Makefile
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	@$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install --quiet --disable-pip-version-check "$(TORCH_SPEC)" \
		|| $(PY) -m pip install --quiet --disable-pip-version-check torch
	$(PY) -m pip install --quiet --disable-pip-version-check -e ".[test]"
	@touch $(STAMP)

test: venv
	$(PY) -m pytest $(PYTEST_ARGS)

check: venv
	$(PY) practice/judge.py check

run: venv
	@echo "The web pages are not built yet (the 'web site' issue is in progress: its data layer,"
	@echo "grading queue and JSON API exist, see web/README.md). Meanwhile judge locally:"
	@echo "  $(PY) practice/judge.py list"
	@echo "  $(PY) practice/judge.py start 39"
	@echo "  $(PY) practice/judge.py test 39"

bench: venv
	$(PY) benchmarks/speed.py
	$(PY) benchmarks/power.py
	$(PY) benchmarks/calibration.py
	$(PY) benchmarks/sandbox.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis *.egg-info
