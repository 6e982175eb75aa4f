"""``toolex release build | verify``: the ToolEq release of the default setting's annotations
(:mod:`toolex.experiments.release`)."""

from __future__ import annotations

import argparse

HELP = "build or verify the ToolEq release (the default setting's expanded annotations as data)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("build", "verify"),
                        help="build: from the default annotation folder (computed if missing); verify: "
                             "checksums, and whether the current judge and data would write the same folder")
    parser.add_argument("--release", help="release folder (default: data/release/tooleq)")
    parser.add_argument("--checksums-only", action="store_true",
                        help="verify: check the files only, not the key (no benchmark is loaded)")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from toolex.experiments import release
    from toolex.experiments.datasheet import datasheet
    from toolex.experiments.workspace import default_folder, ensure_annotations

    target = Path(args.release) if args.release else release.default_release()
    if args.action == "build":
        folder, parts, workspace = default_folder()
        if not (folder.manifest().get("files") and folder.annotations_path().exists()):
            print(f"[toolex] computing the default annotations into {folder.folder.name} first")
            ensure_annotations(workspace, "offline", progress=True)
        about = {"name": "ToolEq (toolex default setting)", "settings": workspace.settings.as_dict(),
                 "workspace": workspace.describe(), "key_parts": parts}
        out = release.build(folder.folder, target, about, datasheet(folder.folder, workspace.describe()))
        record = release.read(out)
        size = sum(f["gz_bytes"] for f in record["files"].values())
        print(f"{out}: {record['folder']}, {len(record['files'])} files, {size / 1e6:.1f} MB compressed")
        return 0
    if args.checksums_only:
        result = release.verify(target)
    else:
        folder, parts, _ = default_folder()
        result = release.verify(target, folder.folder.name, parts)
    print("\n".join(result.lines()))
    return 0 if result.ok else 1
