"""Fields a document states about its own subject, tables of records, and stated changes.

- A project page names its subject in its title and lists fields under it, in front matter
  and in "Lead: Dana Kim" / "Budget: £95,000" lines; a "Milestones:" field lists dated items.
- A Markdown table with a name column is a list of records, one per row.
- "The launch has moved to 11 May", "the revised budget of $12,000" and
  "Build: 2027-01-12 (was 2026-12-14)" state a change; the merge finds what they change.
"""

from __future__ import annotations

import re
from datetime import date

from chatapp.knowledge.extraction.observations import (
    ALIAS,
    CHANGE,
    MENTION,
    NICKNAME_KEYS,
    Observation,
    clean_name,
    key_for_label,
    looks_like_person,
    natural_order_names,
    person_key,
    row_keys,
    table_subject_type,
    with_whole_names,
)
from chatapp.knowledge.extraction.values import (DATE, SPANISH_MONTH, SPANISH_MONTHS, find_amounts, find_dates,
                                                 leading_value, real_day, value_shape, yearless_date_at_start)
from chatapp.lexicon import is_common

_FRONT_MATTER = re.compile(r"\A---\n(.*?)\n(?:---|\.\.\.)\n", re.DOTALL)
_FIELD_LINE = re.compile(r"^[ \t]*(?:[-*•][ \t]+)?(?:\*\*|__)?([A-Za-z][\w /&'’().-]{0,40}?)(?:\*\*|__)?[ \t]*:(?:\*\*|__)?[ \t]+(\S.*)$")
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*$", re.MULTILINE)
# A dot, bar or bullet between fields, the next one's label in bold: where a line of several fields splits.
_NEXT_BOLD_FIELD = re.compile(r"\s+[·|•]\s+(?=\*\*[A-Za-z][^*\n]{0,40}?(?::\*\*|\*\*\s*:))")
# Keys whose presence says the page is about a piece of work with an owner.
_PROJECT_KEYS = frozenset("lead owner sponsor status budget milestones deadline go_live launch due kickoff".split())
# Keys whose value is a person when it reads as one.
_PERSON_KEYS = frozenset(
    "lead owner sponsor contact manager coordinator chair organiser organizer coach adviser advisor "
    "maintained_by published_by responsible assignee author reviewer approver".split()
)
# A project page's team table: its first column says the part each person plays, another names them.
_TEAM_ROLE_KEYS = frozenset({"role", "responsibility", "function"})
_TEAM_NAME_KEYS = ("name", "who", "person", "full_name", "contact_name")
_SKIP_KEYS = frozenset({"title", "date", "tags", "layout", "slug", "id", "category", "categories", "draft"})
_MILESTONE_KEYS = frozenset({"milestones", "key_dates", "dates", "timeline", "schedule"})
# French verbs of change, as Québec and France write a date moved or a sum raised: "le festival est donc
# reporté au samedi 5 juin 2027", "le cachet passe à 2 800 $", "hausser le cachet de 2 500 $ à 2 800 $".
FRENCH_CHANGE_VERB = (r"(?:report|déplac|deplac|repouss|décal|decal|devanc|hauss|augment|baiss)(?:é|ée|és|ées|e|es|ent|er|era)"
                      r"|porté|portée|passe|passent|passera|réduit|réduite")
