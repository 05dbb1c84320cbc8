"""Word lists and word frequencies shared by every stage, loaded once.

Nothing here knows any one knowledge base. Attribute cues are general English:
a question's words ("email", "who leads", "when is") name an attribute
*concept*, and a concept is matched to the registry's own keys by the words
inside them, so a user's `project_lead`, `launch_date` or `budget_2027` is
found the same way as the sample's `eng_lead` or `q4_budget`.
"""

from __future__ import annotations

import functools
import gzip
import importlib.util
import math
import re
from importlib import resources
from pathlib import Path

# --- word frequencies ------------------------------------------------------------

WORDFREQ_FORMAT = {"format": "cB", "version": 1}
# Words whose wordfreq look-up is a plain table read: lowercase ASCII letters, which wordfreq's
# English tokenizer leaves whole. Anything else ("e-mail", "co2", "café") goes through its tokenizer.
_PLAIN_WORD = re.compile(r"[a-z]+")


def wordfreq_list_path(list_name: str) -> Path | None:
    """Where wordfreq keeps a word list ("small_en", "large_en"), found without importing it."""
    spec = importlib.util.find_spec("wordfreq")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "data" / f"{list_name}.msgpack.gz"
    return path if path.is_file() else None


def read_wordfreq_list(list_name: str) -> list[list[str]] | None:
    """A wordfreq list's words, one list per centibel of frequency below 1 (its "cBpack" format:
    gzipped msgpack, a header, then the buckets). None where the file is missing or not in that
    format: callers then use wordfreq's public API. Importing wordfreq costs more than this read."""
    path = wordfreq_list_path(list_name)
    if path is None:
        return None
    try:
        import msgpack

        with gzip.open(path, "rb") as packed:
            header, *buckets = msgpack.load(packed, raw=False)
    except Exception:  # noqa: BLE001 - any surprise in a private file: use the public API instead
        return None
    return buckets if header == WORDFREQ_FORMAT else None


def _zipf_of_centibels(centibels: int) -> float:
    """The Zipf value wordfreq gives a word listed in bucket `centibels`: its frequency rounded to
    three significant digits, then the Zipf value rounded to hundredths, as wordfreq rounds."""
    frequency = 10 ** (-centibels / 100)
    frequency = round(frequency, math.floor(-math.log(frequency, 10)) + 3)
    return round(math.log(frequency, 10) + 9, 2)


def _zipf_tables() -> dict:
    """Every word of wordfreq's large English list, sorted, with its bucket in centibels below a
    frequency of 1 (int16), as numpy arrays rather than wordfreq's own dict of 300,000 Python strings
    and floats (about 35 MiB once loaded). Words as UTF-8 bytes: numpy's str arrays spend four bytes a
    letter, and bytes sort as their code points do."""
    import numpy as np

    buckets = read_wordfreq_list("large_en")
    if buckets is None:
        return {"words": np.array([], dtype=bytes), "centibels": np.array([], dtype=np.int16)}
    centibels_by_word: dict[str, int] = {}
    for centibels, bucket in enumerate(buckets):
        # As wordfreq reads its list: a word listed twice has the later bucket's frequency.
        centibels_by_word.update(dict.fromkeys(bucket, centibels))
    words = sorted(centibels_by_word, key=lambda w: w.encode("utf-8"))
    return {"words": np.array([w.encode("utf-8") for w in words] or [b""], dtype=bytes)[:len(words)],
            "centibels": np.array([centibels_by_word[w] for w in words], dtype=np.int16)}


@functools.lru_cache(maxsize=1)
def _zipf_table() -> tuple | None:
    """(sorted words as UTF-8 bytes, their buckets in centibels), from the table cache; None when
    wordfreq's list cannot be read directly (then every look-up asks wordfreq)."""
    from chatapp.table_cache import file_stamp, load_or_build

    path = wordfreq_list_path("large_en")
    if path is None:
        return None
    tables = load_or_build("zipf", [file_stamp(__file__), file_stamp(path)], _zipf_tables)
    if not len(tables["words"]):
        return None
    return tables["words"], tables["centibels"]


