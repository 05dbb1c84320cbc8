"""Fact validation: each claim of the answer verified, contradicted or left
unverifiable, against the registry (entity attributes and the fact store),
the supplied sources (evidence texts and retrieved chunks) and what the
assistant said earlier in the conversation.

Problems found on the way are returned as Findings; hallucination.py turns
them into flags. A claim is only called unsupported when it is *in scope*:
sources were supplied for this answer, or the sentence is about an entity the
knowledge base knows. An answer about the weather, with nothing to check it
against, is left alone rather than littered with doubts.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace

from chatapp.knowledge.extraction.fields import CHANGE_STATED
from chatapp.knowledge.extraction.observations import LABEL_SYNONYMS, key_for_label
from chatapp.postprocess import values as V
from chatapp.postprocess.claims import AnswerAnalysis, NameClaim, SentenceInfo, ValueClaim, label_words
from chatapp.postprocess.evidence import is_stop, stem, text_index, words
from chatapp.postprocess.knowledge_view import COMPATIBLE_SHAPES, PROFILE_KEYS, KnowledgeView, KnownValue
from chatapp.postprocess.findings import STATUS_SCORE, Finding, Sources
from chatapp.postprocess.person_changes import person_changes
from chatapp.postprocess.person_swaps import person_swaps
from chatapp.postprocess.role_holders import role_swaps, written_beside
from chatapp.postprocess.relations import first_word, profile_finding, relation_finding, relation_mismatches
from chatapp.postprocess.slots import dimension, same_kind, slot_value, value_group
from chatapp.postprocess.stance import attributed
from chatapp.postprocess.stated_changes import qualifier_agrees, replaced_value_finding, stated_new_values
from chatapp.postprocess.superseded import KIND_WORDS, key_parts, key_said, replacement_in_answer, superseded_finding
from chatapp.postprocess.statements import in_title
from chatapp.postprocess.value_pairs import CONFIDENCE as VALUE_PAIR_CONFIDENCE, swapped_value
from chatapp.records import CheckStatus, ClaimCheck, ClaimSupport, FactualValidationResult

# A value the sources state of something else (_stated_apart): the claim must share this many words with
# the source sentence most like it, and this share of its words; a sentence that states the value and
# shares more than this part of that share could be the one the claim means.
MOVED_MIN_WORDS = 3
MOVED_MIN_OVERLAP = 0.75
MOVED_RIVAL_SHARE = 0.5
# A value contradicted by the sentence most like its claim, the two said of the same words either side:
# sure enough to correct (delivery.correct_at).
CORRECT_SAID_ALIKE = 0.8
_MEASURES = frozenset({"amount", "quantity", "number", "date", "time", "weekday", "year"})

PERSON_LIKE = frozenset({"PERSON", "ORG"})
# "€1.2m plus VAT" is the price before tax, not a sum the answer worked out.
# A "contract sum", "lump sum" or "tender sum" is a price a document states (NZS 3910 and the JCT write
# the contract's price so), not a total the answer worked out; nor is a "sum insured".
AGGREGATES = re.compile(r"\b(?:total|totals|totalling|totaling|(?<!contract )(?<!lump )(?<!tender )sum(?! insured)|combined|altogether|overall|in all|together|"
                        # "plus VAT", "plus 5 % expenses": a charge on top, no total worked out
                        r"plus(?!\s+(?:\d+(?:[.,]\d+)?\s*%\s+)?(?:VAT|GST|HST|tax|taxes|sales\s+tax|outlays|expenses|"
                        r"disbursements)\b))\b",
                        re.IGNORECASE)
# Values that identify whom they belong to; getting one wrong is a wrong attribute.
IDENTIFYING_SHAPES = frozenset({"email", "phone", "url"})


@dataclass
class ValidationSettings:
    flag_at: float = 0.5  # findings below this are doubts, not problems (kept equal to delivery's)
    certain_confidence: float = 0.92  # a contradiction about an entity identified beyond doubt
    uncertain_confidence: float = 0.62  # … about an entity named only by a shared or first name
    # Rare-word weight at which an unsupported sentence is flagged with the most confidence.
    full_missing_mass: float = 2.5
    # An amount one slip away from one the sources give is that amount mistyped when the passage
    # it is in shares this much of the sentence's words.
    near_miss_overlap: float = 0.5
    # … and for an amount with the same digits in another order, a likelier slip: the text it stands in need
    # only name a fifth of what the sentence is about (its firm or person: a mail under the sender's name,
    # written in another language).
    same_digits_overlap: float = 0.2
    # A value another the sources give in the same slot (slots.py) contradicts: sure enough to correct.
    slot_confidence: float = 0.9
    # A value the sources give only of something else, where the sentence most like the claim gives
    # another (_stated_apart): two findings agree, sure enough to correct.
    moved_value_confidence: float = 0.85


class FactValidator:
    def __init__(self, settings: ValidationSettings | None = None):
        self.settings = settings or ValidationSettings()

    def validate(self, analysis: AnswerAnalysis, sources: Sources, claim_support: list[ClaimSupport] = ()
                 ) -> tuple[FactualValidationResult, list[Finding], dict]:
        """Checks for every claim, the findings, and each claim's support score (0-1) by sentence.
        `claim_support`: the support model's verdict on each sentence (support.py), in order.

        The score is over claims in scope (about a known entity, or with sources supplied):
        verified count 1, unverifiable ½, contradicted 0; 1.0 when nothing is in scope."""
        checks: dict[int, ClaimCheck] = {}
        findings: list[Finding] = []
        in_scope_ids: set[int] = set()
        for vc in analysis.values:
            check, finding = self._check_value(vc, analysis, sources)
            checks[id(vc.claim)] = check
            if self._in_scope(analysis.sentences[vc.sentence], sources):
                in_scope_ids.add(id(vc.claim))
            if finding:
                findings.append(finding)
        for name in analysis.names:
            check, finding = self._check_name(name, analysis, sources)
            checks[id(name.claim)] = check
            if finding:
                findings.append(finding)
            if name.entity_ids or self._in_scope(analysis.sentences[name.sentence], sources):
                in_scope_ids.add(id(name.claim))
        # The supplied sources outrank the registry's role table: a sentence they state (quoted from
        # a document) is not rewritten because someone else holds a role of the same name.
        # Unless a newer document handed the role on: the page still naming the old holder is out of date.
        mismatches = [m for m in relation_mismatches(analysis, sources.view)
                      if (_held_before(m, sources.view)
                          or not _stated_by_sources(analysis.sentences[m.sentence], m.said.claim.text, sources,
                                                    m.entity_id))
                      and not _asked_of_the_person(m, sources)]
        replaced = {m.said.claim.span[0] for m in mismatches}
        # "The site safety lead is Tormod Galbraith" where no known person holds that role but a source writes
        # another name beside it: the name is what is wrong (role_swaps corrects it), not his own job title.
        swapped = [f.span for f in role_swaps(analysis, sources, [f.span for f in findings])]
        for link in analysis.profile_links:
            # Whoever is put in the wrong role gets replaced; their own profile is then beside the point.
            if link.span[0] in replaced or _role_written_beside(link, analysis.text, sources):
                continue
            finding = profile_finding(
                link, analysis.text, sources.view, self.settings.certain_confidence, self.settings.uncertain_confidence)
            if finding and finding.replacement is None and link.name_span is not None and any(
                    a < link.name_span[1] and link.name_span[0] < b for a, b in swapped):
                continue  # no known holder to name: the one the sources write beside the role is named instead
            if finding:
                findings.append(finding)
        for mismatch in mismatches:
            finding = relation_finding(mismatch, sources.view, self.settings.certain_confidence,
                                       self.settings.uncertain_confidence)
            checks[id(mismatch.said.claim)] = ClaimCheck(mismatch.said.claim, "contradicted", finding.confidence,
                                                         finding.evidence, finding.suggestion)
            findings.append(finding)
        # A source saying who holds the role from a day on (a handover) tells why the answer's person is
        # wrong more surely than a sentence naming someone else in their place: it speaks first.
        swaps = role_swaps(analysis, sources, [f.span for f in findings])
        swaps += person_changes(analysis, sources, [f.span for f in [*findings, *swaps]])
        for finding in swaps + person_swaps(analysis, sources, [f.span for f in [*findings, *swaps]]):
            for name in analysis.names:
                if name.claim.span == finding.span:
                    checks[id(name.claim)] = ClaimCheck(name.claim, "contradicted", finding.confidence,
                                                        finding.evidence, finding.suggestion)
            findings.append(finding)
        findings = _right_for_the_new_holder(findings, sources.view)
        support: dict[int, float] = {}
        by_sentence = {i: s for i, s in enumerate(claim_support)} if len(claim_support) == len(analysis.sentences) else {}
        for sentence in analysis.sentences:
            said = by_sentence.get(sentence.index)
            check, finding, score = self._check_sentence(sentence, analysis, sources, findings, checks, said)
            checks[id(sentence.claim)] = check
            if said is not None and said.claim:
                support[sentence.index] = score
            if self._in_scope(sentence, sources) and (score < 1.0 or check.status != "unverifiable"):
                in_scope_ids.add(id(sentence.claim))
            if finding:
                findings.append(finding)
        ordered = [checks[id(c)] for c in analysis.claims if id(c) in checks]
        result = FactualValidationResult(checks=ordered)
        for check in ordered:
            setattr(result, check.status, getattr(result, check.status) + 1)
        scored = [c for c in ordered if id(c.claim) in in_scope_ids]
        if scored:
            good = sum(STATUS_SCORE[c.status] for c in scored)
            result.score = round(good / len(scored), 3)
        return result, findings, support

    # --- values ----------------------------------------------------------------

    def _check_value(self, vc: ValueClaim, analysis: AnswerAnalysis, sources: Sources):
        claim, value = vc.claim, vc.value
        sentence = analysis.sentences[vc.sentence]
        if value.vtype == "relative" or (hasattr(value.parsed, "valid") and not value.parsed.valid):
            return ClaimCheck(claim, "unverifiable", 0.5), None  # temporal checks judge these
        if sentence.mode == "meta":
            return ClaimCheck(claim, "unverifiable", 0.5), None  # a notice or a citation claims nothing
        _adopt_loose_name(vc, sentence, analysis, sources.view)
        # A value a newer document replaced: the sources may still state it, but it is out of date.
        outdated = superseded_finding(vc, analysis, sources.view) or replaced_value_finding(
            vc, analysis, sources.supplied, sources.supplied_dates)
        if outdated is not None:
            return ClaimCheck(claim, "contradicted", outdated.confidence, outdated.evidence, outdated.suggestion), outdated
        if quoted := _quoted_around(vc, sentence, sources.supplied):
            # An offline answer's "From your documents:" line, a record quoted whole: what the document says
            # there is what it says, whatever the registry holds of a name beside it ("Approved by: …").
            return ClaimCheck(claim, "verified", 0.9, [quoted]), None
        registry = self._against_registry(vc, sentence, analysis, sources.view)
        if registry is None and (off_days := _off_their_days(vc, sentence, sources.view)) is not None:
            return off_days
        stated = sources.supplied.supports_value(value) or sources.records.supports_value(value)
        if registry is not None:
            status, known = registry
            label = f"{sources.view.name(claim.entity_id)}: {known.key} = {sources.view.display(known)}"
            if status == "verified":
                return ClaimCheck(claim, "verified", 0.95, [label]), None
            if (stated and _said_of(stated, claim.entity_id, sources.view)
                    and not _registered_to_another(vc, claim.entity_id, sources.view)
                    # the sources give her desk phone, not her mobile — unless they give it as her new number
                    # ("My new work line is 0913 440 7725, the 0813 one is now personal only")
                    and (known.key not in NARROWER_KEYS or _stated_as_new(stated, value))
                    and _record_key_of(stated, value) in (None, known.key)):
                # The sources say what the answer says, of the same subject: trust them over a stale record
                # — unless the registry holds it as someone else's, or a record gives it under another key
                # ("The Great Hall seats 120", where 120 is a booking's "guests: 120" in that room).
                return ClaimCheck(claim, "verified", 0.6, [stated, f"but the registry has {label}"]), None
            return self._registry_contradiction(vc, known, label, sources, analysis)
        if (stated and claim.entity_id and sentence.mode == "statement"
                and not _said_of(stated, claim.entity_id, sources.view)
                and len(own := _known_of_kind(vc, sources.view)) == 1
                and _record_key_of(stated, value) == own[0].key):
            # "St Aidan's Church gave £250": the sources give £250 only as another record's amount
            # ("donor: Anonymous; amount: £250"), and the registry holds one amount of St Aidan's own,
            # £650 — the value was read off the wrong row.
            label = f"{sources.view.name(claim.entity_id)}: {own[0].key} = {sources.view.display(own[0])}"
            return self._registry_contradiction(vc, own[0], label, sources, analysis)
        if stated and sentence.mode == "statement" and (swap := swapped_value(vc, sentence, sources.supplied)):
            # "Kerrow Motors quoted £3,980" against "Kerrow Motors £3,450 and Brightline Vans £3,980"
            name, own, listed_in = swap
            replacement = V.render_like(claim.text, value.vtype, own.text, own.parsed)
            finding = Finding("ContradictsFact", claim.span, claim.text, VALUE_PAIR_CONFIDENCE, own.text,
                              [f"the sources give {claim.text} to another name and {own.text} to {name}: {listed_in}"],
                              vc.sentence, claim.span, replacement, major=True)
            return ClaimCheck(claim, "contradicted", VALUE_PAIR_CONFIDENCE, finding.evidence, own.text), finding
        if stated:
            return self._stated_apart(vc, sentence, analysis, sources) or (
                ClaimCheck(claim, "verified", 0.85, [stated]), None)
        prior = self._against_prior(vc, sources)
        if prior is not None:
            return prior
        if sources.given.supports_value(value):
            return ClaimCheck(claim, "unverifiable", 0.5, ["stated by the user"]), None
        if not self._in_scope(sentence, sources):
            return ClaimCheck(claim, "unverifiable", 0.5), None
        # The sentence most like the claim speaks first: "costs £4,900" beside "Data migration from CaseBook
        # | £14,900" means £14,900, though another line's £4,200 is one digit away.
        contradiction = (self._against_slot(vc, sentence, analysis, sources)
                         or self._against_source_sentence(vc, sentence, analysis, sources)
                         or self._near_miss(vc, sentence, analysis, sources))
        if contradiction is not None:
            return contradiction
        if value.vtype == "date" and (dated := _document_dated(value.parsed, sources.supplied_dates)):
            # "At the Board meeting on 21 January 2027": the day a retrieved document (minutes, a mail)
            # is dated, though the passage below its header does not write it — nothing invented.
            return ClaimCheck(claim, "unverifiable", 0.5, [f"a retrieved document is dated {dated}"]), None
        where = "the supplied sources" if sources.grounded else "the knowledge base"
        confidence = 0.6 if value.vtype not in ("number", "year", "decade") else 0.5
        if sentence.mode != "statement" or (sources.grounded and not states_kind(sources, value)):
            # Asked or suggested, not asserted; or the sources give no value of this kind at all
            # (no date, no number), so they cannot tell this one wrong: a doubt, not a flag.
            confidence = 0.45
        finding = Finding("FabricatedFact", claim.span, claim.text, confidence,
                          None, [f"{claim.text!r} appears nowhere in {where}"], vc.sentence)
        return ClaimCheck(claim, "unverifiable", 0.4, finding.evidence), finding

    def _against_registry(self, vc: ValueClaim, sentence: SentenceInfo, analysis: AnswerAnalysis,
                          view: KnowledgeView) -> tuple[CheckStatus, KnownValue] | None:
        """('verified'|'contradicted', known value) when the registry can judge, else None. A value
        the registry does not hold is only contradicted by one it aligns with (aligned_known): the
        same kind of value of the same attribute of the same subject; else the registry cannot
        tell it wrong, and the claim is checked as if it knew nothing of it."""
        known = _known_of_kind(vc, view)
        if not known:
            return None
        for k in known:
            if value_matches(vc.value, k):
                narrower = _narrower_said(k, known, vc, sentence, analysis)
                return ("contradicted", narrower) if narrower is not None else ("verified", k)
        # A value held beside the current one (a second address: the office's mailbox) is theirs too.
        also = [k for k in view.held_too.get(vc.claim.entity_id or "", []) if k.key in {n.key for n in known}]
        if held := next((k for k in also if value_matches(vc.value, k)), None):
            return "verified", held
        target = aligned_known(known, vc, sentence, analysis)
        return ("contradicted", target) if target is not None else None

    def _registry_contradiction(self, vc: ValueClaim, known: KnownValue, label: str, sources: Sources,
                                analysis: AnswerAnalysis):
        view, claim = sources.view, vc.claim
        certain = vc.certain
        confidence = self.settings.certain_confidence if certain else self.settings.uncertain_confidence
        confidence = round(min(confidence, 0.5 + known.confidence / 2), 3)
        kind = "WrongAttribute" if known.shape in IDENTIFYING_SHAPES or known.key in PROFILE_KEYS else "ContradictsFact"
        # "Tuesday 8 December" for a start of 10 December becomes "Thursday 10 December", weekday and all.
        span, replacement = replacement_in_answer(vc, analysis, view.display(known), known.parsed)
        evidence = [label] + ([f"source: {known.source}"] if known.source != "registry" else [])
        finding = Finding(kind, claim.span, claim.text, confidence, view.display(known), evidence, vc.sentence,
                          span, replacement, major=True)
        return ClaimCheck(claim, "contradicted", confidence, evidence, view.display(known)), finding

    def _against_prior(self, vc: ValueClaim, sources: Sources):
        """An earlier answer gave this slot a value: same → consistent, different → contradiction."""
        for earlier in reversed(sources.prior):
            for old in earlier.values:
                if not same_slot(vc, old):
                    continue
                sentence = earlier.sentences[old.sentence].claim.text
                if value_matches(vc.value, as_known(old)):
                    return ClaimCheck(vc.claim, "unverifiable", 0.6, [f"consistent with an earlier answer: {sentence}"]), None
                finding = Finding("ContradictsPrior", vc.claim.span, vc.claim.text, 0.8, old.claim.text,
                                  [f"earlier answer: {sentence}"], vc.sentence, major=True)
                return ClaimCheck(vc.claim, "contradicted", 0.8, finding.evidence, old.claim.text), finding
        return None

    def _against_slot(self, vc: ValueClaim, sentence: SentenceInfo, analysis: AnswerAnalysis, sources: Sources):
        """A source sentence gives another value of the same kind in the same slot, the same words
        either side ("claiming £212,000." for "claiming £242,000."): the value the answer should
        have said (slots.py)."""
        start = sentence.claim.span[0]
        span = (vc.claim.span[0] - start, vc.claim.span[1] - start)
        slot = slot_value(sentence.claim.text, span, vc.value, sources.supplied,
                          functools.partial(_of_another_subject, sentence.claim.text, view=sources.view))
        if slot is None:
            return None
        confidence = self.settings.slot_confidence
        span, replacement = replacement_in_answer(vc, analysis, slot.value.text, slot.value.parsed)
        finding = Finding("ContradictsFact", vc.claim.span, vc.claim.text, confidence, slot.value.text,
                          [slot.sentence], vc.sentence, span, replacement, major=True)
        return ClaimCheck(vc.claim, "contradicted", confidence, [slot.sentence], slot.value.text), finding

    def _against_source_sentence(self, vc: ValueClaim, sentence: SentenceInfo, analysis: AnswerAnalysis,
                                 sources: Sources):
        """The source sentence most like the claim states a different value of the same kind."""
        value_stems = {stem(w) for w in words(vc.claim.text)}
        if vc.value.vtype == "date" and (weekday := _WEEKDAY_BEFORE.search(analysis.text, 0, vc.claim.span[0])):
            value_stems.add(stem(weekday.group(1)))  # "Friday 18 Dec": the weekday is the date's own word
        stems = _reported_stems(vc, sentence) - value_stems
        # The words of the sentence's other values ("the engagement letter of 14th October 2026") say
        # when or how much of something else: the source sentence stating that value is not thereby
        # about this one. Kept where little else would be left.
        # (A weekday and its date are one value: "Tuesday 8 December".)
        beside = {stem(w) for o in analysis.values if o.sentence == vc.sentence and o is not vc
                  and "weekday" not in (o.value.vtype, vc.value.vtype) for w in words(o.claim.text)}
        if len(stems - beside) >= 3:
            stems -= beside
        if not stems:
            return None
        # A long name is one thing: "The answer from the Conseil des arts de Montréal is expected on …" is
        # about the answer, and a sentence naming the council with another date is not thereby about it.
        units = _long_names(sentence.claim.text, stems, sources.supplied.sentences)
        for run_stems, one, _ in units:
            stems = (stems - run_stems) | {one}

        def by_initials(text: str) -> set[str]:
            # A sentence that writes the name by its initials ("CAM grant — answer expected …") names it.
            return {one for _, one, initials in units if initials and re.search(rf"\b{initials}\b", text)}

        best, overlap = sources.supplied.best_sentence(stems, by_initials if units else None)
        if len(stems) >= 3:
            # "He has accepted and starts on Monday 11 January 2027": the sentence before names who. Read
            # against the value's own clause: "…, and Dr Mereana Pōtae will mentor him" is another fact.
            clause = _clause_stems(vc, sentence) or stems
            after, after_overlap = sources.supplied.best_sentence_after_its_person(clause)
            if after_overlap > overlap:
                best, overlap, stems = after, after_overlap, clause
        if overlap < 0.5:
            return None
        # The answer's other values in the sentence stand for theirs: "from January 4 to January 19"
        # against "from January 4 to January 15" leaves one rival for "January 19".
        others = [o.value for o in analysis.values if o.sentence == vc.sentence and o is not vc]
        by_values = len(stems) < 2 and overlap >= 1.0 and _told_apart_by_values(stems, others, sources.supplied)
        if by_values:
            best = by_values
        elif len(stems) < 2 and (overlap < 1.0 or sum(stems <= s for _, s, _ in sources.supplied.sentences) != 1):
            return None  # "It was released in 1965": one word ties it to a source sentence only if just one has it

        def rivals_in(text: str) -> list[V.FoundValue]:
            # A source's "next Tuesday" is counted from the day it was written, which this sentence does
            # not carry: the answer's "1 December" may be that very day, so it is no rival.
            found = [f for f in V.find_values(text) if same_kind(vc.value, f) and f.text.lower() != vc.claim.text.lower()
                     and not _agrees(vc.value, f) and not (f.vtype == "number" and in_title(text, f.span))
                     and f.vtype != "relative"
                     and not any(o.vtype == f.vtype and V.same_value(o.vtype, o.parsed, f.parsed) for o in others)]
            # "Thursday 17 Dec 2026": the weekday before a date is part of it, no rival of its own.
            found = [f for f in found if vc.value.vtype == "weekday" or not (f.vtype == "weekday" and any(
                d.vtype == "date" and 0 <= d.span[0] - f.span[1] <= 2 for d in found))]
            if len(found) > 1:
                # "I'd charge $2,860 inc GST ($2,600.00 ex GST)" for the answer's "$2,680 inc GST": the one
                # counted the answer's way.
                found = [r for r in found if qualifier_agrees(text, r, analysis.text, vc.value)] or found
            return _rivals_in_closest_clause(text, found, stems) if len(found) > 1 else found

        rivals = rivals_in(best)
        if len(rivals) != 1:
            return None
        tied = {best} if by_values else {t for t, t_stems, _ in sources.supplied.sentences
                                         if len(stems & (t_stems | by_initials(t) if units else t_stems))
                                         / len(stems) == overlap}
        if len(tied) > 1 and not all(len(r := rivals_in(t)) == 1 and (_agrees(rivals[0], r[0]) or (
                r[0].vtype == rivals[0].vtype and V.same_value(r[0].vtype, r[0].parsed, rivals[0].parsed))) for t in tied):
            # "His email is …" as like "Email: tamsin@…" as "Email: idris@…": no telling which — unless
            # each sentence as like it gives the same value (the minutes and the mail both say 17 December).
            return None
        # Tied by one word only, it is flagged but never rewritten.
        confidence = round(0.45 + 0.4 * overlap, 3) if len(stems) >= 2 or by_values else 0.7
        rival = rivals[0]
        if (len(stems) >= 2 or by_values) and (
                (vc.value.vtype == "code" and V.one_slip(vc.value.parsed, rival.parsed))
                or (vc.value.vtype == rival.vtype == "amount" and V.near_miss(vc.value.parsed, rival.parsed)
                    and V.same_currency(V.currency(vc.claim.text), V.currency(rival.text)))):
            # A reference one slip from the one the sentence like it gives is that reference mistyped, and
            # an amount with its digits swapped ("€3,580" for "our price is €3,850") that amount.
            confidence = max(confidence, self.settings.slot_confidence)
        elif vc.value.vtype in _MEASURES and len(stems) >= 3 and overlap >= 0.6 and len(
                _beside_value(analysis.text, vc.claim.span) & _beside_value(best, rival.span)) >= 2:
            # Said of the same words, on either side ("an allowance of $20 per shift" and "A $15 allowance
            # per shift"), in a sentence much like the claim: that value, whatever the rest is worded. (A
            # reference, an address or a number to call is another one altogether, not a slip of the one.)
            confidence = max(confidence, CORRECT_SAID_ALIKE)
        span, replacement = replacement_in_answer(vc, analysis, rival.text, rival.parsed)
        finding = Finding("ContradictsFact", vc.claim.span, vc.claim.text, confidence, rival.text, [best],
                          vc.sentence, span, replacement, major=True)
        return ClaimCheck(vc.claim, "contradicted", confidence, [best], rivals[0].text), finding

    def _stated_apart(self, vc: ValueClaim, sentence: SentenceInfo, analysis: AnswerAnalysis, sources: Sources):
        """The sources give this value, but only of something else: the sentence that says what the
        claim says gives another value of its kind, and no sentence nearly as like the claim gives this
        one. "The monitor arrives on 9 December" where the notes say it "arrives on 7 December" and
        the training is "on 9 December": a value moved from one fact to another."""
        if not self._in_scope(sentence, sources) or sentence.mode != "statement":
            return None
        stems = _stems_beside(vc, sentence)
        if len(stems) < MOVED_MIN_WORDS:
            return None
        _, overlap = sources.supplied.best_sentence(stems)
        if overlap < MOVED_MIN_OVERLAP:
            return None
        contradiction = self._against_source_sentence(vc, sentence, analysis, sources)
        if contradiction is None:
            return None
        for text, text_stems, _ in sources.supplied.sentences:
            near = len(stems & text_stems) / len(stems) > overlap * MOVED_RIVAL_SHARE
            # A sentence stating the value that is nearly as like the claim, or that says something changed
            # to it ("Start moved to Wednesday 9 December"): the claim may well mean it.
            if (near or CHANGE_STATED.search(text)) and text_index([text]).supports_value(vc.value):
                return None
        check, finding = contradiction
        confidence = max(finding.confidence, self.settings.moved_value_confidence)
        return replace(check, confidence=confidence), replace(finding, confidence=confidence)

    def _near_miss(self, vc: ValueClaim, sentence: SentenceInfo, analysis: AnswerAnalysis, sources: Sources):
        """An amount the sources give one slip away, in the same currency, in a passage about what
        the sentence is about: "€32,400" where the quote says "€23,400"."""
        if vc.value.vtype != "amount" or AGGREGATES.search(sentence.claim.text):
            return None  # a total the answer worked out may well be a digit away from one of its parts
        units = _word_units(sentence, analysis, vc.claim.span)
        if len(units) < 2:
            return None
        money = V.currency(vc.claim.text)
        rivals: dict[float, tuple[float, str, str]] = {}  # stated amount -> (confidence, its text, source sentence)
        for source_sentence, passage, text in sources.supplied.passages():
            overlap = sum(1 for unit in units if unit & passage) / len(units)
            # For the same digits in another order, what the whole text (a mail, under its sender's name) is about
            # (read only where the passage itself says too little).
            loose = (0.0 if overlap >= self.settings.near_miss_overlap
                     else sum(1 for unit in units if unit & text) / len(units))
            if overlap < self.settings.near_miss_overlap and loose < self.settings.same_digits_overlap:
                continue
            for found in V.find_values(source_sentence):
                if not (found.vtype == "amount" and V.same_currency(V.currency(found.text), money)
                        and V.near_miss(vc.value.parsed, found.parsed)
                        and qualifier_agrees(source_sentence, found, analysis.text, vc.value)):
                    continue
                if overlap >= self.settings.near_miss_overlap:
                    confidence = 0.5 + 0.4 * overlap
                elif loose >= self.settings.same_digits_overlap and V.same_digits(vc.value.parsed, found.parsed):
                    confidence = 0.7 + 0.4 * loose  # the digits alone make the slip likely
                else:
                    continue
                if confidence > rivals.get(found.parsed, (0.0, "", ""))[0]:
                    rivals[found.parsed] = (confidence, found.text, source_sentence)
        if len(rivals) != 1:
            return None  # nothing alike, or several amounts it could be a slip of
        (parsed, (confidence, text, source_sentence)), = rivals.items()
        confidence = round(min(0.9, confidence), 3)
        # Written as the answer writes its sums: "N6,900,000.00" for the minutes' "NGN 9.6 million" becomes
        # "N9,600,000.00" (render_like), else as the source writes it.
        span, replacement = replacement_in_answer(vc, analysis, text, parsed)
        finding = Finding("ContradictsFact", vc.claim.span, vc.claim.text, confidence, text,
                          [f"the sources give {text}: {source_sentence}"], vc.sentence, span, replacement,
                          major=True)
        return ClaimCheck(vc.claim, "contradicted", confidence, finding.evidence, text), finding

    # --- names -----------------------------------------------------------------

    def _check_name(self, name: NameClaim, analysis: AnswerAnalysis, sources: Sources):
        claim, view = name.claim, sources.view
        if name.entity_ids:
            entity = view.entities[name.entity_ids[0]]
            return ClaimCheck(claim, "verified", 0.95 if name.certain else 0.8,
                              [f"known {entity.type}: {entity.name}"]), None
        if sources.supplied.supports_name(claim.text) or sources.records.supports_name(claim.text):
            return ClaimCheck(claim, "verified", 0.8, ["named in the supplied sources"]), None
        if sources.supplied.names_loosely(claim.text):  # more or less fully, or as an acronym
            return ClaimCheck(claim, "verified", 0.7, ["named in the supplied sources"]), None
        if analysis.sentences[name.sentence].mode == "meta":
            return ClaimCheck(claim, "unverifiable", 0.5), None
        if sources.given.supports_name(claim.text) or sources.earlier.supports_name(claim.text):
            return ClaimCheck(claim, "unverifiable", 0.5, ["named earlier in the conversation"]), None
        sentence = analysis.sentences[name.sentence]
        if not self._in_scope(sentence, sources) or (
                not sources.explicit and not sentence.entity_ids and name.label != "PERSON"):
            # Retrieved chunks alone do not make every product or place the model names suspect.
            return ClaimCheck(claim, "unverifiable", 0.5), None
        guess = _did_you_mean(claim.text, view) if name.label in PERSON_LIKE else None
        acronym = claim.text.isupper() and len(claim.text) <= 5  # "DNS", "API": jargon more often than a company
        if name.label in PERSON_LIKE and view.entities and not acronym:
            kind = "organisation" if name.label == "ORG" else "person"
            evidence = [f"no {kind} called {claim.text!r} in the knowledge base or the sources"]
            if guess:
                evidence.append(f"closest known: {guess}")
            finding = Finding("NonexistentEntity", claim.span, claim.text, 0.75, guess, evidence, name.sentence)
        else:
            confidence = 0.6 if name.label in PERSON_LIKE or name.label in ("GPE", "WORK_OF_ART", "EVENT") else 0.5
            asserted = sentence.mode in ("statement", "experience") or (
                sentence.mode in ("opinion", "courtesy", "personal") and attributed(analysis.doc, claim.span))
            if not asserted or acronym:
                confidence = 0.45  # named in a question or a suggestion, not asserted; or jargon
            finding = Finding("UnsupportedClaim", claim.span, claim.text, confidence, guess,
                              [f"{claim.text!r} is not named in the supplied sources"], name.sentence)
        return ClaimCheck(claim, "unverifiable", 0.4, finding.evidence), finding

    # --- sentences ----------------------------------------------------------------

    def _check_sentence(self, sentence: SentenceInfo, analysis: AnswerAnalysis, sources: Sources,
                        findings: list[Finding], checks: dict, support: ClaimSupport | None):
        """The sentence's check, its UnsupportedClaim finding if any, and its support score. The
        support model (support.py) decides whether it is supported; contradictions found inside
        it (a wrong value, a wrong name) outrank that."""
        claim = sentence.claim
        inner = [checks[id(c)] for c in analysis.claims
                 if c.kind != "sentence" and claim.span[0] <= c.span[0] < claim.span[1] and id(c) in checks]
        problems = [f for f in findings if f.sentence == sentence.index and f.confidence >= self.settings.flag_at]
        score = support.score if support is not None else 1.0
        share = support.features.get("share", 1.0) if support is not None else 1.0
        if any(c.status == "contradicted" for c in inner) or any(f.major for f in problems):
            expected = next((c.expected for c in inner if c.expected), None)
            return ClaimCheck(claim, "contradicted", 0.8, [e for c in inner for e in c.evidence][:3], expected), None, score
        best = support.evidence if support is not None else ""
        verified_inner = [c for c in inner if c.status == "verified"]
        unsupported = sources.grounded and support is not None and support.flagged
        if sources.grounded:
            grounded_ok = share >= 0.8 and not unsupported
        else:
            grounded_ok = bool(verified_inner) and len(verified_inner) == len(inner)
        if not problems and grounded_ok:
            evidence = (sources.supplied.best_sentences(sentence.stems) if sources.grounded and best
                        else [e for c in verified_inner for e in c.evidence][:3])
            return ClaimCheck(claim, "verified", round(0.5 + 0.45 * score, 3), evidence), None, score
        finding = None
        if unsupported and not problems:
            end = claim.span[1] - (1 if claim.text[-1:] in ".!?" else 0)
            # How sure grows with how far under the line it is and with how much it lacks: "It was
            # planned at night" misses two everyday words, a made-up backstory a dozen rare ones.
            limit = max(support.threshold, 1e-6)
            depth = min(1.0, max(0.0, (limit - score) / limit))
            lacking = min(1.0, (support.features.get("missing_mass", 0.0) + 2 * support.features.get("unaligned", 0.0))
                          / self.settings.full_missing_mass)
            confidence = round(0.5 + 0.4 * depth * lacking, 3)
            finding = Finding("UnsupportedClaim", (claim.span[0], end), analysis.text[claim.span[0]:end],
                              confidence, None,
                              ([f"closest source sentence: {best}"] if best else [])
                              + ([f"not in the sources: {', '.join(support.missing[:6])}"] if support.missing else []),
                              sentence.index)
        return ClaimCheck(claim, "unverifiable", round(0.3 + 0.4 * score, 3), [best] if best else []), finding, score

    def _in_scope(self, sentence: SentenceInfo, sources: Sources) -> bool:
        return sentence.mode != "meta" and (sources.grounded or bool(sentence.entity_ids))


# --- helpers ----------------------------------------------------------------------


def _of_another_subject(claim_sentence: str, source_sentence: str, source_text: str, view: KnowledgeView) -> bool:
    """The source sentence names, in place of a thing the claim names, another and not the claim's:
    "Skorvenes has an MTB of 4 200 tonnes" is not corrected from "a new site at Lundaneset with an MTB
    of 3 600 tonnes", however alike the words around the figure. A sentence that names no thing of its
    own is about what its passage names ("We apply for an MTB of 3 600 tonnes" under "# Lundaneset site
    application"). People are told apart from people only (a source sentence names who said or did
    something beside what it is about); a site, a project, a firm or a product are all things a figure
    may be of."""
    said = _named_in(claim_sentence, view)
    if not said:
        return False
    stated = _named_in(source_sentence, view)
    if "thing" not in stated.values():
        stated = {**_named_in(source_text, view), **stated}
    return any(one not in stated and any(kind == other_kind and other not in said for other, other_kind in stated.items())
               for one, kind in said.items())


def _named_in(text: str, view: KnowledgeView) -> dict[str, str]:
    """The known entities `text` names each by a name of its own alone, as "person" or "thing"."""
    return {m.entity_ids[0]: "person" if view.entities[m.entity_ids[0]].type == "person" else "thing"
            for m in view.find_mentions(text) if len(m.entity_ids) == 1 and m.entity_ids[0] in view.entities}


def _held_before(mismatch, view) -> bool:
    """The person the answer names held the relation until a newer document gave it to another."""
    return any(old.key == mismatch.key and old.raw in mismatch.said.entity_ids
               for old in view.superseded.get(mismatch.entity_id, []))


def _plain(value: str) -> str:
    return re.sub(r"\W+", "", value).casefold()


def _right_for_the_new_holder(findings: list[Finding], view: KnowledgeView) -> list[Finding]:
    """ "The site safety lead is Tormod Galbraith, on 07700 900 571": once the name is corrected to the
    role's holder (Dougal Strachan), a value in the same sentence that is the holder's own is right as
    written, not the wrong one for the person first named."""
    drop: set[int] = set()
    for swap in findings:
        if swap.flag_type != "ContradictsFact" or not swap.replacement:
            continue
        holder = next((e for e in view.entities.values() if e.name == swap.replacement), None)
        if holder is None:
            continue
        own = {_plain(v.raw) for v in view.values_of(holder.id)} - {""}
        drop |= {id(f) for f in findings if f is not swap and f.sentence == swap.sentence
                 and f.flag_type == "WrongAttribute" and _plain(f.content) in own}
    return [f for f in findings if id(f) not in drop]


def _role_written_beside(link, text: str, sources: Sources) -> bool:
    """A role the answer gives a known person that a supplied source writes right beside their name
    ("Site safety lead: Dougal Strachan"): a duty they hold besides the job title the directory gives."""
    if link.key != "role":
        return False
    names = [sources.view.entities[link.entity_id].name]
    if link.name_span is not None:
        names.append(text[link.name_span[0]:link.name_span[1]])
    return written_beside(names, link.value_text, sources)


def _stated_by_sources(sentence: SentenceInfo, said: str, sources: Sources, thing: str = "") -> bool:
    """A supplied source sentence says nearly all this sentence says, naming the same person — and not of
    another thing of the same kind in place of `thing`: "route: R-05; … driver: Jair Wolski" says nothing of
    who drives R-04, nor "skipper: Arnstein Vikøren" in Skarvsund's row of a vessel list who skippers
    Brattholm."""
    if sources.supplied.empty or not sentence.stems:
        return False
    best, overlap = sources.supplied.best_sentence(sentence.stems)
    if overlap < 0.7 or said.lower() not in best.lower():
        return False
    view = sources.view
    if thing in view.entities:
        named = {i for m in view.find_mentions(best) if len(m.entity_ids) == 1 for i in m.entity_ids}
        kind = view.entities[thing].type
        if thing not in named and any(view.entities[i].type == kind for i in named):
            return False
    return True


# A field's label opens with a letter: "30/11/2026, 12:20 - Tope: …" (a chat export's line) is no field "30/11/2026, 12".
_RECORD_FIELD = re.compile(r"(?:^|;\s*)([^\W\d_][^:;]{0,39}):\s*([^;]*)")


def _stated_as_new(text: str, value: V.FoundValue) -> bool:
    """Whether a source sentence gives `value` as the one that holds from now on ("my new work line is …")."""
    return any(V.same_value(new.vtype, new.parsed, value.parsed) for new in stated_new_values(text)
               if new.vtype == value.vtype)


def _record_key_of(text: str, value: V.FoundValue) -> str | None:
    """The key under which a record line ("date: 2026-11-16; donor: Anonymous; amount: £250") gives
    `value`, as the registry names keys; None when the text is no such line or lacks the value."""
    for match in _RECORD_FIELD.finditer(text):
        if any(f.vtype == value.vtype and V.same_value(f.vtype, f.parsed, value.parsed)
               for f in V.find_values(match.group(2))):
            return key_for_label(match.group(1).strip())
    return None


def _known_of_kind(vc: ValueClaim, view: KnowledgeView) -> list[KnownValue]:
    """The registry's values of the claim's entity that are of the claimed value's kind; an amount in
    another currency is another amount, never a wrong one."""
    shapes = COMPATIBLE_SHAPES.get(vc.value.vtype, set())
    money = V.currency(vc.claim.text) if vc.value.vtype == "amount" else None
    return [k for k in view.values_of(vc.claim.entity_id) if k.shape in shapes
            and not (k.shape == "amount" and not V.same_currency(money, V.currency(k.raw)))]


def _said_of(stated: str, entity_id: str | None, view: KnowledgeView) -> bool:
    """The source sentence stating a value can be about `entity_id`: it names it, or names no known
    entity at all ("New email: …" on the subject's own page). A sentence naming only others — the
    table row of a colleague whose phone the answer gave — states that value of someone else."""
    named = {i for m in view.find_mentions(stated) for i in m.entity_ids}
    return not named or entity_id in named


def _registered_to_another(vc: ValueClaim, entity_id: str | None, view: KnowledgeView) -> bool:
    """An address or number the registry holds as someone else's: a source line stating it that names
    nobody ("Mobile 07700 914 221," split from the line naming its owner) is not about the claim's
    subject."""
    if vc.value.vtype not in IDENTIFYING_SHAPES:
        return False
    return any(known.matches(vc.value) for other in view.entities if other != entity_id
               for known in view.values_of(other, vc.value.vtype))


def _adopt_loose_name(vc: ValueClaim, sentence: SentenceInfo, analysis: AnswerAnalysis, view: KnowledgeView) -> None:
    """What a value is said of when the sentence names nothing holding a value of its kind (or only a
    supplier beside the thing: "Kryon offers the dilution refrigerator for €…"): the thing a word of
    whose name the sentence has, and whose key it says — as surely as if it were named in full."""
    shapes = COMPATIBLE_SHAPES.get(vc.value.vtype, set())
    if _known_of_kind(vc, view) or any(k.shape in shapes for e in sentence.entity_ids for k in view.values_of(e)):
        return
    if named := _loosely_named(vc, sentence, analysis, view, shapes):
        vc.claim.entity_id, vc.certain = named[0], True


def _loosely_named(vc: ValueClaim, sentence: SentenceInfo, analysis: AnswerAnalysis, view: KnowledgeView,
                   shapes: set[str]) -> tuple[str, list[KnownValue]] | None:
    """A sentence that names no entity but a distinctive word of one's name ("the new chiller" for
    Chiller replacement) speaks of it where it also says which of its values it gives ("installed"
    for `install_date`): (that entity, those values), else None."""
    forms_at = _form_positions(analysis, sentence)
    # Of the things the sentence's words name, the one with a value of this kind whose key the sentence
    # says too: "the dilution refrigerator" is the procurement page's, whose offer price "offers" names,
    # not the budget sheet's row of the same words, nor the supplier beside it.
    said = {}
    for entity_id in view.named_by_word(sentence.stems, only_one=False):
        known = [k for k in view.values_of(entity_id) if k.shape in shapes and _key_said_with_value(k, vc, forms_at)]
        if known:
            said[entity_id] = known
    return next(iter(said.items())) if len(said) == 1 else None


def _key_said_with_value(known: KnownValue, vc: ValueClaim, forms_at: dict[str, list[int]]) -> bool:
    """The sentence says the key, its value saying the words for its kind: "offers it for €…" says
    `offer_price` (the amount is the price); at least one word must be in the sentence itself."""
    said, parts = _key_words_said(known, vc.value, forms_at)
    implied = [w for w in parts if w not in said and w in KIND_WORDS.get(known.shape, ())]
    return bool(said) and key_said(len(said) + len(implied), len(parts))


# A key that names a narrower kind of another: a mobile is a phone, a phone need not be a mobile.
NARROWER_KEYS = {"mobile": "phone"}


def _narrower_said(matched: KnownValue, known: list[KnownValue], vc: ValueClaim, sentence: SentenceInfo,
                   analysis: AnswerAnalysis) -> KnownValue | None:
    """"Her mobile is 01632 960 410" when that is her desk phone and her mobile is another number:
    the stored value of the narrower key the sentence names. Calling her mobile "her phone" is no slip."""
    narrower = [k for k in known if NARROWER_KEYS.get(k.key) == matched.key and not value_matches(vc.value, k)]
    if not narrower:
        return None
    forms_at = _form_positions(analysis, sentence)
    said = [k for k in narrower if _key_words_said(k, vc.value, forms_at)[0]]
    return said[0] if len(said) == 1 else None


def _key_words_said(known: KnownValue, value: V.FoundValue, forms_at: dict[str, list[int]]) -> tuple[list[str], list[str]]:
    """(words of the key said, words of the key), where a word naming the value's own kind ("date"
    of `install_date` beside a date) goes without saying."""
    parts = key_parts(known.key)
    implied = VALUE_KIND_WORDS.get(value_group(value.vtype), frozenset())
    parts = [p for p in parts if p not in implied] or parts
    return [p for p in parts if p in forms_at or stem(p) in forms_at], parts


# Words of a key that a value of this kind says by itself: "installed on 9 December" gives the
# install date.
VALUE_KIND_WORDS = {"date": frozenset({"date", "day"}), "time": frozenset({"time"})}


def value_matches(value: V.FoundValue, known: KnownValue) -> bool:
    return known.matches(value)


def select_by_key(known: list[KnownValue], sentence_stems: set[str], vtype: str) -> list[KnownValue]:
    """The stored values the sentence speaks of: by key words it uses, else the generic date/time."""
    scored = [(len({stem(w) for w in k.key_words} & sentence_stems), k) for k in known]
    top = max(score for score, _ in scored)
    if top > 0:
        return [k for score, k in scored if score == top]
    if vtype in ("email", "phone", "url"):
        return known
    generic = [k for k in known if k.key in ("date", "time", "start_date", "start")]
    if generic:
        return generic
    return known if len({repr(k.parsed) for k in known}) == 1 else []


# Stored values whose key says nothing of what they are about ("date" of a meeting): a sentence
# naming the thing gives its date without saying the word.
GENERIC_KEYS = frozenset({"date", "time", "start_date", "start"})


def aligned_known(known: list[KnownValue], vc: ValueClaim, sentence: SentenceInfo,
                  analysis: AnswerAnalysis) -> KnownValue | None:
    """The stored value the claimed one stands for, when the sentence ties them together: of the
    same kind (a duration for a duration, a date for a date), and either said with a word of its
    attribute's key nearer to it than to any other value of its kind in the sentence ("the budget
    is $40K"), or — for an address or phone number, or an event's date — said of the subject
    named (or referred to) before it in the sentence. None when no single stored value is so tied:
    a value of some other attribute ("210: capacity = 28" for "Rooms 210 and 218") is no
    correction of it."""
    same_kind = [k for k in known if _same_kind(vc.value, k)]
    if not same_kind:
        return None
    forms_at = _form_positions(analysis, sentence)
    group = value_group(vc.value.vtype)
    rivals = [o.value.span for o in analysis.values
              if o.sentence == vc.sentence and o is not vc and value_group(o.value.vtype) == group]
    by_key: list[tuple[int, KnownValue]] = []
    for k in same_kind:
        found, parts = _key_words_said(k, vc.value, forms_at)
        places = [at for p in found for at in forms_at.get(p, forms_at.get(stem(p), ()))]
        if key_said(len(found), len(parts)) and _nearest(vc.value.span, places, rivals):
            by_key.append((len(found), k))
    if by_key:
        top = max(n for n, _ in by_key)
        targets = [k for n, k in by_key if n == top]
    else:
        mentions = _mentions_before(vc, sentence, analysis)
        if mentions and not _nearest(vc.value.span, mentions, rivals):
            return None  # another value of its kind is the one said of the subject
        if vc.value.vtype in IDENTIFYING_SHAPES:
            if not mentions and vc.claim.entity_id in sentence.entity_ids:
                return None  # the subject is named only after it
            if not mentions and label_words(sentence, vc):
                return None  # "all staff — staff@…": its line says whose it is, and not the subject's
            targets = same_kind  # of someone the answer has been about: "Email: sarah.c@…"
        elif mentions:
            targets = [k for k in same_kind if k.key in GENERIC_KEYS]
            # "Elowen is paid £156 a day" of a `day_rate`: part of one value's key said beside it,
            # of the subject named before it, and no other value of the kind so said.
            partly = [k for k in same_kind if (found := _key_words_said(k, vc.value, forms_at)[0]) and _nearest(
                vc.value.span, [at for p in found for at in forms_at.get(p, forms_at.get(stem(p), ()))], rivals)]
            if not targets and len(partly) == 1:
                targets = partly
        else:
            return None
    if vc.value.vtype == "phone" and len(targets) > 1 and (said := _phone_line_said(sentence.claim.text)):
        # "His direct line is …" of someone with a desk phone and a mobile: the desk phone.
        targets = [k for k in targets if k.key == said] or targets
    distinct = {(k.shape, repr(k.parsed)) for k in targets}
    return targets[0] if len(distinct) == 1 else None


# How a sentence names a desk line ("direct line", "DDI", Singapore's "DID") or a mobile ("cell", Singapore's
# "HP" for handphone), as the registry keeps them apart (observations.LABEL_SYNONYMS).
_DESK_LINE_WORDS = re.compile(r"\b(?:direct\s+(?:line|dial|number)|ddi|did|desk\s+(?:phone|line)|landline|office\s+line)\b",
                              re.IGNORECASE)
_MOBILE_WORDS = re.compile(r"\b(?:mobile|mob|cell|cellphone|handphone|h/p)\b|(?-i:\bHP\b)", re.IGNORECASE)


def _phone_line_said(text: str) -> str | None:
    """The key of the phone line a sentence names: "phone" for a desk line, "mobile", or None (both or neither)."""
    desk, mobile = bool(_DESK_LINE_WORDS.search(text)), bool(_MOBILE_WORDS.search(text))
    return "phone" if desk and not mobile else "mobile" if mobile and not desk else None


def _same_kind(value: V.FoundValue, known: KnownValue) -> bool:
    """Could the stored value replace the claimed one: a count is not a duration ("two paging tools"
    is no "60 minutes"), a number of hours not a number of percent."""
    if value.vtype == "number":
        return known.shape in ("number", "amount")
    if value.vtype == "quantity" and known.shape == "quantity":
        return dimension(value.parsed[1]) == dimension(known.parsed[1])
    if value.vtype == "phone" and "x" in value.parsed:
        return known.key not in NARROWER_KEYS  # a number with an extension is a desk line, never a mobile
    return True


def _form_positions(analysis: AnswerAnalysis, sentence: SentenceInfo) -> dict[str, list[int]]:
    """Where each word of the sentence is, by every form it may be matched in: as written, its stem
    and (from the parse) its lemma."""
    at: dict[str, list[int]] = {}
    start, end = sentence.claim.span
    tokens = analysis.doc.char_span(start, end, alignment_mode="expand") if analysis.doc is not None else None
    if tokens is not None:
        pieces = [(t.text, t.idx, t.lemma_.lower()) for t in tokens]
    else:
        pieces = [(w, span[0], w.lower()) for w, span, _ in sentence.words]
    for word, position, lemma in pieces:
        # "his cell" says a `mobile`, "her team" a `department`: the key a label word stands for.
        for form in {word.lower(), stem(word), lemma, LABEL_SYNONYMS.get(word.lower(), word.lower())}:
            at.setdefault(form, []).append(position)
    return at


def _nearest(span: tuple[int, int], places: list[int], rivals: list[tuple[int, int]]) -> bool:
    """Is the value at `span` at least as near one of `places` as every other value of its kind?"""
    def distance(s):
        return min(0 if s[0] <= p < s[1] else min(abs(p - s[0]), abs(p - s[1])) for p in places)

    mine = distance(span)
    return all(mine <= distance(r) for r in rivals)


def _mentions_before(vc: ValueClaim, sentence: SentenceInfo, analysis: AnswerAnalysis) -> list[int]:
    """Where the sentence names (or refers to) the claim's subject before the value: a value is said
    of what came before it ("Sarah's email is …", "Her email is …"), not of a name after it ("…
    accounts@ (monitored by Harriet Lowe)")."""
    entity = vc.claim.entity_id
    if not entity or entity not in sentence.entity_ids:
        return []
    start = sentence.claim.span[0]
    named = [n.claim.span[0] for n in analysis.names
             if n.entity_ids and n.entity_ids[0] == entity and start <= n.claim.span[0] < vc.value.span[0]]
    referred = [span[0] for span, ref, _ in analysis.pronoun_refs
                if ref == entity and start <= span[0] < vc.value.span[0]]
    return named + referred


_DATE_LIKE = frozenset({"date", "year", "decade", "weekday", "time", "relative"})


def states_kind(sources: Sources, value: V.FoundValue) -> bool:
    """Do the sources give any value a claim like this could be checked against (any date for a
    date, any number or date for a number)? An address or phone number is never taken on trust."""
    if value.vtype in IDENTIFYING_SHAPES:
        return True
    found = [f.vtype for index in (sources.supplied, sources.records) for f in index.found_values]
    if value.vtype in _DATE_LIKE:
        return any(v in _DATE_LIKE for v in found)
    return bool(found)


_WEEKDAY_BEFORE = re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday),?\s+$", re.IGNORECASE)


