"""Why a change was made, in its own words: a short quotation from its description.

A title says what; the description often says why. `stated_reason(body)` reads the body's
Markdown (markdown-it-py) and takes a sentence of a "Why", "Motivation", "Impact",
"Problem", "Context" or "Summary" section, of an `**Impact:**` line, or else of the first
prose paragraph: the first that says what the change lets, allows, enables or prevents,
else the first; `quotation` cuts it to at most `MAX_QUOTE_WORDS` words, verbatim and
contiguous, with no Markdown, links, @-mentions or trailers. `plain` is the text a
quotation is checked against (`digest.check.claims.quotations`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

from digest.english.sentences import split_sentences

MAX_QUOTE_WORDS = 25
# What the composer quotes: short enough to sit inside a sentence.
QUOTE_WORDS = 20
_SECTIONS = ("why", "motivation", "impact", "problem", "context", "summary")
_LABEL = re.compile(r"^(why|motivation|impact|problem|context)\s*:\s*", re.I)
_LEAD_LABEL = re.compile(r"^(summary|description|details)\s*:\s*", re.I)
# Paragraphs that are no prose of the author's: bots, trailers, stacks, links, checklists.
_BOILERPLATE = re.compile(
    r"^(this pr was (opened|created|generated) by|bumps?\s|updates? the requirements|stack from"
    r"|differential revision|pull request resolved|co-authored-by|signed-off-by|fixes\s+#|"
    r"closes\s+#|resolves\s+#|cc\s|test plan|this reverts commit|reverts?\s+#|\[x\]|\[ \])",
    re.I,
)
_UNQUOTABLE = re.compile(
    r"@\w|https?://|\]\(|<[a-z/]|```|\||^\[|pull request resolved|differential revision"
    # a full stop inside ("e.g. x", "etc. and"), which would end the sentence it is quoted in
    r"|\.\s",
    re.I,
)

_MD = MarkdownIt("commonmark")


def _inline_text(token: Token) -> str:
    """An inline token as plain text: code spans keep their backticks, links their words."""
    parts = []
    for child in token.children or ():
        if child.type == "text":
            parts.append(child.content)
        elif child.type == "code_inline":
            parts.append(f"`{child.content}`")
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return re.sub(r"\s+", " ", "".join(parts)).strip()


@lru_cache(maxsize=4096)
def _blocks(body: str) -> tuple[tuple[str | None, str, bool], ...]:
    """The body's paragraphs as (heading above them, plain text, inside a list)."""
    found = []
    heading: str | None = None
    in_heading = False
    depth = 0
    for token in _MD.parse(body):
        if token.type == "heading_open":
            in_heading = True
        elif token.type == "heading_close":
            in_heading = False
        elif token.type in ("bullet_list_open", "ordered_list_open"):
            depth += 1
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            depth -= 1
        elif token.type == "inline":
            text = _inline_text(token)
            if in_heading:
                heading = text.lower().strip(" :#*")
            elif text:
                found.append((heading, text, depth > 0))
    return tuple(found)


def plain(text: str) -> str:
    """`text` as the words a reader sees: Markdown read, whitespace collapsed."""
    return " ".join(text for _, text, _ in _blocks(text))


def stated_reason(body: str) -> str | None:
    """The sentence of the body that best says why (see the module docstring), or None."""
    found = reason_sentences(body)
    return found[0] if found else None


def reason_sentences(body: str) -> list[str]:
    """The sentences of the body's stated reason: its "Why"-like section (every paragraph of
    it), its `**Impact:**` line, or its first prose paragraph, of six words or more. Those
    that say what the change lets, allows, enables or prevents come first ("Splitting the
    gates lets fast failures block merges immediately"), ahead of a preamble ("With the CI
    in a stable state for a good time, …"); among equals the body's order holds."""
    if not body.strip():
        return []
    sentences = [
        sentence.strip()
        for text in _reason_paragraphs(_blocks(body))
        for sentence in split_sentences(text)
        if len(sentence.split()) >= 6
    ]
    return sorted(sentences, key=lambda sentence: not _states_effect(sentence))


def _reason_paragraphs(blocks: tuple[tuple[str | None, str, bool], ...]) -> list[str]:
    for name in _SECTIONS:
        section = [
            text
            for heading, text, _ in blocks
            if heading and heading.split()[0].strip(":") == name and _prose(text)
        ]
        if section:
            return section
    for _, text, _ in blocks:
        if _LABEL.match(text) and _prose(_LABEL.sub("", text)):
            return [_LABEL.sub("", text)]
    for heading, text, listed in blocks:
        if heading is None and not listed and _prose(text):
            return [text]
    return []


# Words that say what a change lets happen or stops: a sentence with one of them says why
# better than a preamble before it ("With the CI in a stable state for a good time, …").
# Plain English, the same for every repository.
_EFFECT = re.compile(r"\b(lets?|allows?|enables?|prevents?)\b", re.I)


def _states_effect(sentence: str) -> bool:
    return _EFFECT.search(sentence) is not None


def _prose(text: str) -> bool:
    words = text.split()
    return len(words) >= 6 and not _BOILERPLATE.match(text) and sum(w.isalpha() for w in words) >= 4


@lru_cache(maxsize=8192)
def quotation(body: str, title: str = "", *, max_words: int = QUOTE_WORDS) -> str | None:
    """A verbatim piece of the body's stated reason, at most `max_words` words, that says
    more than the title; a piece cut short ends in "…". None when there is none. The first
    sentence that states an effect is tried first (`reason_sentences`), then the first
    that does not."""
    found = reason_sentences(body)
    stating = [r for r in found if _states_effect(r)][:1]
    others = [r for r in found if not _states_effect(r)][:1]
    for reason in [*stating, *others]:
        if said := _quotable(reason, title, max_words):
            return said
    return None


def _quotable(reason: str, title: str, max_words: int) -> str | None:
    reason = _LEAD_LABEL.sub("", reason)
    if _UNQUOTABLE.search(reason) or reason.count(")") > reason.count("("):
        return None  # markup, or the tail of a sentence split at "e.g." inside a parenthesis
    reason = reason.rstrip(".!:;, ")
    words = reason.split()
    if len(words) > max_words:
        cut = " ".join(words[:max_words])
        clause = max(cut.rfind(", "), cut.rfind("; "), cut.rfind(" — "))
        if clause < 0 or len(cut[:clause].split()) < 6:
            return None
        reason = cut[:clause] + "…"
    if reason.count("(") > reason.count(")"):
        # A parenthesis the cut (or a sentence split at "e.g.") left open: the piece ends
        # before it, so no quotation opens what it never closes.
        reason = reason[: reason.rfind("(")].rstrip(" ,;:—-") + "…"
        if len(reason.split()) < 6:
            return None
    mine = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", reason)}
    theirs = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", title)}
    if not mine or len(mine - theirs) < 3:
        return None  # it says what the title says
    return None if '"' in reason else reason