def _listed_centibels(table: tuple, word: str) -> int | None:
    """The bucket wordfreq's list gives `word` exactly as written, or None where it is not listed."""
    words, centibels = table
    key = word.encode("utf-8")
    at = int(words.searchsorted(key))
    return int(centibels[at]) if at < len(words) and words[at] == key else None


def _zipf_of_tokens(table: tuple, lower: str) -> float:
    """wordfreq's Zipf value for a word its tokenizer may change or split ("e-mail", "straße", "0007"),
    from the table: wordfreq's own tokenizer and digit estimate, then its way of combining the parts'
    frequencies (1/f = 1/f1 + 1/f2 + …, a missing part making the word unknown) and of rounding the
    result. Only its frequency dict, most of its memory, is not loaded."""
    from wordfreq import cB_to_freq, freq_to_zipf, lossy_tokenize, zipf_to_freq
    from wordfreq.numbers import digit_freq, smash_numbers

    minimum = zipf_to_freq(0.0)  # zipf_frequency's default floor
    one_over_frequency = 0.0
    tokens = lossy_tokenize(lower, "en")
    for token in tokens:
        smashed = smash_numbers(token)
        centibels = _listed_centibels(table, smashed)
        if centibels is None:
            return round(freq_to_zipf(minimum), 2)
        frequency = cB_to_freq(-centibels)
        if smashed != token:
            frequency *= digit_freq(token)
        one_over_frequency += 1.0 / frequency
    if not tokens:
        return round(freq_to_zipf(minimum), 2)
    frequency = max(1.0 / one_over_frequency, minimum)
    frequency = round(frequency, math.floor(-math.log(frequency, 10)) + 3)  # three significant digits
    return round(freq_to_zipf(frequency), 2)


@functools.lru_cache(maxsize=65536)
def zipf(word: str) -> float:
    """How common a word is in English on wordfreq's Zipf scale (0 = never seen,
    3 = once per million words, 7 = "the"). Case-insensitive."""
    lower = word.lower()
    table = _zipf_table()
    if table is None:
        from wordfreq import zipf_frequency

        return zipf_frequency(lower, "en")
    if _PLAIN_WORD.fullmatch(lower):  # wordfreq's tokenizer leaves it whole: a plain table read
        centibels = _listed_centibels(table, lower)
        return _zipf_of_centibels(centibels) if centibels is not None else 0.0
    return _zipf_of_tokens(table, lower)


def is_common(word: str, at_least: float = 3.0) -> bool:
    """A word used at least once per million words (by default)."""
    return zipf(word) >= at_least


def is_unknown_word(word: str) -> bool:
    """Not a word of English at all: wordfreq has never seen it."""
    return zipf(word) == 0


# --- names ----------------------------------------------------------------------

# Given names that are also ordinary words ("I will", "mark it", "the rose"): a
# name only where capitalised, never capitalised as a name on a guess.
AMBIGUOUS_NAMES = frozenset(
    "will mark bill rose grace hope joy faith jack frank art bob pat sue dawn ray may june april "
    "august summer amber ruby jade iris lily violet holly ivy daisy rob guy gene sky river brook drew "
    "chase hunter carter mason cash max sage miles penny chip sandy don gay noel sunny victor eve "
    "page bishop king young white black brown green long price stone wood hill hall".split()
)

# The 1990 US census name tables that the `names` package ships (MIT).
COMMON_SURNAME_SHARE = 40.0  # percent of people whose surnames count as common


def census_spelling(word: str) -> str:
    """`word` as the census tables write names, in ASCII: "José" is their "JOSE", "Inês" their "INES"."""
    from chatapp.accents import strip_accents

    return strip_accents(word.strip("."))


