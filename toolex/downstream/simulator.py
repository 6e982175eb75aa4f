"""The virtual API server: an LLM answers each call from the API's documentation, as StableToolBench's
virtual server does when the real RapidAPI endpoint is out of reach.

A call is ``POST /call`` with ``{"api": <tool id>, "arguments": {...}}`` on 127.0.0.1; the answer is always
``{"error": "...", "response": ...}``, never a crash and never a silent empty answer:

* an unknown API or invalid arguments (a required parameter missing, an unknown one, a wrong type) get the
  error the API would give, without asking the LLM;
* otherwise the configured LLM (``TOOLEX_LLM_SIMULATOR_*``) writes the response from the documentation, the
  example response (``template_response``) and the normalised arguments; the response cache keys it by
  (API, normalised arguments), so a replay is deterministic;
* an LLM that fails to answer gives an error naming the failure (and is asked again on the next run).

``python -m toolex.downstream.simulator --port 8090`` serves the StableToolBench pool until stopped.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from toolex.data import load_benchmark
from toolex.data.records import Tool
from toolex.downstream.functions import argument_error, normalise
from toolex.llm.client import LLMClient
from toolex.llm.settings import LLMSettings

PROMPT_VERSION = "simulator-v1"
SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["error", "response"], "additionalProperties": False,
    "properties": {"error": {"type": "string"}, "response": {"type": ["string", "object", "array"]}}}
_SYSTEM = (
    "You imitate a real web API. Given its documentation and the arguments of one call, answer with what "
    "the API would return, as JSON {\"error\": \"\", \"response\": ...}. The response must be plausible, "
    "specific to the arguments and shaped like the example response when one is given; never say that you "
    "are simulating. When the arguments cannot be served (a wrong value, nothing found), put the API's error "
    "message in \"error\" and an empty response.")


def call_messages(tool: Tool, arguments: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The simulator's prompt for one call (its documentation and normalised arguments)."""
    doc = dict(tool.documentation) if isinstance(tool.documentation, Mapping) else {"text": tool.text}
    example = doc.pop("template_response", None)
    shape = f"Example response shape:\n{json.dumps(example, ensure_ascii=False)[:800]}\n\n" if example else ""
    user = (f"API documentation:\n{json.dumps(doc, ensure_ascii=False, sort_keys=True)[:3000]}\n\n" + shape
            + f"Call arguments:\n{json.dumps(normalise(arguments), ensure_ascii=False, sort_keys=True)}")
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]


class ApiSimulator:
    """Answers calls to the APIs of ``tools`` with the LLM ``client`` (its cache makes replays exact)."""

    def __init__(self, tools: Mapping[str, Tool], client: LLMClient) -> None:
        self.tools, self.client = dict(tools), client

    def call(self, api: str, arguments: Any) -> dict[str, Any]:
        tool = self.tools.get(api)
        if tool is None:
            return {"error": f"no API {api!r} on this server", "response": ""}
        problem = argument_error(tool, arguments)
        if problem:
            return {"error": f"invalid request: {problem}", "response": ""}
        result = self.client.complete_json(call_messages(tool, arguments), SCHEMA, "simulator", name=api)
        if not result.ok:
            return {"error": f"the API simulator failed to answer ({result.error})", "response": ""}
        answer = dict(result.data)
        if not answer.get("error") and answer.get("response") in ("", None, {}, []):
            return {"error": "the API returned an empty response", "response": ""}
        return answer


class SimulatorServer:
    """``with SimulatorServer(simulator) as server:`` serves ``POST /call`` on 127.0.0.1 (``server.url``)."""

    def __init__(self, simulator: ApiSimulator, port: int = 0) -> None:
        outer = self
        self.simulator = simulator

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _send(self, status: int, payload: Any) -> None:
                data = json.dumps(payload, ensure_ascii=False).encode()
                with contextlib.suppress(OSError):
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)

            def do_GET(self) -> None:
                self._send(200, {"apis": len(outer.simulator.tools)})

            def do_POST(self) -> None:
                if self.path.rstrip("/") != "/call":
                    self._send(404, {"error": f"no route {self.path}", "response": ""})
                    return
                try:
                    body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                    api, arguments = body["api"], body.get("arguments", {})
                except (ValueError, KeyError, TypeError) as exc:
                    self._send(400, {"error": f"bad request: {exc}", "response": ""})
                    return
                try:
                    self._send(200, outer.simulator.call(str(api), arguments))
                except Exception as exc:  # noqa: BLE001 - an answer, never a dropped connection
                    self._send(500, {"error": f"simulator error: {type(exc).__name__}: {exc}",
                                     "response": ""})

        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self) -> SimulatorServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


class HttpApi:
    """The agent's side of the virtual server: one call is one ``POST /call``."""

    def __init__(self, url: str, timeout: float = 600.0) -> None:
        self.url, self.timeout = url.rstrip("/"), timeout

    def call(self, api: str, arguments: Any) -> dict[str, Any]:
        data = json.dumps({"api": api, "arguments": arguments}).encode()
        request = urllib.request.Request(f"{self.url}/call", data=data,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return dict(json.loads(response.read()))
        except urllib.error.HTTPError as exc:
            return dict(json.loads(exc.read() or b"{}")) or {"error": f"HTTP {exc.code}", "response": ""}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        allow_abbrev=False, description="serve the virtual StableToolBench APIs on 127.0.0.1")
    parser.add_argument("--port", type=int, default=8090)
    args = parser.parse_args(argv)
    benchmark = load_benchmark("stabletoolbench")
    client = LLMClient(LLMSettings.from_env().for_stage("simulator"))
    with SimulatorServer(ApiSimulator(benchmark.tools, client), args.port) as server:
        print(f"virtual APIs ({len(benchmark.tools)}) at {server.url}; Ctrl-C stops", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
