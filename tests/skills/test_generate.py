"""Writing SkillRet-style queries: filters, the offline template and the LLM path over real HTTP."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from toolex.data.records import Tool
from toolex.skills import SkillSettings, build_queries, ensure_skill_benchmark, leaked_names
from toolex.skills.build import reject_reason
from toolex.skills.llm_writer import LLMGenerator
from toolex.skills.loader import skill_documentation
from toolex.skills.pool import sample_pool
from toolex.skills.seeds import SeedSampler
from toolex.skills.template import GENERATOR, TemplateGenerator, request_from, template_query
from toolex.skills.text import normalise


@pytest.mark.parametrize("text", ["Open it with PDF-Editor", "use the pdf editor", "PDF_EDITOR please",
                                  "run pdfeditor now", "the Pdf Editor."])
def test_leak_variants(text):
    assert leaked_names(text, ["pdf-editor", "csv-clean"]) == ["pdf-editor"]


def test_no_leak_inside_words():
    assert leaked_names("a pdfs editorial about spdf editors", ["pdf-editor"]) == []
    assert leaked_names("camel case: dataCleaner helps", ["data-cleaner"]) == ["data-cleaner"]


def test_reject_reasons():
    seen = {normalise("I want to merge two PDF files.")}
    assert reject_reason(None, "timeout", ["x"], seen) == "failed"
    assert reject_reason("too short", None, ["x"], seen) == "short"
    assert reject_reason("Please use csv clean on my sales file", None, ["csv-clean"], seen) == "leak"
    assert reject_reason("I want to MERGE two pdf files!", None, ["x"], seen) == "duplicate"
    assert reject_reason("I want to merge three PDF files.", None, ["x"], seen) is None


def test_template_rewrites():
    assert request_from("Use this skill when the user wants to merge PDF files. More text.",
                        ["pdf-merge"]) == (
        "I want to merge PDF files")
    assert request_from("Creates charts from CSV data.",
                        ["chart-maker"]) == "Can you help me create charts from CSV data"
    assert request_from("Generate release notes from git history", ["relnotes-writer"]) == (
        "Please generate release notes from git history")
    assert "docx" not in request_from("Use the docx skill for Word documents.", ["docx"]).lower()


def _skill(i: int, name: str, description: str, repo: str = "o@r") -> Tool:
    return Tool(f"mirrors/repos/{repo}/{name}/SKILL.md", name, skill_documentation(name, description, "body"),
                "skills", "skill", repo.replace("@", "/"))


def test_template_multi_skill():
    tools = [_skill(0, "pdf-merge", "Use when the user needs to merge PDF files into one document."),
             _skill(1, "mailer", "Sends emails with attachments through SMTP servers.")]
    text = template_query(tools)
    assert text == ("I want to merge PDF files into one document. Then, can you help me send emails with "
                    "attachments through SMTP servers.")


@pytest.fixture(scope="module")
def pool(skills):
    return sample_pool(skills, 600, seed=3)


def test_seeds_are_distinct_and_related(pool):
    seeds = SeedSampler(pool).draw(120, seed=1)
    assert len(seeds) == 120
    assert len({tuple(sorted(s.skills)) for s in seeds}) == 120
    for s in seeds:
        assert 1 <= len(s.skills) <= 3 and all(i in pool for i in s.skills)
        assert len({pool[i].name.lower() for i in s.skills}) == len(s.skills)
        if s.strategy == "same-repository":
            assert len({pool[i].platform for i in s.skills}) == 1
    assert {s.strategy for s in seeds} >= {"single", "same-repository"}


def test_offline_build_is_clean_and_deterministic(pool):
    first = build_queries(pool, TemplateGenerator(), 80, seed=2)
    second = build_queries(pool, TemplateGenerator(), 80, seed=2)
    assert [q.to_json() for q in first.queries] == [q.to_json() for q in second.queries]
    assert len(first.queries) == 80
    keys = [normalise(q.text) for q in first.queries]
    assert len(set(keys)) == len(keys)
    for q in first.queries:
        assert q.generator == GENERATOR
        assert all(t in pool for t in q.skills)
        assert not leaked_names(q.text, [pool[t].name for t in q.skills]), q.text
    counts = first.counts()
    assert counts["examined"] == counts["kept"] + sum(counts["rejected"].values())
    assert set(counts["by_category"]) <= {"1-skill", "2-skill", "3-skill"}


class SkillLLM:
    """A real HTTP server answering /v1/chat/completions from the skill descriptions quoted in the prompt.

    A description marked ``[leak]`` gets an answer naming the skill ``leaky-parser``, ``[twin]`` always gets
    the same answer, ``[broken]`` gets text that is not JSON; the others get a request built from their
    description.
    """

    def __init__(self) -> None:
        self.requests: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                prompt = body["messages"][-1]["content"]
                descriptions = [json.loads(m) for m in re.findall(r"<data>(.*?)</data>", prompt)]
                if any("[broken]" in d for d in descriptions):
                    content = "Sure! Here is a request."
                elif any("[leak]" in d for d in descriptions):
                    content = json.dumps({"query": "Please run leaky parser on my data folder."})
                elif any("[twin]" in d for d in descriptions):
                    content = json.dumps({"query": "I need the quarterly numbers cleaned and charted for "
                                                   "Monday."})
                else:
                    content = json.dumps({"query": "I have a task: " + " and ".join(d.lower()
                                                                                    for d in descriptions)})
                data = json.dumps({"id": "x", "object": "chat.completion", "created": 0,
                                   "model": "fake-writer",
                                   "choices": [{"index": 0, "finish_reason": "stop",
                                                "message": {"role": "assistant", "content": content}}],
                                   "usage": {"prompt_tokens": 5, "completion_tokens": 5}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> SkillLLM:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _llm_pool() -> dict[str, Tool]:
    specs = [("leaky-parser", "[leak] The leaky-parser skill parses log files into structured tables."),
             ("twin-a", "[twin] Clean spreadsheet columns and remove duplicate rows."),
             ("twin-b", "[twin] Normalise spreadsheet columns and drop duplicate rows."),
             ("broken-tool", "[broken] Convert images between PNG and JPEG formats."),
             ("sql-helper", "Write and optimise SQL queries for analytics databases."),
             ("chart-maker", "Draw bar and line charts from tabular data files."),
             ("mail-sender", "Send formatted emails with attachments to a list of people.")]
    return {t.id: t for t in (_skill(i, n, d, repo=f"o@r{i}") for i, (n, d) in enumerate(specs))}


def test_llm_path_over_http(tmp_path):
    from toolex.llm import LLMClient, LLMSettings, ResponseCache

    pool = _llm_pool()
    with SkillLLM() as server:
        settings = LLMSettings(base_url=server.base_url, model="fake-writer", response_format="json_object",
                               backoff=0.01, timeout=5.0, concurrency=2, malformed_retries=0)
        generator = LLMGenerator(client=LLMClient(settings, cache=ResponseCache(tmp_path / "cache")),
                                 progress=False)
        report = build_queries(pool, generator, n_queries=50, seed=0, sizes=(1.0, 0.0, 0.0), max_rounds=1)
        calls = len(server.requests)
        again = build_queries(pool, generator, n_queries=50, seed=0, sizes=(1.0, 0.0, 0.0), max_rounds=1)
    # the rerun replays every answer from the cache; the one failure is retried, never replayed as an answer
    assert calls == len(pool) and len(server.requests) == calls + 1
    assert "[broken]" in server.requests[-1]["messages"][-1]["content"]
    assert [q.to_json() for q in again.queries] == [q.to_json() for q in report.queries]
    assert report.rejected["leak"] == report.rejected["failed"] == report.rejected["duplicate"] == 1
    assert len(report.queries) == len(pool) - 3
    assert {q.generator for q in report.queries} == {"llm:fake-writer"}
    texts = [normalise(q.text) for q in report.queries]
    assert len(set(texts)) == len(texts)
    for q in report.queries:
        assert not leaked_names(q.text, [pool[t].name for t in q.skills])
    request = server.requests[0]
    assert request["model"] == "fake-writer" and request["response_format"]["type"] == "json_object"
    assert "never use the word 'skill'" in request["messages"][0]["content"]
    for request in server.requests:  # the prompt never shows a skill name, so the model cannot copy one
        assert not leaked_names(request["messages"][-1]["content"], [t.name for t in pool.values()])
    described = generator.describe()
    assert described["generator"] == "llm:fake-writer" and described["prompt_version"] == "skill-query-v2"


def test_ensure_offline_fallback(isolated, skills, corpus_path):
    settings = SkillSettings.for_smoke(pool_size=200, n_queries=12)
    bench = ensure_skill_benchmark(settings, generator="auto", corpus=corpus_path, skills=skills,
                                   progress=False)
    manifest = bench.meta
    assert manifest["generator"]["generator"] == "offline-template"
    assert len(bench) == 12 and len(bench.tools) == 200
    assert all(t in bench.tools for q in bench for t in q.reference)
    folder = isolated / "artifacts" / "skills" / "smoke-offline-template" / "benchmark"
    stamp = (folder / "manifest.json").stat().st_mtime_ns
    again = ensure_skill_benchmark(settings, generator="offline", corpus=corpus_path, skills=skills)
    assert (folder / "manifest.json").stat().st_mtime_ns == stamp
    assert [q.text for q in again] == [q.text for q in bench]
    assert again.checksum == bench.checksum


class CountingWriter:
    """The offline template under another name, counting the seeds it is asked to write."""

    def __init__(self, name: str = "llm:counting") -> None:
        self.name, self.template, self.written = name, TemplateGenerator(), 0

    def describe(self) -> dict:
        return {"generator": self.name, "prompt_version": "counting-1"}

    def generate(self, seeds, pool):
        self.written += len(seeds)
        return self.template.generate(seeds, pool)


def test_writing_stops_when_enough_queries_are_kept(pool):
    writer = CountingWriter()
    chunked = build_queries(pool, writer, 40, seed=4, chunk=8)
    whole = build_queries(pool, TemplateGenerator(), 40, seed=4, chunk=10**6)
    assert [(q.text, q.skills) for q in chunked.queries] == [(q.text, q.skills) for q in whole.queries]
    counts = chunked.counts()
    drawn = int(40 * 1.25) + 2  # the seeds of the first round
    # nothing written is left unread
    assert writer.written == counts["generated"] == counts["examined"] < drawn


def test_recorded_llm_benchmark_is_reused_without_an_llm(isolated, skills, corpus_path, monkeypatch):
    from toolex import paths
    from toolex.skills import record_benchmark, recorded_skills_dir, skills_dir, work_folder

    monkeypatch.setattr(paths, "recorded_dir", lambda: isolated / "recorded")
    settings = SkillSettings.for_smoke(pool_size=200, n_queries=10)
    assert ensure_skill_benchmark(settings, generator="recorded", corpus=corpus_path, skills=skills,
                                  progress=False).meta["generator"]["generator"] == "offline-template"
    written = ensure_skill_benchmark(settings, generator=CountingWriter(), corpus=corpus_path, skills=skills)
    copy = record_benchmark(written)
    assert copy == recorded_skills_dir() / "smoke-llm-counting" / "benchmark"
    import shutil

    shutil.rmtree(skills_dir() / "smoke-llm-counting")
    for kind in ("recorded", "auto"):
        found = ensure_skill_benchmark(settings, generator=kind, corpus=corpus_path, skills=skills)
        assert found.meta["generator"]["generator"] == "llm:counting"
        assert [q.text for q in found] == [q.text for q in written] and found.checksum == written.checksum
    assert work_folder(found) == skills_dir() / "smoke-llm-counting"  # SkillEq never writes into data/
    other = SkillSettings.for_smoke(pool_size=200, n_queries=11)
    assert ensure_skill_benchmark(other, generator="recorded", corpus=corpus_path,
                                  skills=skills).meta["generator"]["generator"] == "offline-template"
