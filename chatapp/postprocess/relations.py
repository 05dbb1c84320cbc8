"""Who is what, and who organised, owns or leads what: a known entity's
profile ("Sarah from marketing") and the relations between known entities,
checked against the attributes and facts that link them.

"Priya Patel leads Engineering" names the relation (lead), the thing
(Engineering) and someone in the role (Priya) — but the registry says
Engineering's lead is John Smith. The check is deliberately narrow: the
relation word must be in the sentence, the known holder must be missing from
it, and exactly one other entity of the holder's kind must stand in their
place. Anything less clear is left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chatapp.knowledge.extraction.observations import key_for_label, without_legal_form
from chatapp.knowledge.extraction.people import role_parts
from chatapp.knowledge.registry import normalize_alias
from chatapp.lexicon import concepts_of_key
from chatapp.postprocess.claims import AnswerAnalysis, NameClaim, ProfileLink
from chatapp.postprocess.evidence import is_stop
from chatapp.postprocess.findings import Finding
from chatapp.postprocess.knowledge_view import KnowledgeView
from chatapp.postprocess.statements import RELATION_CONCEPTS, relation_families, relation_stem
from chatapp.records import Claim


@dataclass
class RelationMismatch:
    sentence: int
    entity_id: str  # whose relation it is (the thing organised, owned, led …)
    key: str
    expected_id: str  # who holds it according to the registry
    said: NameClaim  # who the answer puts there
    certain: bool
    source: str


def relation_mismatches(analysis: AnswerAnalysis, view: KnowledgeView) -> list[RelationMismatch]:
    links = _links(view)
    found = []
    for sentence in analysis.sentences:
        named = [n for n in analysis.names if n.sentence == sentence.index and n.entity_ids]
        ids = {n.entity_ids[0] for n in named}
        said_stems = {_norm(w) for w, _, _ in sentence.words}
        for n in named + _things_referred_to(analysis, sentence, view):
            entity_id = n.entity_ids[0]
            if view.entities[entity_id].type == "person":
                continue  # correct who holds a role in a thing, never which thing a person has
            keys = links.get(entity_id, {})
            # "Rewarewa Structures' project lead" names the firm the work's "contractor" holds: the sentence
            # speaks of the contractor's lead (contractor_project_lead), not the work's own "lead".
            stems = said_stems | _owner_words(view.entities[entity_id].attributes, sentence.claim.text)
            if _MANAGER_WHO_LEADS.search(sentence.claim.text) and not any("manager" in key for key in keys):
                # "is the project manager for Bryggen Quay", of work whose "Project manager" column is its lead
                stems = said_stems | {"lead"}
            for key, holders in keys.items():
                if len(holders) != 1 or not _key_in(key, stems):
                    continue  # several holders (attendees, members): nobody is wrong by not being one
                if _narrower_named(key, keys, stems) or _other_kind_named(analysis, sentence, key):
                    continue  # "the account lead" is not the project's "lead": another role of that name
                (holder, source), = holders.items()
                if holder in ids:
                    continue
                kind = view.entities[holder].type
                others = {o.entity_ids[0]: o for o in named
                          if o.entity_ids[0] not in (entity_id, holder) and view.entities[o.entity_ids[0]].type == kind}
                if len(others) != 1:
                    continue
                (said_id, said), = others.items()
                if entity_id in links.get(said_id, {}).get(key, {}):
                    continue  # the sentence states another relation of the same name that holds
                if not _asserted(analysis, sentence, key, n, said):
                    continue  # the words are all there, but the sentence does not put them together
                # A thing named by a unique alias ("the Q4 budget review") is identified; a person by
                # a first name shared with others is not.
                certain = (n.certain or len(n.entity_ids) == 1) and said.certain
                found.append(RelationMismatch(sentence.index, entity_id, key, holder, said, certain, source))
    unique = {}
    for m in found:  # "lead" and "leads" may name one relation twice
        unique.setdefault((m.said.claim.span, m.expected_id), m)
    return list(unique.values())


def _things_referred_to(analysis: AnswerAnalysis, sentence, view: KnowledgeView) -> list[NameClaim]:
    """The things the sentence speaks of as "it"/"its", as names at the pronoun: "Brattholm is a workboat.
    Its skipper is Arnstein Vikøren." says Brattholm's skipper is Arnstein."""
    start, end = sentence.claim.span
    return [NameClaim(Claim(analysis.text[a:b], (a, b), "name", ref), "KNOWN", [ref], certain, sentence.index)
            for (a, b), ref, certain in analysis.pronoun_refs
            if start <= a < end and ref in view.entities and view.entities[ref].type != "person"]


