"""What kind of request a message is: small talk that needs no reference data
(assembly leaves those channels out, the offline responder replies in kind),
or a request for documents ("find the email from John") that deserves a list
of documents rather than an attribute.
"""

from __future__ import annotations

import re

# "find the email from John", "show me the notes about Atlas", "find John's email from yesterday":
# the user wants documents, not an attribute ("what is John's email?" asks for the address).
_DOCUMENT_NOUN = r"(?:e-?mails?|messages?|mails?|notes?|documents?|docs?|files?|reports?|memos?|minutes|threads?|postmortems?|summar(?:y|ies)|spreadsheets?)"
_FIND_VERB = re.compile(r"\b(?:find|show|list|locate|pull up|dig up|look up|look for|search|fetch|open|where (?:is|are))\b", re.I)
_DOCUMENT_REQUEST = re.compile(
    rf"\b(?:the|a|an|that|this|those|these|any|all|my|last|latest|recent)\s+(?:[\w-]+\s+){{0,2}}{_DOCUMENT_NOUN}\b"
    rf"|['’]s\s+{_DOCUMENT_NOUN}\s+(?:from|about|on|sent|of|last|yesterday|today)\b", re.I)
# Which file types a document noun points at.
NOUN_SUFFIXES = {"mail": (".eml",), "message": (".eml",), "thread": (".eml",), "note": (".md", ".txt", ".docx"),
                  "minutes": (".md", ".txt", ".docx"), "memo": (".docx",), "spreadsheet": (".csv", ".xlsx")}
MAX_DOCUMENTS = 3

ALL_CHANNELS = ["system", "dialogue", "entities", "rag", "query"]
CHAT_CHANNELS = ["system", "dialogue", "query"]


_CHIT_CHAT_PHRASES = (
    r"h(?:i+|e+llo+|ey+|owdy|iya)", r"yo", r"greetings", r"good (?:morning|afternoon|evening|night|day)",
    r"morning", r"evening", r"thanks?(?: you)?", r"thank u", r"thx", r"ty(?:sm)?", r"cheers",
    r"much appreciated", r"appreciate it", r"how are (?:you|u|things)(?: doing)?(?: today)?",
    r"how(?:'s| is) it going", r"what'?s up", r"sup", r"how do you do", r"nice to meet you",
    r"ok(?:ay)?", r"cool", r"great", r"nice", r"awesome", r"perfect", r"got it", r"sounds good",
    r"alright", r"lol", r"ha(?:ha)+", r"bye", r"goodbye", r"see (?:you|ya)(?: later| soon)?", r"later",
    r"good ?night", r"take care", r"no problem", r"np", r"you'?re welcome", r"well done", r"great job",
)
_CHIT_CHAT_FILLER = r"there|again|so much|a lot|very much|all|everyone|folks|guys|mate|buddy|friend|chatapp"
_CHIT_CHAT = re.compile(rf"^(?:(?:{'|'.join(_CHIT_CHAT_PHRASES)}|{_CHIT_CHAT_FILLER})(?: |$))+$")


def is_small_talk(text: str) -> bool:
    """Greetings, thanks, goodbyes and acknowledgements with nothing else in them. "yes" and "sure"
    are not small talk: they accept an offer and need the context. Punctuation alone ("?!") asks nothing
    either."""
    normalized = " ".join(re.sub(r"[^\w' ]+", " ", text[:200].casefold()).split())
    return not normalized or (len(text) < 200 and bool(_CHIT_CHAT.match(normalized)))


def triage_channels(corrected_input: str) -> list[str]:
    """Which channels a message needs. Small talk gets no retrieval and no entity context: there is
    nothing to look up, and reference data would only tempt the model to recite it."""
    if is_small_talk(corrected_input):
        return list(CHAT_CHANNELS)
    return list(ALL_CHANNELS)


def small_talk_reply(question: str) -> str | None:
    """A greeting, thanks or goodbye gets one back, not "I found nothing"."""
    if not question.strip() or "rag" in triage_channels(question):
        return None
    lowered = question.lower()
    if re.search(r"\b(thanks|thank|thx|cheers|appreciate)", lowered):
        return "You're welcome!"
    if re.search(r"\b(bye|goodbye|see you|good night)\b", lowered):
        return "Goodbye!"
    if re.search(r"\b(h(i+|e+llo+|ey+|owdy|iya)|yo|greetings|morning|afternoon|evening|how are|how's it|what'?s up|sup)\b", lowered):
        return "Hello! Ask me about the people, projects and documents in your knowledge base."
    return "Anything else I can look up for you?"  # "ok", "cool", "got it"


def is_document_request(question: str) -> bool:
    return bool(_FIND_VERB.search(question) and _DOCUMENT_REQUEST.search(question))
