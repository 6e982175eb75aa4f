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
    monkeypatch.setattr(calibrate.JudgeOptions, "judge", lambda options, model: (
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
