"""Child process of the suite: one ToolEX run of the tiny benchmark; prints the ledger total as JSON.

``python child.py DATA_DIR OUT BASE_URL CACHE_ROOT``; a toolex error prints one line and exits 2.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.reliability.tiny import pipeline
from toolex.errors import ToolexError


def main(data_dir: str, out: str, base_url: str, cache_root: str) -> int:
    try:
        run = pipeline(Path(data_dir), Path(out), base_url, Path(cache_root), refuse_other=True)
        run.run()
    except ToolexError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(run.judge.usage()["total"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
