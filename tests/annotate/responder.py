"""A real OpenAI-compatible HTTP server on 127.0.0.1 that answers the three ToolEX prompts by rule.

Decomposition: one sub-query per tool asked for. Verification: "yes" when the two tool names share a word.
Audit: "yes" unless the listing holds the same tool twice. Every answer is valid JSON for the schema sent.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _names(text: str, label: str) -> list[str]:
    return [json.loads(m) for m in re.findall(label + r'[^\n]*?name <data>("(?:[^"\\]|\\.)*")</data>', text)]


def answer(body: dict[str, Any]) -> str:
    user = body["messages"][-1]["content"]
    if '"sub_queries"' in user:
        k = int(re.search(r"with exactly (\d+) items", user).group(1))
        return json.dumps({"sub_queries": [
            {"tool_index": i, "functionality": f"operation {i}", "entity": "the thing",
             "sub_query": f"do operation {i} on the thing"} for i in range(1, k + 1)]})
    if '"covers_all_operations"' in user:
        tools = re.findall(r'tool: name <data>("(?:[^"\\]|\\.)*")</data>', user)
        ok = len(set(tools)) == len(tools)
        return json.dumps({"covers_all_operations": ok, "dependencies_consistent": True,
                           "reason": "rule-based audit", "verdict": "yes" if ok else "no"})
    if '"verdicts"' in user:
        ref = _names(user, "Reference tool:")[0]
        cands = _names(user, r"Candidate \d+:")
        words = set(re.split(r"[\W_]+", ref.lower())) - {""}
        return json.dumps({"verdicts": [
            {"candidate": i,
             "reason": "shared word" if words & set(re.split(r"[\W_]+", c.lower())) else "none",
             "verdict": "yes" if words & set(re.split(r"[\W_]+", c.lower())) else "no"}
            for i, c in enumerate(cands, 1)]})
    ref, cand = _names(user, "Reference tool:")[0], _names(user, "Candidate tool:")[0]
    shared = set(re.split(r"[\W_]+", ref.lower())) & set(re.split(r"[\W_]+", cand.lower())) - {""}
    return json.dumps({"reason": f"shared words {sorted(shared)}" if shared else "different operations",
                       "verdict": "yes" if shared else "no"})


class RuleServer:
    def __init__(self) -> None:
        self.calls = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                outer.calls += 1
                payload = json.dumps({
                    "id": "x", "object": "chat.completion", "created": 0, "model": body.get("model", "rule"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": answer(body)}}],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> RuleServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
