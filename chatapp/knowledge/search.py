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
    best: dict[str, int] = {}  # each id's best rank in any ranking: the first tie-break
    for name, ids in rankings.items():
        for position, item in enumerate(ids, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + position)
            if item in ranks:
                ranks[item][name] = position
                best[item] = min(best[item], position)
            else:
                ranks[item] = {name: position}
                best[item] = position
    order = sorted(scores, key=lambda i: (-scores[i], best[i], i))
    return [(i, scores[i], ranks[i]) for i in order]


def _first_committed(kb, fused_lists: list[list[tuple]], k: int) -> tuple[dict[str, dict], list[list[tuple]]]:
    """The first k rows of each fused list whose chunk belongs to a committed
    document, and those chunks' document fields. Only the heads of the lists
    are looked up, deeper only when a head holds uncommitted chunks."""
    committed: dict[str, dict] = {}
    checked: set[str] = set()
    depth = k
    while True:
        wanted = {row[0] for fused in fused_lists for row in fused[:depth]} - checked
        if wanted:
            committed.update(kb.chunk_rows(sorted(wanted)))
            checked |= wanted
        selected = [[row for row in fused[:depth] if row[0] in committed][:k] for fused in fused_lists]
        if all(len(rows) >= k or depth >= len(fused) for rows, fused in zip(selected, fused_lists)):
            return committed, selected
        depth *= 2


def hybrid_search(kb, query: str, k: int = 5, mode: str = "hybrid") -> list[KnowledgeChunk]:
    """Top-k chunks for `query`. `mode` is hybrid, dense or keyword (benchmarks compare them)."""
    return hybrid_search_many(kb, [query], k=k, mode=mode)[0]


def hybrid_search_many(kb, queries: list[str], k: int = 5, mode: str = "hybrid",
                       keyword_only: frozenset[int] = frozenset()) -> list[list[KnowledgeChunk]]:
    """Top-k chunks for each query. The queries share one embedding batch and
    one Chroma call, which is most of the cost of a search, and one BM25
    pass. Queries whose index is in `keyword_only` skip the dense side (their
    words matter, not their meaning: names and dates spelled out). Chunk texts
    come from the keyword index's store (Chroma only for ids it lacks), and
    only for the chunks returned."""
    cleaned = [q.strip() for q in queries]
    results: list[list[KnowledgeChunk]] = [[] for _ in queries]
    live = [i for i, q in enumerate(cleaned) if q]
    if not live or k <= 0:
        return results
    pool = max(20, 4 * k)
    dense_hits: list[list[tuple[str, float]] | None] = [None] * len(live)
    if mode in ("hybrid", "dense"):
        dense_live = [p for p, i in enumerate(live) if i not in keyword_only or mode == "dense"]
        for position, hits in zip(dense_live, kb.vector.nearest_many([cleaned[live[p]] for p in dense_live], pool)):
            dense_hits[position] = hits
    keyword_hits: list[list[tuple[str, float]] | None] = [None] * len(live)
    if mode in ("hybrid", "keyword"):
        kb.ensure_keyword_index()
        keyword_hits = kb.keyword.search_many([cleaned[i] for i in live], pool)

    similarity_by_query: list[dict[str, float]] = []
    fused_by_query = []
    for position in range(len(live)):
        rankings: dict[str, list[str]] = {}
        similarity: dict[str, float] = {}
        if dense_hits[position] is not None:
            rankings["dense"] = [chunk_id for chunk_id, _ in dense_hits[position]]
            similarity = dict(dense_hits[position])
        if keyword_hits[position] is not None:
            rankings["keyword"] = [chunk_id for chunk_id, _ in keyword_hits[position]]
        fused_by_query.append((rankings, reciprocal_rank_fusion(rankings)))
        similarity_by_query.append(similarity)

    committed, selected = _first_committed(kb, [fused for _, fused in fused_by_query], k)
    texts = kb.chunk_texts(sorted({row[0] for rows in selected for row in rows}))

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
