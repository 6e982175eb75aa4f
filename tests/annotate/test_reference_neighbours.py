"""Stage 2's optional candidates from the reference tool's own neighbourhood (``reference_k``): where they
sit, what they leave out, and that the paper's setting (0) keeps every earlier key."""

from __future__ import annotations

from toolex.annotate.identity import config_fields, stage_key
from toolex.annotate.pipeline import AnnotateConfig, ToolEX
from toolex.annotate.run_folder import ArtifactFolder
from toolex.annotate.verification import with_reference_neighbours

from .fakes import BagOfWords, RuleJudge, tiny_benchmark


def test_neighbours_follow_the_subquery_ranking_without_repeats_or_the_reference():
    ranking = [("a", 0.9), ("b", 0.8)]
    neighbours = [("r", 1.0), ("b", 0.7), ("c", 0.6), ("d", 0.5), ("e", 0.4)]
    assert with_reference_neighbours(ranking, neighbours, "r", 2) == [("a", 0.9), ("b", 0.8), ("c", 0.6),
                                                                      ("d", 0.5)]
    assert with_reference_neighbours(ranking, neighbours, "r", 0) == ranking
    assert with_reference_neighbours(ranking, neighbours[:2], "r", 5) == ranking  # nothing new to add
    # the pipeline passes the reference's k + 1 nearest: one the sub-query found already is not replaced
    assert with_reference_neighbours(ranking, neighbours[:3], "r", 2) == [("a", 0.9), ("b", 0.8), ("c", 0.6)]


def _pipeline(folder, reference_k: int) -> ToolEX:
    bench = tiny_benchmark()
    return ToolEX([bench], RuleJudge(), folder, AnnotateConfig(top_k=1, reference_k=reference_k),
                  retriever=BagOfWords(), progress=False)


def test_the_pipeline_verifies_the_references_neighbours_after_the_subquery_top_k(tmp_path):
    plain, wider = _pipeline(tmp_path / "plain", 0), _pipeline(tmp_path / "wider", 2)
    decompositions = plain.decompose()
    narrow, wide = plain.retrieve_candidates(decompositions), wider.retrieve_candidates(decompositions)
    near = BagOfWords()
    near.index(tiny_benchmark().tools)
    for key, ranking in narrow.items():
        assert len(ranking) == 1 and wide[key][:1] == ranking
        reference = next(s.reference_tool for d in decompositions for s in d.subqueries
                         if (d.query_id, s.index) == key)
        expected = [t for t in near.search([tiny_benchmark().tools[reference].text], k=6)[0]
                    if t[0] not in {reference, ranking[0][0]}][:2]
        assert wide[key][1:] == expected
    wider.run()
    manifest = ArtifactFolder(tmp_path / "wider").manifest()
    assert manifest["config"]["reference_k"] == 2


def test_the_papers_setting_keeps_every_earlier_key(tmp_path):
    fields = config_fields(AnnotateConfig())
    assert "reference_k" not in fields
    assert config_fields(AnnotateConfig(reference_k=20))["reference_k"] == 20
    judge = RuleJudge()
    assert (stage_key("data", judge, "verify", AnnotateConfig())
            != stage_key("data", judge, "verify", AnnotateConfig(reference_k=20)))
    assert (stage_key("data", judge, "audit", AnnotateConfig())
            == stage_key("data", judge, "audit", AnnotateConfig(reference_k=20)))


def test_annotate_and_calibrate_refuse_a_negative_reference_k(capsys):
    from toolex.cli import main

    assert main(["annotate", "--out", "x", "--reference-k", "-1"]) != 0
    assert "--reference-k must be 0 or more" in capsys.readouterr().err
    assert main(["calibrate", "--benchmark", "x", "--out", "x", "--reference-k", "-1"]) != 0
    assert "--reference-k must be 0 or more" in capsys.readouterr().err
