"""People and how to reach them: mail headers, signature blocks, sign-offs and directory lines.

Each reader returns Observations about persons: their email, phone, role, department and
the other names they go by. What makes a line a person's is its layout (a header's display
name, a "Name | Title | phone" signature, a "Name — Role. Email: …" directory line), never a
list of known names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable
from email.utils import getaddresses

from chatapp.knowledge.extraction.observations import (
    ALIAS,
    INNER_NICKNAME,
    TRAILING_NICKNAME,
    MENTION,
    NAME_PARTICLES,
    NICKNAME_KEYS,
    PROSE_NAME,
    Observation,
    clean_name,
    names_itself,
    is_group_name,
    is_job_word,
    key_for_label,
    looks_like_person,
    natural_order_names,
    surname_first_turned,
)
from chatapp.accents import fold, strip_accents, umlauts_spelled_out
from chatapp.lexicon import is_common, is_first_name, is_surname
from chatapp.knowledge.parsers.mail import ATTRIBUTION_OPENER, ATTRIBUTION_VERB, is_reply_attribution

EMAIL = re.compile(r"(?<![\w.+-])[\w.+'-]+@[\w-]+(?:\.[\w-]+)+(?<!\.)")
# Phone numbers as offices write them: "0113 496 0405", "(541) 555-0148", "+31 6 2830 4471",
# "(541) 555-0100 ext. 214", or a bare "ext. 101"; Québec writes the extension "poste" ("514-555-0182 poste 204"),
# Brazil "ramal" ("+55 41 3029-4400 ramal 2114", a directory's bare "ramal 2114").
PHONE = re.compile(
    r"(?<![\w£$€])(?:(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,5}\)[\s.-]?)?\d{1,5}(?:[\s.-]\d{2,8}){1,4}(?:-\d{1,4}(?=\D|$))?"
    r"(?:\s*(?:ext\.?|x|poste|ramal)\s*\d{1,5})?|(?:ext\.?|poste|ramal)\s*\d{2,5})(?![\w%])",
    re.IGNORECASE,
)
# Local parts of shared mailboxes: whatever display name they carry, they are nobody's own address.
ROLE_MAILBOXES = frozenset(
    "info hello contact office admin support help helpdesk team staff all allstaff everyone sales accounts "
    "billing finance hr jobs careers press media marketing noreply no-reply reception enquiries inquiries "
    "orders service customerservice operations ops it security legal privacy webmaster postmaster "
    # French ones: the volunteers', the team's, the front desk's, the office's
    "benevoles bénévoles equipe équipe accueil secretariat secrétariat inscriptions comptabilite comptabilité".split()
)
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
# "15-12-2026", "07.12.2026": a day written in numbers, as much of the world writes it, is no phone number.
_NUMERIC_DATE = re.compile(r"(?:0?[1-9]|[12]\d|3[01])([./-])(?:0?[1-9]|1[0-2])\1(?:19|20)\d\d|(?:0?[1-9]|1[0-2])/(?:0?[1-9]|[12]\d|3[01])/(?:19|20)\d\d")
_URL = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
# A line that closes a letter just before the writer's name.
_CLOSING = re.compile(
    r"^(?:thanks|thank you|many thanks|cheers|best|best wishes|best regards|kind regards|regards|warm regards|"
    r"all the best|speak soon|see you|yours|sincerely|yours sincerely|thanks again|with thanks|ta|"
    # French sign-offs: "Merci!", "Bonne soirée,", "Cordialement,", "Au plaisir,", "À bientôt,"
    r"merci|bonne journée|bonne soirée|bonne fin de journée|cordialement|salutations|au plaisir|à bientôt|"
    r"bien à vous|amitiés|"
    # German ones: "Viele Grüße", "Mit freundlichen Grüßen", "Gruß", "Danke und bis bald"
    r"(?:viele|beste|liebe|herzliche|schöne|freundliche) grüße|mit freundlichen grüßen|grüße|gruß|danke|"
    r"vielen dank|bis bald|"
    # Portuguese and Spanish ones: "Abraço,", "Um abraço,", "Atenciosamente,", "Saludos,", "Un abrazo,"
    r"(?:um |grande )?abraços?|atenciosamente|obrigad[oa]|muito obrigad[oa]|saudações|cumprimentos|"
    r"(?:un |muchos )?saludos|un saludo|(?:un |muchos )?abrazos?|atentamente|cordialmente|(?:muchas )?gracias)"
    r"(?!\w)[^\n]{0,30}[,!.]?$",
    re.IGNORECASE,
)
# A forwarded or quoted message's own header lines in the body: "From: Ysolde Merriweather <ysolde@…>".
_BODY_HEADER = re.compile(r"^[ \t>]*\**(?:From|To|Cc)\**:\**[ \t]*([^\n]*<[^<>\s]+@[^<>\s]+>[^\n]*)$", re.MULTILINE)
# A message's To: line in its own header block: "To: Caoimhe Ní Bhriain <caoimhe.nibhriain@…>".
_BODY_HEADER_TO = re.compile(r"^[ \t>]*\**To\**:\**[ \t]*([^\n]*<[^<>\s]+@[^<>\s]+>[^\n]*)$", re.MULTILINE)
# "Hi Keeva,", "Dear Paddy": a message's greeting of one person by one name.
_GREETING = re.compile(r"(?i:hi|hello|hey|dear|morning|good morning|good afternoon|hallo|liebe|lieber)\s+([A-Z][^\W\d_]{2,15})\s*[,!]?$")
_HEADER_OR_RULE = re.compile(r"(?:\**(?:from|to|cc|bcc|sent|date|subject)\**:|-{2,}|_{4,}|on\s.*:$)", re.IGNORECASE)
_GROUP_GREETED = frozenset("all team everyone everybody folks guys colleagues sir sirs madam gents ladies friends "
                           "there both partners alle zusammen".split())
# Where a mail's own part ends and a quoted or forwarded one begins: "On … wrote:", an Outlook
# "-----Original Message-----" or its rule of underscores, "---------- Forwarded message ---------",
# or the earlier mail's own "From:" line. A sign-off below it is the earlier writer's.
_QUOTED_PART = re.compile(
    rf"\n(?:On |[ \t>]*{ATTRIBUTION_OPENER}\s[^\n]{{4,200}}?(?<!\w){ATTRIBUTION_VERB}(?!\w)[^\n:]{{0,160}}\s?:[ \t]*\n|[ \t>]*-{2,}\s*(?:Original Message|Forwarded message|Oorspronkelijk bericht|Doorgestuurd bericht|Ursprüngliche Nachricht)|[ \t>]*Begin forwarded message|"
    r"[ \t>]*_{8,}[ \t]*\n|[ \t>]*\**From\**:[ \t])",
    re.IGNORECASE,
)
# "On 23 Nov 2026, at 17:45, Margaret Okonkwo-Hale <margaret@…> wrote:" — who wrote a quoted message.
# "Em qui., 26 de nov. de 2026 às 08:04, Bia Lemos <bia@…> escreveu:" — the same, from a mail client in another language.
_QUOTE_HEADER = re.compile(
    rf"^{ATTRIBUTION_OPENER} ([^<>\n]{{4,120}}?)\s*<([^<>\s]+@[^<>\s]+)>\s*{ATTRIBUTION_VERB}\s?:\s*$", re.MULTILINE
)
_INLINE_ROLE = re.compile(rf"({PROSE_NAME})\s+\(([A-Z][^()]{{2,60}})\)")
_TITLE_SMALL_WORDS = frozenset("of and & for the in to at".split())
# A job named in prose, in lower case, beside a name set off by a comma: "the conservation officer,
# Ifor Penhaligon," and "Wenna Trask, our parish clerk". Its last word (or the one before "of") is
# a word for someone who does something: an agent ending ("-er", "-or", "-ist", "-ant", "-ian",
# "-ee", "-ary") or one of the few everyday titles without one.
_PROSE_ROLE = r"[a-z][a-z-]+(?:\s+[a-z][a-z-]+){0,3}"
_OWNER = r"(?:the|our|their|your|its|my|his|her)\s+"
_ROLE_BEFORE_NAME = re.compile(rf"\b{_OWNER}(?P<role>{_PROSE_ROLE}),\s+(?P<name>{PROSE_NAME})(?![\w'’-])")
_NAME_BEFORE_ROLE = re.compile(
    rf"(?<![\w'’-])(?P<name>{PROSE_NAME}),\s+(?:{_OWNER})?(?P<role>{_PROSE_ROLE})"
    r"(?=\s*(?:[,.;:)]|$)|\s+(?:at|for|in|on|with)\b)"
)
# The job right before the name, with no comma, at the head of a line or after "our"/"the":
# "- Sous chef Kwabena Owusu covers weekends", "our finance officer Nerys Lloyd".
_ROLE_RIGHT_BEFORE_NAME = re.compile(
    rf"(?:^\s*(?:[-*•+]\s+)?|\b{_OWNER})(?P<role>[A-Za-z][a-z-]+(?:\s+[a-z][a-z-]+){{0,2}})\s+(?P<name>{PROSE_NAME})"
    r"(?![\w'’-])"
)
# "Tan Wei Ming (Jason)", "Goh Kai Xiang (Kelvin)": a given name in brackets after a full name is the name
# the person goes by (an English name beside a Chinese one, as Singapore and Hong Kong write them), not a job.
_NAME_THEN_GIVEN_NAME = re.compile(rf"(?P<name>{PROSE_NAME})\s*\((?P<goes_by>[A-Z][a-z'’-]{{1,20}})\)")


def _goes_by(word: str, name: str) -> bool:
    """Whether a bracketed word after `name` is a given name the person goes by ("Jason"), not a title
    ("Porter", "Dean"). An "-ian" or "-or" that is a given name ("Vivian", "Victor") is no job's agent ending."""
    titled = is_job_title(word) and not word.lower().endswith(("ian", "or"))
    if not titled and _shortens_given_name(word, name):
        return True  # "Olufunmilayo Adebanjo (Funmi)", "Babatunde Okeowo (Tunde)": her first name cut short
    return is_first_name(word) and not titled and word not in name.split()


def _shortens_given_name(word: str, name: str) -> bool:
    """Whether a lone word is a piece of the name's first word, as "Funmi" is of Olufunmilayo, "Rob" of
    Robert: the short form someone goes by, three letters at least."""
    words = name.split()
    return (len(words) >= 2 and word.isalpha() and len(word) >= 3 and word.lower() != words[0].lower()
            and word.lower() in words[0].lower())


def family_name(name: str) -> str:
    """The family name: the first word of a name written family name first, as Chinese names are ("Tan
    Wei Ming": "Tan" is a surname and no given name), else the last word."""
    words = name.split()
    if len(words) >= 2 and is_surname(words[0]) and not is_first_name(words[0]):
        return words[0]
    return words[-1]


def family_names(name: str) -> list[str]:
    """The family names a nickname goes with: `family_name`, and for a name ending in two surnames, as
    Spanish and Portuguese names do ("José Luis Vásquez Morales", "Guadalupe Méndez Cruz"), the first of
    them too, the one people use ("Pepe Vásquez")."""
    words = name.split()
    names = [family_name(name)]
    if len(words) >= 3 and names[0] == words[-1] and is_surname(words[-2]) and not is_first_name(words[-2]) \
            and is_surname(words[-1]):
        names.insert(0, words[-2])
    return names


