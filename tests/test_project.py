"""Project-level checks: environment.yml wraps pyproject's install; torch is pinned wherever it is pulled
in."""

from __future__ import annotations

import tomllib
import yaml

from toolex import paths


def test_environment_yml_wraps_the_pyproject_install():
    env = yaml.safe_load((paths.ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    project = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())
    extras = project["project"]["optional-dependencies"]
    assert pip == ["-e .[dev]"] and "dev" in extras
    python = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python="))
    assert python.split("=")[1] >= project["project"]["requires-python"].lstrip(">=")


def test_torch_is_pinned_and_faiss_variants_are_exclusive():
    extras = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    torch_specs = [d for group in extras.values() for d in group if d.split("=")[0].split(">")[0] == "torch"]
    assert torch_specs and all(d == "torch==2.13.0" for d in torch_specs)
    for name, group in extras.items():
        faiss = {d.split(">")[0].split("=")[0] for d in group if d.startswith("faiss")}
        assert len(faiss) <= 1, name


def test_makefile_lists_every_target_in_help():
    import re

    text = "\n".join(p.read_text()
                     for p in [paths.ROOT / "Makefile", *sorted((paths.ROOT / "mk").glob("*.mk"))])
    targets = re.findall(r"^([a-z][\w-]*):(?!=)", text, flags=re.M)
    documented = re.findall(r"^([a-z][\w-]*):.*## ", text, flags=re.M)
    assert set(targets) - {"help"} <= set(documented)


def test_the_cut_off_has_one_default():
    """No function, dataclass field or command option of the package defaults a cut-off (``k``, ``cutoff``) to
    a literal: the one default is
    ``toolex.metrics.measures.HEADLINE.k``, and the measure key ``"ndcg@10"`` is written nowhere else."""
    import ast

    package = paths.ROOT / "toolex"
    literal = []
    for path in package.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                args = node.args
                named = [*args.posonlyargs, *args.args][-len(args.defaults):] if args.defaults else []
                pairs = [*zip(named, args.defaults), *zip(args.kwonlyargs, args.kw_defaults)]
                literal += [f"{path.name}:{node.lineno} {a.arg}" for a, d in pairs
                            if a.arg in ("k", "cutoff") and isinstance(d, ast.Constant) and d.value == 10]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):  # a dataclass field
                if node.target.id in ("k", "cutoff") and isinstance(node.value, ast.Constant) \
                        and node.value.value == 10:
                    literal.append(f"{path.name}:{node.lineno} {node.target.id}")
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument":
                flags = [a.value for a in node.args if isinstance(a, ast.Constant)]
                default = next((w.value for w in node.keywords if w.arg == "default"), None)
                if set(flags) & {"--k", "--cutoff"} and isinstance(default, ast.Constant) \
                        and default.value == 10:
                    literal.append(f"{path.name}:{node.lineno} {flags[0]}")
    assert not literal, f"cut-offs defaulted to a literal: {literal}"
    keys = [p.name for p in package.rglob("*.py") if p.name != "claims.py"  # the paper's own measure
            and any('"ndcg@10"' in line and not line.lstrip().startswith(">>>")  # doctests show it
                    for line in p.read_text(encoding="utf-8").splitlines())]
    assert not keys, f"the headline measure's key written as a string in {keys}"


def test_every_bench_script_imports():
    """A bench script that names something the package no longer has fails here, not when it is run."""
    import importlib.util

    for path in sorted((paths.ROOT / "bench").glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        spec.loader.exec_module(importlib.util.module_from_spec(spec))


def test_one_manifest_name_and_one_reader():
    """Every artifact's manifest is named and read in one place (:mod:`toolex.io.artifact`): no other module
    of the package or of ``bench/`` spells its name, defines a reader or parses a manifest file itself."""
    import re

    spelled = re.compile(r"manifest\.json[\"']|MANIFEST\s*=[^=]|def read_manifest")
    parsed = re.compile(r"json\.loads?\(.*(MANIFEST|manifest\.json)")
    offenders = [f"{p.relative_to(paths.ROOT)}:{n}"
                 for root in (paths.ROOT / "toolex", paths.ROOT / "bench")
                 for p in sorted(root.rglob("*.py")) if p.name != "artifact.py"
                 for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
                 if not line.lstrip().startswith("#") and (spelled.search(line) or parsed.search(line))]
    assert offenders == []


def test_no_command_line_takes_an_abbreviated_option():
    """Every parser of the package's and the benches' command lines refuses abbreviations (``--annotation``
    is not ``--annotations``): ``toolex``'s through its strict parser, each ``python -m`` entry point by
    ``allow_abbrev=False``."""
    import ast

    def strict(call: ast.Call) -> bool:
        return any(k.arg == "allow_abbrev" and isinstance(k.value, ast.Constant) and k.value.value is False
                   for k in call.keywords)

    offenders = [f"{path.relative_to(paths.ROOT)}:{node.lineno}"
                 for root in (paths.ROOT / "toolex", paths.ROOT / "bench")
                 for path in sorted(root.rglob("*.py"))
                 for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                 if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", ""))
                 == "ArgumentParser" and not strict(node)]
    assert offenders == []


def test_every_stream_prefix_of_make_test_names_a_test():
    """A renamed file or test would silently move its tests into the other stream of ``make test``."""
    import re

    from tests.conftest import BESIDE

    for prefix in BESIDE:
        path, _, name = prefix.partition("::")
        target = paths.ROOT / path
        assert target.exists(), prefix
        if name:
            assert re.search(rf"^def {re.escape(name)}", target.read_text(), flags=re.M), prefix
