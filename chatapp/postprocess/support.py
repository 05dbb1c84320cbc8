"""How well the evidence at hand supports each claim of an answer.

A claim is a sentence (or a table row) of the answer that states something:
questions, opinions, courtesies and notices are not claims, and nor are the
words of the user's question that the answer merely repeats ("Which came
first, A or B?" — "A came first" claims only "A").

For each claim a handful of features are measured against every text the
answer may lean on — evidence the user supplied, retrieved document chunks,
what the knowledge base records about the entities in play, and the earlier
turns of the conversation — and combined by one small logistic function whose
weights live in support_weights.json, fitted on dev data by
tests/bench/fit_support.py:

    share             content words found in the evidence (the plain overlap)
    weighted_share    the same, each word weighted by how rare it is in English
    missing_mass      how much rare-word weight is missing altogether
    phrase_share      word pairs of the claim found side by side in the evidence
    best_share        content words shared with the single best evidence sentence
    unaligned         names, numbers, dates and emails the evidence does not state
    negation_conflict the best evidence sentence says it with the opposite polarity
    length            how many content words it has (a long claim has more room to stray)
    evaluative        judgements ("amazing", "famous") the evidence does not make
    similarity        sentence-embedding cosine to the best evidence sentence

A claim is flagged when its score falls under the fitted threshold and enough is missing; when
the answer as a whole scores under its own fitted threshold, its weakest claim is flagged too if it
lacks enough, else the answer itself is reported (UnsupportedAnswer: no claim is marked, as no one
claim is the trouble) — so the flag is as good as the answer's score ranks. A weak answer that voices
a taste or judgement of its own in words the evidence lacks ("I adore heirloom tomatoes") is reported
as a whole too, whatever its claims score; and what the assistant tells of its own life ("I visited
Rome last summer") is flagged whatever words it shares with the sources.

Embedding every evidence sentence costs time, so the lexical model decides
alone when it is sure; only a claim whose lexical score falls in the ambiguous
band is embedded, with the evidence sentences' vectors kept per evidence text.
"""

from __future__ import annotations

import functools
import json
import math
import re
import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from chatapp.dates.expressions import with_days_meant
from chatapp.intents import is_small_talk
from chatapp.postprocess import values as V
from chatapp.postprocess.claims import AnswerAnalysis, SentenceInfo
from chatapp.postprocess.evidence import (WORD_RE, TextIndex, is_soft, is_stop, is_typo, rarity, split_sentences, stem,
                                         words)
from chatapp.postprocess.facts import states_kind
from chatapp.postprocess.findings import Sources
from chatapp.postprocess.stance import COGNITION_LEMMAS, INTENT_LEMMAS, OPINION_LEMMAS
from chatapp.records import ANSWER_LEVEL, ClaimSupport

WEIGHTS_PATH = Path(__file__).with_name("support_weights.json")
LEXICAL_FEATURES = ("share", "weighted_share", "missing_mass", "phrase_share", "best_share", "unaligned",
                    "negation_conflict", "length", "evaluative")
FEATURES = LEXICAL_FEATURES + ("similarity",)
ANSWER_FEATURES = ("weakest", "mean_claim", "answer_share", "answer_weighted_share", "answer_missing_mass",
                   "answer_word_share", "answer_uncovered", "unclaimed")
# Words of the answer in no word pair of the evidence count up to this many (a long answer is not
# less supported for every word past it).
ANSWER_UNCOVERED_CAP = 8
# Questions, notices and opinions ("I'm not a fan", "you might enjoy it") state nothing the
# evidence could settle: only statements are claims — and what the assistant tells of its own life
# ("I visited Rome last summer"), which no source states, so a user should see it doubted. (What
# the others say still counts in how much of the whole answer the evidence has: see answer_features.)
NOT_CLAIMS = frozenset({"question", "meta", "opinion", "courtesy", "personal"})
# Sentences that claim nothing but still voice something of the answer's own — a taste or a judgement
# ("I love their early albums", "it's a great show for families") — whose words the evidence may lack: an
# answer weak as a whole that voices such an aside is not borne out by its evidence, even when every
# claim of it is, or it has none. Questions back, notices, courtesy and where the assistant stands ("I'm
# not sure", "I have never been", "I checked your notes") are not asides.
ASIDE_MODES = frozenset({"opinion"})
# Words that say when a value held, not what it is ("originally on 3 December but now on 10"): the
# values they frame are checked as values (stated_changes.py reads a change's old side), and no
# source needs the word itself. spaCy's stop words already hold "formerly", "now", "still".
WHEN_WORDS = frozenset({"originally", "previously", "initially", "currently", "presently"})
# Words that say how exact or how sure a statement is, not what it states ("roughly 410 matters", "usually
# on a Saturday"): the evidence need not hedge alike for the statement to hold. (spaCy's stop words
# already hold "about", "around", "almost", "mostly".)
# "Mainly" and "largely" are not among them: they say how much of it holds, which the evidence may not.
HEDGES = frozenset({"roughly", "approximately", "approx", "approximate", "nearly", "usually", "typically",
                    "generally", "normally", "likely", "possibly", "apparently", "reportedly"})
_NEGATION_RE = re.compile(r"\b(?:not|never|no|none|neither|nor|cannot)\b|n['’]t\b", re.IGNORECASE)

# Retrieved chunks are a best guess at what is relevant and a model may rightly say more than they
# do: with no evidence supplied, a weak answer (its weakest claim, or the answer as a whole) is flagged
# only under this share of the answer threshold (fit_support.py scales the claim threshold alike).
RETRIEVED_FACTOR = 0.5
# The answer threshold never goes above this, whatever the fit says: a right answer in the model's own
# words scores lower than one that quotes its sources, and over one half the answer model finds an
# answer more likely supported than not (fit_support.py fits under it).
ANSWER_FLAG_CAP = 0.5
# A missing word whose embedding is this close to one of its evidence sentence's words says the same
# ("begin"/"start" 0.84, "purchase"/"buy" 0.87, "likely"/"probably" 0.88), where near-misses of another
# meaning stay under it ("Marriott"/"hotel" 0.67, "June"/"November" 0.60, "bathroom"/"kitchen" 0.52).
NEAR_WORD_SIMILARITY = 0.8
# Prose has function words ("the", "of", "was", "in": a third to a half of its words); a record — "Chair:
# Odile Marchetti", "Phone: 214", a row of a table — has next to none, so an answer can only say it in
# other words than its own.
TERSE_FUNCTION_SHARE = 0.2
# The words a claim saying a terse record may lack, at most: the verb and a link or two ("reach", "brought in",
# "stands at") — more, and it says something the record does not.
RECORD_WORDING = 2
WORDING_POS = frozenset({"VERB", "AUX", "ADP", "PART"})
_TABLE_ROW_RE = re.compile(r"^\s*\|.*\|\s*$")  # a row of a Markdown table is a record whatever its words
# A labelled line ("Phone: 214 555 0199", "- **Decision:** write off the balance", "Fee income July–September:
# £612,400 against a target of £590,000") is a record whatever its words: a label of a few words and a colon.
LABEL_LINKS = frozenset({"of", "and", "for", "the", "in", "to", "per"})  # words a label may hold ("Head of Science:")
_LABELLED_RE = re.compile(r"^\s*(?:[-*•]\s+)?(?:\*\*)?[^\s:.!?][^:.!?]{0,40}:(?:\*\*)?(?:\s|$)")
# Why a claim of the assistant's own life is flagged, whatever words it shares with the sources.
OWN_EXPERIENCE = "the assistant telling of its own experience, which no source states"
# How much a source is trusted, and the name shown for it.
SUPPLIED, RETRIEVED, KNOWLEDGE, EARLIER = "supplied", "retrieved", "knowledge", "earlier"