def is_first_name(word: str) -> bool:
    """Whether `word` (any case, accents or none) is a first name of the census tables: "dana", "Rob",
    "José"; or a double one whose every part is ("Kerry-Anne", "Mary-Jane")."""
    key = census_spelling(word).upper()
    names = census_first_names()
    if key in names:
        return True
    parts = key.split("-")
    return len(parts) == 2 and all(len(part) > 1 and part in names for part in parts)


def _surname_tables() -> dict:
    """The census surnames, lowercase ASCII bytes, sorted, and whether each is common: borne, with
    the commoner ones, by the first COMMON_SURNAME_SHARE percent of people ("williams", "peters")."""
    import numpy as np

    try:
        text = (resources.files("names") / "dist.all.last").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):  # pragma: no cover - a broken install
        text = ""
    cumulative: dict[bytes, float] = {}
    for parts in (line.split() for line in text.splitlines()):  # name, percent, cumulative percent, rank
        if len(parts) >= 3 and parts[0].isascii():
            name = parts[0].lower().encode("ascii")
            cumulative[name] = min(float(parts[2]), cumulative.get(name, float("inf")))
    names = sorted(cumulative)
    return {"names": np.array(names or [b""], dtype=bytes)[:len(names)],
            "common": np.array([cumulative[n] <= COMMON_SURNAME_SHARE for n in names], dtype=bool)}


@functools.lru_cache(maxsize=1)
def _surname_table() -> dict:
    from chatapp.table_cache import file_stamp, load_or_build

    try:
        source = str(resources.files("names") / "dist.all.last")
    except ModuleNotFoundError:  # pragma: no cover - a broken install
        source = "no names package"
    return load_or_build("surnames", [file_stamp(__file__), file_stamp(source), f"share {COMMON_SURNAME_SHARE}"],
                         _surname_tables)


def _surname_position(lower: str) -> int | None:
    """Where `lower` stands in the census surname table, or None when it is not there."""
    if not lower.isascii():
        return None
    names = _surname_table()["names"]
    key = lower.encode("ascii")
    at = int(names.searchsorted(key))
    return at if at < len(names) and names[at] == key else None


def is_surname(word: str) -> bool:
    """Whether `word` is any surname of the census tables ("Hartley", "Williams")."""
    return _surname_position(census_spelling(word).lower()) is not None


def is_common_surname(word: str) -> bool:
    """Whether `word` is a common surname of the census tables: "Williams" is no William's."""
    at = _surname_position(census_spelling(word).lower())
    return at is not None and bool(_surname_table()["common"][at])


@functools.lru_cache(maxsize=1)
def census_first_names() -> dict[str, tuple[float, float]]:
    """First name → (share of men, share of women) bearing it, in percent."""
    table: dict[str, list[float]] = {}
    try:
        data = resources.files("names")
        files = (("dist.male.first", 0), ("dist.female.first", 1))
        for filename, column in files:
            for line in (data / filename).read_text(encoding="utf-8").splitlines():
                parts = line.split()
                if len(parts) >= 2:
                    table.setdefault(parts[0], [0.0, 0.0])[column] = float(parts[1])
    except (ModuleNotFoundError, FileNotFoundError, ValueError):  # pragma: no cover - a broken install
        return {}
    return {name: (male, female) for name, (male, female) in table.items()}


# --- attributes -----------------------------------------------------------------