_CHANGE_VERB = re.compile(
    r"\b(?:has|have|had|was|were|is|are|has been|have been|got|now)?\s*"
    r"(?:moved|changed|pushed(?: back)?|brought forward|postponed|rescheduled|delayed|slipped|shifted|"
    r"revised|increased|decreased|reduced|raised|cut|updated|moves|shifts|slips|changes|bumped|hiked)"
    # "was increased by $25,000 to $265,000": the step before the new value
    r"(?:\s+(?:up|down))?(?:\s+by\s+\S+(?:\s+\S+)?)?\s+(?:to|until|till)\s+"
    rf"|\b(?:{FRENCH_CHANGE_VERB})\s+(?:(?:donc|maintenant|désormais|officiellement)\s+)?(?:à|au|aux)\s+",
    re.IGNORECASE,
)
# "the start moves from Monday 7 December to Wednesday 9 December", "goes from $38,450 to $41,870": a verb
# of change before "from", so "open from 9 to 5" is a range, not a change (postprocess/stated_changes.py
# reads the same changes in the sources an answer is checked against).
# A sentence that says a value changed: "moved to", "goes from … to …", "is now", "instead of".
CHANGE_STATED = re.compile(
    r"\b(?:moved?|moves|moving|changed?|changes|postponed|rescheduled|pushed back|brought forward|delayed|"
    r"revised|goes from|went from|instead of|no longer|now)\b",
    re.I,
)
CHANGED_FROM = re.compile(
    r"\b(?:moves?|moved|moving|goes|going|went|gone|changes?|changed|changing|shifts?|shifted|pushed|"
    r"increases?|increased|decreases?|decreased|rises?|rose|risen|drops?|dropped|falls?|fell|jumps?|jumped|"
    # "the weekend rate is revised from KSh 12,000 to KSh 13,500", "the fee was reduced from $90 to $75"
    r"revised|revises|raised|reduced|lowered|adjusted|amended|updated)"
    r"(?:\s+(?:up|down|back|forward|upwards|downwards))?\s+from\s+"  # "went up from 86,000 to 94,500"
    # "hausser le cachet par murale de 2 500 $ à 2 800 $", "reporté du 15 mai au 5 juin": a figure after "de"
    rf"|\b(?:{FRENCH_CHANGE_VERB})\b[^.;:!?]{{0,40}}?\s(?:de|du)\s+(?=\d)",
    re.IGNORECASE,
)
# "The facility has moved our confocal slot from Tuesday 8 December to Thursday 10 December": the thing
# moved, said with a determiner, between the verb and "from".
# "lift the special levy in the EGM motion from $190,000 to $205,000": a sum raised or cut the same way.
# "That takes the contract sum from R14 850 000,00 to R15 372 400,00": a variation's effect on a total; the
# thing may be named at length ("takes the approved budget for Tōtara Park Cycleway Stage 3 from …").
CHANGED_THING_FROM = re.compile(
    r"\b(?:moved|changed|shifted|pushed|rescheduled|postponed|brought|brings|takes|took|lift|lifted|raise|raised|increase|increased|"
    r"reduce|reduced|cut|lower|lowered|revise|revised|adjust|adjusted|bump|bumped)\s+"
    r"(?:our|the|their|his|her|its|your|my|this|that)\s+(?P<thing>(?:[\w'’-]+\s+){0,10}?)from\s+",
    re.IGNORECASE,
)
# "goes up to ₦53.2m (N53,200,000.00) from ₦48.5m": the new side first, then the old after "from".
_UP_TO = re.compile(r"\b(?:goes|go|going|went|gone|has gone|comes|came|rises|rose|risen|falls|fell|drops|dropped)\s+"
                    r"(?:up|down)\s+to\s+", re.IGNORECASE)
_THEN_FROM = re.compile(r"(?:\s*\([^()]*\))?\s*,?\s*from\s+", re.IGNORECASE)
# What opens a change's new side after its old one: "to", or French "à"/"au" ("de 2 500 $ à 2 800 $").
CHANGE_TO_SIDE = re.compile(r"\s*(?:\([^)]*\)\s*)?(?:to|à|au)\s+", re.IGNORECASE)
# "the budget is now £134,200", "attendance now stands at 240": the value that holds from now on, the
# thing it is the value of in the clause before (as for _CHANGE_VERB).
_NOW_IS = re.compile(
    r"\b(?:is|are|has become|have become)\s+now\s+(?:at\s+|set\s+(?:at|to|for)\s+|due\s+(?:on\s+)?"
    r"|(?:expected|scheduled|planned|booked|estimated|forecast)\s+(?:(?:on|for|at|by|in)\s+)?)?"
    r"|\bnow\s+(?:stands|sits|comes|totals|amounts)\s+(?:at\s+|to\s+)?",
    re.IGNORECASE,
)
# "the revised budget of $12,000", "the new insurance value is $47,500": a value given as the one that now
# holds (postprocess/stated_changes.py reads the same in the sources an answer is checked against). A
# colon may say it in running text too: "approved the revised budget for the lab refurbishment: R$ 438.650,00".
REVISED = re.compile(r"\b(?:the\s+)?(?:revised|new|updated|increased|reduced|amended)\s+((?:[\w/&-]+\s+){0,5}?[\w/&-]+)"
                     r"(?:\s+(?:of|is|at|to)\s+|\s*:\s+)", re.IGNORECASE)
_INSTEAD_OF = re.compile(r"\binstead\s+of\s+", re.IGNORECASE)
# "New budget: $265,000 (approved by the board)", "Revised go-live: 18 January", "Agreed new price: 21 600 €":
# a field labelled as the new value.
_REVISED_FIELD = re.compile(r"^\s*(?:[-*•]\s+)?(?:\*\*)?(?:(?:agreed|approved|confirmed)\s+)?(?:revised|new|updated|amended)\s+"
                            r"((?:[\w/&-]+\s+){0,3}?[\w/&-]+)"
                            r"(?:\*\*)?\s*:\s*(?:\*\*)?\s*", re.IGNORECASE)