@dataclass
class AnswerSupport:
    """How far the evidence at hand supports the answer as a whole (SupportModel.judge_answer): its
    score, the threshold under which it is weak, and whether the answer itself is reported."""

    score: float
    threshold: float
    # Weak, and no claim of it flagged: the answer is reported as a whole, no claim marked.
    unsupported: bool = False
    reason: str = ""
    missing: list[str] = field(default_factory=list)  # content words of its claims the evidence lacks


@dataclass
class SupportWeights:
    """The fitted model: two logistic functions (without and with the embedding similarity), the
    band of lexical scores in which the second is consulted, and the score under which a claim is
    flagged (lower still when the only evidence is retrieved chunks, a best guess at what is
    relevant)."""

    lexical: dict[str, float]
    full: dict[str, float]
    ambiguous: tuple[float, float]
    flag_below: float
    flag_below_retrieved: float
    # … and only when it lacks this much rare-word weight, or a name or value, or contradicts: a
    # claim missing "came" or "songs" alone is worded differently, not made up.
    min_missing_mass: float = 0.0
    # How far an answer that claims nothing (a question back, courtesy) rests on the evidence.
    no_claim_support: float = 1.0
    # The answer as a whole (its confidence): its weakest claim, beside how much of all it says
    # (remarks and questions included) the evidence has.
    answer: dict[str, float] | None = None
    # Under this answer support, the answer's weakest claim is flagged even when no claim is alone
    # (0: never).
    answer_flag_below: float = 0.0
    # … and only when that claim lacks this much rare-word weight (or a name or value): a claim the
    # evidence states in full, or all but an everyday word ("came out", "started"), is never flagged
    # for the answer around it (fit_support.py chooses it from a grid with that floor).
    answer_min_missing_mass: float = 0.5
    # How far the answer's support counts in its confidence when the evidence is retrieved chunks (1 is
    # as much as against evidence supplied for it; fitted by fit_support.py --retrieved-trust: see delivery.py).
    retrieved_trust: float = 0.0
    # In a chat turn (retrieved chunks, no evidence supplied), a claim this close in meaning to one evidence
    # sentence (embedding cosine) is that sentence in other words: not flagged for weak support (0: off;
    # fitted by fit_support.py --paraphrase).
    paraphrase_similarity: float = 0.0

    @classmethod
    def load(cls, path: Path = WEIGHTS_PATH) -> "SupportWeights":
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(data["lexical"], data["full"], tuple(data["ambiguous"]), data["flag_below"],
                   data["flag_below_retrieved"], data.get("min_missing_mass", 0.0), data.get("no_claim_support", 1.0),
                   data.get("answer"), data.get("answer_flag_below", 0.0), data.get("answer_min_missing_mass", 0.5),
                   data.get("retrieved_trust", 0.0), data.get("paraphrase_similarity", 0.0))


@functools.lru_cache(maxsize=1)
def default_weights() -> SupportWeights:
    return SupportWeights.load()


def logistic(features: dict[str, float], weights: dict[str, float]) -> float:
    z = weights.get("bias", 0.0) + sum(weights.get(name, 0.0) * value for name, value in features.items())
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


@dataclass
class EvidenceSentence:
    text: str
    stems: frozenset[str]
    label: str  # where it came from, as shown to the user
    negated: bool


class EvidencePool:
    """Every sentence a claim may lean on, with where it came from, and the word pairs of each text."""

    def __init__(self, parts: list[tuple[str, str, str]]):
        """`parts`: (text, label, trust kind) for each evidence text."""
        self.sentences: list[EvidenceSentence] = []
        self.pairs: set[tuple[str, str]] = set()
        self.kinds = {kind for _, _, kind in parts if kind != EARLIER}
        for text, label, _kind in parts:
            if not text or not text.strip():
                continue
            sentences, pairs = _read_evidence(text)
            self.sentences += [EvidenceSentence(said, stems, label, negated) for said, stems, negated in sentences]
            self.pairs |= pairs
        self._by_stem: dict[str, list[int]] | None = None

    def with_neighbours(self, sentence: str) -> str:
        """The evidence sentence `sentence` with the one either side of it from the same text: a claim
        may quote two sentences that the evidence splits where the answer does not ("… moves to the
        Library; Gethin will tell the couple this week.")."""
        for i, found in enumerate(self.sentences):
            if found.text == sentence:
                around = self.sentences[max(0, i - 1):i + 2]
                return " ".join(s.text for s in around if s.label == found.label)
        return sentence

    @property
    def retrieved_only(self) -> bool:
        return RETRIEVED in self.kinds and SUPPLIED not in self.kinds

    def best(self, stems: set[str]) -> tuple[int, float]:
        """Index of the sentence sharing most of `stems` (-1: none) and the share."""
        if not stems:
            return -1, 0.0
        if self._by_stem is None:  # which sentences have each stem: a claim visits only those
            by_stem: dict[str, list[int]] = {}
            for i, sentence in enumerate(self.sentences):
                for s in sentence.stems:
                    by_stem.setdefault(s, []).append(i)
            self._by_stem = by_stem  # set whole: a pool is shared between checks (evidence_pool)
        shared = Counter(i for s in stems for i in self._by_stem.get(s, ()))
        if not shared:
            return -1, 0.0
        best = min(shared, key=lambda i: (-shared[i], i))  # the first of the best, as a scan in order finds
        return best, shared[best] / len(stems)


