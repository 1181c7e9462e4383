# The two commands the README opens with:
#   make serve   set up, build and serve the site with live reload on 127.0.0.1:8000
#   make test    set up and run every check CI runs
# Both create .venv and install the pinned tools on first use.

# The venv's interpreter: Python 3.12 or newer where the machine has one
# (tools/pick-python.sh says why), else python3.
PYTHON ?= $(shell bash tools/pick-python.sh)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
export NO_MKDOCS_2_WARNING := 1
export PYDEVD_DISABLE_FILE_VALIDATION := 1
# Python keeps compiled modules in __pycache__ (and pytest its rewritten test modules):
# a shell that says not to would make every test process, kernel and command compile
# them again (the `bytecode` target says what that costs).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: serve test gate-selfcheck gate-unit gate-browser setup lint typecheck unit site release browser bench soak lock clean pyodide editor chromium bytecode

# Everything `make test` needs: the venv with the pinned tools, the Pyodide core and the
# code editor the site serves, and Debian's Chromium for the browser check. After it,
# plain `pytest` runs.
setup: $(STAMP) pyodide editor chromium

$(STAMP): pyproject.toml requirements/lock.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements/lock.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	$(BIN)/python -m ipykernel install --prefix $(VENV) --name python3 > /dev/null
	touch $(STAMP)

serve: $(STAMP) pyodide editor
	$(BIN)/mkdocs serve --livereload --dev-addr 127.0.0.1:8000

# pytest-xdist workers for the unit and browser runs: one a core (`auto`) unless told;
# `make test JOBS=0` runs each in one process.
JOBS ?= auto
BROWSER_JOBS ?= $(JOBS)

# The gate's stages, in order: a name and the make targets (and options) it runs.
# gate-selfcheck swaps these for stubs to prove a failing stage fails the gate.
GATE_SETUP ?= setup
GATE_LINT ?= lint
GATE_TYPECHECK_SITE ?= -j3 --output-sync=target typecheck site bytecode
GATE_UNIT ?= unit
GATE_BROWSER ?= browser

# One stage of make test: $(call stage,name,targets and make options). It prints the
# stage's time and keeps its exit status: a failing stage says so, and the `&&` chain of
# the recipe stops there (the braces keep the `;` inside from ending that chain).
stage = $(call timed,$(1),$(2),; later stages not run)
# $(call timed,name,targets and make options,what a failure adds to its line)
timed = { s=$$(date +%s); \
	if $(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) $(2); then \
		echo "make test: $(1) took $$(( $$(date +%s) - s )) s"; \
	else \
		echo "make test: $(1) FAILED after $$(( $$(date +%s) - s )) s$(3)" >&2; \
		false; \
	fi; }

# mypy and the site build each keep one core busy, so they run side by side
# (--output-sync keeps each one's output together), with `bytecode` in the time mypy
# leaves free. The unit and browser runs go side by side too, once the site is built:
# each leaves gaps on the cores (the browser run waits on page loads, the unit run on
# its slowest files), which the other fills, so the pair ends sooner than the two in a
# row (docs/contributing.md gives the figures);
# each prints its own time and verdict (gate-unit, gate-browser), and the pair fails if
# either fails.
# The set-up is timed apart from the checks: on a machine that has it, it takes no time.
# The self-check runs first: a gate that could pass with a failing stage proves nothing.
GATE_FIRST ?= gate-selfcheck
test: $(GATE_FIRST)
	@start=$$(date +%s); \
	$(call stage,setup,$(GATE_SETUP)) && \
	checks=$$(date +%s) && \
	$(call stage,lint,$(GATE_LINT)) && \
	$(call stage,typecheck + site,$(GATE_TYPECHECK_SITE)) && \
	$(call stage,unit + browser,-j2 --output-sync=target gate-unit gate-browser) && \
	now=$$(date +%s) && \
	echo "make test: every check passed in $$(( now - checks )) s" \
		"(set-up excluded; $$(( now - start )) s with it)"

# The two halves of the last stage, each timed on its own.
gate-unit:
	+@$(call timed,unit,$(GATE_UNIT),)
gate-browser:
	+@$(call timed,browser,$(GATE_BROWSER),)

# Runs `make test` on this Makefile with every stage a stub, once with all passing and
# once with each stage failing in turn; fails unless each failure fails the gate.
gate-selfcheck:
	@bash tools/gate-selfcheck.sh Makefile

