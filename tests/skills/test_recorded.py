"""The LLM-written SkillRet-style benchmark kept in ``data/skills``: complete, clean and resolvable."""

from __future__ import annotations

from collections import Counter

import pytest

from toolex import keys
from toolex.skills import SkillSettings, benchmark_key, leaked_names, recorded_skills_dir
from toolex.skills.benchmark_folder import read_benchmark, read_manifest, read_queries
from toolex.skills.loader import corpus_checksum
from toolex.skills.text import normalise

FOLDERS = sorted(recorded_skills_dir().glob("*-llm-*/benchmark"))


def test_a_recorded_llm_benchmark_exists():
    assert FOLDERS, f"no LLM-written skill benchmark under {recorded_skills_dir()}"


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: f.parent.name)
def test_recorded_benchmark_is_clean(folder, skills, corpus_path):
    manifest = read_manifest(folder)
    assert manifest["corpus"]["checksum"] == corpus_checksum(corpus_path)
    assert manifest["corpus"]["path"].startswith("$TOOLEX_DATA/")  # no machine path in a committed file
    generator = manifest["generator"]
    assert generator["generator"].startswith("llm:") and generator["prompt_version"]
    assert generator["system_prompt"] and generator["llm"]["model"] and "seed" in generator["llm"]
    settings = SkillSettings(**{**manifest["settings"], "sizes": tuple(manifest["settings"]["sizes"])})
    assert folder.parent.name.startswith(f"{settings.label}-llm-")
    # the key helper recomputes the recorded key from the settings and the generator's own description
    assert keys.same_key(manifest["key"], benchmark_key(manifest["corpus"]["checksum"], settings, generator))
    bench = read_benchmark(folder, skills)  # every C* and pool id resolves to a skill of the corpus
    assert len(bench) == settings.n_queries >= 300
    assert len(bench.tools) == (settings.pool_size or len(skills))
    queries = read_queries(folder)
    texts = [normalise(q.text) for q in queries]
    assert len(set(texts)) == len(texts), "duplicate queries"
    for q in queries:
        assert q.generator == generator["generator"]
        assert 1 <= len(q.skills) <= 3 and len(set(q.skills)) == len(q.skills)
        assert not leaked_names(q.text, [bench.tools[t].name for t in q.skills]), (q.id, q.text)
    counts = manifest["counts"]
    assert counts["kept"] == len(queries)
    assert counts["examined"] == counts["kept"] + sum(counts["rejected"].values())
    assert counts["by_category"] == dict(Counter(f"{len(q.skills)}-skill" for q in queries))
