"""What one document says about a person, project or thing: the unit extraction produces.

An Observation is one (subject, key, value) read from one place in one document, with how it
was read and how sure the reader is. Documents are re-read when they change, so observations
are stored per document; the registry's extracted entities are merged from all of them.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from chatapp.accents import strip_accents
from chatapp.lexicon import is_common

# key "" means the document only names the subject (a mention).
MENTION = ""
ALIAS = "alias"
# subject_type of a stated change whose subject the merge finds: the entity that held the old value.
CHANGE = "change"
# method of a reading whose subject is a piece of work described in lower case ("the borehole rehabilitation
# project"): kept only when a document names that work so (merge._described_work).
DESCRIBED = "described"


@dataclass(frozen=True)
class Observation:
    subject: str  # the subject's name as the document writes it ("Dana Kim", "Project Heron")
    subject_type: str  # person | project | organization | product | place | event | thing
    key: str  # attribute key in snake_case ("email", "role", "lead", "go_live"), ALIAS, or MENTION
    value: str
    confidence: float
    method: str  # how it was read: mail_header, signature, directory, table, key_value, record, prose, ner
    position: int = 0  # character offset in the parsed text, for the chunk it came from
    # For a stated change ("moved to 11 May (was 4 May)"): the value it replaces, when the text names it.
    previous: str = ""


HONORIFIC = (
    # "Mdm Lee Pei Shan": Madam, as Singapore and Malaysia address a woman.
    r"(?:(?:dr|mr|mrs|ms|mx|miss|mdm|madam|prof|sir|dame)\.?(?:-ing\.)?"
    # The German doctorate's subject and the habilitation after "Dr.": "Dr. rer. nat.", "Dr. med.
    # habil.", "Dr. h. c." — abbreviations no name word ends with a full stop.
    r"|(?:rer|nat|med|phil|jur|pol|oec|soc|theol|habil|dent|vet|techn|h\.\s?c)\."
    # An engineer's title, as East and West Africa write it before the name: "Eng. Kennedy Mutua", "Engr.".
    r"|engr?\."
    # Nigeria's titles before a name: "Alhaji Kabiru Sule", "Hajiya Amina Bello", "Barr. Ngozi Eke" (a barrister).
    r"|alhaj[ia]|haj(?:iy)?a|barr\."
    # Dutch degrees before a name, always with their full stop: "ir. Femke ter Horst" (engineer, university),
    # "ing." (engineer, hogeschool), "drs." (doctorandus); "mr. drs. Karin Vermeulen" stacks two.
    r"|(?:ir|ing|drs)\."
    # German degrees and forms of address before a name: "Dipl.-Ing. Matthias Weiß", "Herr Dr. Kübler".
    r"|dipl\.?-?\s?(?:ing|kfm|kff|inf|phys|chem|math|psych|biol|geol)\.?(?:\s?\(fh\))?|herr|frau"
    # Spanish and Latin American degrees and forms of address, always with their full stop: "Lic. María
    # Ortega" (licenciado/a), "Arq." (architect), "C.P." (contador público), "Mtra." (maestra), "Dra.", "Sra.".
    r"|(?:lic|licda|arq|mtro|mtra|dra|sr|sra|srta|c\.\s?p)\.)\s+"
)
_HONORIFICS = re.compile("^" + HONORIFIC, re.IGNORECASE)
# Surname particles written in lower case: "Joost van Leeuwen", "Sanne de Vries"; and the Irish
# "Ó" ("Cillian Ó Súilleabháin"), a capital letter standing alone that no other name word is.
# Small words inside a surname: "van der Berg", "Gethin ap Rhys" (Welsh "son of"), "dos Santos".
# Malay "bin"/"binte" and Tamil "s/o", "d/o", "a/l", "a/p" (son or daughter of) join a person's name to
# their father's, as Singapore and Malaysia write them ("Rajesh Kumar s/o Gopal").
# The Irish "Ó" is often written without its accent ("Declan O Ceallaigh" in a mail header).
# Dutch "'t" (het, "the") stands between "van" and the surname: "Bas van 't Hof", "Mark van 't Wout".
NAME_PARTICLES = frozenset("van von de der den da di do du del della dos das la le bin binti binte bte ibn al ter ó o "
                           "ap ab ferch ní nic uí mhic s/o d/o a/l a/p 't ’t".split())
# A person's name as prose writes it: two to four capitalised words, surname particles between them
# ("Gethin ap Rhys", "Anna van der Berg"). Readers check what it finds with looks_like_person.
_PARTICLE = "|".join(sorted(NAME_PARTICLES, key=len, reverse=True))
# Irish particles are written with a capital ("Cathal Ó Dúill", "Siobhán Ní Bhriain"), the others in lower case.
PROSE_NAME = rf"[A-Z][\w'’-]+(?:\s+(?:(?i:{_PARTICLE})\s+){{0,2}}[A-Z][\w'’-]+){{1,3}}"
# A capitalised name word by the shape of its letters ("A" a capital, "a" a small letter of any
# alphabet): "Dana", "Okonkwo-Hale", "O'Neill", "McDonald", "Inés", "Kamińska", "Đoàn", "Hạnh".
# A closing apostrophe is part of some names as Kenya writes them: "Atieno'", "Ochieng'" (the "ng'" sound).
_NAME_SHAPE = re.compile(r"^(?:A['’])?Aa+(?:Aa+)?(?:[-'’]A?a+)*['’]?\.?$")


def _letter_shape(word: str) -> str:
    return "".join("A" if c.isupper() else "a" if c.isalpha() else c for c in word)


def is_name_word(word: str) -> bool:
    return bool(_NAME_SHAPE.match(_letter_shape(word)))


# Words that end an organisation's or group's name, never a person's.
_GROUP_WORDS = frozenset(
    "staff team teachers all everyone list group department office committee board council ltd llp inc "
    "limited plc gmbh bv b.v. co corp company school college university services systems solutions "
    "consultancy consultants builders partners associates club society trust foundation support admin "
    "finance accounts reception desk lab labs hr it sales marketing operations "
    "care hire supply supplies direct holdings studio studios clinic surgery practice agency garage imaging "
    "management maintenance electrical".split()
)


# Words that end a place's or a building's name, never a person's: "Foundry Town", "Hallam Gallery",
# "Clark County Heritage Center". ("Hall", "Park", "Lane" and "Wing" are surnames too, so are not here.)
_PLACE_WORDS = frozenset(
    "town city village county district borough gallery galleries museum auditorium library centre center "
    "theatre theater stadium avenue road street square campus building annex annexe "
    "farm farms dairy station estate vineyard winery flats ranch homestead apartments residences towers plaza "
    "mews valley ridge creek falls springs hills academy".split()
)
# Words that end the name of a piece of work, never a person's ("Suite 210 Fit-Out", "Lobby Upgrade").
# A month or weekday opening three or more name-like words is the end of a date before a name.
_MONTHS_AND_DAYS = frozenset("january february march april may june july august september october november december "
                             "monday tuesday wednesday thursday friday saturday sunday".split())
_WORK_WORDS = frozenset("project programme program upgrade refit fit-out fitout remodel rollout".split())
# Words that end a building's or a street's name, or a holiday's or an event's, but are surnames too
# ("Jacaranda Court", "Republic Day", "Margaret Court", "Rachel Day"): a place or a day kept unless the
# name opens with a given name.
_PLACE_OR_SURNAME_WORDS = frozenset("court tower terrace lodge house place heights gardens quay wharf "
                                    "day eve festival fest holiday week weekend".split())


# Words that open the name of a mailing list or a team rather than a person's.
_LIST_OPENERS = frozenset({"all", "team", "staff", "everyone", "dept"})


# Dutch and German names of public bodies and foundations open with what they are: "Gemeente Rotterdam",
# "Stichting Present", "Woonstichting Maasoever" (a compound ending in one), "Provincie Zuid-Holland",
# "Stadt Köln".
_LEADING_GROUP_WORDS = frozenset("gemeente stichting provincie waterschap vereniging ministerie hogeschool "
                                 "universiteit stadt landkreis gemeinde".split())
_LEADING_GROUP_ENDINGS = ("stichting", "vereniging", "corporatie")


def is_group_name(name: str) -> bool:
    """A name ending in a word for a group or a firm ("Glenasmole Golf Club", "Hartley Foods Ltd"), or
    opening as a list's does ("All Bengaluru") or as a Dutch public body's ("Gemeente Rotterdam")."""
    words = name.split()
    if len(words) < 2:
        return False
    first = words[0].lower()
    return (words[-1].lower().strip(".") in _GROUP_WORDS or first in _LIST_OPENERS or first in _LEADING_GROUP_WORDS
            or (first.endswith(_LEADING_GROUP_ENDINGS) and len(first) > 9))


# A nickname written inside a full name: Oluwaseun "Seun" Adebayo, Robert 'Bob' Hale, Margaret (Peggy) Lin.
# One name, so within a paragraph: "Office move to Beato (Marvila)", a blank line, then "We are leaving …" is none.
_IN_PARAGRAPH = r"(?:[ \t]*\n[ \t]*|[ \t]+)"
INNER_NICKNAME = re.compile(
    rf"\b([A-Z][\w'’-]+){_IN_PARAGRAPH}(?:\"([A-Z][\w'’-]{{1,20}})\"|“([A-Z][\w'’-]{{1,20}})”|'([A-Z][\w-]{{1,20}})'"
    rf"|‘([A-Z][\w-]{{1,20}})’|\(([A-Z][\w'’-]{{1,20}})\)){_IN_PARAGRAPH}(?=[A-Z])"
)


# A nickname in quotes and brackets after the full name: 'Maximilian Huber ("Max")'.
TRAILING_NICKNAME = re.compile(r"\s*\(\s*[\"“'‘]([A-Z][\w'’-]{1,20})[\"”'’]\s*\)\s*$")


# "Hiroshi Tanaka [TANAKA]", "Takeshi Suzuki (SUZUKI Takeshi)": the name again after it, its family name
# in capitals or the whole name in the other order, as lists of Japanese staff write them.
_BRACKET_AFTER = re.compile(r"\s*[\[(]\s*(?P<inner>[^\[\]()]{1,60}?)\s*[\])]\s*$")


def names_itself(inner: str, name: str) -> bool:
    """Whether `inner` is only words of `name`, in any order and case: "TANAKA Hiroshi" of "Hiroshi Tanaka"."""
    words = {w.casefold() for w in re.findall(r"[^\W\d_]+", inner)}
    return bool(words) and words <= {w.casefold() for w in re.findall(r"[^\W\d_]+", name)}


def without_name_again(text: str) -> str:
    """`text` without a bracket after a name that only gives the name again ("Hiroshi Tanaka [TANAKA]")."""
    match = _BRACKET_AFTER.search(text or "")
    if match and match.start() and names_itself(match.group("inner"), text[:match.start()]):
        return text[:match.start()]
    return text


# "SUZUKI Takeshi", "OGAWA Masaru": the family name first and in capitals, as Japanese (and other) official
# papers write a name; prose and mail headers elsewhere give the same person as "Takeshi Suzuki".
_CAPITALS_FIRST = re.compile(r"^(?P<family>[A-Z]{3,}(?:-[A-Z]{2,})?)\s+(?P<given>[A-Z][a-z'’]+(?:[- ][A-Z][a-z'’]+)?)$")


def given_name_first(name: str) -> str:
    """ "SUZUKI Takeshi" -> "Takeshi Suzuki"; any other name as it is."""
    match = _CAPITALS_FIRST.match(name)
    if not match:
        return name
    family = _surname_case(match.group("family"))
    turned = f"{match.group('given')} {family}"
    from chatapp.lexicon import is_first_name, is_surname

    # "HR Manager", "ACME Holdings", "CEO Sanne": capitals before a word are an acronym unless they read as a
    # surname, before a word that reads as a given name.
    given = match.group("given").split()[0]
    family_reads_as_name = not is_common(family, 3.5) or (is_surname(family) and not is_common(family, 4.0))
    given_reads_as_name = is_first_name(given) or not is_common(given, 3.5)
    return turned if looks_like_person(turned) and family_reads_as_name and given_reads_as_name else name


# Letters after a name that are a rank, degree, honour or professional body's membership, written as
# they are (case counts: "Wei Ma" is a name): "Declan Ó Ceallaigh SC", "Fionnuala Crerar CA", "Aled
# Rhys BSc (Hons) MCSP", "Sunita Rao, PhD"; and a generation ("Hank Oyelaran III", "Robert Castellano
# Jr."), which people leave out when they name someone. Firms' suffixes (Ltd, LLP) are no one's letters.
LETTERS_AFTER_A_NAME = frozenset("""
    Jr Jr. Sr Sr. II III IV
    SC KC QC BL JP DL MP MSP MS MLA Esq Esq.
    CA ACA FCA ACCA FCCA CPA CMA CFA CTA ATT CIMA ACMA FCMA CIPD MCIPD FCIPD
    MBE OBE CBE KBE DBE RIBA ARB MRICS FRICS MCIOB FCIOB CEng IEng MICE FICE MIStructE FIStructE MIET
    MIMechE PE PEng AIA FAIA LEED RA
    RN RGN RMN NP MD DO DDS DMD BDS MRCVS BVSc BVMS MCSP HCPC FRCS MRCP FRCP MRCGP FRCGP
    PhD DPhil MPhil MBA MSc BSc BA MA MEng BEng LLB LLM JD EdD DBA BEd MEd BArch MArch (Hons)