# "Pavla Horáková started on 23 November as assistant brewer": someone who joined, and the job they joined as.
_JOINED_AS = re.compile(
    rf"(?<![\w'’-])(?P<name>{PROSE_NAME})\s+(?:has\s+)?(?:started|starts|joined|joins|began|begins)\b"
    rf"[^.;:()]{{0,40}}?\bas\s+(?:an?\s+|our\s+|the\s+)?(?P<role>{_PROSE_ROLE})"
    r"(?=\s*(?:[,.;:()]|$)|\s+(?:at|for|in|on|with|from)\b)"
)
# "run by Gregor Harlow (director) and …": a job in lower case in brackets right after the name.
_NAME_THEN_BRACKETED_ROLE = re.compile(rf"(?<![\w'’-])(?P<name>{PROSE_NAME})\s+\((?P<role>{_PROSE_ROLE})\)")
# "Gregor Harlow is the director.", "Morven Shaw is our bookkeeper": the job in lower case after "is
# the/our" (never "is a": "is a keen cyclist" says what someone is like, not their job).
_NAME_IS_THE_ROLE = re.compile(
    rf"(?<![\w'’-])(?P<name>{PROSE_NAME})\s+is\s+(?:the|our|their)\s+(?P<role>{_PROSE_ROLE}?(?:\s+of\s+(?!the\b)[a-z][a-z-]+)?)"
    r"(?=\s*(?:[,.;:()]|$)|\s+(?:at|for|in|on|with|of)\b)"
)
_PAST_ROLE = frozenset("former ex previous old retired late outgoing".split())  # not what they do now
_NOT_IN_A_ROLE = frozenset("who which that is are was were will has have had and or to the a an said says "
                           "asked told best worst only".split())
# Family ties end like jobs ("daughter", "brother") and are none: "his daughter Isla Harlow".
_KIN = frozenset("daughter son mother father brother sister wife husband cousin nephew niece aunt uncle "
                 "grandmother grandfather granddaughter grandson stepdaughter stepson stepmother stepfather "
                 "daughter-in-law son-in-law".split())
# Labels that introduce a directory line's fields: "Email: …", "DDI: …", "Phone: …".
_LABELLED = re.compile(r"^\s*([A-Za-z][A-Za-z ./-]{0,24}?)\s*:\s*(.+)$")
_DIRECTORY_LINE = re.compile(
    r"^\s*(?P<item>[-*•+]\s+|\d+[.)]\s+)?(?P<bold>\*\*|__)?(?P<name>[^*_—–:(|<>\n]{3,60}?)"
    # "**Tan Wei Ming (Jason)** — Head, Ocean Freight": the name they go by, in brackets after the full name,
    # inside the bold or after it, in quotes or not ('**José Luis Vásquez Morales** ("Pepe") — Gerente General').
    r"(?:\*\*|__)?(?:\s*\(\s*[\"“'‘]?(?P<goes_by>[A-Z][a-z'’-]{1,20})[\"”'’]?\s*\))?(?:\*\*|__)?"
    # "**Vigdis Holm** · Managing Director · vigdis@… · +47 917 44 210": a middle dot or bullet between
    # spaces sets the fields apart as a dash does.
    r"\s*(?P<sep>[—–]|\s-\s|\s[·•]\s|:|,)\s*(?P<rest>.+)$"
)
# "Present: Dana Kim, Rob Ellison and Femi Adeyemi" — who was at a meeting, in its notes.
_ATTENDEES = re.compile(
    r"^\s*(?:[-*•+]\s+)?(?:\*\*|__)?(?:present|also present|attendees|attending|attended|in attendance|participants|"
    r"invitees|invited|apologies|absent|guests)(?:\*\*|__)?\s*:(?:\*\*|__)?\s*(?P<names>\S.*)$",
    re.IGNORECASE,
)
# A name alone on a line as a heading or in bold ("## Dana Kim", "**Dana Kim**"): a directory
# entry whose details are the lines under it.
_ENTRY_HEADING = re.compile(r"^\s*(?:#{1,6}\s+(?:\*\*|__)?|\*\*|__)(?P<name>[^*_#|\n]{3,60}?)(?:\*\*|__)?\s*#*\s*$")
# A name alone in square brackets, as a contacts file or an INI section heads each card: "[Dana Kim]".
_BRACKET_HEADING = re.compile(r"^\s*\[\s*(?P<name>[^\[\]\n]{3,60}?)\s*\]\s*$")
# A card's field with dot leaders between label and value, as typed to line the values up:
# "mobile ....... 0412 555 010", "known as … Dee". Read as "mobile: 0412 555 010".
_LEADER_FIELD = re.compile(r"^(?P<label>[A-Za-z][A-Za-z /-]{0,24}?)\s*(?:\.{3,}|…+)\s*(?P<value>\S.*)$")
# A card's label whose value is the person's own desk number when it is a number and nothing else:
# "office ....... (07) 3555 0121", "Work: 020 7946 0321".
_DESK_LABELS = frozenset({"office", "work", "desk", "landline", "direct", "business", "office_phone", "work_phone"})
# Labels giving the name a person goes by ("known as: Deb"): a table's nickname columns, less the whole name
# a surname-first sheet's turned rows carry (that column is no label a card writes).
_ALIAS_LABELS = NICKNAME_KEYS - {"name_in_full"}
# The offices of a committee or board, as minutes list who holds them: "Chair: Rosa Delgado · Treasurer: …".
_OFFICE_BEARER = re.compile(
    r"(?:^|[·|;•]|\s[—–-]\s)\s*(?:[-*•+]\s+)?(?:\*\*|__)?(?P<office>(?i:(?:deputy |vice[- ])?(?:chair|chairperson|chairman|"
    r"chairwoman|president)|secretary|treasurer|convenor|convener))(?:\*\*|__)?\s*:(?:\*\*|__)?\s*"
    r"(?P<name>[A-Z][\w'’-]+(?:\s+(?:[a-z]{1,3}\s+)?[A-Z][\w'’-]+){1,3})(?=\s*(?:$|[·|;•,(]|\s[—–-]\s))"
)
# A section heading of a Markdown page, below its title: "## Riverdale clinic (1180 Queen Street East)".
_SECTION_HEADING = re.compile(r"^\s*#{2,6}\s+(?P<section>[^#|\n]{3,80}?)\s*#*\s*$")
# Where a directory entry's details stop: the next heading, a table, a rule.
_ENTRY_END = re.compile(r"^\s*(?:#|\||---|\*\*\*|___)")
_ENTRY_LINES = 8
# A definition in a Markdown definition list: ":   Finance Lead, Operations" under its term.
_DEFINITION = re.compile(r"^\s{0,3}:\s+(?P<text>\S.*)$")
# The name may be written with initials: 'K. R. Lalitha ("Lalli")', 'Subramaniam R ("Subbu")'.
_NAME_THEN_NICKNAME = re.compile(
    r"(?P<name>(?<![\w.])(?:[A-Z]\.\s?){1,3}[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?"
    r"|[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?\s+[A-Z]\.?(?=\s*\()"
    r"|[A-Z][\w'’-]+(?:\s+(?:[a-z]{1,3}\s+)?[A-Z][\w'’-]+){1,3})"
    # the bold may close before the bracket: '**José Luis Vásquez Morales** ("Pepe")'
    r"(?:\*\*|__)?" + TRAILING_NICKNAME.pattern.rstrip("$").replace(
        "([A-Z]", "(?P<nickname>[A-Z]", 1)
)
# "Lucan Quennell becomes our Head of Communications from Monday", "Dana Kim has been appointed
# Finance Lead", "Omar Haddad takes over as Site Manager": a person's new title, stated in prose.
_APPOINTED = re.compile(
    r"(?P<name>[A-Z][\w'’-]+(?:\s+(?:[a-z]{1,3}\s+)?[A-Z][\w'’-]+){1,3})\s+"
    r"(?:(?:has|have|will|is|was)\s+)?(?:been\s+)?"
    r"(?:becomes|became|become|appointed(?:\s+as)?|promoted\s+to|named\s+as|takes\s+over\s+as|took\s+over\s+as|"
    r"take\s+over\s+as|steps\s+up\s+as|stepped\s+up\s+as|step\s+up\s+as)\s+"
    r"(?:(?:our|the|their|a)\s+)?(?:new\s+)?"
    r"(?P<title>[A-Z][\w&'’-]*(?:\s+(?:[A-Z][\w&'’-]*|of|and|&|for))*)"
)
# "Kofi Mensah is Director of Facilities", "Min-jun Seo is the Registrar: loans…", "Ama Owusu works as
# Development Manager", "Tomás Reyes, our Curator of Photography, looks after…", "Priya Rao heads
# conservation as Chief Conservator": a staff page written in prose gives each person's title in a
# sentence, not a field. A note between name and verb may say what people call them ("(everyone calls
# him JP)", ", known as Tony,"). The title is capitalised words, and ends where the sentence goes on.
_NAME_NOTE = r"(?P<note>\s*\([^()\n]{1,60}\)|,\s+(?:also\s+)?(?:known\s+as|called)\s+[A-Z][\w'’-]*,)?"
# Capitalised words with "of", "and", "for", "the" inside: "Director of Finance", "Head of the Lab".
# A French title goes on in lower case after its capitalised head: "Directeur général", "Coordonnateur des
# programmes", "Responsable des communications".
TITLE_WORDS = re.compile(r"[A-Z][\w&'’-]*(?:\s+(?:[A-Z][\w&'’-]*|of|and|&|for|the|"
                         r"générale?|principale?|adjointe?|exécuti(?:f|ve)|administrati(?:f|ve)|"
                         r"(?:des|du|de\s+la|de|aux)\s+[a-zà-ÿ][\w'’-]*))*")
