"""Stage 4: which knowledge reaches the prompt, from a real knowledge base."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

import chatapp  # noqa: F401  (offline environment first)
from chatapp.preprocess.assembly.prompt import assemble
from chatapp.preprocess.reference_data import fence_chunk
from chatapp.token_count import count_tokens
from chatapp.engine import ChatEngine
from chatapp.records import ContextInjection, ResolvedEntity
from chatapp.preprocess.retrieval import RetrievalSettings, form_queries, retrieve
from tests.conftest import checked

NOW = datetime(2026, 11, 27, 10, 0, tzinfo=timezone.utc)
QUESTION = "Can you help me find John's email from yesterday?"
# As stage 2 resolves them.
JOHN = ResolvedEntity("John", (21, 25), "person:john-smith", "John Smith", "PERSON", 0.53)
YESTERDAY = ResolvedEntity("yesterday", (39, 48), "date:2026-11-26", "2026-11-26", "DATE", 0.97, {"date": "2026-11-26"})


# sample_engine (all of sample_kb, ingested once per session) comes from conftest.py.


NOTE = """# Vendor invoice status

The vendor invoice for the data warehouse migration was approved and paid.
{person} confirmed the purchase order number and the payment schedule.
"""


@pytest.fixture(scope="module")
def twin_engine(tmp_path_factory):
    """Documents that differ only in date, or only in the person they name."""
    folder = tmp_path_factory.mktemp("twins-docs")
    (folder / "2026-09-01-invoice-status.md").write_text(NOTE.format(person="The finance team"), encoding="utf-8")
    # The newer one says a little more, so on text alone it ranks just below the older one.
    newer = NOTE.format(person="The finance team") + (
        "Other news: the office plants were watered and the printer on floor three was fixed.\n"
    )
    (folder / "2026-11-20-invoice-status.md").write_text(newer, encoding="utf-8")
    (folder / "2026-10-15-invoice-sarah.md").write_text(NOTE.format(person="Sarah Chen"), encoding="utf-8")
    (folder / "2026-10-15-invoice-tom.md").write_text(NOTE.format(person="Tom Becker"), encoding="utf-8")
    engine = ChatEngine.open(tmp_path_factory.mktemp("twins-data"))
    engine.ingest(folder)
    yield engine
    engine.close()


def file_names(chunks) -> list[str]:
    return [Path(c.source).name for c in chunks]


def test_johns_email_from_yesterday_is_the_q4_budget_email(sample_engine):
    chunks = retrieve(sample_engine.kb, QUESTION, [JOHN, YESTERDAY], NOW)
    assert file_names(chunks)[0] == "2026-11-26-q4-budget-review.eml"
    top = chunks[0]
    assert "From: John Smith" in top.content
    assert top.title == "Q4 Budget Review Meeting" and top.date.startswith("2026-11-26")
    assert top.document_id and top.chunk_id and top.relevance > 0


def test_queries_spell_out_names_and_dates():
    queries = form_queries(QUESTION, [JOHN, YESTERDAY])
    assert queries[0] == QUESTION
    assert "Can you help me find John Smith's email from 26 Nov 2026?" in queries
    assert any("2026-11-26" in q and "John Smith" in q for q in queries)


def hits_and_siblings(chunks):
    """The chunks the search found, and those that came along as other parts of their short documents
    (no ranks of their own), each of the latter from a document of the former."""
    hits = [c for c in chunks if c.ranks]
    siblings = [c for c in chunks if not c.ranks]
    assert {c.document_id for c in siblings} <= {c.document_id for c in hits}
    return hits, siblings


def test_results_are_distinct_relevant_and_at_most_k(sample_engine):
    chunks = retrieve(sample_engine.kb, "What is the Q4 budget for Project Atlas?", [], NOW, RetrievalSettings(k=4))
    hits, siblings = hits_and_siblings(chunks)
    assert 0 < len(hits) <= 4 and len(siblings) <= len(hits)
    assert len({c.chunk_id for c in chunks}) == len(chunks)
    assert any("$350" in c.content for c in chunks)
    assert [c.relevance for c in chunks] == sorted((c.relevance for c in chunks), reverse=True)


def test_unrelated_questions_find_nothing_weak(sample_engine):
    # Nearest neighbours always exist; none of them is near enough to a question about physics.
    assert retrieve(sample_engine.kb, "lattice quantum chromodynamics gluon propagator", [], NOW) == []
    # Half of this one is about the documents: what comes back is what matches that half.
    chunks, _ = hits_and_siblings(retrieve(sample_engine.kb, "quantum gluon budget", [], NOW))
    settings = RetrievalSettings()
    assert chunks and all(
        (c.similarity or 0) >= settings.min_similarity or c.ranks.get("keyword", 99) <= settings.strong_keyword_rank
        for c in chunks
    )
    assert all("budget" in c.content.lower() for c in chunks)


def test_selection_fits_the_rag_budget_with_whole_chunks(sample_engine):
    chunks = retrieve(sample_engine.kb, "Project Atlas migration status and budget", [], NOW, budget_tokens=500)
    assert chunks
    assert sum(count_tokens(fence_chunk(c)) + 1 for c in chunks) <= 500
    everything = retrieve(sample_engine.kb, "Project Atlas migration status and budget", [], NOW)
    assert len(chunks) < len(everything)


def test_a_newer_equally_relevant_document_ranks_first(twin_engine):
    question = "vendor invoice status for the warehouse migration"
    no_recency = retrieve(twin_engine.kb, question, [], NOW, RetrievalSettings(recency_weight=0.0))
    twins = [c for c in no_recency if "finance team" in c.content]
    assert file_names(twins) == ["2026-09-01-invoice-status.md", "2026-11-20-invoice-status.md"]
    assert twins[0].relevance - twins[1].relevance < 0.05  # as good as equally relevant

    ranked = [c for c in retrieve(twin_engine.kb, question, [], NOW) if "finance team" in c.content]
    assert file_names(ranked) == ["2026-11-20-invoice-status.md", "2026-09-01-invoice-status.md"]


@pytest.mark.parametrize(
    "person, expected",
    [
        (ResolvedEntity("her", (8, 11), "person:sarah-chen", "Sarah Chen", "person", 0.9), "2026-10-15-invoice-sarah.md"),
        (ResolvedEntity("his", (8, 11), "person:tom-becker", "Tom Becker", "person", 0.9), "2026-10-15-invoice-tom.md"),
    ],
)
def test_chunks_naming_the_resolved_entity_rank_higher(twin_engine, person, expected):
    question = f"What is {person.surface} vendor invoice status?"
    # Without the boost the newest note wins on recency; naming the person outweighs that.
    unboosted = retrieve(twin_engine.kb, question, [person], NOW, RetrievalSettings(entity_boost=0.0))
    assert file_names(unboosted)[0] == "2026-11-20-invoice-status.md"
    assert file_names(retrieve(twin_engine.kb, question, [person], NOW))[0] == expected


def test_a_document_the_conversation_points_at_ranks_first(twin_engine):
    question = "vendor invoice status for the warehouse migration"
    oldest = next(c for c in retrieve(twin_engine.kb, question, [], NOW) if "2026-09-01" in c.source)
    the_note = ResolvedEntity("that note", (0, 9), f"doc:{oldest.document_id}", oldest.title, "DOCUMENT", 0.8,
                              {"document_id": oldest.document_id, "source": oldest.source, "title": oldest.title})
    ranked = retrieve(twin_engine.kb, "What did that note say about the vendor invoice?", [the_note], NOW)
    assert file_names(ranked)[0] == "2026-09-01-invoice-status.md"


def test_a_date_range_prefers_documents_inside_it(sample_engine):
    last_week = ResolvedEntity("last week", (27, 36), "date:2026-11-16..2026-11-22", "2026-11-16..2026-11-22", "DATE",
                               0.9, {"start": "2026-11-16", "end": "2026-11-22"})
    chunks = retrieve(sample_engine.kb, "What happened with Atlas last week?", [last_week], NOW)
    assert chunks and "2026-11-16" <= chunks[0].date[:10] <= "2026-11-22"


def test_retrieved_documents_go_into_the_prompt_fenced_with_provenance(sample_engine):
    chunks = retrieve(sample_engine.kb, QUESTION, [JOHN, YESTERDAY], NOW)
    prompt = assemble(QUESTION, ContextInjection(), chunks, [JOHN, YESTERDAY], "default")
    assert prompt.meta["mode"] == "rag"
    ref = prompt.meta["source_refs"][0]
    assert Path(ref["source"]).name == "2026-11-26-q4-budget-review.eml" and ref["title"] == "Q4 Budget Review Meeting"
    assert '<reference_data source="' in prompt.messages[-1]["content"]


def test_empty_questions_search_nothing(sample_engine):
    assert retrieve(sample_engine.kb, "   ", [], NOW) == []


def test_every_search_mode_returns_each_chunk_whole(sample_engine):
    for mode in ("hybrid", "dense", "keyword"):
        hits = sample_engine.search("Q4 budget review with John", k=8, mode=mode)
        stored = sample_engine.kb.vector.get([h.chunk_id for h in hits])
        assert hits and all(h.content and h.content == stored[h.chunk_id][0] for h in hits), mode


def test_a_keyword_index_from_before_chunk_texts_were_kept_is_rebuilt(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "2026-09-01-invoice-status.md").write_text(NOTE.format(person="Sarah Chen"), encoding="utf-8")
    with ChatEngine.open(tmp_path / "data", load_sample_kb=False) as engine:
        engine.ingest(folder)
        index_dir = engine.settings.keyword_index_dir
    # What an earlier chatapp left in the data dir: BM25 postings, no chunk texts.
    for name in ("chatapp-texts.bin", "chatapp-text-offsets.npy"):
        (index_dir / name).unlink()
    with ChatEngine.open(tmp_path / "data", load_sample_kb=False) as engine:
        chunks = retrieve(engine.kb, "Who confirmed the purchase order for the vendor invoice?", [], NOW)
        assert chunks and "Sarah Chen confirmed the purchase order number" in chunks[0].content
    assert (index_dir / "chatapp-texts.bin").is_file()


def test_a_word_typed_without_its_accents_finds_the_documents_that_write_them(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "canteen.md").write_text("# Canteen\n\nThe staff café reopens on 11 January 2027 with a new "
                                       "espresso machine.\n", encoding="utf-8")
    (folder / "shop.md").write_text("# Shop\n\nThe farm shop reopens on 4 January 2027 with new shelving.\n",
                                    encoding="utf-8")
    with ChatEngine.open(tmp_path / "data", load_sample_kb=False) as engine:
        engine.ingest(folder)
        index_dir = engine.settings.keyword_index_dir
        assert engine.kb.keyword.search("when does the staff cafe reopen", 1)[0][0] == (
            engine.kb.keyword.search("staff café", 1)[0][0])
        assert "café" in retrieve(engine.kb, "When does the cafe reopen?", [], NOW)[0].content
        # The answer's words are held to the documents' the same way: "cafe" is no word they lack.
        plain = checked(engine, "When does the cafe reopen?", "The staff cafe reopens on 11 January 2027.")
        accented = checked(engine, "When does the café reopen?", "The staff café reopens on 11 January 2027.")
        assert plain.hallucination_flags == [] and abs(plain.confidence - accented.confidence) < 0.02
    # An index written before words were read without accents is rebuilt once, then found the same way.
    (index_dir / "chatapp-accents-folded").unlink()
    with ChatEngine.open(tmp_path / "data", load_sample_kb=False) as engine:
        assert "café" in retrieve(engine.kb, "When does the cafe reopen?", [], NOW)[0].content
    assert (index_dir / "chatapp-accents-folded").is_file()


def test_a_long_paste_is_read_for_names_in_its_first_part_and_each_entity_boosts_once(sample_engine):
    from chatapp.input_limits import READ_CHARS
    from chatapp.preprocess.retrieval import EntityMatcher

    paragraph = "John Smith asked Sarah Chen about the Q4 budget review and Project Atlas. "
    paste = (paragraph * 1400)[:100_000]
    pre = sample_engine.preprocess(paste, now=NOW)
    named = {r.entity_id for r in pre.resolved_entities}
    assert {"person:john-smith", "person:sarah-chen"} <= named
    assert all(r.span[1] <= READ_CHARS for r in pre.resolved_entities)
    assert "QueryTruncated" in pre.prompt.warnings and pre.rag_chunks
    # Hundreds of mentions of the same people weigh as those people, once each.
    boost = EntityMatcher(pre.resolved_entities, sample_engine.kb.registry)
    ids = [r.entity_id for r in pre.resolved_entities if r.entity_id and r.entity_type not in ("DATE", "TIME")]
    assert len(boost.entities) + len(boost.documents) == len(set(ids)) < len(ids)


ASIDE = ("Separately, the volunteers asked about the summer fete stalls, the raffle prizes and who keeps the float; "
         "Dawn will sort that with the parish office as she did last year. ")
LONG_MAIL = f"""From: Halima Osei <halima.osei@kestrelworks.org>
To: Site Team <site@kestrelworks.org>
Date: Wed, 18 Nov 2026 10:02:00 +0000
Subject: Marlow Lane depot refurbishment - where we are