""".split())


def _without_letters_after(text: str) -> str:
    words = text.split()
    while len(words) > 2 and words[-1].strip(",") in LETTERS_AFTER_A_NAME:
        words.pop()
    return " ".join(words).rstrip(",")


def clean_name(text: str) -> str:
    """A name without honorifics, markup, a nickname inside it or stray punctuation: "**Dr. Lorraine
    Ashworth**" -> "Lorraine Ashworth", 'Oluwaseun "Seun" Adebayo' -> "Oluwaseun Adebayo" (the
    people reader keeps "Seun" as an alias)."""
    text = TRAILING_NICKNAME.sub("", INNER_NICKNAME.sub(r"\1 ", without_name_again(text or "")))
    text = re.sub(r"[*_`\"“”]+", "", text)
    text = " ".join(text.split()).strip(" ,;:.-–—|")
    text = _without_letters_after(text)
    # A degree after a comma written with full stops: "Anja Roßbach, M.Sc.", "Ruth Okafor, Ph.D.".
    text = re.sub(r"(?:,\s*(?-i:[BM]\.?\s?(?:Sc|Eng|A|Ed)|Ph\.?\s?D|MBA|LL\.?\s?M)\.?)+$", "", text)
    while True:
        stripped = _HONORIFICS.sub("", text)
        if stripped == text:
            return given_name_first(text)
        text = stripped


_NUMBER_WORDS = frozenset("one two three four five six seven eight nine ten eleven twelve".split())


# Words for someone who does something: the head of a job title.
# shipwright, locksmith, groundsman, foreman, spokesperson
# French doers too: "directeur", "coordonnatrice", "secrétaire", "trésorière", "responsable".
_AGENT_ENDING = re.compile(r"(?:er|or|ist|yst|ant|ian|ee|ary|wright|smith|s(?:wo)?man|sperson|foreman|"
                           r"eur|euse|trice|iste|aire|ière|"
                           # Spanish doers: "coordinadora", "directora", "contralora", "recepcionista".
                           r"ora|ista)$")
_AGENT_WORDS = frozenset("clerk chair head lead architect chef nurse deputy principal vet coach cook pilot "
                         "medic responsable adjoint adjointe agent agente chargé chargée président présidente "
                         "trésorier president warden captain steward commodore bursar provost superintendent "
                         "gerente jefe jefa encargado encargada".split())


# Words ending as a doer's does that are no doer: "Whether Kimana Gate shares the water point" names no job "whether".
_NOT_AGENTS = frozenset("whether either neither other another rather together however whatever whenever "
                        "wherever whoever wherefore therefore never forever over under after later earlier "
                        "further hither thither newsletter letter register folder order number chapter quarter "
                        "matter water weather paper poster banner trailer container charter corner border cover "
                        "power summer winter dinner flora diaspora vista".split())


def is_job_word(word: str) -> bool:
    """ "manager", "brewer", "nurse": a word for someone who does something (lower case)."""
    if word in _NOT_AGENTS or "'" in word or "’" in word:
        return False  # "O'Connor", "D'Souza" end like a doer's word but are surnames: no job has an apostrophe
    return word in _AGENT_WORDS or (len(word) > 4 and _AGENT_ENDING.search(word) is not None)


# Initials standing for a father's name or a family's village, as South India writes a person's name:
# "K. R. Lalitha", "T. Geetha", "K.R. Lalitha" before the given name, or one letter after it ("Subramaniam R").
_INITIALS = re.compile(r"^(?:[A-Z]\.){1,3}$|^[A-Z]$")


def _with_initials(words: list[str]) -> bool:
    """Whether a name written with initials reads as a person's: dotted initials before one or two
    name words ("K. R. Lalitha"), or one initial after them ("Subramaniam R", "Subramaniam R."),
    the name words no common English words ("Plan B", "Block C", "Grade A. Results" are none)."""
    from chatapp.lexicon import is_first_name, is_surname

    lead = 0
    while lead < len(words) and re.fullmatch(r"(?:[A-Z]\.){1,3}", words[lead]):
        lead += 1
    if lead:
        rest = words[lead:]
    elif re.fullmatch(r"[A-Z]\.?", words[-1]):
        rest = words[:-1]
    else:
        return False
    if not 1 <= len(rest) <= 2 or lead > 3 or not all(is_name_word(w) and not _INITIALS.match(w) for w in rest):
        return False
    if any(w.lower().strip(".") in _GROUP_WORDS | _PLACE_WORDS | _WORK_WORDS | _NUMBER_WORDS for w in rest):
        return False
    if not lead:  # "Block C", "Grade A", "Room B": a word that is a surname too is still a common word
        return not any(is_common(w.strip("."), 3.0) for w in rest)
    return all(is_first_name(w) or is_surname(w) or not is_common(w.strip("."), 3.0) for w in rest)


def looks_like_person(name: str) -> bool:
    """Whether a cleaned name reads as a person's: two to four capitalised words (surname
    particles allowed), no digits or all-caps acronyms, not ending in a group word ("All Staff",
    "Cascade Builders"), and not made only of common English words — nor opening and ending with
    them, as a title does ("Senior Lettings Negotiator") — unless it opens with a known given name
    ("Grace Hall" yes, "Great Hall" no)."""
    from chatapp.lexicon import is_first_name, is_surname

    words = name.split()
    if not 2 <= len(words) <= 5:
        return False
    if any(_INITIALS.match(w) for w in words):
        return _with_initials(words)
    capitalised = [w for w in words if w.lower() not in NAME_PARTICLES]
    if len(capitalised) < 2 or len(capitalised) > 4 or not all(is_name_word(w) for w in capitalised):
        return False
    if words[0].lower() in NAME_PARTICLES or words[-1].lower().strip(".") in _PLACE_WORDS:
        return False
    if is_group_name(name):
        return False  # "Cascade Builders", "All Bengaluru", "Team Phoenix": a firm's, a list's or a team's name
    if words[0].lower() in _WORK_WORDS and not is_first_name(words[0]):
        return False  # "Project Falcon", "Programme Kestrel": a piece of work's name, as a page's heading gives it
    if words[0] == "The":
        return False  # "The Moreton", "The Old Dairy": a building's or a firm's name, never a person's
    if len(capitalised) > 2 and words[0].lower() in _MONTHS_AND_DAYS:
        return False  # "From 1st December Peter Mwangi takes over": a date's month before the name
    if words[0].lower() in ("project", "programme", "program"):
        return False  # "Project Tembusu": a piece of work named by what it is, never a person
    if words[-1].lower() in _PLACE_OR_SURNAME_WORDS and not is_first_name(words[0]):
        return False
    if any(w.lower() in _NUMBER_WORDS for w in capitalised):
        return False  # "Kittiwake Two", "Studio Three": a boat's or a room's name, not a person's
    last = capitalised[-1].strip(".")
    if is_job_word(last.lower()) and is_common(last, 3.0) and not is_surname(last):
        return False  # "Taproom Manager", "Sales Coordinator": a job title, whatever the word before it
    if ((last.lower() in _WORK_WORDS or last.endswith(("tion", "sion", "ment")))
            and is_common(last, 3.0) and not is_surname(last)):
        return False  # a piece of work: "Eastgate Library Renovation", "Annex Fit-Out", "Chiller Replacement"
    if last.endswith("ing") and is_common(last, 3.0) and not is_surname(last):
        return False  # a trade ends a firm's name: "Russo Hydraulic Plumbing", "Kestrel Catering"
    if last.endswith("s") and is_common(last, 3.0) and is_common(last[:-1], 3.0) and not is_surname(last):
        return False  # a plural common noun ends a firm's name: "Fenwick Aldous Solicitors", "Hartley Foods"
    if is_first_name(words[0]):
        return True
    if len(capitalised) > 2 and is_common(capitalised[0], 4.0) and not is_surname(capitalised[0]):
        return False  # "Contact Anjali Deshpande", "Email Rahul Iyer": a sentence's word before a name
    if is_common(capitalised[0], 3.5) and is_common(last, 3.0) and not (is_first_name(last) or is_surname(last)):
        # "Senior Lettings Negotiator": a title, not a name. Not "Tan Wei Ming", "Chen Jia Hui": a surname
        # written first, as Chinese names are, then given names.
        return False
    return not all(is_common(w.strip("."), 3.5) for w in capitalised)


# Columns that hold one part of a person's name, as HR and mailing-list exports split it.
# Nigerian and other West African forms and registers write the given names as "Other Names" beside the
# surname.
_GIVEN_NAME_KEYS = ("first_name", "firstname", "given_name", "given_names", "forename", "forenames", "first_names",
                    "prénom", "prenom", "other_names", "othernames", "other_name")
# Columns listing every given name a person has, middle names too.
_ALL_GIVEN_NAMES_KEYS = ("given_names", "forenames", "first_names", "other_names", "othernames")
_MIDDLE_NAME_KEYS = ("middle_name", "middle_names", "middlename")
_FAMILY_NAME_KEYS = ("last_name", "lastname", "surname", "family_name", "familyname", "nom", "nom_de_famille")


SPLIT_NAME_KEYS = frozenset(_GIVEN_NAME_KEYS + _MIDDLE_NAME_KEYS + _FAMILY_NAME_KEYS + ("name_in_full",))


def with_whole_names(keys: list[str], rows: list[list[str]]) -> tuple[list[str], list[list[str]]]:
    """A table that splits each person's name over a given-name and a family-name column ("Surname",
    "First name") gains a "name" column of the two in the order prose writes them ("Sipho Mbatha"),
    so its rows are people, not their surnames."""
    given = next((keys.index(k) for k in _GIVEN_NAME_KEYS if k in keys), None)
    family = next((keys.index(k) for k in _FAMILY_NAME_KEYS if k in keys), None)
    if given is None or family is None or "name" in keys:
        return keys, rows
    middle = next((keys.index(k) for k in _MIDDLE_NAME_KEYS if k in keys), None)
    parts = [given] + ([middle] if middle is not None else []) + [family]

    def whole(row: list[str]) -> str:
        return " ".join(" ".join(row[i].split()) for i in parts if i < len(row) and row[i].strip())

    if keys[given] not in _ALL_GIVEN_NAMES_KEYS or middle is not None:
        return ["name", *keys], [[whole(row), *row] for row in rows]

    # "Other Names: Olufunmilayo Ronke", "Forenames: Anna Louise": a column of all of someone's given names,
    # who is called by the first ("Olufunmilayo Adebanjo", as mail and minutes write her). The name in full
    # is kept as a name they go by.
    def called(row: list[str]) -> str:
        first = row[given].split()[:1] if given < len(row) else []
        return " ".join(first + ([" ".join(row[family].split())] if family < len(row) and row[family].strip() else []))

    return (["name", *keys, "name_in_full"],
            [[called(row), *row, whole(row) if whole(row) != called(row) else ""] for row in rows])


# Columns giving the name a person goes by ("Jo" for Josephine): an alias, as a signed name is.
NICKNAME_KEYS = frozenset({"known_as", "nickname", "preferred_name", "goes_by", "aka", "also_known_as", "called",
                           "name_in_full"})


# "Abara, Chidi (Dr.)", "Nowakowska, Zofia": a name written surname first, as phone lists, registers
# and practice-system exports sort their people; the bracket holds an honorific or a name they go by.
# Staff lists write the surname in capitals ("WAMALWA, Esther Nafula"), an honorific before the given names
# ("KIPROP, Eng. Samuel") and two given names where a person has them.
_SURNAME_FIRST = re.compile(
    r"^(?P<surname>[^\W\d_][\w'’-]*(?:[ -][^\W\d_][\w'’-]*){0,2}),\s*(?P<title>" + HONORIFIC + r")?"
    r"(?P<given>[^\W\d_][\w'’-]*(?:\s+[A-Z]\.?|\s+[^\W\d_][\w'’-]*)?)"
    r"(?:\s*\((?P<note>[^()]{1,24})\))?$", re.IGNORECASE
)


def _surname_case(surname: str) -> str:
    """ "WAMALWA" -> "Wamalwa", "NG'ANG'A" -> "Ng'ang'a", "OKONKWO-HALE" -> "Okonkwo-Hale"; "Abara" as written."""
    if not surname.isupper() or len(surname) < 2:
        return surname
    return "-".join(" ".join(w[:1].upper() + w[1:].lower() for w in part.split()) for part in surname.split("-"))


def _natural_order(cell: str) -> str | None:
    """ "Abara, Chidi (Dr.)" -> "Dr. Chidi Abara", "Lund, Elizabeth (Betsy)" -> 'Elizabeth (Betsy) Lund'
    (clean_name keeps the bracketed name as a nickname); None when the cell is not a name in that order."""
    match = _SURNAME_FIRST.match(" ".join(cell.split()).strip("*_ "))
    if not match:
        return None
    note = (match.group("note") or "").strip()
    surname = _surname_case(match.group("surname"))
    name = f"{match.group('given')} {surname}"
    if not looks_like_person(name):
        return None
    if match.group("title"):
        return f"{match.group('title').strip()} {name}"
    if _HONORIFICS.match(note + " "):
        return f"{note} {name}"
    if re.fullmatch(r"[A-Z][\w'’-]{1,20}", note):
        return f"{match.group('given')} ({note}) {surname}"
    return name


def surname_first_turned(cell: str) -> str | None:
    """One "Surname, Given" name turned round ("Vermeulen, Karin" -> "Karin Vermeulen"), or None."""
    return _natural_order(cell)


def natural_order_names(cells: list[str]) -> list[str]:
    """A column's names in the order prose writes them. A column most of whose names (two at least)
    are written "Surname, Given" is a sorted list of people, so each such cell turns round; one cell
    alone ("Hall, Great") is too little to tell a sorted name from a place and its town."""
    turned = [_natural_order(cell) for cell in cells]
    named = [cell for cell in cells if cell.strip()]
    if sum(t is not None for t in turned) < max(2, (len(named) + 1) // 2):
        return cells
    return [t or cell for t, cell in zip(turned, cells)]


# A people table's "Title" column is each person's job title, where a page's "title" is its name; its
# "Line" column their phone line, where a budget table's "Line" is the budget line.
# Its "Function" (Dutch "Functie", "Rol") is their job too.
_PERSON_TABLE_KEYS = {"title": "role", "job": "role", "designation": "role", "function": "role", "functie": "role",
                      "rol": "role", "line": "phone", "phone_line": "phone"}


def person_key(key: str, cells: list[str] = ()) -> str:
    """A people table's column key as the registry keeps it; `cells`: the column's cells, which tell a
    board's "| Office | Name |" (President, Treasurer, …: each one's role) from a desk's office."""
    if key == "office" and _mostly_titles(cells):
        return "role"
    if key == "title" and cells and all(_HONORIFICS.match(cell.strip() + " ") for cell in cells if cell.strip()):
        return "honorific"  # "Title: Mrs", "Engr.", "Alhaji": how a person is addressed, not their job
    return _PERSON_TABLE_KEYS.get(key, key)


