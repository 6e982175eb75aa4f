"""What decides an annotation run's outputs, read from the objects' own settings, and its keys.

Every key that decides whether annotation work can be reused comes from here, hashed by :mod:`toolex.keys`:
the pipeline's per-stage keys (:func:`stage_key`) and the folder keys of cached annotations
(:func:`annotation_key` over :func:`judge_identity` or :func:`offline_identity`). A key is built from what
decides a stage's output, read from the built judge and the config, never from environment variables, and
leaves out what does not (time-outs, retries, concurrency, prices, whether an API key is set; never a secret):

* a judge with ``stage_settings(stage)`` (the LLM judge) gives each stage's model, endpoint, sampling, prompt
  version, context and tokenizer; the stage's client settings add the response format and extra request body;
* any other judge gives ``describe()`` without :data:`VOLATILE` fields, split by stage where the fields say
  which stage they serve (:data:`STAGE_FIELDS`: the offline judge's score model decides Stage 2 only);
* the config contributes the fields of its stage (:data:`STAGE_CONFIG`; a field not listed goes to every
  stage after Stage 1), and :data:`STAGE_VERSIONS` the version of the stage's own code.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, is_dataclass
from typing import Any

from toolex import keys
from toolex.annotate.prompts import PROMPT_VERSION
from toolex.llm.settings import STAGES

#: Bumped when a stage's own code changes what it writes for the same inputs (audit 2: combinations that
#: reuse a tool outside C*'s own reuse, or repeat a better-ranked set of tools, are no longer emitted).
STAGE_VERSIONS = {"decompose": 1, "verify": 1, "audit": 2}

#: A prompt version (``<stage>-v<revision>[-<dependency>]-<hash>``) with today's 12-character hash.
FORMER_PROMPT_VERSION = re.compile(r"^([a-z]+-v\d+(?:-[a-z-]+)?)-([0-9a-f]{12})$")

#: Config fields by the stage they decide (the data fingerprint holds the pool's tools already:
#: :func:`toolex.data.registry.pool_identity`).
STAGE_CONFIG: dict[str, tuple[str, ...]] = {
    "decompose": (),
    "verify": ("retriever", "pool", "top_k", "reference_k"),
    "audit": ("max_combinations", "rrf_k"),
}

#: Fields of ``describe()`` that do not decide any output.
VOLATILE = frozenset({"calibrated_on", "ledger", "usage", "timings"})

#: Fields of an LLM's settings that do not decide its answers (an API key is never a field).
LLM_VOLATILE = frozenset({"timeout", "max_retries", "malformed_retries", "backoff", "concurrency", "offline",
                          "price_prompt", "price_completion", "api_key_set", "stage", "stages"})

#: ``describe()`` fields that decide only some stages; any other field decides every stage.
STAGE_FIELDS: dict[str, tuple[str, ...]] = {
    "decomposer": ("decompose",),
    "method": ("verify",),
    "score_model": ("verify",),
    "mode": ("verify",),
    "audit": ("audit",),
    "audit_dependency": ("audit",),
    "encoder": ("decompose", "verify"),
}


def _llm_public(settings: Any) -> dict[str, Any]:
    public = settings.public_dict() if hasattr(settings, "public_dict") else dict(settings)
    return {k: v for k, v in public.items() if k not in LLM_VOLATILE}


def judge_stage_settings(judge: Any, stage: str) -> dict[str, Any]:
    """What decides one stage's output of a built judge (see the module docstring)."""
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; stages are {STAGES}")
    per_stage = getattr(judge, "stage_settings", None)
    if callable(per_stage):
        out: dict[str, Any] = {}
        client = (getattr(judge, "clients", None) or {}).get(stage)
        if client is not None and getattr(client, "settings", None) is not None:
            out.update(_llm_public(client.settings))
        out.update(per_stage(stage))
        return out

    out = {"prompt_version": PROMPT_VERSION}
    for field, value in judge.describe().items():
        if field in VOLATILE or stage not in STAGE_FIELDS.get(field, STAGES):
            continue
        out[field] = _llm_public(value) if field == "llm" and isinstance(value, Mapping) else value
    return out


def judge_identity(judge: Any) -> dict[str, dict[str, Any]]:
    """Every stage's :func:`judge_stage_settings`: the judge part of an annotation folder's key."""
    return {stage: judge_stage_settings(judge, stage) for stage in STAGES}


def offline_identity(score_model: Any, encoder: str) -> dict[str, Any]:
    """The offline judge's identity without loading its encoder: the score model's identity and the encoder
    spec it is built from (the retriever spec of the run)."""
    return {"kind": "offline", "score_model": score_model.identity(), "encoder": encoder}


#: Config fields added after keys were first released, with the value that reproduces the earlier outputs: at
#: that value a field is left out of every key, so the keys of earlier runs and releases still hold.
LATER_FIELDS: dict[str, Any] = {"reference_k": 0}


def config_fields(config: Any) -> dict[str, Any]:
    """A config's fields that decide outputs: a dataclass instance's, else its attributes, without a
    :data:`LATER_FIELDS` field at its earlier value."""
    fields = asdict(config) if is_dataclass(config) and not isinstance(config, type) else dict(vars(config))
    return {k: v for k, v in fields.items() if not (k in LATER_FIELDS and v == LATER_FIELDS[k])}


def config_part(config: Any, stage: str) -> dict[str, Any]:
    """The config fields that decide ``stage``."""
    fields = config_fields(config)
    if stage == "decompose":
        return {}
    listed = {f for names in STAGE_CONFIG.values() for f in names}
    return {k: v for k, v in fields.items() if k in STAGE_CONFIG[stage] or k not in listed}


def former_settings(value: Any) -> Any:
    """``value`` with every prompt version's hash cut to the 8 characters it had before content keys had one
    length (the same hash, so the keys of that time are found again from it)."""
    if isinstance(value, str):
        match = FORMER_PROMPT_VERSION.match(value)
        return f"{match[1]}-{match[2][:8]}" if match else value
    if isinstance(value, Mapping):
        return {k: former_settings(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [former_settings(v) for v in value]
    return value


def stage_key(data_fingerprint: str, judge: Any, stage: str, config: Any, former: bool = False) -> str:
    """The pipeline's key of one stage: data, the judge's settings for that stage, the config fields of that
    stage and the stage's code version. Earlier stages are not part of it: the pipeline redoes every stage
    after a recomputed one and checks each stage's input digest. ``former``: with the prompt versions
    written as before content keys had one length (:func:`former_settings`)."""
    settings = judge_stage_settings(judge, stage)
    return keys.key(data_fingerprint, stage, STAGE_VERSIONS[stage], former_settings(settings) if former
                    else settings, config_part(config, stage))


def annotation_key(query_key: Any, identity: Mapping[str, Any], config: Any, version: str) -> str:
    """The key of a cached annotation folder: queries, the judge's identity, the whole config, the stages'
    code versions and the package version."""
    fields = config_fields(config)
    return keys.key(query_key, dict(identity), fields, STAGE_VERSIONS, version)
