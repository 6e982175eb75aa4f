# Retrieval: the baseline table, benches and the retrieval tests (included by the main Makefile, which defines PY).

.PHONY: baselines bench-bm25 bench-dense bench-retrieval test-retrieval finetune

baselines: setup ## BM25 and MiniLM, one-to-one, on the default benchmarks (artifacts/results/baselines.*)
	$(PY) -m toolex.experiments.baselines

bench-bm25: setup ## BM25 throughput, toolex interface against raw bm25s (one JSON object)
	$(PY) bench/bench_bm25.py

bench-dense: setup ## dense encoding throughput, cold and with a warm embedding cache (one JSON object)
	$(PY) bench/bench_dense.py

bench-retrieval: bench-bm25 bench-dense ## both retrieval benches

test-retrieval: setup ## the retrieval tests only
	$(PY) -m pytest tests/retrieval -q

finetune: setup ## fine-tune MiniLM on one-to-one labels of the training queries (dense:minilm-ft; minutes on 2 cores)
	$(PY) -m toolex.cli finetune --no-progress
