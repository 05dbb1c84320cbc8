"""What a sentence does: state a fact about the world, or voice the speaker's
taste, experience or plan. Only statements are held to the sources.

"I really like football", "you might enjoy it", "I've never been to a game",
"She is a really good actress", "Hope you enjoy it", "Have a great movie
night", "You're right about both" and "If he needs the money there will be a
rematch" tell the user how the assistant (or the user) feels, what to do, or
what might be; no source could state them, so a missing word is no evidence
of anything. A sentence that *wraps* a statement ("I think she
leads Atlas", "I heard that X approved it") still states it.
"""

from __future__ import annotations

import re
from typing import Literal

from chatapp.postprocess.evidence import is_soft

# What a sentence does: only statements are held to the sources.
# "experience": the speaker telling what they did or have ("I visited Rome last summer", "my wife
# loves it"). From an assistant that is a made-up life story: a claim like a statement, which no
# source will state.
# "courtesy": a wish, advice or a politeness ("Have a great day", "Thanks for asking", "I agree!",
# "Great choice"); "personal": the assistant telling where it stands ("I have not seen it", "I looked
# through your notes"). Neither says anything of the subject, where an "opinion" voices a taste or a
# judgement of it ("I love their early albums", "it's a great show").
SentenceMode = Literal["statement", "experience", "question", "opinion", "courtesy", "personal", "meta"]

OPINION_LEMMAS = frozenset({"like", "love", "enjoy", "hate", "prefer", "feel", "think", "believe", "guess", "hope",
                            "wish", "recommend", "suggest", "agree", "want", "try", "bet", "adore", "dislike"})
SPEAKER_PRONOUNS = frozenset({"i", "you", "we", "me", "us"})
# "Did you know (that) …?", "Do you realise …", "Are you aware …": a question in form that tells the user something.
TELLING_QUESTION_RE = re.compile(r"^\W*(?:\w+\W+){0,2}?(?:(?:did|do) you (?:also |even )?(?:know|realize|realise|hear)"
                                 r"|(?:are|were) you (?:also |even )?aware)"
                                 r"\b(?! (?:of|about|anything|any)\b)\s*(?:that\b)?\s*\w+", re.IGNORECASE)
# A question typed without its mark: an auxiliary before "you" opens it ("Are you a fan of X by
# any chance.", "Have you seen it"); "Do you know that …" still tells, as above.
UNMARKED_QUESTION_RE = re.compile(r"^\W*(?:(?:and|so|but|well|also|oh)\W+)?(?:are|do|did|have|would|could|can|will|"
                                  r"were|should|shall)\s+you\b", re.IGNORECASE)
# Who "I" and "we" are is the conversation itself: what they did or felt is not in any source.
FIRST_PERSON = frozenset({"i", "we"})
# Pronoun subjects of an evaluation ("it was great", "she is a good actress").
PRONOUN_SUBJECTS = frozenset({"it", "he", "she", "they", "that", "this", "those", "these"})


def sentence_mode(span, raw: str, meta: bool) -> SentenceMode:
    """"meta", "question", "opinion", "courtesy", "personal", "experience" or "statement" for one sentence (a
    spaCy span)."""
    if meta:
        return "meta"
    if raw.rstrip().endswith("?") or UNMARKED_QUESTION_RE.match(raw):
        # "Did you know that he starred in X?" asks nothing: it tells the user X.
        return "statement" if TELLING_QUESTION_RE.search(raw) else "question"
    root = span.root
    if tells_experience(root):
        return "experience"
    if _is_hypothetical(span):
        return "opinion"
    polite = _is_wish(span) or _is_imperative(span, root) or _agrees_with_listener(root) or _is_exclamation(span)
    judging = is_opinion(root) or is_evaluation(span, root)
    if polite or judging or is_personal(root):
        # "I like pink, and pink comes from the flower of that name": the taste is an opinion, the
        # clause joined to it a statement about the world.
        if states_aside(root) or wraps_statement(root):
            return "statement"
        return "courtesy" if polite else "opinion" if judging else "personal"
    return "statement"


def states_aside(root) -> bool:
    """A clause joined to an opinion that says something of the world in its own right: its own
    subject, not the speaker or the listener, no modal, not itself a judgement or a taste."""
    joined = [c for c in root.children if c.dep_ in ("conj", "advcl")]
    joined += [c for j in joined for c in j.children if c.dep_ == "conj"]  # "because …, and …"
    for clause in joined:
        if clause.pos_ not in ("VERB", "AUX"):
            continue
        subject = _subject(clause)
        if subject is None or subject.lower_ in SPEAKER_PRONOUNS or subject.pos_ == "PRON" and subject.lower_ not in (
                "it", "he", "she", "they"):
            continue
        if any(c.tag_ == "MD" for c in clause.children) or _judges(clause) or is_opinion(clause):
            continue
        return True
    return False