# concept -> (words a question uses to ask for it, words found inside attribute keys that hold it).
# A folder's headers and keys are often Dutch where its questions are English ("functie", "mobiel",
# "projectleider", "honorarium"), so a holder may be a Dutch word too.
# A cue is a word or phrase matched at word boundaries. A holder is a word or phrase matched
# against the end of a key's words, its head ("launch_date" -> launch, date: a date; see
# concepts_of_key). The order is the order answers list their parts in.
ATTRIBUTE_CONCEPTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "email": (("email", "e-mail", "mail", "mail address", "write to", "address", "contact"),
              ("email", "mail", "e-mail", "emailadres", "mailadres")),
    "phone": (("phone", "number", "call", "telephone", "mobile", "cell", "contact", "ring", "direct line",
               "direct dial", "ddi", "landline"),
              ("phone", "mobile", "tel", "telephone", "cell", "mobiel", "telefoon", "telefoonnummer", "gsm")),
    # An internal extension, kept apart from the number to dial from outside.
    "extension": (("extension", "ext"), ("extension", "ext", "extn")),
    "role": (("role", "title", "job", "position", "what does", "what do"), ("role", "title", "position", "job", "function", "functie", "rol")),
    "department": (("department", "team", "which team", "what team", "division"),
                   ("department", "team", "division", "dept", "unit", "afdeling")),
    "location": (("where", "location", "based", "located", "city", "office", "room", "address"),
                 ("location", "city", "office", "room", "address", "site", "headquarters", "place")),
    "manager": (("report to", "reports to", "manager", "boss"), ("reports to", "manager", "boss", "supervisor")),
    "manages": (("manage", "manages", "reports"), ("manages", "reports", "direct reports")),
    # The people on a piece of work: "who's working on Atlas" asks for its owner and its leads.
    "owner": (("owner", "owns", "responsible", "working on", "works on", "who's on", "who is on"),
              ("owner", "owners", "responsible", "assignee", "dri", "crew", "assigned", "assigned to")),
    "lead": (("lead", "leads", "head", "heads", "runs", "in charge", "leader", "working on", "works on",
              "who's on", "who is on"),
             # A piece of work's project manager runs it: "who leads the boiler replacement?"
             ("lead", "leader", "head", "chair", "project manager", "programme manager", "program manager", "pm",
              "projectleider", "leider")),
    "status": (("status", "progress", "how is", "how's", "state"), ("status", "state", "progress", "health")),
    "date": (("when", "date", "what day", "day"), ("date", "day", "when", "on")),
    "time": (("what time", "when", "time"), ("time", "start", "starts", "hour")),
    "deadline": (("deadline", "due", "when", "launch", "go live", "ship", "release"),
                 ("deadline", "due", "target", "launch", "live", "release", "ship", "eta")),
    # "the contract value", "the order value", "a fixed bid of": what the work is worth, not the contract's terms.
    "budget": (("budget", "cost", "spend", "how much", "price", "amount", "contract value", "order value", "fixed bid"),
               ("budget", "cost", "spend", "price", "amount", "value", "fee", "honorarium", "bedrag", "kosten")),
    "cost_center": (("cost center", "cost centre", "account code", "charge code"),
                    ("cost center", "cost centre", "account code", "charge code")),
    "vendor": (("vendor", "supplier", "contractor"), ("vendor", "supplier", "contractor")),
    "contract": (("contract", "agreement", "term", "renewal"), ("contract", "agreement", "term", "renewal")),
    "relationship": (("relationship", "relation", "what kind of", "what sort of"),
                     ("relationship", "relation", "kind", "category")),
    "domain": (("domain", "website", "web site", "url"), ("domain", "website", "url")),
    "contact": (("contact", "point of contact", "who do i talk to", "who should i talk to"), ("contact", "poc")),
    "headcount": (("head count", "headcount", "how many people", "team size"),
                  ("headcount", "head count", "fte", "ftes", "team size")),
    "attendees": (("attend", "attendees", "who was at", "who is at", "who's at", "participants", "who came"),
                  ("attendees", "participants", "invitees", "members")),
    "organizer": (("organizer", "organiser", "organized", "organised", "organizes", "organises", "host"),
                  ("organizer", "organiser", "host")),
    "source": (("source", "which file", "which document"), ("source", "file", "path")),
    # "who is on call this weekend": a duty, not a phone call (the longer cue wins over "call").
    "duty": (("on call", "on-call", "on duty", "duty", "rota"), ("duty", "on call", "rota", "shift")),
}

