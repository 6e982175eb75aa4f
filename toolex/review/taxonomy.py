"""The failure taxonomy of the paper's human validation (Appendix B): one bucket per invalid combination."""

from __future__ import annotations

DECOMPOSITION = "decomposition_ambiguity"
NEAR_SYNONYM = "near_synonym"
INCOMPLETE = "incomplete_coverage"
CROSS_PLATFORM = "cross_platform_mismatch"
OTHER = "other"

#: bucket -> label, in the order reviewers see them (the quick-entry keys i1 … i5 follow this order)
BUCKETS: dict[str, str] = {
    DECOMPOSITION: "decomposition ambiguity",
    NEAR_SYNONYM: "near-synonym but non-substitutable tools",
    INCOMPLETE: "incomplete functional coverage",
    CROSS_PLATFORM: "cross-platform dependency mismatch",
    OTHER: "other (say why in the note)",
}

#: the bucket of a final decision when both reviewers rejected with different buckets and nobody adjudicated
UNRESOLVED = "unresolved"


def check_bucket(bucket: str | None, valid: bool) -> str:
    """The stored bucket of a decision: empty for a valid one, one of :data:`BUCKETS` for an invalid one."""
    if valid:
        return ""
    if bucket not in BUCKETS:
        raise ValueError(f"an invalid combination needs a failure bucket, one of {', '.join(BUCKETS)}; "
                         f"got {bucket!r}")
    return bucket
