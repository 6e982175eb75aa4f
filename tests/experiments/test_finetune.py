"""Fine-tuning on one-to-one labels: disjoint training and evaluation queries, batches without duplicate
positives, a model folder keyed by its settings, written whole, usable as a dense retriever."""

from __future__ import annotations

import json

import pytest

from toolex import keys
from toolex.data.records import Benchmark, Query, Tool
from toolex.experiments import finetune
from toolex.experiments.finetune import (
    FinetuneSettings,
    Triple,
    batches,
    evaluation_queries,
    held_out,
    training_queries,
)

WORDS = ["weather", "forecast", "email", "mail", "stock", "price", "translate", "text", "image", "resize",
         "calendar", "event", "flight", "booking", "recipe", "cooking"]


def _bench(name: str = "toolret/demo", n: int = 40) -> Benchmark:
    tools = [Tool(f"{name}-t{i}", f"tool_{WORDS[i]}", {"name": f"tool_{WORDS[i]}",
                                                       "description": f"Handles {WORDS[i]} requests."})
             for i in range(len(WORDS))]
    queries = [Query(f"{name}-q{i}", f"please help with {WORDS[i % len(WORDS)]} number {i}",
                     (tools[i % len(WORDS)].id,)) for i in range(n)]
    return Benchmark(name, queries, {t.id: t for t in tools}, checksum=f"{name}-sum")


def test_training_and_evaluation_queries_are_disjoint_and_cover_the_benchmark():
    bench, settings = _bench(n=200), FinetuneSettings(benchmarks=("toolret/demo",))
    train = {q.id for q in training_queries(bench, settings)}
    test = {q.id for q in evaluation_queries(bench, settings)}
    assert not train & test and train | test == {q.id for q in bench.queries}
    assert 0.35 < len(train) / 200 < 0.65  # the hash split is near the 0.5 train fraction
    assert held_out("x", settings) == held_out("x", FinetuneSettings())  # deterministic
    other_seed = FinetuneSettings(seed=1)
    assert [held_out(q.id, settings) for q in bench.queries] != [held_out(q.id, other_seed)
                                                                 for q in bench.queries]


def test_a_benchmark_with_its_own_training_split_is_held_out_whole(monkeypatch):
    test_part, train_part = _bench("toollens", 10), _bench("toollens-train", 30)
    monkeypatch.setattr(finetune, "load_benchmark", lambda name, data_dir=None: train_part)
    settings = FinetuneSettings(own_train=12)
    assert evaluation_queries(test_part, settings) == test_part.queries
    train = training_queries(test_part, settings)
    assert len(train) == 12 and {q.id for q in train} <= {q.id for q in train_part.queries}


def test_batches_never_repeat_a_positive_and_keep_every_triple():
    triples = [Triple("b", f"q{i}", "q", "p", "n", positive_id=f"t{i % 3}") for i in range(12)]
    plan = batches(triples, size=4, seed=0)
    assert all(len({t.positive_id for t in b}) == len(b) for b in plan)
    assert sorted(t.query_id for b in plan for t in b) == sorted(t.query_id for t in triples)
    assert plan == batches(triples, size=4, seed=0)


def test_settings_are_checked():
    with pytest.raises(ValueError, match="train_fraction"):
        FinetuneSettings(train_fraction=1.0)
    with pytest.raises(ValueError, match="batch_size"):
        FinetuneSettings(batch_size=1)