def evidence_pool(parts: list[tuple[str, str, str]]) -> EvidencePool:
    """The EvidencePool of `parts`, shared with earlier calls over the same parts: a conversation's
    records, chunks and turns come back turn after turn, and the pool (read, never written, but for
    its stem index, filled once) is a function of them alone."""
    return _shared_pool(tuple(parts))


@functools.lru_cache(maxsize=16)
def _shared_pool(parts: tuple[tuple[str, str, str], ...]) -> EvidencePool:
    return EvidencePool(list(parts))


@functools.lru_cache(maxsize=512)
def _read_evidence(text: str) -> tuple[tuple[tuple[str, frozenset[str], bool], ...], frozenset[tuple[str, str]]]:
    """(sentence, its content stems, negated) for each sentence of one evidence text, and its word
    pairs: read once per text, as the same evidence, records and earlier turns come back turn after turn."""
    sentences = []
    for sentence in split_sentences(text):
        stems = frozenset(stem(w) for w in words(sentence) if not is_stop(w))
        if stems:
            sentences.append((sentence, stems, bool(_NEGATION_RE.search(sentence))))
    return tuple(sentences), frozenset(_pairs(words(text)))


def _pairs(tokens: list[str]) -> set[tuple[str, str]]:
    """Neighbouring content words, by stem: the phrases a text is made of."""
    content = [stem(t) for t in tokens if not is_stop(t)]
    return set(zip(content, content[1:]))


class SentenceVectors:
    """Embeddings of evidence sentences, kept per sentence text (evidence comes back turn after turn).

    `prefetch` embeds texts in a worker ahead of need — a turn's retrieved chunks while the model
    answers — and `of` waits for that work rather than repeating it. A vector is the same whoever
    computes it (the embedder's batching does not change it), so this changes only when it is done."""

    def __init__(self, size: int = 4096):
        self.size = size
        self._vectors: OrderedDict[str, object] = OrderedDict()
        self._lock = threading.Lock()
        self._pending: dict[str, object] = {}  # text → the Future computing it

    def prefetch(self, embedder, texts: list[str], executor, first=None):
        """Start embedding those of `texts` not kept yet, on `executor`, after calling `first` (when given):
        the Future doing it (None: nothing to do)."""
        texts = [_spacing(t) for t in texts]
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._vectors and t not in self._pending]
            if not missing:
                return executor.submit(first) if first is not None else None
            future = executor.submit(self._compute, embedder, missing, first)
            for text in missing:
                self._pending[text] = future
            return future

    def of(self, embedder, texts: list[str]):
        import numpy as np

        texts = [_spacing(t) for t in texts]
        with self._lock:
            waiting = {self._pending[t] for t in texts if t in self._pending}
        for future in waiting:
            try:
                future.result()
            except Exception:  # noqa: BLE001 - computed below, where a failure reaches the caller
                pass
        with self._lock:
            found = {t: self._vectors[t] for t in texts if t in self._vectors}
            for t in found:
                self._vectors.move_to_end(t)
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:
            found.update(self._compute(embedder, missing))
        return np.stack([found[t] for t in texts])

    def kept(self) -> set[str]:
        with self._lock:
            return set(self._vectors)

    def drop(self, texts) -> None:
        """Forget these texts' vectors (a benchmark starts each answer with its own vectors uncomputed)."""
        with self._lock:
            for text in texts:
                self._vectors.pop(text, None)

    def _compute(self, embedder, texts: list[str], first=None) -> dict:
        try:
            if first is not None:
                first()
            computed = dict(zip(texts, embedder.embed(texts)))
            with self._lock:
                for text, vector in computed.items():
                    self._vectors[text] = vector
                    self._vectors.move_to_end(text)
                while len(self._vectors) > self.size:
                    self._vectors.popitem(last=False)
            return computed
        finally:
            with self._lock:
                for text in texts:
                    self._pending.pop(text, None)


def _spacing(text: str) -> str:
    """A text as SentenceVectors keeps it: WordPiece ignores how words are spaced, so "a claim\n" and
    "a claim" share a vector (the embedder's own memory keys texts the same way)."""
    return " ".join(text.split())


