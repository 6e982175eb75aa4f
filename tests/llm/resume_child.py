"""Child process of test_resume: answers N verdict requests through map_json, then prints the ledger."""

from __future__ import annotations

import json
import sys

from toolex.llm import LLMClient, LLMRequest, LLMSettings, ResponseCache

SCHEMA = {"type": "object", "required": ["verdict"], "properties": {"verdict": {"enum": ["yes", "no"]}}}


def main(base_url: str, cache_root: str, n: int) -> None:
    settings = LLMSettings(base_url=base_url, model="fake-model", concurrency=1, backoff=0.01, timeout=60)
    client = LLMClient(settings, cache=ResponseCache(cache_root))
    reqs = [LLMRequest([{"role": "user", "content": f"query {i}"}], SCHEMA) for i in range(n)]
    results = client.map_json(reqs, stage="verify", progress=False)
    print(json.dumps({"ok": sum(r.ok for r in results), "ledger": client.ledger.to_dict()["total"]}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
