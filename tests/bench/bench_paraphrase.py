"""Right answers in other words, through the chat-turn path (issue #12, "no false notes").

A real model answers in its own words: "The society gets together once a month, usually on a
Saturday" for a document saying it meets monthly on Saturdays. Such an answer is right and should come
back Accept with no flag. Beside each right paraphrase stands a wrong one worded alike (a value or a
person changed, or a detail invented), which should be flagged.

Each folder (two of the shared work-document folders and one written here, with names found nowhere
else) is ingested into a real engine; each answer is checked with
`engine.postprocess(answer, question, search_documents=True)`, held to the chunks the question
retrieves as a chat turn holds its own. Pairs are split by position: every third is test (held out:
nothing was tuned on it), the rest dev.

    python tests/bench/bench_paraphrase.py [--split dev|test|both] [--show] [--evidence]

Reported per split: right paraphrases with any hallucination flag, sent to Regenerate, not Accept;
wrong ones flagged; mean confidence of each.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import chatapp  # noqa: F401 - offline environment first

WORKDOCS = Path(__file__).resolve().parents[3] / "shared" / "data" / "workdocs"

# A folder written for this benchmark: a club, an allotment site and a flat's repairs.
OWN_FOLDER = {
    "kestrel-bay-photographic-society.md": """# Kestrel Bay Photographic Society

The Kestrel Bay Photographic Society meets monthly on Saturdays at the Old Chapel Hall.
Meetings start at 7.30 pm and finish by 10 pm.
Each meeting includes a short talk by a member and a critique of members' prints.
The society has 42 members. Membership costs £35 a year.
The chair is Morwenna Tregear; the treasurer is Idris Penhallow.
The annual exhibition opens on 14 March 2027 and runs for two weeks.
Beginners' workshops are held on the first Tuesday of each month.
Members must book the darkroom at least two days in advance.
""",
    "allotment-committee-notes.md": """# Furzebrook Allotments — committee notes

Plot 17 is rented by Faisal Quarrie.
The water troughs are switched off from November to March.
The committee decided to buy a shared shredder for £420.
Bonfires are not permitted between May and September.
Hosepipes are banned on all plots.
The spring seed swap takes place on 6 March 2027 in the pavilion.
Annual rent is £48, due by 1 April.
The committee meets every other Thursday in the pavilion.
""",
    "flat-4-repairs.md": """# Flat 4 — repairs log