class SupportModel:
    def __init__(self, weights: SupportWeights | None = None, similarity: str = "auto"):
        """`similarity`: "auto" (embed ambiguous claims only), "always" (fitting) or "never"."""
        self.weights = weights or default_weights()
        self.similarity = similarity
        self.vectors = SentenceVectors()

    def prefetch(self, embedder, sentences: list[str], executor, first=None):
        """Start embedding evidence sentences before an answer is checked against them, and their words
        (which _near_words compares a claim's missing words with), on `executor`, after calling `first`
        (when given): the Future doing it."""
        plain = [w for sentence in sentences for w in _plain_words(sentence)]
        return self.vectors.prefetch(embedder, sentences + plain, executor, first)

    def assess(self, analysis: AnswerAnalysis, sources: Sources, question: str, parts: list[tuple[str, str, str]],
               embedder=None) -> list[ClaimSupport]:
        """A ClaimSupport for every sentence of the answer (`claim=False` for those that claim nothing)."""
        pool = evidence_pool(parts)
        asked = {stem(w) for w in words(question) if not is_stop(w)}
        small_talk = bool(question.strip()) and is_small_talk(question)
        taste_asked = asks_for_taste(question)
        results, pending, rescored, reread = [], [], set(), []
        reworded = self._may_reword(sources)
        # "How much did we request?": the user speaks for a team, and an answer's "we requested" is that
        # team's doing, held to the sources as any statement, not the assistant's own story.
        team_asks = _speaks_as_team(question)
        for sentence in analysis.sentences:
            support = self._lexical(sentence, analysis, sources, pool, asked, small_talk, taste_asked=taste_asked)
            results.append(support)
            low, high = self.weights.ambiguous
            # Without evidence or retrieved chunks nothing is flagged for weak support: no need to embed.
            if not (support.claim and embedder is not None and sources.grounded and self.similarity != "never"):
                continue
            if self.similarity == "always" or low <= support.score <= high:
                pending.append(support)
                rescored.add(id(support))
            elif reworded and support.score < self.weights.flag_below and self._may_be_flagged(support):
                # In a chat turn a claim the words leave weak may be a chunk in the model's own words: only
                # its meaning can tell (in_other_words). Its score stays the lexical model's, which is sure
                # of it out of the band.
                pending.append(support)
                reread.append((len(results) - 1, sentence))
        closest = self._add_similarity(pending, pool, embedder, rescored) if pending else {}
        for i, sentence in reread:
            # Its missing words may be the evidence's in other words ("begin" for "start"): read again with
            # those counted as found.
            near = self._near_words(results[i], pool, closest[id(results[i])], embedder)
            if near:
                similarity = results[i].features["similarity"]
                results[i] = self._lexical(sentence, analysis, sources, pool, asked, small_talk, near,
                                           taste_asked=taste_asked)
                results[i].features["similarity"] = similarity
        flag_below = self.weights.flag_below_retrieved if pool.retrieved_only else self.weights.flag_below
        for support, sentence in zip(results, analysis.sentences):
            if support.claim:
                support.threshold = flag_below
                support.flagged = support.score < flag_below and self.substantial(support.features)
                support.reason = _reason(support, flag_below)
                if support.flagged and reworded and self.in_other_words(support):
                    support.flagged = False
                    support.reason += "; " + _in_other_words_reason(support)
                if support.flagged and says_record(support):
                    support.flagged = False
                    support.reason += f"; not flagged: a terse record said in a sentence ({support.evidence!r})"
                if (sentence.mode == "experience" and sources.grounded and not _told_first_hand(support)
                        and not _first_hand_in_sources(sentence.stems, sources)
                        and not (team_asks and _speaks_as_team(sentence.claim.text))):
                    # Whatever words it shares with the sources, what the assistant says it did or has
                    # is its own story: made up, unless the sources tell it first hand too.
                    support.flagged = True
                    support.reason += "; " + OWN_EXPERIENCE
        return results

    def judge_answer(self, results: list[ClaimSupport], text: str, sources: Sources, question: str = "",
                     parts: list[tuple[str, str, str]] | None = None, embedder=None) -> AnswerSupport | None:
        """The answer as a whole against the evidence at hand (None without evidence or retrieved
        chunks: nothing to hold it to). An answer the evidence bears out too little — a made-up aside
        here, an unsupported word there, none enough alone — has its weakest claim flagged when that
        claim lacks more than an everyday word; else, when no claim of it is flagged, the answer itself
        is unsupported (UnsupportedAnswer): the whole answer is weakly supported, not one claim —
        provided its weakest claim scores under the claim threshold too, spared only because what it
        lacks is little and ordinary.
        An answer that voices a taste or judgement of its own whose words the evidence lacks (an aside:
        ASIDE_MODES) is reported as a whole, whatever its claims score and even when it has none.
        Never an answer that claims nothing but questions, notices, courtesy and where the assistant
        stands, nor one in reply to small talk ("hi", "thanks"), which there is nothing to hold to.
        An answer weak as a whole whose every claim scores as supported is reported as a whole unless each
        claim restates the evidence (restates); `parts` and `embedder` (the evidence texts, as to assess)
        let a claim be read as an evidence sentence in other words."""
        if not sources.grounded:
            return None
        pool = EvidencePool(parts or [])
        cap = min(self.weights.answer_flag_below, ANSWER_FLAG_CAP)
        below = cap * (1.0 if sources.explicit else RETRIEVED_FACTOR)
        judged = AnswerSupport(self.answer_support(results, text, sources), below)
        claims = [c for c in results if c.claim]
        # Tastes and judgements of the answer's own whose words the evidence lacks (ASIDE_MODES).
        asides = [c for c in results if not c.claim and c.missing]
        if (judged.score >= below or not (claims or asides) or any(c.flagged for c in claims)
                or (question.strip() and is_small_talk(question))):
            return judged
        if not claims:
            return _unsupported_whole(judged, asides, [])
        weakest = min(claims, key=lambda c: c.score)
        if self._may_reword(sources) and self.in_other_words(weakest):
            # The weakest claim tells an evidence sentence in other words: the answer is worded, not made up.
            weakest.reason += "; " + _in_other_words_reason(weakest)
            return judged
        if (weakest.features.get("missing_mass", 0.0) >= self.weights.answer_min_missing_mass
                or weakest.features.get("unaligned", 0.0) > 0) and not says_record(weakest):
            weakest.flagged = True
            lacking = ", ".join(weakest.missing[:6]) or "names or values"
            weakest.reason = (f"the answer's support {judged.score:.2f} < {below:.2f} and this is its weakest claim "
                              f"({weakest.score:.2f}); not in the evidence: {lacking}")
            return judged
        if asides:
            return _unsupported_whole(judged, asides, claims)
        if weakest.score >= weakest.threshold or says_record(weakest):
            # Every claim scores as supported and nothing voices a taste or judgement of its own. When each
            # claim restates what the evidence says — a terse record said in sentences ("Chair" → "chairs"),
            # a sentence in other words, a name it gives — the weakness is in the wording, or in what claims
            # nothing around them (a question back, an offer, courtesy: "Anything else you'd like to know?").
            # Otherwise the answer takes the evidence's words without saying what it says.
            loose = [c for c in claims if not self.restates(c, pool, embedder)]
            if not loose:
                return judged
            judged.unsupported = True
            judged.reason = (f"the answer's support {judged.score:.2f} < {below:.2f}: it takes the evidence's words "
                             f"without saying what the evidence says ({loose[0].text.strip()!r})")
            return judged
        judged.unsupported = True
        judged.missing = list(dict.fromkeys(word for c in claims for word in c.missing))[:8]
        judged.reason = (f"the answer's support {judged.score:.2f} < {below:.2f}: the evidence bears out too little "
                         "of it as a whole, though no one claim lacks enough to flag alone")
        return judged

    def restates(self, support: ClaimSupport, pool: EvidencePool, embedder) -> bool:
        """The claim, scored as supported, says what the evidence says: it quotes its evidence sentence;
        that sentence is a terse record (a line of labels and values, which any answer words otherwise:
        "Jennifer Tran, Science Department Chair" → "Jennifer Tran chairs the Science Department"); its
        meaning is one evidence sentence's (in_other_words); or all it adds to the question is names and
        values the evidence states and at most one other word it has ("Odile Marchetti does.", "It is
        now on 10 December.", "You can't use a hosepipe on any plot." to "Can I use a hosepipe at the
        allotment?"): a short answer to what was asked."""
        if ((support.added or support.added_values) and not support.missing
                and support.added - support.added_in_names <= 1):
            return True
        if support.added_values >= 2 and not support.missing and not support.features.get("unaligned"):
            # "offered EUR 18.400,00 net plus 4 % expenses (EUR 736,00)" over an offer in another
            # language: the values the sources state are what it says, its other words all found.
            return True
        if support.evidence and (terse_record(support.evidence) or _quoted(support.text, support.evidence)
                                 or _quoted(support.text, pool.with_neighbours(support.evidence))):
            return True
        if "similarity" not in support.features and embedder is not None and pool.sentences:
            self._add_similarity([support], pool, embedder, set())
        return self.in_other_words(support)

    def _may_reword(self, sources: Sources) -> bool:
        """Held to retrieved chunks alone (a chat turn), where the model answers in its own words."""
        return sources.grounded and not sources.explicit and self.weights.paraphrase_similarity > 0

    def in_other_words(self, support: ClaimSupport) -> bool:
        """The claim says an evidence sentence in other words: the embedding finds its meaning there, the
        evidence has at least half its content words, and it states no name or value the
        evidence lacks, no opposite polarity and no judgement of its own (those the meaning of a sentence
        hides: "on 21 March" and "on 14 March" embed alike)."""
        f = support.features
        return (f.get("similarity", 0.0) >= self.weights.paraphrase_similarity and _share_with_values(support) >= 0.5
                and not f.get("unaligned") and not f.get("negation_conflict") and not f.get("evaluative"))

    def _may_be_flagged(self, support: ClaimSupport) -> bool:
        """Lacks enough to be flagged, alone or as the weakest claim of a weak answer."""
        least = min(self.weights.min_missing_mass, self.weights.answer_min_missing_mass)
        return support.features.get("missing_mass", 0.0) >= least or self.substantial(support.features)

    def substantial(self, features: dict[str, float]) -> bool:
        """Enough is missing for a low score to mean something made up."""
        return (features.get("missing_mass", 0.0) >= self.weights.min_missing_mass or features.get("unaligned", 0.0) > 0
                or features.get("negation_conflict", 0.0) > 0)

    def answer_support(self, claim_support: list[ClaimSupport], text: str, sources: Sources) -> float:
        features = answer_features(claim_support, text, sources, self.weights.no_claim_support)
        if self.weights.answer is None:  # weights from before the answer model: the weakest claim alone
            return 1.0 / (1.0 + math.exp(-features["weakest"]))
        return logistic(features, self.weights.answer)

    def _lexical(self, sentence: SentenceInfo, analysis: AnswerAnalysis, sources: Sources, pool: EvidencePool,
                 asked: set[str], small_talk: bool = False, near: frozenset[str] = frozenset(),
                 taste_asked: bool = False) -> ClaimSupport:
        """The claim's lexical features and score; `near`: its words the evidence has in other words;
        `taste_asked`: the question asks the assistant's own taste, which a taste in reply answers."""
        claim = sentence.claim
        record = ClaimSupport(claim.text, claim.span, 1.0)
        if sentence.mode in NOT_CLAIMS:
            record.claim, record.reason = False, f"not a claim ({sentence.mode})"
            if sentence.mode in ASIDE_MODES and not taste_asked:
                record.missing = _aside_words(sentence, sources, asked)
            return record
        if sentence.mode == "experience" and small_talk:
            # "I'm great, I spent the morning in the park" to "hi, how are you?" is courtesy, not a story to check.
            record.claim, record.reason = False, "not a claim (small talk)"
            return record
        start, end = claim.span
        inner = [(c.span, c.kind) for c in analysis.claims if c.kind != "sentence" and start <= c.span[0] < end]
        total = weighted_total = supported = weighted_supported = 0.0
        by_name = 0  # words found as part of a name the evidence states
        missing: list[str] = []
        wording = True  # every word missing is a verb or a particle ("brought in", "set aside")
        stems: set[str] = set()
        echoed = evaluative = 0
        unaligned, aligned, named = self._alignment(sentence, analysis, sources)
        # What a value the sources state is said to be ("her phone extension is 214" beside a record
        # "phone: 214"): the noun names the value, it claims nothing more.
        vouched = self._vouched_cues(sentence, analysis, sources)
        spelled = _spelled_out(sentence, sources)
        for word, span, pos in sentence.words:
            inside_value = any(a <= span[0] < b and kind != "name" for (a, b), kind in inner)
            if is_soft(word) and not _supported_word(word, sources):
                evaluative += 1  # "amazing", "famous": a judgement the evidence does not make
            if (inside_value or is_soft(word) or len(word) <= 2 or any(ch.isdigit() for ch in word)
                    or word.lower() in WHEN_WORDS or word.lower() in HEDGES or (word.islower() and is_typo(word))):
                continue  # values and numbers are aligned below; courtesy and typos claim nothing
            if stem(word) in asked:
                echoed += 1
                continue  # the question's own words, said back, are not the answer's claim
            weight = rarity(word) * (1.5 if pos == "PROPN" else 1.0)
            stems.add(stem(word))
            total += 1
            weighted_total += weight
            in_name = any(a <= span[0] < b for a, b in named)
            if (_supported_word(word, sources) or in_name or stem(word) in vouched or word.lower() in near
                    or span[0] in spelled):
                supported += 1
                weighted_supported += weight
                by_name += in_name
            else:
                missing.append(word)
                wording = wording and pos in WORDING_POS

        if total == 0 and aligned == 0 and not (echoed and sentence.mode == "experience"):
            record.claim = False
            record.reason = ("not a claim (only the question's own words)" if echoed
                             else "not a claim (courtesy or small talk)")
            return record
        best, best_share = pool.best(stems)
        claim_pairs = _pairs([w for w, _, _ in sentence.words if stem(w) not in asked])
        features = {
            "share": supported / total if total else 1.0,
            "weighted_share": weighted_supported / weighted_total if weighted_total else 1.0,
            "missing_mass": min(3.0, weighted_total - weighted_supported),
            "phrase_share": (len(claim_pairs & pool.pairs) / len(claim_pairs)) if claim_pairs else
            (supported / total if total else 1.0),
            "best_share": best_share,
            "unaligned": min(2, unaligned) / 2,
            "negation_conflict": float(best >= 0 and best_share >= 0.5
                                       and sentence.negated != pool.sentences[best].negated),
            "length": min(1.0, total / 12),
            "evaluative": min(3, evaluative) / 3,
        }
        record.features = {k: round(v, 4) for k, v in features.items()}
        record.score = round(logistic(features, self.weights.lexical), 4)
        record.missing = missing[:8]
        record.added, record.added_in_names = int(total), by_name
        record.lacks_wording_only = wording
        record.added_values = self._stated_values_added(sentence, analysis, sources, asked)
        if best >= 0:
            record.evidence, record.source = pool.sentences[best].text, pool.sentences[best].label
        return record

    def _alignment(self, sentence: SentenceInfo, analysis: AnswerAnalysis, sources: Sources):
        """(values and names the evidence does not state, how many there are, the spans of the names
        it does state: their words count as found even when spelt a little differently) in this
        sentence. A value of a kind the evidence gives none of (a year beside evidence with no dates)
        is not held against it: the evidence cannot tell it wrong."""
        indexes = sources.indexes
        unaligned = aligned = 0
        named = []
        for vc in analysis.values:
            if vc.sentence == sentence.index and vc.value.vtype != "relative":
                aligned += 1
                # A retrieved document's own date ("the meeting on 21 January" over that day's minutes)
                # is stated by the document, though not in the passage's words.
                dated = vc.value.vtype == "date" and any(
                    written and V.is_day(vc.value.parsed, written) for written in sources.supplied_dates)
                unaligned += not dated and not any(index.supports_value(vc.value) for index in indexes) and (
                    not sources.grounded or states_kind(sources, vc.value))
        for name in analysis.names:
            if name.sentence == sentence.index:
                aligned += 1
                if (name.entity_ids or any(index.supports_name(name.claim.text) for index in indexes)
                        or any(index.names_loosely(name.claim.text) for index in indexes)):
                    named.append(name.claim.span)
                else:
                    unaligned += 1
        return unaligned, aligned, named

    def _stated_values_added(self, sentence: SentenceInfo, analysis: AnswerAnalysis, sources: Sources,
                             asked: set[str]) -> int:
        """How many values of the sentence the sources state that the question did not give ("now on 10
        December" to "When is the walk-through?")."""
        indexes = sources.indexes
        return sum(1 for vc in analysis.values
                   if vc.sentence == sentence.index and vc.value.vtype != "relative"
                   and not {stem(w) for w in words(vc.claim.text)} <= asked
                   and any(index.supports_value(vc.value) for index in indexes))

    def _vouched_cues(self, sentence: SentenceInfo, analysis: AnswerAnalysis, sources: Sources) -> set[str]:
        """Stems of the nouns that the sentence's values are said of, for values the sources state."""
        indexes = sources.indexes
        return {stem(vc.cue) for vc in analysis.values
                if vc.sentence == sentence.index and vc.cue and vc.value.vtype != "relative"
                and any(index.supports_value(vc.value) for index in indexes)}

    def _add_similarity(self, pending: list[ClaimSupport], pool: EvidencePool, embedder,
                        rescored: set[int]) -> dict[int, int]:
        """The similarity of each pending claim to its closest evidence sentence; those in `rescored` (ids)
        are scored again by the full model. Returns the index of that sentence for each claim (by id)."""
        closest = {}
        evidence = self.vectors.of(embedder, [s.text for s in pool.sentences])
        # Through the kept vectors: the answer's own sentence may be on its way there (Postprocessor._embed_ahead).
        claims = self.vectors.of(embedder, [s.text for s in pending])
        similarities = claims @ evidence.T
        for support, row in zip(pending, similarities):
            best = int(row.argmax())
            closest[id(support)] = best
            support.features["similarity"] = round(float(row[best]), 4)
            if id(support) in rescored:
                support.score = round(logistic(support.features, self.weights.full), 4)
            if not support.evidence or support.features.get("best_share", 0.0) < 0.5:
                # Said in other words: the sentence it is closest to in meaning is the one to show.
                support.evidence, support.source = pool.sentences[best].text, pool.sentences[best].label
        return closest

    def _near_words(self, support: ClaimSupport, pool: EvidencePool, closest: int, embedder) -> frozenset[str]:
        """The claim's missing everyday words whose meaning a word of its evidence sentences has (the one
        closest in meaning, and the one sharing most words): "begin" beside "start", "purchase" beside
        "buy". Word embeddings of the shipped sentence model, compared one word to one word."""
        missing = [w.lower() for w in support.missing if w.isalpha() and w.islower()]
        if not missing:
            return frozenset()
        texts = {pool.sentences[closest].text}
        lexical_best, _ = pool.best({stem(w) for w in words(support.text) if not is_stop(w)})
        if lexical_best >= 0:
            texts.add(pool.sentences[lexical_best].text)
        beside = sorted({w for t in texts for w in _plain_words(t)} - set(missing))
        if not beside:
            return frozenset()
        vectors = self.vectors.of(embedder, missing + beside)
        similarities = vectors[:len(missing)] @ vectors[len(missing):].T
        return frozenset(w for w, row in zip(missing, similarities) if float(row.max()) >= NEAR_WORD_SIMILARITY)


