"""Hybrid search: dense (Chroma) and keyword (BM25) rankings fused with
reciprocal rank fusion, joined with SQLite so that only chunks of committed
documents come back."""

from __future__ import annotations

from chatapp.records import KnowledgeChunk

# The usual RRF constant: damps the weight of top ranks so that neither
# ranking dominates the fused order.
RRF_K = 60


def reciprocal_rank_fusion(rankings: dict[str, list[str]], k: int = RRF_K) -> list[tuple[str, float, dict[str, int]]]:
    """Fuse named rankings of ids; returns (id, fused score, {ranking: rank}) best first."""
    scores: dict[str, float] = {}
    ranks: dict[str, dict[str, int]] = {}
    for name, ids in rankings.items():
        for position, item in enumerate(ids, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + position)
            ranks.setdefault(item, {})[name] = position
    order = sorted(scores, key=lambda i: (-scores[i], min(ranks[i].values()), i))
    return [(i, scores[i], ranks[i]) for i in order]


def hybrid_search(kb, query: str, k: int = 5, mode: str = "hybrid") -> list[KnowledgeChunk]:
    """Top-k chunks for `query`. `mode` is hybrid, dense or keyword (benchmarks compare them)."""
    query = query.strip()
    if not query or k <= 0:
        return []
    pool = max(20, 4 * k)
    rankings: dict[str, list[str]] = {}
    texts: dict[str, str] = {}
    similarity: dict[str, float] = {}
    if mode in ("hybrid", "dense"):
        hits = kb.vector.query(query, pool)
        rankings["dense"] = [h.chunk_id for h in hits]
        for hit in hits:
            texts[hit.chunk_id] = hit.content
            similarity[hit.chunk_id] = hit.similarity
    if mode in ("hybrid", "keyword"):
        kb.ensure_keyword_index()
        rankings["keyword"] = [chunk_id for chunk_id, _ in kb.keyword.search(query, pool)]

    fused = reciprocal_rank_fusion(rankings)
    committed = kb.chunk_rows([chunk_id for chunk_id, _, _ in fused])
    fused = [row for row in fused if row[0] in committed][:k]
    missing = [chunk_id for chunk_id, _, _ in fused if chunk_id not in texts]
    if missing:
        texts.update({i: text for i, (text, _) in kb.vector.get(missing).items()})

    best_possible = len(rankings) / (RRF_K + 1)
    results = []
    for chunk_id, score, ranks in fused:
        row = committed[chunk_id]
        results.append(
            KnowledgeChunk(
                chunk_id=chunk_id,
                source=row["path"],
                relevance=round(score / best_possible, 4),
                content=texts.get(chunk_id, ""),
                title=row["title"] or "",
                document_id=row["document_id"],
                date=row["doc_date"],
                ranks=ranks,
                similarity=round(similarity[chunk_id], 4) if chunk_id in similarity else None,
            )
        )
    return results