def _agrees(claimed: V.FoundValue, found: V.FoundValue) -> bool:
    """"April of 2010" and "2010" are one date said more or less precisely, not two."""
    if isinstance(claimed.parsed, V.DateValue) and isinstance(found.parsed, V.DateValue):
        return V.dates_agree(claimed.parsed, found.parsed)
    return False


def same_slot(current: ValueClaim, old: ValueClaim) -> bool:
    if not current.claim.entity_id or current.claim.entity_id != old.claim.entity_id:
        return False
    if (value_group(current.value.vtype) != value_group(old.value.vtype)
            or "relative" in (current.value.vtype, old.value.vtype)):
        return False
    return current.value.vtype in IDENTIFYING_SHAPES or current.cue == old.cue


def as_known(old: ValueClaim) -> KnownValue:
    shape = {"weekday": "date", "year": "date"}.get(old.value.vtype, old.value.vtype)
    return KnownValue("earlier", old.claim.text, shape, old.value.parsed)


def _did_you_mean(text: str, view: KnowledgeView) -> str | None:
    if not view.entities:
        return None
    first = view.first_name_matches(first_word(text))
    if len(first) == 1:
        return view.name(first[0])
    from rapidfuzz import fuzz, process

    names = {e.id: e.name for e in view.entities.values()}
    match = process.extractOne(text, names, scorer=fuzz.WRatio, score_cutoff=86)
    return match[0] if match else None


