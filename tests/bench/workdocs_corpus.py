"""A folder of ordinary work documents for an invented organisation, with the
truth of who is who in it: the (person, email), (person, role), (person, phone)
and (project, lead) pairs the documents state.

The truth is what the generator wrote: every pair is recorded at the moment a
document states it, so a pair is in the truth only if some document really
says it. The documents are the kinds a user keeps, each layout seen several
times:

- .eml mail: From/To/Cc headers with display names and addresses (first.last@,
  flast@, first@), signatures in several styles ("Name | Title | phone", one
  line each for name / title / company / phone, "Best,\\nFirst" followed by the
  full signature, or just a first name);
- Markdown directory pages: bullets, a table, "Name (Role) <email>" lines;
- Markdown project pages and status updates: front matter (title / owner /
  status, the owner being the lead), "Lead: Name" or "Project lead: Name",
  "Budget: ..." and sometimes "Sponsor: Name" (another person, not the lead);
- meeting notes in prose: "Attendees: ...", "Dana Kim (Finance Lead) presented ...";
- CSV people lists with varying header spellings and column order, a CSV of
  projects, JSON lists of people records.

Distractors: people who share a first name; one person whose address appears
only in To: headers; shared mailboxes (info@, allstaff@ shown as "All Staff",
helpdesk@) in headers, signatures and prose, next to people's names; company
names in signatures; generic notes with no people at all.

Given names come from the US census tables the `names` package ships, surnames
from its surname table; roles, departments, companies and project words are
invented here. Deterministic for a seed.

    from workdocs_corpus import generate      # from tests/bench (a bench script)
    truth = generate(Path("corpus"), n_documents=220, seed=7)
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from importlib import resources
from pathlib import Path

ORGANISATION = "Larkspur Freight"
DOMAIN = "larkspur-freight.example"
PARTNERS = (  # companies outside the organisation that write to it
    ("Corvid Analytics", "corvid-analytics.example"),
    ("Bramble & Finch Legal", "bramblefinch.example"),
    ("Tidewater Print Co.", "tidewater-print.example"),
)
# Mailboxes that are no one: each may appear beside a person's name.
SHARED_MAILBOXES = (
    ("All Staff", f"allstaff@{DOMAIN}"),
    (ORGANISATION, f"info@{DOMAIN}"),
    ("IT Helpdesk", f"helpdesk@{DOMAIN}"),
    ("Finance Team", f"finance@{DOMAIN}"),
)

# About forty ordinary job titles, by the department that has them.
ROLES_BY_DEPARTMENT = {
    "Finance": ("Finance Lead", "Controller", "Payroll Specialist", "Financial Analyst", "Accounts Payable Clerk"),
    "Engineering": ("Software Engineer", "Engineering Manager", "Site Reliability Engineer", "QA Engineer",
                    "Frontend Developer", "Solutions Architect"),
    "Operations": ("Operations Manager", "Logistics Coordinator", "Warehouse Supervisor", "Supply Chain Analyst",
                   "Fleet Manager"),
    "Sales": ("Account Executive", "Head of Sales", "Sales Development Representative",
              "Customer Success Manager"),
    "Marketing": ("Marketing Coordinator", "Content Strategist", "Brand Designer", "Product Marketing Manager"),
    "People": ("HR Business Partner", "Recruiter", "Office Manager", "Executive Assistant", "Facilities Coordinator"),
    "Product": ("Product Manager", "UX Designer", "Data Analyst", "Program Manager", "Technical Writer"),
    "Legal and IT": ("Legal Counsel", "Compliance Officer", "IT Administrator", "Security Analyst"),
}
PARTNER_ROLES = ("Account Manager", "Senior Consultant", "Partner", "Client Services Lead", "Data Scientist")
PROJECT_WORDS = (
    "Heron Quartz Lantern Saffron Driftwood Aurora Tamarind Basalt Kestrel Marigold Obsidian Pinecone "
    "Solstice Tundra Willow Zephyr Cinder Juniper Mistral Copperleaf Bramblewood Starling Fennel Halcyon"
).split()
STATUSES = ("active", "planning", "on hold", "in review", "active")

# --- filler prose: work talk that names no one ---------------------------------------

_NOUNS = ("forecast", "route plan", "carrier contract", "invoice batch", "dashboard", "onboarding checklist",
          "warehouse layout", "release", "vendor shortlist", "budget", "rollout plan", "survey", "audit",
          "customs form", "shipping label template", "fuel surcharge", "pallet count", "SLA report")
_ADJECTIVES = ("revised", "quarterly", "draft", "final", "updated", "regional", "preliminary", "shared")
_TIMES = ("on Monday", "by Wednesday", "before Friday", "next week", "at month end", "in Q3",
          "after the offsite", "this afternoon")


def _filler_sentence(rng: random.Random) -> str:
    noun, other = rng.sample(_NOUNS, 2)
    adjective, when = rng.choice(_ADJECTIVES), rng.choice(_TIMES)
    return rng.choice((
        f"The {adjective} {noun} is ready for review {when}.",
        f"We still need sign-off on the {noun} before the {other} can move.",
        f"Numbers for the {noun} came in {rng.randint(3, 40)}% above plan, mostly because of the {other}.",
        f"Please keep comments on the {adjective} {noun} in the shared folder.",
        f"The {other} slipped again, which pushes the {noun} back a week.",
        f"Nothing blocks the {noun}; the {other} is the open question.",
        f"We agreed to freeze the {noun} {when} and revisit the {other} later.",
        f"{rng.randint(2, 30)} items on the {noun} are still open.",
    ))


def _filler(rng: random.Random, sentences: tuple[int, int] = (2, 5)) -> str:
    return " ".join(_filler_sentence(rng) for _ in range(rng.randint(*sentences)))


# --- the organisation ------------------------------------------------------------------


@dataclass
class Person:
    first: str
    last: str
    role: str
    email: str
    phone: str
    department: str  # a partner's company name for someone outside the organisation
    internal: bool = True

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}"


@dataclass
class Project:
    name: str
    lead: Person
    sponsor: Person
    status: str
    budget: int


@dataclass
class Truth:
    """What the documents state, as written (names, addresses and roles in their own spelling)."""

    emails: set[tuple[str, str]] = field(default_factory=set)  # (person name, email)
    roles: set[tuple[str, str]] = field(default_factory=set)  # (person name, role)
    phones: set[tuple[str, str]] = field(default_factory=set)  # (person name, phone as "+1 AAA 555 01NN")
    leads: set[tuple[str, str]] = field(default_factory=set)  # (project name, lead's name)
    people: list[Person] = field(default_factory=list)
    projects: list[Project] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    shared_mailboxes: tuple[tuple[str, str], ...] = SHARED_MAILBOXES

    def stated(self, p: Person, *what: str) -> None:
        """A document just stated these of p's attributes ("email", "role", "phone") beside p's name."""
        for attribute in what:
            getattr(self, attribute + "s").add((p.name, getattr(p, attribute)))

    def stated_lead(self, project: Project) -> None:
        self.leads.add((project.name, project.lead.name))


def _census_names(filename: str, most: int) -> list[str]:
    """The `most` commonest names of one of the `names` package's tables, title-cased."""
    text = (resources.files("names") / filename).read_text(encoding="utf-8")
    out = []
    for line in text.splitlines()[:most]:
        word = line.split()[0] if line.split() else ""
        if word.isalpha() and len(word) > 2:
            out.append(word.capitalize())
    return out


