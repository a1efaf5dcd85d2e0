# ProbJudge: `make run` starts the site, `make test` runs every test. Both set up .venv first, with
# every extra (pyproject.toml: site, scale, models, test); a learner's `pip install probjudge` has none.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# The CPU wheel where this machine offers it; a torch already in the venv (say a CUDA build) is kept.
TORCH_SPEC ?= torch==2.13.0
STAMP := $(VENV)/.probjudge-installed
PYTEST_ARGS ?=
# Test processes (pytest-xdist): one per core, at most PYTEST_MAX_JOBS; PYTEST_JOBS=0 runs the tests
# in this one process; an idle process takes tests queued for another (--dist worksteal), so a slow
# test near the end does not leave a core idle. The tests that measure the whole machine (marker
# machine_wide) run afterwards, alone, in one process (tests/conftest.py says why); exit status 5
# is "none selected" (PYTEST_ARGS).
PYTEST_JOBS ?= auto
PYTEST_MAX_JOBS ?= 4
# The site's browser files (CodeMirror 6 and KaTeX from the npm registry, bundled by esbuild).
FRONTEND := web/frontend
ASSETS := web/static/build/.built
# `make run` is for your own machine: where the strict sandbox cannot run (not root, say), grade
# under the local level, with a warning on every page. A public deployment leaves this at 0.
PROBJUDGE_ALLOW_WEAKER_SANDBOX ?= 1
HOST ?= 127.0.0.1
PORT ?= 5000

# `make mutation`: mutants judged per exercise (a seeded random sample; `all` for every one), and
# more flags for practice/judge.py mutation (e.g. MUTATION_ARGS="39 40 --strict").
MUTATION_SAMPLE ?= 100
MUTATION_ARGS ?=

.PHONY: venv assets browser lint test test-scale gpu-check run check mutation mutation-core bench clean help

help:
	@echo "make run    set up .venv and the browser assets, start the web site (HOST, PORT, DATABASE_URL)"
	@echo "make test   set up .venv, run make lint, then every test"
	@echo "make lint   ruff (lint, format check) over judge/, web/, exercises/ and solutions/, mypy over"
	@echo "             judge/ and web/, lint-imports (which way imports point: .importlinter): seconds,"
	@echo "             before every commit"
	@echo "make test-scale  site + 2 Celery workers on PostgreSQL and Redis: 200 submissions, a worker"
	@echo "             killed and Redis restarted mid-run; prints 'graded N/N exactly once, ...'"
	@echo "make gpu-check  on a machine with CUDA: the CUDA tests, and each exercise's reference and three"
	@echo "             known-wrong solutions on cuda and on the CPU, one line each, PASS or FAIL (under 5 min"
	@echo "             on one H100; skips without a GPU; GPU_CHECK_ARGS=\"--dry-run 1\" tries it on the CPU)"
	@echo "make check  maintainers: every reference passes, every starter fails naming no mistake, every"
	@echo "             known-wrong solution fails with its headline diagnosis; the lanes'"
	@echo "             imbalance under each exercise's lane weights, as advice (practice/judge.py lanes)"
	@echo "make mutation-core  maintainers: mutants of the project's own critical modules against their tests"
	@echo "             (tests/mutation_core.toml; MUTATION_CORE_ARGS=\"web/teaching/counting.py --sample all\"); docs/testing.md"
	@echo "make mutation  maintainers: judge mutants of every reference with its suites (minutes, not in make test;"
	@echo "             MUTATION_SAMPLE=all for every mutant); writes build/mutation.json and build/mutation.md"
	@echo "make bench  calibration, power and speed benchmarks (figures for docs and notes)"

venv: $(STAMP)

$(STAMP): pyproject.toml Makefile
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	@$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install --quiet --disable-pip-version-check "$(TORCH_SPEC)" \
		|| $(PY) -m pip install --quiet --disable-pip-version-check torch
	$(PY) -m pip install --quiet --disable-pip-version-check -e ".[all,test]"
	@touch $(STAMP)

assets: $(ASSETS)