# The stubs gate-selfcheck puts in place of a stage's targets.
gate-stub-pass-%:
	@echo "gate stub ran: $*"
gate-stub-fail-%:
	@echo "gate stub ran: $* (failing)"; false

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# Unit and property tests, Sybil over every page and docstring, every notebook executed;
# fails when the tests cover less than COVERAGE_FLOOR percent of src/context_budget.
# --dist loadfile: a page's blocks share one namespace, so one worker runs a file whole.
COVERAGE_FLOOR := 98
# --durations: the ten slowest tests close the run, so a slow one is seen the day it comes.
# On Python 3.12 and newer, coverage follows lines through sys.monitoring: about half the CPU
# time of the line tracer it must use on 3.11.
unit: $(STAMP) pyodide
	COVERAGE_CORE=$$($(BIN)/python -c 'import sys; print("sysmon" if sys.version_info >= (3, 12) else "ctrace")') \
	$(BIN)/pytest -m "not browser" -q -n $(JOBS) --dist loadfile --durations=10 --cov=context_budget --cov-report=term-missing:skip-covered --cov-fail-under=$(COVERAGE_FLOOR)

# Compile the package and the tests once, before the test processes start: collecting
# every test imports the package and the test modules and leaves their bytecode (pytest's
# rewritten test modules included) in __pycache__, which each later process reads instead
# of compiling again. With no __pycache__, as on a fresh clone, it takes the unit run from
# about 158 to 122 s of CPU time (docs/contributing.md). It checks nothing: a failure
# here is a test that cannot be collected. The browser tests are left out: collecting
# them reads site/, which the site build is writing at the same time.
bytecode: $(STAMP)
	$(BIN)/pytest --collect-only -q --ignore=tests/browser > /dev/null

# The strict site build into site/ (a hanging notebook cell cannot hang the gate).
site: $(STAMP) pyodide editor
	@start=$$(date +%s); \
	timeout 900 $(BIN)/mkdocs build --strict && \
	echo "mkdocs build --strict: $$(( $$(date +%s) - start )) s"

# The site to publish: like `make site`, but it fails unless SITE_URL and REPO_URL
# say where it goes (docsite/release.py), so no link points at 127.0.0.1.
release: $(STAMP) pyodide editor
	RELEASE=1 timeout 900 $(BIN)/mkdocs build --strict

# The Pyodide core the site serves for in-browser runs: npm, pinned, checksummed, cached.
pyodide:
	bash tools/fetch-pyodide.sh

# The code editor of the runnable blocks (CodeMirror 6): npm ci from a committed lock,
# bundled with esbuild, cached in .cache/editor.
editor:
	bash tools/build-editor.sh

# The built site, served on 127.0.0.1, opened in headless Chromium (one browser a worker).
# Only tests/browser is collected; conftest.py fails any run that finds a browser test
# anywhere else.
browser: $(STAMP) chromium
	$(BIN)/pytest -m browser -q -n $(BROWSER_JOBS) --dist loadgroup --durations=10 tests/browser

# Debian's Chromium and its headless shell (installed with apt when missing and run as root).
chromium:
	bash tools/ensure-chromium.sh

# Every Hypothesis property (marked `property` by conftest.py) under the `soak` profile:
# 20,000 cases a property (a share of that for the costliest, tests/profiles.py), with a
# fresh seed each run. Not in CI: the gate runs the `ci` profile's fixed cases.
soak: $(STAMP)
	seed=$$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); echo "make soak: hypothesis seed $$seed"; \
	HYPOTHESIS_PROFILE=soak $(BIN)/pytest -q -p no:cacheprovider -m property -n $(JOBS) tests \
		--hypothesis-seed=$$seed --hypothesis-show-statistics

bench: $(STAMP)
	$(BIN)/python -m benchmarks --write-page

# Re-pin requirements/lock.txt from requirements/dev.in in a scratch environment.
lock:
	rm -rf .lock-venv && $(PYTHON) -m venv .lock-venv
	.lock-venv/bin/pip install --quiet -r requirements/dev.in
	.lock-venv/bin/pip freeze --exclude-editable --all --exclude pip > requirements/lock.txt
	rm -rf .lock-venv

clean:
	rm -rf site .cache $(VENV)
