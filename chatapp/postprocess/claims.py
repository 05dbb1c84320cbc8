"""Claims in an answer: its sentences, and inside them the values (emails,
phones, URLs, dates, amounts, numbers) and names it states — each with its
span in the original answer and, where it can be told, the entity it is about.

"John's email is X": the email is about whoever "John" resolves to. The
entity a value belongs to is the mentioned entity that could have such a value
(a person has an email, a meeting has a time), preferring the possessor
("John's"), then the nearest mention before the value; pronouns refer back to
the last person or thing named, and names the user's question resolved win
over other readings of the same alias.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from chatapp.knowledge.extraction.observations import is_job_word, looks_like_person
from chatapp.knowledge.extraction.people import TITLE_WORDS, address_spells_name, is_job_title, trimmed_title
from chatapp import lexicon
from chatapp.lexicon import is_first_name
from chatapp.postprocess import values as V
from chatapp.postprocess.evidence import is_stop, stem, words
from chatapp.postprocess.knowledge_view import COMPATIBLE_SHAPES, EntityMention, KnowledgeView
from chatapp.postprocess.layout import cells, code_block_spans, line_pieces, table_line_spans, table_rows
from chatapp.postprocess.recogniser import carry_names, recognise_names
from chatapp.postprocess.stance import SentenceMode, sentence_mode
from chatapp.postprocess.statements import in_title
from chatapp.records import Claim, ResolvedEntity

# The given names and the particle before a father's name ("Nurul Huda binti ", "Rajesh s/o "), as Malay
# and Tamil names are written in Singapore and Malaysia: one name with the one after it.
_GIVEN_BEFORE_PARTICLE = re.compile(r"(?<![\w'’-])(?:[A-Z][a-z'’-]+\s+){1,3}(?:bin|binti|binte|bte|s/o|d/o|a/l|a/p)\s+$")
NAME_LABELS = frozenset({"PERSON", "ORG", "GPE", "LOC", "NORP", "FAC", "EVENT", "PRODUCT", "WORK_OF_ART", "LAW"})
PERSON_PRONOUNS = frozenset({"he", "him", "his", "she", "her", "hers"})
THING_PRONOUNS = frozenset({"it", "its"})
NEGATIONS = frozenset({"not", "n't", "never", "no", "neither", "nor", "none", "cannot"})
FUTURE_MARKERS = frozenset({"will", "'ll", "upcoming", "shall"})
# Words that may sit between a name and what it is ("Sarah from marketing",
# "John Smith, the Engineering Manager", "Priya, based in Austin").
LINK_WORDS = frozenset({"from", "in", "of", "at", "is", "was", "the", "our", "a", "an", "as", "works", "worked",
                        "working", "based", "who", "heads", "leads", "runs", "over", "on", "team", "group", "office",
                        "department", "dept", "'s", "s", "out", "now", "currently"})
# Between a role and the name it is given to: "The treasurer is now Ada Quist", "Clerk: Ada Quist".
ROLE_FIRST_GAP = frozenset({"is", "was", "now", "currently", ":"})
# Where a role is held, between the role and its holder's name: "at Kaveri Software Services", "for Acme Ltd".
_ROLE_PLACE = re.compile(r"\s+(?:at|for|with)\s+(?:the\s+)?[A-Z][\w&'’.-]*(?:\s+(?:[A-Z][\w&'’.-]*|&|of|and))*(?=\s)")
POSSESSIVE_DETERMINERS = frozenset({"the", "our", "their", "its", "his", "her", "your", "my"})


@dataclass
class NameClaim:
    claim: Claim
    label: str  # spaCy label, or "KNOWN" for a registry alias spaCy missed
    entity_ids: list[str]  # registry candidates, best first (empty: not in the registry)
    certain: bool  # the full name, or what the user's question already resolved
    sentence: int


@dataclass
class ValueClaim:
    claim: Claim
    value: V.FoundValue
    cue: str  # the noun the value is said of ("email", "budget", …), for matching slots
    sentence: int
    certain: bool  # the entity it is about is identified beyond doubt
    # No name or pronoun in its own sentence: about what the sentence before named, or what was asked.
    inherited: bool = False


def _name_label(label: str, surface: str) -> str:
    """spaCy's label, but PERSON for an "organisation" that reads as a person's name, a given name first
    ("his deputy is Lorcan Pettifer", which the small model may tag ORG): an invented person is checked
    as one."""
    if label == "ORG" and is_first_name(surface.split()[0]) and looks_like_person(surface):
        return "PERSON"
    return label


def label_words(sentence: "SentenceInfo", value: ValueClaim) -> list[str]:
    """The content words its sentence puts before a value: what the value is given as ("Attendance
    line: …", "all staff — staff@…"); none for a value that opens its line."""
    return [w for w, span, _ in sentence.words if span[1] <= value.value.span[0]]


@dataclass
class ProfileLink:
    """A known entity written next to a profile value: "Sarah from marketing"."""

    entity_id: str
    span: tuple[int, int]  # from the name to the end of the value
    value_span: tuple[int, int]
    value_text: str
    key: str
    certain: bool
    sentence: int
    # "The conservation officer is Ifor Penhaligon": the value first, the name after it, so a wrong
    # pairing is more likely the wrong person than the wrong role.
    name_span: tuple[int, int] | None = None


@dataclass
class SentenceInfo:
    claim: Claim
    index: int
    words: list[tuple[str, tuple[int, int], str]]  # (text, span, pos) of content words
    stems: set[str] = field(default_factory=set)
    # The pieces of its reference codes ("ASI-05", "RFI-014", "Q4"), which no content word holds but which
    # say, better than any word, what the sentence is about.
    code_stems: set[str] = field(default_factory=set)
    entity_ids: list[str] = field(default_factory=list)  # mentioned or referred to, in order
    subject_id: str | None = None
    negated: bool = False
    future: bool = False
    past: bool = False
    root_lemma: str = ""
    # "statement" states facts; "question", "opinion" ("I think you'll like it"), "courtesy" and "personal" do not,
    # so their wording is not held to the sources; nor is "meta", a line that frames the answer
    # ("(offline — …)", "Sources: …", "From your documents:") or cites where it came from.
    mode: SentenceMode = "statement"


@dataclass
class AnswerAnalysis:
    text: str
    sentences: list[SentenceInfo]
    values: list[ValueClaim]
    names: list[NameClaim]
    profile_links: list[ProfileLink]
    doc: object = None  # the spaCy parse, for checks that need the syntax (relations.py)
    # Each he/she/it/his/her/its as (span, entity referred to, identified beyond doubt).
    pronoun_refs: list[tuple[tuple[int, int], str, bool]] = field(default_factory=list)

    @functools.cached_property
    def claims(self) -> list[Claim]:
        every = [s.claim for s in self.sentences] + [v.claim for v in self.values] + [n.claim for n in self.names]
        return sorted(every, key=lambda c: (c.span[0], c.kind != "sentence", -c.span[1]))

    @classmethod
    def words_only(cls, text: str) -> AnswerAnalysis:
        """An earlier answer no check reads beyond its words (it is not parsed): see
        hallucination.reads_earlier."""
        return cls(text, [], [], [], [])

    def sentence_of(self, position: int) -> SentenceInfo | None:
        for sentence in self.sentences:
            if sentence.claim.span[0] <= position < sentence.claim.span[1]:
                return sentence
        return None


class ClaimExtractor:
    def __init__(self, nlp, view: KnowledgeView):
        self.nlp = nlp
        self.view = view

    def extract(self, text: str, resolved: list[ResolvedEntity] = (), with_ner: bool = True,
                names_of: tuple[AnswerAnalysis, list[tuple[tuple[int, int], str]]] | None = None) -> AnswerAnalysis:
        """`with_ner=False` skips spaCy's NER (earlier turns only need their values and known names).
        `names_of`: (the analysis of an answer, the edits — span and new text — that made `text` of it):
        `text` is that answer corrected, and has its names where they moved to, each edit's new text
        keeping the kind of what it replaced, instead of the recogniser's reading."""
        if "ner" not in self.nlp.pipe_names:
            return self.analyse(self.nlp(text), text, resolved)
        doc = self.nlp(text, disable=["ner"])
        mentions = self.view.find_mentions(text)
        if names_of is not None and names_of[0].doc is not None:
            carry_names(names_of[0].doc, names_of[1], doc)
        elif with_ner:
            # The recogniser reads only the sentences that can hold a name (recogniser.py).
            recognise_names(self.nlp, doc, [m.span for m in mentions])
        return self.analyse(doc, text, resolved, mentions)

    def extract_many(self, texts: list[str], with_ner: bool = True) -> list[AnswerAnalysis]:
        """extract() for several texts, parsed by spaCy as one batch."""
        disable = [] if with_ner or "ner" not in self.nlp.pipe_names else ["ner"]
        return [self.analyse(doc, text) for text, doc in zip(texts, self.nlp.pipe(texts, disable=disable))]

    def analyse(self, doc, text: str, resolved: list[ResolvedEntity] = (),
                mentions: list[EntityMention] | None = None) -> AnswerAnalysis:
        """The claims of `text`, given its spaCy parse `doc` (and the registry names in it, when found
        already)."""
        resolved_ids = [r.entity_id for r in resolved if r.entity_id and r.entity_id in self.view.entities]
        # A number inside a title ("2 Fast 2 Furious") belongs to the name, not to a count.
        code = code_block_spans(text)  # fenced code claims nothing: no sentence, value or name in it
        found_values = [v for v in V.find_values(text) if not (v.vtype == "number" and in_title(text, v.span))
                        and not _overlaps(v.span, code)]
        value_spans = [v.span for v in found_values]
        sentences = self._sentences(doc, text, code)
        if mentions is None:
            mentions = self.view.find_mentions(text)
        mentions = [*mentions, *self.view.short_mentions(text, resolved_ids, [m.span for m in mentions])]
        names = [n for n in self._name_claims(doc, text, sentences, mentions, value_spans, resolved_ids)
                 if not _overlaps(n.claim.span, code)]
        pronoun_refs = self._attach_entities(doc, sentences, names, resolved_ids)
        value_claims = [self._value_claim(v, text, doc, sentences, names, pronoun_refs, resolved_ids)
                        for v in found_values]
        links = self._profile_links(text, sentences, names, value_spans)
        return AnswerAnalysis(text, sentences, value_claims, names, links, doc, pronoun_refs)

    def _name_claims(self, doc, text, sentences, mentions, value_spans, resolved_ids) -> list[NameClaim]:
        """Known entities by alias, then the names spaCy finds that are not among them."""
        mentions = [m for m in mentions if not _overlaps(m.span, value_spans)]
        for m in mentions:  # the user's own referent first when an alias is shared
            m.entity_ids.sort(key=lambda i: i not in resolved_ids)
        mentions = _drop_partial_names(mentions, doc, self.view)
        names: list[NameClaim] = []
        for m in mentions:
            certain = m.exact_name or m.entity_ids[0] in resolved_ids
            names.append(NameClaim(Claim(m.surface, m.span, "name", m.entity_ids[0]), "KNOWN", m.entity_ids,
                                   certain, _index_at(sentences, m.span[0])))
        for ent in doc.ents:
            ent_span = (ent.start_char, ent.end_char)
            if ent.label_ not in NAME_LABELS or _overlaps(ent_span, value_spans + [m.span for m in mentions]):
                continue
            if ent.label_ == "PERSON" and (surname := _surname_left_out(doc, ent)) is not None:
                ent = doc.char_span(ent.start_char, surname.idx + len(surname.text), label=ent.label_) or ent
            if ent.label_ == "PERSON" and (given := _given_name_left_out(doc, ent)) is not None and not _overlaps(
                    (given.idx, ent.end_char), [m.span for m in mentions]):
                ent = doc.char_span(given.idx, ent.end_char, label=ent.label_) or ent
            for offset, part in cells(ent.text):  # a name never runs across table cells
                surface = re.sub(r"^(?:the|The)\s+", "", re.sub(r"['’]s$", "", part))
                if not re.search(r"\w", surface):
                    continue
                if not any(re.search(r"[A-Z\d]", word) and (not is_stop(word) or len(word) > 1 and word.isupper())
                           for word in surface.split()):  # "US", "IT" are names all the same
                    # "El presupuesto es de", "la": the recogniser's name for a Spanish sentence's opening
                    # words has no word a name is written with, only function words and lower-case ones.
                    continue
                start = ent.start_char + offset + part.index(surface)
                if ent.label_ == "PERSON" and (given := _GIVEN_BEFORE_PARTICLE.search(doc.text, 0, start)):
                    # "Nurul Huda binti Kamal": the recogniser's "Kamal" is the end of a name joined by "binti".
                    surface, start = doc.text[given.start():start] + surface, given.start()
                span = (start, start + len(surface))
                ids = self.view.lookup(surface)
                names.append(NameClaim(Claim(surface, span, "name", ids[0] if ids else None),
                                       _name_label(ent.label_, surface), ids,
                                       bool(ids) and (ids[0] in resolved_ids), _index_at(sentences, span[0])))
        return sorted(names, key=lambda n: n.claim.span)

    def _attach_entities(self, doc, sentences, names, resolved_ids) -> list[tuple[tuple[int, int], str, bool]]:
        """Fill in who each sentence talks about, resolving he/she/it to the last person or thing
        named (or asked about). Returns the pronouns as (span, entity, identified beyond doubt)."""
        last_person = next(((i, True) for i in resolved_ids if self.view.entities[i].type == "person"), None)
        last_thing = next(((i, True) for i in resolved_ids if self.view.entities[i].type != "person"), None)
        pronoun_refs = []
        for info in sentences:
            s_start, s_end = info.claim.span
            inside = [n for n in names if s_start <= n.claim.span[0] < s_end and n.entity_ids]
            cursor = 0
            subject = None
            for token in doc.char_span(s_start, s_end, alignment_mode="expand") or []:
                while cursor < len(inside) and inside[cursor].claim.span[0] <= token.idx:
                    named = inside[cursor]
                    entity_id = named.entity_ids[0]
                    info.entity_ids.append(entity_id)
                    if self.view.entities[entity_id].type == "person":
                        last_person = (entity_id, named.certain or len(named.entity_ids) == 1)
                    else:
                        last_thing = (entity_id, named.certain or len(named.entity_ids) == 1)
                    cursor += 1
                low = token.lower_
                referent = last_person if low in PERSON_PRONOUNS else last_thing if low in THING_PRONOUNS else None
                if referent:
                    info.entity_ids.append(referent[0])
                    pronoun_refs.append(((token.idx, token.idx + len(token)), referent[0], referent[1]))
                if token.dep_ in ("nsubj", "nsubjpass") and info.subject_id is None:
                    info.subject_id = referent[0] if referent else _mention_id(inside, token.idx)
                    subject = referent or _mention_ref(inside, token.idx)
            info.entity_ids.extend(n.entity_ids[0] for n in inside[cursor:])
            if subject is not None:
                # What a sentence is about is what the next one's "it" or "she" most likely means:
                # "Heron is co-funded by the Council. Its budget is …" is Heron's budget.
                if self.view.entities[subject[0]].type == "person":
                    last_person = subject
                else:
                    last_thing = subject
            info.stems = {stem(w) for w, _, _ in info.words} | info.code_stems
            info.claim.entity_id = info.subject_id or (info.entity_ids[0] if info.entity_ids else None)
        return pronoun_refs

    # --- pieces ----------------------------------------------------------------

    def _sentences(self, doc, text: str, code: list[tuple[int, int]] = ()) -> list[SentenceInfo]:
        """spaCy's sentences, further cut at line breaks, list items and trailing source citations:
        an answer laid out in lines ("(offline …)", a blank line, "- item (file.html)") is read
        line by line, never as one run-on sentence; a table row by row."""
        sentences = []
        # A table row is one claim ("Acme | Software | 2024"), whatever spaCy makes of the pipes;
        # a header row names columns and claims nothing.
        rows = table_rows(text)
        table_lines = table_line_spans(text)
        pieces = [p for sent in doc.sents for p in line_pieces(text, sent.start_char, sent.end_char)
                  if not _overlaps(p[:2], table_lines + list(code))]
        for start, end, meta in sorted(pieces + rows):
            span = doc.char_span(start, end, alignment_mode="expand")
            if span is None or len(span) == 0:
                continue
            raw = text[start:end]
            # One pass over the tokens (each token read makes a Python object of it).
            content, negated, future, codes = [], False, False, []
            for t in span:
                if is_content(t):
                    content.append((t.text, (t.idx, t.idx + len(t)), t.pos_))
                elif _REFERENCE_CODE.fullmatch(t.text):
                    codes.append(t.text)
                low = t.lower_
                negated = negated or low in NEGATIONS or t.dep_ == "neg"
                future = future or low in FUTURE_MARKERS
            info = SentenceInfo(Claim(raw, (start, end), "sentence"), len(sentences), content)
            info.negated = negated
            info.code_stems = {stem(w) for code in codes for w in words(code)}
            info.future = future or "going to" in raw.lower()
            root = span.root
            info.root_lemma = root.lemma_.lower()
            info.past = root.tag_ == "VBD" or any(c.dep_ in ("aux", "auxpass") and c.tag_ == "VBD"
                                                  for c in root.children)
            info.mode = sentence_mode(span, raw, meta)
            sentences.append(info)
        if not sentences and text.strip() and not code:
            start = len(text) - len(text.lstrip())
            sentences.append(SentenceInfo(Claim(text.strip(), (start, start + len(text.strip())), "sentence"), 0, []))
        return sentences

    def _value_claim(self, value, text, doc, sentences, names, pronoun_refs, resolved_ids) -> ValueClaim:
        index = _index_at(sentences, value.span[0])
        sentence = sentences[index]
        s_start, s_end = sentence.claim.span
        candidates: list[tuple[str, int, bool, bool]] = []  # (entity, position, certain, possessive)
        for n in names:
            if n.entity_ids and s_start <= n.claim.span[0] < s_end:
                possessive = bool(re.match(r"['’]s\b", text[n.claim.span[1]:n.claim.span[1] + 2]))
                candidates.append((n.entity_ids[0], n.claim.span[0], n.certain or len(n.entity_ids) == 1, possessive))
        for span, ref, certain in pronoun_refs:
            if s_start <= span[0] < s_end:
                possessive = text[span[0]:span[1]].lower() in ("his", "her", "its")
                candidates.append((ref, span[0], certain, possessive))
        shapes = COMPATIBLE_SHAPES.get(value.vtype, set())
        inherited = not candidates
        if inherited:
            # "The contract is worth $120,000": about what the sentence before named, or what the user asked about.
            # On one line, "Sorcha Maddock: Shop Manager. Email: …. Phone: …": the fields after the name are
            # still hers, though the sentence right before names nobody.
            before = index - 1
            while before > 0 and not sentences[before].entity_ids and (
                    "\n" not in text[sentences[before - 1].claim.span[1]:s_start]):
                before -= 1
            earlier = list(dict.fromkeys(sentences[before].entity_ids)) if index > 0 else []
            fitting = [e for e in earlier if any(k.shape in shapes for k in self.view.values_of(e))]
            for e in earlier:
                # Identified when the user asked about it too, or when the sentence before named it in
                # full and nothing else it named could have such a value.
                named_in_full = any(n.certain and n.entity_ids and n.entity_ids[0] == e and n.sentence == before
                                    for n in names)
                certain = e in resolved_ids or (fitting == [e] and named_in_full)
                candidates.append((e, -1, certain, False))
            candidates += [(e, -1, True, False) for e in resolved_ids[:1] if e not in earlier]
        best, best_score, certain = None, float("-inf"), False
        local = value.text.split("@")[0] if value.vtype == "email" else ""
        for entity_id, position, is_certain, possessive in candidates:
            compatible = any(k.shape in shapes for k in self.view.values_of(entity_id))
            before = position < value.span[0]
            # "Kwabena Owusu covers when Elin is off (kwabena.owusu@…)": the address says whose it is.
            spelt = bool(local) and entity_id in self.view.entities and address_spells_name(
                local, self.view.entities[entity_id].name)
            score = (3 * compatible + 2 * (possessive and before) + 1 * before + 4 * spelt
                     - 0.001 * abs(value.span[0] - position))
            if score > best_score:
                best, best_score, certain = entity_id, score, is_certain
        cue = _cue(doc, value.span, sentence.claim.span, [n.claim.span for n in names if s_start <= n.claim.span[0] < s_end])
        return ValueClaim(Claim(value.text, value.span, value.kind, best), value, cue, index, certain, inherited)

    def _profile_links(self, text, sentences, names, value_spans) -> list[ProfileLink]:
        links = []
        known = [n for n in names if n.entity_ids]
        mentions = self.view.profile_mentions(text)
        for span, surface, _owners in mentions:
            # A longer name the profile value is only part of ("Acme" in "Acme Holdings") is another
            # thing; a piece of the value spaCy took for a name ("Operations" in "Operations
            # Director") is not.
            if _overlaps(span, value_spans) or any(_overlaps(span, [n.claim.span]) and n.label != "KNOWN"
                                                   and not _contains(span, n.claim.span) for n in names):
                continue
            if (following := re.match(r"\s+([a-z][\w-]*)", text[span[1]:])) and is_job_word(following.group(1)):
                continue  # "a volunteer photographer", "an assistant manager": a longer title, not the role "volunteer"
            before = [n for n in known if n.claim.span[1] <= span[0] and not _overlaps(n.claim.span, [span])]
            if not before:
                if (link := self._role_first_link(text, span, surface, known)) is not None:
                    links.append(link)
                continue
            name = before[-1]
            between = text[name.claim.span[1]:span[0]]
            # "Ottilie Quintero is the Practice Manager at the Don Mills clinic": a profile value said of
            # the name in between (her job) links the one after it (where she works) to the name too.
            for other, _surface, _ in reversed(mentions):
                if name.claim.span[1] <= other[0] and other[1] <= span[0]:
                    start, end = other[0] - name.claim.span[1], other[1] - name.claim.span[1]
                    between = between[:start] + " " + between[end:]
            gap = re.findall(r"[\w']+|[^\w\s]", between.lower().replace("’", "'"))
            if len(gap) > 5 or any(w not in LINK_WORDS and w != "," and not _owner(gap, i) for i, w in enumerate(gap)):
                continue
            entity_id = name.entity_ids[0]
            key = self._profile_key(entity_id, surface)
            if key is None:
                continue
            links.append(ProfileLink(entity_id, (name.claim.span[0], span[1]), span, surface, key, name.certain,
                                     name.sentence))
        return links + self._unknown_title_links(text, known, value_spans + [link.value_span for link in links])

    def _unknown_title_links(self, text, known, taken) -> list[ProfileLink]:
        """ "Kofi Mensah is the museum's Chief Curator" when nobody in the documents is one and Kofi
        Mensah is Director of Facilities: a job title said of a known person right after their name,
        sharing no word with the role the documents give them. A title that shares a word ("Senior
        Curator" for a Curator of Photography) may be the same job put another way, and is left alone."""
        links = []
        for name in known:
            role = self.view.profile_value(name.entity_ids[0], "role")
            end = name.claim.span[1]
            title = TITLE_WORDS.search(text, end, min(len(text), end + 80))
            if role is None or title is None or _overlaps(title.span(), taken):
                continue
            said = trimmed_title(_title_before_a_named_thing(text, title, self.view))
            if _overlaps((title.start(), title.start() + len(said)), [n.claim.span for n in known]):
                # "Venky is Venkatesh Subramanian": a known name, however like a title it ends. A known
                # firm after "of" ("Finance Director of Harcourt Retail Parks DAC") is where the job is held.
                continue
            gap = re.findall(r"[\w']+|[^\w\s]", text[end:title.start()].lower().replace("’", "'"))
            if not set(gap) & {"is", "was", "as", ","} or any(
                    w not in LINK_WORDS and w != "," and not _owner(gap, i) for i, w in enumerate(gap)):
                continue
            held = [self.view.display(role), *self.view.also_held(name.entity_ids[0], "role")]
            # "Head of the Curatorial team" for a Collections Curator shares a word with the role in full.
            whole = trimmed_title(title.group(0))
            if not is_job_title(said) or any(_titles_share_a_word(said, h) or _titles_share_a_word(whole, h) for h in held):
                continue
            span = (title.start(), title.start() + len(said))
            links.append(ProfileLink(name.entity_ids[0], (name.claim.span[0], span[1]), span, said, "role",
                                     name.certain, name.sentence))
        return links

    def _role_first_link(self, text, span, surface, known) -> ProfileLink | None:
        """ "The office manager is Maelle Dunstable", "Parish clerk: Ottoline Brierley": the value,
        then only a copula or a colon, then the name."""
        # "The Head of HR at Kaveri Software Services is Priya Nair": where the role is held may come between.
        place = _ROLE_PLACE.match(text, span[1])
        after = [n for n in known if n.claim.span[0] >= (place.end() if place else span[1])]
        if not after:
            return None
        name = after[0]
        gap = re.findall(r"[\w']+|[^\w\s]", text[place.end() if place else span[1]:name.claim.span[0]].lower())
        if not gap or not set(gap) <= ROLE_FIRST_GAP or not set(gap) & {"is", "was", ":"}:
            return None
        entity_id = name.entity_ids[0]
        key = self._profile_key(entity_id, surface)
        if key is None:
            return None
        return ProfileLink(entity_id, (span[0], name.claim.span[1]), span, surface, key, name.certain, name.sentence,
                           name.claim.span)

    def _profile_key(self, entity_id: str, surface: str) -> str | None:
        """Which of the entity's profile attributes the value speaks to."""
        from chatapp.knowledge.registry import normalize_alias

        owners = self.view.profile_index.get(re.sub(r"\s+", " ", normalize_alias(surface)), [])
        keys = list(dict.fromkeys(k for _, k in owners))
        for key in keys:
            if self.view.profile_value(entity_id, key) is not None:
                return key
        return None


def _title_before_a_named_thing(text: str, title: re.Match, view: KnowledgeView) -> str:
    """ "Chair" in "the Chair of the Riverbend Apartments committee" and in "Chair of the Hartley Trust":
    what follows "of" is the body the job is held in when it is a name the documents know, or the
    capitalised words a lower-case noun after them belongs to; the job is the words before "of"."""
    said = title.group(0)
    cut = re.search(r"\s+of\s+(?:the\s+)?(?P<body>.+)$", said)
    if cut is None:
        return said
    # "… Apartments committee": a lower-case noun after the capitalised words; not "… People at Calçada",
    # where a preposition follows the whole title.
    following = re.match(r"\s+([a-z]+)", text[title.end():])
    modifies_a_noun = following is not None and not is_stop(following.group(1))
    if modifies_a_noun or view.lookup(cut.group("body")):
        return said[: cut.start()]
    return said


# A token of letters and digits joined ("ASI-05", "CO-03", "B2B", "Q4"): a reference, not a word or a number
# ("3pm" and "1st" are values, which their own checks read).
_REFERENCE_CODE = re.compile(r"(?=\S*[A-Za-z])(?=\S*\d)(?:[A-Za-z]+\d[^\W_]*(?:[-/.][^\W_]+)*|[^\W_]+(?:[-/.][^\W_]+)+)")


def is_content(token) -> bool:
    """A word of a sentence that says something: a word or a number, not a stop word."""
    return (token.is_alpha or token.like_num) and not is_stop(token.text)


def _surname_left_out(doc, ent):
    """The token after a one-word PERSON the recogniser stopped short of: "Piripi Pōtae from the agency" is
    read as "Piripi" alone where the surname has letters it rarely saw. A capitalised word of letters only,
    no everyday word, in no entity, and not opening a run of capitalised words (a firm's name), or None."""
    if len(ent) != 1 or ent.end >= len(doc):
        return None
    nxt = doc[ent.end]
    after = doc[ent.end + 1] if ent.end + 1 < len(doc) else None
    if (not nxt.is_alpha or not nxt.text[:1].isupper() or nxt.ent_type_ or nxt.whitespace_ == ""
            and after is not None and after.is_alpha or lexicon.is_common(nxt.text.lower(), 3.0)
            or (after is not None and after.text[:1].isupper() and after.is_alpha)):
        return None
    return nxt


def _given_name_left_out(doc, ent):
    """The token before a PERSON the recogniser started late: "Rodrigo Fontanella Sachet will take the minutes"
    read as "Fontanella Sachet". A given name (no everyday word) right before it, in no entity, or None."""
    if ent.start == 0:
        return None
    before = doc[ent.start - 1]
    if (not before.is_alpha or not before.text[:1].isupper() or before.ent_type_ or not before.whitespace_
            or not is_first_name(before.text) or lexicon.is_common(before.text.lower(), 4.0)):
        return None
    return before


def _drop_partial_names(mentions: list[EntityMention], doc, view: KnowledgeView) -> list[EntityMention]:
    """"Sarah Johnson" is not Sarah Chen: a known first name inside a longer, unknown
    person's name does not make it the known person."""
    dropped = set()
    for ent in doc.ents:
        if ent.label_ != "PERSON":
            continue
        full = re.sub(r"['’]s$", "", ent.text)
        if view.lookup(full):
            continue
        for i, m in enumerate(mentions):
            inside = ent.start_char <= m.span[0] and m.span[1] <= ent.start_char + len(full)
            if inside and (m.span[1] - m.span[0]) < len(full) and not m.exact_name:
                dropped.add(i)
    return [m for i, m in enumerate(mentions) if i not in dropped]


def _title_words(title: str) -> dict[str, str]:
    """A title's words by their first letters once stemmed: "Head of Conservation" and "Chief
    Conservator" share "conse", so one may be the other put another way. Each with the word as written."""
    return {stem(w)[:5]: w for w in re.findall(r"[^\W\d_]+", title.lower()) if w not in ("of", "and", "for", "the")}


# Words of rank that end many titles: one is the same word only as itself, so "Chief Financial Officer" shares
# nothing with an "Office Manager" though "officer" and "office" begin alike.
_RANK_WORDS = frozenset("officer manager director executive assistant administrator coordinator leader head chief".split())


def _titles_share_a_word(said: str, held: str) -> bool:
    ours, theirs = _title_words(said), _title_words(held)
    return any(ours[k] == theirs[k] or not {ours[k], theirs[k]} & _RANK_WORDS for k in ours.keys() & theirs.keys())


def _owner(gap: list[str], i: int) -> bool:
    """"the company's", "our school's": whose role it is, between a name and the role."""
    return gap[i].endswith("'s") and gap[i][:-2].isalpha() and i > 0 and gap[i - 1] in POSSESSIVE_DETERMINERS


def _contains(outer: tuple[int, int], inner: tuple[int, int]) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1]


