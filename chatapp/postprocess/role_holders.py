"""Who the sources name beside a role, checked against who the answer gives it to.

Documents name the holder of a role right beside it: "the groundworks contractor (Fennick
Civils)", "the conservation officer, Ifor Penhaligon,", "Ifor Penhaligon, the conservation
officer", "Conservation officer: Ifor Penhaligon". An answer that says "Gannet Imaging is the
groundworks contractor" uses only words the sources have, yet no source puts that name with
that role, and one names someone else there: that is a ContradictsFact, corrected to the name
the sources give. Left alone: a name some source does put with the role, a role the sources give
to several names, and any sentence the parse does not read as "NAME is the ROLE".
"""

from __future__ import annotations

import re

from chatapp.knowledge.extraction.observations import HONORIFIC, is_group_name
from chatapp.knowledge.extraction.people import ROLE_KEYS
from chatapp.knowledge.registry import decode_attribute
from chatapp.postprocess.claims import AnswerAnalysis, SentenceInfo
from chatapp.postprocess.findings import Finding, Sources

# A name as documents write one beside a role: capitalised words, "&" and "of" inside.
_NAME = r"[A-Z][\w'’&-]*(?:\s+(?:[A-Z][\w'’&-]*|&|of|and)){0,4}(?<![\s&])"
_DETERMINERS = frozenset({"the", "our", "their", "your", "its", "his", "her", "my", "a", "an"})
# How sure a reading of layout alone can be: enough to correct, less than a registry's record.
CONFIDENCE = 0.8


def role_swaps(analysis: AnswerAnalysis, sources: Sources, taken: list[tuple[int, int]]) -> list[Finding]:
    """Findings for sentences that give a role to a name the sources never put beside it, where they
    put exactly one other name there. `taken`: spans other checks already flagged."""
    if analysis.doc is None or sources.supplied.empty:
        return []
    found = []
    for sentence in analysis.sentences:
        if sentence.mode != "statement" or sentence.negated:
            continue
        pairing = _name_and_role(analysis, sentence)
        if pairing is None:
            continue
        (start, end), role = pairing
        name = analysis.text[start:end]
        if any(a < end and start < b for a, b in taken):
            continue
        holders = _holders(role, sources)
        if not holders or _said_together(name, role, sources) or _known_to_hold(name, role, sources):
            continue
        if len(holders) != 1:
            continue  # the sources give the role to several: nobody is wrong for being one
        (holder, (where, text)), = holders.items()
        if _same_name(holder, name) or not _about_what_was_asked(sources.supplied.texts[text], sources):
            continue
        found.append(Finding("ContradictsFact", (start, end), name, CONFIDENCE, holder, [where], sentence.index,
                             (start, end), holder, major=True))
    return found


def _name_and_role(analysis: AnswerAnalysis, sentence: SentenceInfo) -> tuple[tuple[int, int], str] | None:
    """The name's span and the role's words in "NAME is the ROLE" or "The ROLE is NAME"."""
    doc = analysis.doc
    clause = doc.char_span(*sentence.claim.span, alignment_mode="expand")
    if clause is None:
        return None
    for verb in clause:
        if verb.lemma_ != "be":
            continue
        subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        attribute = next((c for c in verb.children if c.dep_ == "attr"), None)
        if subject is None or attribute is None:
            continue
        for name_head, role_head in ((subject, attribute), (attribute, subject)):
            name = _proper_name(name_head)
            role = _role_words(role_head)
            if name is not None and role and not _of_something_named(role_head):
                return name, role
    return None


def _known_to_hold(name: str, role: str, sources: Sources) -> bool:
    """Whether the knowledge base gives the person named this role, whatever the retrieved text names
    beside it: "Head of School" is Luciana's in the directory though the chunk retrieved names another
    school's head. (Several people may hold one title, one per school or team.)"""
    view = sources.view
    for entity_id in view.lookup(name):
        entity = view.entities.get(entity_id)
        if entity is None or entity.type != "person":
            continue
        held = [decode_attribute(entity.attributes.get(key)) for key in ROLE_KEYS]
        held += view.also_held(entity_id, "role")
        if any(isinstance(title, str) and re.search(rf"(?<!\w){re.escape(role)}(?!\w)", " ".join(title.lower().split()))
               for title in held):
            return True
    return False


