"""Observations from every document merged into the registry's extracted entities.

- People are one person when they share a name or an email address ("Rob Ellison
  <robert.ellison@…>" in a header and "Robert Ellison" in the directory); the fullest name a
  directory or table gives is the canonical one, the others become aliases, with the first
  name and surname.
- Every attribute keeps all its values with their sources. Values that say the same thing
  ("Head of Hardware" and "Head of Hardware & Co-founder") are one; of values that differ, the
  one a newer document states is current and the older are marked superseded.
- A stated change ("the go-live has moved to 11 January 2027") is matched to the attribute it
  changes: the one holding its old value, or the one whose key and subject share its words.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field, replace

from chatapp.accents import strip_accents
from chatapp.knowledge.extraction.leads import WORK_KINDS
from chatapp.knowledge.extraction.people import letters_of
from chatapp.knowledge.extraction.observations import (
    ALIAS, CHANGE, DESCRIBED, MENTION, clean_name, entity_slug, looks_like_person,
)
from chatapp.knowledge.extraction.values import normal_value, value_shape
from chatapp.lexicon import concepts_of_key, is_common, is_first_name, is_surname
from chatapp.records import Entity

# Methods whose names are written out in full, in the person's own directory entry.
_FORMAL_METHODS = {"directory": 3, "table": 3, "record": 2, "signature": 1, "mail_header": 1}
_PERSON_VALUE_KEYS = re.compile(
    r"(?:^|_)(?:lead|owner|sponsor|contact|manager|coordinator|chair|organi[sz]er|coach|advis[eo]r|"
    r"maintained_by|published_by|responsible|assignee|primary|backup|lawyer|partner|reviewer|approver|"
    r"counsel|solicitor|barrister|attorney|fee_earner)$"
)


@dataclass
class Row:
    """One stored observation with its document's path and date."""

    subject: str
    subject_type: str
    key: str
    value: str
    confidence: float
    method: str
    position: int
    doc_date: str
    source: str
    previous: str = ""


@dataclass
class _Group:
    type: str
    names: dict[str, float] = field(default_factory=dict)  # name -> weight
    aliases: set[str] = field(default_factory=set)
    rows: list[Row] = field(default_factory=list)
    documents: set[str] = field(default_factory=set)


@dataclass
class Learnt:
    entities: list[Entity]
    history: list[dict]  # attribute_history rows


def _norm(text: str) -> str:
    # An apostrophe inside or closing a name is part of the word: "Ng'ang'a" is one surname, "Ochieng'" one name.
    text = re.sub(r"(?<=\w)['’]", "", text.casefold())
    return " ".join(re.sub(r"[^\w@.]+", " ", text).split())


class _UnionFind:
    def __init__(self):
        self.parent: dict[str, str] = {}

    def find(self, item: str) -> str:
        self.parent.setdefault(item, item)
        while self.parent[item] != item:
            self.parent[item] = self.parent[self.parent[item]]
            item = self.parent[item]
        return item

    def union(self, a: str, b: str) -> None:
        self.parent[self.find(a)] = self.find(b)


def merge(rows: list[Row]) -> Learnt:
    changes = [r for r in rows if r.subject_type == CHANGE]
    groups = _fold_short_names(_group(_described_work(r for r in rows if r.subject_type != CHANGE)))
    ids = _assign_ids(groups)
    name_to_id = {}
    for group_id, group in zip(ids, groups):
        if group.type == "person":
            for name in group.names:
                name_to_id.setdefault(_norm(name), group_id)
                name_to_id.setdefault(_norm(strip_accents(name)), group_id)
    people_called = _people_called(groups)
    # "Lead: KW", "Cathal leads": a person-valued field naming someone by an alias or first name only
    # one person has links to that person, as a full name does.
    for called, full in people_called.items():
        if _norm(full) in name_to_id:
            name_to_id.setdefault(called, name_to_id[_norm(full)])
    _apply_changes(groups, changes, people_called)
    # A name only the recogniser saw, in one document, is too weak to be an entity (people aside:
    # a colleague named once in meeting notes is still a colleague).
    people = [g for g in groups if g.type == "person" and any(r.method != "ner" for r in g.rows)]
    known = _KnownPeople(
        names={_norm(n) for g in people for n in g.names},
        words={_norm(w) for g in people for n in g.names for w in (n, *n.split())} | {
            _norm(a) for g in people for a in g.aliases},
        given={_norm(n.split()[0]) for g in people for n in g.names if len(n.split()) > 1},
        others={_norm(n) for g in groups if g.type != "person" and any(r.method != "ner" for r in g.rows)
                for n in g.names},
        domains={letters_of(label) for g in groups for r in g.rows if r.key == "email"
                 for label in r.value.lower().rpartition("@")[2].split(".")[:-1] if len(label) >= 4},
    )
    kept = [(i, g) for i, g in zip(ids, groups) if _kept(g, known)]
    ids, groups = [i for i, _ in kept], [g for _, g in kept]
    entities, history = [], []
    for entity_id, group in zip(ids, groups):
        entity, rows_out = _entity(entity_id, group, name_to_id)
        entities.append(entity)
        history += rows_out
    return Learnt(entities, history)


