"""Stage 4, retrieval: from the corrected question and its resolved entities
to a ranked handful of knowledge chunks that fit the RAG budget.

Several queries go to the hybrid search (the question as typed, the question
with names and dates spelled out, and its key terms alone), their hits are
merged, weak ones dropped, and the rest re-ranked: fused search relevance,
plus a boost for recent documents, for chunks that name the resolved
entities, and for documents dated on a day the question refers to.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Callable

from chatapp.preprocess.context import DATE_TYPES, date_value
from chatapp.preprocess.reference_data import fence_chunk
from chatapp.records import KnowledgeChunk, ResolvedEntity

CountTokens = Callable[[str], int]

# A 100,000-character paste is not a search query: its opening is.
MAX_QUERY_CHARS = 2000

_QUESTION_FILLER = frozenset(
    """a an and are as at be but by can could did do does for from had has have how i if in into is it
    its me my of on or our please pls so that the their them then there these they this to up us was we
    were what when where which who why will with would you your help find show tell give get look
    looking need want know about any some""".split()
)


@dataclass
class RetrievalSettings:
    k: int = 6
    min_similarity: float = 0.2
    recency_bias: float = 1.0  # 0 turns the recency boost off; 2 halves its 30-day scale
    entity_boost: float = 0.15
    pool: int = 20
    # How much a brand-new document gains over a very old one.
    recency_weight: float = 0.1
    # A document dated on a day the question names ("from yesterday"). Such a
    # document also skips the similarity floor: "John's email from yesterday"
    # is about who and when, which no embedding of the question captures.
    date_boost: float = 0.3
    # Keyword-only hits (the dense side never scored them) survive at this rank or better:
    # exact ids and codes are what embeddings miss.
    strong_keyword_rank: int = 3
    # A short document cut in a few chunks (a mail, a page of notes) comes whole with each of its hits: the
    # budget it states in one chunk and the deadline in the next are one message. They come on top of the k
    # hits, which all stay, up to as many again.
    siblings: bool = True
    short_document_chunks: int = 3


# --- queries -------------------------------------------------------------------


def _parse_day(text: str) -> date | None:
    match = re.search(r"\d{4}-\d{2}-\d{2}", text or "")
    if not match:
        return None
    try:
        return date.fromisoformat(match.group(0))
    except ValueError:
        return None


def resolved_days(resolved: list[ResolvedEntity]) -> list[tuple[date, date]]:
    """The (first, last) day of each temporal mention stage 2 resolved."""
    ranges = []
    for entity in resolved or []:
        if (entity.entity_type or "").lower() not in DATE_TYPES:
            continue
        value = date_value(entity)
        days = [d for d in (_parse_day(part) for part in re.split(r" to |\.\.", value)) if d]
        if days:
            ranges.append((min(days), max(days)))
    return ranges


def _spelled(day: date) -> str:
    # Emails and notes write dates out ("Thu, 26 Nov 2026"); match that form too.
    return f"{day.day} {day.strftime('%b')} {day.year}"


def _key_terms(text: str) -> list[str]:
    words = re.findall(r"[\w@.'-]+", text)
    seen: dict[str, None] = {}
    for word in words:
        word = re.sub(r"'s$|’s$", "", word.strip(".'-"))
        if word and word.casefold() not in _QUESTION_FILLER:
            seen.setdefault(word, None)
    return list(seen)


def form_queries(corrected_input: str, resolved: list[ResolvedEntity]) -> list[str]:
    """The search queries for one question, most literal first, no duplicates."""
    raw = corrected_input[:MAX_QUERY_CHARS]
    question = " ".join(raw.split())
    if not question:
        return []
    expanded = raw
    # Replace mentions right to left so the spans of earlier ones stay valid.
    for entity in sorted(resolved or [], key=lambda e: tuple(e.span or (-1, -1)), reverse=True):
        kind = (entity.entity_type or "").lower()
        if kind in DATE_TYPES:
            days = resolved_days([entity])
            replacement = _spelled(days[0][0]) if days else ""
        else:
            replacement = entity.canonical_name if entity.entity_id else ""
        if not replacement or not entity.surface:
            continue
        start, end = tuple(entity.span or (-1, -1))
        if expanded[start:end] != entity.surface or start < 0:
            start = expanded.find(entity.surface)
            end = start + len(entity.surface)
        if start >= 0:
            expanded = expanded[:start] + replacement + expanded[end:]
    expanded = " ".join(expanded.split())
    key_terms = _key_terms(expanded)
    for first, _ in resolved_days(resolved):
        key_terms.append(first.isoformat())
    queries = [question, expanded, " ".join(key_terms)]
    return [q for q in dict.fromkeys(q.strip() for q in queries) if q]


# --- scoring -------------------------------------------------------------------


def _term_pattern(terms: list[str]) -> re.Pattern | None:
    terms = sorted({t.strip() for t in terms if len(t.strip()) >= 2}, key=len, reverse=True)
    if not terms:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(t) for t in terms) + r")(?!\w)", re.IGNORECASE)


class EntityMatcher:
    """How strongly a chunk names each resolved entity: its canonical name or
    email counts fully, an alias ("John" is also John Doe's first name) less,
    any other attribute value (a department, a city) least."""

    STRENGTHS = (1.0, 0.6, 0.3)

    def __init__(self, resolved: list[ResolvedEntity], registry=None):
        self.entities: list[list[re.Pattern | None]] = []
        # "the email" resolved to a document: its own chunks match fully.
        self.documents: list[str] = []
        seen: set[str] = set()
        for entity in resolved or []:
            kind = (entity.entity_type or "").lower()
            if not entity.entity_id or kind in DATE_TYPES or entity.entity_id in seen:
                continue  # an entity named twice is still one entity (a long paste names some hundreds of times)
            seen.add(entity.entity_id)
            if kind == "document" or entity.entity_id.startswith("doc:"):
                self.documents.append(str((entity.attributes or {}).get("document_id") or entity.entity_id[4:]))
                continue
            record = None
            if registry is not None:
                try:
                    record = registry.get(entity.entity_id)
                except Exception:
                    record = None
            name = record.name if record else entity.canonical_name
            aliases = list(record.aliases) if record else []
            attributes = dict(record.attributes if record else entity.attributes or {})
            values = [str(v) for v in attributes.values() if isinstance(v, str) and not re.match(r"^[a-z]+:", v)]
            exact = [name] + [v for v in values if "@" in v]
            loose = [v for v in values if "@" not in v and len(v) >= 4]
            self.entities.append([_term_pattern(exact), _term_pattern(aliases), _term_pattern(loose)])

    def score(self, chunk: KnowledgeChunk) -> float:
        """Mean over resolved entities of the best match strength, 0..1."""
        count = len(self.entities) + len(self.documents)
        if not count:
            return 0.0
        text = f"{chunk.title}\n{chunk.content}"
        total = float(sum(1 for document_id in self.documents if document_id == chunk.document_id))
        for patterns in self.entities:
            for strength, pattern in zip(self.STRENGTHS, patterns):
                if pattern is not None and pattern.search(text):
                    total += strength
                    break
        return total / count


def _document_day(chunk: KnowledgeChunk) -> date | None:
    if not chunk.date:
        return None
    try:
        # The document's own calendar day, in the timezone it was written in.
        return datetime.fromisoformat(chunk.date).date()
    except ValueError:
        return _parse_day(chunk.date)


def recency(chunk: KnowledgeChunk, now: datetime, bias: float) -> float:
    """exp(-age_days/30 × bias): 1.0 for today, 0.37 a month ago at bias 1; 0 when undated."""
    day = _document_day(chunk)
    if day is None:
        return 0.0
    age_days = max(0, (now.date() - day).days)
    return math.exp(-age_days / 30.0 * max(0.0, bias))


# --- the stage -------------------------------------------------------------------


@dataclass
class _Hit:
    chunk: KnowledgeChunk
    relevance: float
    similarity: float | None
    keyword_rank: int | None


def _gather(kb, queries: list[str], pool: int) -> dict[str, _Hit]:
    hits: dict[str, _Hit] = {}
    # The question itself is searched by meaning and by words; its expanded
    # forms (names, dates, key terms spelled out) only by words, which is where
    # they help — and it keeps retrieval to one query embedding.
    expanded = frozenset(range(1, len(queries)))
    batched = kb.search_many(queries, k=pool, keyword_only=expanded)
    for found in batched:
        for chunk in found:
            hit = hits.get(chunk.chunk_id)
            keyword_rank = chunk.ranks.get("keyword")
            if hit is None:
                hits[chunk.chunk_id] = _Hit(chunk, chunk.relevance, chunk.similarity, keyword_rank)
                continue
            hit.relevance = max(hit.relevance, chunk.relevance)
            if chunk.similarity is not None:
                hit.similarity = max(hit.similarity or 0.0, chunk.similarity)
            if keyword_rank is not None:
                hit.keyword_rank = min(hit.keyword_rank or keyword_rank, keyword_rank)
    return hits


def retrieve(
    kb,
    corrected_input: str,
    resolved: list[ResolvedEntity],
    now: datetime,
    settings: RetrievalSettings | None = None,
    budget_tokens: int | None = None,
    count_tokens: CountTokens | None = None,
) -> list[KnowledgeChunk]:
    """The best chunks for a question, best first, at most `settings.k` and,
    with `budget_tokens`, only whole chunks whose fenced text fits in it.
    Each chunk's relevance is its final score; its provenance is kept."""
    settings = settings or RetrievalSettings()
    queries = form_queries(corrected_input, resolved)
    if not queries or settings.k <= 0:
        return []
    hits = _gather(kb, queries, max(settings.pool, settings.k))

    matcher = EntityMatcher(resolved, getattr(kb, "registry", None))
    days = resolved_days(resolved)
    scored: list[tuple[float, float, str, KnowledgeChunk]] = []
    for chunk_id, hit in hits.items():
        chunk = hit.chunk
        day = _document_day(chunk)
        on_named_day = day is not None and any(first <= day <= last for first, last in days)
        similar = hit.similarity is not None and hit.similarity >= settings.min_similarity
        strong_keyword = hit.keyword_rank is not None and hit.keyword_rank <= settings.strong_keyword_rank
        if not (similar or strong_keyword or on_named_day):
            continue
        score = hit.relevance
        score += settings.recency_weight * recency(chunk, now, settings.recency_bias)
        score += settings.entity_boost * matcher.score(chunk)
        score += settings.date_boost if on_named_day else 0.0
        final = replace(chunk, relevance=round(score, 4), similarity=hit.similarity)
        scored.append((-score, -hit.relevance, chunk_id, final))
    scored.sort(key=lambda row: row[:3])
    ranked = [row[3] for row in scored]

    if budget_tokens is None:
        return _with_siblings(kb, ranked[: settings.k], settings)
    from chatapp.token_count import token_counter

    count_tokens = count_tokens or token_counter(None)
    selected, used = [], 0
    for chunk in ranked:
        if len(selected) >= settings.k:
            break
        cost = count_tokens(fence_chunk(chunk)) + 1
        if used + cost <= budget_tokens:  # whole chunks only; a smaller later one may still fit
            selected.append(chunk)
            used += cost
    # Siblings only where they fit too, whole, after what was selected.
    fitting = []
    for chunk in _with_siblings(kb, selected, settings):
        cost = 0 if chunk in selected else count_tokens(fence_chunk(chunk)) + 1
        if used + cost <= budget_tokens:
            fitting.append(chunk)
            used += cost
    return fitting


def _with_siblings(kb, ranked: list[KnowledgeChunk], settings: RetrievalSettings) -> list[KnowledgeChunk]:
    """`ranked`, each chunk followed by the other chunks of its document where that document is short
    (`short_document_chunks` chunks or fewer), up to len(ranked) of them in all. A sibling ranks as the
    chunk it came with (so relevance still falls down the list); no chunk of `ranked` is dropped."""
    if not settings.siblings or not ranked or not hasattr(kb, "short_document_chunks"):
        return ranked
    documents = kb.short_document_chunks(sorted({c.document_id for c in ranked if c.document_id}),
                                         settings.short_document_chunks)
    listed = {c.chunk_id for c in ranked}
    wanted = [i for c in ranked for i in documents.get(c.document_id, ()) if i not in listed]
    texts = kb.chunk_texts(list(dict.fromkeys(wanted))) if wanted else {}
    out: list[KnowledgeChunk] = []
    placed: set[str] = set()
    room = len(ranked)
    for chunk in ranked:
        if chunk.chunk_id in placed:
            continue
        out.append(chunk)
        placed.add(chunk.chunk_id)
        for sibling_id in documents.get(chunk.document_id, ()):
            if sibling_id in placed or sibling_id in listed or sibling_id not in texts or not room:
                continue
            out.append(replace(chunk, chunk_id=sibling_id, content=texts[sibling_id], ranks={}, similarity=None))
            placed.add(sibling_id)
            room -= 1
    return out