# Concepts that tell who or what an entity is, per entity type, most telling first.
KEY_CONCEPTS_BY_TYPE: dict[str, tuple[str, ...]] = {
    "person": ("role", "department", "email"),
    "project": ("status", "owner", "lead", "deadline", "date"),
    "organization": ("relationship", "domain", "contact", "contract", "vendor", "email"),
    "department": ("lead", "cost_center", "budget"),
    "event": ("date", "time", "location", "organizer"),
    "document": ("date", "source"),
}

_KEY_SPLIT = re.compile(r"[_\-\s.]+|(?<=[a-z])(?=[A-Z])")
# Words of a key that only say which period or instance it is about: "budget_2027", "q4_budget",
# "budget_fy27", "h1_target".
_QUALIFIER = re.compile(r"\d+|q[1-4]|fy\d*|h[12]")
# Heads that name only the form of a value; the words before them say what it is:
# "mobile_number" is a phone, "email_address" an email, "contract_value" the contract's.
GENERIC_HEADS = frozenset("number no num address value id name info details code".split())
_MONEY_HEADS = frozenset({"value"})
_MONEY = frozenset({"budget"})


# Dutch writes a key as one compound whose last part says what the value is: "projectnummer" is a project
# number, "startdatum" a start date, "emailadres" an email address. Read in English, as questions ask.
_DUTCH_HEADS = {"nummer": "number", "naam": "name", "datum": "date", "adres": "address"}
_DUTCH_COMPOUND = re.compile(r"^([a-z]{3,}?)-?(" + "|".join(_DUTCH_HEADS) + r")$")


def _english_parts(word: str) -> tuple[str, ...]:
    if word in _DUTCH_HEADS:
        return (_DUTCH_HEADS[word],)
    if match := _DUTCH_COMPOUND.match(word):
        return (match.group(1), _DUTCH_HEADS[match.group(2)])
    return (word,)


def key_words(key: str) -> tuple[str, ...]:
    """The words inside an attribute key: "launch_date" -> ("launch", "date"), "projectnummer" ->
    ("project", "number")."""
    return tuple(part for w in _KEY_SPLIT.split(key) if w for part in _english_parts(w.lower()))


# Words a column header adds to say what a value is counted in: "Invoiced (GBP)" -> invoiced_gbp is
# named by "invoiced" alone; a question says "how much have we invoiced", not "invoiced GBP".
CURRENCY_CODES = frozenset("gbp eur usd nzd aud cad chf jpy sek nok dkk pln inr zar sgd hkd".split())
KEY_UNIT_WORDS = CURRENCY_CODES | frozenset("pct percent kg km mm cm m2 sqm hrs mins excl incl ex inc vat net gross".split())


def naming_words(key: str) -> tuple[str, ...]:
    """The words of a key a question names it by: its words less unit words ("invoiced_gbp" ->
    ("invoiced",)) and a measure written into the header ("firkin_72_pints" -> ("firkin",), "30l_keg" ->
    ("keg",)), or all of them when that leaves none ("vat")."""
    words = key_words(key)

    def is_measure(word: str) -> bool:  # "72", "30l"; a year ("budget_2027") names the value
        return re.fullmatch(r"\d+[a-z]{0,3}", word) is not None and re.fullmatch(r"(?:19|20)\d\d", word) is None

    kept = []
    for n, word in enumerate(words):
        measure = is_measure(word) or (n > 0 and words[n - 1].isdigit() and is_measure(words[n - 1]))
        if word not in KEY_UNIT_WORDS and not measure:
            kept.append(word)
    return tuple(kept) or words


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _held_by_head(words: tuple[str, ...]) -> set[str]:
    """The concepts whose holder word or phrase ends `words` ("reports to", "date", "offices")."""
    found = set()
    for concept, (_, holders) in ATTRIBUTE_CONCEPTS.items():
        for holder in holders:
            parts = tuple(holder.split())
            tail = words[-len(parts):]
            if len(tail) == len(parts) and (tail == parts or (*tail[:-1], _singular(tail[-1])) == parts):
                found.add(concept)
    return found


