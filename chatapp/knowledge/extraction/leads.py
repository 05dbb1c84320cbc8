"""Who leads a piece of work, as prose says it: "Tomás Reyes … is leading Foundry Town", "Wren Abara
heads the Riverside Survey", "the Harbour Lights festival is being led by Ines Caro".

A project page's "Lead: …" field says the same (fields.py); a staff page or a mail says it in a
sentence, and the thing led is a capitalised name ("Threads of the Miami Valley" in "is leading the
Threads of the Miami Valley quilt exhibition"), never a lower-case description ("the photography show")."""

from __future__ import annotations

import re

from chatapp.knowledge.extraction.observations import (
    CHANGE,
    DESCRIBED,
    MENTION,
    PROSE_NAME,
    Observation,
    clean_name,
    is_group_name,
    is_name_word,
    key_for_label,
    looks_like_person,
)
from chatapp.knowledge.extraction.people import _QUOTED_PART
from chatapp.lexicon import is_common, is_first_name

_NAME = PROSE_NAME
# The thing led: capitalised words, with "of the", "and", "&", "for", "on" inside.
_THING = r"(?:the\s+)?(?P<thing>[A-Z][\w'’&-]*(?:\s+(?:[A-Z][\w'’&-]*|of|the|and|&|for|on)){0,6})"
_LEADING = r"(?:leading|leads|heads(?:\s+up)?|heading(?:\s+up)?|runs|running|in\s+charge\s+of|the\s+lead\s+on)"
# "NAME leads THING", "NAME, our curator, … and is leading THING": the sentence may say more of the
# person before it says what they lead, in a clause that ends with "and".
_PERSON_LEADS = re.compile(
    rf"(?<![\w'’-])(?P<name>{_NAME})(?:\s*\([^()\n]{{1,60}}\))?(?:[^.;:!?\n]{{0,100}}?\s+and)?\s+"
    rf"(?:(?:is|was|will\s+be|also|now|currently)\s+){{0,2}}{_LEADING}\s+{_THING}"
)
_LED_BY = re.compile(
    rf"{_THING}\s+(?:is|was|will\s+be)\s+(?:(?:being|now|also)\s+)?(?:led|headed(?:\s+up)?|run)\s+by\s+(?P<name>{_NAME})"
)
_SMALL = r"(?:\s+(?:of|the|and|&|for|on))+$"
# "Cathal leads;", "Kavya is leading.", "Led by Kavya Menon": who leads, with nothing after to say what.
_BARE_LEAD = re.compile(
    rf"(?:(?<![\w'’-])(?P<name>{_NAME}|[A-Z][\w'’-]+|[A-Z]{{2,3}})\s+(?:(?:is|will\s+be|now)\s+)?(?:leads|leading|is\s+lead)"
    rf"|\b(?:[Ll]ed\s+by|[Ll]ead:)\s+(?P<led>{_NAME}|[A-Z][\w'’-]+))(?=\s*(?:[;,.)\n]|$|\s+(?:and|with|on|from)\b))"
)
# "the borehole rehabilitation project": a piece of work described in lower case, closed by a word for its
# kind. It is only kept where a document names a piece of work so (merge._described_work).
WORK_KINDS = ("project", "programme", "program", "scheme", "initiative", "study", "pilot", "campaign", "works",
              "upgrade", "refurbishment")
_DESCRIBED = (r"the\s+(?P<GROUP>[a-z][\w'’-]*(?:\s+[a-z][\w'’-]*){0,4}?\s+(?:" + "|".join(WORK_KINDS) + r"))\b")
_PERSON_LEADS_DESCRIBED = re.compile(
    rf"(?<![\w'’-])(?P<name>{_NAME}|[A-Z][\w'’-]+)\s+(?:(?:is|was|will\s+be|also|now|currently)\s+){{0,2}}"
    rf"{_LEADING}\s+{_DESCRIBED.replace('GROUP', 'thing')}"
)
_NOT_THINGS = re.compile(r"^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|"
                         r"May|June|July|August|September|October|November|December|The|This|That|Our)$")


def read_leads(text: str, headings: frozenset[int] = frozenset()) -> list[Observation]:
    """A "lead" observation of each project a sentence says a person leads, and the person's mention.
    `headings`: where the document's headings start, for notes that say "Cathal leads." under one."""
    found = _section_leads(text, headings)
    text = re.sub(r"(?<!\n)\n(?![\n>])", " ", text)  # a wrapped paragraph; positions hold
    for pattern in (_PERSON_LEADS, _LED_BY):
        for match in pattern.finditer(text):
            name = clean_name(match.group("name"))
            thing = re.sub(_SMALL, "", match.group("thing")).strip()
            if not looks_like_person(name) or not _names_a_thing(thing):
                continue
            found.append(Observation(thing, "project", "lead", name, 0.8, "prose", match.start()))
            found.append(Observation(name, "person", MENTION, name, 0.8, "prose", match.start()))
    for match in _PERSON_LEADS_DESCRIBED.finditer(text):
        # "Wanjiru leads the borehole rehabilitation project": a first name will do (the merge finds who).
        if name := _someone(match.group("name")):
            found.append(Observation(match.group("thing"), "project", "lead", name, 0.75, DESCRIBED, match.start()))
    return found


