# The ToolEq release (included by the main Makefile, which defines PY): the default setting's expanded
# annotations as data in data/release/tooleq (toolex.experiments.release).

PY ?= python

.PHONY: release release-verify

release: ## build the ToolEq release from the default annotation folder (computed first if missing)
	$(PY) -m toolex.cli release build

release-verify: ## check the release's checksums and that the current judge and data would write the same folder
	$(PY) -m toolex.cli release verify