# "please move the production budget for Skyline to £41,200", "we raise the fee to $40": a change
# asked for or made now, the thing changed between the verb and "to".
_MOVE_TO = re.compile(
    r"\b(?:move|change|increase|raise|reduce|cut|lower|revise|update|push|bring|bump|hike)\s+(?:the\s+|our\s+)?"
    r"(?P<label>(?:[\w'’/&-]+\s+){0,7}?[\w'’/&-]+)\s+(?:up\s+|down\s+|back\s+|forward\s+)?to\s+",
    re.IGNORECASE,
)
# "That puts your move-in at Monday 1/25/2027": a consequence stating where a date or amount now falls.
_PUTS_AT = re.compile(
    r"\b(?:puts|put)\s+(?:the\s+|our\s+|your\s+|their\s+|its\s+)?"
    r"(?P<label>(?:[\w'’/&-]+\s+){0,4}?[\w'’/&-]+)\s+(?:at|on|to)\s+",
    re.IGNORECASE,
)
_WEEKDAY_BEFORE = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\.?,?\s+"
# "(was €18,000)", and "(up from €18,000)": the value a bracket gives as the one replaced.
# Spanish: "el lunes 22 de febrero de 2027 (antes 15 de enero)".
_WAS = re.compile(r"\(\s*(?:was|previously|formerly|originally|(?:up|down)\s+from|antes|anteriormente|previamente)"
                  r"\s+(?:(?:el|del)\s+)?([^()]+?)\s*\)", re.IGNORECASE)
# "moves from Scheduling Officer to the new role of Network Planning Lead": a title changed for another.
_TITLE_WORDS = r"[A-Z][\w&'’-]*(?:\s+(?:[A-Z][\w&'’-]*|of|and|&|for))*"
_TITLE_FROM_TO = re.compile(
    rf"^(?P<old>{_TITLE_WORDS}?)\s+to\s+(?:the\s+)?(?:new\s+)?(?:(?:role|position|job|post|title)\s+(?:of|as)\s+)?"
    rf"(?P<new>{_TITLE_WORDS})"
)
# Markdown stress around words ("**22.1.2027**", "__£12,000__"), as mails and notes write it.
_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
# Spanish ones too: "la nueva fecha de reapertura de la terraza es el …" is of "fecha reapertura terraza".
_LABEL_NOISE = re.compile(r"\b(?:the|a|an|our|their|its|this|that|so|and|but|then|therefore"
                          r"|el|la|los|las|del|de|es|son|será|sera|un|una|y|nueva|nuevo|nuevas|nuevos)\b|\([^)]*\)",
                          re.IGNORECASE)


def document_subject(text: str, title: str) -> tuple[str, list[str], int]:
    """(name, aliases, end of the header section) of what a page is about: its first heading,
    without quoted nicknames or a parenthesised note, and the sides of any dash in it or in the
    front matter title as aliases."""
    front = _FRONT_MATTER.match(text)
    front_title = ""
    if front:
        found = re.search(r"^title:\s*(.+)$", front.group(1), re.MULTILINE)
        front_title = found.group(1).strip() if found else ""
        if len(front_title) > 1 and front_title[0] == front_title[-1] and front_title[0] in "'\"":
            front_title = front_title[1:-1]  # a quoted value, not 'Spring Youth Production — "The Phantom Tollbooth"'
    headings = list(_HEADING.finditer(text))
    heading = next((h for h in headings if len(h.group(1)) == 1), None)
    raw = heading.group(2) if heading else (front_title or title)
    aliases = []
    for source in (raw, front_title):
        cleaned = re.sub(r"\s*\([^)]*\)|\s*[\"“][^\"”]*[\"”]", "", source or "").strip()
        sides = (side.strip(" \t—–-:") for side in re.split(r"\s+[—–-]\s+|:\s+", cleaned))
        aliases += [side for side in sides if len(side) > 2]
    name = aliases[0] if aliases else ""
    # "Project Heron — status update": a side made only of common words describes the page, it
    # does not name the subject, and as an alias it would join every status update into one.
    aliases = [a for a in aliases if a == name or not all(is_common(w, 3.5) for w in re.findall(r"[^\W\d_]+", a))]
    # "Dock crane upgrade — Northgate" over a heading "Dock crane upgrade (Northgate)": the side
    # the heading brackets qualifies the name (a site, a client), and as an alias would join the project
    # to every table row naming that site.
    qualifiers = {q.strip().casefold() for q in re.findall(r"\(([^()]*)\)", f"{raw} {front_title}")}
    aliases = [a for a in aliases if a == name or a.casefold() not in qualifiers]
    if match := re.match(r"^(?:project|programme|program|initiative)\s+(\S+)$", name, re.IGNORECASE):
        aliases.append(match.group(1))
    # The header section: up to the second heading (the first is the title itself).
    later = [h for h in headings if heading is None or h.start() > heading.start()]
    end = later[0].start() if later else len(text)
    return name, [a for a in dict.fromkeys(aliases) if a != name], end


def _field_lines(text: str, start: int) -> list[tuple[str, str, int]]:
    """(key, value, offset) of each "Label: value" line of `text`, which starts at offset `start`."""
    fields = []
    offset = start
    for line in text.split("\n"):
        # "**Site possession:** 05/10/2026 · **Practical completion:** 19/03/2027": two bold fields on a line.
        at = 0
        for part in _NEXT_BOLD_FIELD.split(line):
            if (match := _FIELD_LINE.match(part)) and not part.lstrip().startswith("#"):
                # A quoted YAML value ('travel_budget: "EUR 6,200.00"') is the text inside its quotes.
                value = re.sub(r"""^(["'])(.*)\1$""", r"\2", match.group(2).strip())
                fields.append((key_for_label(match.group(1)), value, offset + line.find(part, at)))
            at += len(part)
        offset += len(line) + 1
    return fields