def _section_leads(text: str, headings: frozenset[int]) -> list[Observation]:
    """ "## Glenasmole Golf Club" then "- Start moved to the 10th. Cathal leads; Darragh on the chipper.":
    a section's first "NAME leads" that names nothing led is about the work its heading names."""
    found = []
    starts = sorted(headings)
    for number, start in enumerate(starts):
        line_end = text.find("\n", start)
        line_end = len(text) if line_end < 0 else line_end
        heading = re.sub(r"^[#\s]+|\s*\([^()]*\)\s*$|[*_`]+", "", text[start:line_end]).strip()
        thing = re.sub(_SMALL, "", heading).strip(" :")
        if not _names_a_thing(thing) or is_group_name(thing) or looks_like_person(thing):
            continue
        section = text[line_end:starts[number + 1] if number + 1 < len(starts) else len(text)]
        match = _BARE_LEAD.search(section)
        said = match and (match.group("name") or match.group("led"))
        # "KW leads;": initials a person goes by, found as their alias when the folder is merged.
        if said and (name := said if re.fullmatch(r"[A-Z]{2,3}", said) else _someone(said)):
            position = line_end + match.start()
            found.append(Observation(thing, "project", "lead", name, 0.75, "prose", position))
            if " " in name:
                found.append(Observation(name, "person", MENTION, name, 0.75, "prose", position))
    return found


def _names_a_thing(thing: str) -> bool:
    """A name of a piece of work: not opening with a given name (someone's team), not a weekday or
    month, and with a word of its own ("Foundry Town", not "The Team")."""
    words = re.findall(r"[^\W\d_]+", thing)
    if not words or _NOT_THINGS.match(thing) or is_first_name(words[0]):
        return False
    return any(not is_common(w, 4.5) for w in words if w[0].isupper())


# --- handovers ------------------------------------------------------------------
# "Halvard takes over as account lead for Brindlecombe from Sunniva", "Ines replaces Mark as project
# lead", "Dana succeeds Lee as chair of the Foundry Town group": a role passed from one person to
# another. People in a mail are often named by first name alone, so one capitalised word will do;
# the merge (merge._apply_changes) finds whose role it was by the old holder, and who the new one is.
_PERSON_REF = rf"(?:{_NAME}|[A-Z][\w'’-]+)"
# The new holder may be written with the nickname they go by inside: Antero "Ante" Halonen.
_NEW_REF = rf"(?:[A-Z][\w'’-]+\s+[\"“'‘][A-Z][\w'’-]*[\"”'’](?:\s+[A-Z][\w'’-]+){{1,2}}|{_PERSON_REF})"
# A project's manager as Dutch, Finnish and Swedish write it too: "projectleider", "projektipäällikkö", "projektledare".
_ROLE_WORDS = (r"(?P<role>(?:[a-z][\w-]*\s+){0,2}?"
               r"(?:lead|leader|manager|owner|director|partner|sponsor|contact|coordinator|chair|head|[a-z]*leider"
               r"|[a-zäö]*päällikkö|[a-zåäö]*ledare))")
# "Harbour Civil's project lead": whose the role is, a firm in its possessive, kept in the role's key (the
# merge finds which of a project's keys that firm holds, "contractor_project_lead" rather than "project_lead").
_ROLE = (r"(?:the\s+|our\s+|their\s+|(?P<owner>[A-Z][\w&-]*(?:\s+[A-Z][\w&-]*){0,3})['’]s?\s+)?"
         + _ROLE_WORDS)
# The thing may carry a number in its name ("Harbour Road Bridge 7").
_OF_THING = (r"(?:\s+(?:for|on|of)\s+(?:the\s+)?"
             r"(?P<thing>[A-Z][\w'’&-]*(?:\s+(?:[A-Z][\w'’&-]*|of|and|&|\d{1,4}(?![\w/.-]))){0,5}))?")
