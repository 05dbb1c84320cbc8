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
    return hybrid_search_many(kb, [query], k=k, mode=mode)[0]


def hybrid_search_many(kb, queries: list[str], k: int = 5, mode: str = "hybrid",
                       keyword_only: frozenset[int] = frozenset()) -> list[list[KnowledgeChunk]]:
    """Top-k chunks for each query. The queries share one embedding batch and
    one Chroma call, which is most of the cost of a search. Queries whose
    index is in `keyword_only` skip the dense side (their words matter, not
    their meaning: names and dates spelled out)."""
    cleaned = [q.strip() for q in queries]
    results: list[list[KnowledgeChunk]] = [[] for _ in queries]
    live = [i for i, q in enumerate(cleaned) if q]
    if not live or k <= 0:
        return results
    pool = max(20, 4 * k)
    dense_hits = None
    if mode in ("hybrid", "dense"):
        dense_live = [i for i in live if i not in keyword_only or mode == "dense"]
        found = dict(zip(dense_live, kb.vector.query_many([cleaned[i] for i in dense_live], pool)))
        dense_hits = [found.get(i) for i in live]
    if mode in ("hybrid", "keyword"):
        kb.ensure_keyword_index()

    texts: dict[str, str] = {}
    similarity_by_query: list[dict[str, float]] = []
    fused_by_query = []
    for position, index in enumerate(live):
        rankings: dict[str, list[str]] = {}
        similarity: dict[str, float] = {}
        if dense_hits is not None and dense_hits[position] is not None:
            hits = dense_hits[position]
            rankings["dense"] = [h.chunk_id for h in hits]
            for hit in hits:
                texts[hit.chunk_id] = hit.content
                similarity[hit.chunk_id] = hit.similarity
        if mode in ("hybrid", "keyword"):
            rankings["keyword"] = [chunk_id for chunk_id, _ in kb.keyword.search(cleaned[index], pool)]
        fused_by_query.append((rankings, reciprocal_rank_fusion(rankings)))
        similarity_by_query.append(similarity)

    committed = kb.chunk_rows(sorted({row[0] for _, fused in fused_by_query for row in fused}))
    selected = [[row for row in fused if row[0] in committed][:k] for _, fused in fused_by_query]
    missing = sorted({row[0] for rows in selected for row in rows if row[0] not in texts})
    if missing:
        texts.update({i: text for i, (text, _) in kb.vector.get(missing).items()})

    for position, index in enumerate(live):
        rankings, _ = fused_by_query[position]
        similarity = similarity_by_query[position]
        best_possible = len(rankings) / (RRF_K + 1)
        for chunk_id, score, ranks in selected[position]:
            row = committed[chunk_id]
            results[index].append(
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