def _mostly_titles(cells: list[str]) -> bool:
    """More than half the cells end on a word for someone who does something ("Vice President")."""
    heads = [words[-1].lower() for cell in cells if (words := re.findall(r"[^\W\d_]+", cell))]
    return bool(heads) and sum(is_job_word(head) for head in heads) * 2 > len(heads)


# Columns whose cells are people however they are written, first names too: "| Who | What | By when |".
PEOPLE_COLUMNS = frozenset("who person employee staff staff_member member full_name contact_name".split())
# What a row of a table tells about the person it names when it names them by first name only:
# how to reach them and what they do. The rest of the row (an action, a deadline) is the row's.
PERSON_KEYS_FROM_A_ROW = frozenset({"email", "phone", "mobile", "role", "department"})


def looks_like_given_name(name: str) -> bool:
    """A person written by first name only: one capitalised name word ("Priya", "Tavita")."""
    return len(name.split()) == 1 and is_name_word(name) and not name.isupper()


# Columns whose cells are firms however personal their names read: "Marlow Vet Supplies", "Harrier Imaging".
ORGANISATION_COLUMNS = frozenset("supplier vendor company client customer organisation organization firm business "
                                 "contractor subcontractor manufacturer agency provider".split())
# Of those, what may as well be people: a vet's or a solicitor's clients, a dental practice's providers, an
# IT team's contractors.
PEOPLE_OR_FIRMS = frozenset({"client", "customer", "provider", "contractor"})