def _milestones(subject: str, value: str, position: int, add) -> None:
    """ "order signed 16 October 2026; go-live 7 December 2026" -> order_signed, go_live."""
    for item in re.split(r"\s*[;·•]\s*", value):
        # Only where the date is written matters here, and the value is kept as written: a date with
        # slashes that reads two ways ("tenant move-in 1/4/2027") is a milestone as much as "12/18/2026".
        match = DATE.search(item)
        if not match:
            continue
        label = (item[: match.start()] if match.start() > 0 else item[match.end():]).strip(" :,-–—")
        label = re.sub(r"\([^)]*\)|[\d\s–-]+$", "", label)
        label = re.split(r"\s+(?:at|with|by|for|in)\s+", label)[0].strip()
        if label and len(label.split()) <= 6:
            add(subject, key_for_label(label), match.group(0), 0.85, "key_value", position)


# A field's note saying its person leads the piece of work: "(leads the job)", "(project lead)".
_LEADS_NOTE = re.compile(r"\(\s*(?:(?:project|job|overall)\s+)?(?:leads?|leading|leader)\b(?![-\w])", re.IGNORECASE)


def _person_value(value: str) -> tuple[str, str]:
    """("Hester Wiersma", "Programme Manager") from "Hester Wiersma, Programme Manager"; ("", "")
    when the value does not start with a person's name."""
    head, _, rest = re.split(r"\s*\(", value, maxsplit=1)[0].partition(",")
    name = clean_name(head)
    return (name, rest.strip()) if looks_like_person(name) else ("", "")


_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


_SPANISH_DAY_MONTH = re.compile(r"(\d{1,2})\s+de\s+(" + SPANISH_MONTH + r")", re.IGNORECASE)


def with_year(value: str, document_date) -> str:
    """A yearless date given its year from the document it is written in: "7 December" in a mail
    of November 2026 is "7 December 2026", "in March" looking forward from then "March 2027"
    (chatapp.dates reads the tense). Anything else is returned as it is."""
    if document_date is None or _YEAR.search(value) or not re.search(r"[A-Za-z]", value):
        return value
    if spanish := _SPANISH_DAY_MONTH.fullmatch(value.strip()):
        # "(antes 15 de enero)" in a mail of November 2026: the 15 January nearest the mail, 2027's.
        day, month = int(spanish.group(1)), SPANISH_MONTHS[spanish.group(2).lower()]
        years = [y for y in (document_date.year - 1, document_date.year, document_date.year + 1)
                 if real_day(y, month, day)]
        if years:
            year = min(years, key=lambda y: abs(date(y, month, day).toordinal() - document_date.toordinal()))
            return f"{value.strip()} de {year}"
    from chatapp.dates.expressions import resolve_in_document

    found = sorted(resolve_in_document(value, document_date), key=lambda e: len(e.text), reverse=True)
    # The date must be most of the value, and a day needs its number: "Friday" alone stays a weekday.
    if (not found or found[0].granularity not in ("day", "month") or len(found[0].text) < len(value) - 10
            or (found[0].granularity == "day" and not re.search(r"\d", value))):
        return value
    separator = ", " if re.search(r"[A-Za-z]\.?\s+\d{1,2}(?:st|nd|rd|th)?$", value) else " "
    return f"{value}{separator}{found[0].start.year}"