_TITLE = rf"(?P<title>{TITLE_WORDS.pattern})"
_TITLE_ENDS = r"(?=\s*(?:[,.;:!?()]|$)|\s+(?:and|who|since|from|at|in|for|with|on|until)\b)"
_STATED_TITLES = (
    re.compile(rf"(?P<name>{PROSE_NAME}){_NAME_NOTE}\s+(?:is|works\s+as|serves\s+as|acts\s+as)\s+"
               rf"(?:(?:our|the|their)\s+)?{_TITLE}{_TITLE_ENDS}"),
    # "Gui (Guilherme Nogueira) is Acting Squad Lead": the name people use, then the full name in brackets.
    re.compile(rf"(?<![\w'’-])[A-Z][\w'’-]{{1,15}}\s+\((?P<name>{PROSE_NAME})\)(?P<note>)\s+(?:is|works\s+as|serves\s+as|"
               rf"acts\s+as)\s+(?:now\s+)?(?:(?:our|the|their)\s+)?{_TITLE}{_TITLE_ENDS}"),
    re.compile(rf"(?P<name>{PROSE_NAME}){_NAME_NOTE},\s+(?:our|the|their)\s+{_TITLE}(?=,)"),
    re.compile(rf"(?P<name>{PROSE_NAME}){_NAME_NOTE}\s+[a-z]+(?:\s+[a-z]+){{0,4}}\s+as\s+"
               rf"(?:(?:our|the|their)\s+)?{_TITLE}{_TITLE_ENDS}"),
)
_HONORIFIC_ONLY = re.compile(r"(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?\s+)?")
_CALLED = re.compile(r"\b(?:known as|calls? (?:him|her|them)|goes by|called)\s+[\"“'‘]?(?P<alias>[A-Z][a-z'’-]{1,15}|[A-Z]{2,3})\b")
# A team list's entry that opens with the person's name and goes on in prose: "- **Dana Kim** runs …".
_NAMED_ITEM = re.compile(r"^\s*(?:[-*•+]|\d+[.)])\s+(?:\*\*|__)(?P<name>[^*_\n]{3,60}?)(?:\*\*|__)\s+(?P<rest>[a-z].*)$")
_AS_TITLE = re.compile(rf"\b(?:as|is)\s+(?:(?:our|the|their|a|an)\s+)?(?:new\s+)?{_TITLE}")
_NOT_TITLES = re.compile(
    r"^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|June|July|"
    r"August|September|October|November|December)\b"
)
# A note beside a title saying what people call the person: "Technical Manager (everyone calls
# him Kit)", "(known as Bea)", "(goes by Sam)". The name is an alias, and the note no part of the title.
_CALLED_NOTE = re.compile(
    r"\s*\((?:[^()]*?\b)?(?:known as|calls? (?:him|her|them)|goes by|called)\s+[\"“'‘]?"
    r"(?P<alias>[A-Z][a-z'’-]{1,15})[\"”'’]?\s*\)"
)
# The same said as a sentence of a directory entry: "Goes by Ola.", "most people call her Mags".
_CALLED_FIELD = re.compile(
    r"\b(?:known as|goes by|calls? (?:him|her|them))\s+[\"“'‘]?(?P<alias>[A-Z][a-z'’-]{1,15})[\"”'’]?(?![\w'’-])",
    re.IGNORECASE,
)
# A job told in a directory entry's sentence rather than as its first field: "has been our Chief
# Executive since 2022", "looks after empty homes as our Voids Supervisor".
_ENTRY_PROSE_ROLE = re.compile(
    r"\b(?:as|is|been|became|becomes)\s+(?:our|the|their)\s+"
    r"(?P<title>[A-Z][\w'’-]+(?:\s+(?:of|and|&|for|[A-Z][\w'’-]+)){0,4})"
)
# "Our Tenancy Sustainment Officer, Siobhan supports…": the owner's word is no part of the title.
_OWNER_WORD = re.compile(r"^(?:our|the|their|your)\s+(?=[A-Z])", re.IGNORECASE)
# Fields end at a full stop, a semicolon, a middle dot or bar, or a spaced dash
# ("Glaze Technician — wren@…").
_FIELD_END = re.compile(r"(?<=[a-z)\d])\.\s+|;\s+|\s+[·|•—–-]\s+")
_PAREN_LINE = re.compile(
    r"^\s*(?:[-*•+]\s+)?(?:\*\*)?(?P<name>[^*(<>\n]{3,60}?)(?:\*\*)?\s*\((?P<role>[^()]{2,80}(?:\([^()]*\)[^()]*)?)\)"
    r"\s*(?P<rest>.*)$"
)

# "Managing director: Oluwaseun Abiodun-Grey (seun@example.eu, +31 20 555 0140)": a who-does-what list
# with the job first and the way to reach the person after the name.
_ROLE_FIRST_LINE = re.compile(
    r"^\s*(?:[-*•+]\s+)?(?:\*\*|__)?(?P<role>[^:*_|<>()\n]{2,60}?)(?:\*\*|__)?\s*:(?:\*\*|__)?\s+"
    r"(?P<name>[^,;:()<>|\n]{3,60}?)\s*(?:\((?P<paren>[^()]*)\)(?:\.\s+[A-Z][^()]*)?|[,;—–]\s*(?P<rest>.+)|\s+-\s+(?P<dashed>.+))"
    r"\s*\.?$"
)

_ROLE_DASH_NAME = re.compile(
    r"^\s*(?:[-*•+]\s+)?(?P<role>[^—–|:*_()<>\n]{2,40}?)\s+[—–]\s+(?:\*\*|__)?(?P<name>[^—–,;:()<>|\n]{3,60}?)(?:\*\*|__)?"
    r"(?:\s+[—–]\s+|\s*,\s*|\s+(?=<))(?P<rest>.+)$"
)


_BOOK_NUMBER = re.compile(r"\b(?:ISBN|ISSN)(?:-1[03])?\s*:?\s*$", re.IGNORECASE)


def phone_spans(text: str) -> list[tuple[tuple[int, int], str]]:
    """Where `text` gives a phone number, and the number as written: at least seven digits (or an
    extension), not a date or an amount. The answer checks read phones with this too, so a number is
    one shape everywhere."""
    found = []
    for match in PHONE.finditer(text):
        value = match.group(0).strip(" .-")
        digits = sum(c.isdigit() for c in value)
        if _ISO_DATE.search(value) or re.fullmatch(r"\d{4}", value) or _NUMERIC_DATE.fullmatch(value):
            continue
        start = match.start() + match.group(0).index(value)
        # A year and a serial ("Job 2026-031"), or the digits of a code with letters before them
        # ("BP-2026-118842"), number a job, a case or a permit, not a phone.
        if re.fullmatch(r"(?:19|20)\d\d-\d{2,6}", value) or re.search(r"[^\W\d_]-$", text[:start]):
            continue
        # A book's or a journal's number ("ISBN 978-3-16-148410-0"), or a piece of a longer run of
        # hyphened figures, is no phone.
        if _BOOK_NUMBER.search(text[:start]) or re.search(r"\d-$", text[:start]) or re.match(
                r"-\d", text[start + len(value):]):
            continue
        if digits >= 7 or value.lower().startswith(("ext", "poste", "ramal")):
            found.append(((start, start + len(value)), value))
    return found


def phones_in(text: str) -> list[str]:
    return [value for _, value in phone_spans(text)]


# A label right before a number that makes it a mobile: "mobile 07700…", "Mob:", "cell", "M: 07700…"
# (the bare letter only with its colon, as signatures write it).
_MOBILE_LABEL = re.compile(
    r"(?:\b(?:mobile|mob|cell|cellphone|cell phone|mobile phone|handphone|h/p|cel|celular|móvil)\b\.?|(?-i:\bM:)|(?-i:\bHP\b))"
    r"\s*:?\s*(?:no\.?\s*)?$", re.IGNORECASE)


def labelled_phones(text: str) -> list[tuple[str, str]]:
    """Each phone number `text` gives, with the key it is kept under: "mobile" when the words just
    before it say so ("Office 01632 960 410, mobile 07700 900 877" gives a phone and a mobile), else
    "phone". A person reached two ways keeps both, and "what's her mobile?" gets the right one."""
    found, since = [], 0
    for (start, end), value in phone_spans(text):
        before = text[since:start]
        key = "mobile" if _MOBILE_LABEL.search(before) else "phone"
        found.append((key, value))
        since = end
    return found


# Columns and labels that give "how to reach them" without saying how: "Contact", "Details".
_REACH_KEYS = frozenset({"contact", "contact_details", "contact_info", "details", "reach", "how_to_reach"})


def reach_key(key: str, value: str) -> str:
    """"email" or "phone" for a contact field that holds only an address or only a number, so
    "Contact: 07700 912 448" answers "what's her phone number?"; the key as it was otherwise."""
    if key not in _REACH_KEYS:
        return key
    value = value.strip()
    if EMAIL.fullmatch(value):
        return "email"
    phones = phone_spans(value)
    if len(phones) == 1 and phones[0][0] == (0, len(value)):
        return "phone"
    return key


_DAY_AND_MONTH = re.compile(r"\b\d{1,2}(?:st|nd|rd|th)?\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b"
                            r"|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?\b")


def _is_role_text(text: str) -> bool:
    """A job title as directories write one: short, capitalised, no address, number or sentence."""
    text = text.strip()
    if not text or len(text) > 80 or len(text.split()) > 9 or not text[0].isupper():
        return False
    if EMAIL.search(text) or _URL.search(text) or phones_in(text) or text.endswith(("?", "!")):
        return False
    if re.search(r"\d", text) and not re.search(r"[a-z]", text):
        return False  # "Project Hikari (HKR-27)": a code in capitals and figures is no job
    if _DAY_AND_MONTH.search(text):
        return False  # "LLP accounts on track for the 31 December deadline": a job holds no date
    if re.search(r"\b[A-Z]{2,}-\d|\d{4}[-/]\d|\d[-/]\d{4}", text):
        # "Neckarbrücke (Vergabenummer TBA-2026-0417)": a reference number is no job either, where a street
        # number is part of where the job is ("Project Manager (PM), 1811 S. Lamar fit-out").
        return False
    # "the" reads as a sentence, except in a title's "of the" ("Chair of the Board", "Clerk to the Governors").
    text = re.sub(r"\b(?:of|to|for) the\b", "", text)
    return not re.search(r"\b(?:is|are|was|will|has|have|please|the)\b", text)


def trimmed_title(title: str) -> str:
    """A title as a sentence's capitalised words give it, without the small words it was cut after:
    "Director of" in "Director of Facilities and …" read to "and" ends on the title's own word."""
    return re.sub(r"(?:\s+(?:of|and|&|for|the))+$", "", title).strip()


def _title_head(words: list[str]) -> str:
    """The word that says what a title's holder does: the one before "of" ("Head of Conservation"),
    else the last ("Executive Director"); a French title's first ("Directrice générale", "Coordonnateur
    des programmes", "Responsable des communications")."""
    if "of" in words[1:]:
        words = words[:words.index("of")]  # "Directeur général of Ateliers X": the French title before "of"
    if len(words) >= 2 and (words[1].lower() in _FRENCH_TITLE_SECOND or words[1].lower().startswith(("d'", "d’"))) \
            and is_job_word(words[0].lower()):
        return words[0]
    return words[-1]


# What follows the head of a French title: "de", "des", "du", "aux", or an adjective ("générale", "principale").
_FRENCH_TITLE_SECOND = frozenset("de des du aux à général générale principal principale adjoint adjointe exécutif "
                                 "exécutive administratif administrative "
                                 # and of a Spanish one: "Gerente General", "Chef Ejecutivo", "Jefa de Recepción"
                                 "del general ejecutivo ejecutiva adjunto adjunta".split())


def _is_prose_role(role: str) -> bool:
    words = role.split()
    if set(words) & _NOT_IN_A_ROLE or words[0] in _PAST_ROLE or words[-1] in _KIN:
        return False
    head = _title_head(words)
    return is_job_word(head)


def _balanced(text: str) -> bool:
    return text.count("(") == text.count(")")


def _entry_prose_role(field: str) -> str | None:
    """ "Voids Supervisor" from "Tunde looks after empty homes as our Voids Supervisor": a capitalised
    title after "as our"/"is the", when its last word is a word for someone who does something."""
    for match in _ENTRY_PROSE_ROLE.finditer(field):
        title = trimmed_title(match.group("title"))
        words = title.split()
        head = _title_head(words)
        if len(words) >= 2 and _is_role_text(title) and (_is_prose_role(head.lower()) or head.endswith("ive")):
            return title
    return None


# Post-nominal letters after a name in a signature: ", AIA", ", P.E.", ", LEED AP", ", PhD".
_POST_NOMINALS = re.compile(r"(?:,\s*(?:[A-Z][A-Za-z]?\.?)*[A-Z]\.?(?:\s+[A-Z]{2,4})?|,\s*Ph\.?\s?D\.?)+\s*$")