# A firm's legal form after its name (legal_names.py reads firms by it).
# Portugal's "Lda.", Brazil's "Ltda.", Spain's "S.L.", Italy's "S.r.l." and "S.p.A." too; South Africa's
# "(Pty) Ltd", "(SOC) Ltd", close corporations' "CC" and non-profits' "NPC"; Finland's "Oy", "Oyj" and, in
# Swedish, "Ab", "Abp"; Denmark's "ApS". (Not "AB" or "Ky": an address's "Calgary, AB" and "Louisville, Ky.")
LEGAL_FORMS = (r"(?:Ltd\.?|Limited|LLP|LLC|PLC|plc|GmbH|AG|B\.V\.|BV|N\.V\.|Inc\.?|Pty\.? Ltd\.?|\((?:Pty|SOC)\) Ltd\.?|CC|NPC|"
               r"s\.r\.o\.|A/S|S\.A\.|"
               r"Lda\.?|Ltda\.?|S\.L\.|S\.r\.l\.|SRL|S\.p\.A\.|"
               r"Oyj|Oy|Abp|Ab|ApS)(?![\w/])")
_ENDS_IN_FORM = re.compile(rf",?\s+{LEGAL_FORMS}\.?\s*$")


def has_legal_form(name: str) -> bool:
    """Whether a name ends in a firm's legal form: "Valokaari Oy", "Brannock Foods Ltd"."""
    return bool(_ENDS_IN_FORM.search(name))