def terse_record(sentence: str) -> bool:
    """A line of labels and values rather than prose ("Phone: 214", "Treasurer | Amaury Lisle", a CSV
    row): a row of a table, a labelled line, or at most TERSE_FUNCTION_SHARE of its words are function words."""
    if _TABLE_ROW_RE.match(sentence):
        return True
    label = _LABELLED_RE.match(sentence)
    if label and not any(is_stop(w) and w.lower() not in LABEL_LINKS for w in words(label.group())):
        return True  # not "He said: …", whose "label" is a speaker and a verb
    tokens = [w for w in words(sentence) if w.isalpha()]
    return bool(tokens) and sum(is_stop(w) for w in tokens) / len(tokens) <= TERSE_FUNCTION_SHARE


def says_record(support: ClaimSupport) -> bool:
    """The claim says a terse record in a sentence ("You can reach her on 214 555 0199" for "Phone: 214 555
    0199", "The firm brought in £612,400 in fees" for "Fee income: £612,400"): its evidence sentence is a
    terse record, which has none of the verbs and links a sentence needs; the evidence has at least half the
    claim's content words, and what it lacks is at most RECORD_WORDING verbs or particles (WORDING_POS: not
    a thing, a name or a manner: "a live band", "Sage", "weekly"); and the claim states no name or value the
    evidence lacks, no opposite polarity and no judgement of its own. The words missing are the wording."""
    f = support.features
    return (bool(support.evidence) and terse_record(support.evidence) and support.lacks_wording_only
            and len(support.missing) <= RECORD_WORDING
            and f.get("share", 0.0) >= 0.5
            and not f.get("unaligned") and not f.get("negation_conflict") and not f.get("evaluative"))