def _asked_of_the_person(mismatch, sources: Sources) -> bool:
    """Whether the question asks about the person the answer puts in the role, not about the work
    ("What does Divya Shetty do?" — "Divya Shetty is the Project Manager for the Sahyadri account"): then
    the answer is wrong about her, which her own role says; who holds the work's role is beside the point."""
    question = sources.given.texts[0] if sources.given.texts else ""
    named = {i for mention in sources.view.find_mentions(question) for i in mention.entity_ids}
    return bool(mismatch.said.entity_ids) and mismatch.said.entity_ids[0] in named and mismatch.entity_id not in named


def _word_units(sentence: SentenceInfo, analysis: AnswerAnalysis, value_span: tuple[int, int]) -> list[set[str]]:
    """The stems of a sentence's words outside the value, a name counted as one unit: "Ironside
    Scenic Workshop quoted £17,450" is about one firm, which a passage names when it has any word
    of that name ("Ironside fixed price", or the firm's own "our price" under its signature). Word
    by word, a three-word name the passage shortens would weigh as three misses."""
    start, end = value_span
    # "… the bid at £43,200 (ex VAT), with an optional module at £4,800 + VAT": the clause after the
    # comma is about the other amount; only the value's own clause says what it is about.
    low, high = _own_clause(sentence, analysis, value_span)
    names = sorted(n.claim.span for n in analysis.names if n.sentence == sentence.index)
    merged: list[list[int]] = []
    for n_start, n_end in names:  # overlapping readings of a name ("Scenic Workshop" in "Ironside Scenic Workshop")
        if merged and n_start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], n_end)
        else:
            merged.append([n_start, n_end])
    units: dict[object, set[str]] = {}
    for word, span, _ in sentence.words:
        if start <= span[0] < end or start < span[1] <= end or not low <= span[0] < high:
            continue
        name = next((i for i, (n_start, n_end) in enumerate(merged) if n_start <= span[0] < n_end), None)
        units.setdefault(("name", name) if name is not None else stem(word), set()).add(stem(word))
    return list(units.values())