def _index_at(sentences: list[SentenceInfo], position: int) -> int:
    for info in sentences:
        if position < info.claim.span[1]:
            return info.index
    return sentences[-1].index if sentences else 0


def _overlaps(span, spans) -> bool:
    return any(span[0] < b and a < span[1] for a, b in spans)


def _mention_id(inside: list[NameClaim], position: int) -> str | None:
    ref = _mention_ref(inside, position)
    return ref[0] if ref else None


def _mention_ref(inside: list[NameClaim], position: int) -> tuple[str, bool] | None:
    """The entity named at `position`, and whether it is identified beyond doubt."""
    for n in inside:
        if n.claim.span[0] <= position < n.claim.span[1]:
            return n.entity_ids[0], n.certain or len(n.entity_ids) == 1
    return None


def _cue(doc, span, sentence_span, name_spans) -> str:
    """The noun a value is said of: nearest before it in the sentence, else just after."""
    nouns_before, nouns_after = [], []
    for t in doc.char_span(*sentence_span, alignment_mode="expand") or []:
        t_span = (t.idx, t.idx + len(t))
        if t.pos_ != "NOUN" or _overlaps(t_span, [span, *name_spans]):
            continue
        (nouns_before if t.idx < span[0] else nouns_after).append(t)
    if nouns_before and span[0] - nouns_before[-1].idx < 60:
        return nouns_before[-1].lemma_.lower()
    if nouns_after and nouns_after[0].idx - span[1] < 20:
        return nouns_after[0].lemma_.lower()
    return ""