@dataclass
class _KnownPeople:
    names: set[str]  # the full names of people a page, header or record gave
    words: set[str]  # those names, their words and their aliases
    given: set[str] = field(default_factory=set)  # their first names
    others: set[str] = field(default_factory=set)  # the names of things and firms a page or record gave
    domains: set[str] = field(default_factory=set)  # the letters of the mail domains' labels ("kowhaiphysio")


def _kept(group: _Group, known: _KnownPeople) -> bool:
    """Whether a group is an entity. Names only the recogniser saw are weak: a non-person must be
    named by two documents and not be a person's name ("Kostas" tagged as an organisation); a
    person must start with a given name and not be a known person's name with a word glued on."""
    from chatapp.lexicon import is_first_name

    if any(r.method != "ner" for r in group.rows):
        return True
    name = _norm(_canonical(group))
    if group.type != "person":
        return len(group.documents) >= 2 and name not in known.words
    if name in known.others:
        # "Don Mills has two RVTs on Christmas Eve": the recogniser's person is a place or firm a table or
        # page of the same folder names as such (a sites table's "Don Mills" row), whose first word only
        # happens to be a given name.
        return False
    words = name.split()
    if not is_first_name(words[0]) and not _named_so_twice(group, words, known):
        return False
    # "Joost van Leeuwen Context": a known name inside a longer one the recogniser ran on.
    inner = {" ".join(words[i:j]) for i in range(len(words)) for j in range(i + 2, len(words) + 1)} - {name}
    return not inner & known.names


def _named_so_twice(group: _Group, words: list[str], known: _KnownPeople) -> bool:
    """A full name the census tables do not know the first name of ("Antero Halonen" in Finland), which two
    documents write whole, in name words none of which is an everyday English one, and which neither ends in
    someone's first name (a greeting the recogniser ran on, "Hei Kaisa") nor is part of a firm's or a thing's
    name ("Stiftelsen Solvik" of a record's "Stiftelsen Solvik sr") or spells a mail domain ("Kōwhai Physio"
    of kowhaiphysio.co.nz)."""
    name = " ".join(words)
    return (len(group.documents) >= 2 and len(words) >= 2 and looks_like_person(_canonical(group))
            and not any(is_common(w, 3.0) for w in words) and words[-1] not in known.given
            and letters_of(name) not in known.domains
            and not any(re.search(rf"(?<!\w){re.escape(name)}(?!\w)", other) for other in known.others))


def _group(rows) -> list[_Group]:
    """Rows by the entity they are about."""
    union = _UnionFind()
    by_subject: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for row in rows:
        kind = "person" if row.subject_type == "person" else "other"
        node = f"{kind}|{_norm(row.subject)}"
        by_subject[(node, row.subject_type)].append(row)
        union.find(node)
        if kind == "person":
            # "Tomas Geraghty <t.geraghty@…>" in a mail header is the page's "Tomás Geraghty": a mail
            # client or a keyboard drops the accents, not the person.
            union.union(node, f"person|{_norm(strip_accents(row.subject))}")
        if row.key == "email" and kind == "person":
            union.union(node, f"email|{row.value.lower()}")
        if row.key == ALIAS and kind == "other":
            union.union(node, f"other|{_norm(row.value)}")
    groups: dict[str, _Group] = {}
    for (node, subject_type), subject_rows in by_subject.items():
        root = union.find(node)
        group = groups.get(root)
        if group is None:
            group = groups[root] = _Group(type=subject_type)
        for row in subject_rows:
            weight = row.confidence + _FORMAL_METHODS.get(row.method, 0) + 0.01 * len(row.subject)
            group.names[row.subject] = max(group.names.get(row.subject, 0.0), weight)
            group.rows.append(row)
            group.documents.add(row.source)
            if row.key == ALIAS:
                group.aliases.add(row.value)
    for group in groups.values():
        # The name as written with its accents is the name: "Tomás" over a header's "Tomas".
        for name in list(group.names):
            if not name.isascii() and (plain := strip_accents(name)) in group.names:
                group.names[name] = max(group.names[name], group.names[plain] + 0.001)
        # What a page or a record says the subject is beats the recogniser's guess, and a
        # project page's "project" beats a table's "thing".
        read = [r.subject_type for r in group.rows if r.method != "ner"] or [r.subject_type for r in group.rows]
        group.type = max(set(read), key=lambda t: (t == "person", t == "project", t != "thing", read.count(t)))
    return list(groups.values())


