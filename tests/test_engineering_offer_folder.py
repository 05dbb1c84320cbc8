"""An engineering office's folder where the quote that matters is a German mail with a long signature,
cut into two chunks, among English notes that share its subject's words: the search finds the mail's
second half (the start date) and the offer's figures come with it. An English answer with the fee's
digits swapped is corrected to the mail's fee, though the two share almost no words; a right answer in
English is held to the whole mail. Real ChatEngine, SQLite, Chroma and spaCy; names that appear nowhere in
the code."""

from __future__ import annotations

import pytest

from tests.conftest import checked, engine_learnt_from

OFFER = """From: "Dr.-Ing. Henrike Valdorf" <valdorf@pruefbuero-valdorf.de>
To: "Jonas Brettschneider" <j.brettschneider@halbach-ingenieure.de>
Subject: Prüfstatik Lagerhalle Feuerbach - Honorarangebot
Date: Fri, 20 Nov 2026 16:41:09 +0100

Sehr geehrter Herr Brettschneider,

wie besprochen erhalten Sie unser Angebot für die bautechnische Prüfung (Standsicherheit)
der Erweiterung Lagerhalle Feuerbach:

  Prüfhonorar nach BVPI-Tafel, Bauwerksklasse 3:   EUR 41.680,00 netto
  Nebenkosten pauschal 5 %:                         EUR 2.084,00
  zzgl. 19 % USt.

Die Prüfung des Brandschutzes ist nicht enthalten. Unsere Büros sind zwischen den Feiertagen geschlossen;
Rückfragen beantworten wir gern telefonisch oder per E-Mail. Die Unterlagen senden Sie bitte digital als
PDF, die Pläne zusätzlich im Original. Wir können mit der Prüfung ab dem
12. Januar 2027 beginnen, sofern die Unterlagen bis dahin vollständig vorliegen.

Mit freundlichen Grüßen
Henrike Valdorf

--
Dr.-Ing. Henrike Valdorf
Prüfingenieurin für Baustatik (Massivbau, Stahlbau)
Prüfbüro Valdorf · Ludwigsburg
Tel. +49 7141 3905528-0 · Fax +49 7141 3905528-9
valdorf@pruefbuero-valdorf.de · www.pruefbuero-valdorf.de
Sitz der Gesellschaft: Ludwigsburg · Amtsgericht Stuttgart HRB 712345 · Geschäftsführerin: Dr.-Ing. Henrike Valdorf
Diese E-Mail kann vertrauliche Informationen enthalten. Wenn Sie nicht der richtige Adressat sind, informieren
Sie bitte sofort den Absender und vernichten Sie diese Mail. Das unerlaubte Kopieren sowie die unbefugte
Weitergabe dieser Mail sind nicht gestattet.
"""

NOTES = """# Lagerhalle Feuerbach — jour fixe {n}

- Structural check (Prüfstatik) for the Feuerbach warehouse extension: offer from the checking engineer
  discussed; Jonas to confirm the start date with the checking engineer.
- Fire safety check is separate and not part of the structural check.
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    files = {"2026-11-20-pruefstatik-angebot.eml": OFFER}
    files.update({f"jour-fixe-{n}.md": NOTES.format(n=n) for n in range(1, 6)})
    engine, _ = engine_learnt_from(tmp_path_factory, "halbach", files)
    yield engine
    engine.close()


QUESTION = "What did the checking engineer offer for the structural check of the Feuerbach warehouse extension?"


def test_an_english_answer_with_the_fees_digits_swapped_is_corrected_to_the_german_mails_fee(engine):
    response = checked(engine, QUESTION, "Dr. Valdorf quoted EUR 14.680,00 net for the check, plus 5 % expenses.")
    assert [(f.hallucination_type, f.content) for f in response.hallucination_flags] == [
        ("ContradictsFact", "EUR 14.680,00")]
    assert "EUR 41.680,00 [corrected]" in response.delivered


def test_a_right_answer_takes_its_figures_and_date_from_both_halves_of_the_mail(engine):
    response = checked(engine, QUESTION, "Dr. Valdorf offered EUR 41.680,00 net plus 5 % expenses (EUR 2.084,00); "
                                         "she can start on 12 January 2027.")
    assert not [f for f in response.hallucination_flags if f.hallucination_type == "FabricatedFact"]