def _own_clause(sentence: SentenceInfo, analysis: AnswerAnalysis, value_span: tuple[int, int]) -> tuple[int, int]:
    """The span (in the answer) of the clause holding the value, when another value of the sentence sits
    in another clause (split at commas and semicolons); else the whole sentence."""
    s_start, s_end = sentence.claim.span
    text = analysis.text
    cuts = [s_start] + [s_start + m.end() for m in re.finditer(r"[,;]\s", text[s_start:s_end])] + [s_end]
    clauses = list(zip(cuts, cuts[1:]))
    own = next(((a, b) for a, b in clauses if a <= value_span[0] < b), (s_start, s_end))
    others = [o.claim.span for o in analysis.values if o.sentence == sentence.index and o.claim.span != value_span]
    if any(not own[0] <= o[0] < own[1] for o in others):
        return own
    return s_start, s_end


def _rivals_in_closest_clause(sentence: str, rivals: list, stems: set[str]) -> list:
    """Of several rival values in one source sentence, those of the clause the claim's words are in:
    "Fittings from 4 November; costume parade on 26 November" gives the parade 26 November. An aside
    in brackets is a clause of its own: "giving us $48,000 toward the show (we asked for $55,000)"
    gives the show $48,000."""
    clauses = [(m.start(), m.end(), len(stems & {stem(w) for w in words(m.group(0))}))
               for m in re.finditer(r"\([^()]*\)|[^;()]+", sentence) if m.group(0).strip()]
    if len(clauses) < 2:
        return rivals
    top = max(n for _, _, n in clauses)
    best = [(a, b) for a, b, n in clauses if n == top]
    if len(best) != 1:
        return rivals
    a, b = best[0]
    return [f for f in rivals if a <= f.span[0] < b]


