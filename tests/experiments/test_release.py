"""The ToolEq release: deterministic build, checksums that catch tampering, the key check, restoring the
annotation folder byte for byte, and make paper's use of it."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from toolex.annotate.pipeline import STAGE_FILES, AnnotateConfig
from toolex.annotate.run_folder import ANNOTATIONS, COMBINATIONS, SUBQUERIES, VERIFIED
from toolex.commands.release import PARTS, part
from toolex.errors import InputError
from toolex.experiments import release, workspace
from toolex.experiments.datasheet import annotation_counts, datasheet
from toolex.io.artifact import MANIFEST
from toolex.keys import checksum as sha256


def annotation_folder(root: Path, name: str = "offline-abc123") -> Path:
    """A small complete annotation folder: stage files and a manifest listing their sha256."""
    folder = root / name
    folder.mkdir(parents=True)
    texts = {
        ANNOTATIONS: '{"query_id": "q1", "category": "web", "reference": ["a"], '
                     '"combinations": [["a"], ["b"]]}\n'
                     '{"query_id": "q2", "category": "code", "reference": ["c"], "combinations": [["c"]]}\n',
        SUBQUERIES: '{"query_id": "q1"}\n{"query_id": "q2"}\n',
        VERIFIED: '{"query_id": "q1", "index": 0, "candidates": []}\n',
        COMBINATIONS: '{"query_id": "q1", "combinations": []}\n',
    }
    for name_, text in texts.items():
        (folder / name_).write_text(text, encoding="utf-8")
    digest = {n: {"lines": t.count("\n"), "bytes": len(t.encode()), "sha256": sha256(t.encode())}
              for n, t in texts.items()}
    # shaped as ToolEX.write_manifest writes it: stage artifacts under "stages", the export under "artifacts"
    manifest = {"judge": {"name": "offline-similarity(mpnet)"}, "toolex_version": "test",
                "config": {"top_k": 20, "retriever": "dense:mpnet", "max_combinations": 20},
                "ledger": {"operating_point": {"toolret/x": {"threshold": 0.5, "kept": "fewer items"}}},
                "stages": {stage: {"key": "k", "artifact": digest[name]}
                           for stage, name in STAGE_FILES.items()},
                "artifacts": {ANNOTATIONS: digest[ANNOTATIONS]},
                "files": [SUBQUERIES, VERIFIED, COMBINATIONS, ANNOTATIONS]}
    (folder / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    return folder


def built(tmp_path: Path, name: str = "offline-abc123") -> tuple[Path, Path]:
    folder = annotation_folder(tmp_path / "artifacts", name)
    parts = {"queries_and_data": "k1", "judge": "j1", "config": "c1", "package_version": "v"}
    out = release.build(folder, tmp_path / "release", {"key_parts": parts}, datasheet(folder, "test data"))
    return folder, out


def test_build_is_deterministic_and_small(tmp_path):
    folder, out = built(tmp_path)
    first = {p.name: p.read_bytes() for p in out.iterdir()}
    release.build(folder, out, {"key_parts": {}}, "sheet")
    again = {p.name: p.read_bytes() for p in out.iterdir()}
    for name in release.STAGE_FILES:
        assert first[f"{name}.gz"] == again[f"{name}.gz"]
        assert gzip.decompress(first[f"{name}.gz"]) == (folder / name).read_bytes()
    record = release.read(out)
    assert record["folder"] == "offline-abc123" and set(record["files"]) == set(release.STAGE_FILES)
    # the record begins with the envelope every manifest shares
    assert list(record)[:5] == ["kind", "schema", "toolex_version", "status", "identity"]
    assert record["kind"] == "release" and record["identity"] == {"folder": "offline-abc123", "key_parts": {}}


def test_a_record_written_before_the_envelope_is_read_and_verified_as_it_is(tmp_path):
    _, out = built(tmp_path)
    record = json.loads((out / release.RELEASE_FILE).read_text(encoding="utf-8"))
    former = {k: v for k, v in record.items() if k not in ("kind", "schema", "toolex_version", "status",
                                                             "identity")}
    (out / release.RELEASE_FILE).write_text(json.dumps({**former, "format": 1}), encoding="utf-8")
    assert release.read(out)["folder"] == "offline-abc123" and release.verify(out).ok
    (out / release.RELEASE_FILE).write_text(json.dumps({**record, "kind": "run"}), encoding="utf-8")
    with pytest.raises(InputError, match="not a ToolEq release"):
        release.read(out)


def test_every_kept_release_record_has_the_envelope():
    kept = release.releases()
    assert kept, "no release folder under data/release"
    for folder in kept:
        record = release.read(folder)
        assert record["kind"] == "release" and record["format"] == release.FORMAT, folder
        assert record["identity"]["folder"] == record["folder"], folder


def test_verify_passes_then_catches_every_kind_of_tampering(tmp_path):
    _, out = built(tmp_path)
    assert release.verify(out).ok
    (out / f"{VERIFIED}.gz").write_bytes(release.gzip_bytes(b"changed\n"))
    broken = release.verify(out)
    assert not broken.ok and any(VERIFIED in p for p in broken.problems)
    _, out = built(tmp_path / "again")
    (out / MANIFEST).write_text("{}", encoding="utf-8")
    assert any(MANIFEST in p for p in release.verify(out).problems)
    _, out = built(tmp_path / "third")
    (out / f"{ANNOTATIONS}.gz").unlink()
    assert any("missing" in p for p in release.verify(out).problems)


def test_a_folder_that_differs_from_its_manifest_is_not_released_and_the_old_release_stays(tmp_path):
    folder, out = built(tmp_path)
    before = (out / release.RELEASE_FILE).read_bytes()
    (folder / VERIFIED).write_text("edited by hand\n", encoding="utf-8")
    with pytest.raises(InputError, match="differs from its manifest"):
        release.build(folder, out, {}, "sheet")
    assert (out / release.RELEASE_FILE).read_bytes() == before and release.verify(out).ok
    assert not list(tmp_path.glob("release.*"))  # no staging or old folder left behind


def test_a_stage_file_the_manifest_disowns_is_caught(tmp_path):
    _, out = built(tmp_path)
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    manifest["stages"]["verify"]["artifact"]["sha256"] = "0" * 64
    (out / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    record = json.loads((out / release.RELEASE_FILE).read_text(encoding="utf-8"))
    record["manifest_sha256"] = sha256((out / MANIFEST).read_bytes())
    (out / release.RELEASE_FILE).write_text(json.dumps(record), encoding="utf-8")
    assert any("annotation manifest" in p for p in release.verify(out).problems)


def test_verify_says_whether_the_current_setup_has_the_release_key_and_why_not(tmp_path):
    _, out = built(tmp_path)
    assert release.verify(out, "offline-abc123").matches
    other = release.verify(out, "offline-fff999", {"queries_and_data": "k1", "judge": "j2", "config": "c1",
                                                     "package_version": "v"})
    assert other.ok and other.matches is False and "judge differ" in other.reason


def test_restore_reproduces_the_folder_byte_for_byte_only_under_its_own_name(tmp_path):
    folder, out = built(tmp_path)
    target = tmp_path / "elsewhere" / folder.name
    assert release.restore(out, target)
    for name in (*release.STAGE_FILES, MANIFEST):
        assert (target / name).read_bytes() == (folder / name).read_bytes()
    assert not release.restore(out, tmp_path / "elsewhere" / "offline-other")
    (out / f"{COMBINATIONS}.gz").write_bytes(release.gzip_bytes(b"x\n"))
    with pytest.raises(InputError, match=COMBINATIONS):
        release.restore(out, tmp_path / "third" / folder.name)


def test_make_paper_starts_from_a_matching_release_unless_told_to_recompute(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLEX_ARTIFACTS", str(tmp_path / "artifacts"))
    monkeypatch.setenv("TOOLEX_RELEASE", str(tmp_path / "releases"))
    config = AnnotateConfig()
    target, _ = workspace.toolex_folder("offline", "key", config, "offline")
    source = annotation_folder(tmp_path / "made", target.folder.name)
    release.build(source, release.default_release(), {"key_parts": {}}, "sheet")
    computed: list[str] = []

    class Counting:
        def __init__(self, *args, **kwargs):
            computed.append("ToolEX")

        def run(self):
            return None

    monkeypatch.setattr(workspace, "ToolEX", Counting)
    monkeypatch.setattr(workspace, "retriever", lambda spec: None)
    monkeypatch.setattr(workspace, "build_judge", lambda *a, **k: None)
    folder = workspace.ensure_toolex("offline", "key", [], [], config, "offline")
    assert not computed
    assert (folder.folder / ANNOTATIONS).read_bytes() == (source / ANNOTATIONS).read_bytes()
    monkeypatch.setenv("TOOLEX_ARTIFACTS", str(tmp_path / "damaged"))  # a damaged release: computed instead
    (release.default_release() / f"{VERIFIED}.gz").write_bytes(b"not gzip")
    workspace.ensure_toolex("offline", "key", [], [], config, "offline")
    assert computed == ["ToolEX"]
    computed.clear()
    release.build(source, release.default_release(), {"key_parts": {}}, "sheet")
    monkeypatch.setenv("TOOLEX_ARTIFACTS", str(tmp_path / "fresh"))  # the same key, an empty cache
    monkeypatch.setenv(release.FROM_SCRATCH_ENV, "1")
    workspace.ensure_toolex("offline", "key", [], [], config, "offline")
    assert computed == ["ToolEX"] and not (tmp_path / "fresh" / "annotations" / target.folder.name).exists()


def test_the_datasheet_counts_from_the_annotations(tmp_path):
    folder = annotation_folder(tmp_path)
    counts = {r["category"]: r for r in annotation_counts(folder)}
    assert counts["web"]["gaining"] == 1 and counts["code"]["gaining"] == 0
    text = datasheet(folder, "test data")
    assert "the queries of test data" in text and "1 queries (50.0 %)" in text and "MIT" in text


@pytest.mark.parametrize("name", PARTS)
def test_the_kept_release_verifies_and_matches_the_current_judge_and_data(name):
    """What `toolex release verify` checks, run by CI, for every part `make paper` reads: a judge or data
    change must come with a new release."""
    kept = release.paths.release_dir() / name
    if not (kept / release.RELEASE_FILE).exists():
        pytest.fail(f"no {name} release at {kept}; build it with `make release`")
    found = part(name)
    result = release.verify(kept, found.folder.folder.name, found.key_parts)
    assert result.ok, result.lines()
    assert result.matches, result.reason


def test_a_folder_is_unpacked_from_whichever_release_holds_it(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLEX_RELEASE", str(tmp_path / "releases"))
    first = annotation_folder(tmp_path / "made", "offline-aaa111")
    second = annotation_folder(tmp_path / "made", "skilleq-bbb222")
    release.build(first, release.paths.release_dir() / "tooleq", {"key_parts": {}}, "sheet")
    release.build(second, release.paths.release_dir() / "skilleq", {"key_parts": {}}, "sheet")
    assert [p.name for p in release.releases()] == ["skilleq", "tooleq"]
    assert release.holding("skilleq-bbb222") == release.paths.release_dir() / "skilleq"
    assert release.holding("offline-ccc333") is None
    (release.paths.release_dir() / "tooleq" / release.RELEASE_FILE).write_text("not json")
    assert release.holding("offline-aaa111") is None  # an unreadable record holds nothing


@pytest.mark.slow
def test_recomputing_the_smoke_setting_reproduces_its_release_byte_for_byte(tmp_path, monkeypatch):
    """The kept smoke release (or, without one, a first computation) against a recomputation from scratch in
    an empty artifact folder: the annotations (every valid combination) and the sub-queries byte for byte;
    the Stage 2 and 3 records in every field, with the recorded retrieval scores and the numbers a verdict's
    reason prints equal to their last printed digit. An encoder's float32 vectors move in the 7th decimal
    with how texts share a batch (which texts an embedding cache still misses), so a score printed to six
    decimals can differ in its last digit between a warm and a cold cache; no verdict, rank or combination
    does."""
    from toolex.experiments.settings import ReportSettings

    settings = ReportSettings.make(smoke=True)
    monkeypatch.setenv("TOOLEX_ARTIFACTS", str(tmp_path / "first"))
    folder, parts, space = workspace.default_folder(settings)
    workspace.ensure_annotations(space, "offline")  # unpacked from data/release/tooleq-smoke when it holds it
    out = release.build(folder.folder, tmp_path / "release", {"key_parts": parts}, "sheet")
    monkeypatch.setenv("TOOLEX_ARTIFACTS", str(tmp_path / "second"))
    monkeypatch.setenv(release.FROM_SCRATCH_ENV, "1")
    again, _, _ = workspace.default_folder(settings)
    assert again.folder.name == folder.folder.name
    workspace.ensure_annotations(space, "offline")
    for name in (ANNOTATIONS, SUBQUERIES):
        assert (again.folder / name).read_bytes() == gzip.decompress((out / f"{name}.gz").read_bytes()), name
    for name in (VERIFIED, COMBINATIONS):
        kept = gzip.decompress((out / f"{name}.gz").read_bytes()).decode().splitlines()
        made = (again.folder / name).read_text(encoding="utf-8").splitlines()
        assert len(kept) == len(made), name
        for line_kept, line_made in zip(kept, made):
            assert same_record(json.loads(line_kept), json.loads(line_made)), (name, line_kept[:200])
    assert release.verify(out, again.folder.name, parts).matches


_NUMBER = re.compile(r"-?\d+\.\d+")


def same_record(kept: object, made: object) -> bool:
    """Equal JSON, numbers within a unit of their last printed digit (six decimals: 1e-6), numbers inside a
    text too; everything else exact."""
    if isinstance(kept, dict) and isinstance(made, dict):
        return kept.keys() == made.keys() and all(same_record(kept[k], made[k]) for k in kept)
    if isinstance(kept, list) and isinstance(made, list):
        return len(kept) == len(made) and all(same_record(a, b) for a, b in zip(kept, made))
    if isinstance(kept, float) and isinstance(made, float):
        return abs(kept - made) <= 1.01e-6
    if isinstance(kept, str) and isinstance(made, str):
        numbers_kept, numbers_made = _NUMBER.findall(kept), _NUMBER.findall(made)
        return (_NUMBER.sub("#", kept) == _NUMBER.sub("#", made) and len(numbers_kept) == len(numbers_made)
                and all(abs(float(a) - float(b)) <= 1.01 * 10 ** -len(a.split(".")[1])
                        for a, b in zip(numbers_kept, numbers_made)))
    return kept == made


def test_records_agree_to_their_last_printed_digit_and_no_further():
    verdict = {"tool_id": "t", "score": 0.531372, "equivalent": True,
               "reason": "score 0.488 >= 0.451 (description_cosine 0.78)"}
    assert same_record(verdict, {**verdict, "score": 0.531371})
    assert same_record(verdict, {**verdict, "reason": "score 0.489 >= 0.451 (description_cosine 0.78)"})
    assert not same_record(verdict, {**verdict, "score": 0.531369})
    assert not same_record(verdict, {**verdict, "equivalent": False})
    assert not same_record(verdict, {**verdict, "reason": "score 0.491 >= 0.451 (description_cosine 0.78)"})
    assert not same_record(verdict, {**verdict, "reason": "score 0.488 < 0.451 (description_cosine 0.78)"})


_MARKUP = re.compile(r"required_params|optional_params|tool_name\s*:|\{\s*\"name\"|api_name|\"parameters\"")


@pytest.mark.parametrize("name", ["tooleq", "tooleq-smoke", "sgd-report", "sgd-report-smoke"])
def test_released_sub_queries_are_text_of_their_queries_never_of_a_tool(name):
    """The offline decomposer cuts the query; no name, parameter, markup or sentence of a tool enters a
    sub-query (its words are its query's)."""
    from toolex.data.registry import load_benchmark

    kept = release.paths.release_dir() / name
    settings = json.loads((kept / release.RELEASE_FILE).read_text(encoding="utf-8"))["settings"]
    queries = {q.id: q for b in settings["benchmarks"] for q in load_benchmark(b).queries}
    tools = {t.id: t for b in settings["benchmarks"] for t in load_benchmark(b).tools.values()}
    lines = gzip.decompress((kept / f"{SUBQUERIES}.gz").read_bytes()).decode().splitlines()
    assert lines
    for line in lines:
        record = json.loads(line)
        query = " ".join(queries[record["query_id"]].text.split())
        for sub in record["subqueries"]:
            text = " ".join(sub["text"].split())
            assert text and text in query, (record["query_id"], text)
            assert not sub["entity"] and sub["functionality"] == sub["text"]
            assert not _MARKUP.search(text) or _MARKUP.search(query)
            reference = tools[sub["reference_tool"]]
            first = " ".join(reference.description.split(". ")[0].split())
            assert len(first) < 20 or first not in text or first in query