def _fold_short_names(groups: list[_Group]) -> list[_Group]:
    """A person named more shortly than their full name joins the one person that name can be:
    "Priya" in an actions table is Priya Raghunathan when she is the only Priya, and "Pip
    Corrigan" in meeting notes is Philippa Corrigan when "pip" is her alias. A first name
    that fits nobody or several people stays apart; one only a table names, with nothing known
    about it, is no entity."""
    full = [g for g in groups if g.type == "person" and any(len(n.split()) > 1 for n in g.names)]
    called: dict[str, list[_Group]] = defaultdict(list)  # a first name or alias -> the people it may be
    for group in full:
        for word in {_norm(n.split()[0]) for n in group.names} | {_norm(a) for a in group.aliases} | _surnames(group):
            called[word].append(group)
    full_ids = {id(g) for g in full}
    kept = []
    for group in groups:
        owners = _short_name_owners(group, called) if group.type == "person" else []
        if len(owners) == 1:
            owner = owners[0]
            owner.rows += group.rows
            owner.documents |= group.documents
            owner.aliases |= set(group.names) | group.aliases
        elif id(group) in full_ids or any(r.key != MENTION or r.method not in ("table", "record") for r in group.rows):
            kept.append(group)
    return kept


def _surnames(group: _Group) -> set[str]:
    """The two surnames a Spanish or Portuguese name ends with ("Alarcón Téllez" of Rodrigo Alarcón Téllez), as
    the recogniser may cut them from the given names: the first of them a surname and no given name."""
    return {_norm(" ".join(words[-2:])) for name in group.names if len(words := name.split()) >= 3
            and is_surname(words[-2]) and not is_first_name(words[-2]) and is_surname(words[-1])}


def _short_name_owners(group: _Group, called: dict[str, list[_Group]]) -> list[_Group]:
    """The people a group's name may be short for: a lone first name, a first name or alias with the
    same surname, both given names of a longer name, or the whole of someone's alias ("Hui Ling", known
    as by Lim Hui Ling, signing a mail)."""
    owners: dict[int, _Group] = {}
    shortest = all(len(_norm(name).split()) <= 2 for name in group.names)  # no fuller name of its own
    for name in group.names:
        words = _norm(name).split()
        if len(words) == 2:  # only an alias files a two-word name in `called`
            owners |= {id(other): other for other in called.get(" ".join(words), []) if other is not group}
        if not 1 <= len(words) <= 2:
            continue
        for other in called.get(words[0], []):
            surnames = {_norm(n).split()[-1] for n in other.names if len(n.split()) > 1}
            # "Esther Nafula" of Esther Nafula Wamalwa, "João Vítor" of João Vítor dos Santos: given and middle
            # names without the surname, as a list written surname first ("WAMALWA, Esther Nafula") reads to
            # the recogniser, or as meeting notes list attendees.
            given = {tuple(_norm(n).split()[:2]) for n in other.names if len(_norm(n).split()) > 2
                     } if shortest and any(r.method != "ner" for r in other.rows) else set()
            # "Kavitha N" signing a mail is Kavitha Natarajan: a given name, then the surname's initial.
            initial = len(words) == 2 and re.fullmatch(r"[^\W\d_]\.?", words[1]) is not None
            by_initial = initial and any(s.startswith(words[1].rstrip(".")) for s in surnames)
            if other is not group and (len(words) == 1 or words[1] in surnames or tuple(words) in given or by_initial):
                owners[id(other)] = other
    return list(owners.values())


def _canonical(group: _Group) -> str:
    names = list(group.names)
    if group.type == "person":
        # "Emeka Obiora" in mail headers is Chukwuemeka Obiora, "Rob Ellison" Robert Ellison: a name whose
        # first word is a shortening of another's, the rest alike, is the short form, not the name.
        split = [(_norm(name).split()[:1], _norm(name).split()[1:]) for name in names]
        names = [name for name, (first, rest) in zip(names, split) if not (first and rest and any(
            other_rest == rest and other[0] != first[0] and first[0] in other[0] for other, other_rest in split
            if other))] or names
    return max(names, key=lambda name: (group.names[name], len(name)))


def _assign_ids(groups: list[_Group]) -> list[str]:
    ids, used = [], set()
    for group in groups:
        base = f"{group.type}:{entity_slug(_canonical(group))}"
        entity_id, n = base, 2
        while entity_id in used:
            entity_id, n = f"{base}-{n}", n + 1
        used.add(entity_id)
        ids.append(entity_id)
    return ids


def _words(text: str) -> set[str]:
    return {w for w in re.split(r"[_\W]+", text.lower()) if len(w) > 1 and not w.isdigit()}