def test_the_model_folder_is_keyed_by_settings_and_data_and_reused(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLEX_ARTIFACTS", str(tmp_path))
    bench = _bench()
    monkeypatch.setattr(finetune, "load_benchmark", lambda name, data_dir=None: bench)
    calls = []

    def fake_train(settings, benchmarks, out, data_dir=None, progress=False):
        calls.append(settings)
        out.mkdir(parents=True)
        (out / finetune.MANIFEST).write_text("{}")
        return {}

    monkeypatch.setattr(finetune, "train", fake_train)
    settings = FinetuneSettings(benchmarks=("toolret/demo",))
    first = finetune.ensure_finetuned(settings)
    assert finetune.ensure_finetuned(settings) == first and len(calls) == 1
    changed = finetune.ensure_finetuned(finetune.with_overrides(settings, learning_rate=1e-5))
    assert changed != first and len(calls) == 2
    other_data = Benchmark(bench.name, bench.queries, bench.tools, checksum="changed")
    assert finetune.settings_key(settings, [other_data]) != finetune.settings_key(settings, [bench])


@pytest.mark.slow
def test_training_writes_a_model_that_retrieves(tmp_path, capsys):
    """Two small batches of real training: the folder holds the model and its manifest, no temporary folder
    is left, and the model loads as ``dense:<folder>``."""
    from toolex.retrieval import build_retriever, retrieve_queries

    bench = _bench(n=48)
    settings = FinetuneSettings(benchmarks=(bench.name,), batch_size=8, max_length=32)
    out = tmp_path / "models" / "minilm-ft-test"
    manifest = finetune.train(settings, [bench], out)
    assert manifest["training"]["triples"] == len(training_queries(bench, settings))
    assert manifest["training"]["steps"] >= 2 and manifest["labels"].startswith("one-to-one")
    kept = json.loads((out / finetune.MANIFEST).read_text())
    assert kept["settings"]["batch_size"] == 8 and kept["kind"] == "model"
    assert kept["identity"] == json.loads(json.dumps(finetune.settings_identity(settings, [bench])))
    assert finetune.settings_key(settings, [bench]) == keys.key_of(kept["identity"])  # what names the folder
    assert [p.name for p in out.parent.iterdir()] == ["minilm-ft-test"]
    said = capsys.readouterr().err  # the duration is announced before the first batch
    assert f"{manifest['training']['steps']} batches of 8, expected duration shown after its first" in said
    from sentence_transformers import SentenceTransformer

    from toolex.retrieval.encoders import minilm_path

    reads = SentenceTransformer(str(minilm_path()), device="cpu").max_seq_length
    assert SentenceTransformer(str(out), device="cpu").max_seq_length == reads != 32  # trained at 32
    tuned = build_retriever(f"dense:{out}", cache=False)
    tuned.index(bench.tools)
    run = retrieve_queries(tuned, evaluation_queries(bench, settings), k=3)
    assert len(run) == len(evaluation_queries(bench, settings)) and all(len(r) == 3 for r in run.values())


def test_a_report_fine_tunes_on_its_own_benchmarks():
    from toolex.experiments.settings import ReportSettings
    from toolex.report.finetuning import SMOKE_FINETUNE, finetune_settings

    full = finetune_settings(ReportSettings.make())
    assert full == FinetuneSettings()  # the default report trains the model dense:minilm-ft names
    smoke = finetune_settings(ReportSettings.make(smoke=True, seed=3))
    assert smoke.benchmarks == ReportSettings.make(smoke=True).benchmarks and smoke.seed == 3
    assert all(getattr(smoke, key) == value for key, value in SMOKE_FINETUNE.items())


def test_training_queries_can_be_capped_by_a_seeded_draw():
    bench = _bench(n=200)
    capped = FinetuneSettings(max_train_queries=10)
    drawn = training_queries(bench, capped)
    assert len(drawn) == 10 and drawn == training_queries(bench, capped)
    assert {q.id for q in drawn} <= {q.id for q in training_queries(bench, FinetuneSettings())}


def test_an_unset_optional_setting_does_not_enter_the_key():
    bench = _bench()
    base = FinetuneSettings(benchmarks=(bench.name,))
    assert finetune.settings_key(base, [bench]) != finetune.settings_key(
        finetune.with_overrides(base, max_train_queries=5), [bench])
    chosen = {k: v for k, v in base.as_dict().items() if v is not None}
    assert "max_train_queries" not in chosen  # None: left out, so older models keep their folder


class _FakeBase:
    """Ranks every tool in one fixed order; texts pass through unchanged."""

    class prompt:  # noqa: N801 - stands for the retriever's prompt object
        query = staticmethod(lambda text, instruction="": text)
        doc = staticmethod(lambda text: text)

    def index(self, pool):
        self.order = list(pool)


def test_tooleq_labels_make_equivalents_positives_never_negatives(tmp_path, monkeypatch):
    bench = _bench(n=40)
    settings = FinetuneSettings(benchmarks=(bench.name,))
    query = training_queries(bench, settings)[0]
    reference = query.reference[0]
    equivalent, other = [t for t in bench.tools if t != reference][:2]
    # the base ranks the equivalent first, then another tool: the one-to-one hard negative is the equivalent
    monkeypatch.setattr(finetune, "retrieve_over_pools", lambda base, groups, k: {
        q.id: {t: 1.0 / (i + 1) for i, t in enumerate([equivalent, other, reference])}
        for _, queries in groups for q in queries})
    labels = tmp_path / "annotations.jsonl"
    labels.write_text(json.dumps({"query_id": query.id, "category": "", "reference": [reference],
                                  "combinations": [[reference], [equivalent]]}) + "\n")
    tooleq = finetune.with_overrides(settings, labels=str(labels))

    plain = [t for t in finetune.mine_triples(_FakeBase(), [bench], settings) if t.query_id == query.id]
    expanded = [t for t in finetune.mine_triples(_FakeBase(), [bench], tooleq) if t.query_id == query.id]

    assert [(t.positive_id, t.negative, t.equivalent) for t in plain] == [
        (reference, bench.tools[equivalent].text, False)]
    assert [(t.positive_id, t.negative, t.equivalent) for t in expanded] == [
        (reference, bench.tools[other].text, False), (equivalent, bench.tools[other].text, True)]
    assert finetune.settings_key(tooleq, [bench]) != finetune.settings_key(settings, [bench])
    before = finetune.settings_key(tooleq, [bench])
    labels.write_text(labels.read_text().replace(f'["{equivalent}"]', f'["{other}"]'))
    assert finetune.settings_key(tooleq, [bench]) != before  # keyed by the labels' content


def test_the_alias_names_the_default_model_and_never_trains(tmp_path, monkeypatch):
    from toolex.errors import InputError
    from toolex.retrieval.encoders import embedded_model

    monkeypatch.setenv("TOOLEX_ARTIFACTS", str(tmp_path))
    bench = _bench()
    monkeypatch.setattr(finetune, "load_benchmark", lambda name, data_dir=None: bench)
    monkeypatch.setattr(finetune, "train", lambda *a, **k: pytest.fail("an alias must never train"))
    assert finetune.resolve_spec("dense:minilm") == "dense:minilm"
    with pytest.raises(InputError, match="not trained yet.*toolex finetune"):
        finetune.resolve_spec("rrf:bm25+dense:minilm-ft")
    settings = FinetuneSettings()
    key = finetune.settings_key(settings, [bench for _ in settings.benchmarks])
    folder = finetune._model_dir(settings, key)
    folder.mkdir(parents=True)
    (folder / finetune.MANIFEST).write_text("{}")
    assert finetune.resolve_spec("rrf:bm25+dense:minilm-ft") == f"rrf:bm25+dense:{folder}"
    assert finetune.resolve_spec("openvino:minilm-ft") == f"openvino:{folder}"  # the backend stays
    assert finetune.resolve_spec("dense:minilm-ft-tooleq") == "dense:minilm-ft-tooleq"  # another name
    with pytest.raises(InputError, match="resolve_spec"):
        embedded_model("minilm-ft")


def test_the_expected_duration_comes_from_earlier_trainings_like_this_one(tmp_path):
    settings = FinetuneSettings(batch_size=32, max_length=128)
    models = tmp_path / "models"
    assert "no earlier training here" in finetune.expected_duration(settings, 200, models)

    def made(name: str, text: str) -> None:
        (models / name).mkdir(parents=True)
        (models / name / finetune.MANIFEST).write_text(text)

    def manifest(seconds: float, steps: int, batch_size: int = 32, loop: float | None = None) -> str:
        training = {"steps": steps} if loop is None else {"steps": steps, "loop_seconds": loop}
        return json.dumps({"settings": {"batch_size": batch_size, "max_length": 128}, "seconds": seconds,
                           "training": training})

    made("minilm-ft-a", manifest(800.0, 100))    # 8 s per batch, mining included
    said = finetune.expected_duration(settings, 200, models)
    assert said == ("expected about 27 min (8.0 s per batch: 1 earlier training here with these batch and "
                    "length settings, whole trainings, triple mining included)")
    made("minilm-ft-b", manifest(2000.0, 200, loop=1800.0))   # 9 s per batch of its own
    made("minilm-ft-c", manifest(2200.0, 200))   # 11 s
    made("minilm-ft-d", manifest(20.0, 10, batch_size=16))  # other settings: not counted
    made("minilm-ft-e", "{partial")  # being written: not counted
    made("minilm-ft-f.tmp-123", manifest(1.0, 100))  # a model being saved: not counted
    made("minilm-ft-g", json.dumps({"settings": None, "seconds": 1.0, "training": {"steps": 1}}))
    made("minilm-ft-h", manifest(float("nan"), 100))
    made("minilm-ft-i", manifest(5.0, 0))
    said = finetune.expected_duration(settings, 200, models)
    assert said == ("expected about 30 min (9.0 s per batch: the median of 3 earlier trainings here with "
                    "these batch and length settings, the batches alone)")


def test_every_caller_opens_a_fine_tuned_alias_the_same_way(tmp_path, monkeypatch):
    """The baselines asked build_retriever for ``dense:minilm-ft`` directly and were refused: they open it as
    every other caller does, so an untrained alias is named with the command that trains it."""
    from toolex.errors import InputError
    from toolex.experiments import baselines

    monkeypatch.setenv("TOOLEX_ARTIFACTS", str(tmp_path))
    bench = _bench()
    monkeypatch.setattr(finetune, "load_benchmark", lambda name, data_dir=None: bench)
    monkeypatch.setattr(baselines, "load_benchmarks", lambda names, data_dir=None: [bench])
    with pytest.raises(InputError, match="not trained yet.*toolex finetune"):
        finetune.open_retriever("dense:minilm-ft")
    with pytest.raises(InputError, match="not trained yet.*toolex finetune"):
        baselines.run_baselines(["dense:minilm-ft"], [bench.name], out_dir=tmp_path, progress=False)