def _local_part(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalpha())


def _make_people(rng: random.Random, internal: int) -> list[Person]:
    given = _census_names("dist.male.first", 300) + _census_names("dist.female.first", 300)
    surnames = _census_names("dist.all.last", 1500)
    departments = list(ROLES_BY_DEPARTMENT)
    people: list[Person] = []
    names: set[tuple[str, str]] = set()
    phones: set[str] = set()

    def new_phone() -> str:
        while True:
            phone = f"+1 {rng.choice((206, 312, 415, 617, 718, 503))} 555 01{rng.randint(0, 99):02d}"
            if phone not in phones:
                phones.add(phone)
                return phone

    def new_name(first: str | None = None) -> tuple[str, str]:
        while True:
            pair = (first or rng.choice(given), rng.choice(surnames))
            if pair not in names:
                names.add(pair)
                return pair

    for n in range(internal):
        # Every third of the first six shares the first name of the one before: two Danas.
        first, last = new_name(people[-1].first if n in (1, 3, 5) else None)
        department = departments[n % len(departments)]
        people.append(Person(first, last, rng.choice(ROLES_BY_DEPARTMENT[department]), "", new_phone(), department))
    for n, (company, _) in enumerate(PARTNERS * 2):
        first, last = new_name()
        people.append(Person(first, last, rng.choice(PARTNER_ROLES), "", new_phone(), company, internal=False))

    first_counts: dict[str, int] = {}
    for p in people:
        first_counts[p.first] = first_counts.get(p.first, 0) + 1
    taken: set[str] = set()
    for p in people:
        domain = DOMAIN if p.internal else dict(PARTNERS)[p.department]
        first, last = _local_part(p.first), _local_part(p.last)
        styles = ["first.last", "flast"] + (["first"] if first_counts[p.first] == 1 else [])
        for style in [rng.choice(styles), "first.last"]:
            local = {"first.last": f"{first}.{last}", "flast": first[0] + last, "first": first}[style]
            if f"{local}@{domain}" not in taken:
                break
        p.email = f"{local}@{domain}"
        taken.add(p.email)
    return people


