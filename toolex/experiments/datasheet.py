"""The datasheet of a ToolEq release: what it is, how it was made, how far it can be trusted, licences and
known limits, written from the annotation folder and the kept validations (nothing typed by hand but the
prose around the numbers)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from toolex import paths
from toolex.annotate.run_folder import ANNOTATIONS
from toolex.io.artifact import read_manifest
from toolex.metrics.measures import HEADLINE

#: Licences of the sources, as the data README states them.
LICENCES = {
    "toolret": "ToolRet subsets: no licence stated upstream (apigen derives from xLAM, gorilla-huggingface "
               "from Gorilla APIBench, Apache-2.0)",
    "toollens": "ToolLens (COLT): no licence stated upstream",
    "customized/metatool": "MetaTool: MIT",
    "customized/toolalpaca": "ToolAlpaca: Apache-2.0",
}


def annotation_counts(folder: Path) -> list[dict[str, Any]]:
    """Per category: queries, queries with a combination beyond C*, mean valid combinations per query."""
    rows: dict[str, Counter[str]] = {}
    for line in (folder / ANNOTATIONS).read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        group = record.get("category") or "all"
        counts = rows.setdefault(group, Counter())
        counts["queries"] += 1
        counts["gaining"] += len(record["combinations"]) > 1
        counts["combinations"] += len(record["combinations"])
    return [{"category": g, "queries": c["queries"], "gaining": c["gaining"],
             "combinations_per_query": c["combinations"] / c["queries"]} for g, c in sorted(rows.items())]


def _validation_lines() -> list[str]:
    lines = []
    transfer = paths.validation_dir() / "judge_transfer.json"
    if transfer.exists():
        data = json.loads(transfer.read_text(encoding="utf-8"))
        lines.append("| report part | retriever | recovered share | over-credit, points | "
                     "under-credit, points |")
        lines.append("|---|---|---:|---:|---:|")
        for row in data["default_on_report_parts"]:
            lines.append(f"| {row['reported_on']} | {row['retriever']} | {row['recovered']:.2f} | "
                         f"{100 * row['over_credit']:.1f} | {100 * row['under_credit']:.1f} |")
    report = paths.validation_dir() / "sgd_report_offline.json"
    if report.exists():
        lines.append("")
        data = json.loads(report.read_text(encoding="utf-8"))
        for name, metrics in data["runs"].items():
            cell = metrics[HEADLINE.key]
            low, high = cell.get("recovered_interval") or (None, None)
            interval = f" (95 % CI {low:.2f}–{high:.2f})" if low is not None else ""
            lines.append(f"- `sgd/report`, {name}: recovered share {cell['recovered']:.2f}{interval}")
    return lines


def _method_lines(manifest: dict[str, Any]) -> list[str]:
    """How the annotations were made, with each benchmark's threshold."""
    judge, config = manifest.get("judge", {}), manifest.get("config", {})
    operating = manifest.get("ledger", {}).get("operating_point", {})
    candidates_note = (f" and the reference tool's {config['reference_k']} nearest tools"
                       if config.get("reference_k") else "")
    if config.get("pool", "all") != "all":  # the smoke pool, or one benchmark's or category's own
        candidates_note += f" (`{config['pool']}` tool pool, see `toolex.data.registry.tool_pools`)"
    thresholds = [f"- `{b}`: threshold {p['threshold']:.3f}"
                  + (f", estimated share of alternatives {p['estimated_share']:.3f}" if "estimated_share" in p
                     else f" ({p.get('kept', 'fitted')})") for b, p in operating.items()]
    model = judge.get("score_model") or {}
    if not thresholds and "threshold" in model:  # a fixed rule: one threshold for every benchmark
        thresholds = [f"- every benchmark: threshold {model['threshold']:.3f} (the score model's)"]
    decomposer = judge.get("decomposer") or "the judge's decomposer"
    return [
        f"ToolEX with the judge `{judge.get('name', '?')}` (toolex {manifest.get('toolex_version', '?')}): "
        f"Stage 1 decomposes each query into one sub-query per C* tool ({decomposer}), Stage 2 retrieves "
        f"the top {config.get('top_k', '?')} tools per sub-query with "
        f"`{config.get('retriever', '?')}`{candidates_note} and verifies each against the reference tool "
        "(a logistic score over embedding similarities and their standing among the candidates, chosen "
        "across four labelled sources by leave-one-source-out), Stage 3 audits at most "
        f"{config.get('max_combinations', '?')} combinations per query. The threshold:",
        *thresholds,
    ]