# A line that ends a signature: the attribution of a quoted mail, a quoted line, or an earlier message's
# own header or separator.
_ENDS_A_SIGNATURE = re.compile(r"(?i)^\s*(?:>|.*\bwrote:\s*$|(?:from|sent|to|date|subject):\s|-{2,}\s*(?:original|forwarded))")


def is_job_title(title: str) -> bool:
    """A job title stated in a sentence: a role's text whose head word (the one before "of", or the
    last) is a word for someone who does something ("Registrar", "Executive Director", "Head of
    Conservation") — not a weekday or a place."""
    if not _is_role_text(title) or _NOT_TITLES.match(title) or title.isupper():
        return False
    head = _title_head(title.lower().split())
    return _is_prose_role(head) or (len(head) > 4 and head.endswith(("ar", "ive")))


def role_parts(role: str) -> list[str]:
    """The job titles a compound role holds, as phone lists write two jobs in one cell: "Dentist, DDS —
    Clinical Director" holds "Dentist" and "Clinical Director", "Level II Dental Assistant; IPAC Lead"
    two, "Office Manager (both clinics)" "Office Manager". A credential ("DDS") or a note is none."""
    unbracketed = re.sub(r"\s*\([^()]*\)", "", role)
    parts = (p.strip(" .") for p in re.split(r"\s+[—–]\s+|\s*;\s*|\s+/\s+|,\s+", unbracketed))
    return [p for p in dict.fromkeys(parts) if p and p != role and is_job_title(p)]


def _lower_case_role(field: str) -> str | None:
    """ "head nurse", "receptionist (Mon–Wed)", "equine vet, covers the Thursday farm round": a job
    written in lower case at the head of a directory entry, as the words before any note or comma,
    when its last word is a word for someone who does something (_is_prose_role)."""
    head = re.sub(r"\s*\([^()]*\)", "", field.split(", ")[0]).strip(" .")
    # "head climber / crew leader": two names for one job, each a job.
    parts = head.split(" / ")
    if len(parts) > 2 or not all(re.fullmatch(_PROSE_ROLE, part) and _is_prose_role(part) for part in parts):
        return None
    return head


def abbreviates(short: str, name: str) -> bool:
    """Whether `short` is written as the initials of `name`: "Harbourline Electrification (HLE)",
    "Quality Assurance Board (QAB)" give a thing its short form, not a person a role. Each word of
    the name gives its first letter and perhaps more of its letters, in order ("HarbourLine"); small
    words ("of", "and") may give none."""
    if not re.fullmatch(r"[A-Z]{3,6}", short):  # two capitals ("HR", "QA") are too often a role
        return False
    words = [w.upper() for w in re.findall(r"[^\W\d_]+", name)]

    def fits(letters: str, rest: list[str]) -> bool:
        if not rest:
            return not letters
        word, others = rest[0], rest[1:]
        if word.lower() in _TITLE_SMALL_WORDS and fits(letters, others):
            return True
        if not letters or letters[0] != word[0]:
            return False
        # The word's initial, then any of its later letters, then the next words.
        for taken in range(1, len(letters) + 1):
            if _in_order(letters[1:taken], word[1:]) and fits(letters[taken:], others):
                return True
        return False

    return bool(words) and fits(short, words)


def letters_of(text: str) -> str:
    """A name's or a domain label's letters alone, accent-free and lower-case: "Kōwhai Physio" ->
    "kowhaiphysio", as "kowhai-physio" is."""
    return "".join(c for c in strip_accents(text).casefold() if c.isalnum())


def _in_order(letters: str, word: str) -> bool:
    remaining = iter(word)
    return all(c in remaining for c in letters)


def _header_display(display: str, address: str) -> str:
    """A mail header's display name as prose writes it. Outlook and many an organisation's directory
    write it "Surname, Given" ("Vermeulen, Karin" <k.vermeulen@…>): turned round when the address
    holds that surname, so the comma is a sorted name's and not two people's or a firm's."""
    if display.count(",") != 1 or not (turned := surname_first_turned(display.strip())):
        return display
    surname = fold(strip_accents(turned.split()[-1])).lower()
    local = re.sub(r"[^a-z]", "", fold(strip_accents(address.split("@")[0])).lower())
    return turned if len(surname) >= 2 and surname in local else display


def mail_writer(metadata: dict) -> str:
    """The person a mail's From: header names ("" for a firm's mailbox or no person)."""
    for display, address in getaddresses([metadata.get("from") or ""]):
        name = clean_name(_header_display(display, address))
        if "@" in address and address.split("@")[0].lower() not in ROLE_MAILBOXES and looks_like_person(name):
            return name
    return ""


def _address_spells(address: str, name: str) -> bool:
    """Whether an address's local part is the name of two to four words written out, with or without
    dots or hyphens ("minjun.seo@" for "Min-jun Seo"): a person's own mailbox, not a room's or a list's."""
    words = [w for w in re.split(r"[\s-]+", strip_accents(name).lower()) if w]
    local = re.sub(r"[.\-_]", "", address.split("@")[0].lower())
    return 2 <= len(name.split()) <= 4 and all(w.isalpha() for w in words) and local == "".join(words)


def _employer_then_job(text: str) -> tuple[str, str] | None:
    """("Hoekstra & Brand", "constructeur") from "Hoekstra & Brand, constructeur": an attendee list's
    "Name (Firm, job)", the firm capitalised and no job itself, the job in lower case after it."""
    parts = [p.strip(" .") for p in text.split(",")]
    if len(parts) != 2 or not parts[0] or not parts[1]:
        return None
    firm, job = parts
    words = re.findall(r"[^\W\d_]+", firm)
    if not words or not all(w[0].isupper() for w in words) or any(
            is_job_word(w.lower()) and is_common(w.lower(), 3.0) for w in words):
        return None  # "Veterinary Nurse (RVN), night cover": a title and a note on it ("Dekker & Zonen" is a firm)
    if not re.fullmatch(r"[a-z][a-z-]+(?: [a-z][a-z-]+){0,2}", job) or not is_job_word(job.split()[-1]):
        return None
    return firm, job


def _split_role(text: str) -> tuple[str, str]:
    """("Partner", "Commercial Property") from "Partner, Commercial Property" or "Partner |
    Commercial Property"; the part after the first comma or bar names the team the role is in.
    "Bouwbedrijf Van Gelder, uitvoerder" is the job after the firm: ("uitvoerder", "Bouwbedrijf Van Gelder")."""
    if turned := _employer_then_job(text):
        return turned[1], turned[0]
    # Not at a comma inside brackets: "Prüfingenieur für Baustatik (Massivbau, Holzbau)" is one job.
    role, department = (re.split(r",\s(?![^()]*\))|\s[|·•]\s", text, maxsplit=1) + [""])[:2]
    role, department = role.strip(" ."), department.strip(" .")
    if role.lower() == "head" and department and department[0].isupper() and "," not in department:
        return f"{role} of {department}", ""  # "Head, Ocean Freight" is the Head of Ocean Freight
    if department and "," not in department and is_job_title(department):
        # "Projektipäällikkö, Senior Designer": a second job, no team; the role holds both.
        return f"{role}, {department}", ""
    return role, department


_LIST_ITEM = re.compile(r"^\s*(?:[-*•+]|\d+[.)])\s+")


def _logical_lines(lines: list[str]) -> list[tuple[int, str]]:
    """The document's lines with their offsets, a list item wrapped onto indented lines under it
    joined back into one line: "- **Dana Kim** runs the office. Mobile 0412 555 010," then
    "  dana@example.com" is one entry."""
    joined: list[tuple[int, str]] = []
    offset = 0
    in_item = False
    for line in lines:
        position = offset
        offset += len(line) + 1
        if in_item and joined and re.match(r"^\s{2,}\S", line) and not _LIST_ITEM.match(line):
            # A wrapped line of only addresses and numbers is a field of its own: "— Coordinador de
            # Eventos" then "  rodrigo@… · cel. +52 951 330 2957" is the role, then the ways to reach him.
            glue = " · " if _contact_only(line) else " "
            joined[-1] = (joined[-1][0], f"{joined[-1][1].rstrip()}{glue}{line.strip()}")
            continue
        if joined and _contact_only(line) and _person_names(joined[-1][1]):
            # "**Cathal Ó Dúill** – head climber" then "cathal@… · 086 733 0148": a card whose contact
            # line sits under the name line is one entry.
            joined[-1] = (joined[-1][0], f"{joined[-1][1].rstrip()} · {line.strip()}")
            continue
        in_item = bool(_LIST_ITEM.match(line))
        joined.append((position, line))
    return joined


# "Quayle, Bronwen — receptionist, ext. 30": a list line opening with a name set off by a dash.
_NAME_THEN_DASH = re.compile(
    r"^(?P<indent>\s*)(?P<item>[-*•+]\s+)?(?P<name>[^—–:|\n]{3,60}?)(?P<rest>\s+[—–-]\s+\S.*)$")