# --- documents ---------------------------------------------------------------------------


class _Writer:
    """Writes the documents and records in `truth` each pair as it is stated."""

    def __init__(self, folder: Path, rng: random.Random, truth: Truth):
        self.folder, self.rng, self.truth = folder, rng, truth
        self.start = datetime(2026, 2, 2, 9, 0, tzinfo=timezone.utc)
        self.count = 0

    def when(self) -> datetime:
        """The date of the document being written (its name, Date: header and "Date:" line agree)."""
        return self.start + timedelta(hours=9 * self.count + self.count * 5 % 9)

    def write(self, subfolder: str, stem: str, suffix: str, text: str) -> None:
        path = self.folder / subfolder / f"{self.when():%Y-%m-%d}-{self.count:03d}-{stem}{suffix}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        self.truth.files.append(path)
        self.count += 1

    # --- mail -------------------------------------------------------------------------

    def address(self, p: Person) -> str:
        self.truth.stated(p, "email")
        return f"{p.name} <{p.email}>"

    def signature(self, sender: Person, style: str) -> list[str]:
        t = self.truth
        company = ORGANISATION if sender.internal else sender.department
        if style == "pipe":
            t.stated(sender, "role", "phone")
            return ["Thanks,", "", "--", f"{sender.name} | {sender.role} | {sender.phone}"]
        if style == "lines":
            t.stated(sender, "role", "phone")
            return ["Kind regards,", "", sender.name, sender.role, company, sender.phone]
        if style == "best_first":
            t.stated(sender, "role", "phone")
            return ["Best,", sender.first, "", sender.name, f"{sender.role}, {company}", f"T: {sender.phone}",
                    f"{company} · {_website(company)}"]
        if style == "name_title":
            t.stated(sender, "role")
            return ["Cheers,", sender.first, "", "-- ", f"{sender.name}", f"{sender.role} · {company}"]
        return ["Thanks,", sender.first]  # "plain": no role, no phone

    def email(self, sender: Person | None, to: list, cc: list, signature_style: str, subject: str) -> None:
        rng = self.rng
        header_of = lambda x: self.address(x) if isinstance(x, Person) else f"{x[0]} <{x[1]}>"  # noqa: E731
        when = self.when()
        if sender is None:  # a shared mailbox writes
            box = rng.choice(SHARED_MAILBOXES[1:3])
            signed = " | ".join(dict.fromkeys((box[0], ORGANISATION, box[1])))  # "info" is the organisation
            from_line, sign = f"{box[0]} <{box[1]}>", ["", "--", signed]
        else:
            from_line, sign = self.address(sender), self.signature(sender, signature_style)
        lines = [f"From: {from_line}", "To: " + ", ".join(header_of(x) for x in to)]
        if cc:
            lines.append("Cc: " + ", ".join(header_of(x) for x in cc))
        lines += [f"Subject: {subject}", f"Date: {format_datetime(when)}",
                  f"Message-ID: <{when:%Y%m%d%H%M}.{self.count}@{DOMAIN}>", "MIME-Version: 1.0",
                  'Content-Type: text/plain; charset="utf-8"', ""]
        first_to = to[0]
        greeting = f"Hi {first_to.first}," if isinstance(first_to, Person) else "Hi all,"
        lines += [greeting, "", _filler(rng), ""]
        if rng.random() < 0.4:
            lines += [_filler(rng, (1, 3)), ""]
        if rng.random() < 0.25:  # a shared mailbox in the body, right beside people's names
            box = rng.choice(SHARED_MAILBOXES)
            lines += [f"Questions can also go to {box[1]}.", ""]
        lines += sign
        self.write("mail", _slug(subject), ".eml", "\n".join(lines) + "\n")

    # --- pages ------------------------------------------------------------------------

    def directory(self, department: str, members: list[Person], style: str) -> None:
        t = self.truth
        lines = [f"# {department} team directory", "",
                 f"Who to ask in {department}. Updated {self.when():%Y-%m-%d}; for changes write to "
                 f"{SHARED_MAILBOXES[1][1]}.", ""]
        if style == "bullets":
            for p in members:
                t.stated(p, "role", "email", "phone")
                lines.append(f"- **{p.name}** — {p.role}. Email: {p.email} Phone: {p.phone}")
        elif style == "table":
            lines += ["| Name | Role | Email | Phone |", "| --- | --- | --- | --- |"]
            for p in members:
                t.stated(p, "role", "email", "phone")
                lines.append(f"| {p.name} | {p.role} | {p.email} | {p.phone} |")
        else:  # "Name (Role) <email>" lines
            for p in members:
                t.stated(p, "role", "email")
                lines.append(f"{p.name} ({p.role}) <{p.email}>")
                lines.append("")
        lines += ["", _filler(self.rng, (1, 2))]
        self.write("directory", f"{_slug(department)}-directory", ".md", "\n".join(lines) + "\n")

    def project_page(self, project: Project, style: int) -> None:
        self.truth.stated_lead(project)
        lines = []
        if style in (0, 2):
            lines += ["---", f"title: {project.name}", f"owner: {project.lead.name}", f"status: {project.status}",
                      "---", ""]
        lines += [f"# {project.name}", ""]
        lines.append(f"Lead: {project.lead.name}" if style in (0, 1) else f"Project lead: {project.lead.name}")
        if style != 1:
            lines.append(f"Sponsor: {project.sponsor.name}")
        lines += [f"Budget: ${project.budget:,}", f"Status: {project.status}", "", "## Goals", "",
                  _filler(self.rng), "", "## Risks", "", _filler(self.rng, (1, 3))]
        self.write("projects", _slug(project.name), ".md", "\n".join(lines) + "\n")

    def status_update(self, project: Project, month: str) -> None:
        self.truth.stated_lead(project)
        lines = [f"# {project.name} — status update ({month})", "",
                 f"Project lead: {project.lead.name}  ", f"Status: {project.status}", "",
                 _filler(self.rng), "", f"{project.sponsor.first} asked for the next update before the review.", "",
                 _filler(self.rng, (1, 3))]
        self.write("projects", f"{_slug(project.name)}-update", ".md", "\n".join(lines) + "\n")

    def meeting(self, title: str, attendees: list[Person], presenters: list[Person], projects: list[Project],
                markdown: bool) -> None:
        rng, t = self.rng, self.truth
        head = f"# {title}" if markdown else title.upper()
        label = rng.choice(("Attendees", "Present"))
        lines = [head, "", f"Date: {self.when():%Y-%m-%d}", f"{label}: " + ", ".join(p.name for p in attendees), ""]
        for p in presenters:
            t.stated(p, "role")
            verb = rng.choice(("presented", "walked us through", "summarised", "reported on"))
            lines += [f"{p.name} ({p.role}) {verb} the {rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)}. "
                      + _filler(rng, (1, 2)), ""]
        for project in projects:
            lead = project.lead
            if lead in attendees:
                t.stated_lead(project)
                lines += [f"{lead.name}, who leads {project.name}, said the {rng.choice(_NOUNS)} is on track. "
                          + _filler(rng, (1, 2)), ""]
            else:  # the project is discussed, its lead is not named
                lines += [f"{project.name} came up: " + _filler(rng, (1, 2)), ""]
        if rng.random() < 0.35:  # a person beside a shared mailbox that is not theirs
            box = rng.choice(SHARED_MAILBOXES)
            lines += [f"{attendees[0].name} asked everyone to send receipts to {box[1]}.", ""]
        lines += ["Action items:" if markdown else "ACTION ITEMS", ""]
        for p in rng.sample(attendees, min(3, len(attendees))):
            lines.append(f"- {p.first} to follow up on the {rng.choice(_NOUNS)} {rng.choice(_TIMES)}")
        self.write("meetings", _slug(title), ".md" if markdown else ".txt", "\n".join(lines) + "\n")

    # --- data files ---------------------------------------------------------------------

    CSV_HEADERS = (
        ("name", "role", "email", "phone"),
        ("Full Name", "Job Title", "E-mail", "Phone Number"),
        ("Employee", "Title", "Email Address", "Tel."),
    )
    JSON_KEYS = (
        ("name", "role", "email", "phone"),
        ("full_name", "title", "email_address", "mobile"),
        ("employee", "position", "mail", "tel"),
    )

    def people_csv(self, group: str, members: list[Person], variant: int) -> None:
        header = self.CSV_HEADERS[variant % len(self.CSV_HEADERS)]
        order = [0, 1, 2, 3] if variant < len(self.CSV_HEADERS) else [2, 0, 3, 1]  # a fourth: email first
        rows = [",".join(header[i] for i in order)]
        for p in members:
            self.truth.stated(p, "role", "email", "phone")
            values = (_csv_cell(p.name), _csv_cell(p.role), p.email, p.phone)
            rows.append(",".join(values[i] for i in order))
        self.write("data", f"{_slug(group)}-people", ".csv", "\n".join(rows) + "\n")

    def people_json(self, group: str, members: list[Person], variant: int) -> None:
        keys = self.JSON_KEYS[variant % len(self.JSON_KEYS)]
        records = []
        for p in members:
            self.truth.stated(p, "role", "email")
            record = dict(zip(keys[:3], (p.name, p.role, p.email)))
            if self.rng.random() < 0.7:
                self.truth.stated(p, "phone")
                record[keys[3]] = p.phone
            record["team"] = p.department
            records.append(record)
        self.write("data", f"{_slug(group)}-contacts", ".json", json.dumps(records, indent=2) + "\n")

    def projects_csv(self, projects: list[Project]) -> None:
        rows = ["project,lead,status,budget"]
        for project in projects:
            self.truth.stated_lead(project)
            rows.append(f"{project.name},{project.lead.name},{project.status},{project.budget}")
        self.write("data", "projects", ".csv", "\n".join(rows) + "\n")

    def note(self, title: str) -> None:
        box = self.rng.choice(SHARED_MAILBOXES)
        lines = [title, "=" * len(title), "", _filler(self.rng, (3, 6)), "",
                 f"Requests go to {box[0]} ({box[1]}).", "", _filler(self.rng, (2, 4))]
        self.write("notes", _slug(title), ".txt", "\n".join(lines) + "\n")