# What opens an indirect question ("I'm not sure how good they are"): it asks, it does not state.
ASKING_WORDS = frozenset({"how", "what", "which", "who", "whom", "whose", "why", "when", "where", "whether", "if"})


def wraps_statement(root) -> bool:
    """How the speaker feels or stands — "I'm sure", "I'm glad that", "I was surprised to find out that",
    "it's interesting that" — framing a clause that says something of the world in its own right ("I'm
    sure the club owns six boats" states that it does). Not when the frame is denied ("I'm not sure
    the club …"), nor a clause about the speaker or the listener ("I'm glad you asked"), one that might
    be ("I'm sure they would like it"), an indirect question ("I'm not sure how good they are") or a
    judgement or taste itself ("I know he is a great musician")."""
    frames = [root] + [c for c in root.children if c.dep_ == "acomp"]
    for frame in frames:  # "surprised to find out that …": through the verb the feeling takes
        frames += [c for c in frame.children if c.dep_ == "xcomp" and c.pos_ in ("VERB", "AUX") and c not in frames]
    if any(c.dep_ == "neg" or c.lower_ in ("never", "not", "n't") for f in frames for c in f.children):
        return False
    for clause in (c for f in frames for c in f.children if c.dep_ == "ccomp" and c.pos_ in ("VERB", "AUX")):
        subject = _subject(clause)
        if subject is None or subject.lower_ in SPEAKER_PRONOUNS:
            continue
        if clause.doc[clause.left_edge.i].lower_ in ASKING_WORDS or any(
                c.tag_ == "MD" or c.dep_ == "mark" and c.lower_ in ASKING_WORDS for c in clause.children):
            continue
        if _judges(clause) or is_opinion(clause):
            continue
        return True
    return False


def is_opinion(verb) -> bool:
    """A speaker's or listener's taste or plan ("I really like football", "you might enjoy it"),
    not a statement about the world — unless it wraps one ("I think she leads Atlas")."""
    if verb.lemma_.lower() not in OPINION_LEMMAS:
        return False
    subjects = [c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")]
    if not subjects or subjects[0].lower_ not in SPEAKER_PRONOUNS:
        return False
    clauses = [c for c in verb.children if c.dep_ in ("ccomp", "xcomp") and c.pos_ in ("VERB", "AUX")]
    return all(is_opinion(c) or c.dep_ == "xcomp" or _to_listener(c) for c in clauses)


# How the speaker stands to what is said — knowing, hearing of, remembering — not something they did.
COGNITION_LEMMAS = frozenset({"know", "think", "believe", "guess", "understand", "remember", "hear", "forget",
                              "realize", "realise", "wonder", "suppose", "imagine", "doubt", "assume", "expect",
                              "mean", "agree", "bet", "notice", "learn", "find"})
# Wanting, needing, planning and trying: what may be, not what was.
INTENT_LEMMAS = frozenset({"want", "need", "wish", "hope", "plan", "intend", "try", "mean", "would", "recommend",
                           "suggest", "feel"})
# Taste: in the present an opinion ("I love jazz"); in the past it tells of something lived ("I loved
# the concert").
TASTE_LEMMAS = frozenset({"like", "love", "enjoy", "hate", "prefer", "adore", "dislike"})
PRESENT_TAGS = frozenset({"VBP", "VBZ", "VB"})


def tells_experience(root) -> bool:
    """The speaker telling of their own life: what they did, do or have ("I went there last summer",
    "We play for 90 minutes", "I have a dog", "I loved the concert", "my wife loves it") — in any
    clause joined to the main one ("I love the USA and I watch college football"). Not what they
    know, think, want or might do ("I know…", "I'd like to…", "I might go"), nor what they did
    not do ("I have never been"): an assistant can truly say those."""
    subject = _subject(root)
    clauses = [root] + [c for c in root.children if c.dep_ == "conj" and c.pos_ in ("VERB", "AUX")]
    return any(_lived(verb, _subject(verb) or subject) for verb in clauses)


def _subject(verb):
    return next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)