def without_legal_form(name: str) -> str:
    """The name as mails write it: "Valokaari Oy" -> "Valokaari"."""
    return _ENDS_IN_FORM.sub("", name).strip()


def table_subject_type(column_key: str, subjects: list[str], keys: list[str] = (), listed_as: str = "") -> str:
    """ "organization" for a column of firms ("Supplier"), or records that a list of firms holds
    (`listed_as`: what the list calls one, "vendor" for a JSON list "vendors"; a list of clients,
    providers or the like only when their names are not people's); "project" when another column names each
    row's lead ("projectleider", "project_lead": people lead a piece of work) and none says how to reach
    the row or what it does (a staff list's "team_lead" sits beside their email and role), unless the
    rows are teams ("department, head");
    "person" when most of a table's named subjects are people: full names, or first names alone in a
    column of people; else "thing"."""
    from chatapp.lexicon import concepts_of_key

    named = [s for s in subjects if s]
    # A column of names most of which end in a legal form is one of firms, however its header is written
    # ("nimi" in a list of "toimittajat": "Valokaari Oy", "Saaristotext Ab").
    if column_key in ORGANISATION_COLUMNS or column_key.rstrip("s") in ORGANISATION_COLUMNS or (
            named and sum(map(has_legal_form, named)) * 2 > len(named)):
        return "organization"
    concepts = [concepts_of_key(k) for k in keys if k != column_key]
    if (column_key not in PEOPLE_COLUMNS and "department" not in concepts_of_key(column_key)
            and any("lead" in c for c in concepts)
            and not any(c & {"email", "phone", "role", "department"} for c in concepts)):
        return "project"
    if listed_as in ORGANISATION_COLUMNS - PEOPLE_OR_FIRMS:
        return "organization"  # "Ballyroan Groundworks" reads like a person's name; its list says it is a firm
    people = sum(looks_like_person(s) or (column_key in PEOPLE_COLUMNS and looks_like_given_name(s)) for s in named)
    if people * 2 > len(named):
        return "person"
    return "organization" if listed_as in PEOPLE_OR_FIRMS else "thing"


