"""A translation agency's folder: a plain-text who-does-what list with the job before the name, a
client list with rates in ISO currency codes, an email whose change names its subject a sentence
earlier, and a policy that names a role rather than a person. Real ChatEngine, SQLite, Chroma and
spaCy; names that appear nowhere in the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from, only_entity

WHO = """QUILLMARSH LANGUAGE SERVICES - who does what (updated 9 Nov 2026)

Managing director: Ebunoluwa Strand-Okafor (ebun@quillmarsh.example, +31 20 555 0140)
Head of Finnish desk: Aarni Kettunen-Blom (aarni@quillmarsh.example)
Project coordinator: Ysolde Parrinder (ysolde@quillmarsh.example, +31 20 555 0143)
"""

CLIENTS = """client,contact person,email,rate per word,account manager
Brightwater Optics BV,Maaike Oudshoorn,maaike@brightwater.example,EUR 0.14,Ysolde Parrinder
Tarnhollow Games,Kit Aldenmere,kit@tarnhollow.example,EUR 0.11,Aarni Kettunen-Blom
"""

MAIL = """From: Ysolde Parrinder <ysolde@quillmarsh.example>
To: Aarni Kettunen-Blom <aarni@quillmarsh.example>
Date: Fri, 27 Nov 2026 15:05:00 +0100
Subject: Tarnhollow localisation

Aarni,

Kit called: Tarnhollow have pushed the Finnish localisation back to 18 January 2027. The word count
also went up from 86,000 to 94,500 words.

Ysolde
"""

POLICY = """# Rush jobs

Only the managing director can approve a rush job over 10,000 words.
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine, _ = engine_learnt_from(tmp_path_factory, "quillmarsh", {
        "who-does-what.txt": WHO, "clients.csv": CLIENTS, "2026-11-27-tarnhollow.eml": MAIL, "rush-jobs.md": POLICY})
    yield engine
    engine.close()


def test_a_job_written_before_the_name_with_an_address_beside_it_is_that_persons_role(engine):
    director = only_entity(engine, "Ebunoluwa Strand-Okafor")
    assert director.attributes["role"] == "Managing director"
    assert director.attributes["email"] == "ebun@quillmarsh.example"
    assert only_entity(engine, "Aarni Kettunen-Blom").attributes["role"] == "Head of Finnish desk"


def test_a_rate_written_with_a_currency_code_is_an_amount_checked_against_the_client(engine):
    result = checked(engine, "What rate per word does Tarnhollow Games pay?", "Tarnhollow Games pays EUR 0.14 per word.")
    assert result.delivered == "Tarnhollow Games pays EUR 0.11 [corrected] per word."
    assert checked(engine, "What rate per word does Tarnhollow Games pay?",
                   "Tarnhollow Games pays EUR 0.11 per word.").hallucination_flags == []


def test_a_count_that_went_up_in_a_later_email_is_out_of_date(engine):
    # The change says "the word count"; the sentence before it says whose.
    result = checked(engine, "How many words is the Tarnhollow job?", "The Tarnhollow localisation is 86,000 words.")
    assert result.delivered == "The Tarnhollow localisation is 94,500 [corrected] words."
    assert [f.hallucination_type for f in result.hallucination_flags] == ["TemporalError"]


def test_the_wrong_person_for_what_a_policy_gives_a_role_is_flagged_with_who_holds_it(engine):
    result = checked(engine, "Who can approve a rush job over 10,000 words?",
                     "Only the project coordinator, Ysolde Parrinder, can approve a rush job over 10,000 words.")
    assert [(f.hallucination_type, f.suggestion) for f in result.hallucination_flags] == [
        ("ContradictsFact", "Ebunoluwa Strand-Okafor")]
    right = checked(engine, "Who can approve a rush job over 10,000 words?",
                    "Only the managing director, Ebunoluwa Strand-Okafor, can approve a rush job over 10,000 words.")
    assert right.hallucination_flags == []