def _website(company: str) -> str:
    return "www." + _local_part(company.split()[0]) + ".example"


def _slug(text: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())[:50]


def _csv_cell(text: str) -> str:
    return f'"{text}"' if "," in text else text


# --- the corpus --------------------------------------------------------------------------


def generate(folder: Path, n_documents: int = 220, seed: int = 7) -> Truth:
    """Write `n_documents` files (at least 40) under `folder`; the pairs they state."""
    if n_documents < 40:
        raise ValueError("n_documents must be at least 40 for every layout to appear")
    rng = random.Random(seed)
    truth = Truth()
    folder = Path(folder)
    people = _make_people(rng, internal=max(16, n_documents // 5))
    internal = [p for p in people if p.internal]
    partners = [p for p in people if not p.internal]
    # One person is only ever written to: their address is in To: headers and nowhere else.
    only_written_to = internal[-1]
    listed = [p for p in internal if p is not only_written_to]  # in directories and data files
    truth.people = people

    words = rng.sample(PROJECT_WORDS, min(len(PROJECT_WORDS), max(4, n_documents // 16)))
    for word in words:
        lead, sponsor = rng.sample(listed, 2)
        truth.projects.append(Project(f"Project {word}", lead, sponsor, rng.choice(STATUSES),
                                      rng.randrange(40, 900) * 1000))
    projects = truth.projects

    writer = _Writer(folder, rng, truth)
    departments = list(ROLES_BY_DEPARTMENT)
    by_department = {d: [p for p in listed if p.department == d] for d in departments}

    # Directory pages: every department at least once, the three styles in turn.
    directory_pages = max(len(departments), n_documents // 18)
    for n in range(directory_pages):
        department = departments[n % len(departments)]
        writer.directory(department, by_department[department], ("bullets", "table", "lines")[n % 3])
    # People lists as CSV and JSON: each a random part of the organisation.
    for n in range(max(2, n_documents // 40)):
        writer.people_csv(f"team list {n + 1}", rng.sample(listed, min(len(listed), rng.randint(6, 14))), n)
        writer.people_json(f"contacts {n + 1}", rng.sample(listed, min(len(listed), rng.randint(5, 12))), n)
    writer.projects_csv(projects)
    for n, project in enumerate(projects):
        writer.project_page(project, n % 3)
        writer.status_update(project, rng.choice(("January", "February", "March", "April")))

    # Meeting notes: the person only written to presents in the first, so their role is stated somewhere.
    meetings = max(6, n_documents // 6)
    for n in range(meetings):
        attendees = rng.sample(internal, rng.randint(3, 7))
        if n == 0 and only_written_to not in attendees:
            attendees.append(only_written_to)
        presenters = [only_written_to] if n == 0 else rng.sample(attendees, rng.randint(1, 2))
        discussed = rng.sample(projects, rng.randint(1, 2))
        title = f"{rng.choice(departments)} weekly sync {n + 1}"
        writer.meeting(title, attendees, presenters, discussed, markdown=n % 3 != 2)

    notes = max(3, n_documents // 10)
    mails = n_documents - writer.count - notes
    styles = ("pipe", "lines", "best_first", "name_title", "plain")
    for n in range(mails):
        if n < len(partners):  # every partner writes once with a full signature
            sender, style = partners[n], styles[n % 3]
        elif n % 17 == 5:  # a shared mailbox writes to everyone
            sender, style = None, "plain"
        else:
            sender, style = rng.choice(listed), styles[n % len(styles)]
        others = [p for p in internal if p is not sender and p is not only_written_to]
        to: list = rng.sample(others, rng.randint(1, 2))
        if n % 9 == 1:
            to.append(only_written_to)
        if sender is None or n % 11 == 3:
            to.insert(0, SHARED_MAILBOXES[0])  # "All Staff <allstaff@...>"
        cc: list = rng.sample(others, rng.randint(0, 2))
        if n % 7 == 2:
            cc.append(rng.choice(SHARED_MAILBOXES[1:]))
        subject = rng.choice((f"{rng.choice(projects).name}: {rng.choice(_NOUNS)}", f"Re: {rng.choice(_NOUNS)}",
                              f"{rng.choice(_ADJECTIVES).capitalize()} {rng.choice(_NOUNS)}"))
        writer.email(sender, to, cc, style, subject)
    for n in range(notes):
        writer.note(rng.choice(("Office move FAQ", "Warehouse safety checklist", "Expense policy",
                                "Holiday schedule", "Laptop refresh", "Parking and access")) + f" {n + 1}")
    return truth
