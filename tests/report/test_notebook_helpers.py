"""What the notebooks used to compute themselves, now in the package: counts with their "all" rows, the
per-domain credit pivot, the workspace's rank frame."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd

from toolex.metrics.measures import HEADLINE
from toolex.report import rank_cdf, stages
from toolex.report.validation import credit_by_domain


def test_decomposition_counts_add_an_all_row():
    frame = pd.DataFrame({"query_id": ["a", "b", "c"], "group": ["x", "x", "y"], "ok": [True, False, True],
                          "sub_queries": [2, 0, 3]})
    counts = stages.decomposition_counts(frame).set_index("group")
    assert counts.loc["x"].tolist() == [2, 1, 2, 1.0]
    assert counts.loc["all"].tolist() == [3, 1, 5, 5 / 3]


def test_combinations_before_after_add_an_all_row():
    audit = pd.DataFrame({"group": ["x", "x", "y"], "before_audit": [4, 2, 6], "after_audit": [1, 1, 3]})
    table = stages.combinations_before_after(audit).set_index("group")
    assert table.loc["x"].tolist() == [3.0, 1.0] and table.loc["all"].tolist() == [4.0, 5 / 3]


def test_credit_by_domain_pivots_mean_over_and_under_credit():
    per_query = pd.DataFrame({"query_id": ["a", "b", "a", "b"], "metric": ["ndcg@10"] * 4,
                              "retriever": ["bm25", "bm25", "m", "m"], "over": [0.1, 0.3, 0.0, 0.2],
                              "under": [0.0, 0.0, 0.4, 0.0]})
    result = SimpleNamespace(per_query=pd.concat([per_query, per_query.assign(metric="ndcg@5", over=9.0)]),
                             expansion=pd.DataFrame({"query_id": ["a", "b"], "category": ["Rest", "Rest"]}))
    table = credit_by_domain(result, "ndcg@10").set_index("category")
    assert table.loc["Rest", "over (bm25)"] == 0.2 and table.loc["Rest", "under (m)"] == 0.2


def test_workspace_ranks_draw_negatives_from_the_query_pool():
    tool = SimpleNamespace
    bench = SimpleNamespace(name="b", tools={"t1": tool(), "t2": tool(), "t3": tool()},
                            queries=[SimpleNamespace(id="q", reference=("t1",))])
    workspace = SimpleNamespace(benchmarks=[bench], queries=bench.queries,
                                settings=SimpleNamespace(pool="all"))
    verified = [SimpleNamespace(query_id="q", verified=("t1", "t2"), reference_tool="t1")]
    annotated = SimpleNamespace(verified_sets=verified)
    run = {"q": {"t2": 3.0, "t1": 2.0, "t3": 1.0}}
    frame = rank_cdf.workspace_ranks(run, workspace, annotated)
    assert frame.iloc[0]["gt_rank"] == 2 and frame.iloc[0]["equivalent_rank"] == 1
    assert frame.iloc[0]["negative_rank"] == 3


def test_workspace_ranks_draw_negatives_from_the_searched_pool_only():
    from toolex.data.registry import SMOKE_POOL, smoke_tools

    tools = {f"t{i}": SimpleNamespace() for i in range(SMOKE_POOL + 100)}
    bench = SimpleNamespace(name="b", tools=tools, queries=[SimpleNamespace(id=f"q{i}", reference=("t0",))
                                                             for i in range(40)])
    workspace = SimpleNamespace(benchmarks=[bench], queries=bench.queries,
                                settings=SimpleNamespace(pool="smoke"))
    annotated = SimpleNamespace(verified_sets=[])
    searched = smoke_tools(bench)  # type: ignore[arg-type]
    run = {q.id: {t: 1.0 / (r + 1) for r, t in enumerate(searched)} for q in bench.queries}
    frame = rank_cdf.workspace_ranks(run, workspace, annotated)
    assert frame["negative_rank"].notna().all()  # every negative was drawn where the run searched


def test_an_app_opens_the_setting_whose_runs_are_on_disk(monkeypatch, capsys):
    """Asked for the default setting without its runs on disk, the inspector opens the smoke setting and says
    so (and what it computes first where the smoke runs are not on disk either); with the default's runs on
    disk it opens the default."""
    from types import SimpleNamespace

    from toolex.report import context

    monkeypatch.setattr(context.Workspace, "load", classmethod(
        lambda cls, settings: SimpleNamespace(smoke=settings.smoke, queries=[1, 2])))
    monkeypatch.setattr(context, "ensure_annotations", lambda workspace: None)
    monkeypatch.setattr(context, "runs_cached", lambda specs, workspace: workspace.smoke)
    assert context.open_cached_notebook({"SMOKE": False}).settings.smoke
    assert "opens the smoke setting" in capsys.readouterr().out
    own = context.open_cached_notebook({"SMOKE": False, "K": 5})  # a setting of one's own is never swapped
    assert not own.settings.smoke and own.settings.k == 5 and capsys.readouterr().out == ""
    monkeypatch.setattr(context, "runs_cached", lambda specs, workspace: True)
    analysis = context.open_cached_notebook({"SMOKE": False})
    assert not analysis.settings.smoke and analysis.workspace.queries == [1, 2]
    assert capsys.readouterr().out == ""
    monkeypatch.setattr(context, "runs_cached", lambda specs, workspace: False)  # a fresh clone: smoke
    assert context.open_cached_notebook({"SMOKE": False}).settings.smoke
    said = capsys.readouterr().out
    assert "opens the smoke setting, computing the retrieval runs of" in said and "over its 2 queries" in said


def test_every_notebook_opens_its_settings_from_its_parameters_cell(monkeypatch):
    """Notebooks 07 and 09 open as 04 does, from their parameters cell's names (the defaults of
    ``settings.PARAMETERS`` where a cell leaves one out)."""
    from toolex import skills
    from toolex.report import validation
    from toolex.skills import analysis as skill_analysis

    opened = []
    monkeypatch.setattr(validation, "open_analysis", lambda settings: opened.append(settings) or settings)
    validation.open_validation_notebook({"SMOKE": True, "JUDGE": "cascade", "SAMPLE": None, "SEED": 3})
    (settings,) = opened
    assert settings.judge == "cascade" and settings.sample == validation.SMOKE_QUERIES and settings.seed == 3
    assert settings.benchmarks == (validation.VALIDATION_BENCHMARK,) and settings.k == HEADLINE.k
    calls = []
    monkeypatch.setattr(skill_analysis, "open_skill_analysis", lambda *args: calls.append(args))
    skills.open_skill_notebook({"SMOKE": "1", "JUDGE": "offline", "GENERATOR": "recorded"})
    (given,) = calls
    assert given[0] == skills.SkillSettings.for_smoke() and given[1:3] == ("offline", "recorded")