def row_keys(subject_type: str, column_key: str, subject: str, keys: list[str]) -> list[str] | None:
    """Which of a row's columns are about what its subject cell names: all of them for a thing, a
    firm or a person's full name, only contact and role for a first name in a column of people,
    None when a table of people's row names nobody."""
    if subject_type != "person" or looks_like_person(subject):
        return keys
    if column_key in PEOPLE_COLUMNS and looks_like_given_name(subject):
        return [key for key in keys if key in PERSON_KEYS_FROM_A_ROW]
    return None


def key_for_label(label: str) -> str:
    """An attribute key from a label as written: "Project lead" -> "project_lead", "Go-live" -> "go_live",
    "E-mail" -> "email", "DDI" -> "phone"."""
    text = unicodedata.normalize("NFKC", label).strip().lower()
    text = text.strip("*_` ")  # Markdown emphasis around a label, not the underscores inside a key
    # "Client's project manager" is the client_project_manager, not a "client s project manager".
    text = re.sub(r"(?<=\w)['’]s\b", "", text)
    key = re.sub(r"[^\w]+", "_", text).strip("_")
    if key in LABEL_SYNONYMS or " / " not in text:
        return LABEL_SYNONYMS.get(key, key)
    # A label in two languages, "Funktion / Role", "Projektleiter / Project lead": the key one side names,
    # when the sides name no two different keys ("E-Mail / Telefon" stays as written).
    # Else the side in English ("Abgabetermin / Submission deadline"), as the user asks in English.
    sides = text.split(" / ")
    known = {key_for_label(part) for part in sides} & _KNOWN_KEYS
    if known:
        return known.pop() if len(known) == 1 else key
    english = [side for side in sides if (said := re.findall(r"[^\W\d_]+", side))
               and all(is_common(word) for word in said)]
    return key_for_label(english[0]) if len(english) == 1 and len(sides) == 2 else key