def _people_called(groups: list[_Group]) -> dict[str, str]:
    """Each way a person is named (full name, first name, alias) -> their full name, where only one
    person is named so: a handover in a mail says "Halvard takes over from Sunniva". A name only the
    recogniser saw ("Cormac O'Brien" cut from "Cormac O'Brien-Yates") is no second person."""
    called: dict[str, set[str]] = defaultdict(set)
    for group in groups:
        if (group.type != "person" or not any(len(n.split()) > 1 for n in group.names)
                or all(r.method == "ner" for r in group.rows)):
            continue
        full = _canonical(group)
        for name in {*group.names, *group.aliases, *(n.split()[0] for n in group.names)}:
            called[_norm(name)].add(full)
    return {name: next(iter(fulls)) for name, fulls in called.items() if len(fulls) == 1}


def _apply_changes(groups: list[_Group], changes: list[Row], people: dict[str, str]) -> None:
    """Each stated change becomes a value of the attribute it changes, dated by its document. A role
    handed from one person to another names them as the text does ("Sunniva"): the old holder is found
    by the person meant, and the new one is written by full name."""
    for change in changes:
        shape = value_shape(change.value)
        previous = normal_value(change.previous) if change.previous else ""
        previous_person = people.get(_norm(change.previous)) if change.previous else None
        label = _words(change.key)
        best, best_score = [], 0.0
        said_old = []  # (group, key, their sources, key named by the change) of each value it names as its old side
        for group in groups:
            subject_words = set().union(*(_words(n) for n in group.names))
            for key in {r.key for r in group.rows if r.key not in (MENTION, ALIAS)}:
                # "go_live: 07/12/2026" on a page is a date, though it reads two ways (_readings).
                olds = [r for r in group.rows if r.key == key
                        and (value_shape(r.value) == shape or _bare_figure_of(change.previous, r.value, shape))
                        and (not r.doc_date or not change.doc_date or r.doc_date < change.doc_date)]
                if not olds:
                    continue
                if previous:
                    score = 10.0 if any(_readings(change.previous) & _readings(r.value)
                                        or _bare_figure_of(change.previous, r.value, shape) or (
                        previous_person and people.get(_norm(r.value)) == previous_person) for r in olds) else 0.0
                    if score:  # a title many hold, a day two works share: whose changed, by the name said,
                        # and which of the entity's keys by the role named ("account lead", not "lead")
                        score += len(label & subject_words) + len(_words(change.subject) & subject_words)
                        score += 0.5 * len(label & _words(key))
                        said_old.append((group, key, {r.source for r in olds}, bool(label & _words(key))))
                elif shape == "text":
                    # A text value said without the one it replaces could be anyone's anything, unless the
                    # change names the thing whose it is and the key: "takes over as project lead for Kitui
                    # Boreholes" (that project's lead), "I am taking over as projectleider of Hofbogen" (each of
                    # its keys that holds its lead).
                    named = change.subject and (_work_forms(change.subject) & {_norm(n) for n in group.names}
                                                or _named_but_its_kind(change.subject, group.names))
                    if not (named and (label & _words(key) or
                                       "lead" in concepts_of_key(change.key) and "lead" in concepts_of_key(key))):
                        continue
                    # "Harbour Civil's project lead": the key of the firm's role ("contractor_project_lead",
                    # the work's contractor being Harbour Civil Ltd) before the work's own "project_lead".
                    score = 5.0 + (1.0 if _words(key) & _owner_keys(group, label) else 0.0)
                else:
                    key_overlap = len(label & _words(key))
                    score = key_overlap + 0.5 * len(label & subject_words) if key_overlap else 0.0
                if score > best_score:
                    best, best_score = [(group, key)], score
                elif score == best_score and score > 0:
                    best.append((group, key))
        # One group's several keys for a named lead ("lead", "projectleider") all change.
        one_group = not previous and shape == "text" and len({id(group) for group, _ in best}) == 1
        if len(best) == 1 and previous and shape != "text":
            # A page that gives the old day or sum twice, as its front matter's "reapertura: 15 de enero de
            # 2027" and its plan's row "| Reapertura de la terraza | 15 de enero de 2027 |", states one fact:
            # the change replaces the other too where the change's words name its key.
            chosen = next((sources for group, key, sources, _ in said_old if (group, key) == best[0]), set())
            best += [(group, key) for group, key, sources, key_named in said_old
                     if (group, key) != best[0] and key_named and sources & chosen]
            one_group = True  # the one chosen, and those stating the same
        for group, key in best if len(best) == 1 or one_group else []:
            template = next(r for r in group.rows if r.key == key)
            # A new holder said without the old one (text, no previous) is written by full name as well.
            handover = previous_person or (not previous and shape == "text")
            value = people.get(_norm(change.value), change.value) if handover else change.value
            group.rows.append(Row(template.subject, template.subject_type, key, value, change.confidence,
                                  "change", change.position, change.doc_date, change.source))
            if not handover:
                _move_named_rows(groups, group, key, change)
                _move_twin_keys(group, key, change)


