"""Vector search of the examples: embeddings from the OpenAI-compatible server, exact cosine."""

from __future__ import annotations

import json
import logging

import numpy as np
from langchain_core.embeddings import Embeddings

from config import Settings
from react_agent.memory.examples import ExampleStore, MemoryItem
from react_agent.memory.retrieval.ranking import document_text

logger = logging.getLogger(__name__)

MIN_SIMILARITY = 0.3
"""Cosine similarity below which a neighbour is not similar enough to show."""
EMBED_BATCH = 256


def build_embedder(settings: Settings) -> Embeddings | None:
    """Return OpenAIEmbeddings on the chat model's server when EMBEDDING_MODEL is set."""
    if not settings.embedding_model:
        return None
    from langchain_openai import OpenAIEmbeddings

    return OpenAIEmbeddings(
        model=settings.embedding_model,
        base_url=settings.openai_base_url,
        api_key=settings.openai_api_key,
        timeout=settings.llm_timeout,
        max_retries=settings.llm_max_retries,
        # Token-id inputs are an OpenAI-only feature; other servers want the text.
        check_embedding_ctx_length=False,
    )


class VectorIndex:
    """Exact cosine search over the items' unit vectors (one matrix product per query).

    The matrix is built once per revision of the items (with the lexical index, in a
    thread); a search is one matrix-vector product and a partial sort, a read of the whole
    matrix: at 10,000 examples about 0.1 ms at 64 dimensions (the stub's), and at 1,536
    (61 MB of float32 read per question) about 10 ms on the shared 2-core machine, memory
    bandwidth bound; such a scan runs in a thread, as NumPy lets go of the GIL
    (bench/memory/retrieval.py, README "Feedback and memory"). No approximate
    index: this Python's sqlite3 cannot load extensions (no sqlite-vec), pgvector is not
    installed in the PostgreSQL here, and sqlite-vec 0.1's vec0 is itself an exact
    brute-force scan. An ANN index (HNSW) would pay well past 100,000 examples, where a
    scan at 1,536 dimensions reads over 600 MB (around 100 ms) per question.
    """

    def __init__(self, items: list[MemoryItem]) -> None:
        with_vectors = [item for item in items if item.embedding]
        self.items = with_vectors
        # float32: half the memory and half the bytes each query reads, as precise as needed.
        matrix = np.array(
            [json.loads(item.embedding or "[]") for item in with_vectors], dtype=np.float32
        )
        norms = np.linalg.norm(matrix, axis=1, keepdims=True) if len(matrix) else None
        self._matrix = matrix / np.where(norms == 0, 1, norms) if norms is not None else None

    @property
    def size(self) -> int:
        """How many floats a search reads (items × dimensions)."""
        return 0 if self._matrix is None else int(self._matrix.size)

    def search(self, vector: list[float], limit: int) -> list[tuple[MemoryItem, float]]:
        """Return up to `limit` items at least MIN_SIMILARITY alike, most similar first."""
        if self._matrix is None or limit <= 0 or len(vector) != self._matrix.shape[1]:
            return []
        query = np.array(vector, dtype=np.float32)
        query /= np.linalg.norm(query) or 1
        similarities = self._matrix @ query
        return [
            (self.items[i], float(similarities[i]))
            for i in _best_first(similarities, limit)
            if similarities[i] >= MIN_SIMILARITY
        ]


def _best_first(values: np.ndarray, limit: int) -> np.ndarray:
    """Return the positions of the `limit` largest values, largest first, ties by position.

    The same positions as a stable sort of the whole array, without sorting all of it.
    """
    if limit >= len(values):
        return np.argsort(-values, kind="stable")
    kth = -np.partition(-values, limit - 1)[limit - 1]
    contenders = np.flatnonzero(values >= kth)  # every tie at the cut, in position order
    return contenders[np.argsort(-values[contenders], kind="stable")][:limit]


async def embed_missing(
    items: list[MemoryItem], embedder: Embeddings, store: ExampleStore
) -> list[MemoryItem]:
    """Embed the items that have no embedding yet, store those, and return all items."""
    missing = [item for item in items if not item.embedding]
    done: dict[str, MemoryItem] = {}
    for start in range(0, len(missing), EMBED_BATCH):
        batch = missing[start : start + EMBED_BATCH]
        vectors = await embedder.aembed_documents([document_text(item) for item in batch])
        for item, vector in zip(batch, vectors, strict=True):
            embedding = json.dumps(vector)
            await store.set_embedding(item, embedding)
            done[item.id] = MemoryItem(**{**item.__dict__, "embedding": embedding})
    return [done.get(item.id, item) for item in items]