@functools.lru_cache(maxsize=4096)
def concepts_of_key(key: str) -> frozenset[str]:
    """Every concept an attribute key holds, read from its head (its last word, as in an English
    compound): "eng_lead" -> {lead}, "q4_budget" and "budget_2027" -> {budget}, "launch_date" ->
    {date}, "reports_to" -> {manager}, while "cost_center" is no cost. A generic head ("number",
    "address") is read through the words before it: "mobile_number" -> {phone}. A key no concept
    knows holds only itself."""
    words = tuple(w for w in key_words(key) if not _QUALIFIER.fullmatch(w)) or key_words(key)
    found = _held_by_head(words)
    if words and words[-1] in GENERIC_HEADS:
        described = set().union(*(_held_by_head((w,)) for w in words[:-1])) if len(words) > 1 else set()
        # A value is still an amount whatever it is the value of: "contract_value" is the contract's and
        # what a question about the budget or the cost of the work asks for.
        found = (described | (found & _MONEY)) if words[-1] in _MONEY_HEADS else (described or found)
    if not found:
        # A head no concept knows ("launch_window", "work_email_addr") is read through the nearest
        # word before it that one does.
        found = next((held for word in reversed(words[:-1]) if (held := _held_by_head((word,)))), set())
    return frozenset(found or {key.lower()})


def keys_for_concept(concept: str, keys) -> list[str]:
    """Those of `keys` (a registry's own attribute keys) that hold `concept`, in their order."""
    return [k for k in keys if concept in concepts_of_key(k)]


@functools.lru_cache(maxsize=1)
def _cue_patterns() -> dict[str, re.Pattern]:
    # A cue also matches its inflections: "attend" in "who attends", "lead" in "who leads".
    return {
        concept: re.compile(r"(?<!\w)(?:" + "|".join(re.escape(c) for c in sorted(cues, key=len, reverse=True))
                            + r")(?:s|es|ed|ing)?(?!\w)", re.IGNORECASE)
        for concept, (cues, _) in ATTRIBUTE_CONCEPTS.items()
    }


def without_phrase_cues(text: str) -> str:
    """`text` with the cues of several words blanked out: "who's working on CO-2613" asks who is on it,
    and its "working" names no "work" field."""
    for pattern in _cue_patterns().values():
        text = pattern.sub(lambda m: " " * len(m.group(0)) if " " in m.group(0) else m.group(0), text)
    return text


# Words before "number" that leave it a phone number: "his number", "Anja's number", "office number".
_PHONE_NUMBER_BEFORE = frozenset("his her their my your our its the a phone mobile telephone cell contact direct "
                                 "office work home desk landline best".split())


def _numbers_a_thing(text: str, cue: re.Match) -> bool:
    """ "the contract number", "the drawing number": "number" after a thing's noun is that thing's
    number, no phone number."""
    if cue.group(0).lower() != "number":
        return False
    before = re.search(r"([\w'’-]+)\s+$", text[:cue.start()])
    if before is None:
        return False
    word = before.group(1).lower()
    # An everyday noun ("contract", "drawing"), not a name typed without its apostrophe ("anjas number").
    return word not in _PHONE_NUMBER_BEFORE and not word.endswith(("'s", "’s", "s'", "s’")) and is_common(word)


def concepts_asked(text: str) -> list[str]:
    """The attribute concepts a question's words ask for, in ATTRIBUTE_CONCEPTS order. The longest
    cue wins where cues overlap: "the cost center" asks for the cost center, not a cost; "who
    reports to Sarah" for a manager, not for reports; "head count" for no head."""
    spans = [(m.start(), m.end(), concept) for concept, pattern in _cue_patterns().items()
             for m in pattern.finditer(text) if not (concept == "phone" and _numbers_a_thing(text, m))]
    asked = {concept for start, end, concept in spans
             if not any(s <= start and end <= e and e - s > end - start for s, e, _ in spans)}
    return [concept for concept in ATTRIBUTE_CONCEPTS if concept in asked]