# The last word of a work's name saying what kind of work it is, which talk leaves out: "the Harbour Road
# Bridge 7 job" for "Harbour Road Bridge 7 Renewal".
_KINDS_OF_WORK = frozenset({*WORK_KINDS, "renewal", "renewals", "replacement", "improvements", "extension"})


def _without_its_kind(name: str) -> str:
    """A work's name without its last word when that says the kind of work ("Renewal"), two words left."""
    words = name.split()
    return " ".join(words[:-1]) if len(words) >= 3 and words[-1].lower() in _KINDS_OF_WORK else ""


def _named_but_its_kind(named: str, names) -> bool:
    """ "Harbour Road Bridge 7" names the work called "Harbour Road Bridge 7 Renewal"."""
    said = _norm(named)
    return bool(said) and any(_norm(short) == said for name in names if (short := _without_its_kind(name)))


def _owner_keys(group: _Group, label: set[str]) -> set[str]:
    """The words of each key of `group` whose value a change's role names as its owner: "Harbour Civil's
    project lead" names the firm the work's "contractor" key holds ("Harbour Civil Ltd")."""
    keys: set[str] = set()
    for row in group.rows:
        if row.key not in (MENTION, ALIAS) and value_shape(row.value) == "text":
            keys |= _words(row.key) if (_words(row.value) - _words(row.key)) & label else set()
    return keys


def _bare_figure_of(previous: str, value: str, shape: str) -> bool:
    """A register's bare figure ("approved_budget": 940000) is the sum a change names as its old one
    ("from $940,000 to $1,010,000"): the same figures, four or more before any decimals, nothing else."""
    bare = re.fullmatch(r"\s*(\d{4,})(?:\.0+)?\s*", value)
    figures = re.fullmatch(r"[^\d]{0,4}(\d{1,3}(?:,\d{3})+|\d{4,})(?:\.0+)?", previous.strip()) if previous else None
    return bool(shape == "amount" and bare and figures and figures.group(1).replace(",", "") == bare.group(1))


def _work_forms(described: str) -> set[str]:
    """How a piece of work described in lower case may be named: "borehole rehabilitation project" is the
    work named "Borehole rehabilitation" or "Borehole Rehabilitation Project"."""
    words = _norm(described).split()
    return {" ".join(words), *([" ".join(words[:-1])] if len(words) > 1 and words[-1] in WORK_KINDS else [])}


def _described_work(rows) -> list[Row]:
    """`rows`, each whose subject is a piece of work described in lower case ("Wanjiru leads the borehole
    rehabilitation project") said of the one work a document names so (a heading "Borehole rehabilitation —
    kickoff notes"), and dropped when no document, or more than one work, is named so: a description alone
    makes no entity."""
    rows = list(rows)
    named = {_norm(r.subject): r.subject for r in rows
             if r.method != DESCRIBED and r.subject_type not in ("person", CHANGE)}
    kept = []
    for row in rows:
        if row.method == DESCRIBED:
            matches = {named[form] for form in _work_forms(row.subject) if form in named}
            if len(matches) != 1:
                continue
            row = replace(row, subject=matches.pop())
        kept.append(row)
    return kept


def _readings(value: str) -> set[str]:
    """A value's normal forms: "11/12/2026" reads as 11 December and as 12 November, both."""
    both = re.fullmatch(r"\s*(\d{1,2})/(\d{1,2})/(\d{4})\s*", value)
    if both and int(both.group(1)) <= 12 and int(both.group(2)) <= 12:
        a, b, year = (int(g) for g in both.groups())
        return {f"{year:04d}-{b:02d}-{a:02d}", f"{year:04d}-{a:02d}-{b:02d}"}
    return {normal_value(value)}


def _move_named_rows(groups: list[_Group], changed: _Group, key: str, change: Row) -> None:
    """A page's milestone row that names the changed thing and holds the same old value moves with it:
    "Closing date: 18th December 2026" above a plan row "| Closing | … | 18/12/2026 |" are one date, so
    "the closing date moves to 29th January 2027" replaces both. Only rows of the document that held
    the old value, whose whole name is words of the change's label or key."""
    olds = {(reading, r.source) for r in changed.rows for reading in _readings(r.value)
            if r.key == key and r.method != "change" and r.doc_date == max(
                (o.doc_date for o in changed.rows if o.key == key and o.method != "change"), default=r.doc_date)}
    label = _words(change.key) | _words(key)
    shape = value_shape(change.value)
    for group in groups:
        if group is changed or group.type == "person":
            continue
        if not any(_words(n) and _words(n) <= label for n in group.names):
            continue
        for row_key in {r.key for r in group.rows if r.key not in (MENTION, ALIAS)}:
            rows = [r for r in group.rows if r.key == row_key]
            if all(any((reading, r.source) in olds for reading in _readings(r.value))
                   and value_shape(r.value) == shape
                   for r in rows):
                group.rows.append(Row(rows[0].subject, rows[0].subject_type, row_key, change.value,
                                      change.confidence, "change", change.position, change.doc_date, change.source))