# Labels that name a common attribute another way; the registry keeps one key for each.
LABEL_SYNONYMS = {
    "e_mail": "email", "email_address": "email", "mail": "email", "e_mail_address": "email",
    # A staff list's "Official Email" or "Work email" is the person's address, as is a plain "Email".
    "official_email": "email", "work_email": "email", "office_email": "email", "business_email": "email",
    "ddi": "phone", "direct_dial": "phone", "tel": "phone", "telephone": "phone", "phone_number": "phone",
    "direct_line": "phone",
    # An extension is dialled inside the building only: a list giving "Ext" and "Cell" gives both.
    "ext": "extension", "extn": "extension", "ext_no": "extension",
    # A mobile is kept apart from a desk phone: people list both, and "what's her mobile?" asks for one.
    "mob": "mobile", "cell": "mobile", "cellphone": "mobile", "cell_phone": "mobile", "mobile_phone": "mobile",
    "mobile_number": "mobile", "mobile_no": "mobile", "cell_number": "mobile",
    # Nigeria and Ghana call a mobile line "GSM" on forms and staff lists.
    "gsm": "mobile", "gsm_no": "mobile", "gsm_number": "mobile",
    "job_title": "role", "title_role": "role", "position": "role", "role_title": "role",
    "dept": "department", "team": "department",
    "project_lead": "lead", "lead_by": "lead", "led_by": "lead", "project_leader": "lead", "leader": "lead",
    # A project's manager is who leads it (a person's "manager" is whom they report to: not this key).
    "project_manager": "lead", "pm": "lead",
    "project_owner": "owner", "owned_by": "owner",
    "golive": "go_live", "go_live_date": "go_live", "launch_date": "launch",
    # French labels, as Québec and France write them ("Courriel :", "Tél. :", "responsable: …" on a project page).
    "courriel": "email", "adresse_courriel": "email", "tél": "phone", "téléphone": "phone", "telephone_bureau": "phone",
    "cellulaire": "mobile", "poste": "extension", "ramal": "extension", "rôle": "role", "fonction": "role",
    "responsable": "lead", "responsable_du_projet": "lead", "chargé_de_projet": "lead", "chargée_de_projet": "lead",
    # German labels ("Telefon:", "Durchwahl", "Funktion", "Projektleiter: …" on a project page).
    "telefon": "phone", "telefonnummer": "phone", "tel_nr": "phone", "durchwahl": "extension", "mobil": "mobile",
    "mobilnummer": "mobile", "handy": "mobile", "e_mail_adresse": "email", "funktion": "role", "rolle": "role",
    "abteilung": "department", "projektleiter": "lead", "projektleiterin": "lead", "projektleitung": "lead",
    # Finnish labels, with and without their letters ä/ö as JSON keys write them ("Sähköposti", "sahkoposti",
    # "Puh.", "Titteli", a project page's "projektipäällikkö: …", a contract's "vastuuhenkilö": who answers for it).
    # Not "tehtävä": it is a job title on a card and a task in minutes.
    "sähköposti": "email", "sahkoposti": "email", "sähköpostiosoite": "email", "sahkopostiosoite": "email",
    "puhelin": "phone", "puh": "phone", "puhelinnumero": "phone", "matkapuhelin": "mobile", "gsm": "mobile",
    "titteli": "role", "nimike": "role", "tehtävänimike": "role", "tehtavanimike": "role", "rooli": "role",
    "tiimi": "department", "osasto": "department", "yksikkö": "department", "yksikko": "department",
    "projektipäällikkö": "lead", "projektipaallikko": "lead", "vastuuhenkilö": "lead", "vastuuhenkilo": "lead",
    "kutsumanimi": "nickname", "yhteyshenkilö": "contact", "yhteyshenkilo": "contact",
    # Swedish labels, as Finland-Swedish and Swedish offices write them.
    # "Namn" (Swedish; Norwegian "Navn", Finnish "Nimi") is the "Name" a table's rows are named by.
    "namn": "name", "navn": "name", "nimi": "name",
    "e_post": "email", "e_postadress": "email", "roll": "role", "titel": "title", "befattning": "role",
    "avdelning": "department", "projektledare": "lead", "ansvarig": "lead", "smeknamn": "nickname", "kontaktperson": "contact",
    "tilltalsnamn": "nickname",
}
_KNOWN_KEYS = frozenset(LABEL_SYNONYMS.values()) | {"name"}


def entity_slug(name: str) -> str:
    text = strip_accents(name)
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "unnamed"
