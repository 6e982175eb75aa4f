"""One manifest for everything computed: the envelope, the one reader, refusal of another identity, atomic
folder publication and the adoption of former run descriptions."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from toolex import __version__
from toolex.errors import InputError
from toolex.experiments.listing import cached, describe_run
from toolex.io.artifact import (
    MANIFEST,
    adopt_sidecar,
    kind_of,
    manifest_path,
    publish_folder,
    read_manifest,
    refuse_other,
    restore_aside,
    write_manifest,
)


def test_every_manifest_begins_with_the_envelope(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    write_manifest(folder, "model", {"base": "minilm", "identity": {"k": (1, 2)}}, status="partial")
    manifest = read_manifest(folder)
    assert list(manifest)[:5] == ["kind", "schema", "toolex_version", "status", "identity"]
    assert manifest["kind"] == "model" and manifest["status"] == "partial"
    assert manifest["toolex_version"] == __version__ and manifest["identity"] == {"k": [1, 2]}
    assert manifest["base"] == "minilm"
    with pytest.raises(ValueError, match="unknown artifact kind"):
        write_manifest(folder, "notebook", {})
    with pytest.raises(ValueError, match="unknown status"):
        write_manifest(folder, "model", {}, status="done")


def test_a_file_artifact_has_its_manifest_beside_it(tmp_path: Path) -> None:
    run = tmp_path / "bm25.trec"
    run.write_text("q Q0 t 1 1.0 bm25\n")
    describe_run(run, {"retriever": "bm25", "workspace": "w", "level": "query level, top 5"})
    assert manifest_path(run) == tmp_path / "bm25.trec.json"
    assert read_manifest(run)["kind"] == "run"
    assert manifest_path(tmp_path / "not-yet") == tmp_path / "not-yet" / MANIFEST


def test_one_reader_names_the_file_of_a_bad_manifest(tmp_path: Path) -> None:
    assert read_manifest(tmp_path) == {}
    with pytest.raises(InputError, match="no manifest") as missing:
        read_manifest(tmp_path, required=True)
    assert str(tmp_path / MANIFEST) in str(missing.value)
    (tmp_path / MANIFEST).write_text("{ torn")
    with pytest.raises(InputError, match="not JSON") as torn:
        read_manifest(tmp_path)
    assert str(tmp_path / MANIFEST) in str(torn.value)
    (tmp_path / MANIFEST).write_text("[1, 2]")
    with pytest.raises(InputError, match="not an object"):
        read_manifest(tmp_path)


def test_another_identity_or_kind_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    assert refuse_other(folder, "downstream", {"a": 1}, "downstream run") == {}
    write_manifest(folder, "downstream", {"identity": {"a": 1, "b": [1]}, "note": "kept"})
    assert refuse_other(folder, "downstream", {"a": 1, "b": (1,)}, "downstream run")["note"] == "kept"
    with pytest.raises(InputError, match=r"another downstream run \(differs in a\)"):
        refuse_other(folder, "downstream", {"a": 2, "b": [1]}, "downstream run")
    with pytest.raises(InputError, match="holds an artifact of kind .downstream."):
        refuse_other(folder, "model", {"a": 1, "b": [1]}, "fine-tuned model")


def test_a_manifest_without_a_kind_is_named_by_where_it_lies(tmp_path: Path) -> None:
    folder = tmp_path / "artifacts" / "models" / "minilm-ft-0123456789ab"
    folder.mkdir(parents=True)
    (folder / MANIFEST).write_text(json.dumps({"base": "minilm"}))
    assert kind_of(folder) == "model"
    assert kind_of(tmp_path) is None
    nested = tmp_path / "annotations" / "work" / "downstream" / "run"  # the nearest folder names it
    nested.mkdir(parents=True)
    (nested / MANIFEST).write_text(json.dumps({"identity": {"a": 1}}))
    assert kind_of(nested) == "downstream"
    assert refuse_other(nested, "downstream", {"a": 1}, "downstream run")["identity"] == {"a": 1}


def test_a_manifest_rewritten_names_the_version_that_wrote_it(tmp_path: Path) -> None:
    write_manifest(tmp_path, "downstream", {"toolex_version": "0.0.1", "identity": {"a": 1}})
    assert read_manifest(tmp_path)["toolex_version"] == __version__


def test_the_kept_downstream_run_opens_again_as_the_same_run(tmp_path: Path) -> None:
    """The committed downstream run's manifest, written before the envelope, is the same run for
    :class:`RunFolder` (its identity survives the JSON round trip) and gains the envelope when rewritten."""
    import shutil

    from toolex import paths
    from toolex.downstream.run import RunFolder

    (kept,) = [p for p in (paths.ROOT / "data" / "downstream").iterdir() if (p / MANIFEST).exists()]
    copy = tmp_path / "downstream" / kept.name
    shutil.copytree(kept, copy)
    identity = read_manifest(copy)["identity"]
    folder = RunFolder(copy, identity)
    assert read_manifest(copy)["kind"] == "downstream" and folder.manifest["identity"] == identity
    with pytest.raises(InputError, match="another downstream run"):
        RunFolder(copy, {**identity, "max_steps": -1})


def test_publishing_a_folder_replaces_the_former_whole(tmp_path: Path) -> None:
    target, built = tmp_path / "model", tmp_path / ".model.tmp-1"
    target.mkdir()
    (target / "old.bin").write_text("old")
    built.mkdir()
    (built / "new.bin").write_text("new")
    publish_folder(built, target)
    assert sorted(p.name for p in target.iterdir()) == ["new.bin"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]  # nothing left aside


def test_a_folder_left_aside_by_a_killed_publication_is_put_back(tmp_path: Path, capsys) -> None:
    target = tmp_path / "model"
    aside = tmp_path / ".model.old-99999"  # killed between moving the former aside and renaming the new in
    aside.mkdir()
    (aside / "old.bin").write_text("old")
    older = tmp_path / ".model.old-1"  # an older leftover
    older.mkdir()
    os.utime(older, (1, 1))
    assert restore_aside(target) and (target / "old.bin").read_text() == "old"
    assert "restored" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]


def test_a_failed_publication_keeps_the_former_folder(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "model"
    target.mkdir()
    (target / "old.bin").write_text("old")
    real = os.replace

    def fail_on_the_new(src, dst):
        if Path(src).name == "missing":
            raise OSError("disk full")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", fail_on_the_new)
    with pytest.raises(OSError):
        publish_folder(tmp_path / "missing", target)
    assert (target / "old.bin").read_text() == "old"


def test_a_former_run_description_is_adopted_with_a_message(tmp_path: Path, capsys) -> None:
    runs = tmp_path / "runs" / "report"
    runs.mkdir(parents=True)
    run = runs / "bm25.all.0123456789ab.trec"
    run.write_text("q Q0 t 1 1.0 bm25\n")
    former = runs / "bm25.all.0123456789ab.json"  # the name descriptions had before
    former.write_text(json.dumps({"retriever": "bm25", "workspace": "w (5 queries)", "level": "query level"}))
    (row,) = cached("runs", root=tmp_path)
    assert row["setting"] == "bm25 over w (5 queries), query level" and row["state"] == "complete"
    assert not former.exists() and manifest_path(run).exists()
    assert "renamed to bm25.all.0123456789ab.trec.json" in capsys.readouterr().err
    assert adopt_sidecar(run) == manifest_path(run)  # adopted once; then found by today's name


def test_the_listing_leaves_out_folders_being_written_and_says_what_it_cannot_read(tmp_path: Path) -> None:
    models = tmp_path / "models"
    (models / ".minilm-ft-0123456789ab.tmp-42").mkdir(parents=True)
    (models / "minilm-ft-0123456789ab.tmp-42").mkdir()  # the name a model being written had before
    broken = models / "minilm-ft-aaaaaaaaaaaa"
    broken.mkdir()
    (broken / MANIFEST).write_text("{")
    partial = tmp_path / "annotations" / "offline-bbbbbbbbbbbb"
    partial.mkdir(parents=True)
    write_manifest(partial, "annotations", {"files": ["annotations.jsonl"]}, status="partial")
    rows = {r["name"]: r for r in cached(root=tmp_path)}
    assert set(rows) == {"minilm-ft-aaaaaaaaaaaa", "offline-bbbbbbbbbbbb"}
    assert rows["minilm-ft-aaaaaaaaaaaa"]["state"].startswith("unreadable manifest")
    assert rows["offline-bbbbbbbbbbbb"]["state"].startswith("incomplete")
