# The ToolEq release (included by the main Makefile, which defines PY): the expanded annotations `make paper`
# reads, as data in data/release/{tooleq,skilleq,sgd-report} (toolex.experiments.release).

PY ?= python

.PHONY: release release-verify

release: ## build the release: the default setting (ToolEq), SkillEq and the sgd/report validation, each from its annotation folder (computed first if missing)
	$(PY) -m toolex.cli release build

release-verify: ## check every release part: checksums, and that the current judge and data would write the same folders
	$(PY) -m toolex.cli release verify