def _of_something_named(role_head) -> bool:
    """ "Project Orchid's lead", "the lead for Project Orchid": the role of one named thing, which a
    source naming the lead of another does not speak to (the registry's check reads those)."""
    for child in role_head.children:
        if child.dep_ == "poss" and child.pos_ == "PROPN":
            return True
        if child.dep_ == "prep" and child.lower_ in ("of", "for", "on", "at"):
            if any(grand.dep_ == "pobj" and grand.pos_ == "PROPN" for grand in child.children):
                return True
    return False


def _proper_name(head) -> tuple[int, int] | None:
    """The character span of a name headed by `head`: proper nouns and their compounds only."""
    if head.pos_ != "PROPN":
        return None
    parts = [t for t in head.subtree if t.dep_ in ("compound", "flat") or t == head]
    if any(t.pos_ != "PROPN" or not t.text[:1].isupper() for t in parts):
        return None
    return parts[0].idx, parts[-1].idx + len(parts[-1].text)


def _role_words(head) -> str:
    """ "the groundworks contractor" → "groundworks contractor": the head noun and the lower-case
    words right before it that narrow it. Empty for a name, a pronoun or a bare everyday noun."""
    if head.pos_ != "NOUN" or not head.text.isalpha() or not head.text.islower():
        return ""
    words = [head.text]
    token = head.nbor(-1) if head.i > head.doc[0].i else None
    while token is not None and token.head == head and token.dep_ in ("compound", "amod") and (
            token.text.isalpha() and token.text.islower()):
        words.insert(0, token.text)
        token = token.nbor(-1) if token.i > 0 else None
    # "head of school", "director of studies": a title that goes on with "of" and a bare noun is that whole title.
    after = head.nbor(1) if head.i + 2 < len(head.doc) else None
    if after is not None and after.lower_ == "of" and after.head == head:
        thing = after.nbor(1)
        if thing.head == after and thing.pos_ == "NOUN" and thing.text.isalpha() and thing.text.islower() and (
                not list(thing.children)):
            words += ["of", thing.text]
    return " ".join(words) if len(words) >= 2 or not head.is_stop else ""


def _things_asked_about(sources: Sources) -> list[str]:
    """The capitalised words the user's question names something by, past its first word: "Who is the
    client contact for Katendrecht?" asks about Katendrecht."""
    found = []
    for text in sources.given.texts:
        for sentence in re.split(r"(?<=[.?!])\s+", text.strip()):
            found += [w for w in re.findall(r"[A-Z][\w'’-]+", sentence)[1:] if not sentence.startswith(w)]
    return found


def _about_what_was_asked(text: str, sources: Sources) -> bool:
    """Whether the text a role's holder is read from can be about what the question names: a question
    about one named thing ("the client contact for Katendrecht") is not answered by a text that names
    none of the words it is asked by ("Client contact: Erik Dijkstra" on another project's page)."""
    asked = _things_asked_about(sources)
    if not asked:
        return True
    return any(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text) for w in asked)


def _holders(role: str, sources: Sources) -> dict[str, tuple[str, int]]:
    """The names the sources write right beside `role`, each with the source sentence that does and
    the index of the supplied text it is in."""
    holders: dict[str, tuple[str, int]] = {}
    for sentence, _stems, text in sources.supplied.sentences:
        for name in _beside(role, sentence):
            holders.setdefault(name, (sentence.strip(), text))
    return holders