# How far apart (in dependency arcs) the relation word may be from the thing and from the person
# it is said of: "Lisa Wong organized the review" (1 and 1), "the review was organized by Lisa
# Wong" (1 and 2), "Lisa Wong is the organizer of the review" (2 and 2).
_MAX_ARCS = 3


def _asserted(analysis: AnswerAnalysis, sentence, key: str, thing: NameClaim, said: NameClaim) -> bool:
    """Does the sentence state the relation between the two — a relation word that governs or is
    governed by both — rather than merely contain all three words ("Department lead and Finance
    (Sarah Chen)", "questions go to Sarah Chen in Finance")?"""
    doc = analysis.doc
    if doc is None:
        return True
    thing_span = doc.char_span(*thing.claim.span, alignment_mode="expand")
    said_span = doc.char_span(*said.claim.span, alignment_mode="expand")
    clause = doc.char_span(*sentence.claim.span, alignment_mode="expand")
    if thing_span is None or said_span is None or clause is None:
        return True
    parts = [_norm(w) for w in key.split("_") if w and not is_stop(w)]
    inside = (thing_span.start, thing_span.end), (said_span.start, said_span.end)
    # A name modifying a noun is the phrase it heads: "the Harnwell routing study" is about Harnwell.
    thing_root = thing_span.root
    while thing_root.dep_ == "compound" and thing_root.head.i != thing_root.i:
        thing_root = thing_root.head
    for token in clause:
        if any(a <= token.i < b for a, b in inside):
            continue
        word = "lead" if key == "lead" and _manager_who_leads(token) else _norm(token.text)
        if not any(_alike(p, word) for p in parts):
            continue
        if (dependency_arcs(token, thing_root) <= _MAX_ARCS
                and dependency_arcs(token, said_span.root) <= _MAX_ARCS
                and not _parenthesised(doc, token, said_span)):
            return True
    return False


# A piece of work's project manager is who leads it, as ingest reads a "Project manager" label (`lead`).
_WORK_BEFORE_MANAGER = ("project", "programme", "program")
_MANAGER_WHO_LEADS = re.compile(rf"\b(?:{'|'.join(_WORK_BEFORE_MANAGER)})\s+manager\b", re.IGNORECASE)


def _manager_who_leads(token) -> bool:
    """ "manager" after "project" (or "programme"): the word that says who leads the work."""
    return token.lower_ == "manager" and token.i > 0 and token.doc[token.i - 1].lower_ in _WORK_BEFORE_MANAGER


def dependency_arcs(a, b) -> int:
    """Dependency arcs between two tokens of one parse (large when unconnected)."""
    depth = {t.i: d for d, t in enumerate([a, *a.ancestors])}
    for d, t in enumerate([b, *b.ancestors]):
        if t.i in depth:
            return d + depth[t.i]
    return 99


def clause_verb(token):
    """The verb whose clause the token is in: itself for a verb, else the nearest verb above it."""
    if token.pos_ in ("VERB", "AUX"):
        return token
    return next((t for t in token.ancestors if t.pos_ in ("VERB", "AUX")), None)


def _parenthesised(doc, token, span) -> bool:
    """The person is an aside in brackets after the relation word: "Finance (Sarah Chen)"."""
    between = doc[min(token.i, span.start):max(token.i, span.start)]
    return any(t.text == "(" for t in between) and not any(t.text == ")" for t in between)


