"""Postprocessor: the model's answer in, a PostprocessedResponse out.

claims → coherence → the answer checks (checks.py, in their registered order,
their findings settled by precedence.py) → delivery (corrections and
annotations) → recommendation. Pure over its inputs: the registry is read,
never written, and nothing here calls a model other than the optional
sentence embedder.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from types import SimpleNamespace

from chatapp.components import CHECKS
from chatapp.input_limits import read_part
from chatapp.surrogates import repair_surrogates
from chatapp.postprocess.checks import GIVEN, CheckContext
from chatapp.postprocess.claims import AnswerAnalysis, ClaimExtractor
from chatapp.postprocess.coherence import assess_coherence, question_type, wants_topic_vectors
from chatapp.postprocess.delivery import DeliverySettings, confidence, corrected_text, deliver, recommend
from chatapp.postprocess.evidence import text_index
from chatapp.postprocess.facts import ValidationSettings
from chatapp.postprocess.findings import Sources
from chatapp.postprocess.hallucination import EarlierWords, reads_earlier, to_flags
from chatapp.postprocess.knowledge_view import KnowledgeView
from chatapp.postprocess.precedence import settle
from chatapp.postprocess.support import (
    EvidencePool, SupportModel, chunk_text, evidence_parts, settle_flags, unfound_words,
)
from chatapp.records import (
    ANSWER_LEVEL,
    CoherenceResult,
    DialogueTurn,
    FactualValidationResult,
    KnowledgeChunk,
    PostprocessedResponse,
    ResolvedEntity,
)


@dataclass
class PostprocessSettings:
    validation: ValidationSettings = field(default_factory=ValidationSettings)
    delivery: DeliverySettings = field(default_factory=DeliverySettings)
    # Use the embedder (when one is given) for the answer's topical fit to the question.
    use_embeddings: bool = True
    # Earlier assistant answers worth remembering parsed (they are re-read every turn).
    prior_cache_size: int = 64
    # How far back in the conversation an answer is held to earlier turns (ContradictsPrior, what the
    # user said): without a bound, turn 1,000 of a session re-read 500 earlier answers.
    history_turns_checked: int = 48
    # Answer checks switched off by name (checks.py registers them: fact_validation, …).
    disabled_checks: list[str] = field(default_factory=list)
    # When the support model embeds a claim beside the evidence: "auto" (only when the words alone
    # leave it in doubt), "always" or "never". Needs the embedder.
    support_similarity: str = "auto"


# How much of one answer is checked: beyond this, the rest is delivered unchecked and the result says so.
CHECKED_ANSWER_CHARS = 20_000
# How many of the latest answers keep their parse, to be read as earlier turns (a chat needs one).
RECENT_PARSES = 4
# How many earlier answers keep the words reads_earlier reads of them: more than a conversation's
# checked history holds (PostprocessSettings.history_turns_checked turns, half of them answers).
EARLIER_WORDS_KEPT = 128


class Postprocessor:
    def __init__(self, registry, embedder=None, nlp=None, settings: PostprocessSettings | None = None,
                 disabled_checks: list[str] | None = None):
        """`disabled_checks`, when given, replaces the settings' list (the app's config passes it)."""
        self.registry = registry
        self.embedder = embedder
        self._nlp = nlp
        self.settings = settings or PostprocessSettings()
        if disabled_checks is not None:
            self.settings.disabled_checks = list(disabled_checks)
        self.settings.validation.flag_at = self.settings.delivery.flag_at
        self.checks = CHECKS.build(self.settings, disabled=self.settings.disabled_checks, given=GIVEN)
        self.support_model = SupportModel(similarity=self.settings.support_similarity)
        self._view: KnowledgeView | None = None
        self._prior_cache: OrderedDict[str, AnswerAnalysis] = OrderedDict()
        # The latest answers' parses: next turn, an answer is an earlier turn, read again (delivered
        # as it came, its text is the same).
        self._recent_parses: OrderedDict[str, object] = OrderedDict()
        self._earlier_word_cache: OrderedDict[str, EarlierWords] = OrderedDict()
        self._lock = threading.Lock()
        self._embedding_thread: ThreadPoolExecutor | None = None
        self._prefetch_thread: ThreadPoolExecutor | None = None

    # --- shared state, loaded lazily ------------------------------------------

    @property
    def nlp(self):
        if self._nlp is None:
            from chatapp.nlp import load_pipeline

            self._nlp = load_pipeline()[0]
        return self._nlp

    def view(self) -> KnowledgeView:
        """The registry as the checks read it, rebuilt whenever the registry's stamp changes (so the
        postprocessor needs no refresh after an ingest)."""
        with self._lock:
            if self._view is None or not self._view.is_current(self.registry):
                self._view = KnowledgeView.build(self.registry)
            return self._view

    def prepare(self, rag_chunks: list[KnowledgeChunk] = (), history: list[DialogueTurn] = (),
                resolved_entities: list[ResolvedEntity] = (), question: str = ""):
        """Ready, in a worker, what a coming answer held to retrieved chunks will be checked against: the
        indexes of the chunks and of the question (with the user's earlier turns), then (given an embedder)
        the vectors of the evidence sentences — the chunks', earlier turns', and the records of the entities
        the question resolved to or the chunks name — with their words. A turn calls it before the model is
        called, so the check finds them ready when the answer comes: embedding those sentences was most of
        what checking such an answer cost. Changes no result, only when the work is done. Returns the
        Future doing it (None: nothing to do)."""
        if not rag_chunks:
            return None  # without retrieved chunks (or with evidence, given with the answer) nothing to ready
        history = list(history)[-self.settings.history_turns_checked:]
        # The very texts process() indexes for a chat turn (no evidence supplied): text_index keeps them.
        supplied = [chunk_text(c) for c in rag_chunks]
        given = [read_part(repair_surrogates(question or "")), *(t.content for t in history if t.role == "user")]

        def index() -> None:
            text_index(supplied).found_values  # noqa: B018 - fills the chunks' values
            text_index(given)

        with self._lock:
            if self._prefetch_thread is None:
                self._prefetch_thread = ThreadPoolExecutor(1, thread_name_prefix="postprocess-prefetch")
        if self.embedder is None or self.support_model.similarity == "never":
            return self._prefetch_thread.submit(index)
        view = self.view()
        # The records of the entities the question resolved to, and of those the chunks name (an answer
        # names what its documents do).
        named = [i for c in rag_chunks for m in view.find_mentions(chunk_text(c)) for i in m.entity_ids[:1]]
        ids = [r.entity_id for r in resolved_entities if r.entity_id] + named
        records = SimpleNamespace(texts=_entity_records(view, None, ids))
        parts = evidence_parts([], None, rag_chunks, records, [t.content for t in history])
        texts = [sentence.text for sentence in EvidencePool(parts).sentences]
        return self.support_model.prefetch(self.embedder, texts, self._prefetch_thread, first=index)

    # --- the entry point ---------------------------------------------------------

    def process(
        self,
        response: str,
        question: str = "",
        evidence: list[str] = (),
        rag_chunks: list[KnowledgeChunk] = (),
        resolved_entities: list[ResolvedEntity] = (),
        history: list[DialogueTurn] = (),
        now: datetime | None = None,
        evidence_labels: list[str] | None = None,
    ) -> PostprocessedResponse:
        """`evidence_labels`: what to call each evidence text when showing where support came from
        (default "evidence 1", "evidence 2", …)."""
        # Lone surrogate halves cannot be encoded (spaCy refuses them): each is U+FFFD. A pasted
        # question is held to its opening, as a message is read (input_limits).
        response = repair_surrogates(response or "")
        history = list(history)[-self.settings.history_turns_checked:]
        question = read_part(repair_surrogates(question or ""))
        evidence = [repair_surrogates(text) for text in evidence]
        if not response.strip():
            return self._empty(response, question)
        if len(response) > CHECKED_ANSWER_CHARS:
            return self._long(response, question, evidence, rag_chunks, resolved_entities, history, now,
                              evidence_labels)
        view = self.view()
        extractor = ClaimExtractor(self.nlp, view)
        resolved = list(resolved_entities)
        embedder = self.embedder if self.settings.use_embeddings else None
        supplied_texts = [*evidence, *(chunk_text(c) for c in rag_chunks)]
        answer_vectors = self._embed_ahead(embedder, question, response, [] if evidence else supplied_texts)
        analysis = extractor.extract(response, resolved)
        self._remember_parse(response, analysis.doc)
        prior = self._priors(extractor, [t.content for t in history if t.role == "assistant" and t.content.strip()],
                             analysis)
        sources = Sources(
            view=view,
            supplied=text_index(supplied_texts),
            records=text_index(_entity_records(view, analysis, resolved)),
            given=text_index([question, *(t.content for t in history if t.role == "user")]),
            prior=prior,
            explicit=bool(evidence),
            supplied_dates=(*(None for _ in evidence), *(c.date for c in rag_chunks)),
        )
        # Waited for here even when the topic does not want it: the support model's claims would
        # otherwise embed the answer a second time while this is still under way.
        if answer_vectors is not None:
            answer_vectors = self.support_model.vectors.of(embedder, answer_vectors)
        coherence = assess_coherence(question, analysis, view, resolved, embedder,
                                     answer_vectors if wants_topic_vectors(question, response) else None)
        # Retrieved chunks, the registry and earlier turns are evidence too, each under its own name.
        parts = evidence_parts(list(evidence), evidence_labels, rag_chunks, sources.records,
                               [t.content for t in history])
        claim_support = self.support_model.assess(analysis, sources, question, parts, self.embedder)
        judged = self.support_model.judge_answer(claim_support, analysis.text, sources, question, parts,
                                                  self.embedder)
        context = CheckContext(analysis, sources, question, list(history), list(rag_chunks), now,
                               claim_support=claim_support, answer_support=judged)
        for check in self.checks:
            context.findings = settle(context.findings, check.run(context), context.validation)
        findings = sorted(context.findings, key=lambda f: f.span)
        validation = context.validation

        delivery = self.settings.delivery
        # Doubts too faint to show still lower the confidence; only the rest become flags.
        reported = [f for f in findings if f.confidence >= delivery.flag_at]
        delivered, corrected = deliver(response, reported, delivery)
        settle_flags(claim_support, reported, sources.grounded)
        # The weakest claim, and how much of the whole answer the evidence has, bound how far it can be
        # trusted: fully against evidence supplied for it, less against chunks retrieved as a best guess
        # (the fitted trust in them), not at all with neither.
        answer_support = validation.score
        if judged is not None:
            answer_support = judged.score
            if corrected:
                # A corrected claim counts as right (as in the validation score): the support is that of
                # the answer as corrected, not of the wrong value it no longer says.
                edits = [reported[i] for i in corrected]
                fixed = corrected_text(response, edits)
                if embedder is not None and sources.grounded:
                    self.support_model.vectors.prefetch(embedder, [fixed], self._embedding_beside())  # as above
                fixed_analysis = extractor.extract(
                    fixed, resolved, names_of=(analysis, [(f.replace_span, f.replacement) for f in edits]))
                fixed_support = self.support_model.assess(fixed_analysis, sources, question, parts, self.embedder)
                answer_support = self.support_model.answer_support(fixed_support, fixed, sources)
        trust = 1.0 if sources.explicit else self.support_model.weights.retrieved_trust if sources.grounded else 0.0
        faint = [f for f in findings if f.confidence < delivery.flag_at]
        overall = confidence(reported + faint, corrected, coherence, validation, answer_support, trust)
        recommendation, guidance = recommend(response, reported, corrected, coherence, overall, delivery)
        return PostprocessedResponse(
            original=response,
            delivered=delivered,
            hallucination_flags=to_flags(reported, corrected),
            coherence=coherence,
            factual_validation=validation,
            recommendation=recommendation,
            confidence=overall,
            guidance=guidance,
            claim_support=claim_support,
            support=round(answer_support, 4),
            support_threshold=judged.threshold if judged is not None else 0.0,
            support_reason=next((f.evidence[0] for f in reported if f.flag_type in ANSWER_LEVEL), ""),
        )

    # --- pieces ----------------------------------------------------------------------

    def _long(self, response, question, evidence, rag_chunks, resolved_entities, history, now,
              evidence_labels=None) -> PostprocessedResponse:
        """An answer longer than CHECKED_ANSWER_CHARS: its opening is checked (to a line or sentence
        end), the rest is delivered as it came, and the result says so. Checking takes time in
        proportion to length, and spaCy refuses texts over a million characters."""
        head = response[:CHECKED_ANSWER_CHARS]
        cut = max(head.rfind("\n"), head.rfind(". "))
        cut = cut + 1 if cut > CHECKED_ANSWER_CHARS // 2 else CHECKED_ANSWER_CHARS
        result = self.process(response[:cut], question, evidence, rag_chunks, resolved_entities, history, now,
                              evidence_labels)
        result.original = response
        result.delivered = result.delivered + response[cut:]
        result.coherence.issues.append(
            f"only the first {cut:,} of {len(response):,} characters were checked; the rest is as the model wrote it"
        )
        return result

    def _empty(self, response: str, question: str) -> PostprocessedResponse:
        coherence = CoherenceResult(0.0, question_type(question), "empty", ["the answer is empty"])
        recommendation, guidance = recommend(response, [], set(), coherence, 0.0, self.settings.delivery)
        return PostprocessedResponse(response, response, [], coherence, FactualValidationResult(score=0.0),
                                     recommendation, 0.0, guidance)

    def _embed_ahead(self, embedder, question: str, response: str, retrieved_texts: list[str]):
        """Start, beside spaCy's parse of the answer, the embeddings its check is likely to want: the
        question's and the answer's, for its topical fit, and in a chat turn (held to `retrieved_texts`,
        the chunks retrieved for it, with no evidence given) also for the support model, which reads a
        claim the chunks' words leave weak by its meaning there, and then compares those of its everyday
        words that the chunks lack with the chunks' words (_near_words): embed those words too. The
        parse and these embeddings are most of a check's time, and the embedding model's session lets go
        of the GIL as it runs, so on two cores they overlap; before, all but the topic's were embedded
        one after the other once the parse was done. Vectors are the same whoever computes them: this
        changes when the work is done, not what it finds. Returns the texts to ask SupportModel.vectors
        for, which waits for their vectors (None: not wanted)."""
        if embedder is None:
            return None
        chat = any(t and t.strip() for t in retrieved_texts) and self.support_model.similarity != "never"
        if not (chat or wants_topic_vectors(question, response)):
            return None
        kept, executor = self.support_model.vectors, self._embedding_beside()
        kept.prefetch(embedder, [question, response], executor)
        if chat:
            kept.prefetch(embedder, unfound_words(response, question, text_index(retrieved_texts)), executor)
        return [question, response]

    def _embedding_beside(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._embedding_thread is None:
                self._embedding_thread = ThreadPoolExecutor(1, thread_name_prefix="postprocess-embed")
            return self._embedding_thread

    def _priors(self, extractor: ClaimExtractor, texts: list[str], analysis: AnswerAnalysis) -> list[AnswerAnalysis]:
        """The earlier answers analysed, from the cache where they were seen before; those that were
        not are parsed together (spaCy parses a batch for much less than its texts one by one), unless
        no check of `analysis` reads more of them than their words."""
        with self._lock:
            known = {t: self._prior_cache[t] for t in texts if t in self._prior_cache}
            for text in known:
                self._prior_cache.move_to_end(text)
            parsed = {t: self._recent_parses[t] for t in texts if t not in known and t in self._recent_parses}
        missing = [t for t in dict.fromkeys(texts) if t not in known and t not in parsed]
        unread = {t for t in missing if not reads_earlier(analysis, self._earlier_words(t))}
        missing = [t for t in missing if t not in unread]
        # An earlier turn is read without spaCy's names (NER), which nothing else in the parse depends
        # on: an answer parsed with them serves once they are set aside.
        analysed = [extractor.analyse(_without_names(doc), text) for text, doc in parsed.items()]
        if missing:
            analysed += extractor.extract_many([t[:CHECKED_ANSWER_CHARS] for t in missing], with_ner=False)
        if analysed:
            with self._lock:
                for text, earlier in zip([*parsed, *missing], analysed):
                    known[text] = self._prior_cache[text] = earlier
                while len(self._prior_cache) > self.settings.prior_cache_size:
                    self._prior_cache.popitem(last=False)
        return [known[t] if t in known else AnswerAnalysis.words_only(t) for t in texts]

    def _earlier_words(self, text: str) -> EarlierWords:
        """An earlier answer's words as reads_earlier reads them, tokenised once per text: an answer
        no check parses stays unparsed turn after turn, and is read again every turn."""
        with self._lock:
            words = self._earlier_word_cache.get(text)
            if words is not None:
                self._earlier_word_cache.move_to_end(text)
                return words
        words = EarlierWords(text, self.nlp.make_doc(text[:CHECKED_ANSWER_CHARS]))
        with self._lock:
            self._earlier_word_cache[text] = words
            while len(self._earlier_word_cache) > EARLIER_WORDS_KEPT:
                self._earlier_word_cache.popitem(last=False)
        return words

    def _remember_parse(self, text: str, doc) -> None:
        if doc is None:
            return
        with self._lock:
            self._recent_parses[text] = doc
            self._recent_parses.move_to_end(text)
            while len(self._recent_parses) > RECENT_PARSES:
                self._recent_parses.popitem(last=False)


def _without_names(doc):
    """A copy of the parse with spaCy's named entities taken out, as a parse without NER has none."""
    copy = doc.copy()
    copy.ents = []
    return copy


def _entity_records(view: KnowledgeView, analysis: AnswerAnalysis | None, resolved: list) -> list[str]:
    """What the registry says about the entities in play (those of the answer's sentences, then those
    resolved: ResolvedEntity records or entity ids), as sentences the answer can be held to."""
    in_answer = [e for s in analysis.sentences for e in s.entity_ids] if analysis is not None else []
    resolved_ids = [r if isinstance(r, str) else r.entity_id for r in resolved]
    ids = list(dict.fromkeys(in_answer + [i for i in resolved_ids if i in view.entities]))
    texts = []
    for entity_id in ids:
        entity = view.entities[entity_id]
        lines = [f"{entity.name} ({entity.type}). {entity.description}"]
        lines += [f"{entity.name} {k.key.replace('_', ' ')}: {view.display(k)}." for k in view.values_of(entity_id)]
        texts.append("\n".join(lines))
    return texts
