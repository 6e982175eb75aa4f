"""``toolex calibrate --draw`` then ``--labels`` on the tiny benchmark with a bag-of-words judge: the blind
file people label, its draw record, the threshold placed from their labels and the refusals."""

from __future__ import annotations

import json

import pytest

from tests.annotate.fakes import BagOfWords, tiny_benchmark
from toolex.annotate.judges.features import FEATURES
from toolex.annotate.judges.offline import OfflineSimilarityJudge
from toolex.annotate.judges.scoring import ScoreModel
from toolex.annotate.pipeline import AnnotateConfig
from toolex.cli import main
from toolex.errors import InputError

MODEL = ScoreModel("bow", (4.0, 2.0, 0.0, 0.0, 0.0, 0.0, 1.0) + (0.0,) * (len(FEATURES) - 7), -3.0, 0.5,
                   (0.3, 0.7), FEATURES, {})


@pytest.fixture(autouse=True)
def _tiny(monkeypatch):
    from toolex.experiments import calibrate

    monkeypatch.setattr(calibrate, "load_benchmark", lambda name, data=None: tiny_benchmark())
    monkeypatch.setattr(calibrate, "default_model", lambda: MODEL)
    monkeypatch.setattr(calibrate.JudgeOptions, "judge", lambda options, model, data_dir=None: (
        OfflineSimilarityJudge(BagOfWords(), model), AnnotateConfig(retriever="bow", top_k=4), BagOfWords()))


def test_draw_then_labels(tmp_path, capsys):
    drawn = tmp_path / "to_label.jsonl"
    assert main(["calibrate", "--benchmark", "tiny", "--draw", "6", "--out", str(drawn)]) == 0
    rows = [json.loads(line) for line in drawn.read_text().splitlines()]
    assert len(rows) == 6 and all(r["equivalent"] is None for r in rows)
    assert not any(k in json.dumps(rows) for k in ("score", "inclusion", "stratum", *FEATURES))
    record = json.loads((tmp_path / "to_label.draw.json").read_text())
    assert record["benchmark"] == "tiny" and len(record["items"]) == 6
    assert record["score_model"] == MODEL.identity()
    for i, r in enumerate(rows):  # people label: every other item equivalent
        r["equivalent"] = i % 2 == 0
    drawn.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "judge.json"
    assert main(["calibrate", "--benchmark", "tiny", "--labels", str(drawn), "--out", str(out)]) == 0
    fitted = ScoreModel.load(out)
    assert fitted.weights == MODEL.weights and fitted.calibration["per_benchmark"]["labels"] == 6
    with pytest.raises(InputError, match="drawn from 'tiny'"):
        from toolex.commands import calibrate

        calibrate.run(calibrate_args(["--benchmark", "other", "--labels", str(drawn), "--out", str(out)]))


def calibrate_args(argv):
    import argparse

    from toolex.commands import calibrate

    parser = argparse.ArgumentParser()
    calibrate.add_arguments(parser)
    return parser.parse_args(argv)


def test_the_two_steps_are_not_one(tmp_path):
    from toolex.commands import calibrate

    with pytest.raises(InputError, match="two steps"):
        calibrate.run(calibrate_args(["--draw", "5", "--labels", "x", "--out", "y"]))
    with pytest.raises(InputError, match="--out is required"):
        calibrate.run(calibrate_args(["--draw", "5"]))


def test_draw_review_export_calibrate_annotate(tmp_path, capsys):
    """The loop end to end with the commands: draw, one labeller reviews in a campaign, export the labels
    (the draw record travels with them), place the threshold, annotate with the placed judge (its encoder and
    retriever a bag of words, the benchmark the tiny one)."""
    from toolex.review.database import Campaign

    drawn, campaign_file = tmp_path / "to_label.jsonl", tmp_path / "c.sqlite"
    assert main(["calibrate", "--benchmark", "tiny", "--draw", "6", "--out", str(drawn)]) == 0
    assert main(["review", "sample", "--items", str(drawn), "--campaign", str(campaign_file)]) == 0
    with Campaign(campaign_file) as campaign:
        for i, item in enumerate(campaign.items()):
            campaign.decide(item.item_id, "ann", i % 2 == 0, None if i % 2 == 0 else "near_synonym")
    export_calibrate_annotate(tmp_path, campaign_file, capsys)


def export_calibrate_annotate(tmp_path, campaign_file, capsys) -> None:
    """The loop after the review: export the campaign's labels (all six drawn items), place the threshold,
    annotate the tiny benchmark with the placed judge (its encoder and retriever a bag of words)."""
    labels = tmp_path / "labels.jsonl"
    assert main(["review", "export", "--campaign", str(campaign_file), "--out", str(tmp_path / "out"),
                 "--labels", str(labels)]) == 0
    assert "6 labels written" in capsys.readouterr().out
    judge = tmp_path / "judge.json"
    assert main(["calibrate", "--benchmark", "tiny", "--labels", str(labels), "--out", str(judge)]) == 0
    fitted = ScoreModel.load(judge)
    assert fitted.calibration["per_benchmark"]["labels"] == 6 and fitted.weights == MODEL.weights
    import toolex.annotate.judges as judges
    import toolex.commands.annotate as annotate_command
    import toolex.experiments.finetune as finetune

    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(annotate_command, "load_benchmark", lambda name, data=None: tiny_benchmark())
        mp.setattr(finetune, "open_retriever", lambda spec, data_dir=None, **options: BagOfWords())
        mp.setattr(judges, "build_judge", lambda kind, model_file=None, **options: OfflineSimilarityJudge(
            BagOfWords(), ScoreModel.load(model_file)))
        assert main(["annotate", "--benchmark", "tiny", "--retriever", "bow", "--judge", "offline",
                     "--judge-model", str(judge), "--out", str(tmp_path / "ann"), "--no-progress"]) == 0
    finally:
        mp.undo()
    manifest = json.loads((tmp_path / "ann" / "manifest.json").read_text())
    assert manifest["judge"]["score_model"]["threshold"] == fitted.threshold


def test_the_judge_options_resolve_a_fine_tuned_alias_against_the_data_folder(monkeypatch):
    """``toolex calibrate --data D --retriever dense:minilm-ft`` means the model trained on D's benchmarks,
    for the candidates and for the encoder alike."""
    from toolex.annotate.judges.scoring import default_model
    from toolex.experiments import calibrate as workflow
    from toolex.experiments.calibrate import Embedder

    monkeypatch.undo()  # the real JudgeOptions.judge, not the tiny one of the fixture
    seen: list[tuple[str, object]] = []

    def resolve(spec, data_dir=None):
        seen.append((spec, data_dir))
        return spec.replace("minilm-ft", "/models/minilm-ft-0123456789ab")

    class Encoder(Embedder):  # type: ignore[misc]
        def __init__(self, spec: str) -> None:
            self.spec = spec

    def open_(spec, data_dir=None, **options):
        seen.append((spec, data_dir))
        return Encoder(resolve(spec, data_dir))

    monkeypatch.setattr(workflow, "resolve_spec", resolve)
    monkeypatch.setattr(workflow, "open_retriever", open_)
    monkeypatch.setattr(workflow, "OfflineSimilarityJudge", lambda encoder, model: encoder)
    options = workflow.JudgeOptions(encoder="dense:minilm-ft", retriever="dense:minilm-ft")
    encoder, config, candidates = options.judge(default_model(), "/my/data")
    assert config.retriever == "dense:/models/minilm-ft-0123456789ab" and candidates is encoder
    assert seen and all(data_dir == "/my/data" for _, data_dir in seen)
