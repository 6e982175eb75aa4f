# Research notebooks: `make paper` (main Makefile) runs them; these targets serve, test and set them up.
# Included by the main Makefile, which defines PY, SMOKE and JUDGE.

PY ?= python
CHROMIUM ?= /usr/bin/chromium
INSPECTOR_PORT ?= 8866
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

.PHONY: paper-smoke notebooks-clean test-notebooks test-browser browser-deps inspector

paper-smoke: ## the smoke setting of `make paper` (sampled queries; what CI runs)
	$(MAKE) paper SMOKE=1

notebooks-clean: ## check that the committed notebooks carry no outputs and a parameters cell
	$(PY) -m pytest -q tests/notebooks/test_clean.py

test-notebooks: ## execute every notebook headless in the smoke setting (pytest -m notebooks)
	$(PY) -m pytest -q -m notebooks tests/notebooks

test-browser: ## Voila serves the query inspector, headless chromium drives it (pytest -m browser)
	$(PY) -m pytest -q -m browser tests/widgets

browser-deps: ## install Debian's chromium for the browser tests (apt-get; no browser download)
	test -x $(CHROMIUM) || ($(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y chromium)

inspector: ## serve the query inspector with Voila on 127.0.0.1 (INSPECTOR_PORT, 8866); a closed tab's kernel is culled after 120 s idle (measured up to about 5 min when the browser process is killed)
	$(PY) -m toolex.widgets.serve --port=$(INSPECTOR_PORT)
