# The downstream experiment (Figure 6): an agent on StableToolBench with oracle, retrieved and ToolEX-expanded
# tools, against a virtual API server, judged by an LLM evaluator. The local LLM needs `make llm-up`.

PY ?= python
DOWNSTREAM_SAMPLE ?= 24
DOWNSTREAM_STEPS ?= 4
DOWNSTREAM_OUT ?= data/downstream/local-qwen2.5-coder-1.5b-sample$(DOWNSTREAM_SAMPLE)

.PHONY: downstream downstream-estimate downstream-simulator

downstream: setup ## record the downstream sample with the local LLM (DOWNSTREAM_SAMPLE queries, all three settings, DOWNSTREAM_STEPS agent steps; resumable)
	$(VENV)/bin/toolex downstream --llm local --sample $(DOWNSTREAM_SAMPLE) --max-steps $(DOWNSTREAM_STEPS) \
	  --out $(DOWNSTREAM_OUT)

downstream-estimate: setup ## the most LLM calls `make downstream` can make, before any call
	$(VENV)/bin/toolex downstream --sample $(DOWNSTREAM_SAMPLE) --max-steps $(DOWNSTREAM_STEPS) \
	  --out $(DOWNSTREAM_OUT) --estimate

downstream-simulator: setup ## serve the virtual StableToolBench APIs on 127.0.0.1:8090 (TOOLEX_LLM_SIMULATOR_*) until stopped
	$(PY) -m toolex.downstream.simulator --port 8090