$(ASSETS): $(FRONTEND)/package.json $(FRONTEND)/package-lock.json $(FRONTEND)/build.mjs $(FRONTEND)/pyodide.sha256 \
		$(wildcard $(FRONTEND)/src/*)
	@command -v npm >/dev/null || { echo "error: npm (Node.js 18 or newer) is needed to build the editor and math assets"; exit 1; }
	cd $(FRONTEND) && npm ci --no-audit --no-fund --loglevel=error && node build.mjs
	@touch $@

# The browser tests drive Debian's chromium through Python playwright (never `playwright install`).
# Installed here when this is root on Debian; elsewhere the browser tests say what is missing.
browser:
	@command -v chromium >/dev/null || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "installing Debian's chromium for the browser tests"; \
			(apt-get install -y -q chromium >/dev/null 2>&1 || \
			 (apt-get update -q >/dev/null && apt-get install -y -q chromium >/dev/null)); \
		else echo "note: no chromium; the browser tests will be skipped (install Debian's chromium to run them)"; fi; }

# The checks before a commit (configured in pyproject.toml; the import contracts in .importlinter);
# each takes seconds. The exercises' suites and the solutions are linted and formatted too (not
# type-checked: learners' code has no annotations).
LINTED := judge web exercises solutions practice scripts
lint: venv
	$(VENV)/bin/ruff check $(LINTED)
	$(VENV)/bin/ruff format --check $(LINTED)
	$(VENV)/bin/mypy judge web
	$(VENV)/bin/lint-imports --config .importlinter --no-logo

test: venv assets browser lint
	$(PY) -m pytest -n $(PYTEST_JOBS) --maxprocesses $(PYTEST_MAX_JOBS) --dist worksteal -m "not machine_wide" $(PYTEST_ARGS) \
		|| [ $$? -eq 5 ]
	$(PY) -m pytest -m machine_wide $(PYTEST_ARGS) || [ $$? -eq 5 ]

# Grading on many machines, on its own (make test runs it too, as tests/web/test_scale.py): needs
# Debian's postgresql and redis-server; scripts/services.py starts throwaway ones on loopback.
test-scale: venv assets
	$(PY) scripts/scale_test.py

check: venv
	$(PY) practice/judge.py check

# The day a GPU is lent (docs/testing.md): no venv prerequisite on purpose, since such a machine may have
# torch with CUDA but no network to build .venv; scripts/gpu_check.sh picks the Python (PYTHON=...).
GPU_CHECK_ARGS ?=
gpu-check:
	scripts/gpu_check.sh $(GPU_CHECK_ARGS)

# Exit 1 for a stale or a killed entry of a mutants.toml, never for a survivor (add --strict for that).
mutation: venv
	$(PY) practice/judge.py mutation --sample $(MUTATION_SAMPLE) --json build/mutation.json \
		--markdown build/mutation.md $(MUTATION_ARGS)

# Exit 1 when a hand-made mutant survives or a module's score falls below its floor in
# tests/mutation_core.toml (the ratchet).
mutation-core: venv assets
	$(PY) scripts/mutation_core.py handmade
	$(PY) scripts/mutation_core.py run --ratchet --json build/mutation-core.json \
		--markdown build/mutation-core.md $(MUTATION_CORE_ARGS)

run: venv assets
	HOST=$(HOST) PORT=$(PORT) PROBJUDGE_ALLOW_WEAKER_SANDBOX=$(PROBJUDGE_ALLOW_WEAKER_SANDBOX) $(PY) -m web serve

bench: venv assets browser
	$(PY) benchmarks/speed.py
	$(PY) benchmarks/load.py
	$(PY) benchmarks/power.py
	$(PY) benchmarks/scale.py
	$(PY) benchmarks/power_040.py
	$(PY) benchmarks/power_041.py
	$(PY) benchmarks/power_042.py
	$(PY) benchmarks/power_043.py
	$(PY) benchmarks/power_044.py
	$(PY) benchmarks/power_045.py
	$(PY) benchmarks/power_046.py
	$(PY) benchmarks/power_047.py
	$(PY) benchmarks/power_048.py
	$(PY) benchmarks/power_049.py
	$(PY) benchmarks/power_050.py
	$(PY) benchmarks/power_051.py
	$(PY) benchmarks/power_052.py
	$(PY) benchmarks/power_053.py
	$(PY) benchmarks/power_054.py
	$(PY) benchmarks/peers.py
	$(PY) benchmarks/sequential.py
	$(PY) benchmarks/calibration.py
	$(PY) benchmarks/sandbox.py
	$(PY) benchmarks/browser.py
	$(PY) benchmarks/course_scale.py
	$(PY) benchmarks/similarity.py --behaviour
	$(PY) benchmarks/similarity_behaviour.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis *.egg-info $(FRONTEND)/node_modules web/static/build