def _lived(verb, subject) -> bool:
    if subject is None:
        return False
    mine = any(c.dep_ == "poss" and c.lower_ in ("my", "our") for c in subject.children)  # "my wife …"
    if not (mine or subject.lower_ in FIRST_PERSON):
        return False
    children = list(verb.children)
    if any(c.dep_ == "neg" or c.lower_ in ("never", "not", "n't") for c in children):
        return False
    if any(c.tag_ == "MD" for c in children) or verb.tag_ == "MD":
        return False  # "I would go", "we could try": what might be
    lemma = verb.lemma_.lower()
    if lemma in COGNITION_LEMMAS or lemma in INTENT_LEMMAS:
        return False
    if verb.lower_ in ("gon", "going") and any(c.dep_ == "xcomp" for c in children):
        return False  # "I'm going to watch it": a plan
    if any(_on_users_material(c) for c in children if c.dep_ in ("dobj", "prep")):
        return False  # "I checked your notes", "I searched the documents": its work on the user's material
    if lemma == "have" and any(c.dep_ == "xcomp" for c in children):
        return False  # "I have to go": an obligation
    if lemma in TASTE_LEMMAS and not mine and verb.tag_ in PRESENT_TAGS:
        return False  # "I love jazz": taste
    if lemma in OPINION_LEMMAS and lemma not in TASTE_LEMMAS:
        return False
    if lemma == "be":
        # "I was there last summer", "we were at the concert": where the speaker was. "I'm a fan",
        # "I am glad", "I was too", "my sister is a huge fan": how they are, not what they did.
        return not any(c.dep_ in ("acomp", "attr", "oprd") for c in children) and any(
            c.dep_ in ("prep", "advmod") and c.lower_ not in ("too", "also", "so", "as", "just") for c in children)
    return verb.pos_ in ("VERB", "AUX")


# What the user gives the assistant to work on, named without "your" ("I searched the documents",
# "I went through the emails"): reading it is the assistant's work in this turn, not a life it tells of.
MATERIAL_LEMMAS = frozenset({"document", "doc", "note", "file", "folder", "record", "email", "e-mail", "mail",
                             "message", "inbox", "attachment", "spreadsheet", "transcript", "passage", "excerpt",
                             "snippet", "chunk"})


def _on_users_material(phrase) -> bool:
    """An object of the verb (or a preposition's) that is the user's material: "your …", what the user
    gave ("the contract you uploaded"), or the documents, notes, files or mails themselves — unless
    the speaker calls them theirs ("my notes")."""
    tokens = list(phrase.subtree)
    if any(t.lower_ == "your" for t in tokens):
        return True
    if any(t.lower_ in ("my", "our") and t.dep_ == "poss" for t in tokens):
        return False
    return any(t.pos_ == "NOUN" and t.lemma_.lower() in MATERIAL_LEMMAS
               or t.lower_ == "knowledge" and t.dep_ == "compound"  # "the knowledge base"
               or t.dep_ == "relcl" and any(c.dep_ == "nsubj" and c.lower_ == "you" for c in t.children)
               for t in tokens)


def _to_listener(verb) -> bool:
    """"(I suggest) you check them out": advice to the user, whatever it is about."""
    subjects = [c for c in verb.children if c.dep_ == "nsubj"]
    return bool(subjects) and subjects[0].lower_ == "you"