_SKILLS = ("Agent skills: a public mirror of 361 skill repositories (gabrielmoreira/agent-skills-mirror), "
           "MIT for the mirror; each upstream repository keeps its own licence. The queries were written ")
_SKILLEQ = {"title": "SkillEq: expanded annotations of the toolex skill extension",
            "sgd": "this release holds no SGD data"}
#: Per release part: its title, what its queries are, and the licences of what it holds.
KINDS: dict[str, dict[str, Any]] = {
    "tooleq": {"title": "ToolEq: expanded annotations of the toolex default setting",
               "licences": list(LICENCES.values()),
               "sgd": "this release holds no SGD data"},
    "skilleq": {**_SKILLEQ, "licences": [_SKILLS + "by Qwen2.5-Coder-1.5B-Instruct from seed skills (kept "
                                                   "in data/skills)."]},
    "skilleq-template": {**_SKILLEQ, "licences": [_SKILLS + "from seed skills by toolex's offline template "
                                                            "generator."]},
    "sgd-report": {"title": "sgd/report: ToolEX's annotations of the Schema-Guided Dialogue report domains",
                   "licences": ["Schema-Guided Dialogue (Rastogi et al. 2020), CC BY-SA 4.0: the sub-queries "
                                "quote user turns and the ids name SGD services and intents, so this part is "
                                "shared under CC BY-SA 4.0 with that attribution."],
                   "sgd": "this part holds SGD ids and user turns (CC BY-SA 4.0, above)"},
}


def datasheet(folder: str | Path, workspace: str, kind: str = "tooleq") -> str:
    """The datasheet of a release of the annotation folder ``folder`` (``kind``: one of :data:`KINDS`)."""
    about = KINDS[kind]
    folder = Path(folder)
    manifest = read_manifest(folder, required=True)
    counts = annotation_counts(folder)
    total = sum(r["queries"] for r in counts)
    if not total:
        raise ValueError(f"{folder}: no annotated query to describe")
    gaining = sum(r["gaining"] for r in counts)
    table = ["| category | queries | gaining a combination | valid combinations per query |",
             "|---|---:|---:|---:|"]
    table += [f"| {r['category']} | {r['queries']} | {100 * r['gaining'] / r['queries']:.1f} % | "
              f"{r['combinations_per_query']:.2f} |" for r in counts]
    return "\n".join([
        f"# {about['title']}",
        "",
        "## What it is",
        f"Every valid tool combination ToolEX found for the queries of {workspace}: per query its "
        "id, category, the benchmark's own combination C* and every combination the judge accepted as able "
        "to replace it (C* first). Scoring a run against them with `toolex evaluate --annotations` gives "
        f"ToolEq (the best score over the valid combinations). {gaining} queries "
        f"({100 * gaining / total:.1f} %) gain at least one combination beyond C*.",
        "",
        *table,
        "",
        "## How it was made",
        *_method_lines(manifest),
        "",
        "`manifest.json` holds the judge's identity with its calibration record, the settings and the data "
        "checksums; `release.json` the key parts and every file's sha256. `toolex release verify` checks "
        "them and says whether the current judge and data would produce the same annotations.",
        "",
        "## How far it can be trusted",
        "Measured against people on labelled data the judge was not fitted on (NDCG@10; recovered share: the "
        "part of the underestimation people reveal that these annotations recover; over- and under-credit "
        "per query):",
        "",
        *_validation_lines(),
        "",
        "## Known limits",
        "- The judge is an embedding score, not the paper's LLM: it misses alternatives documented in other "
        "words and accepts same-named tools of different purpose; read a ToolEq gain as an estimate "
        "uncertain by a few NDCG points per query.",
        "- Stage 3 audits at most the configured number of combinations; queries with more alternatives "
        "are under-credited.",
        "- No person checked these annotations; `toolex review` and `toolex validate` are the route to do "
        "so.",
        "",
        "## Sources and licences",
        *[f"- {text}" for text in about["licences"]],
        "- The judge was fitted on Schema-Guided Dialogue and SGD-X (Rastogi et al. 2020; Lee et al. 2022), "
        f"CC BY-SA 4.0 ({about['sgd']}), and on ETOM's MCP registry and level-2 equivalence sets "
        "(arXiv 2510.19423), MIT.",
        "",
    ])