# A source sentence quoted whole is a quote this long at least: "Cell: 082 555 0196" alone is no quote.
_QUOTE_MIN_CHARS = 60


# A quoted line's bullet before it and its file's name in brackets after it: "- … (subcontractors.csv)".
_QUOTE_FRAME = re.compile(r"^\s*(?:[-*•]\s+)?(?P<core>.*?)\s*(?:\([\w .-]+\.[A-Za-z]{2,5}\))?\s*$", re.DOTALL)


def _quoted_around(vc: ValueClaim, sentence: SentenceInfo, supplied) -> str:
    """The supplied source sentence the answer's sentence quotes word for word around the value (the whole
    source sentence, or the whole answer's line within one), or ""."""
    text, start = sentence.claim.text, sentence.claim.span[0]
    first, last = vc.claim.span[0] - start, vc.claim.span[1] - start
    core = _QUOTE_FRAME.match(text).group("core")
    for source_text, _, _ in supplied.sentences:
        if len(source_text) < _QUOTE_MIN_CHARS:
            continue
        if len(core) >= _QUOTE_MIN_CHARS and core in source_text:
            return source_text
        at = text.find(source_text)
        while at >= 0:
            if at <= first and last <= at + len(source_text):
                return source_text
            at = text.find(source_text, at + 1)
    return ""


