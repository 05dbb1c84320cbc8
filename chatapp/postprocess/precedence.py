"""Which findings stand when two checks speak of the same place: the one
precedence policy of the postprocessor, applied as each check's findings come
in (pipeline.py).

- What the sources contradict outright needs no second, softer flag on the
  same span: a ContradictsFact drops any UnsupportedClaim, FabricatedFact or
  NonexistentEntity inside its span ("Dana Kim doesn't lead the Atlas
  migration" is contradicted; "Dana Kim" is not also unsupported).
- A finding that contradicts a claim (ContradictsFact, TemporalError) marks
  the claim of that span contradicted in the fact validation, with the
  finding's confidence, evidence and suggestion: a date the calendar rules out
  is a contradicted claim, not an unverifiable one.
"""

from __future__ import annotations

from chatapp.postprocess.findings import Finding
from chatapp.records import FactualValidationResult, HallucinationType

OUTRIGHT: frozenset[HallucinationType] = frozenset({"ContradictsFact"})
SOFTER: frozenset[HallucinationType] = frozenset({"UnsupportedClaim", "FabricatedFact", "NonexistentEntity"})
CONTRADICTING: frozenset[HallucinationType] = frozenset({"ContradictsFact", "TemporalError"})


def settle(findings: list[Finding], new: list[Finding], validation: FactualValidationResult) -> list[Finding]:
    """The findings that stand once `new` joins `findings` (in that order); marks `validation`."""
    combined = [*findings, *new]
    outright = [f.span for f in combined if f.flag_type in OUTRIGHT]
    kept = [f for f in combined
            if not (f.flag_type in SOFTER and any(a <= f.span[0] and f.span[1] <= b for a, b in outright))]
    _mark_contradicted(validation, [f for f in new if f.flag_type in CONTRADICTING])
    return kept


def _mark_contradicted(validation: FactualValidationResult, findings: list[Finding]) -> None:
    for finding in findings:
        for check in validation.checks:
            if check.claim.kind != "sentence" and check.claim.span == finding.span and check.status != "contradicted":
                setattr(validation, check.status, getattr(validation, check.status) - 1)
                validation.contradicted += 1
                check.status, check.confidence = "contradicted", finding.confidence
                check.evidence, check.expected = list(finding.evidence), finding.suggestion