def _move_twin_keys(group: _Group, key: str, change: Row) -> None:
    """A page giving one date under two labels ("prestart_meeting: Tuesday 19 January 2027" in its front
    matter, "Pre-start site meeting: Tuesday 19 January 2027" in its list of key dates) says one thing
    twice: another key of the changed thing naming the same (a word of it is the changed key's or the
    change's) whose every value is the changed key's old value, of the same documents, changes with it. A
    "safety_review" on the day of the old "launch" is another thing on that day, and stays."""
    olds = [r for r in group.rows if r.key == key and r.method != "change"]
    readings = {(reading, r.source) for r in olds for reading in _readings(r.value)}
    shape = value_shape(change.value)
    named = _words(key) | _words(change.key)
    for other in {r.key for r in group.rows if r.key not in (key, MENTION, ALIAS) and _words(r.key) & named}:
        rows = [r for r in group.rows if r.key == other]
        if rows and all(r.method != "change" and value_shape(r.value) == shape
                        and any((reading, r.source) in readings for reading in _readings(r.value)) for r in rows):
            group.rows.append(Row(rows[0].subject, rows[0].subject_type, other, change.value, change.confidence,
                                  "change", change.position, change.doc_date, change.source))


def _distinct_spellings(name: str, aliases: list[str]) -> list[str]:
    """Aliases once each, whatever their case, spelt as a name is where any source capitalises it:
    the address "priyanka@…" gives "priyanka", the table "Priyanka Rao"; typed in lower case, the
    name is then corrected to "Priyanka", not left as the address wrote it."""
    spelt: dict[str, str] = {}
    for alias in aliases:
        key = alias.casefold()
        if alias and key != name.casefold() and (key not in spelt or spelt[key].islower()):
            spelt[key] = alias
    return list(spelt.values())


# Ways to reach someone: a directory entry giving two ("Direct line … · mobile …") gives both at once.
_REACH_KEYS = frozenset({"phone", "mobile", "email"})


# "ext 210", "x214", "Ext. 31": a number dialled only inside the building, not one to call from outside.
_EXTENSION_ONLY = re.compile(r"(?:ext(?:ension|n)?\.?|x)?\s*#?\s*\d{1,5}", re.I)


def _extension_only(value: str) -> bool:
    return bool(_EXTENSION_ONLY.fullmatch(value.strip()))


def _dialable_first(key: str, clusters: list[list[Row]], current: list[Row]) -> list[Row]:
    """A signature's "ext 210" does not replace the mobile the staff list gives: an extension and a full
    number are two ways to reach someone, and the one a caller can dial from anywhere leads."""
    if key != "phone" or not all(_extension_only(r.value) for r in current):
        return current
    return next((c for c in clusters if not any(_extension_only(r.value) for r in c)), current)


def _own_address_first(key: str, clusters: list[list[Row]], current: list[Row], top: float) -> list[Row]:
    """Of two addresses as sure as each other, the one written from the person's name is theirs first;
    the office's mailbox a page gives beside their name is held too (_held_too)."""
    if key != "email" or _spells_owner(current):
        return current
    return next((c for c in clusters if _spells_owner(c) and max(_authority(r) for r in c) >= top - 0.1), current)


def _extensions_apart(by_key: dict[str, list[Row]]) -> None:
    """A signature's "ext 210" where the staff list's Ext column gives 210 is that extension said again,
    not a phone number: it joins the extension, so "her phone number" is the number a caller can dial."""
    extensions = {re.sub(r"\D", "", r.value) for r in by_key.get("extension", [])}
    _phones_said_again_as(by_key, "extension",
                          lambda r: _extension_only(r.value) and re.sub(r"\D", "", r.value) in extensions,
                          lambda value: re.sub(r"\D", "", value))


