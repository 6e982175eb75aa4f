"""``toolex release build | verify``: the ToolEq release of the default setting's annotations and the other
annotation folders ``make paper`` reads (:mod:`toolex.experiments.release`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

HELP = "build or verify the ToolEq release (the default setting's expanded annotations as data)"
#: What each release part holds: ``tooleq`` the default setting (notebooks 01–06), ``skilleq`` the skill
#: extension (notebook 07), ``sgd-report`` the validation against people (notebook 09); each also in the smoke
#: setting (``make paper SMOKE=1``), so that a first run of either starts from data.
SETTINGS = ("tooleq", "skilleq", "sgd-report")
PARTS = (*SETTINGS, *(f"{name}-smoke" for name in SETTINGS))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("build", "verify"),
                        help="build: from the part's annotation folder (computed if missing); verify: "
                             "checksums, and whether the current judge and data would write the same folder")
    parser.add_argument("--part", choices=(*PARTS, "all"), default="all",
                        help="tooleq: the default setting; skilleq: the skill extension; sgd-report: the "
                             "validation against people; -smoke: the same in the smoke setting (default: "
                             "all)")
    parser.add_argument("--release", help="release folder (default: data/release/<part>; one part only)")
    parser.add_argument("--checksums-only", action="store_true",
                        help="verify: check the files only, not the key (no benchmark is loaded)")


@dataclass
class Part:
    """A release part: its annotation folder (not computed), key parts, record and how to compute it."""

    name: str
    folder: Any
    key_parts: dict[str, Any]
    about: dict[str, Any]
    workspace: str
    compute: Callable[[], Any]
    kind: str


def part(name: str) -> Part:
    """Where the part's annotation folder lies for the current judge and data; nothing is computed."""
    from toolex.annotate.identity import config_fields
    from toolex.annotate.pipeline import AnnotateConfig
    from toolex.experiments import release
    from toolex.experiments.settings import ReportSettings
    from toolex.experiments.workspace import default_folder, ensure_annotations, toolex_folder
    from toolex.report.validation import validation_settings

    smoke = name.endswith("-smoke")
    setting = " (smoke setting)" if smoke else ""
    if name.startswith("skilleq"):
        from toolex.skills import SkillSettings
        from toolex.skills.loader import load_skills
        from toolex.skills.workspace import ensure_skill_benchmark, ensure_skilleq, skilleq_key, skilleq_label

        skill_settings = SkillSettings.for_smoke() if smoke else SkillSettings()
        benchmark = ensure_skill_benchmark(skill_settings, generator="recorded", skills=load_skills(),
                                           progress=False)
        config = AnnotateConfig()
        folder, identity = toolex_folder(skilleq_label(benchmark), skilleq_key(benchmark), config, "offline")
        parts = release.key_parts(skilleq_key(benchmark), identity, config_fields(config))
        described = f"{benchmark.name} ({len(benchmark.queries)} queries, {len(benchmark.tools)} skills)"
        about = {"name": f"SkillEq (toolex skill extension){setting}", "settings": asdict(skill_settings),
                 "workspace": described, "key_parts": parts}
        template = "-template-" in folder.folder.name  # the queries were written by the template generator
        kind = "skilleq-template" if template else "skilleq"
        return Part(name, folder, parts, about, described, lambda: ensure_skilleq(benchmark), kind)
    validation = name.startswith("sgd-report")
    settings = validation_settings("offline", smoke=smoke) if validation else ReportSettings.make(smoke=smoke)
    folder, parts, workspace = default_folder(settings)
    title = "sgd/report (validation of the judge)" if validation else "ToolEq (toolex default setting)"
    about = {"name": title + setting, "settings": workspace.settings.as_dict(),
             "workspace": workspace.describe(), "key_parts": parts}
    return Part(name, folder, parts, about, workspace.describe(),
                lambda: ensure_annotations(workspace, "offline", progress=True),
                "sgd-report" if validation else "tooleq")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from toolex import paths
    from toolex.errors import InputError
    from toolex.experiments import release
    from toolex.experiments.datasheet import datasheet

    names = list(PARTS) if args.part == "all" else [args.part]
    if args.release and len(names) > 1:
        raise InputError(args.release, "--release names one release folder: pass --part too")
    failed = 0
    for name in names:
        target = Path(args.release) if args.release else paths.release_dir() / name
        if args.action == "build":
            found = part(name)
            if not found.folder.complete():
                print(f"[toolex] computing the {name} annotations into {found.folder.folder.name} first")
                found.compute()
            out = release.build(found.folder.folder, target, found.about,
                                datasheet(found.folder.folder, found.workspace, found.kind))
            record = release.read(out)
            size = sum(f["gz_bytes"] for f in record["files"].values())
            print(f"{out}: {record['folder']}, {len(record['files'])} files, {size / 1e6:.1f} MB compressed")
            continue
        if args.checksums_only:
            result = release.verify(target)
        else:
            found = part(name)
            result = release.verify(target, found.folder.folder.name, found.key_parts)
        print("\n".join(result.lines()))
        failed += not result.ok
    return 1 if failed else 0
