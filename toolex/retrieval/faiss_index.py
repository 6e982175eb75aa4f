"""Exact inner-product search with faiss (``IndexFlatIP``); moved to the GPU where faiss-gpu sees one."""

from __future__ import annotations

from typing import Any

import numpy as np


def gpu_count() -> int:
    """GPUs visible to faiss (0 with faiss-cpu)."""
    import faiss

    get = getattr(faiss, "get_num_gpus", None)
    try:
        return int(get()) if get else 0
    except Exception:  # pragma: no cover - driver errors
        return 0


class FlatIPIndex:
    """An exact maximum-inner-product index over float32 row vectors."""

    def __init__(self, vectors: np.ndarray, use_gpu: bool | None = None) -> None:
        import faiss

        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or not len(vectors):
            raise ValueError(f"expected a non-empty 2-d array of vectors, got shape {vectors.shape}")
        self.dim = int(vectors.shape[1])
        index: Any = faiss.IndexFlatIP(self.dim)
        want_gpu = gpu_count() > 0 if use_gpu is None else use_gpu
        self.on_gpu = False
        if want_gpu and hasattr(faiss,
                                "StandardGpuResources") and gpu_count() > 0:  # pragma: no cover - GPU only
            self._resources = faiss.StandardGpuResources()
            index = faiss.index_cpu_to_gpu(self._resources, 0, index)
            self.on_gpu = True
        index.add(vectors)
        self._index = index

    @property
    def size(self) -> int:
        return int(self._index.ntotal)

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``(scores, rows)`` of the top ``min(k, size)`` vectors for each query row, best first."""
        queries = np.ascontiguousarray(queries, dtype=np.float32)
        if queries.ndim != 2 or queries.shape[1] != self.dim:
            raise ValueError(f"query vectors must have shape (n, {self.dim}), got {queries.shape}")
        k = min(k, self.size)
        if not len(queries):
            return np.zeros((0, k), np.float32), np.zeros((0, k), np.int64)
        scores, rows = self._index.search(queries, k)
        return scores, rows