def _told_apart_by_values(stems: set[str], others: list, supplied) -> str:
    """The one source sentence with the claim's only word that also states each of the answer's other
    values in its sentence, or "": "It closes on 22/01/2027 at 11:00" has one word ("close") in the tender's
    "Closing date 15/01/2027 at 11:00" and in a mail's "sites close on 16 Dec 2026 at 12:00", and the time
    it gives tells which."""
    others = [o for o in others if o.vtype != "weekday"]
    if not others:
        return ""
    holding = [text for text, text_stems, _ in supplied.sentences if stems <= text_stems]
    stating = [text for text in holding if all(text_index([text]).supports_value(o) for o in others)]
    return stating[0] if len(holding) > 1 and len(set(stating)) == 1 else ""


# A name of three or more words, capitalised at both ends, with short lower-case words between
# ("Conseil des arts de Montréal", "Department for Education", "Harwick Heritage Fund").
_NAME_RUN = re.compile(r"(?<![\w'’-])[A-Z][\w'’-]*(?:\s+(?:[a-zà-ÿ]{1,4}\s+)*[A-Z][\w'’-]*)+")
_OPENING_ARTICLE = re.compile(r"^(?:The|A|An)\s+")


def _long_names(text: str, stems: set[str], source_sentences) -> list[tuple[set[str], str, str]]:
    """The names of three or more words in `text` that a source sentence writes the same way, each as
    (the stems of its words among `stems`, the stem of its last word, which stands for the whole name,
    its initials as capitals, "CAM", or "" when under three)."""
    units = []
    for match in _NAME_RUN.finditer(text):
        name = _OPENING_ARTICLE.sub("", match.group(0))
        name_words = words(name)
        if len(name_words) < 3 or not any(name in sentence for sentence, _, _ in source_sentences):
            continue
        run_stems = {stem(w) for w in name_words} & stems
        if len(run_stems) < 2:
            continue
        initials = "".join(w[0] for w in name_words if not (w.islower() and len(w) <= 3)).upper()
        units.append((run_stems, stem(name_words[-1]), initials if len(initials) >= 3 else ""))
    return units