Hi all,

The approved budget for the Marlow Lane depot refurbishment is £86,400 including contingency.
{ASIDE * 9}

On the programme: the roof contractor, Tamsin Roofing, starts on 7 January 2027.

Thanks,
Halima
"""
WEEKLY = ("# Weekly notes {n}\n\nDepot refurbishment planning continues; roof works and budget tracking on the "
          "agenda. We went through the shared drive, parking at the depot and the kitchen rota.\n")


@pytest.fixture(scope="module")
def long_mail_engine(tmp_path_factory):
    """A mail cut into chunks, its budget in the first and the roofer's start in the last, among notes that
    share its words."""
    folder = tmp_path_factory.mktemp("long-mail-docs")
    (folder / "2026-11-18-marlow-update.eml").write_text(LONG_MAIL, encoding="utf-8")
    for n in range(8):
        (folder / f"notes-{n}.md").write_text(WEEKLY.format(n=n), encoding="utf-8")
    engine = ChatEngine.open(tmp_path_factory.mktemp("long-mail-data"), load_sample_kb=False)
    engine.ingest(folder)
    yield engine
    engine.close()


def test_a_short_documents_other_chunks_come_with_its_best_hit(long_mail_engine):
    chunks = retrieve(long_mail_engine.kb, "When does Tamsin Roofing start?", [], NOW)
    mail = [c for c in chunks if c.source.endswith("marlow-update.eml")]
    assert len(mail) >= 2 and chunks[0] in mail
    # The budget is in another chunk of the mail than the roofer's start, and comes along with it.
    assert any("£86,400" in c.content for c in mail) and any("7 January 2027" in c.content for c in mail)
    assert [c.relevance for c in chunks] == sorted((c.relevance for c in chunks), reverse=True)


def test_an_answer_drawing_on_two_chunks_of_one_mail_is_held_to_both(long_mail_engine):
    def checked(answer):
        pre = long_mail_engine.turns.preprocess("When does Tamsin Roofing start?")
        return long_mail_engine.turns.postprocess(answer, question=pre.corrected_input, preprocessed=pre)

    right = checked("Tamsin Roofing starts on 7 January 2027, and the refurbishment's approved budget is £86,400.")
    assert right.hallucination_flags == []
    wrong = checked("Tamsin Roofing starts on 7 January 2027, and the refurbishment's approved budget is £68,400.")
    assert [(f.hallucination_type, f.content) for f in wrong.hallucination_flags] == [("ContradictsFact", "£68,400")]
    assert "£86,400 [corrected]" in wrong.delivered