class FieldReader:
    def __init__(self, text: str, title: str, document_date=None):
        self.text = text
        self.title = title
        self.document_date = document_date
        self.observations: list[Observation] = []
        self.page_subject = ""  # the piece of work the page is about, once its fields say it is one

    def add(self, subject, key, value, confidence, method, position=0, subject_type="project", previous=""):
        value = with_year(" ".join(str(value).split()).strip(), self.document_date)
        previous = with_year(previous, self.document_date) if previous else ""
        if value and (subject or subject_type == CHANGE):
            self.observations.append(
                Observation(subject, subject_type, key, value, confidence, method, position, previous)
            )

    def read(self, is_email: bool = False) -> list[Observation]:
        if not is_email:  # a mail's subject line names a conversation, not a page's subject
            self._subject_fields()
        self._tables()
        self._changes()
        return self.observations

    # --- a page's own fields ------------------------------------------------

    def _subject_fields(self) -> None:
        name, aliases, end = document_subject(self.text, self.title)
        if not name:
            return
        fields = _field_lines(self.text[:end], 0)
        # A later section made of fields ("## Key facts", then "- Supplier: …" lines) is the page's too.
        for section in _HEADING.finditer(self.text, end):
            close = _HEADING.search(self.text, section.end())
            body = self.text[section.end():close.start() if close else len(self.text)]
            written = [line for line in body.split("\n") if line.strip()]
            found = _field_lines(body, section.end())
            if len(found) >= 2 and len(found) * 5 >= len(written) * 3:
                fields += [f for f in found if f[0] not in {key for key, _, _ in fields}]
        keys = {key for key, _, _ in fields}
        if len(fields) < 2 or not keys & _PROJECT_KEYS:
            return  # meeting notes and letters have "Date:" lines too; only a page about a piece of work counts
        self.page_subject = name
        self.add(name, MENTION, name, 0.9, "key_value", 0)
        # "title: Riverbend Apartments - lift modernisation" with "building: Riverbend Apartments (…)": a side
        # of the title that a field gives as its value is where (or for whom) the work is, not its name.
        given = {re.split(r"\s*[(,;]", value)[0].strip().casefold() for _, value, _ in fields}
        for alias in aliases:
            if alias.casefold() not in given:
                self.add(name, ALIAS, alias, 0.8, "key_value", 0)
        for key, value, position in fields:
            if key in _SKIP_KEYS or not value:
                continue
            if key in _MILESTONE_KEYS:
                _milestones(name, value, position, self.add)
                continue
            person, role = _person_value(value)
            if person and (key in _PERSON_KEYS or key.endswith(("_lead", "_owner", "_contact", "_manager"))):
                self.add(name, key, person, 0.92, "key_value", position)
                if "lead" not in keys and _LEADS_NOTE.search(value):
                    # "Contracts Manager: Thandiwe Mokoena (leads the job for us)": the note says who leads it.
                    self.add(name, "lead", person, 0.9, "key_value", position)
                self.add(person, MENTION, person, 0.8, "key_value", position, subject_type="person")
                if role and len(role.split()) <= 6:
                    self.add(person, "role", role, 0.75, "key_value", position, subject_type="person")
                continue
            self.add(name, key, leading_value(value), 0.88, "key_value", position)

    # --- tables ---------------------------------------------------------------

    def _tables(self) -> None:
        lines = self.text.split("\n")
        offsets = [0]
        for line in lines:
            offsets.append(offsets[-1] + len(line) + 1)
        n = 0
        while n < len(lines) - 2:
            if _is_row(lines[n]) and re.fullmatch(r"\s*\|?[\s:|-]+\|?\s*", lines[n + 1]) and "-" in lines[n + 1]:
                header = _cells(lines[n])
                rows = []
                m = n + 2
                while m < len(lines) and _is_row(lines[m]):
                    rows.append((_cells(lines[m]), offsets[m]))
                    m += 1
                self._table(header, rows)
                n = m
            else:
                n += 1

    def _table(self, header: list[str], rows: list[tuple[list[str], int]]) -> None:
        keys = [key_for_label(h) or f"column_{i}" for i, h in enumerate(header, 1)]
        keys, whole = with_whole_names(keys, [cells for cells, _ in rows])
        rows = [(cells, position) for cells, (_, position) in zip(whole, rows)]
        if self._team_table(keys, rows):
            return
        column = subject_column(keys, [cells for cells, _ in rows], named_only=True)
        if column is None and len(rows) >= 2 and names_the_rows([cells for cells, _ in rows], 0):
            column = 0  # "| Funder | Awarded |", "| Room | Capacity |": the first column names each row
        if column is None:
            return
        subjects = [clean_name(cell) for cell in natural_order_names([cells[column] if column < len(cells) else ""
                                                                      for cells, _ in rows])]
        subject_type = table_subject_type(keys[column], subjects)
        if subject_type == "person":
            keys = [person_key(key, [cells[i] for cells, _ in rows if i < len(cells)]) for i, key in enumerate(keys)]
        for (cells, position), subject in zip(rows, subjects):
            if not subject or _TOTAL.fullmatch(subject):
                continue
            wanted = row_keys(subject_type, keys[column], subject, keys)
            if wanted is None:
                continue
            self.add(subject, MENTION, subject, 0.9, "table", position, subject_type)
            for key, cell in zip(keys, cells):
                if cell and key != keys[column] and key in wanted:
                    self.add(subject, key, cell.strip("* "), 0.9, "table", position, subject_type)
                if cell and key in NICKNAME_KEYS and subject_type == "person" and cell.casefold() != subject.casefold():
                    self.add(subject, ALIAS, cell.strip("* "), 0.85, "table", position, subject_type)
                if (cell and subject_type != "person" and key in _PERSON_KEYS
                        and looks_like_person(name := clean_name(cell))):
                    # "| Confirm asbestos survey | Tamsin Quennell | 11 December |": an action's owner is
                    # someone the user may ask about, as a CSV row's is.
                    self.add(name, MENTION, name, 0.8, "table", position, "person")

    def _team_table(self, keys: list[str], rows: list[tuple[list[str], int]]) -> bool:
        """ "| Role | Name | Contact |" on a project's page, a row each "| PM | Wendell Oyelaran | … |": who
        fills each part of the work. The page's piece of work gets each role as a field holding the
        person ("pm" is its lead), and each person their address or phone from the row — the rows
        are no records of their own."""
        if not self.page_subject or not rows or keys[0] not in _TEAM_ROLE_KEYS:
            return False
        column = next((keys.index(k) for k in _TEAM_NAME_KEYS if k in keys), None)
        if column is None:
            return False
        people = [_person_value(cells[column]) if column < len(cells) else ("", "") for cells, _ in rows]
        if sum(bool(person) for person, _ in people) * 2 <= len(rows):
            return False
        from chatapp.knowledge.extraction.people import EMAIL, labelled_phones

        for (cells, position), (person, role) in zip(rows, people):
            label = cells[0].strip("* ")
            if not person or not label:
                continue
            self.add(self.page_subject, key_for_label(label), person, 0.9, "table", position)
            self.add(person, MENTION, person, 0.85, "table", position, subject_type="person")
            if role and len(role.split()) <= 6:
                self.add(person, "role", role.split(",")[0].strip(), 0.75, "table", position, subject_type="person")
            for cell in cells[1:]:
                if cell is cells[column]:
                    continue
                for address in EMAIL.findall(cell):
                    self.add(person, "email", address.lower(), 0.85, "table", position, subject_type="person")
                for key, phone in labelled_phones(cell):
                    self.add(person, key, phone, 0.85, "table", position, subject_type="person")
        return True

    # --- stated changes ---------------------------------------------------------

    def _from_to(self, line: str, position: int) -> bool:
        """ "the start moves from Monday 7 December to Wednesday 9 December": a change that names
        the value it replaces, so the merge finds the attribute holding that value."""
        found = False
        for match in [*CHANGED_FROM.finditer(line), *CHANGED_THING_FROM.finditer(line)]:
            after = line[match.end():]
            old = _value_at_start(after)
            to = re.match(CHANGE_TO_SIDE, after[len(old):]) if old and after.startswith(old) else None
            new = _value_at_start(after[len(old) + to.end():]) if to else ""
            # "That takes the approved budget for … from $940,000 to …": the thing between verb and "from".
            label = (match.group("thing").strip() if match.re is CHANGED_THING_FROM
                     else _clause_label(line, match.start()))
            if not new and (titles := _TITLE_FROM_TO.match(after)):
                # A title moved for another: the merge only takes it where the old title is held.
                old, new = titles.group("old"), titles.group("new")
            if new and label:
                self.add("", key_for_label(label), new, 0.8, "change", position, CHANGE, old)
                found = True
        return found

    def _up_to_from(self, line: str, position: int) -> bool:
        """ "The budget goes up to ₦53.2m (N53,200,000.00) from ₦48.5m", "the fee went up to $2,800, from
        $2,500": the new value first, the one it replaces after "from"."""
        found = False
        for match in _UP_TO.finditer(line):
            after = line[match.end():]
            new = _value_at_start(after)
            rest = _THEN_FROM.match(after[len(new):]) if new and after.startswith(new) else None
            old = _value_at_start(after[len(new) + rest.end():]) if rest else ""
            label = _clause_label(line, match.start())
            if old and label and value_shape(old) == value_shape(new) and old != new:
                self.add("", key_for_label(label), new, 0.8, "change", position, CHANGE, old)
                found = True
        return found

    def _instead_of(self, line: str, position: int) -> bool:
        """ "we've agreed on $265,000 for the budget instead of $240,000": the value before "instead of", in
        the same clause and of the same kind, replaces the one after it (the merge finds whose it was)."""
        found = False
        for match in _INSTEAD_OF.finditer(line):
            old = _value_at_start(line[match.end():])
            clause = re.split(r"[.;!?]\s", line[:match.start()])[-1]
            values = [m for m, _ in find_amounts(clause)] + [m for m, _ in find_dates(clause)]
            new = max(values, key=lambda m: m.end()).group(0) if values else ""
            if old and new and value_shape(old) == value_shape(new) and new != old:
                label = _clause_label(line, line.find(new, len(line[:match.start()]) - len(clause)))
                self.add("", key_for_label(label or "value"), new, 0.8, "change", position, CHANGE, old)
                found = True
        return found

    def _changes(self) -> None:
        for line, position in _unwrapped_lines(self.text):
            if not line or line.startswith(">"):
                continue  # quoted text repeats an older message: its changes are that message's
            # "moves from 20.12.2026 to **22.1.2027**": the new value stressed in bold is the value.
            line = _EMPHASIS.sub(r"\2", line)
            # "it now starts on 23.02.2027 (was 09.02.2027)": the date or amount right before the bracket
            # is the new value, wherever the line puts it; else a field's value ("Lead: … (was …)"). A line
            # may state several ("… 18.01.2027 (was 14.12.2026). The fee is EUR 104.900 (was EUR 98.400)"),
            # each read from where the one before ended.
            field = _FIELD_LINE.match(line) if "(" in line else None
            stated, start = False, 0
            for was in _WAS.finditer(line):
                before = _value_right_before(line[start:was.start()])
                own_field = field if start == 0 else None
                if before or own_field:
                    stated = True
                    new = before.group(0).strip() if before else leading_value(own_field.group(2))
                    if new and new != was.group(1):
                        where = (own_field.group(1) if own_field and not before
                                 else line[start:start + before.start()] if before else "")
                        label = (re.split(r"\s+(?:at|with|by|for|in)\s+", re.sub(r"\([^)]*\)", "", own_field.group(1)))[0]
                                 if own_field else _clause_label(where, len(where)))
                        self.add("", key_for_label(label), new, 0.85, "change", position, CHANGE, was.group(1).strip())
                start = was.end()
            if stated:
                continue
            # A paragraph is one line of a mail: "Completion moves from 2/19 to 3/5. That puts your move-in at
            # 3/22." states two changes, each read in its own sentence.
            for sentence, at in _sentences_of(line):
                if (self._from_to(sentence, position + at) or self._up_to_from(sentence, position + at)
                        or self._instead_of(sentence, position + at)):
                    continue
                self._said_changes(sentence, position + at)

    def _said_changes(self, line: str, position: int) -> None:
        """A new value said without the one it replaces: "moved to", "is now", "the revised budget of",
        "New budget:", "please move … to", "that puts … at"."""
        for pattern in (_CHANGE_VERB, _NOW_IS, REVISED, _REVISED_FIELD, _MOVE_TO, _PUTS_AT):
            for match in pattern.finditer(line):
                after = line[match.end():]
                value = _value_at_start(after)
                if not value:
                    continue
                if pattern not in (_CHANGE_VERB, _NOW_IS):
                    label = match.group(1)
                else:
                    label = _clause_label(line, match.start())
                label = label.strip(" ,.-")
                if label:
                    self.add("", key_for_label(label), value, 0.75, "change", position, CHANGE)