The boiler in flat 4 was serviced on 12 November 2026 by Trenwith Heating.
The engineer replaced the pressure valve.
The next service is due in November 2027.
The landlord, Ottilie Brannock, will cover the cost of £185.
The tenant reported a leak under the kitchen sink on 3 November 2026.
The plumber, Jory Vosper, fixed it the following week.
""",
}

# (folder, question, right answer in other words, wrong answer worded alike)
PAIRS = [
    ("own", "When does the photographic society meet?",
     "The society gets together once a month, usually on a Saturday, at the Old Chapel Hall.",
     "The society gets together once a week, usually on a Sunday, at the Old Chapel Hall."),
    ("own", "How much is membership of the photographic society?",
     "Joining costs thirty-five pounds per year.", "Joining costs fifty-five pounds per year."),
    ("own", "Who chairs the photographic society?",
     "Morwenna Tregear is the society's chair, and Idris Penhallow looks after the money as treasurer.",
     "Morwenna Tregear is the society's chair, and Idris Penhallow looks after the website as secretary."),
    ("own", "When is the society's exhibition?",
     "The yearly exhibition opens on 14 March 2027 and lasts a fortnight.",
     "The yearly exhibition opens on 21 March 2027 and lasts a fortnight."),
    ("own", "When are the beginners' workshops?",
     "Workshops for newcomers take place on the first Tuesday of every month.",
     "Workshops for newcomers take place on the last Friday of every month."),
    ("own", "How do I use the darkroom?",
     "You need to reserve the darkroom a minimum of two days ahead.",
     "You need to reserve the darkroom a minimum of two weeks ahead and pay a £10 deposit."),
    ("own", "Who rents plot 17?", "Plot 17 is Faisal Quarrie's; he's the one renting it.",
     "Plot 17 is Gwilym Trounce's; he's the one renting it."),
    ("own", "When is the allotment water off?", "The water troughs are turned off between November and March.",
     "The water troughs are turned off between June and August."),
    ("own", "What did the allotment committee decide about a shredder?",
     "The committee agreed to purchase a shredder for everyone to share, costing £420.",
     "The committee agreed to rent a shredder for everyone to share, costing £240."),
    ("own", "Can I have a bonfire on my plot?", "Bonfires aren't allowed from May through September.",
     "Bonfires are allowed from May through September, but only after 6 pm."),
    ("own", "When is the seed swap?", "The spring seed exchange is on 6 March 2027, in the pavilion.",
     "The spring seed exchange is on 6 March 2027, in the village church."),
    ("own", "How much is the allotment rent?", "Rent is £48 a year and has to be paid by 1 April.",
     "Rent is £48 a year and has to be paid by 1 June."),
    ("own", "When was the boiler serviced?",
     "The boiler in flat 4 had its service on 12 November 2026, done by Trenwith Heating.",
     "The boiler in flat 4 had its service on 12 November 2026, done by Polglase Gas."),
    ("own", "What did the boiler engineer do?", "The engineer fitted a new pressure valve.",
     "The engineer fitted a new thermostat and flushed the radiators."),
    ("own", "When is the next boiler service?", "The following service should happen in November 2027.",
     "The following service should happen in May 2027."),
    ("own", "Who pays for the boiler service?", "Ottilie Brannock, the landlord, is paying the £185 bill.",
     "Ottilie Brannock, the landlord, is paying the £158 bill."),
    ("own", "What happens at a society meeting?",
     "At every meeting a member gives a brief talk and members' prints are critiqued.",
     "At every meeting a professional photographer gives a paid talk and judges a competition."),
    ("own", "How many members does the photographic society have?", "There are forty-two members.",
     "There are twenty-four members."),
    ("own", "What time do society meetings run?",
     "Meetings begin at 7.30 in the evening and are over by 10.",
     "Meetings begin at 8.30 in the evening and are over by 11."),
    ("own", "Can I use a hosepipe at the allotment?", "You can't use a hosepipe on any plot.",
     "You can use a hosepipe on any plot at weekends."),
    ("own", "When does the allotment committee meet?",
     "The committee gets together fortnightly on Thursdays in the pavilion.",
     "The committee gets together weekly on Tuesdays in the pavilion."),
    ("own", "What leak was reported in flat 4?",
     "On 3 November 2026 the tenant said there was a leak beneath the kitchen sink.",
     "On 3 November 2026 the tenant said there was a leak in the bathroom ceiling."),
    ("own", "Who fixed the leak in flat 4?", "Jory Vosper, a plumber, repaired it the week after.",
     "Jory Vosper, a plumber, repaired it the same day and charged £90."),
    # ashgrove-legal
    ("ashgrove-legal", "Who leads Project Osprey?",
     "Declan Murphy is in charge of Project Osprey, and Margaret Okonkwo-Hale is its sponsor.",
     "Harriet Lowe is in charge of Project Osprey, and Margaret Okonkwo-Hale is its sponsor."),
    ("ashgrove-legal", "What is the Osprey budget?",
     "The partners signed off a budget of £48,500 for it at their 7 October meeting.",
     "The partners signed off a budget of £57,200 for it at their 7 October meeting."),
    ("ashgrove-legal", "When is the Osprey staff training?", "Staff will be trained on 25 and 26 November 2026.",
     "Staff will be trained on 2 and 3 December 2026."),
    ("ashgrove-legal", "Why are we replacing CaseBook?",
     "Support for CaseBook ends in June 2027, and it doesn't work with Outlook or the e-signature tool.",
     "Support for CaseBook ends in June 2027, and it keeps losing client files."),
    ("ashgrove-legal", "How many matters will be migrated to LexiCore?",
     "Roughly 410 open matters will be moved across, along with closed ones from 2019 on.",
     "Roughly 410 open matters will be moved across, along with closed ones from 2012 on."),
    ("ashgrove-legal", "How many document templates are being rebuilt for Osprey?",
     "Sixty document templates are being rebuilt.", "Eighty document templates are being rebuilt."),
    ("ashgrove-legal", "Is the accounts package part of Project Osprey?",
     "No, the accounts package is out of scope and stays as it is; LexiCore sends it an export every night.",
     "No, the accounts package is out of scope and will be replaced next year by Sage."),
    ("ashgrove-legal", "What does the CaseBook data migration cost?",
     "Moving the data over from CaseBook costs £14,900.", "Moving the data over from CaseBook costs £4,900."),
    ("ashgrove-legal", "Who owns the risk of the cut-over clashing with billing?",
     "Harriet Lowe is responsible for the risk of the cut-over clashing with December billing.",
     "Meera Nair is responsible for the risk of the cut-over clashing with December billing."),
    ("ashgrove-legal", "What did Declan say about the Claimsworth quote?",
     "Declan reckoned that once migration was added, Claimsworth would cost more than £55,000.",
     "Declan reckoned that once migration was added, Claimsworth would cost less than £45,000."),
    ("ashgrove-legal", "What is the trainee starting salary from March 2027?",
     "The starting salary for trainees goes up from £27,500 to £29,000 from 1 March 2027.",
     "The starting salary for trainees goes up from £27,500 to £31,000 from 1 March 2027."),
    ("ashgrove-legal", "What was fee income in Q2?",
     "Between July and September 2026 the firm brought in £612,400 in fees, beating its £590,000 target.",
     "Between July and September 2026 the firm brought in £612,400 in fees, missing its £650,000 target."),
    ("ashgrove-legal", "What is our lock-up and the target?",
     "Lock-up stands at 104 days, and the goal is to get it under 95 days by the end of March 2027.",
     "Lock-up stands at 104 days, and the goal is to get it under 75 days by the end of March 2027."),
    ("ashgrove-legal", "What happened with Brennan Joinery?",
     "The partners decided to write off the £3,870 owed by Brennan Joinery because the company was dissolved.",
     "The partners decided to sue Brennan Joinery for the £3,870 it owes."),
    ("ashgrove-legal", "When does the office close for Christmas?",
     "The office shuts at 1pm on Wednesday 23 December 2026 and opens again on Monday 4 January 2027.",
     "The office shuts at 3pm on Wednesday 23 December 2026 and opens again on Monday 4 January 2027."),
    ("ashgrove-legal", "When and where is the Christmas party?",
     "The staff party is on Friday 11 December 2026 at The Calls Brasserie, with £2,400 set aside, roughly "
     "£160 a head.",
     "The staff party is on Friday 11 December 2026 at The Calls Brasserie, with a live band booked by "
     "Robert Ellison."),
    ("ashgrove-legal", "When is the next partners' meeting after October?",
     "The partners meet again on Wednesday 4 November 2026.",
     "The partners meet again on Wednesday 11 November 2026."),
    ("ashgrove-legal", "How many training contracts will be offered for 2027?",
     "Two training contracts will be offered for September 2027, one in Employment and one in "
     "Property/Litigation.",
     "Three training contracts will be offered for September 2027, one in Employment and two in Family law."),
    ("ashgrove-legal", "When is the Osprey go-live now?",
     "Go-live for LexiCore was pushed back to Monday 11 January 2027.",
     "Go-live for LexiCore was pushed back to Monday 18 January 2027."),
    ("ashgrove-legal", "Is the Osprey training still happening in November?",
     "The training on 25 and 26 November is still going ahead as planned.",
     "The training on 25 and 26 November has been cancelled and will be rebooked in February."),
    # pine-street-school
    ("pine-street-school", "Who leads the robotics regional trip?",
     "Samuel Lindqvist is leading the trip, with Declan Delgado as sponsor.",
     "Keisha Romero is leading the trip, with Declan Delgado as sponsor."),
    ("pine-street-school", "Where and when is the robotics regional?",
     "The Cascadia Robotics Regional takes place in Tacoma, WA, from February 12 to 14, 2027.",
     "The Cascadia Robotics Regional takes place in Seattle, WA, from February 12 to 14, 2027."),
    ("pine-street-school", "When does the robotics bus leave?",
     "The district activity bus sets off at 6:00 a.m. on Friday, February 12, 2027.",
     "The district activity bus sets off at 7:30 a.m. on Friday, February 12, 2027."),
    ("pine-street-school", "How many students are going on the robotics trip?", "Fourteen students are going.",
     "Eighteen students are going."),
    ("pine-street-school", "When are robotics permission slips due?",
     "Permission slips and medical forms have to be in by January 15, 2027.",
     "Permission slips and medical forms have to be in by January 25, 2027."),
    ("pine-street-school", "How much is the robotics hotel?",
     "The hotel comes to $2,560: four rooms for two nights at $320 each.",
     "The hotel comes to $2,560: four rooms for two nights at the Marriott downtown."),
    ("pine-street-school", "How is the robotics trip funded?",
     "The booster club is putting in $4,000, students raised $2,200 through a bake sale and car wash, and "
     "the ASB activities fund covers $1,250.",
     "The booster club is putting in $4,000, students raised $2,200 through a raffle, and the PTA covers "
     "$1,250."),
    ("pine-street-school", "When are the robotics build sessions?",
     "The team builds in the multipurpose room on Tuesdays and Thursdays from 3:15 to 6:00 p.m., and on "
     "Saturdays in January too.",
     "The team builds in the multipurpose room on Mondays and Wednesdays from 3:15 to 6:00 p.m., and on "
     "Sundays in January too."),
    ("pine-street-school", "Who leads the STEM lab renovation?",
     "Jennifer Tran leads the STEM lab renovation, and Dr. Lorraine Ashworth sponsors it.",
     "Greg Sandoval leads the STEM lab renovation, and Dr. Lorraine Ashworth sponsors it."),
    ("pine-street-school", "Who is the district facilities contact for the STEM lab renovation?",
     "Greg Sandoval is the district's facilities contact for the lab renovation.",
     "Bill Harrington is the district's facilities contact for the lab renovation."),
    ("pine-street-school", "When do the STEM labs reopen?", "The labs open again on January 19, 2027.",
     "The labs open again on January 29, 2027."),
    ("pine-street-school", "Why are the fume hoods in Room 210 being replaced?",
     "The two fume hoods in Room 210 are being replaced because they didn't pass the August 2026 airflow test.",
     "The two fume hoods in Room 210 are being replaced because they were damaged in a fire in August 2026."),
    ("pine-street-school", "When do winter tryouts start?",
     "Basketball and wrestling tryouts kick off on Monday, November 16, 2026 at 3:15 p.m.",
     "Basketball and wrestling tryouts kick off on Monday, November 23, 2026 at 3:15 p.m."),
    ("pine-street-school", "When is the first home basketball game?",
     "The first home basketball game is against Riverside Heights on Tuesday, December 8, 2026, with JV at "
     "5:30 p.m. and varsity at 7:00 p.m.",
     "The first home basketball game is against Lincoln Valley on Tuesday, December 8, 2026, with JV at "
     "5:30 p.m. and varsity at 7:00 p.m."),
    ("pine-street-school", "Why is Gym A closed?",
     "Gym A is shut from Monday, November 30 to Wednesday, December 2 for floor refinishing, so PE moves to "
     "the MPR and Gym B.",
     "Gym A is shut from Monday, November 30 to Wednesday, December 2 because the roof is being repaired."),
    ("pine-street-school", "What is the supervision stipend?",
     "Staff who supervise a home event get a $35 stipend for each one.",
     "Staff who supervise a home event get a $45 stipend for each one."),
    ("pine-street-school", "How many supervisors does a home event need?",
     "Every home event needs two staff members supervising.",
     "Every home event needs three staff members supervising, plus a police officer."),
    ("pine-street-school", "What is the new student phone policy?",
     "From January 4, 2027, students' phones get locked in pouches during lessons.",
     "From January 4, 2027, students' phones get confiscated at the front office each morning."),
    ("pine-street-school", "How much do the phone pouches cost?",
     "Each pouch costs $14.50, which for 1,150 students adds up to $16,675, covered by the district safety "
     "grant.",
     "Each pouch costs $14.50, which for 1,150 students adds up to $16,675, covered by the PTO."),
    ("pine-street-school", "How did staff vote on the phone policy?", "Staff voted 41 to 8 to adopt the policy.",
     "Staff voted 31 to 18 to adopt the policy."),
    ("pine-street-school", "Where do chemistry classes go during the lab renovation?",
     "From January 4 to January 15, 2027, chemistry in periods 1–3 moves to Room 118.",
     "From January 4 to January 15, 2027, chemistry in periods 1–3 moves to Room 212."),
    ("pine-street-school", "What was decided about the library book budget?",
     "$3,500 of PTO grant money will go towards a collection of diverse authors, with Keisha Romero and the "
     "librarian picking the books.",
     "$5,300 of PTO grant money will go towards a collection of diverse authors, with Keisha Romero and the "
     "librarian picking the books."),
    ("pine-street-school", "When are quarter 1 grades due?",
     "Quarter 1 grades are due by 3:00 p.m. on Tuesday, November 10, 2026.",
     "Quarter 1 grades are due by 3:00 p.m. on Thursday, November 12, 2026."),
    ("pine-street-school", "When are parent-teacher conferences?",
     "Parent-teacher conferences run November 19–20, 2026, and both days finish early.",
     "Parent-teacher conferences run November 19–20, 2026, and are held online only."),
    ("pine-street-school", "Who is organizing the staff holiday potluck?",
     "Keisha Romero offered to organise the staff holiday potluck; the date isn't fixed yet but is likely "
     "December 17.",
     "Aiyana Begay offered to organise the staff holiday potluck; the date isn't fixed yet but is likely "
     "December 17."),
    ("pine-street-school", "How many staff came to the October faculty meeting?",
     "Forty-nine of the 54 staff were there.", "Forty-four of the 54 staff were there."),
    ("pine-street-school", "Who ran the October faculty meeting and who took notes?",
     "Aiyana Begay took the notes and Dr. Lorraine Ashworth ran the meeting.",
     "Keisha Romero took the notes and Dr. Lorraine Ashworth ran the meeting."),
]


def split_of(index: int) -> str:
    return "test" if index % 3 == 2 else "dev"


def open_engines(root: Path, together: bool = False):
    """An engine per folder, by folder name; with `together`, one engine holding all three."""
    from chatapp.engine import ChatEngine

    own = root / "own-docs"
    own.mkdir()
    for name, text in OWN_FOLDER.items():
        (own / name).write_text(text, encoding="utf-8")
    folders = {"own": own, "ashgrove-legal": WORKDOCS / "ashgrove-legal",
               "pine-street-school": WORKDOCS / "pine-street-school"}
    engines = {}
    for name, folder in folders.items():
        if together and engines:
            engine = next(iter(engines.values()))
        else:
            engine = ChatEngine.open(root / ("data" if together else f"data-{name}"), load_sample_kb=False)
        report = engine.ingest(folder)
        assert not report.files_failed, report.files_failed
        engines[name] = engine
    return next(iter(engines.values())) if together else engines


def judge(engine, question: str, answer: str, explicit: bool = False) -> dict:
    if explicit:  # the passages the question retrieves, given as evidence (as `chatapp check --evidence` gives files)
        from chatapp.postprocess.support import chunk_text

        chunks = engine.kb.search(question)
        response = engine.postprocess(answer, question=question, evidence=[chunk_text(c) for c in chunks],
                                      evidence_labels=[c.source for c in chunks])
    else:
        response = engine.postprocess(answer, question=question, search_documents=True)
    flags = [f"{getattr(f.hallucination_type, 'value', f.hallucination_type)}:{f.content[:40]!r}" for f in response.hallucination_flags]
    weakest = min((c for c in response.claim_support if c.claim), key=lambda c: c.score, default=None)
    return {"flags": flags, "recommendation": response.recommendation, "confidence": response.confidence,
            "weakest": (weakest.score, weakest.reason, weakest.evidence, weakest.features) if weakest else None}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=["dev", "test", "both"], default="both")
    parser.add_argument("--show", action="store_true", help="print every right answer flagged and wrong one missed")
    parser.add_argument("--evidence", action="store_true",
                        help="hold each answer to the passages its question retrieves given as explicit evidence "
                             "(as with `chatapp check --evidence`), not as a chat turn's retrieved chunks")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-paraphrase-") as tmp:
        engines = open_engines(Path(tmp))
        results = {"dev": [], "test": []}
        for i, (folder, question, right, wrong) in enumerate(PAIRS):
            split = split_of(i)
            if args.split not in ("both", split):
                continue
            r, w = (judge(engines[folder], question, right, args.evidence),
                    judge(engines[folder], question, wrong, args.evidence))
            results[split].append((i, question, right, wrong, r, w))
        for engine in engines.values():
            engine.close()
    for split, rows in results.items():
        if not rows:
            continue
        n = len(rows)
        right_flagged = sum(bool(r["flags"]) for *_, r, _w in rows)
        right_regen = sum(r["recommendation"] == "Regenerate" for *_, r, _w in rows)
        right_not_accept = sum(r["recommendation"] != "Accept" for *_, r, _w in rows)
        wrong_flagged = sum(bool(w["flags"]) for *_, w in rows)
        wrong_regen = sum(w["recommendation"] in ("Regenerate", "HumanReview") for *_, w in rows)
        mean_r = sum(r["confidence"] for *_, r, _w in rows) / n
        mean_w = sum(w["confidence"] for *_, w in rows) / n
        pair_ok = sum(bool(w["flags"]) and not r["flags"] for *_, r, w in rows)
        print(f"{split}: {n} pairs | right paraphrases: flagged {right_flagged} ({right_flagged / n:.0%}), "
              f"Regenerate {right_regen}, not Accept {right_not_accept}, mean confidence {mean_r:.2f} | "
              f"wrong: flagged {wrong_flagged} ({wrong_flagged / n:.0%}), Regenerate/HumanReview {wrong_regen}, "
              f"mean confidence {mean_w:.2f} | pairs right-clean and wrong-flagged {pair_ok}")
        if args.show:
            for i, question, right, wrong, r, w in rows:
                if r["flags"] or r["recommendation"] != "Accept":
                    print(f"  RIGHT #{i} {r['recommendation']} {r['confidence']:.2f} {r['flags']}\n    {right}\n"
                          f"    weakest: {r['weakest'][:3] if r['weakest'] else None}")
                if not w["flags"]:
                    print(f"  WRONG missed #{i} {w['recommendation']} {w['confidence']:.2f}\n    {wrong}\n"
                          f"    weakest: {w['weakest'][:3] if w['weakest'] else None}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
