"""Small text helpers shared by the syntactic and semantic tiers."""

from __future__ import annotations

from chatapp.preprocess.correction.tokens import Token, TokenizedInput

FUNCTION_WORDS = frozenset(
    "a an the and or but nor so yet for of in on at to from by with about as into onto over under "
    "up down out off than then if is am are was were be been being do does did have has had will "
    "would can could should shall may might must it its this that these those there here i me my "
    "you your he him his she her we us our they them their what which who whom whose when where why "
    "how not no yes all any some each every both either neither very just also too".split()
)


def render_with_owners(doc: TokenizedInput) -> tuple[str, list[int]]:
    """`doc.render()` up to its last token plus, for each character of it, the
    index of the token it came from (-1 for whitespace between tokens). Mirrors
    render() but for what follows the last token (trailing whitespace, or the
    unread rest of a long paste), which belongs to no token."""
    out: list[str] = []
    owners: list[int] = []
    position = 0
    pending_gap = ""
    for index, token in enumerate(doc.tokens):
        gap = doc.original[position : token.start]
        position = max(position, token.end)
        if token.text == "":
            pending_gap = pending_gap or gap
            continue
        gap = gap if gap or not pending_gap else pending_gap
        pending_gap = ""
        out += [gap, token.text]
        owners += [-1] * len(gap) + [index] * len(token.text)
    return "".join(out), owners


class ParsedText:
    """A spaCy parse of the doc's current text, looked up by our token index."""

    def __init__(self, doc: TokenizedInput, parse):
        """`parse`: text -> spaCy Doc (the pipeline's cached parser)."""
        text, owners = render_with_owners(doc)
        self.spacy_doc = parse(text)
        self._by_token: dict[int, tuple[str, str]] = {}
        for word in self.spacy_doc:
            owner = owners[word.idx] if word.idx < len(owners) else -1
            if owner >= 0 and owner not in self._by_token:
                self._by_token[owner] = (word.pos_, word.ent_type_)

    def pos(self, index: int) -> str:
        return self._by_token.get(index, ("", ""))[0]

    def entity(self, index: int) -> str:
        return self._by_token.get(index, ("", ""))[1]


def is_editable_word(token: Token) -> bool:
    return token.kind == "word" and not token.protected and token.text != ""


def match_case(replacement: str, like: str) -> str:
    """`replacement` capitalised the way `like` was ("Alot" -> "A lot")."""
    if like[:1].isupper() and replacement[:1].islower():
        return replacement[0].upper() + replacement[1:]
    return replacement


def next_word(doc: TokenizedInput, index: int | None, allow_kinds=("word",)) -> int | None:
    """The token after `index` if it is a word separated only by spaces
    (looking past words deleted as doubled)."""
    if index is None:
        return None
    tokens = doc.tokens
    end = tokens[index].end
    for following in range(index + 1, len(tokens)):
        token = tokens[following]
        gap = doc.original[end : token.start]
        if gap.strip() or "\n\n" in gap:
            return None
        if token.text == "":
            end = token.end
            continue
        return following if gap and token.kind in allow_kinds else None
    return None


def previous_word(doc: TokenizedInput, index: int) -> int | None:
    tokens = doc.tokens
    start = tokens[index].start
    for previous in range(index - 1, -1, -1):
        token = tokens[previous]
        gap = doc.original[token.end : start]
        if gap.strip() or "\n\n" in gap:
            return None
        if token.text == "":
            start = token.start
            continue
        return previous if gap and is_editable_word(token) else None
    return None
