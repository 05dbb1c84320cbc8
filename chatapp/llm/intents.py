"""What kind of request a question to the offline responder is: small talk
that deserves a reply in kind, or a request for documents ("find the email
from John") that deserves a list of documents rather than an attribute.
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
NOUN_SUFFIXES = {"mail": (".eml",), "message": (".eml",), "thread": (".eml",), "note": (".md", ".txt"),
                  "minutes": (".md", ".txt"), "spreadsheet": (".csv", ".xlsx")}
MAX_DOCUMENTS = 3


def small_talk_reply(question: str) -> str | None:
    """A greeting, thanks or goodbye gets one back, not "I found nothing"."""
    from chatapp.assembly import triage_channels

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
