"""One module hashes, one length names: content keys, checksums, and folders and manifests of the earlier
16-character format still found and used."""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path

from tests.annotate.fakes import BagOfWords, count_stages, tiny_benchmark
from toolex import keys
from toolex.annotate.identity import STAGE_VERSIONS, annotation_key, config_part, judge_stage_settings
from toolex.annotate.judges import OfflineSimilarityJudge
from toolex.annotate.judges.scoring import default_model
from toolex.annotate.pipeline import AnnotateConfig, ToolEX
from toolex.annotate.prompts import prompt_versions
from toolex.retrieval.embedding_cache import EmbeddingCache, settings_key

PACKAGE = Path(__file__).resolve().parents[1] / "toolex"


def _former(*parts, length=16) -> str:
    """The digest the package wrote before keys had one length."""
    return hashlib.sha256(json.dumps(list(parts), sort_keys=True, default=str).encode()).hexdigest()[:length]


def test_only_the_keys_module_imports_hashlib():
    importers = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n.split(".")[0] == "hashlib" for n in names):
                importers.append(path.relative_to(PACKAGE).as_posix())
    assert importers == ["keys.py"]


def test_every_content_key_has_one_length_and_begins_the_former_longer_one():
    parts = (["c0ffee"], ["q1", "q2"], {"pool": "all", "x": 1.5})
    assert len(keys.key(*parts)) == keys.KEY_LENGTH == 12
    assert _former(*parts).startswith(keys.key(*parts))
    assert keys.is_legacy_of(_former(*parts), keys.key(*parts))
    current = keys.key(*parts)
    assert keys.same_key(_former(*parts), current) and keys.same_key(current, current)
    assert not keys.same_key(_former("other"), current) and not keys.same_key(None, current)
    assert len(annotation_key("q", {"judge": 1}, AnnotateConfig(), "1.0")) == 12
    assert len(settings_key({"model": "m", "dim": 3})) == 12
    assert {len(v.rsplit("-", 1)[1]) for v in prompt_versions().values()} == {12}
    assert keys.checksum("abc") == hashlib.sha256(b"abc").hexdigest()  # checksums are never shortened
    assert keys.stream_checksum([b"a", b"bc"]) == keys.checksum(b"abc")


def test_adopt_renames_the_one_folder_of_the_former_format_and_says_so(tmp_path, capsys):
    wanted = tmp_path / f"model-{keys.key_of({'a': 1})}"
    legacy = tmp_path / f"model-{hashlib.sha256(keys.canonical({'a': 1})).hexdigest()[:16]}"
    (legacy / "inside").mkdir(parents=True)
    assert keys.adopt(wanted) == wanted and (wanted / "inside").is_dir() and not legacy.exists()
    assert "renamed to" in capsys.readouterr().err
    other = tmp_path / f"other-{keys.key_of(2)}"
    for suffix in ("aaaa", "bbbb"):  # two candidates: neither is taken
        Path(f"{other}{suffix}").mkdir()
    assert keys.adopt(other) == other and not other.exists()
    assert not keys.is_legacy_of(f"{other}zzzz", other.name)


def test_an_embedding_cache_of_the_former_format_is_reused(tmp_path):
    settings = {"model": "bow", "dim": 4}
    former = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]
    legacy = tmp_path / f"bow-{former}"
    legacy.mkdir()
    (legacy / "marker").write_text("kept")
    cache = EmbeddingCache(settings, tmp_path)
    assert cache.folder.name == f"bow-{settings_key(settings)}" and (cache.folder / "marker").exists()


def test_an_annotation_folder_of_the_former_format_is_reused_and_its_keys_rewritten(tmp_path, capsys):
    bench, bow, model = tiny_benchmark(), BagOfWords(), default_model()
    config = AnnotateConfig(retriever="bow", top_k=6, max_combinations=8)
    out = tmp_path / "run"
    ToolEX([bench], OfflineSimilarityJudge(bow, model), out, config, retriever=bow, progress=False).run()
    manifest_path = out / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    former_fp = _former([bench.checksum], [q.id for q in bench.queries], config.pool)
    assert former_fp.startswith(manifest["data_fingerprint"])
    judge = OfflineSimilarityJudge(bow, model)
    manifest["data_fingerprint"] = former_fp
    for stage, info in manifest["stages"].items():
        info["key"] = _former(former_fp, stage, STAGE_VERSIONS[stage], judge_stage_settings(judge, stage),
                              config_part(config, stage))
    manifest_path.write_text(json.dumps(manifest))
    counts = count_stages(judge)
    ToolEX([bench], judge, out, config, retriever=bow, progress=False, refuse_other=True).run()
    assert dict(counts) == {}  # nothing recomputed, nothing refused
    rewritten = json.loads(manifest_path.read_text())
    assert len(rewritten["data_fingerprint"]) == 12
    assert {len(info["key"]) for info in rewritten["stages"].values()} == {12}
    assert "keys rewritten in the 12-character format" in capsys.readouterr().err