def _links(view: KnowledgeView) -> dict[str, dict[str, dict[str, str]]]:
    """entity -> relation -> {holder: source}, in both directions, built once per view."""
    cached = getattr(view, "_relation_links", None)
    if cached is not None:
        return cached
    links: dict[str, dict[str, dict[str, str]]] = {}
    named_in_text = []
    for entity_id, known in view.values.items():
        for value in known:
            if value.shape != "entity" or value.raw not in view.entities:
                if (holder := _person_named(value, view)) is not None:
                    named_in_text.append((entity_id, value.key, holder, value.source))
                continue
            # "Atlas owner John": Atlas's owner is John. "John manages Atlas": Atlas's manager is John.
            links.setdefault(entity_id, {}).setdefault(value.key, {})[value.raw] = value.source
            links.setdefault(value.raw, {}).setdefault(value.key, {})[entity_id] = value.source
    for entity_id, key, holder, source in named_in_text:
        # A list's column naming a known person in full ("skipper: Oddvar Lothe") links the row's thing to
        # them as an entity's field does — unless a link of that kind is already known (a register's stale
        # "projectleider" beside the "lead" a newer mail handed on).
        kinds = concepts_of_key(key) or {key}
        if any(kinds & (concepts_of_key(other) or {other}) for other in links.get(entity_id, {})):
            continue
        links.setdefault(entity_id, {}).setdefault(key, {})[holder] = source
        links.setdefault(holder, {}).setdefault(key, {})[entity_id] = source
    for entity_id, keys in links.items():
        # A piece of work's "Project manager: Sipho Mbatha" is who leads it: "the boiler replacement is led
        # by Tamsin" is held to it as to a "lead" field (a "lead" field of its own stays the one).
        runs = [key for key in keys if "lead" in concepts_of_key(key) and "lead" not in key.split("_")]
        if len(runs) == 1 and "lead" not in keys:
            keys["lead"] = keys[runs[0]]
        # A project page's "owner: Talulah Brennock" with no lead of any kind beside it: the owner is who
        # leads the work, as the offline answer to "who leads it?" says. A person's links are the other
        # direction (what they own) and stay as they are.
        owners = [key for key in keys if "owner" in concepts_of_key(key)]
        if (len(owners) == 1 and not any("lead" in concepts_of_key(key) for key in keys)
                and view.entities[entity_id].type != "person"):
            keys["lead"] = keys[owners[0]]
    view._relation_links = links
    return links


def _person_named(value, view: KnowledgeView) -> str | None:
    """The known person a record's field names in full ("skipper: Oddvar Lothe" in a vessel list, kept as
    text). A first name or a name several hold is no one."""
    if value.shape != "text" or " " not in value.raw.strip():
        return None
    ids = [i for i in view.lookup(value.raw) if view.entities[i].type == "person"]
    if len(ids) != 1 or normalize_alias(view.entities[ids[0]].name) != normalize_alias(value.raw):
        return None
    return ids[0]


def _owner_words(attributes: dict, text: str) -> set[str]:
    """The words of each key of a thing whose value, a name (a firm without its "Ltd"), `text` says."""
    said = text.lower()
    found: set[str] = set()
    for key, value in attributes.items():
        if not isinstance(value, str) or re.fullmatch(r"[a-z]+:[\w\-]+", value) or " " not in value.strip():
            continue
        name = without_legal_form(value).lower()
        if len(name) >= 4 and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", said):
            found |= {_norm(w) for w in key.split("_") if w and not is_stop(w)}
    return found


def _norm(word: str) -> str:
    """A word as relation keys are compared: its stem, any word for leading as "lead"."""
    word_stem = relation_stem(word)
    # The lexicon's words for leading ("heads", "runs", "chair", "led") all name a key's "lead".
    return "lead" if word_stem in relation_families()[RELATION_CONCEPTS.index("lead")] else word_stem


def _narrower_named(key: str, keys, stems: set[str]) -> bool:
    """Whether the sentence names another of the entity's relations that says more than `key`
    ("Halvard leads the Brindlecombe account": account_lead, not lead)."""
    parts = set(_key_parts(key))
    return any(parts < set(_key_parts(other)) and _key_in(other, stems) for other in keys if other != key)


def _other_kind_named(analysis: AnswerAnalysis, sentence, key: str) -> bool:
    """Whether the relation word is written with a word before it that makes it another role than
    `key`: "the account lead" is the key account_lead, so not "lead" (which "project lead" is:
    labels are read as the extraction reads them, observations.key_for_label)."""
    doc = analysis.doc
    clause = doc.char_span(*sentence.claim.span, alignment_mode="expand") if doc is not None else None
    parts = _key_parts(key)
    if clause is None or not parts:
        return False
    for token in clause:
        if not _alike(parts[-1], _norm(token.text)):
            continue
        modifiers = [c.text for c in token.children
                     if c.dep_ == "compound" and c.i < token.i and c.text.isalpha() and c.text.islower()]
        if modifiers and key_for_label(" ".join([*modifiers, token.text])) != key:
            return True
    return False


