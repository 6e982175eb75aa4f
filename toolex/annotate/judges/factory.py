"""Build a judge by name: ``offline`` (the embedded default: the calibrated all-mpnet-base-v2 score),
``local`` (the local LLM server), ``api`` (TOOLEX_LLM_*) or ``cascade`` (offline, asking an LLM where it is
unsure)."""

from __future__ import annotations

from typing import Any

from toolex.annotate.judges.base import Judge
from toolex.annotate.judges.cascade import CascadeJudge
from toolex.annotate.judges.llm import LLMJudge
from toolex.annotate.judges.offline import OfflineSimilarityJudge, RetrieverEncoder
from toolex.annotate.judges.scoring import ScoreModel, default_model
from toolex.errors import InputError
from toolex.llm import LLMSettings
from toolex.llm.client import LLMConfigError
from toolex.retrieval import build_retriever
from toolex.retrieval.base import Embedder

JUDGES = ("offline", "local", "api", "cascade")
#: Where the cascade's LLM comes from: TOOLEX_CASCADE_LLM=local|api (default local).
CASCADE_LLM_ENV = "TOOLEX_CASCADE_LLM"


def judge_encoder_spec(model: Any = None) -> str:
    """The retriever spec of the encoder the offline score model was calibrated with (``dense:mpnet``)."""

    return f"dense:{(model or default_model()).encoder}"


def offline_judge(embedder: Any = None, model: Any = None):
    """The offline judge; ``embedder`` is used only when it runs the score model's own encoder."""

    model = model or default_model()
    if not isinstance(embedder, Embedder) or RetrieverEncoder(embedder).short != model.encoder:
        embedder = build_retriever(judge_encoder_spec(model))
    return OfflineSimilarityJudge(embedder, model)


def llm_judge(kind: str, mode: str = "per-candidate", progress: bool = True):
    settings = LLMSettings.local_from_env() if kind == "local" else LLMSettings.from_env()
    return LLMJudge(settings, mode=mode, progress=progress)


def cascade_judge(embedder: Any = None, mode: str = "per-candidate", progress: bool = True,
                  budget: int | None = None, llm_kind: str | None = None):
    """The cascade; its LLM (``llm_kind`` or TOOLEX_CASCADE_LLM, default ``local``) is health-checked here,
    and an unreachable or unconfigured one leaves the embedding judge alone (said on stderr and in the
    manifest)."""
    import os

    kind = llm_kind or os.environ.get(CASCADE_LLM_ENV, "local").strip() or "local"
    if kind not in ("local", "api"):
        raise InputError(None, f"{CASCADE_LLM_ENV}={kind!r}: choose local or api")
    offline = offline_judge(embedder)
    try:
        llm = llm_judge(kind, mode, progress)
        llm.clients["verify"].health_check()
    except LLMConfigError as exc:
        return CascadeJudge(offline, None, budget, unavailable=str(exc))
    return CascadeJudge(offline, llm, budget)


def build_judge(kind: str, embedder: Any = None, mode: str = "per-candidate", progress: bool = True,
                budget: int | None = None, model_file: str | None = None):
    """``offline`` and ``cascade`` use ``embedder`` when it is the score model's encoder; ``api`` reads
    TOOLEX_LLM_* settings; ``budget`` caps the cascade's LLM verdicts; ``model_file``: the offline judge's
    score model (``toolex calibrate --labels`` writes one), default the packaged one."""

    if model_file and kind != "offline":
        raise InputError(None, f"--judge-model applies to the offline judge, not to {kind!r}")
    judge: Judge
    if kind == "offline":
        judge = offline_judge(embedder, ScoreModel.load(model_file) if model_file else None)
    elif kind in ("local", "api"):
        judge = llm_judge(kind, mode, progress)
    elif kind == "cascade":
        judge = cascade_judge(embedder, mode, progress, budget)
    else:
        raise InputError(None, f"unknown judge {kind!r}; choose one of {', '.join(JUDGES)}")
    return judge