def _natural_order_lines(logical: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """A run of adjacent "Surname, Given — details" lines is a sorted list of people: each name turns
    round to the order prose writes it ("Bronwen Quayle — receptionist"), as a table's column does,
    and reads as the list item it is, set out under a heading like "WHO TO CALL" without a bullet."""
    out = list(logical)
    n = 0
    while n < len(out):
        run = []
        while n < len(out) and (match := _NAME_THEN_DASH.match(out[n][1])):
            run.append((n, match))
            n += 1
        if len(run) >= 2:
            names = natural_order_names([match.group("name") for _, match in run])
            for (at, match), name in zip(run, names):
                if name != match.group("name"):
                    item = match.group("item") or "- "
                    out[at] = (out[at][0], f"{match.group('indent')}{item}{name}{match.group('rest')}")
        n += 0 if run else 1
    return out


# What may sit between the addresses and numbers of a contact line: separators and short labels
# ("E:", "Mob", "Tel.", "Office:", as US cards write the desk line beside the "Cell:").
# "DID" (direct line) and "HP" (handphone) are how Singapore and Malaysia label a desk line and a mobile.
# Spanish cards write "cel." (celular) for the mobile and "tel." for the desk.
_CONTACT_FILLER = re.compile(r"(?:[\s·|•,;/–—-]|\b(?:e|t|m|tel|mob|mobile|phone|email|e-mail|cell|cel|celular|ext|ddi|did|hp|"
                             r"office|work|desk|direct)\b\.?:?)*",
                             re.IGNORECASE)


def _contact_only(line: str) -> bool:
    """A line of only addresses and phone numbers: "cathal@example.ie · 086 733 0148"."""
    if not line.strip() or not (EMAIL.search(line) or phone_spans(line)):
        return False
    rest = EMAIL.sub(" ", line)
    for (start, end), _ in reversed(phone_spans(rest)):
        rest = rest[:start] + " " + rest[end:]
    return _CONTACT_FILLER.fullmatch(rest) is not None


def _name_with_nickname(line: str, name: str) -> bool:
    """Whether a line is only a name with a nickname inside it: 'Priyanka "Pri" Doshi'."""
    return INNER_NICKNAME.sub(r"\1 ", line).split() == name.split()


def _name_with_titles(line: str, name: str) -> bool:
    """Whether a line is only a name with its titles or degrees around it: "Prof. Dr.-Ing. Rainer
    Vöhringer", "Ruth Okafor, PhD" (`name` is the line's clean_name)."""
    written = line.strip().strip("*_")
    if not name or name not in written:
        return False
    rest = written.replace(name, " ", 1).split()
    return 0 < len(rest) <= 4 and not any(re.fullmatch(r"[a-zäöüéè]{3,}", word) for word in rest)


def _without_opening_word(name: str) -> str:
    """The name without the sentence's opening word written before it: "Then Verity Roskilly became…",
    "Ask Gregor Harlow, the director, …"."""
    words = clean_name(name).split()
    while len(words) > 2 and not is_first_name(words[0]):
        words.pop(0)
    return " ".join(words)


def _person_names(line: str) -> set[str]:
    """The full names of people a line writes, the longest reading of each: "Ask Dana Kim" gives
    "Dana Kim" (the sentence's opening word is no part of it)."""
    plain = re.sub(r"[*_`]+", "", line)
    found = set()
    for match in re.finditer(PROSE_NAME, plain):
        words = clean_name(match.group(0)).split()
        while len(words) > 2 and not looks_like_person(" ".join(words)):
            words.pop(0)
        if looks_like_person(name := " ".join(words)):
            found.add(name)
    return found


def address_spells_name(local: str, name: str) -> bool:
    """Whether an address's local part is written from the person's name, as offices make them:
    "dana.kim", "dkim", "dana_k", "elin.vj" (Elin Vaughan-Jones), "gethin.aprhys" (Gethin ap Rhys),
    "sian" for Siân Prydderch. Each name word gives all its letters, its initial or nothing, in
    order; a given or family name must be there whole."""
    target = re.sub(r"[^a-z]", "", strip_accents(local).lower())
    words = [w for w in re.split(r"[^a-z]+", strip_accents(name).lower()) if w]
    if len(target) < 3 or len(words) < 2:
        return False

    def fits(rest: str, remaining: list[str], whole: bool) -> bool:
        if not remaining:
            return not rest and whole
        word, others = remaining[0], remaining[1:]
        if rest.startswith(word) and fits(rest[len(word):], others, whole or (len(word) >= 3 and word not in NAME_PARTICLES)):
            return True
        if rest[:1] == word[0] and fits(rest[1:], others, whole):
            return True
        return fits(rest, others, whole)

    return fits(target, words, False)


class PeopleReader:
    """Reads one parsed document; `observations` collects what it found."""

    def __init__(self, text: str, metadata: dict, is_email: bool, headings: frozenset[int] = frozenset()):
        self.text = text
        self.metadata = metadata
        self.is_email = is_email
        # Where the parser found a heading (an HTML <h3>, a Word heading style): a heading line
        # carries no "##" of its own in the parsed text, so its offset is what marks it.
        self.headings = headings
        self.observations: list[Observation] = []
        self.sender: str | None = None
        # Names a mail header pairs with an address that spells them: people, however rare their words.
        self.spelt_by_address: set[str] = set()
        self._domains: set[str] | None = None  # see _shared_domains

    def is_person(self, name: str) -> bool:
        """Whether a name reads as a person's, or this mail's headers vouch for it: "Min-jun Seo
        <minjun.seo@…>" is someone though each of its words is also an English one. A name the
        document's shared mail domain spells is the organisation's, however personal it reads."""
        if letters_of(name) in self._shared_domains():
            return False
        return looks_like_person(name) or (name in self.spelt_by_address and not is_group_name(name))

    def _shared_domains(self) -> set[str]:
        """The letters of each label of a mail domain two or more addresses of this document share
        ("kowhaiphysio" for mereana@ and aroha@kowhaiphysio.co.nz): an organisation's domain, so
        "Kōwhai Physio | 09 555 0100" in a signature is the practice, not a colleague. A domain one
        address has may be a freelancer's own name."""
        if self._domains is None:
            locals_at: dict[str, set[str]] = {}
            for address in EMAIL.findall(self.text):
                local, _, domain = address.lower().rpartition("@")
                locals_at.setdefault(domain, set()).add(local)
            self._domains = {letters_of(label) for domain, users in locals_at.items() if len(users) >= 2
                             for label in domain.split(".")[:-1] if len(label) >= 4}
        return self._domains

    def add(self, subject: str, key: str, value: str, confidence: float, method: str, position: int = 0) -> None:
        value = " ".join(str(value).split()).strip()
        if key == "role" and names_itself(value, subject):
            return  # "Takeshi Suzuki (SUZUKI Takeshi)": the name in the other order is no job
        if value:
            self.observations.append(Observation(subject, "person", key, value, confidence, method, position))

    def read(self) -> list[Observation]:
        if self.is_email:
            self._mail_headers()
        self._quoted_headers()
        self._nicknames()
        self._appointments()
        self._stated_titles()
        self._lower_case_titles()
        self._lines()
        if self.is_email and self.sender:
            self._sign_off()
        if self.is_email:
            self._greetings()
        return self.observations

    def _nicknames(self) -> None:
        """ 'Oluwaseun "Seun" Adebayo': the name the rest of the folder may use ("Seun Adebayo",
        "Seun") is an alias of the full one, wherever the name is written (a table, a directory)."""
        for match in INNER_NICKNAME.finditer(self.text):
            nickname = next(g for g in match.groups()[1:] if g)
            surname = re.match(r"[A-Z][\w'’-]+", self.text[match.end():])
            name = clean_name(f"{match.group(1)} {surname.group(0)}") if surname else ""
            if looks_like_person(name):
                self.add(name, ALIAS, nickname, 0.85, "nickname", match.start())
                self.add(name, ALIAS, f"{nickname} {name.split()[-1]}", 0.85, "nickname", match.start())
        # "Tan Wei Ming (Jason)": the given name they go by, and with their family name ("Jason Tan"), as
        # their mails sign and address them.
        for match in _NAME_THEN_GIVEN_NAME.finditer(self.text):
            name, goes_by = clean_name(match.group("name")), match.group("goes_by")
            if looks_like_person(name) and _goes_by(goes_by, name):
                self.add(name, ALIAS, goes_by, 0.85, "nickname", match.start())
                for family in family_names(name):
                    self.add(name, ALIAS, f"{goes_by} {family}", 0.85, "nickname", match.start())
        # 'Maximilian Huber ("Max")': the nickname in quotes in brackets after the full name.
        for match in _NAME_THEN_NICKNAME.finditer(self.text):
            # A name is written on one line: a heading above it ("### Production") is not part of it.
            name, nickname = clean_name(match.group("name").split("\n")[-1]), match.group("nickname")
            if looks_like_person(name) and nickname != name.split()[0]:
                self.add(name, ALIAS, nickname, 0.85, "nickname", match.start())
                if not re.search(r"(?<!\S)[A-Z]\.?(?!\S)|[A-Z]\.\s?[A-Z]\.", name):  # no "Subbu R"
                    for family in family_names(name):
                        self.add(name, ALIAS, f"{nickname} {family}", 0.85, "nickname", match.start())

    def _appointments(self) -> None:
        """A new title stated in prose is the person's role from the document's date: a newer
        document's role supersedes the directory's older one in the merge."""
        # Single line breaks are a wrapped paragraph (same length, so positions hold).
        text = re.sub(r"(?<!\n)\n(?![\n>])", " ", self.text)
        for match in _APPOINTED.finditer(text):
            name = _without_opening_word(match.group("name"))
            title = trimmed_title(match.group("title"))
            if looks_like_person(name) and not _NOT_TITLES.match(title) and _is_role_text(title):
                self.add(name, "role", title, 0.9, "appointment", match.start())

    def _stated_titles(self) -> None:
        """ "Kofi Mensah is Director of Facilities": a title stated of a person in a sentence
        (_STATED_TITLES), and what people call them when a note beside the name says so."""
        text = re.sub(r"(?<!\n)\n(?![\n>])", " ", self.text)  # a wrapped paragraph; positions hold
        for pattern in _STATED_TITLES:
            for match in pattern.finditer(text):
                name = clean_name(match.group("name"))
                title = trimmed_title(match.group("title"))
                if not (self.is_person(name) and is_job_title(title)):
                    continue
                self.add(name, "role", title, 0.85, "prose", match.start())
                if match.group("note") and (called := _CALLED.search(match.group("note"))):
                    alias = called.group("alias")
                    self.add(name, ALIAS, alias, 0.85, "nickname", match.start())
                    self.add(name, ALIAS, f"{alias} {name.split()[-1]}", 0.85, "nickname", match.start())
                self._paragraph_contact(text, name, match.start())

    def _paragraph_contact(self, text: str, name: str, start: int) -> None:
        """A paragraph that opens by saying who someone is and closes with one address and one
        number ("Kofi Mensah is Director of Facilities, in charge of … kofi.mensah@…, ext. 250.") is
        their directory entry written as prose: the address and number are theirs."""
        line_start = text.rfind("\n", 0, start) + 1
        if not _HONORIFIC_ONLY.fullmatch(text[line_start:start]):
            return  # the paragraph is about someone else first
        paragraph = text[start:].split("\n", 1)[0]
        emails, phones = EMAIL.findall(paragraph), phones_in(paragraph)
        if len(emails) == 1:
            self._person_with_address(name, emails[0].lower(), 0.85, "prose", start)
        if len(phones) == 1:
            key, phone = labelled_phones(paragraph)[0]
            self.add(name, key, phone, 0.85, "prose", start)

    # --- mail headers -------------------------------------------------------

    def _mail_headers(self) -> None:
        for field, confidence in (("from", 0.97), ("to", 0.93), ("cc", 0.93)):
            raw = self.metadata.get(field) or ""
            for display, address in getaddresses([raw]):
                name = clean_name(_header_display(display, address))
                if address and _address_spells(address, name):
                    self.spelt_by_address.add(name)
                if not address or "@" not in address or not self.is_person(name):
                    continue
                if field == "from" and self.sender is None and address.split("@")[0].lower() not in ROLE_MAILBOXES:
                    self.sender = name
                self._person_with_address(name, address.lower(), confidence, "mail_header", 0)

    def _person_with_address(self, name: str, address: str, confidence: float, method: str, position: int) -> None:
        if address.split("@")[0].lower() in ROLE_MAILBOXES:
            return  # "Larkspur Freight <info@…>" is the firm's mailbox, not a person's address
        self.add(name, "email", address, confidence, method, position)
        local = address.split("@")[0]
        words = [w.lower() for w in name.split()]
        # "hannes.schaefer@" for Johannes Schäfer, "bill.harrington@" for William: the surname as the
        # name gives it and before it, instead of the given name, the one people call them by.
        called = re.fullmatch(r"([a-z]{3,})[._]([a-z'-]{2,})", local)
        if called and len(words) >= 2 and called.group(1) not in {fold(words[0]), fold(umlauts_spelled_out(words[0]))} and called.group(2) in {
                fold(words[-1]), fold(umlauts_spelled_out(words[-1]))} and (
                is_first_name(called.group(1)) or called.group(1) in fold(umlauts_spelled_out(words[0]))):
            local = called.group(1)
        # The address's local part is a name people use when it is not just the full name
        # re-spelt: "kostas@" for Konstantinos, "jokafor" like "jsmith".
        if re.fullmatch(r"[a-z][a-z'-]{2,}", local) and local not in ("".join(words), ".".join(words)):
            written = local.capitalize()
            if is_common(local, 3.0) and not is_first_name(local):
                pass  # "treasurer@", "chair@" name a post, not the person
            elif re.search(rf"(?<![\w@.]){re.escape(written)}(?![\w@])", self.text):
                # The text writes it as a name ("Ifeanyi is bringing"): the alias keeps the capital.
                self.add(name, ALIAS, written, confidence * 0.8, method, position)
            else:
                self.add(name, ALIAS, local, confidence * 0.8, method, position)

    def _quoted_headers(self) -> None:
        for match in _BODY_HEADER.finditer(self.text):
            for display, address in getaddresses([match.group(1)]):
                name = clean_name(display)
                if "@" in address and looks_like_person(name) and address.split("@")[0].lower() not in ROLE_MAILBOXES:
                    self._person_with_address(name, address.lower(), 0.9, "mail_header", match.start())
        for match in _QUOTE_HEADER.finditer(self.text):
            # The writer's name ends the words before the address: "On Tue, Nov 17, 2026 at 3:47 PM Dana Kim".
            words = match.group(1).replace(",", " ").split()
            name = next(
                (clean_name(" ".join(words[-n:])) for n in (4, 3, 2) if looks_like_person(clean_name(" ".join(words[-n:])))),
                "",
            )
            if name:
                self._person_with_address(name, match.group(2).lower(), 0.9, "mail_header", match.start())

    # --- line layouts: signatures and directories ---------------------------

    def _lines(self) -> None:
        lines = self.text.split("\n")
        self._stacked_signatures(lines)
        self._heading_entries(lines)
        self._definition_entries(lines)
        logical = _natural_order_lines(_logical_lines(lines))
        for n, (position, line) in enumerate(logical):
            previous = logical[n - 1][1] if n else ""
            line = re.sub(r"^\s*>+\s?", "", line).rstrip()
            if not line.strip() or len(line) > 400 or is_reply_attribution(line):
                continue
            if line.lstrip().startswith("|"):
                continue  # table rows are read as records
            if self._attendees_line(line, position):
                continue
            self._office_bearers(line, position)
            if self._signature_line(line, position):
                continue
            if self._paren_line(line, position):
                continue
            if self._role_first_line(line, position) or self._role_dash_name_line(line, position):
                continue
            self._directory_line(line, position)
            self._inline_roles(line, position)
            self._prose_roles(line, position)
            self._list_item_title(line, position)
            following = logical[n + 1][1] if n + 1 < len(logical) else ""
            self._addresses_by_name(line, previous, position, following)

    def _attendees_line(self, line: str, position: int) -> bool:
        """ "Present: Ingrid Valtonen, Kofi Mensah-Barros (notes) and Yusra Qadir": each listed name
        that reads as a person's is a person, whether or not the recogniser knows the name."""
        match = _ATTENDEES.match(line)
        if not match:
            return False
        # Split outside brackets: "Helen Whitcombe (Chair, Lot 1204), Michael Tran (Secretary)".
        for item in re.split(r"\s*(?:[,;/]|\band\b|&)\s*(?![^()]*\))", match.group("names")):
            name = clean_name(re.sub(r"\s*\([^)]*\)?", "", item).strip(" .*_"))
            if looks_like_person(name):
                self.add(name, MENTION, name, 0.85, "attendees", position)
                # The bracket's first part, when it is a capitalised title with no number in it, is the
                # job the person attended in: "(Chair, Lot 1204)", "(Strata Manager, Harbourside …)".
                bracket = re.search(r"\(([^()]*)\)", item)
                role = bracket.group(1).split(",")[0].strip() if bracket else ""
                words = re.findall(r"[^\W\d_]+", role)
                # Several words none of which make a job ("Cobalt Architecture", "Fernway Labs") name the
                # firm the person came from, not what they do there.
                if (words and not re.search(r"\d", role) and _is_role_text(role) and not abbreviates(role, name)
                        and all(w[0].isupper() or w.lower() in _TITLE_SMALL_WORDS for w in words)
                        and (len(words) == 1 or is_job_title(role))):
                    self.add(name, "role", role, 0.75, "attendees", position)
        return True

    def _office_bearers(self, line: str, position: int) -> None:
        """ "Chair: Rosa Delgado · Secretary: Julian Pike · Treasurer: Nikos Andreou": a committee's
        office-bearers, each office before its holder. Only the offices an elected body fills are read
        so; "Lead: Dana Kim" is a project's field."""
        for match in _OFFICE_BEARER.finditer(line):
            name = clean_name(match.group("name"))
            if self.is_person(name):
                self.add(name, "role", match.group("office").strip(" *_").title(), 0.8, "office_bearer", position)

    def _signature_line(self, line: str, position: int) -> bool:
        """ "Declan Murphy | Practice Manager | 0113 496 0405" """
        if "|" not in line:
            return False
        parts = [p.strip() for p in line.split("|") if p.strip()]
        # Letters after the name are a credential, not part of it: "Katherine Moss, AIA", "Lee Ng, P.E.".
        name = clean_name(_POST_NOMINALS.sub("", parts[0])) if parts else ""
        if len(parts) < 2 or not self.is_person(name):
            return False
        for part in parts[1:]:
            emails = EMAIL.findall(part)
            phones = labelled_phones(part)
            for address in emails:
                self._person_with_address(name, address.lower(), 0.9, "signature", position)
            for key, phone in phones:
                self.add(name, key, phone, 0.88, "signature", position)
            if not emails and not phones and part is parts[1] and _is_role_text(part):
                role, department = _split_role(part)
                self.add(name, "role", role, 0.88, "signature", position)
                if department:
                    self.add(name, "department", department, 0.7, "signature", position)
        return True

    def _paren_line(self, line: str, position: int) -> bool:
        """ "Ravi Menon (Firmware Lead) <ravi@example.eu> · +31 6 5503 8126" """
        match = _PAREN_LINE.match(line)
        if not match:
            return False
        if _goes_by(match.group("role").strip(), clean_name(match.group("name"))):
            return False  # "Tan Wei Ming (Jason) — Head, Ocean Freight · …": the name they go by; a directory line
        # Without an address or phone beside it, "Dana Kim (Finance)" in prose is too loose to be a role.
        return self._entry_with_contact(clean_name(match.group("name")), match.group("role"), match.group("rest"),
                                        position, role_confidence=0.93, email_confidence=0.95)

    def _role_dash_name_line(self, line: str, position: int) -> bool:
        """ "* Chair — Gwilym Pryce-Jenkins — gwilym@…": a committee list's job, the holder and a way to
        reach them, set apart by dashes; the job must read as one ("Newsletter — Hollie …" is a duty)."""
        match = _ROLE_DASH_NAME.match(line)
        if not match or not is_job_title(match.group("role").strip()):
            return False
        return self._entry_with_contact(clean_name(match.group("name")), match.group("role"), match.group("rest"),
                                        position, role_confidence=0.88, email_confidence=0.9)

    def _role_first_line(self, line: str, position: int) -> bool:
        """ "Head of Japanese desk: Haruki Tsubame (haruki@example.eu)": the job, the person, and an
        address or phone beside them — without one, "Lead: Dana Kim" is a project's field, not a
        directory entry."""
        match = _ROLE_FIRST_LINE.match(line)
        if not match:
            return False
        contact = match.group("paren") or match.group("rest") or match.group("dashed") or ""
        role = match.group("role")
        # "Staff: Jolene Whitcombe, Managing Director (jolene@…, ext. 12)": a label naming a group of people
        # is no job; the title after the name is.
        title = re.split(r"\s*[(,;]", contact, maxsplit=1)[0].strip()
        if not is_job_title(role) and title != contact.strip() and is_job_title(title):
            role = title
        elif not is_job_title(role) and _person_names(contact) - {clean_name(match.group("name"))}:
            # "Contacts: Amina Yusuf, amina@…, mobile …; Brian Kiprop, brian@…": a label over several people,
            # each with their own address and number, is no one's job; the line is read name by name.
            return False
        return self._entry_with_contact(clean_name(match.group("name")), role, contact, position,
                                        role_confidence=0.9, email_confidence=0.93)

    def _entry_with_contact(self, name: str, role: str, contact: str, position: int,
                            role_confidence: float, email_confidence: float) -> bool:
        """A directory entry: a person, their job, and an address or phone in `contact` — each
        recorded, when all three are there."""
        role = role.strip()
        emails, phones = EMAIL.findall(contact), phones_in(contact)
        if not self.is_person(name) or not (emails or phones) or not _is_role_text(role):
            return False
        if turned := _employer_then_job(role):
            role = turned[1]  # "(Bouwbedrijf Van Gelder, uitvoerder)": the firm, then the job
        self.add(name, "role", role, role_confidence, "directory", position)
        for address in emails:
            self._person_with_address(name, address.lower(), email_confidence, "directory", position)
        for key, phone in labelled_phones(contact):
            self.add(name, key, phone, 0.9, "directory", position)
        return True

    def _inline_roles(self, line: str, position: int) -> None:
        """ "Alma Reyes (Account Executive) presented the plan": a capitalised title in brackets
        right after a name, as meeting notes introduce people."""
        for match in _INLINE_ROLE.finditer(line):
            name, role = clean_name(match.group(1)), match.group(2).strip()
            words = re.findall(r"[^\W\d_]+", role)
            titled = words and all(w[0].isupper() or w.lower() in _TITLE_SMALL_WORDS for w in words)
            if _goes_by(role, name):
                continue  # "Tan Wei Ming (Jason)": the name they go by (_nicknames)
            if any(c.isdigit() for c in role):
                from chatapp.knowledge.extraction.values import find_dates

                if find_dates(role):
                    continue  # "Maersk Kensington (ETD 9 Dec 2026)": a vessel's sailing date, no job
            if len(role.split()) == 1 and is_first_name(role) and not is_job_word(role.lower()):
                continue  # "Parkhaus Vaihingen (Thomas)": a heading with who reports on it, no job
            if (titled and len(words) > 1 and not is_job_title(role)
                    and not any(is_job_word(w.lower()) for w in words)):
                continue  # "Kaisa Aalto (Stiftelsen Solvik) called": the body they come from, no job
            if titled and looks_like_person(name) and _is_role_text(role) and not abbreviates(role, name):
                self.add(name, "role", role, 0.75, "prose", position + match.start())
            elif (turned := _employer_then_job(role)) and looks_like_person(name):
                # "Ruud Hoekstra (Hoekstra & Brand, constructeur)": the firm, then the job
                self.add(name, "role", turned[1], 0.75, "prose", position + match.start())

    def _prose_roles(self, line: str, position: int) -> None:
        """ "drawings go to the conservation officer, Ifor Penhaligon, before submission" and
        "(contact: Wenna Trask, parish clerk)": someone introduced by what they do, which makes
        them a person even when their given name is in no list."""
        for pattern in (_ROLE_BEFORE_NAME, _NAME_BEFORE_ROLE, _ROLE_RIGHT_BEFORE_NAME, _JOINED_AS):
            self._prose_role_matches(pattern, line, position)

    def _prose_role_matches(self, pattern: re.Pattern, text: str, position: int) -> None:
        for match in pattern.finditer(text):
            name, role = _without_opening_word(match.group("name")), re.sub(r"^new\s+", "", match.group("role"))
            role = role[0].lower() + role[1:]  # a line's first word: "Sous chef"
            if looks_like_person(name) and _is_prose_role(role):
                self.add(name, "role", role, 0.7, "prose", position + match.start())

    def _lower_case_titles(self) -> None:
        """ "run by **Gregor Harlow** (director) and his daughter **Isla Harlow**\n(company secretary)",
        "Morven Shaw is our bookkeeper": a job in lower case said of a name in a paragraph, read across its
        wrapped lines and through bold marks (so positions are only near). An attendees line is left out:
        "Attendees: Eirik Hovlandsdal (chair), Sigrid Nesheim" says who chaired that meeting, not his job
        (_attendees_line reads its titled brackets)."""
        unlisted = "\n".join("" if _ATTENDEES.match(re.sub(r"^\s*>+\s?", "", line)) else line
                             for line in self.text.split("\n"))
        text = re.sub(r"\*\*|__", "", re.sub(r"(?<!\n)\n(?![\n>])", " ", unlisted))
        for pattern in (_NAME_THEN_BRACKETED_ROLE, _NAME_IS_THE_ROLE):
            self._prose_role_matches(pattern, text, 0)

    def _list_item_title(self, line: str, position: int) -> None:
        """In a team list's entry that opens with the person's name in bold, a title its first sentence
        gives them however many words come between: "- **Siân Prydderch** runs the hotel day to day as
        General Manager" (a sentence naming them plainly is _stated_titles' to read)."""
        item = _NAMED_ITEM.match(line)
        if item is None:
            return
        first_sentence = re.split(r"(?<=[a-z)])\.\s", item.group("rest"), maxsplit=1)[0]
        if (match := _AS_TITLE.search(first_sentence)) is None:
            return
        name = clean_name(item.group("name"))
        title = trimmed_title(match.group("title"))
        if self.is_person(name) and is_job_title(title):
            self.add(name, "role", title, 0.8, "prose", position)

    def _addresses_by_name(self, line: str, previous: str, position: int, following: str = "") -> None:
        """An address on a line with exactly one name it is written from is that person's:
        "Sous chef Kwabena Owusu covers weekends (kwabena.owusu@…)", "Grounds: Dafydd Morgan
        (dafydd.morgan@…)" — whatever the line's layout; on a line that names nobody, the name may
        end the line before it (a wrapped sentence). When the line names only that person, its phone
        numbers are theirs too."""
        addresses = EMAIL.findall(line)
        if not addresses:
            return
        names = _person_names(line) or _person_names(previous)
        for address in addresses:
            local = address.split("@")[0]
            owners = {n for n in names if address_spells_name(local, n)}
            if len(owners) != 1:
                continue
            owner = owners.pop()
            self._person_with_address(owner, address.lower(), 0.88, "directory", position)
            # Nobody else the line names by a given name ("Head Rigger" reads as a name but is a title), nor
            # anyone another of its addresses is written from ("Rekha Pai … rekha.pai@…", whatever her given name).
            others = [n for n in names if n != owner and (is_first_name(n.split()[0]) or any(
                address_spells_name(other.split("@")[0], n) for other in addresses if other != address))]
            if not others:
                # A number before the owner's name on the line ends an earlier sentence, wrapped onto this
                # line ("+91 94480 33172. Day-to-day: Rekha Pai (Officer), rekha.pai@…"): not theirs.
                at = line.find(owner.split()[0])
                rest = line[at:] if at > 0 and re.search(r"[.;]\s", line[:at]) else line
                if line.rstrip().endswith(",") and address == addresses[-1]:
                    # "…, dana.kim@…," wrapped before the number: the next line's opening, up to its sentence's end.
                    rest += " " + re.split(r"[.;]\s|[.;]$", following.strip(), maxsplit=1)[0]
                for key, phone in labelled_phones(EMAIL.sub(" ", rest)):
                    self.add(owner, key, phone, 0.85, "directory", position)
            else:
                # Two people with their addresses on one line: a number is the one's whose name comes last
                # before it ("Dana Kim, dana@…, 0412 555 010; Ravi Rao, ravi@…").
                self._phones_after_names(owner, names, line, position)

    def _phones_after_names(self, owner: str, names: set[str], line: str, position: int) -> None:
        blanked = EMAIL.sub(lambda m: " " * len(m.group(0)), line)
        starts = sorted((m.start(), n) for n in names for m in re.finditer(re.escape(n), line))
        for (start, _end), _ in phone_spans(blanked):
            before = [n for at, n in starts if at < start]
            if before and before[-1] == owner:
                for key, phone in labelled_phones(blanked[line.rfind(owner, 0, start):_end]):
                    self.add(owner, key, phone, 0.85, "directory", position)

    def _stacked_signatures(self, lines: list[str]) -> None:
        """A signature written down the page: the name alone on a line, the title under it
        ("Data Scientist, Tidewater Print Co."), then a phone line. Outside a mail, a contact sheet's
        block is read so too ("Aisha Rahman / Co-op Secretary / aisha@… / 0161 …") when its title is a
        job and an address or number follows: a name over a line of meeting notes is no signature."""
        offsets = [0]
        for line in lines:
            offsets.append(offsets[-1] + len(line) + 1)
        # A quoted message's signature is its writer's, read the same way without the "> " marks.
        quoted = [bool(re.match(r"[ \t]*>", line)) for line in lines]
        lines = [re.sub(r"^[ \t]*>+[ \t]?", "", line) for line in lines]
        for n, line in enumerate(lines[:-1]):
            if _CLOSING.match(line.strip()):
                continue  # "Viele Grüße" over the writer's name is no name with a title under it
            name = clean_name(line)
            by_first_name = bool(self.is_email and self.sender and name and name == self.sender.split()[0]
                                 and not quoted[n])
            if by_first_name:
                name = self.sender  # the sender signing with a first name, their title and numbers under it
            elif (name != line.strip().strip("*_") and not _name_with_nickname(line, name)
                  and not _name_with_titles(line, name)) or not self.is_person(name):
                continue
            # "Taproom Manager | Ridgeway Brewing": the title, then the organisation after a bar.
            title = re.split(r"\s+[|·]\s+", lines[n + 1].strip())[0]
            if not _is_role_text(title) or looks_like_person(clean_name(title)):
                continue
            role = _split_role(title)[0]
            if by_first_name and not (_is_prose_role(role.lower()) or re.fullmatch(r"[A-Z]{2,4}", role)):
                continue  # under a first name, the firm's name ("Crann Óg Tree Care") is no job
            phones, addresses = [], []
            for follow in lines[n + 2 : n + 5]:
                if not follow.strip() or is_reply_attribution(follow) or _ENDS_A_SIGNATURE.match(follow):
                    break  # the signature's block ends: below is the quoted writer's "… <their@address> wrote:"
                phones += labelled_phones(follow)
                addresses += EMAIL.findall(follow)
            if not self.is_email and not ((phones or addresses) and is_job_title(role)):
                continue
            sure = 0.85 if name == self.sender else 0.75
            self.add(name, "role", role, sure, "signature", offsets[n])
            for key, phone in phones:
                self.add(name, key, phone, sure, "signature", offsets[n])
            for address in addresses:
                self._person_with_address(name, address.lower(), sure, "signature", offsets[n])

    def _heading_entries(self, lines: list[str]) -> None:
        """A directory written down the page, one person per heading:

            ## Dana Kim
            Finance Lead, Operations — budgets and payroll.
            Mobile: 0412 555 010
            Email: dana@example.com

        The lines under the name, up to the next heading, are read as one directory line's fields."""
        offsets = [0]
        for line in lines:
            offsets.append(offsets[-1] + len(line) + 1)
        def heading_match(line: str) -> re.Match | None:
            return _ENTRY_HEADING.match(line) or _BRACKET_HEADING.match(line)

        def is_heading(n: int) -> bool:
            return bool(heading_match(lines[n])) or offsets[n] in self.headings

        for n, line in enumerate(lines):
            match = heading_match(line)
            written = match.group("name") if match else line if offsets[n] in self.headings else ""
            if not written or not looks_like_person(name := clean_name(written)):
                continue
            details = []
            for m in range(n + 1, len(lines)):
                follow = lines[m]
                if _ENTRY_END.match(follow) or is_heading(m) or len(details) == _ENTRY_LINES:
                    break
                if (entry := _DIRECTORY_LINE.match(follow)) and (other := clean_name(entry.group("name"))) != name \
                        and looks_like_person(other) and not is_job_title(other):
                    # "## Hacienda Tlaquepaque" over "- **Anselmo Fuentes** — Chef · anselmo@…": a heading over
                    # other people's entries is a section of the list, not a card of its own. (The card's own
                    # "Senior Estimator — tenders and pricing" is its job, no other person.)
                    break
                if _names_another_with_contact(follow, name):
                    # "## Unidade Serra Azulada" over "Head of School: Judite Orsi — jorsi@… — ext. 2101": the
                    # same, with each entry's job written first.
                    break
                if follow.strip():
                    details.append(follow.strip())
            # A dot-led card field is one field whole: its value may hold a " - " ("23/11 - 11/12").
            fields = [
                f"{leader['label']}: {leader['value']}" if (leader := _LEADER_FIELD.match(detail)) else f.strip()
                for detail in details
                for f in ([detail] if _LEADER_FIELD.match(detail) else _FIELD_END.split(detail))
                if f.strip()
            ]
            self._directory_fields(name, fields, offsets[n])

    def _definition_entries(self, lines: list[str]) -> None:
        """A directory written as a Markdown definition list, the person's name as the term:

            Dr. Dana Kim
            :   Finance Lead, Operations
            :   dana@example.com · +49 89 555-0101

        The definitions under the name (directly or after one blank line) are read as one
        directory line's fields; the layout is a team list's, so the role needs no contact beside it."""
        offsets = [0]
        for line in lines:
            offsets.append(offsets[-1] + len(line) + 1)
        for n, line in enumerate(lines):
            if not line.strip() or _DEFINITION.match(line) or line.startswith((" ", "\t")):
                continue
            follow = n + 1 + (n + 1 < len(lines) and not lines[n + 1].strip())
            details = []
            while follow < len(lines) and (definition := _DEFINITION.match(lines[follow])):
                details.append(definition.group("text").strip())
                follow += 1
            if not details or not looks_like_person(name := clean_name(line.strip().strip("*_"))):
                continue
            fields = [f.strip() for detail in details for f in _FIELD_END.split(detail) if f.strip()]
            self._directory_fields(name, fields, offsets[n], listed=True)

    def _directory_line(self, line: str, position: int) -> None:
        """ "- **Dana Kim** — Finance Lead, Operations. Email: dana@example.com. Phone: 555 0101" """
        match = _DIRECTORY_LINE.match(line)
        if not match:
            return
        name = clean_name(match.group("name"))
        if not self.is_person(name):
            return
        fields = [f.strip() for f in _FIELD_END.split(match.group("rest")) if f.strip()]
        # "- **Bettina Kowalczyk** — head nurse" is a team list's entry even with no way to reach her:
        # a list item whose name is set in bold, or set off by a dash, is laid out as a directory,
        # where "Dana Kim: thanks, see you Monday" in meeting notes is not.
        listed = bool(match.group("item")) and (bool(match.group("bold")) or match.group("sep").strip() in "—–-")
        self._directory_fields(name, fields, position, listed=listed)

    def _directory_fields(self, name: str, fields: list[str], position: int, listed: bool = False) -> None:
        """A directory entry's fields: labelled ones ("Email: …"), bare addresses and numbers, and
        the first field as the role when it reads as a job title ("Finance Lead", or in lower case a
        word for someone who does something: "head nurse", "practice manager"). `listed`: the entry
        is laid out as a team list's, so its role needs no contact beside it."""
        found_contact = False
        role = None
        for n, field in enumerate(fields):
            labelled = _LABELLED.match(field)
            if labelled and "@" not in labelled.group(1):
                key, value = key_for_label(labelled.group(1)), labelled.group(2).strip(" .")
                if key == "email" and (emails := EMAIL.findall(value)):
                    found_contact = True
                    for address in emails:
                        self._person_with_address(name, address.lower(), 0.95, "directory", position)
                elif key in _ALIAS_LABELS and looks_like_person(f"{value} {name.split()[-1]}"):
                    self.add(name, ALIAS, value, 0.85, "directory", position)
                    self.add(name, ALIAS, f"{value} {name.split()[-1]}", 0.85, "directory", position)
                elif key == "title" and _is_role_text(title := re.sub(r"\s*\(\s*[a-z][^()]*\)", "", value)):
                    role = title  # a card's "Title:" is the job title; "(acting … until 11/12)" is a note on it
                elif key in _DESK_LABELS and (phones := phone_spans(value)) and phones[0][0] == (0, len(value)):
                    found_contact = True
                    self.add(name, "phone", value, 0.9, "directory", position)
                elif key in ("phone", "mobile") and (phones := phones_in(value)):
                    found_contact = True
                    for phone in phones:
                        self.add(name, key, phone, 0.92, "directory", position)
                elif key in ("role", "department", "location", "office", "room", "pronouns"):
                    self.add(name, key, value, 0.9, "directory", position)
                continue
            emails, phones = EMAIL.findall(field), phones_in(field)
            if emails or phones:
                found_contact = True
                for address in emails:
                    self._person_with_address(name, address.lower(), 0.93, "directory", position)
                for key, phone in labelled_phones(field):
                    self.add(name, key, phone, 0.9, "directory", position)
                # "reservations supervisor (tomasz@…)": the job before the bracketed contact.
                before = re.sub(r"\s*\([^()]*\)\s*$", "", field)
                if n == 0 and before != field and not (EMAIL.search(before) or phones_in(before)):
                    role = next((text for text in (before, before.split(", ")[0]) if _is_role_text(text)), None)
                    role = role or _lower_case_role(before)
                elif n == 0 and ", " in field and not (EMAIL.search(head := field.split(", ")[0]) or phones_in(head)):
                    # "Logistics Manager, peishan.lee@…, +65 6368 9021": the job, then the ways to reach them.
                    role = head if _is_role_text(head) and is_job_title(head) else None
            elif n == 0:
                if called := _CALLED_NOTE.search(field):
                    self.add(name, ALIAS, called.group("alias"), 0.85, "directory", position)
                    field = _CALLED_NOTE.sub("", field).strip()
                field = _OWNER_WORD.sub("", field)
                # "Apprentice landscaper (2nd year), works with Crew A. (Lachlan's sister…)": a
                # title with a note after it is the title before the note; "Finance Officer (rent
                # accounts, invoices)" is the title before its bracketed note, not cut inside it.
                unbracketed = re.sub(r"\s*\([^()]*\)", "", field).strip()
                listing = re.search(r"\([^()]*,[^()]*\)", field)  # a bracketed list describes the job
                # "Analyst (joined September)": an aside in lower case is said of the person, not the
                # title, where "Veterinary Nurse (RVN)" brackets a part of it.
                aside = re.search(r"\(\s*[a-z][^()]*\)\s*$", field)
                candidates = [unbracketed, field] if listing or aside else [field, field.split(", ")[0], unbracketed]
                role = next((text for text in candidates if _is_role_text(text) and _balanced(text)), None)
                role = role or _lower_case_role(field)
            if n and (called := _CALLED_FIELD.search(field)) and not _NOT_TITLES.match(called.group("alias")):
                self.add(name, ALIAS, called.group("alias"), 0.8, "directory", position)
        if role is None:
            role = next((title for field in fields if (title := _entry_prose_role(field))), None)
        # A role is only taken from a line that also gives a way to reach the person, or is laid out as
        # a team list's entry: that is what tells a directory entry from "Dana Kim: thanks, see you
        # Monday" in meeting notes.
        if role and (found_contact or listed):
            title, department = _split_role(role)
            self.add(name, "role", title, 0.92 if found_contact else 0.85, "directory", position)
            department = department or self._section_of(position)
            if department:
                self.add(name, "department", department, 0.75, "directory", position)

    def _section_of(self, position: int) -> str:
        """The section of a directory an entry is listed under: "## Riverdale clinic (1180 Queen Street
        East)" over "- **Ottilie Quintero** — Practice Manager — ottilie@…" says where she works, as a
        "Department" column would. Only a Markdown heading below the page's title that names something
        and is no person's name ("## Dana Kim" is her card); "## Group leadership", "## Staff" name no team."""
        before = self.text[:position]
        heading = None
        for line in reversed(before.split("\n")):
            if match := _SECTION_HEADING.match(line):
                heading = match
                break
        if not heading:
            return ""
        section = re.sub(r"\s*\([^()]*\)\s*$", "", heading.group("section")).strip(" :*_")
        words = section.split()
        if not 1 <= len(words) <= 5 or any(c.isdigit() for c in section):
            return ""
        if all(w[:1].isupper() for w in words) and looks_like_person(section):
            return ""
        # A name in it: a word that is no everyday one ("Riverdale clinic"), or in a heading not written in
        # title case a capitalised word after its first ("Don Mills clinic", where "## Group Leadership"
        # capitalises every word).
        named = not all(is_common(w, 4.0) for w in re.findall(r"[^\W\d_]+", section)) or (
            not all(w[:1].isupper() for w in words) and any(w[:1].isupper() for w in words[1:]))
        return section if named else ""

    # --- sign-offs ----------------------------------------------------------

    def _greetings(self) -> None:
        """ "Hi Keeva," opening a message sent to one person, Caoimhe Ní Bhriain: a name people call
        her by. The mail's own part goes to its To: header; a quoted message to the To: line of its
        own header block. Words for a group ("Hi all", "Dear Sirs") and common words name nobody."""
        from chatapp.lexicon import zipf

        starts = [0] + [m.start() + 1 for m in _QUOTED_PART.finditer(self.text)] + [len(self.text)]
        for n, (start, end) in enumerate(zip(starts, starts[1:])):
            part = self.text[start:end]
            if n == 0:
                raw = self.metadata.get("to") or ""
            else:
                header = _BODY_HEADER_TO.search(part)
                raw = header.group(1) if header else ""
            people = [clean_name(_header_display(display, address)) for display, address in getaddresses([raw])
                      if "@" in address]
            if len(people) != 1 or not looks_like_person(people[0]):
                continue
            name = people[0]
            lines = [line.lstrip(" \t>").strip() for line in part.split("\n")]
            # The message's first line after its header block and attribution, if it greets.
            opening = next((line for line in lines if line and not _HEADER_OR_RULE.match(line)), "")
            greeting = _GREETING.match(opening)
            if greeting is None:
                continue
            word = greeting.group(1)
            folded = fold(word)
            if (folded in _GROUP_GREETED or folded == fold(name.split()[0])
                    or not (is_first_name(word) or zipf(word.lower()) < 3.7)):
                continue
            self.add(name, ALIAS, word, 0.75, "greeting", start + greeting.start())

    def _sign_off(self) -> None:
        """The name under "Thanks," in the sender's own part of the mail: "Rob" for Robert
        Ellison is a name people call him by."""
        own = _QUOTED_PART.split(self.text, 1)[0]
        lines = [line.strip() for line in own.split("\n")]
        first = self.sender.split()[0]
        signed = set()
        for n, line in enumerate(lines[:-1]):
            if not _CLOSING.match(line):
                continue
            # "Thanks" then the name, perhaps after a blank line.
            following = next((later for later in lines[n + 1 : n + 3] if later), "")
            signed.add(following)
        written = [n for n, line in enumerate(lines) if line]
        if len(written) >= 2 and lines[written[-1] - 1] == "":
            # A short form of the sender's first name alone on the mail's last line, a blank line above
            # it and no closing: "Shiv" from Shivani. (Any other name there may be a forwarded mail's.)
            last = lines[written[-1]].strip(" ,.")
            if len(last) >= 3 and first.startswith(last):
                signed.add(lines[written[-1]])
        for n, line in enumerate(lines[1:-1], start=1):
            # "Ally" alone on a line with no closing above it, then the sender's signature block
            # ("Alasdair Buchanan-Reid | Head Distiller | …"): the block says whose sign-off it is.
            if lines[n - 1] == "" and re.fullmatch(r"[A-Z][a-z]{1,15},?", line) and not _CLOSING.match(line):
                below = next((later for later in lines[n + 1 : n + 3] if later), "")
                if re.match(rf"{re.escape(self.sender)}(?![\w'’-])", below):
                    signed.add(line)
        for line in signed:
            word = line.strip(" ,.")
            if (re.fullmatch(r"[A-Z][a-z]{1,15}", word) and word != first) or _initials_of(word, first):
                self.add(self.sender, ALIAS, word, 0.8, "sign_off", own.find(line))


def _initials_of(word: str, first: str) -> bool:
    """ "J-F", "JF" or "J.-F." signed by a Jean-François: the initials of a hyphenated first name, as Québec
    and France shorten it."""
    parts = first.split("-")
    letters = re.sub(r"[.\-\s]", "", word)
    return len(parts) >= 2 and bool(re.fullmatch(r"[A-ZÀ-Ý](?:\.?-?[A-ZÀ-Ý]\.?)+", word)) and \
        letters.casefold() == "".join(p[:1] for p in parts).casefold()


def _names_another_with_contact(line: str, name: str) -> bool:
    """Whether `line` is a who-does-what entry, job first, for someone other than `name`, with an address or
    number beside them: "Head of School: Judite Marcondes Orsi — jorsi@… — ext. 2101"."""
    match = _ROLE_FIRST_LINE.match(line)
    if match is None:
        return False
    other = clean_name(match.group("name"))
    contact = match.group("paren") or match.group("rest") or match.group("dashed") or ""
    return (other != name and looks_like_person(other) and not is_job_title(other)
            and bool(re.search(r"@|\d{3}", contact)))


def read_people(text: str, metadata: dict, is_email: bool, headings: frozenset[int] = frozenset()) -> list[Observation]:
    """`headings`: the offsets where the parser found heading lines (see PeopleReader)."""
    return PeopleReader(text, metadata, is_email, headings).read()


# Attributes that say what someone is: "the office manager" names whoever alone holds that role.
ROLE_KEYS = ("role", "title", "position", "job_title")


def sole_holders(roles: Iterable[tuple[str, str]], form_key: Callable[[str], Hashable]) -> dict:
    """`form_key(role)` -> the one entity holding that role, from (entity id, role as written) pairs: a
    role two entities hold names neither. A role counts as written and without what follows a comma
    ("Associate, heritage projects" is also an "associate"); a form whose key is empty counts not."""
    holders: dict[Hashable, set[str]] = {}
    for entity_id, role in roles:
        # "Office Manager (both clinics)" is also the office manager, "Dentist, DDS — Clinical Director" the
        # clinical director.
        for form in {role, role.split(",")[0], *role_parts(role)}:
            if key := form_key(form):
                holders.setdefault(key, set()).add(entity_id)
    return {key: next(iter(ids)) for key, ids in holders.items() if len(ids) == 1}