# "Peter Mwangi (peter.mwangi@…) takes over": a way to reach the new holder, or their job, in brackets.
_ASIDE = r"(?:\s*\([^()\n]{1,80}\))?"
_HANDOVERS = (
    # NEW takes over as ROLE [for THING] from OLD; NEW takes over from OLD as ROLE [for THING]
    re.compile(rf"(?<![\w'’-])(?P<new>{_PERSON_REF})\s+(?:(?:will|is\s+going\s+to|is\s+to|has)\s+)?"
               rf"(?:takes?|taking|took|taken)\s+over\s+as\s+{_ROLE}{_OF_THING}\s+from\s+(?P<old>{_PERSON_REF})"),
    re.compile(rf"(?<![\w'’-])(?P<new>{_PERSON_REF})\s+(?:(?:will|is\s+going\s+to|is\s+to|has)\s+)?"
               rf"(?:takes?|taking|took|taken)\s+over\s+from\s+(?P<old>{_PERSON_REF})\s+as\s+{_ROLE}{_OF_THING}"),
    # NEW replaces / succeeds OLD as ROLE [on THING]
    re.compile(rf"(?<![\w'’-])(?P<new>{_PERSON_REF})\s+(?:(?:will|is\s+going\s+to|is\s+to|has)\s+)?"
               rf"(?:replaces?|replacing|replaced|succeeds?|succeeding|succeeded)\s+(?P<old>{_PERSON_REF})"
               rf"\s+as\s+{_ROLE}{_OF_THING}"),
    # NEW takes over as ROLE for THING, the one handing over unnamed: the THING named says whose role it is
    # ("From 1 December Peter Mwangi takes over as project lead for Kitui Boreholes", "… as lead on the
    # borehole rehabilitation project").
    re.compile(rf"(?<![\w'’-])(?P<new>{_PERSON_REF}){_ASIDE}\s+(?:(?:will|is\s+going\s+to|is\s+to|has)\s+)?"
               rf"(?:takes?|taking|took|taken)\s+over\s+as\s+{_ROLE}"
               rf"(?:\s+(?:for|on|of)\s+{_DESCRIBED.replace('GROUP', 'described')}|{_OF_THING})"),
    # From a day on, NEW is the ROLE for THING ("From that day Antero Halonen is the project manager for
    # Tuisku", "As of 1 March, Ines will be our contact for Foundry Town"), or NEW is its "new" ROLE: a role said
    # to start then, over a page that still names the one before.
    re.compile(rf"\b(?:[Ff]rom|[Aa]s\s+of|[Ss]tarting|[Ee]ffective)\s+[^,.;:!?\n]{{1,30}}?,?\s+(?P<new>{_NEW_REF}){_ASIDE}"
               rf"\s+(?:is|will\s+be|becomes|will\s+become)\s+{_ROLE}{_OF_THING}"),
    re.compile(rf"(?<![\w'’-])(?P<new>{_NEW_REF}){_ASIDE}\s+(?:is|will\s+be|becomes|will\s+become)\s+(?:now\s+)?"
               rf"(?:the|our|their)\s+new\s+{_ROLE_WORDS}{_OF_THING}"),
)


# "I am taking over as projectleider of Hofbogen from Monday": the writer of a mail takes over a role of a
# piece of work it names, from whoever held it (the sentence need not say who).
_WRITER_TAKES_OVER = re.compile(
    rf"(?<![\w'’-])I(?:\s+am|\s+will\s+be|['’]m|['’]ll|\s+will|\s+have)?\s+(?:take|taking|taken|took)\s+over\s+as\s+"
    rf"{_ROLE}\s+(?:for|on|of)\s+(?:the\s+)?(?P<thing>[A-Z][\w'’&-]*(?:\s+(?:[A-Z][\w'’&-]*|of|and|&)){{0,5}})")


def read_handovers(text: str, writer: str = "") -> list[Observation]:
    """A stated change of each role a sentence says passes from one person to another: the new holder
    as the value, the old one as the value it replaces, what the role is of (when named) as the subject.
    `writer`: who wrote the text (a mail's sender), the "I" who takes a role over in its own part."""
    text = re.sub(r"(?<!\n)\n(?![\n>])", " ", text)  # a wrapped paragraph; positions hold
    found, read = [], set()
    if writer:
        own = text[:quoted.start()] if (quoted := _QUOTED_PART.search(text)) else text
        for match in _WRITER_TAKES_OVER.finditer(own):
            thing = re.sub(_SMALL, "", match.group("thing")).strip()
            if _names_a_thing(thing):
                found.append(Observation(thing, CHANGE, key_for_label(match.group("role")), writer, 0.8, "change",
                                         match.start()))
    for pattern in _HANDOVERS:
        for match in pattern.finditer(text):
            said_old = match.groupdict().get("old")
            new, old = _someone(match.group("new")), _someone(said_old) if said_old else ""
            thing = re.sub(_SMALL, "", match.group("thing") or match.groupdict().get("described") or "").strip()
            # Without the old holder, only the thing named tells whose role changed; a sentence a pattern
            # naming the old holder has read is not read again without it.
            named = thing and (_names_a_thing(thing) or thing[0].islower())  # a described one: merge finds it
            if not new or new == old or not (old or (named and match.start() not in read)):
                continue
            read.add(match.start())
            role = " ".join(filter(None, (match.groupdict().get("owner"), match.group("role"))))
            found.append(Observation(thing, CHANGE, key_for_label(role), new, 0.8, "change",
                                     match.start(), previous=old))
    return found


def _someone(text: str) -> str:
    """The person capitalised words name, without a date or sentence word before them ("From 1
    December Halvard" -> "Halvard"): a full name, or one name word that is a given name or no everyday
    word ("Halvard", "Mary-Kate"; not "This" or "From"); "" when they name nobody."""
    words = clean_name(text).split()
    while words and (_NOT_THINGS.match(words[0])
                     or (is_common(words[0], 4.0) and not is_first_name(words[0].split("-")[0]))):
        words.pop(0)
    name = " ".join(words)
    if len(words) > 1:
        return name if looks_like_person(name) else ""
    first = name.split("-")[0]
    return name if name and is_name_word(name) and (is_first_name(first) or not is_common(first, 4.0)) else ""