def _share_with_values(support: ClaimSupport) -> float:
    """The share of what the claim adds to the question that the evidence has, the values the sources
    state counted beside its content words: "Leslieville is closed from 24 December through 1 January and
    reopens on 4 January" to "When is Leslieville closed?" adds three dates and one word ("reopens"), not
    one word alone."""
    found = support.features.get("share", 0.0) * support.added + support.added_values
    total = support.added + support.added_values
    return found / total if total else support.features.get("share", 0.0)


def _quoted(claim: str, sentence: str) -> bool:
    """The claim is the evidence sentence's own words, in its order (all of it, or a run of it)."""
    said, source = [w.lower() for w in words(claim)], [w.lower() for w in words(sentence)]
    return bool(said) and any(source[i:i + len(said)] == said for i in range(len(source) - len(said) + 1))


def unfound_words(answer: str, question: str, supplied: TextIndex) -> list[str]:
    """The answer's everyday words that its evidence lacks and its question does not ask: those a weak
    claim's _near_words may compare with the evidence's words (a superset: the records and earlier
    turns may hold some), worth embedding before the claims are known."""
    asked = {stem(w) for w in words(question) if not is_stop(w)}
    return list(dict.fromkeys(
        w.lower() for w in words(answer)
        if len(w) > 2 and w.isalpha() and w.islower() and not is_stop(w) and stem(w) not in asked
        and not supplied.has_word(w)))