def _key_parts(key: str) -> list[str]:
    return [_norm(w) for w in key.split("_") if w and not is_stop(w)]


def _key_in(key: str, stems: set[str]) -> bool:
    """Every word of the relation's name ("tech_lead_of": tech, lead) is in the sentence."""
    parts = [_norm(w) for w in key.split("_") if w and not is_stop(w)]
    return bool(parts) and all(any(_alike(p, s) for s in stems) for p in parts)


def _alike(a: str, b: str) -> bool:
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    return len(short) >= 3 and long_.startswith(short)


# --- findings -----------------------------------------------------------------------------


def profile_finding(link: ProfileLink, text: str, view: KnowledgeView, certain_confidence: float,
                    uncertain_confidence: float) -> Finding | None:
    """"Sarah from marketing" when Sarah Chen is in Finance."""
    known = view.profile_value(link.entity_id, link.key)
    if known is None or any(_same_profile(link.value_text, held)
                            for held in (view.display(known), *view.also_held(link.entity_id, link.key))):
        return None
    entity = view.entities[link.entity_id]
    content = text[link.span[0]:link.span[1]]
    shown = view.display(known)
    if link.name_span is not None:
        return _role_given_to_another(link, text, view, known, certain_confidence, uncertain_confidence)
    replace_span, replacement = _with_its_article(text, _with_its_tail(text, link.value_span, shown), shown)
    if link.certain:
        confidence = certain_confidence
        suggestion = text[link.span[0]:replace_span[0]] + replacement
    else:
        # Only the name ties the claim to this entity, and the mismatch may mean someone else.
        confidence = uncertain_confidence
        suggestion = f"{entity.name} ({link.key}: {shown})"
    evidence = [f"{entity.name}: {link.key} = {shown}"]
    namesakes = [e for e in view.entities.values()
                 if e.id != entity.id and e.type == entity.type and first_word(e.name) == first_word(content)]
    if not link.certain and not namesakes:
        first = content.split()[0]
        evidence.append(f"the only {first} in the knowledge base is {entity.name}; a different {first} "
                        "would be unknown to it")
    return Finding("WrongAttribute", link.span, content, confidence, suggestion, evidence, link.sentence,
                   replace_span, replacement, major=link.certain)


def _with_its_tail(text: str, span: tuple[int, int], shown: str) -> tuple[int, int]:
    """The span of a wrong value with the words after it that the right value ends in too: "at the Don Mills
    clinic" said where "Don Mills" is someone else's value and hers is "Riverdale clinic" is corrected to
    "at the Riverdale clinic", not "at the Riverdale clinic clinic"."""
    said = text[span[0]:span[1]].lower().split()
    tail = shown.split()[1:]
    for size in range(len(tail), 0, -1):
        words = tail[-size:]
        if said[-size:] == [w.lower() for w in words]:
            break  # the value said already ends as the right one does
        after = re.match(r"\s+" + r"\s+".join(map(re.escape, words)) + r"(?![\w-])", text[span[1]:], re.IGNORECASE)
        if after:
            return span[0], span[1] + after.end()
    return span


_ARTICLE_BEFORE = re.compile(r"\b(a|an|A|An)\s+$")


def _with_its_article(text: str, span: tuple[int, int], shown: str) -> tuple[tuple[int, int], str]:
    """The span and text that replace a wrong value, taking in the "a"/"an" before it when the right
    value wants the other one: "is an Ocean Freight Executive" corrected to "is a Key Account Manager"."""
    article = _ARTICLE_BEFORE.search(text, 0, span[0])
    first = shown.split()[0] if shown.split() else ""
    if article is None or not first[:1].isalpha() or first.isupper() or first[:1].lower() in "uh":
        return span, shown  # "an MBA", "a user", "an hour": the sound is not the letter's
    wanted = "an" if first[0].lower() in "aeio" else "a"
    if article.group(1).lower() == wanted:
        return span, shown
    wanted = wanted.capitalize() if article.group(1)[0].isupper() else wanted
    return (article.start(1), span[1]), f"{wanted} {shown}"