def _beside_value(text: str, span: tuple[int, int], reach: int = 2) -> set[str]:
    """The stems of the `reach` content words either side of the value at `span` in its sentence of `text`."""
    start = max(text.rfind(stop, 0, span[0]) for stop in (". ", "\n", "; ", "? ", "! ")) + 1
    ends = [i for stop in (". ", "\n", "; ", "? ", "! ") if (i := text.find(stop, span[1])) >= 0]
    end = min(ends, default=len(text))
    before = [w for w in words(text[start:span[0]]) if not is_stop(w) and not w.isdigit()][-reach:]
    after = [w for w in words(text[span[1]:end]) if not is_stop(w) and not w.isdigit()][:reach]
    return {stem(w) for w in before + after}


def _stems_beside(vc: ValueClaim, sentence: SentenceInfo) -> set[str]:
    """The sentence's words other than the value's own: "£21,900" is one word of the sentence
    ("21,900") but two of the value's ("21", "900"), so both readings are left out. Who said it is
    not what was said: of "Katherine Moss said ASI-05 will follow by 12/15", the words after "said"."""
    value_text = vc.claim.text.lower()
    return {s for s in _reported_stems(vc, sentence) - {stem(w) for w in words(vc.claim.text)} if s not in value_text}


def _reported_stems(vc: ValueClaim, sentence: SentenceInfo) -> set[str]:
    """The sentence's stems, those of who reported the value left out when a frame before it says who."""
    if (frame := _REPORTED.match(sentence.claim.text)) and sentence.claim.span[0] + frame.end() <= vc.claim.span[0]:
        reported = {stem(w) for w in words(sentence.claim.text[frame.end():])}
        return {s for s in sentence.stems if s in reported} or sentence.stems
    return sentence.stems


