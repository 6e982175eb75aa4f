# Local LLM (Qwen2.5-Coder-1.5B-Instruct GGUF behind the llama-cpp-python OpenAI-compatible server).
# Port: TOOLEX_LLM_PORT (default 8012); model: TOOLEX_LLM_MODEL_PATH; wheel cache: TOOLEX_WHEEL_CACHE.

PY ?= python

.PHONY: llm-install llm-up llm-down llm-status test-llm

llm-install: setup ## install llama-cpp-python[server] (cached wheel, else build it) and assemble the model
	$(PY) -m toolex.llm.local install

llm-up: setup ## start the local server in the background and wait until /v1/models answers
	$(PY) -m toolex.llm.local up

llm-down:  ## stop the local server
	$(PY) -m toolex.llm.local down

llm-status:  ## model, process and endpoint state (exit 3 when not answering)
	$(PY) -m toolex.llm.local status

test-llm:  ## integration tests against the running local server
	$(PY) -m pytest tests/llm -m llm -v -s