def _role_given_to_another(link: ProfileLink, text: str, view: KnowledgeView, known, certain_confidence: float,
                           uncertain_confidence: float) -> Finding:
    """ "The conservation officer is Ottoline Brierley" when Ifor Penhaligon is: the name is what is
    wrong when exactly one known entity of its kind holds that role; else the pairing is flagged
    with the named one's own role and left as written."""
    entity = view.entities[link.entity_id]
    holders = [e for e in view.entities.values() if e.id != entity.id and e.type == entity.type
               and (v := view.profile_value(e.id, link.key)) is not None and _same_profile(link.value_text, view.display(v))]
    said = text[link.name_span[0]:link.name_span[1]]
    evidence = [f"{entity.name}: {link.key} = {view.display(known)}"]
    if len(holders) == 1:
        holder = holders[0]
        evidence.insert(0, f"{holder.name}: {link.key} = {view.display(view.profile_value(holder.id, link.key))}")
        confidence = certain_confidence if link.certain else uncertain_confidence
        return Finding("WrongAttribute", link.name_span, said, confidence, holder.name, evidence, link.sentence,
                       link.name_span, holder.name, major=link.certain)
    return Finding("WrongAttribute", link.span, text[link.span[0]:link.span[1]], uncertain_confidence,
                   f"{entity.name} ({link.key}: {view.display(known)})", evidence, link.sentence)


def relation_finding(mismatch: RelationMismatch, view: KnowledgeView, certain_confidence: float,
                     uncertain_confidence: float) -> Finding:
    said, expected = mismatch.said.claim, view.name(mismatch.expected_id)
    confidence = certain_confidence if mismatch.certain else uncertain_confidence
    evidence = [f"{view.name(mismatch.entity_id)}: {mismatch.key} = {expected}"]
    if mismatch.source and mismatch.source != "registry":
        evidence.append(f"source: {mismatch.source}")
    return Finding("WrongAttribute", said.span, said.text, confidence, expected, evidence, mismatch.sentence,
                   said.span, expected, major=mismatch.certain)


def _same_profile(claimed: str, known: str) -> bool:
    a, b = normalize_alias(claimed), normalize_alias(known)
    return (a == b or a == normalize_alias(known.split(",")[0]) or b.startswith(a + " ")
            or any(a == normalize_alias(part) for part in role_parts(known))
            or any(a == normalize_alias(part) for part in _ROLE_PIECES.split(known) if part.strip(" )"))
            or _short_form_of(claimed, known))


# What a role's record strings together: "Dentist, DDS — Clinical Director" holds the letters "DDS" too, which
# an answer may put after the name ("Dr. Priya Raman, DDS").
_ROLE_PIECES = re.compile(r"\s*(?:[,;(—–]|\s-\s)\s*|\)")


def _short_form_of(claimed: str, known: str) -> bool:
    """A job said by its short form: the form the record gives it in brackets ("Senior Project
    Manager (PM)" → PM), the initials of a title it holds ("Assistant Project Manager" → APM), or its
    words cut short the way people say them ("Superintendent" → super, "Administrator" → admin)."""
    said = claimed.strip(" .")
    titles = [known.split(",")[0], *role_parts(known)]
    if any(normalize_alias(said) == normalize_alias(inner) for inner in re.findall(r"\(([^()]*)\)", known)):
        return True
    if re.fullmatch(r"[A-Z]{2,5}", said):
        return any(said == "".join(w[0] for w in words).upper()
                   for title in titles if len(words := re.findall(r"[^\W\d_]+", re.sub(r"\s*\([^()]*\)", "", title))) >= 2)
    cut = normalize_alias(said).split()
    for title in titles:
        whole = normalize_alias(re.sub(r"\s*\([^()]*\)", "", title)).split()
        # Each word the whole word or its first four letters or more; at least one word cut short.
        if (len(cut) == len(whole) and cut != whole
                and all(c == w or (len(c) >= 4 and w.startswith(c)) for c, w in zip(cut, whole))):
            return True
    return False


def first_word(text: str) -> str:
    return (re.findall(r"\w+", text) or [""])[0].lower()
