"""A value the sources give only as the one a stated change replaced.

A note says "the site visit has moved from 3 December to 10 December". An answer
that puts the visit on 3 December finds its date in the sources, so nothing
else calls it wrong; but the only place the sources give that date is the
"from" side of a change, which says it no longer holds. Such a value is out of
date, and the "to" side is what the answer should say.

superseded.py does the same for changes the ingest tied to a registry
attribute; this reads the change where the answer's evidence states it, so it
holds for a change nothing in the registry held the old value of, for retrieved
chunks and `check --evidence` files alike.
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from datetime import date

from chatapp.knowledge.extraction.fields import (
    CHANGE_TO_SIDE, CHANGED_FROM, CHANGED_THING_FROM, FRENCH_CHANGE_VERB, REVISED,
)
from chatapp.knowledge.extraction.values import real_day
from chatapp.knowledge.parsers.mail import opens_earlier_message
from chatapp.postprocess import values as V
from chatapp.postprocess.claims import AnswerAnalysis, ValueClaim
from chatapp.postprocess.evidence import TextIndex, is_stop, stem, words
from chatapp.postprocess.findings import Finding
from chatapp.postprocess.knowledge_view import COMPATIBLE_SHAPES, KnownValue
from chatapp.postprocess.superseded import PAST_MARKERS, precise, replacement_in_answer

# The sentence must share this many of its own words (not the value's) with the change, and at least
# this share of them: "the site visit is on 3 December" against "the site visit has moved from …".
MIN_SHARED_WORDS = 2
MIN_SHARED_SHARE = 0.5
CONFIDENCE = 0.85


# "The price is now $198,220 inc GST ($180,200.00 ex GST), up from $186,450": the value after "up
# from" is the old one, the new one is before it — a few qualifying words and a bracketed aside between.
_UP_FROM = re.compile(r"\b(?:up|down)\s+from\s+", re.IGNORECASE)


# "they now start on 25 January instead of 11 January", "£98 rather than £92", "on 9 May, not 2 May",
# "now C$61,400.00 + HST (down from $64,900)", "£1,200 (was £950)", "€ 398,500 (was € 412,800)", "revised our
# fee to £4,650 + VAT (from £4,200)": the value
# before the words replaces the one after them ("the award is $7,500, not the $9,000 we asked for"). A few words may qualify the new value first ("should be
# $385.00 incl. GST, not $358.00", "£420 + VAT rather than £380").
# Spanish says it so too: "el lunes 22 de febrero de 2027 (antes 15 de enero)", "en lugar del 15 de enero".
_INSTEAD_OF = re.compile(r"(?:\s+[^\W\d][\w.+/-]*|\s+\+){0,3}?"
                         r"(?:\s*,?\s*(?:instead\s+of|rather\s+than|en\s+(?:lugar|vez)\s+del?)\s+(?:the\s+)?"
                         r"|\s*,\s*not\s+(?:the\s+)?"
                         r"|\s*[(,]\s*(?:down|up)\s+from\s+"
                         r"|\s*\(\s*(?:was|previously|formerly|originally|from|antes|anteriormente|previamente)\s+(?:el\s+)?)",
                         re.IGNORECASE)
_INSTEAD_OF_WORDS = re.compile(r"instead of|rather than|en (?:lugar|vez) de|, not "
                               r"|\(\s*(?:was|previously|formerly|originally|from|antes|anteriormente|previamente) ",
                               re.IGNORECASE)


@functools.lru_cache(maxsize=20_000)  # asked of every supplied sentence for each value claim
def stated_changes(sentence: str) -> tuple[tuple[V.FoundValue, V.FoundValue], ...]:
    """(old, new) for each "moved from OLD to NEW" and "NEW instead of OLD" in a source sentence; a
    weekday written before a date ("from Monday 7 December") goes with the date."""
    lowered = sentence.lower()
    if "from" not in lowered and not _INSTEAD_OF_WORDS.search(lowered) and not _FRENCH_FROM.search(lowered):
        return ()
    matches = list(CHANGED_FROM.finditer(sentence)) + list(CHANGED_THING_FROM.finditer(sentence))
    if matches:
        # "Standard consult goes from $84.00 to $89.00 and after-hours consult from $155.00 to $165.00":
        # the verb is not said again for the second change it governs.
        first = min(m.end() for m in matches)
        matches += [m for m in _ANOTHER_FROM.finditer(sentence, first)]
    found = [f for f in V.find_values(sentence) if f.vtype != "weekday"]
    changes = []
    for new in found:
        instead = _INSTEAD_OF.match(sentence, new.span[1])
        old = _value_next(sentence, found, instead.end()) if instead else None
        if old is not None and _same_kind(old, new):
            changes.append((old, new))
    for match in _UP_FROM.finditer(sentence):
        old = _value_next(sentence, found, match.end())
        new = _value_qualified_before(found, sentence, match.start())
        if old is not None and new is not None and _same_kind(old, new):
            changes.append((old, new))
    for match in CHANGED_TO.finditer(sentence) if _THEN_FROM_WORDS.search(sentence) else ():
        # "the artist fee goes up to $2,800 per mural, from $2,500": the old side after the new one.
        new = _value_next(sentence, found, match.end())
        after = _THEN_FROM.match(sentence, new.span[1]) if new is not None else None
        old = _value_next(sentence, found, after.end()) if after else None
        if old is not None and _same_kind(old, new):
            changes.append((old, new))
    for match in matches:
        old = _value_next(sentence, found, match.end())
        if old is None:
            continue
        to = CHANGE_TO_SIDE.match(sentence[old.span[1]:])
        new = _value_next(sentence, found, old.span[1] + to.end()) if to else _value_before(found, sentence, match.start())
        if new is not None and _same_kind(old, new):
            changes.append((old, new))
    return tuple((_dated_like(old, new), new) for old, new in changes)


def _dated_like(old: V.FoundValue, new: V.FoundValue) -> V.FoundValue:
    """ "moves to Mar. 15, 2027 (was Feb. 19)", "moved from 28 December to 12 January 2027": an old day
    written without its year is the one nearest the new day it gave way to, so an answer giving it with
    its year ("due 2027/02/19") is the old day."""
    stated, anchor = old.parsed, new.parsed.as_date() if isinstance(new.parsed, V.DateValue) else None
    if (anchor is None or not isinstance(stated, V.DateValue) or stated.year
            or not (stated.month and stated.day) or stated.either_way):
        return old
    years = [year for year in (anchor.year - 1, anchor.year, anchor.year + 1)
             if real_day(year, stated.month, stated.day)]
    if not years:
        return old
    year = min(years, key=lambda y: abs((date(y, stated.month, stated.day) - anchor).days))
    return replace(old, parsed=replace(stated, year=year))


# ", from $2,500" after the new value of a "goes up to" (a few words of its unit between); "goes up to
# ₦53.2m (N53,200,000.00) from ₦48.5m": the same value written again in brackets, and no comma, before it.
_THEN_FROM = re.compile(r"(?:\s+[^\W\d][\w.+/-]*){0,3}?(?:\s*\([^()]*\))?\s*,?\s*from\s+", re.IGNORECASE)
_THEN_FROM_WORDS = re.compile(r"\bfrom\s", re.IGNORECASE)
# A later "… and X from A to B" in a sentence whose verb of change came before.
_ANOTHER_FROM = re.compile(r"\band\s+(?:[\w'’-]+\s+){0,4}?from\s+", re.IGNORECASE)


def _value_before(found: list[V.FoundValue], text: str, end: int) -> V.FoundValue | None:
    """The value just before a change with no "to" side: "Start: 17 February 2027 (moved from 3 February)"
    gives the new value first, and only a bracket or a comma between it and "moved"."""
    before = [value for value in found if value.span[1] <= end]
    if before and re.fullmatch(r"[\s,;(–—-]*", text[before[-1].span[1]:end]):
        return before[-1]
    return None


def _value_qualified_before(found: list[V.FoundValue], text: str, end: int) -> V.FoundValue | None:
    """The last value before `end` with at most three words ("inc GST") and bracketed asides
    between: "$198,220 inc GST ($180,200.00 ex GST), up from …" gives $198,220."""
    for value in reversed([v for v in found if v.span[1] <= end]):
        between = re.sub(r"\([^()]*\)", " ", text[value.span[1]:end])
        if "(" in between or ")" in between:
            continue  # inside the bracketed aside
        if re.fullmatch(r"[\s,;–—-]*(?:[^\W\d][\w.+/-]*[\s,;–—-]*){0,3}", between):
            return value
        return None
    return None


# "has extended the deadline to 11 December", "I have reduced our ask to £22,800": a change that says only
# what the value is now; the value it replaced is whatever an older document gave.
# "installation moves to Monday, January 25": the present tense tells the same change.
_CHANGE_VERBS = (r"move[sd]|change[sd]|extend(?:s|ed)|postpone[sd]|push(?:es|ed)(?:\s+back)?|"
                 r"(?:brought|brings)\s+forward|reschedule[sd]|delay(?:s|ed)|reduce[sd]|increase[sd]|raise[sd]|cut|"
                 r"lower(?:s|ed)|revise[sd]|update[sd]|shift(?:s|ed)|slip(?:s|ped)|bump(?:s|ed)?|hike[sd]?|"
                 # "the artist fee goes up to $2,800 per mural, from $2,500"
                 r"go(?:es)?\s+(?:up|down)|went\s+(?:up|down)|rises|rose|drops|dropped")
# French: "le festival est donc reporté au samedi 5 juin 2027", "le cachet passe à 2 800 $".
CHANGED_TO = re.compile(rf"\b(?:{_CHANGE_VERBS})\b[^.;:!?]{{0,60}}?\bto\s+"
                        rf"|\b(?:{FRENCH_CHANGE_VERB})\b[^.;:!?]{{0,60}}?\s(?:à|au|aux)\s+", re.IGNORECASE)
_CHANGE_WORD = re.compile(rf"\b(?:{_CHANGE_VERBS}|now|{FRENCH_CHANGE_VERB}|désormais)\b", re.IGNORECASE)
_FRENCH_FROM = re.compile(r"\b(?:de|du)\s+\d")
# Where the clause naming what changed begins: "their crew is booked that week, so installation moves to …".
_CLAUSE_START = re.compile(r"[,;:()]|\b(?:so|and|but|then|which|that|because)\b", re.IGNORECASE)
# "asked us to hold the planning submission until 15 January": what waits until a day now happens then —
# in place of a day the sources gave it before (without one, "until" may only bound a wait).
HELD_UNTIL = re.compile(
    r"\b(?:hold|holding|held|postpone|postponing|delay|delaying|defer|deferring|deferred|put\s+off|"
    r"putting\s+off)\b[^.;:!?]{0,60}?\b(?:until|till)\s+",
    re.IGNORECASE,
)


# "Revised price: $180,200.00 ex GST, $198,220.00 inc GST": a label saying its values are the new ones.
# Each value of the clause is one (qualifier_agrees picks the one said the answer's way).
_REVISED_LABEL = re.compile(r"\b(?:revised|new|updated|amended)\s+(?:[\w/&-]+\s+){0,3}?[\w/&-]+\s*:\s*",
                            re.IGNORECASE)


# "The show will now open on Saturday, March 20", "the fee is now $950": the value that holds from now
# on is the first one after "now" in its clause. Not "until now", "by now", "now that …"; and the clause ends
# at a conjunction: in "40% invoiced now and 60% at go-live" "now" tells when, and 60% is another part.
NOW_HOLDS = re.compile(r"(?<!\buntil )(?<!\bby )(?<!\bfor )\bnow\b(?!\s+that\b)"
                       r"(?P<clause>(?:(?!\b(?:and|but|or|while|whereas)\b)[^.;:!?]){0,80})", re.IGNORECASE)


# "T1 samples: 2027/01/18 (one week later than before)", "Delivery: 9 March (delayed)": a bracket right
# after a value saying it moved makes it the new one.
_MOVED_NOTE = re.compile(
    r"\s*\((?:[^()]{0,30}?\b(?:later|earlier|sooner)\s+than\s+(?:before|planned|originally|previously|scheduled|"
    r"first\s+planned)|(?:delayed|moved|postponed|slipped|rescheduled|pushed\s+back|brought\s+forward)\b[^()]{0,30}?)\)",
    re.IGNORECASE)


@functools.lru_cache(maxsize=20_000)  # asked of every supplied sentence for each value claim
def stated_new_values(sentence: str) -> tuple[V.FoundValue, ...]:
    """The values a source sentence says something was changed to, with no "from" side ("extended the
    deadline to 11 December", "will now open on 20 March", "2027/01/18 (one week later than before)")."""
    lowered = sentence.lower()
    matches = list(CHANGED_TO.finditer(sentence)) if re.search(r" (?:to|à|au|aux) ", lowered) else []
    matches += list(REVISED.finditer(sentence)) + list(_REVISED_LABEL.finditer(sentence))
    nows = list(NOW_HOLDS.finditer(sentence)) if "now" in lowered else []
    news = _values_after(sentence, matches, nows)
    if "(" in sentence:
        found = [f for f in V.find_values(sentence) if f.vtype != "weekday"]
        news += [f for f in found if _MOVED_NOTE.match(sentence, f.span[1]) and f.span not in {n.span for n in news}]
    return tuple(news)


@functools.lru_cache(maxsize=20_000)  # asked of every supplied sentence for each value claim
def held_until_values(sentence: str) -> tuple[V.FoundValue, ...]:
    """The days a source sentence says something is held until ("hold the submission until 15 January")."""
    return tuple(_values_after(sentence, list(HELD_UNTIL.finditer(sentence)) if "til" in sentence.lower() else [], []))


# Words that put the value after them on the old side of a change.
_OLD_SIDE_WORDS = re.compile(r"\b(?:was|were|previously|formerly|originally|from|instead\s+of|rather\s+than|not)\b",
                             re.IGNORECASE)


def _values_after(sentence: str, matches: list[re.Match], nows: list[re.Match]) -> list[V.FoundValue]:
    """The value right after each match, and the first value in each "now" clause."""
    if not matches and not nows:
        return []
    found = [f for f in V.find_values(sentence) if f.vtype != "weekday"]
    news = [new for match in matches if (new := _value_next(sentence, found, match.end()))]
    for match in matches:
        if match.re is _REVISED_LABEL and (first := _value_next(sentence, found, match.end())):
            # "Revised price: $180,200.00 ex GST, $198,220.00 inc GST": the same value said two ways.
            # Not the old value the label's line gives beside it: "New price: € 398,500 net (was € 412,800)".
            news += [f for f in found if f.span[0] > first.span[0] and f.vtype == first.vtype
                     and re.fullmatch(r"[^.;:!?]*", gap := sentence[first.span[1]:f.span[0]])
                     and not _OLD_SIDE_WORDS.search(gap)]
    for match in nows:
        # The first value of each kind: "rolled, now Wan Hai 305 ETD 8 Dec 2026" names the new vessel's
        # number first and the new date after it.
        kinds: dict[str, V.FoundValue] = {}
        for f in found:
            if match.start("clause") <= f.span[0] < match.end("clause"):
                kinds.setdefault(f.vtype, f)
        news += list(kinds.values())
    return list({new.span: new for new in news}.values())


def _distinctive(value: V.FoundValue) -> bool:
    """A value few other things share: an amount of four figures or more, a date with its day and year."""
    if value.vtype == "amount":
        # "JPY 38.6M" (was "JPY 38,600,000") is as distinctive as the figure it shortens.
        scaled = re.search(r"\d\s*(?:k|m|mn|bn|million|billion|thousand)\b", value.text, re.IGNORECASE)
        return sum(c.isdigit() for c in value.text.split(".")[0]) >= 4 or bool(
            scaled and sum(c.isdigit() for c in value.text) >= 3)
    return value.vtype == "date" and value.parsed.day is not None and value.parsed.year is not None


def _thing_changed(text: str, new: V.FoundValue) -> frozenset[str]:
    """The words naming what a "changed to" sentence changes, as stems: "installation" in "… so installation
    moves to Monday, January 25", "final price" in "the final price is now C$61,400.00"."""
    verbs = list(_CHANGE_WORD.finditer(text, 0, new.span[0]))
    if verbs:
        clause = _CLAUSE_START.split(text[:verbs[-1].start()])[-1]
    elif label := re.fullmatch(r"[\s>*•-]*([^:;,.]{1,40}):\s*", text[:new.span[0]]):
        clause = label.group(1)  # "T1 samples: 2027/01/18 (one week later than before)"
    else:
        return frozenset()
    return frozenset(stem(w) for w in words(clause) if w.isalpha() and not is_stop(w))


# Words after a change's old value saying what it still is: "the $9,000 we asked for", "the £950 quoted in March".
_KEPT_AS = re.compile(r"\s+(?:(?:that|which)\s+)?(?:we|you|they|I|he|she|the\s+[a-z]+)\s+(?:had\s+|have\s+|has\s+)?"
                      r"[a-z]+ed\b|\s+[a-z]+ed\s+(?:for|by|in|at|on)\b", re.IGNORECASE)


def _new_sides_words(text: str, new: V.FoundValue) -> set[str]:
    """The content words of the clause before a change's new value, as stems: "award" in "Note the award
    is $7,500, not …"."""
    clause = _CLAUSE_START.split(text[:new.span[0]])[-1]
    return {stem(w) for w in words(clause) if w.isalpha() and not is_stop(w)}


def _said_just_before(vc: ValueClaim, analysis: AnswerAnalysis) -> set[str]:
    """The answer's words between the value before the claim's in its sentence (or the sentence's start)
    and the claim's value, as stems: "installed at the clinic on" before "January 11, 2027"."""
    begin = max([o.value.span[1] for o in analysis.values if o.sentence == vc.sentence
                 and o.value.span[1] <= vc.value.span[0]], default=analysis.sentences[vc.sentence].claim.span[0])
    return {stem(w) for w in words(analysis.text[begin:vc.value.span[0]])}


def replaced_value_finding(vc: ValueClaim, analysis: AnswerAnalysis, supplied: TextIndex,
                           dates: tuple[str | None, ...] = ()) -> Finding | None:
    """A finding when the claim's value is the old side of a change its sources state about what the
    claim's sentence is about, and the answer does not tell the change itself; else None. `dates`: each
    supplied text's date (ISO, or None), which lets a later "changed to" replace a value an older text
    gives."""
    value = vc.value
    if not precise(value) or supplied.empty:
        return None
    sentence = analysis.sentences[vc.sentence]
    if sentence.mode in ("meta", "question") or PAST_MARKERS.search(sentence.claim.text):
        return None
    # The sentence's words but the value's own ("C$64,900.00" is one word to the parse, four to `words`).
    own = {w for w in sentence.stems - {stem(w) for w in words(vc.claim.text)}
           if not (any(c.isdigit() for c in w) and w in vc.claim.text.lower())}
    just_before: set[str] | None = None
    # The new values (start, end, source) whose change names what the answer says just before its value.
    tied: set[tuple[int, int, int]] = set()
    if len(own) < MIN_SHARED_WORDS:
        return None
    best: tuple[tuple[float, float], str, V.FoundValue, str | None, bool] | None = None
    stated_on: str | None | bool = False  # not looked up yet: most sources state no change
    before: tuple[set[str], int] = (set(), -1)  # the sentence before, in the same text
    opening: tuple[set[str], int] = (set(), -1)  # each text's first sentence (a retrieved chunk's title)
    heading: tuple[set[str], int] = (set(), -1)  # and the last heading-like line before this sentence
    sentences = supplied.sentences
    for n, (text, stems, source) in enumerate(sentences):
        if opening[1] != source:
            opening = heading = (stems, source)
        elif _heading_like(text):
            heading = (stems, source)
        previous, before = (before[0] if before[1] == source else set()), (stems, source)
        changes = list(stated_changes(text))
        changes += _twin_changes(changes, text, value, sentences)
        # "C$71,200.00 + HST (down from $76,900)": a change naming a figure or a full date as its old side
        # says that very value no longer holds; a few words shared with the answer tie it to the same thing.
        named_old = {new.span for old, new in changes if _says(old, value) and _distinctive(old)}
        written = dates[source] if source < len(dates) else None
        # "revised from KSh 12,000 to KSh 13,500": a change naming its old side replaced that value only,
        # not the green-season rate beside it.
        replaced_another = {new.span for old, new in changes if not _says(old, value)}
        stated_new = stated_new_values(text)
        # "installation now starts on 4 January and commissioning moves to 2 February": the answer's value is
        # itself one of the sentence's new values, so no other new value of it replaces the answer's.
        news = [] if any(_says(new, value) for new in stated_new) else [
            new for new in stated_new if _same_kind(value, new)
            and qualifier_agrees(text, new, analysis.text, value) and new.span not in replaced_another
            and not _other_rate(analysis.text, value, text, new)]
        held = [new for new in held_until_values(text) if _same_kind(value, new) and not _says(new, value)]
        if news and any(_says(old, value) and _OLD_SIDE.search(text[:old.span[0]]) for old in V.find_values(text)):
            # "was insured at $42,000.00 …; the new insurance value is $47,500": one sentence gives both sides.
            changes += [(value, new) for new in news]
        elif written and (news or held):
            if stated_on is False:
                stated_on = _last_stated(value, supplied, dates)
            # Written after every dated text that gives the answer's value: "changed to" says what holds
            # now. Where no dated text gives it, the change's own sentence must name something the
            # answer's does ("Start on site has moved to …" for "the works start on …"): a page's title
            # alone does not tie "the board met on 21 January" to it. A day something is held until
            # replaces only a day the sources gave it.
            if written[:10] > (stated_on or "") and (stated_on or own & stems):
                changes += [(value, new) for new in news]
                if stated_on is not None:
                    # "installed at the clinic on January 11" against "… so installation moves to January
                    # 25", where a page (undated, or dated before) gives January 11: what moved is what the
                    # answer dates.
                    just_before = _said_just_before(vc, analysis) if just_before is None else just_before
                    tied |= {new.span + (source,) for new in news
                             if (thing := _thing_changed(text, new)) and thing <= just_before}
                if stated_on is not None:
                    changes += [(value, new) for new in held]
        if changes:
            # "Kaskade have pushed the localisation back … The word count also went up from 86,000 to
            # 94,500", "… they now start on 25 January instead of 11 January. They still say three weeks
            # on site": what changed may be named in the sentences either side of the change, or in the
            # title of the page or mail it is in ("Orangery works - new start date", "Millbrook depot
            # works … Start: 9 May (moved from 2 May)").
            after = sentences[n + 1][1] if n + 1 < len(sentences) and sentences[n + 1][2] == source else set()
            context = stems | previous | after | opening[0] | heading[0]
        for old, new in changes:
            if not _says(old, value) or _says(new, value) or _says(value, new):
                continue  # the answer gives the new value, perhaps more fully ("11 May 2027" for "11 May")
            if _counted_otherwise(value, new, sentences):
                continue  # "R11 321 635,00" incl. VAT is the new "R9,84m" excl. VAT counted the other way
            if old is not value and _KEPT_AS.match(text, old.span[1]):
                # "the award is $7,500, not the $9,000 we asked for": the old figure still holds as what was
                # asked for, so it is out of date only said of what changed ("awarded $9,000"), not of the
                # request ("we requested $9,000").
                just_before = _said_just_before(vc, analysis) if just_before is None else just_before
                if not _new_sides_words(text, new) & just_before:
                    continue
            # The answer gives the new value too: it tells the change. A weekday alone gives no date
            # ("Saturday, February 13" is no telling of a change to Saturday, March 20).
            if any(_says(new, other.value) for other in analysis.values
                   if other is not vc and other.value.vtype != "weekday"):
                return None
            shared = len(own & context)
            # A rate counts only where the change names the answer's very figure as its old side: "parking goes
            # up to $5 per hour" says nothing of a wage the answer gives per hour.
            # A change naming the answer's very figure or full date as its old side needs only one word of
            # the answer's in its context: "quoted ¥38,600,000 for the die set and fixtures" against "rev.1:
            # JPY 36.9M (was JPY 38.6M)" in a mail about the fixture change. It is about the same thing, and
            # so outranks a later note's rounded "contract sum now R15,37m" that names no old side.
            named = new.span in named_old
            same_thing = (new.span + (source,) in tied or (old is not value and _same_rate(analysis.text, value, text, new))
                          or (named and shared >= MIN_SHARED_WORDS))
            closeness = 1.0 + shared / len(own) if same_thing else shared / len(own)
            share_needed = 0.0 if named else MIN_SHARED_SHARE
            if closeness < 1.0 and (shared < (1 if named else MIN_SHARED_WORDS) or shared / len(own) < share_needed):
                continue
            # Of changes as close with their context, the one whose own sentence says more of the answer.
            rank = (closeness, len(own & stems) / len(own))
            if best is None or rank > best[0]:
                # `old is value`: the change says only the new value, the answer's was never stated.
                best = (rank, text, new, written, old is not value)
    if best is None:
        return None
    _, text, new, written, old_stated = best
    parsed = with_its_year(new.parsed, written, value.parsed)
    span, replacement = replacement_in_answer(vc, analysis, new.text, parsed)
    # A value no source gives is no old value, only a wrong one ("€ 389,500" for the new € 398,500); one
    # a change gives as its old side ("(was ₹74,900)") is out of date.
    kind = "ContradictsFact" if stated_on is None and not old_stated else "TemporalError"
    return Finding(kind, vc.claim.span, vc.claim.text, CONFIDENCE, new.text,
                   [f"the sources state a change to {new.text}: {text}"], vc.sentence, span, replacement,
                   major=True)


# The words that say which way an amount is counted: "$198,220 inc GST", "£420 + VAT", "€9,800 excl. VAT".
_QUALIFIER = re.compile(r"\s*(?:\(\s*)?(?P<q>(?:inc|incl|including|inclusive|ex|excl|excluding|exclusive|plus|\+|net|gross)\b\.?)",
                        re.IGNORECASE)


def qualifier_agrees(text: str, value: V.FoundValue, answer: str, said: V.FoundValue) -> bool:
    """Whether a value in `text` is counted the way the answer's value is: "$180,200.00 ex GST" is no
    new value for "$186,450 inc GST" where "$198,220.00 inc GST" is. A value with no such word agrees."""
    mine, theirs = _QUALIFIER.match(answer, said.span[1]), _QUALIFIER.match(text, value.span[1])
    if mine is None or theirs is None:
        return True
    return _inclusive(mine.group("q")) == _inclusive(theirs.group("q"))


def _inclusive(word: str) -> bool:
    return word.lower().rstrip(".") in ("inc", "incl", "including", "inclusive", "gross")  # "+ VAT" is on top


def with_its_year(parsed, written: str | None, old):
    """ "Wed 16 Dec" in a mail of 25 November 2026 is 16 December 2026: when the answer's old day has a
    year, a new day written without one takes the year the mail's date (else the old day) puts it in — the year of the
    nearest such day not long before, and one whose weekday agrees when the mail gives a weekday."""
    if not isinstance(parsed, V.DateValue) or parsed.year or not (parsed.month and parsed.day):
        return parsed
    if not (isinstance(old, V.DateValue) and old.year):
        return parsed  # the answer wrote no year either: the correction needs none
    anchor = None
    if written:
        try:
            anchor = date.fromisoformat(written[:10])
        except ValueError:
            anchor = None
    if anchor is None and isinstance(old, V.DateValue):
        anchor = old.as_date()
    if anchor is None:
        return parsed
    for year in (anchor.year, anchor.year + 1, anchor.year - 1):
        candidate = replace(parsed, year=year)
        day = candidate.as_date() if real_day(year, parsed.month, parsed.day) else None
        if day is None or (day - anchor).days < -90:
            continue
        if parsed.weekday is None or day.weekday() == parsed.weekday:
            return candidate
    return parsed


# What an amount is paid for: "$2,800 per mural", "£40 an hour", "€95/night".
_RATE = re.compile(r"\s*(?:(?:per|an?|each)\s+|/\s*)([^\W\d][\w-]*)", re.IGNORECASE)


def _same_rate(answer: str, value: V.FoundValue, text: str, new: V.FoundValue) -> bool:
    """ "2 500 $ per mural" in the answer and "goes up to $2,800 per mural" in a change: amounts of one
    rate, paid for the same thing, so the change is about what the answer says however else it words it."""
    if value.vtype != "amount" or new.vtype != "amount":
        return False
    mine, theirs = _RATE.match(answer, value.span[1]), _RATE.match(text, new.span[1])
    return bool(mine and theirs) and stem(mine.group(1)) == stem(theirs.group(1))


def _other_rate(answer: str, value: V.FoundValue, text: str, new: V.FoundValue) -> bool:
    """ "the helium price goes up to 24,50 € per litre" is a new price per litre, no new value for the
    year's "planned €38,000" the answer gives without saying per what."""
    if value.vtype != "amount" or new.vtype != "amount":
        return False
    return _RATE.match(text, new.span[1]) is not None and not _same_rate(answer, value, text, new)


def _heading_like(text: str) -> bool:
    """A section's heading as the sources' sentences keep it: a few words with no closing stop."""
    return len(words(text)) <= 6 and not text.rstrip().endswith((".", "!", "?", ":", ","))


def _last_stated(value: V.FoundValue, supplied: TextIndex, dates: tuple[str | None, ...]) -> str | None:
    """The latest date (YYYY-MM-DD) of the dated texts that state `value`; "" when only undated texts
    do, None when no text does. An undated text (a project page, a price list) is the standing record
    a dated "changed to" mail updates."""
    written_as = {found.text.lower() for found in supplied.found_values if _says(found, value)}
    # A text dated the answer's day gives it too: "the meeting on 21 January" over that day's minutes.
    dated = [d[:10] for d in dates if d and value.vtype == "date" and V.is_day(value.parsed, d)]
    undated = False
    quoting: tuple[int, str | None] = (-1, None)  # (the source, the date of the earlier message it quotes)
    for text, _, source in supplied.sentences:
        if opens_earlier_message(text):
            quoting = (source, _day_in(text))
            continue
        if not any(form in text.lower() for form in written_as) or CALLED_OFF.search(text):
            continue  # "the February 13 date is cancelled" gives the value only to say it no longer holds
        if any(not _says(new, value) for new in stated_new_values(text)) or any(
                _says(old, value) for old, _ in stated_changes(text)):
            continue  # "booked the week of Jan. 11, so installation moves to January 25" names it to replace it
        written = dates[source] if source < len(dates) else None
        if text.lstrip().startswith(">") or quoting[0] == source:
            # A reply's quote of the message it answers was written then, not on the reply's date: "the
            # revised rate of ₹72,400" above "> they have quoted ₹74,900" replaces the quoted price.
            written = quoting[1] if quoting[0] == source else None
        if written:
            dated.append(written[:10])
        else:
            undated = True
    return max(dated) if dated else ("" if undated else None)


def _day_in(line: str) -> str | None:
    """The day (YYYY-MM-DD) a quoted message's "On Fri, 27 Nov 2026 at 16:20, … wrote:" line gives, if any."""
    for found in V.find_values(line):
        if found.vtype == "date" and isinstance(found.parsed, V.DateValue) and (day := found.parsed.as_date()):
            return day.isoformat()
    return None


# Words just before a value that put it in the past: "was insured at $42,000", "originally 4 May".
_OLD_SIDE = re.compile(r"\b(?:was|were|had been|previously|originally|formerly)(?:\s+[\w'’-]+){0,3}\s+$", re.IGNORECASE)
# A sentence that gives a value only to call it off.
CALLED_OFF = re.compile(r"\b(?:cancell?ed|called off|scrapped|withdrawn|no longer|superseded|replaced)\b", re.IGNORECASE)


# "R15 372 400,00 excl. VAT (R17 678 260,00 incl. VAT)": the same sum counted the other way, in brackets
# after the first and its qualifier.
_TWIN_OPENS = re.compile(r"(?:\s*[^\W\d][\w.]*){0,3}\s*\(\s*")
_TWIN_SAYS_HOW = re.compile(r"\b(?:incl|including|inclusive|inc|excl|excluding|exclusive|ex|vat|gst|hst|tax)\b",
                            re.IGNORECASE)


def _twin(text: str, amount: V.FoundValue) -> V.FoundValue | None:
    """The amount in brackets just after `amount` that says how it is counted ("(R17 678 260,00 incl.
    VAT)"), or None."""
    if amount.vtype != "amount":
        return None
    opening = _TWIN_OPENS.match(text, amount.span[1])
    if not opening:
        return None
    closing = text.find(")", opening.end())
    inside = text[opening.end():closing if closing > 0 else len(text)]
    found = [f for f in V.find_values(text) if f.span[0] == opening.end() and f.vtype == "amount"]
    return found[0] if found and _TWIN_SAYS_HOW.search(inside) else None


def _counted_otherwise(value: V.FoundValue, new: V.FoundValue, sentences) -> bool:
    """Whether a source gives the answer's amount as the bracketed twin of the new amount (or of the figure
    it rounds): "R9 844 900,00 excl. VAT (R11 321 635,00 incl. VAT)" for a note's "Contract sum now R9,84m"."""
    if value.vtype != "amount" or new.vtype != "amount" or not isinstance(new.parsed, float):
        return False
    for other, _, _ in sentences:
        for stated in V.find_values(other):
            if (stated.vtype == "amount" and isinstance(stated.parsed, float)
                    and abs(stated.parsed - new.parsed) <= 0.005 * max(stated.parsed, new.parsed)
                    and (twin := _twin(other, stated)) is not None and _says(twin, value)):
                return True
    return False


def _twin_changes(changes, text: str, value: V.FoundValue, sentences) -> list[tuple[V.FoundValue, V.FoundValue]]:
    """(old twin, new twin) where a change's new amount has its other-way twin in brackets and a source
    gives the old amount with a twin that is the answer's value: "takes the contract sum from R14 850 000,00
    to R15 372 400,00 excl. VAT (R17 678 260,00 incl. VAT)" against a page's "R14 850 000,00 excl. VAT
    (R17 077 500,00 incl. VAT)" makes the answer's "R17 077 500,00" out of date too."""
    found = []
    for old, new in changes:
        new_twin = _twin(text, new) if old.vtype == "amount" and not _says(old, value) else None
        if new_twin is None or _says(new_twin, value):
            continue
        for other, _, _ in sentences:
            for stated in V.find_values(other):
                if stated.vtype == "amount" and _says(stated, old) and (old_twin := _twin(other, stated)) is not None \
                        and _says(old_twin, value):
                    found.append((old_twin, new_twin))
    return found[:1]


def _value_next(text: str, found: list[V.FoundValue], start: int) -> V.FoundValue | None:
    """The value that opens text[start:], a weekday before it aside."""
    for value in found:
        if value.span[0] >= start:
            gap = text[start:value.span[0]]
            gap_words = [w for w in words(gap) if not is_stop(w)]
            if gap.strip(" ,") == "" or (len(gap_words) == 1 and V.find_values(gap.strip(" ,"))):
                return value
            return None
    return None


def _same_kind(old: V.FoundValue, new: V.FoundValue) -> bool:
    if old.vtype == new.vtype == "amount" and not V.same_currency(V.currency(old.text), V.currency(new.text)):
        return False  # a resident rate in shillings changed says nothing of the dollar rate beside it
    return old.vtype == new.vtype or new.vtype in COMPATIBLE_SHAPES.get(old.vtype, ())


def _says(stated: V.FoundValue, value: V.FoundValue) -> bool:
    """Does the answer's value say the stated one (a date said less precisely counts)?"""
    return KnownValue("", stated.text, stated.vtype, stated.parsed).matches(value)