def is_personal(verb) -> bool:
    """The assistant telling of itself ("I am not a fan of this sport", "I have not seen it",
    "I didn't know that"): first person, and no clause inside that says something of the world."""
    subjects = [c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")]
    if not subjects or not (subjects[0].lower_ in FIRST_PERSON
                            or any(c.dep_ == "poss" and c.lower_ in ("my", "our") for c in subjects[0].children)):
        return False  # "I …", "we …", "my sister …"
    clauses = [c for c in verb.children if c.dep_ in ("ccomp", "advcl", "conj", "parataxis") and c.pos_ in ("VERB", "AUX")]
    return all(is_personal(c) or is_opinion(c) or _subjectless(c) for c in clauses)


def _is_imperative(span, root) -> bool:
    """Advice or courtesy in the imperative: "Have a great movie night", "Check it out",
    "Definitely gonna check that out" (a plan with its "I" left out)."""
    if any(c.dep_ in ("nsubj", "nsubjpass", "expl", "csubj") for c in root.children):
        return False
    lead = next((t for t in span if t.is_alpha and t.dep_ not in ("intj", "advmod", "discourse")
                 and t.lower_ != "please"), None)
    if lead is None or lead.i != root.i:
        return False
    if any(c.dep_ == "ccomp" for c in root.children):
        return False  # "Remember he won three titles": the clause it wraps is a statement
    if root.tag_ == "VB":
        return True
    # "gonna check it out", "going to try it": the speaker's plan
    return root.lower_ in ("gon", "going") and any(c.dep_ == "xcomp" for c in root.children)


# The listener's own words judged: "you're right", "you are correct on both".
VERDICTS = frozenset({"right", "correct", "wrong", "mistaken", "spot"})


def _agrees_with_listener(root) -> bool:
    """"You're right", and of what the listener said: "that is correct", "it's true" — unless a
    clause says what is ("it is true that she left": a statement)."""
    subjects = [c for c in root.children if c.dep_ == "nsubj"]
    if root.lemma_.lower() != "be" or not subjects or any(c.dep_ == "ccomp" for c in root.children):
        return False
    said_of = subjects[0].lower_ == "you" or subjects[0].lower_ in ("that", "this", "it", "which")
    return said_of and any(c.dep_ in ("acomp", "attr") and c.lower_ in VERDICTS | {"true"} for c in root.children)


def _is_exclamation(span) -> bool:
    """"What a talented person!", "Great choice", "Good question": a judgement without a verb."""
    tokens = [t for t in span if t.is_alpha]
    if not tokens or any(t.pos_ in ("VERB", "AUX") for t in tokens):
        return False
    if any(t.pos_ in ("PROPN", "NUM") for t in span):
        return False  # "Atlas, a great project by Dana Kim": it names who made what
    exclaiming = tokens[0].lower_ in ("what", "how") and len(tokens) > 1
    return exclaiming or any(is_soft(t.text) for t in tokens if t.dep_ in ("amod", "advmod", "ROOT", "intj"))


CONDITIONAL_MODALS = frozenset({"will", "would", "'ll", "might", "could", "may"})


def _is_hypothetical(span) -> bool:
    """"If either of them needs money there will be a rematch": what might be, not what is."""
    words = [t for t in span if t.is_alpha]
    return bool(words) and words[0].lower_ in ("if", "unless") and any(
        t.tag_ == "MD" and t.lower_ in CONDITIONAL_MODALS for t in span)


def is_evaluation(span, root) -> bool:
    """"She is a really good actress", "It is one of my favourite songs and the video was very
    touching": a form of "be" and a judgement — praise, blame or the speaker's taste — in every
    clause, nothing a source would state."""
    clauses = [root] + [c for c in root.children if c.dep_ == "conj" and c.pos_ in ("AUX", "VERB")]
    return all(_judges(c) for c in clauses)


def _judges(verb) -> bool:
    if verb.lemma_.lower() != "be":
        return False
    subjects = [c for c in verb.children if c.dep_ in ("nsubj", "csubj")]
    predicate = [t for c in verb.children if c.dep_ in ("attr", "acomp") for t in c.subtree]
    # "a love story" names a kind of story; "a lovely story" judges it.
    if not subjects or not any((is_soft(t.text) and t.dep_ != "compound") or _intensified(t) for t in predicate):
        return False
    if any(t.pos_ in ("VERB", "PROPN") for t in predicate):
        return False  # "a great plan drafted by X": more than a judgement
    taste = any(t.lower_ in ("my", "our") for t in predicate)  # "one of my favourite songs"
    return taste or subjects[0].lower_ in PRONOUN_SUBJECTS or subjects[0].pos_ == "NOUN"


INTENSIFIERS = frozenset({"very", "so", "really", "quite", "extremely", "incredibly", "super", "truly", "too",
                          "such", "pretty", "rather", "fairly", "highly", "remarkably"})


def _intensified(token) -> bool:
    """An adjective of degree: "a very versatile person", "so talented" — a judgement."""
    return token.pos_ == "ADJ" and any(c.dep_ == "advmod" and c.lower_ in INTENSIFIERS for c in token.children)


def _is_wish(span) -> bool:
    """Courtesy without a subject: "Hope you enjoy it", "Enjoy!", "Thanks for asking"."""
    first = next((t for t in span if t.is_alpha), None)
    return first is not None and first.lower_ in ("hope", "enjoy", "thanks", "thank", "glad", "happy") and not any(
        t.dep_ in ("nsubj", "nsubjpass") and t.head.i == span.root.i for t in span)


def _subjectless(verb) -> bool:
    """"…and have heard about it": a clause sharing the first-person subject before it."""
    return not any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in verb.children)


# A word that attaches a fact to a name inside advice: "the runbook by Omar Haddad".
ATTRIBUTING = frozenset({"by"})


def attributed(doc, span: tuple[int, int]) -> bool:
    """A name a piece of advice vouches for: "I'd recommend the runbook by Omar Haddad", "you may
    like X, which was written by Y". The suggestion is taste; who wrote the thing is a statement
    of fact, held to the sources like any other."""
    if doc is None:
        return False
    named = doc.char_span(*span, alignment_mode="expand")
    if named is None or named.start == 0:
        return False
    if doc[named.start - 1].lower_ in ATTRIBUTING:
        return True
    return any(t.dep_ == "relcl" for t in named.root.ancestors)