def _plain_words(sentence: str) -> list[str]:
    """The words of an evidence sentence that _near_words compares a claim's missing words with."""
    return [w.lower() for w in words(sentence) if w.isalpha() and not is_stop(w)]


def answer_features(claim_support: list[ClaimSupport], text: str, sources: Sources,
                    no_claim_support: float) -> dict[str, float]:
    """What the answer as a whole is scored on: its weakest claim and the mean of its claims (as
    log-odds), how much of its wording the evidence has (answer_wording), and the share of its
    sentences that claim nothing."""
    scores = [c.score for c in claim_support if c.claim] or [no_claim_support]
    return {
        "weakest": log_odds(min(scores)),
        "mean_claim": sum(log_odds(s) for s in scores) / len(scores),
        **answer_wording(text, sources),
        "unclaimed": (sum(not c.claim for c in claim_support) / len(claim_support)) if claim_support else 0.0,
    }


def answer_wording(text: str, sources: Sources) -> dict[str, float]:
    """How much of the answer's wording the evidence has (the question's excepted: saying it back is
    no evidence of anything). Its content words: their share, plainly and weighted by how rare each
    is in English, and the rare-word weight missing altogether. All its words, function words
    included: their share, and how many are in no word pair the evidence has too. The words of
    remarks and questions count: an answer that wraps a sentence of the evidence in an aside of its
    own ("I don't think I ever did", "yes, you are right") rests on the evidence less than one
    that says only that sentence."""
    held = (sources.supplied, sources.records, sources.earlier)
    tokens = words(text)
    content = [w for w in tokens if w.isalpha() and not is_stop(w)]
    found = [any(index.has_word(w) for index in held) for w in content]
    weights = [rarity(w) for w in content]
    weighted_total = sum(weights)
    weighted_missing = sum(weight for weight, ok in zip(weights, found) if not ok)
    lowered = [t.lower() for t in tokens]
    pair_sets = [_word_pairs(t) for index in held for t in index.texts]
    covered = [False] * len(lowered)
    for i, pair in enumerate(zip(lowered, lowered[1:])):
        if any(pair in pairs for pairs in pair_sets):
            covered[i] = covered[i + 1] = True
    return {
        "answer_share": sum(found) / len(content) if content else 1.0,
        "answer_weighted_share": 1 - weighted_missing / weighted_total if weighted_total else 1.0,
        "answer_missing_mass": min(4.0, weighted_missing) / 4,
        "answer_word_share": (sum(any(index.has_word(t) for index in held) for t in tokens) / len(tokens)
                              if tokens else 1.0),
        "answer_uncovered": min(ANSWER_UNCOVERED_CAP, covered.count(False)) / ANSWER_UNCOVERED_CAP,
    }


@functools.lru_cache(maxsize=512)
def _word_pairs(text: str) -> frozenset[tuple[str, str]]:
    """Every two neighbouring words of a text, function words included, in lower case."""
    tokens = [w.lower() for w in words(text)]
    return frozenset(zip(tokens, tokens[1:]))


def _unsupported_whole(judged: AnswerSupport, asides: list[ClaimSupport], claims: list[ClaimSupport]) -> AnswerSupport:
    """The weak answer reported as a whole for the taste or judgement of its own it voices around what
    it claims (or instead of any claim): what that aside says, the evidence does not."""
    judged.unsupported = True
    judged.missing = list(dict.fromkeys(word for c in asides + claims for word in c.missing))[:8]
    judged.reason = (f"the answer's support {judged.score:.2f} < {judged.threshold:.2f}: the evidence bears out too "
                     f"little of it as a whole, and it voices what the evidence does not say ({asides[0].text.strip()!r})")
    return judged


def log_odds(p: float) -> float:
    """A support score as log-odds (clipped): how the answer model reads a claim's score."""
    return math.log(max(p, 1e-4) / max(1 - p, 1e-4))


_FIRST_PERSON_RE = re.compile(r"\b(?:I|i|[Ww]e|[Mm]y|[Oo]ur|[Mm]e|[Uu]s)\b")


_TEAM_RE = re.compile(r"\b(?:we|our|us|ours)\b", re.IGNORECASE)
_SINGULAR_RE = re.compile(r"\b(?:[Ii]|[Mm]y|[Mm]e|[Mm]ine)\b")


def _speaks_as_team(text: str) -> bool:
    """Says "we" or "our", never "I" or "my"."""
    return _TEAM_RE.search(text) is not None and _SINGULAR_RE.search(text) is None


def _told_first_hand(support: ClaimSupport) -> bool:
    """The closest evidence sentence tells the same in the first person ("I met Dana on Tuesday" in
    the user's own notes), and says most of it."""
    return (bool(support.evidence) and support.features.get("best_share", 0.0) >= 0.5
            and _FIRST_PERSON_RE.search(support.evidence) is not None)


def _first_hand_in_sources(stems: set[str], sources: Sources) -> bool:
    """A source sentence in the first person says most of what the answer's own-story sentence says, with
    the lines either side of it in the same text (notes wrap a sentence onto the next line, and ask a
    question before they answer it): the team's minutes' "Need our CIDB 6CE upgraded? No: … so we go in
    JV / with Ubuntu Roadworx" for "It needs CIDB 7CE or higher, so we are going in with Ubuntu Roadworx",
    where the closest evidence was a supplier list's row without the "we"."""
    if len(stems) < 3:
        return False
    sentences = sources.supplied.sentences
    for i, (text, text_stems, source) in enumerate(sentences):
        if not _FIRST_PERSON_RE.search(text):
            continue
        around = set(text_stems).union(*(sentences[j][1] for j in (i - 1, i + 1)
                                         if 0 <= j < len(sentences) and sentences[j][2] == source))
        if len(stems & around) * 3 >= len(stems) * 2:
            return True
    return False


