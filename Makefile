# toolex — equivalence-aware tool-retrieval evaluation.  `make help` lists every target.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV    ?= .venv
PY      := $(VENV)/bin/python
PIP     := $(VENV)/bin/pip
EXTRAS  ?= dev
# Benchmark snapshots and the paper's tables (read only; never copied into the repository).
TOOLEX_DATA  ?= $(abspath ../shared/data)
TOOLEX_PAPER ?= $(abspath ../shared/paper)
export TOOLEX_DATA TOOLEX_PAPER
# Settings of `make paper`: SMOKE=1 runs the fast smoke setting; JUDGE=offline|local|api; FROM_SCRATCH=1
# computes the default annotations even where the ToolEq release (data/release/tooleq) holds them.
SMOKE ?= 0
JUDGE ?= offline
export SMOKE JUDGE
ifdef FROM_SCRATCH
TOOLEX_FROM_SCRATCH := $(FROM_SCRATCH)
export TOOLEX_FROM_SCRATCH
endif

STAMP := $(VENV)/.installed-$(EXTRAS)
# Python writes the bytecode of each module a run imports, once, even where the environment asks it not to
# (PYTHONDONTWRITEBYTECODE): the environment is the project's own, and every process of a run (notebook
# kernels, servers, subprocesses) would otherwise compile the same modules again.
unexport PYTHONDONTWRITEBYTECODE
# What the commands, the notebooks' kernels and the tests import, compiled by `make setup` (importing it
# writes its bytecode; the rest of the environment is compiled as a run first imports it).
WARM := toolex.cli toolex.report.runner toolex.retrieval.dense torch sentence_transformers transformers \
        pandas scipy.stats matplotlib.pyplot bm25s faiss ipykernel.kernelapp papermill pytest hypothesis

help: ## list every target
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_.-]+:.*## / {printf "  \033[1m%-16s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)
	@echo "  settings: TOOLEX_DATA=$(TOOLEX_DATA) SMOKE=$(SMOKE) JUDGE=$(JUDGE)"

setup: $(STAMP) notebook-filter ## create .venv and install toolex with its extras (EXTRAS=dev)
$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q --no-compile -e ".[$(EXTRAS)]"
	@# bytecode for what runs import (not for the environment's 24,000 files, most never imported)
	@# (those of the extras installed: EXTRAS may leave the notebooks or the test tools out); it only saves
	@# time, so a module that fails to import is named and skipped
	$(PY) -m toolex.io.warm $(WARM)
	touch $@

# Opening, running or autosaving a notebook must not change what git sees (see .gitattributes).
notebook-filter: $(STAMP) ## register the git filter that strips outputs and kernel metadata from notebooks
	@if git rev-parse --git-dir >/dev/null 2>&1; then \
	  git config filter.toolex-notebook.clean "$(abspath $(PY)) -m toolex.report.notebook_filter" && \
	  git config filter.toolex-notebook.smudge cat && \
	  git config filter.toolex-notebook.required true && \
	  git config diff.toolex-notebook.textconv "$(abspath $(PY)) -m toolex.report.notebook_filter"; fi

# Test processes: the tests that share the default artifacts folder run in order on one, the self-contained
# slow ones beside them on the other (tests/conftest.py: BESIDE); TEST_WORKERS=0 runs everything in one.
TEST_WORKERS ?= 2
test: setup ## run the test suite (the command CI runs)
	$(PY) -m pytest -q -ra -n $(TEST_WORKERS)

docs: setup ## build the documentation site strictly (docs/ and the API reference from the docstrings) into build/site
	$(VENV)/bin/mkdocs build --strict --quiet

lint: setup ## ruff over the package, tests and benches
	$(VENV)/bin/ruff check toolex tests bench
	$(VENV)/bin/mypy

paper-check: setup ## re-derive the paper's claims from its tables (OK / OKISH / FAIL)
	$(VENV)/bin/toolex paper-check

paper: setup paper-check ## regenerate every figure and table (papermill, headless)
	$(PY) -m toolex.report.runner --smoke $(SMOKE) --judge $(JUDGE)

bench: setup ## speed checks: each bench script prints one JSON object
	@for script in bench/bench_*.py; do echo "== $$script"; $(PY) $$script || exit 1; done

clean: ## remove generated outputs (build/, figures, tables); caches stay
	rm -rf build tables figures/*.png figures/*.pdf

-include mk/*.mk

.PHONY: help setup notebook-filter test docs lint paper paper-check bench clean