# Where a sentence ends inside a line and the next begins: a full stop after a word or a figure, then a
# capital ("… to 3/5/2027. That puts …"); not "Dr. Okafor" or "approx. $5".
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)][.!?])\s+(?=[A-Z])")
_NOT_AN_END = re.compile(r"(?:\b(?:dr|mr|mrs|ms|st|no|approx|incl|excl|vs|etc|e\.g|i\.e)|\b[A-Za-z])\.$", re.IGNORECASE)


def _sentences_of(line: str) -> list[tuple[str, int]]:
    """(sentence, offset in the line) of each sentence of a line."""
    pieces, start = [], 0
    for end in _SENTENCE_END.finditer(line):
        if _NOT_AN_END.search(line[start:end.start()]):
            continue
        pieces.append((line[start:end.start()], start))
        start = end.end()
    pieces.append((line[start:], start))
    return pieces


def _value_right_before(text: str) -> re.Match | None:
    """The date or amount that ends `text`, perhaps with a word or two after it ("€ 398,500 net")."""
    found = [m for m, _ in find_amounts(text)] + [m for m, _ in find_dates(text)]
    last = max(found, key=lambda m: m.end(), default=None)
    # A time of day may follow the date: "18.01.2027, 12:00 (was 14.12.2026)".
    after = re.sub(r"^,?\s*(?:at\s+)?\d{1,2}[:.]\d{2}(?:\s*(?:Uhr|h|am|pm|a\.m\.|p\.m\.))?", "", text[last.end():]
                   ) if last is not None else ""
    # "₹42.75 lakh + GST", "€ 398,500 net": a word or two after it, a tax added with a plus sign too.
    if last is not None and re.fullmatch(r"(?:\s+[^\W\d][\w.]*|\s*\+\s*[^\W\d][\w.]*){0,2}\s*", after):
        return last
    return None