def _in_other_words_reason(support: ClaimSupport) -> str:
    return (f"not flagged: said in other words (similarity {support.features.get('similarity', 0.0):.2f} to its "
            "closest evidence sentence)")


def asks_for_taste(question: str) -> bool:
    """The question asks the assistant's own taste ("Do you like Tom Brady?", "What do you think of
    their new album?", "Are you a fan?"): a taste or judgement in reply answers it, no aside of its own."""
    tokens = [w.lower() for w in words(question)]
    return any(t in ("you", "your") for t in tokens) and any(stem(t) in _TASTE_STEMS for t in tokens)


def _aside_words(sentence: SentenceInfo, sources: Sources, asked: set[str]) -> list[str]:
    """Content words of an aside (a taste or judgement: ASIDE_MODES) that neither the evidence nor the
    question has: what the answer voices of its own. Courtesy and judgement words ("great", "sure") are
    left out: a polite word is no content."""
    return [word for word, _, _ in sentence.words
            if word.isalpha() and len(word) > 2 and not is_soft(word) and not is_stop(word)
            and stem(word) not in asked and stem(word) not in _STANCE_STEMS and not _supported_word(word, sources)][:8]


# The verbs that say how the speaker stands ("I think", "I like", "you'll enjoy", "I'd suggest"): they
# frame an aside, what it is about is its content.
_STANCE_STEMS = frozenset(stem(w) for w in OPINION_LEMMAS | COGNITION_LEMMAS | INTENT_LEMMAS)
# Words that ask for a taste when said to "you".
_TASTE_STEMS = frozenset(stem(w) for w in OPINION_LEMMAS | {"fan", "favorite", "favourite"})


def _spelled_out(sentence: SentenceInfo, sources: Sources) -> set[int]:
    """Where the sentence's words start that, with the words beside them, spell out an abbreviation the
    evidence writes: "direct dial" for "DDI +353 1 661 4207", "purchase order" for "PO 4471"."""
    indexes = [index for index in sources.indexes if index.abbreviations]
    if not indexes:
        return set()
    start = sentence.claim.span[0]
    found = [(m.group(), start + m.start()) for m in WORD_RE.finditer(sentence.claim.text)]
    spelled: set[int] = set()
    for i in range(len(found)):
        for n in (2, 3, 4):
            run = found[i:i + n]
            if (len(run) < n or is_stop(run[0][0]) or is_stop(run[-1][0])
                    or not all(w.isalpha() and not w.isupper() for w, _ in run)):
                continue
            initials = "".join(w[0] for w, _ in run).lower()
            if any(index.abbreviates(initials) for index in indexes):
                spelled.update(at for _, at in run)
    return spelled


def _supported_word(word: str, sources: Sources) -> bool:
    indexes = sources.indexes
    if any(index.has_word(word) for index in indexes):
        return True
    # A name's word one slip from the evidence's ("Snoop Dog", "Snoop Dogg") is the same word.
    return word[:1].isupper() and any(index.supports_name_loosely([word.lower()]) for index in indexes)


def _reason(support: ClaimSupport, flag_below: float) -> str:
    f = support.features
    if not support.flagged:
        if f.get("share", 0) >= 0.999 and not f.get("unaligned"):
            return "every content word is in the evidence"
        if support.score < flag_below:
            return (f"support {support.score:.2f} < {flag_below:.2f}, but what is missing is little and "
                    f"ordinary ({', '.join(support.missing[:4])})")
        return f"support {support.score:.2f} ≥ {flag_below:.2f}"
    why = []
    if f.get("unaligned"):
        why.append("names or values the evidence does not state")
    if f.get("negation_conflict"):
        why.append("the evidence says it the other way round")
    if support.missing:
        why.append("not in the evidence: " + ", ".join(support.missing[:6]))
    return f"support {support.score:.2f} < {flag_below:.2f}" + (f"; {'; '.join(why)}" if why else "")


def evidence_parts(evidence: list[str], evidence_labels: list[str] | None, chunks, records: TextIndex,
                   history_texts: list[str]) -> list[tuple[str, str, str]]:
    """Every text an answer may lean on as (text, label, kind), in order of trust."""
    labels = list(evidence_labels or [])
    parts = [(text, labels[i] if i < len(labels) and labels[i] else f"evidence {i + 1}", SUPPLIED)
             for i, text in enumerate(evidence)]
    for chunk in chunks:
        name = chunk.title or Path(chunk.source).name or chunk.source
        parts.append((chunk_text(chunk), f"document {name} (retrieved)", RETRIEVED))
    parts += [(text, "knowledge base", KNOWLEDGE) for text in records.texts]
    parts += [(text, "earlier turn", EARLIER) for text in history_texts]
    return parts


def chunk_text(chunk) -> str:
    return _chunk_text(chunk.title, chunk.content, getattr(chunk, "date", None))


@functools.lru_cache(maxsize=256)  # a turn reads its chunks' text several times, and chunks come back
def _chunk_text(title: str, content: str, written) -> str:
    # "next Tuesday" in a retrieved mail states the day it meant then, so an answer giving that day holds.
    content = with_days_meant(content, written)
    return f"{title}\n{content}" if title else content


def settle_flags(claim_support: list[ClaimSupport], reported, grounded: bool) -> None:
    """Make each claim's `flagged` and `reason` say what the user is shown: flagged when a reported
    finding falls in it, with that finding named (a wrong value is a conflict, not weak support)."""
    # A finding about the whole answer (UnsupportedAnswer) is about no one claim.
    reported = [f for f in reported if f.flag_type not in ANSWER_LEVEL]
    for support in claim_support:
        start, end = support.span
        inside = [f for f in reported if start <= f.span[0] < end]
        # The sentence's own UnsupportedClaim (it spans the whole sentence) is what the score says already.
        others = [f for f in inside if not (f.flag_type == "UnsupportedClaim" and f.span[0] == start
                                            and f.span[1] >= end - 1)]
        if others:
            named = "; ".join(f"{f.flag_type} at {f.content!r}" + (f" (expected {f.suggestion!r})" if f.suggestion else "")
                              for f in others[:3])
            support.reason = named + (f"; {support.reason}" if support.flagged else "")
        elif support.flagged and not inside:
            support.reason += ("; not flagged: no evidence or retrieved document to hold it to" if not grounded
                               else "; not flagged: a finding about it already covers it")
        support.flagged = bool(inside)
