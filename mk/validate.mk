# Annotation validity (included by the main Makefile, which defines PY): choose the offline judge across sources
# (SGD, SGD-X, two-tool SGD queries; leave-one-source-out) and validate the judges on report parts against the
# human alternatives.

PY ?= python

.PHONY: calibrate validate validate-folder bench-cascade bench-ceiling

calibrate: ## choose and fit the default offline judge across sources, leave-one-source-out (writes toolex/annotate/judges/offline_mpnet.json and data/validation/judge_transfer.json)
	$(PY) bench/judge_transfer.py --write-default --out data/validation/judge_transfer.json

validate: ## the offline judge against people on sgd/report (writes data/validation/sgd_report_offline.json)
	$(PY) -m toolex.report.validation --judge offline --out data/validation/sgd_report_offline.json

bench-cascade: ## the cascade's trade-off on the recorded local-LLM sample (data/validation/cascade_local_llm_sample.json)
	$(PY) bench/cascade_tradeoff.py --out data/validation/cascade_local_llm_sample.json

bench-ceiling: ## what the cascade reaches on sgd/report with a stand-in verifier 70-100 % right in its band (data/validation/cascade_ceiling_sgd_report.json)
	$(PY) bench/cascade_ceiling.py --out data/validation/cascade_ceiling_sgd_report.json