def _unwrapped_lines(text: str) -> list[tuple[str, int]]:
    """(line, offset) of each line, stripped, with a wrapped mail's continuation lines (going on in
    lower case, not a "label: value" field) joined to the line they continue: "…the launch has\nmoved
    to 11 May" states its change on one line."""
    lines: list[tuple[str, int]] = []
    offset = 0
    for raw in text.split("\n"):
        line = raw.strip()
        previous = lines[-1][0] if lines else ""
        # "(was 14.12.2026), because …" wrapped onto its own line goes on the line before too, and so does a
        # date or sum the wrap put first ("… is now Wednesday\n27 January 2027 at 10am") after a line
        # stopping mid-sentence, on a lower-case word or a day's or month's name.
        if ((line[:1].islower() or _WAS.match(line) or _wrapped_value(line, previous))
                and previous and not previous.startswith((">", "#", "|"))
                and not previous.endswith((".", "!", "?", ":")) and not _FIELD_LINE.match(line)):
            lines[-1] = (f"{previous} {line}", lines[-1][1])
        else:
            lines.append((line, offset))
        offset += len(raw) + 1
    return lines


# Where a wrapped line stops mid-sentence before a figure: a lower-case word, or a day's or month's name.
_MID_SENTENCE_END = re.compile(
    r"(?:\b[a-z][\w'’-]*|\b(?i:mon|tues|wednes|thurs|fri|satur|sun)day|\b(?i:january|february|march|april|may|june|"
    r"july|august|september|october|november|december))$")
_LIST_NUMBER = re.compile(r"\d{1,2}[.)]\s")