def _beside(role: str, sentence: str) -> list[str]:
    """The names `sentence` writes right beside `role`: "the ROLE (NAME)", "the ROLE, NAME",
    "ROLE: NAME", "the ROLE is NAME", "NAME, the ROLE", "NAME (the ROLE)"."""
    if role.split()[-1] not in sentence.lower():
        return []
    phrase = r"\s+".join(re.escape(w) for w in role.split())
    owner = r"(?:(?:the|our|their|your|its)\s+)?"
    # "Lead: Dr. Dana Kim": the name is what follows the titles.
    after = re.compile(rf"\b{phrase}\b\s*(?P<sep>\(\s*|,\s+|:\s*|\s+is\s+)(?:{HONORIFIC})*({_NAME})", re.IGNORECASE)
    before = re.compile(rf"({_NAME})\s*(?:,\s*|\(\s*){owner}{phrase}\b", re.IGNORECASE)
    names = []
    for pattern in (after, before):
        for match in pattern.finditer(sentence):
            name = match.group(match.lastindex).strip()
            if pattern is after and _longer_title(sentence, match.start()):
                continue  # "Deputy Head: Marcelo Lins" gives him another title than "head"
            if pattern is before and (holder := _named_right_after(sentence, match.end())):
                names.append(holder)  # "TransLince (contract manager Wagner Tessaro)": the role is his
                continue
            if pattern is after and match.group("sep").startswith(",") and is_group_name(name):
                continue  # "Course Manager, Glenasmole Golf Club": a signature's title and employer
            if pattern is after and match.group("sep").startswith("(") and match.group(0)[:1].isupper() and (
                    " " not in name):
                continue  # "Secretary (Sekretariat)", "Veterinary Nurse (RVN)": a title's gloss, not its holder
            if re.fullmatch(HONORIFIC, f"{name}. ", re.IGNORECASE):
                continue  # "Lead: Dr." where the sentence was cut at the title's full stop
            if name[:1].isupper() and name.split()[0].lower() not in _DETERMINERS:
                names.append(name)
    return names


def _longer_title(sentence: str, role_at: int) -> bool:
    """Whether the role written at `role_at` has a rank before it that makes it another post: "Deputy Head:
    Marcelo Lins", "assistant manager: …", whose holder is not the "head" or "manager" an answer names."""
    return bool(_OTHER_RANK.search(sentence[:role_at]))


# A word before a title that makes it a different post from the bare title, held by someone else.
_OTHER_RANK = re.compile(r"\b(?:deputy|assistant|vice|associate|acting|interim|co)[ -]$", re.IGNORECASE)
# A name right after a role, a title before it allowed: "(site engineer Dr Rogério Bassi)".
_NAME_AFTER_ROLE = re.compile(rf"\s+(?:{HONORIFIC})*({_NAME})")


def _named_right_after(sentence: str, end: int) -> str:
    """The name written right after a role inside a bracket or after a comma, "(site engineer Rogério Bassi)":
    the role is that person's, not the firm's named before the bracket."""
    match = _NAME_AFTER_ROLE.match(sentence, end)
    return match.group(1).strip() if match and match.group(1).split()[0].lower() not in _DETERMINERS else ""


def _said_together(name: str, role: str, sources: Sources) -> bool:
    """Some source sentence has the name (or its last word) and every word of the role, and writes no
    other name right beside the role: "Gannet Imaging will be the groundworks contractor" does;
    "the groundworks contractor (Fennick Civils) … the plotter comes from Gannet Imaging" does not. A mail
    names a colleague by first name: "Halvard takes over as account lead" says it of Halvard Quintrell."""
    words = role.split()
    called = {name.lower(), name.split()[-1].lower(), name.split()[0].lower()}
    for sentence, _stems, _i in sources.supplied.sentences:
        lower = sentence.lower()
        if any(re.search(rf"(?<![\w'’-]){re.escape(c)}(?![\w-])", lower) for c in called) and all(
                w in lower for w in words):
            beside = _beside(role, sentence)
            if not beside or any(_same_name(other, name) for other in beside):
                return True
    return False


def written_beside(names: list[str], role: str, sources: Sources) -> bool:
    """Whether a supplied source writes one of `names` right beside `role` ("Site safety lead: Dougal
    Strachan", "Dougal Strachan, the site safety lead"): the sources give that person the role, whatever
    job title the directory gives them."""
    if sources.supplied.empty or not role.strip():
        return False
    for sentence, _stems, _i in sources.supplied.sentences:
        if any(_same_name(other, name) for other in _beside(role, sentence) for name in names
               if len(other.split()) >= 2 or len(name.split()) == 1):
            return True
    return False


def _same_name(a: str, b: str) -> bool:
    a, b = a.lower(), b.lower()
    return a == b or a in b or b in a