# "Katherine Moss said (that)", "She confirmed", "The architect told us": who reports, before what.
_REPORTED = re.compile(r"(?:(?:[A-Z][\w'’.-]*|the|our|your)\s+){1,4}(?:said|says|wrote|writes|confirmed|confirms|"
                       r"mentioned|noted|told\s+\w+|tells\s+\w+|replied|answered)\s+(?:that\s+)?")


# Where one clause of a sentence ends and another, about something else, begins.
_CLAUSE_BREAK = re.compile(r",\s*(?:and|but|while|whereas)\s+|;\s*")


def _clause_stems(vc: ValueClaim, sentence: SentenceInfo) -> set[str]:
    """The stems of the clause the value sits in ("Dr Pita Whaanga starts on Monday 18 January 2027" of
    "…, and Dr Mereana Pōtae will mentor him"), the value's own left out; empty when the sentence is one
    clause or the clause has fewer than three."""
    text, start = sentence.claim.text, sentence.claim.span[0]
    at = vc.claim.span[0] - start
    cuts = [0, *(m.end() for m in _CLAUSE_BREAK.finditer(text)), len(text)]
    if len(cuts) == 2 or not 0 <= at < len(text):
        return set()
    begin = max(c for c in cuts[:-1] if c <= at)
    end = min((m.start() for m in _CLAUSE_BREAK.finditer(text) if m.start() > at), default=len(text))
    value = {stem(w) for w in words(vc.claim.text)}
    clause = {stem(w) for w in words(text[begin:end]) if not is_stop(w)} - value
    return clause if len(clause) >= 3 else set()


def _document_dated(claimed: V.DateValue, dates) -> str | None:
    """The date of a supplied document (ISO text) that is the claimed day, when one is."""
    return next((written[:10] for written in dates if written and V.is_day(claimed, written)), None)


# Keys of the days someone works or something is open ("days", "working_days", "availability", "open"),
# and of those it is not ("closed", "days_off").
_DAYS_ON = frozenset("day days working availability available schedule rota shifts shift open hours".split())
_DAYS_OFF = frozenset("closed off except holiday holidays leave away unavailable not".split())
_EVERY = re.compile(r"\b(?:every|each)\s+$", re.IGNORECASE)
_AWAY = re.compile(r"\b(?:not|never|no|off|closed|except|away|leave|holiday|unavailable|n't)\b", re.IGNORECASE)


def _off_their_days(vc: ValueClaim, sentence, view: KnowledgeView):
    """(check, finding) when a statement gives its subject a weekday that their record's run of days
    leaves out: "Callum works Tuesdays" where the roster's `days` say "Mon, Wed, Fri". Another row's
    "Tue–Sat" bears the day out for someone else, not for them. Shown, not rewritten: the days a record
    lists are no one-for-one replacement for the day said."""
    if (vc.value.vtype != "weekday" or not vc.claim.entity_id or sentence.mode != "statement"
            or _AWAY.search(sentence.claim.text)):
        return None  # "he is off on Tuesdays" agrees with a roster that leaves Tuesday out
    start = vc.claim.span[0] - sentence.claim.span[0]
    clause = sentence.claim.text
    if not (vc.claim.text.lower().endswith("s") or _EVERY.search(clause[:start])
            or any(d.span[0] <= start < d.span[1] for d in V.days_in_runs(clause))):
        return None  # "on call on Saturday 19 December" is one day, not a day of someone's week
    for known in view.values_of(vc.claim.entity_id):
        words = set(known.key.lower().split("_"))
        if not words & _DAYS_ON or words & _DAYS_OFF:
            continue  # a record's "closed: Sat & Sun" lists the days it is not open
        days = {d.parsed.weekday for d in V.days_in_runs(str(known.raw))}
        if len(days) >= 2 and vc.value.parsed.weekday not in days:
            label = f"{view.name(vc.claim.entity_id)}: {known.key} = {view.display(known)}"
            finding = Finding("ContradictsFact", vc.claim.span, vc.claim.text, 0.8, view.display(known),
                              [label], vc.sentence)
            return ClaimCheck(vc.claim, "contradicted", 0.8, [label], view.display(known)), finding
    return None