def _wrapped_value(line: str, previous: str) -> bool:
    """Whether `line`, opening with a figure or a currency sign, goes on from `previous`, which stops where
    a sentence cannot end, rather than being a list's next number."""
    return (bool(re.match(r"[\d$£€¥₹₦]", line)) and not _LIST_NUMBER.match(line)
            and bool(_MID_SENTENCE_END.search(previous.rstrip())))


def _clause_label(line: str, end: int) -> str:
    """What a change is of: the last words of the clause before its verb ("Ingrid leads the
    migration; cut-over moved to …" -> "cut-over"; "Build: moved from …" -> "Build")."""
    # "1. The concept delivery moves …": a list's number is no word of what changed.
    clauses = re.split(r"[;:,—–]|\s-\s", re.sub(r"^\s*(?:\d{1,2}[.)]|[-*•])\s+", "", line[:end]))
    clause = clauses[-1]
    if not _LABEL_NOISE.sub(" ", clause).strip(" ,.-*") and len(clauses) > 1:
        clause = clauses[-2]  # "- Pump commissioning: moved from …": the label before the colon
    return " ".join(_LABEL_NOISE.sub(" ", clause).split()[-4:]).strip(" ,.-")


def _value_at_start(text: str) -> str:
    """The date or amount a change moves to: "11 May 2027", "£12,000", or a yearless "Monday 11 May"
    (its year comes from the document, in FieldReader.add)."""
    for finder in (find_dates, find_amounts):
        found = finder(text)
        if found and found[0][0].start() <= 1:
            return found[0][0].group(0)
    if either_way := _EITHER_WAY_DATE.match(text):
        return either_way.group(1)
    # "Monday 1/25/2027": a weekday before a date written in numbers (the date is the value).
    weekday = re.match(rf"\s?{_WEEKDAY_BEFORE}(?=\d)", text, re.IGNORECASE)
    if weekday and (found := find_dates(text[weekday.end():])) and found[0][0].start() == 0:
        return found[0][0].group(0)
    if weekday and (either_way := _EITHER_WAY_DATE.match(text[weekday.end():])):
        return either_way.group(1)
    return yearless_date_at_start(text)


# "3/5/2027" reads as 5 March or 3 May, so no date finder takes it; it is a date all the same, and the
# merge matches it to an old value by both readings.
_EITHER_WAY_DATE = re.compile(r"\s?(\d{1,2}/\d{1,2}/\d{4})(?![\d/])")


def _is_row(line: str) -> bool:
    return line.strip().startswith("|") and line.count("|") >= 3


def _cells(line: str) -> list[str]:
    return [" ".join(c.split()) for c in line.strip().strip("|").split("|")]


# Headers that name a record, surest first (Dutch "Naam" as "Name"); a contact's name column names the record's contact,
# so it comes last ("supplier, contact_name, contact_email": the record is the supplier).
_NAME_KEYS = ("name", "full_name", "person", "employee", "staff", "staff_member", "member", "client_name",
              "supplier", "vendor", "company", "organisation", "organization", "project", "title", "item", "label",
              "who", "contact_name", "naam", "projectnaam")


_TOTAL = re.compile(r"(?:sub)?total|sum|grand total", re.IGNORECASE)


def subject_column(keys: list[str], rows: list[list[str]], named_only: bool = False) -> int | None:
    """Which column names each record: a name-like header first ("Name", "Full name", "Item"),
    else (unless `named_only`) the first column most of whose cells read as people's names.
    A table of actions has people in its "Owner" column, but its records are the actions."""
    for wanted in _NAME_KEYS:
        if wanted in keys and names_each_row(rows, keys.index(wanted)):
            return keys.index(wanted)
    if named_only:
        return None
    for index in range(len(keys)):
        cells = [row[index] for row in rows if index < len(row) and row[index]]
        if cells and sum(looks_like_person(clean_name(c)) for c in cells) * 2 > len(cells):
            return index
    return None


_CALENDAR_WORD = re.compile(
    r"(?i)(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|\.)?|(?:wednes|satur)day"
    r"|jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?")


def names_the_rows(rows: list[list[str]], index: int) -> bool:
    """Whether every cell of a column is a different capitalised name, no figure in it ("Ohio Arts
    Council", "Great Hall"): the column names the records though its header does not say so."""
    cells = [row[index].strip() if index < len(row) else "" for row in rows]
    return (all(c[:1].isupper() and not any(ch.isdigit() for ch in c) and len(c) <= 80 for c in cells)
            and not all(_CALENDAR_WORD.fullmatch(c) for c in cells)  # "Tuesday", "Wednesday": a day, no name
            and names_each_row(rows, index))


def names_each_row(rows: list[list[str]], index: int) -> bool:
    """Whether a column can name the records: no two rows share a name. A "Supplier" column that lists
    one firm for two reagents names who supplies them, not the rows ("Trypsin", "DMEM" are)."""
    cells = [row[index].strip().casefold() for row in rows if index < len(row) and row[index].strip()]
    return len(set(cells)) == len(cells)


def read_fields(text: str, title: str, is_email: bool = False, document_date=None) -> list[Observation]:
    return FieldReader(text, title, document_date).read(is_email)
