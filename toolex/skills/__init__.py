"""The skill extension: SkillRet-style benchmarks over agent skills, SkillEq, Table 3 and Figure 5.

* :func:`load_skills` reads a skill corpus (JSON lines or a folder of ``SKILL.md`` files) as tools;
* :func:`ensure_skill_benchmark` builds (or reads back) a one-to-one benchmark whose queries are written for
  seed skill sets by an LLM or by the offline template;
* :func:`ensure_skilleq` runs ToolEX on it (same stages, judges and artifacts as for tools);
* :func:`table3` scores BM25 and MiniLM one-to-one vs SkillEq beside the paper's rows;
* :func:`tool_vs_skill_lengths` and :func:`figure5` draw the documentation-length figure;
* :func:`open_skill_analysis` gives notebook 07 both, with the report layer's provenance and footers bound to
them.

``toolex skills`` (:mod:`toolex.commands.skills`; alias ``python -m toolex.skills``) runs it from the shell.
"""

from toolex.skills.analysis import SkillAnalysis, open_skill_analysis, open_skill_notebook
from toolex.skills.build import BuildReport, SkillQuery, build_queries
from toolex.skills.lengths import (
    TOKENIZERS,
    figure5,
    length_figure,
    length_footer,
    length_summary,
    token_lengths,
    tool_vs_skill_lengths,
)
from toolex.skills.loader import load_skills, repository_of, skill_tool
from toolex.skills.seeds import Seed, SeedSampler
from toolex.skills.table3 import paper_rows, table3, wide
from toolex.skills.text import leaked_names
from toolex.skills.workspace import (
    GENERATORS,
    SkillSettings,
    benchmark_folder,
    benchmark_key,
    ensure_skill_benchmark,
    ensure_skilleq,
    make_generator,
    record_benchmark,
    recorded_skills_dir,
    skilleq_key,
    skills_dir,
    work_folder,
)

__all__ = [
    "GENERATORS",
    "TOKENIZERS",
    "BuildReport",
    "Seed",
    "SeedSampler",
    "SkillQuery",
    "SkillAnalysis",
    "SkillSettings",
    "benchmark_folder",
    "benchmark_key",
    "build_queries",
    "ensure_skill_benchmark",
    "ensure_skilleq",
    "figure5",
    "leaked_names",
    "length_figure",
    "length_footer",
    "length_summary",
    "load_skills",
    "make_generator",
    "open_skill_analysis",
    "open_skill_notebook",
    "paper_rows",
    "record_benchmark",
    "recorded_skills_dir",
    "repository_of",
    "skill_tool",
    "skilleq_key",
    "skills_dir",
    "table3",
    "token_lengths",
    "tool_vs_skill_lengths",
    "wide",
    "work_folder",
]