def _mobiles_apart(by_key: dict[str, list[Row]]) -> None:
    """A handover note's bare "07700 900 412" where the staff list's Cell column gives that number is
    the mobile said again without its label, not a desk phone a later signature replaced: it joins
    the mobile."""
    mobiles = {re.sub(r"\D", "", r.value)[-10:] for r in by_key.get("mobile", [])}
    _phones_said_again_as(by_key, "mobile", lambda r: re.sub(r"\D", "", r.value)[-10:] in mobiles, lambda value: value)
    # A mobile number by its country's shape ("+91 94481 22630") beside a landline with its area code
    # ("0821-242 6617") in a later signature: two lines, not one number replacing the other. The mobile is
    # kept as the mobile, the landline as the phone. A person with numbers of one kind only is left alone.
    phones = by_key.get("phone", [])
    shapes = {_mobile_shaped(r.value) for r in phones}
    if not by_key.get("mobile") and shapes == {True, False}:
        _phones_said_again_as(by_key, "mobile", lambda r: _mobile_shaped(r.value), lambda value: value)


# Mobile numbers by their country's prefix, in international or national form: the UK (07…), Ireland
# (08…), the Netherlands (06…), Australia (04…), New Zealand (02…), Kenya (07…/01…); India's as written,
# ten digits from 6 to 9 in one run or five and five ("+91 98450 12345"), never an area code first
# ("+91 80 4123 5678", "0821-242 6617" are landlines).
_MOBILE_SHAPES = re.compile(
    r"(?:\+?44|0)7\d{9}|(?:\+?353|0)8[3-9]\d{7}|(?:\+?31|0)6\d{8}|(?:\+?61|0)4\d{8}"
    r"|(?:\+?64|0)2[0-9]\d{6,8}|(?:\+?254|0)[17]\d{8}"
)
_INDIAN_MOBILE = re.compile(r"(?:\+?91[\s-]?)?[6-9]\d{4}[\s-]?\d{5}")


def _mobile_shaped(value: str) -> bool:
    value = value.strip()
    if _INDIAN_MOBILE.fullmatch(value):
        return True
    return not value.replace(" ", "").startswith(("+91", "91")) and bool(
        _MOBILE_SHAPES.fullmatch(re.sub(r"[^\d+]", "", value)))


def _phones_said_again_as(by_key: dict[str, list[Row]], key: str, said_again, written) -> None:
    """Moves the "phone" rows `said_again` picks to `key`, their value as `written` gives it."""
    for row in [r for r in by_key.get("phone", []) if said_again(r)]:
        by_key["phone"].remove(row)
        row.key, row.value = key, written(row.value)
        by_key[key].append(row)
    if not by_key.get("phone", True):
        del by_key["phone"]


def _held_too(key: str, cluster: list[Row], current: list[Row]) -> bool:
    """Whether `cluster` is a value held beside the current one ("also"), not an old one: a second phone
    or address the current value's own document gives (the same page cannot replace one of its numbers
    with another), or a role no dated document orders against the current one (a title in the directory
    and a duty on the safety page: "Test & Certification Engineer" and "Lab safety officer"), or another
    row of the same table."""
    if any(r.method == CHANGE for r in [*cluster, *current]):
        return False  # "her address changes from … to …" does replace one with the other
    rows = [*cluster, *current]
    if all(r.method == "record" for r in rows) and len({r.source for r in rows}) == 1:
        return True  # one table's rows under one key (two bookings on one day) are two records, not an update
    if key == "email" and _spells_owner(cluster) != _spells_owner(current):
        # "Sekretariat: Sabine Meier … sekretariat.brandt@…": an office's mailbox beside the address written
        # from her name is a second way to reach her, not her old address.
        return True
    if key == "phone" and any(_extension_only(r.value) for r in [*cluster, *current]):
        return True  # an extension is held beside a full number, never an old one of it
    if key == "role":
        return not any(r.doc_date for r in [*cluster, *current])
    return key in _REACH_KEYS and bool({r.source for r in cluster} & {r.source for r in current})


def _spells_owner(rows: list[Row]) -> bool:
    """Whether the address of these rows is written from the name of the person it is given to."""
    from chatapp.knowledge.extraction.people import address_spells_name

    return any(address_spells_name(r.value.split("@")[0], r.subject) for r in rows)


def _authority(row: Row) -> float:
    return row.confidence + (0.2 if row.method == "change" else 0.0)


def _same_value(a: str, b: str) -> bool:
    na, nb = normal_value(a), normal_value(b)
    return na == nb or (value_shape(a) == value_shape(b) == "text" and (
        na in nb or nb in na or _initials_for(a, b) or _initials_for(b, a)))


def _initials_for(short: str, long: str) -> bool:
    """ "CTO" for "Chief Technology Officer", "CEO" for "Chief Executive Officer & Co-founder": a word in
    capitals that is the first letters of the other value's leading words."""
    short = short.strip()
    if not re.fullmatch(r"[A-Z]{2,6}", short):
        return False
    letters = [w[0].upper() for w in re.findall(r"[^\W\d_][\w'’-]*", long) if w.lower() not in ("of", "the", "and", "for")]
    return len(letters) > len(short) - 1 and "".join(letters[:len(short)]) == short and len(letters) >= 2


