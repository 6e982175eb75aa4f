"""Build a judge by name: ``offline`` (the embedded default, all-mpnet-base-v2), ``local`` (the local LLM server) or ``api``."""

from __future__ import annotations

from typing import Any

from toolex.errors import InputError

JUDGES = ("offline", "local", "api")


def build_judge(kind: str, embedder: Any = None, mode: str = "per-candidate", progress: bool = True):
    """``offline`` needs ``embedder`` (a dense retriever); ``api`` reads TOOLEX_LLM_* settings."""
    from toolex.annotate.judges.base import Judge

    judge: Judge
    if kind == "offline":
        from toolex.annotate.judges.offline import OfflineSimilarityJudge

        if embedder is None:
            from toolex.retrieval import build_retriever

            embedder = build_retriever("dense:mpnet")
        judge = OfflineSimilarityJudge(embedder)
    elif kind in ("local", "api"):
        from toolex.annotate.judges.llm import LLMJudge
        from toolex.llm import LLMSettings

        settings = LLMSettings.local_from_env() if kind == "local" else LLMSettings.from_env()
        judge = LLMJudge(settings, mode=mode, progress=progress)
    else:
        raise InputError(None, f"unknown judge {kind!r}; choose one of {', '.join(JUDGES)}")
    return judge
