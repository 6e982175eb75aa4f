"""The README is the first hour (short, its commands real) and the documentation site builds strictly."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.requirements import skip_unless_required

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def test_the_readme_is_the_first_hour():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    for step in ("make paper SMOKE=1", "make inspector SMOKE=1", "source .venv/bin/activate",
                 "toolex evaluate --run", "toolex annotate", "toolex calibrate", "make test"):
        assert step in text, f"README: the first hour does not show {step!r}"


def test_every_page_the_readme_names_exists_and_is_in_the_site():
    text = README.read_text(encoding="utf-8")
    named = set(re.findall(r"`docs/([\w.-]+\.md)`", text))
    assert named, "README names no documentation page"
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in named:
        assert (ROOT / "docs" / page).is_file(), f"README names docs/{page}, which does not exist"
        assert f": {page}" in config, f"docs/{page} is not in the site's navigation"
    for page in (ROOT / "docs").glob("*.md"):
        assert f": {page.name}" in config, f"docs/{page.name} is not in the site's navigation"


def test_the_readme_commands_name_real_options():
    """Every ``toolex <command> --option`` the README shows is an option of that command."""
    from toolex.cli import build_parser, command_parser

    text = README.read_text(encoding="utf-8")
    for command, rest in re.findall(r"^toolex (\w[\w-]*)((?: [^#\n]*)?)", text, re.M):
        options = re.findall(r"(--[\w-]+)", rest)
        words = [command, *rest.split()]  # a command with actions (review sample): the action's parser
        parser = command_parser(build_parser(command), words)
        known = parser.format_help()
        for option in options:
            assert option in known, f"README: toolex {command} has no option {option}"


def test_the_documentation_site_builds_strictly(tmp_path):
    mkdocs = Path(sys.executable).parent / "mkdocs"
    if shutil.which("mkdocs") is None and not mkdocs.exists():
        skip_unless_required("mkdocs is not installed (pip install -e '.[dev]')", "TOOLEX_REQUIRE_DOCS")
    out = subprocess.run([str(mkdocs) if mkdocs.exists() else "mkdocs", "build", "--strict", "--quiet",
                          "--site-dir", str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True,
                         check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    assert (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8").count("GroundTruth") > 0


def _block_after(text: str, heading: str) -> list[str]:
    """The commands of the first ``bash`` block after ``heading`` (continued lines joined, comments cut)."""
    block = text[text.index(heading):].split("```bash\n", 1)[1].split("```", 1)[0]
    joined = block.replace("\\\n", " ")
    return [line.split("  #")[0].strip() for line in joined.splitlines() if line.strip()]


def test_the_readme_evaluation_step_runs_as_written(tmp_path, data_dir):
    """Step 4 of the README, run as it is written (the `toolex` of this environment; the release's
    annotations where the README names them): the run is written and evaluated against the release."""
    (tmp_path / "data").symlink_to(ROOT / "data")
    commands = _block_after(README.read_text(encoding="utf-8"), "**4. Evaluate your own run**")
    assert [c.split()[1] for c in commands] == ["retrieve", "evaluate"]
    outputs = []
    for command in commands:
        argv = [sys.executable, "-m", "toolex.cli", *command.split()[1:]]
        done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"{command}\n{done.stderr[-2000:]}"
        outputs.append(done.stdout)
    assert (tmp_path / "bm25.trec").stat().st_size > 0
    table = outputs[-1]
    assert "ToolEq" in table and re.search(r"^all\s+\d+", table, re.M), table