# An initial standing for a name word: "K.", "R", "K.R." (as in "K. R. Lalitha", "Subramaniam R").
_INITIAL_WORD = re.compile(r"(?<!\S)(?:[A-Z]\.){1,3}(?!\S)|(?<!\S)[A-Z](?!\S)")


def _entity(entity_id: str, group: _Group, name_to_id: dict[str, str]) -> tuple[Entity, list[dict]]:
    name = _canonical(group)
    aliases = [n for n in group.names if n != name] + sorted(group.aliases - {name})
    if group.type == "person":
        # First names of every spelling ("Rob" from a header's "Rob Ellison" too), and the surname.
        aliases += [variant.split()[0] for variant in group.names if len(variant.split()) > 1]
        surname = name.split()[-1]
        if not is_common(surname, 4.0):
            aliases.append(surname)
        # "K. R. Lalitha", "Subramaniam R": the name words, not the initials, are what people call them.
        aliases += [w for variant in group.names if _INITIAL_WORD.search(variant)
                    for w in variant.split() if not _INITIAL_WORD.fullmatch(w)]
        aliases = [a for a in aliases if not _INITIAL_WORD.fullmatch(a)]
    elif group.type == "project" and (short := _without_its_kind(name)):
        aliases.append(short)  # "Harbour Road Bridge 7" for "Harbour Road Bridge 7 Renewal"
    by_key: dict[str, list[Row]] = defaultdict(list)
    for row in group.rows:
        if row.key not in (MENTION, ALIAS):
            by_key[row.key].append(row)
    _extensions_apart(by_key)
    _mobiles_apart(by_key)
    attributes: dict[str, str] = {}
    history: list[dict] = []
    for key, rows in by_key.items():
        # Newest document first; among one date (or none), a stated change before what it changes,
        # then the surer reading.
        rows.sort(key=lambda r: (r.doc_date or "", r.method == "change", r.confidence), reverse=True)
        clusters: list[list[Row]] = []
        for row in rows:
            for cluster in clusters:
                if _same_value(cluster[0].value, row.value):
                    cluster.append(row)
                    break
            else:
                clusters.append([row])
        # The current value is the newest among those as sure as the surest: a sign-off's guessed
        # team does not replace the directory's, while a newer directory or a stated change does.
        top = max(_authority(r) for r in rows)
        current = next(c for c in clusters if max(_authority(r) for r in c) >= top - 0.1)
        current = _dialable_first(key, clusters, current)
        current = _own_address_first(key, clusters, current, top)
        clusters.remove(current)
        clusters.insert(0, current)
        current_date = max(r.doc_date or "" for r in current)
        for n, cluster in enumerate(clusters):
            # An older value is superseded; a newer one that lost on authority (a signature's guess
            # against the directory) is only "disputed": nothing says it was ever the value; a second
            # phone or address from the current value's own document, or an undated second role, is
            # held "also".
            status = "current" if n == 0 else "also" if _held_too(key, cluster, current) else (
                "superseded" if max(r.doc_date or "" for r in cluster) < current_date or not current_date
                else "disputed")
            # One value of a cluster stands for it: the surest, then the fullest.
            best = max(cluster, key=lambda r: (r.confidence, len(r.value)))
            value = best.value
            # "Counsel: Declan Ó Ceallaigh SC" is the "Declan O Ceallaigh" a mail header gives.
            # A table row's cell holding a person's whole name ("driver: Edson Prestes Lacerda" in a list of
            # bus routes) is that person too, whatever its column is called.
            named_in_row = best.method == "record" and group.type != "person" and len(value.split()) >= 2
            if (_PERSON_VALUE_KEYS.search(key) or named_in_row) and (target := name_to_id.get(_norm(value)) or name_to_id.get(
                    _norm(strip_accents(clean_name(value))))):
                value = target
            if n == 0:
                attributes[key] = value
            for row in cluster:
                history.append({
                    "entity_id": entity_id, "key": key, "value": row.value if row is not best else value,
                    "status": status, "source": row.source,
                    "position": row.position, "doc_date": row.doc_date or None,
                    "confidence": row.confidence, "method": row.method,
                })
    description = ""
    if group.type == "person" and attributes.get("role"):
        # "Account Manager, Brindle Quarry Supplies": a contact at another firm is known by both.
        where = next((attributes[k] for k in ("department", "organisation", "organization", "company")
                      if attributes.get(k)), "")
        description = attributes["role"] + (f", {where}" if where else "")
    entity = Entity(
        id=entity_id,
        type=group.type,
        name=name,
        aliases=_distinct_spellings(name, aliases),
        description=description,
        attributes=attributes,
        prior=min(0.3 + 0.05 * len(group.documents), 0.7),
        source=sorted(group.documents)[0] if group.documents else "",
        origin="extracted",
    )
    return entity, history
