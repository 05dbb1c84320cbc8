"""The work-documents corpus that bench_extraction scores learning against: the
same seed writes the same files, and its truth is what those files say."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from chatapp.knowledge.parsers.dispatch import parse_file
from tests.bench.workdocs_corpus import generate


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("workdocs")
    return folder, generate(folder, n_documents=220, seed=7)


def _contents(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*")) if p.is_file()}


def test_same_seed_writes_the_same_corpus_and_truth(corpus, tmp_path):
    folder, truth = corpus
    again = generate(tmp_path / "again", n_documents=220, seed=7)
    assert _contents(tmp_path / "again") == _contents(folder)
    assert (again.emails, again.roles, again.phones, again.leads) == (truth.emails, truth.roles, truth.phones,
                                                                       truth.leads)
    other = generate(tmp_path / "other", n_documents=220, seed=8)
    assert other.emails != truth.emails


def test_it_writes_the_documents_asked_for_in_every_layout(corpus):
    folder, truth = corpus
    assert len(truth.files) == 220 == len(_contents(folder))
    suffixes = Counter(p.suffix for p in truth.files)
    assert {".eml", ".md", ".txt", ".csv", ".json"} <= set(suffixes)
    # Every file is one ingest reads.
    for path in truth.files:
        assert parse_file(path).text.strip(), path


def test_every_true_pair_is_written_in_a_document_that_names_both(corpus):
    folder, truth = corpus
    texts = list(_contents(folder).values())

    def stated(name: str, value: str) -> bool:
        return any(name in text and value in text for text in texts)

    for kind in ("emails", "roles", "phones", "leads"):
        for name, value in getattr(truth, kind):
            assert stated(name, value), (kind, name, value)
    assert {name for name, _ in truth.emails} == {p.name for p in truth.people}
    assert {name for name, _ in truth.roles} == {p.name for p in truth.people}
    assert {name for name, _ in truth.leads} == {p.name for p in truth.projects}


def test_its_distractors_are_there(corpus):
    folder, truth = corpus
    texts = _contents(folder).values()
    firsts = Counter(p.first for p in truth.people)
    assert any(count > 1 for count in firsts.values()), "two people share a first name"
    # Someone's address is only ever in To: headers.
    only_to = [p for p in truth.people
               if all(line.startswith("To: ") for text in texts for line in text.splitlines() if p.email in line)]
    assert only_to and all((p.name, p.email) in truth.emails for p in only_to)
    assert any("To: All Staff <allstaff@" in text for text in texts)
    # Shared mailboxes are never anyone's address in the truth.
    boxes = {address for _, address in truth.shared_mailboxes}
    assert not boxes & {email for _, email in truth.emails}
    # Signatures name companies; addresses come in first.last@, flast@ and first@ styles.
    assert any(re.search(r"^Larkspur Freight$", text, re.M) for text in texts)
    locals_ = {email.split("@")[0] for _, email in truth.emails}
    assert any("." in local for local in locals_) and any("." not in local for local in locals_)


def test_too_few_documents_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="at least 40"):
        generate(tmp_path, n_documents=10)
