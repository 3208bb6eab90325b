"""Why a change was made, in its own words: a short quotation from its description.

A title says what; the description often says why. `stated_reason(body)` reads the body's
Markdown (markdown-it-py) and takes the first sentence of a "Why", "Motivation", "Impact",
"Problem", "Context" or "Summary" section, of an `**Impact:**` line, or else of the first
prose paragraph; `quotation` cuts it to at most `MAX_QUOTE_WORDS` words, verbatim and
contiguous, with no Markdown, links, @-mentions or trailers. `plain` is the text a
quotation is checked against (`digest.check.claims.quotations`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from markdown_it import MarkdownIt

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
_SENTENCE_END = re.compile(r"(?<=[a-z0-9`)\]][.!?])\s+(?=[A-Z`\"“(])")

_MD = MarkdownIt("commonmark")


def _inline_text(token) -> str:
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
    """The first sentence of the body that says why (see the module docstring), or None."""
    if not body.strip():
        return None
    blocks = _blocks(body)
    for name in _SECTIONS:
        for heading, text, _ in blocks:
            if heading and heading.split()[0].strip(":") == name and _prose(text):
                return _first_sentence(text)
    for _, text, _ in blocks:
        if _LABEL.match(text) and _prose(_LABEL.sub("", text)):
            return _first_sentence(_LABEL.sub("", text))
    for heading, text, listed in blocks:
        if heading is None and not listed and _prose(text):
            return _first_sentence(text)
    return None


def _prose(text: str) -> bool:
    words = text.split()
    return len(words) >= 6 and not _BOILERPLATE.match(text) and sum(w.isalpha() for w in words) >= 4


def _first_sentence(text: str) -> str:
    return _SENTENCE_END.split(text, maxsplit=1)[0].strip()


@lru_cache(maxsize=8192)
def quotation(body: str, title: str = "", *, max_words: int = QUOTE_WORDS) -> str | None:
    """A verbatim piece of the body's stated reason, at most `max_words` words, that says
    more than the title; a piece cut short ends in "…". None when there is none."""
    reason = stated_reason(body)
    if reason is not None:
        reason = _LEAD_LABEL.sub("", reason)
    if reason is None or _UNQUOTABLE.search(reason):
        return None
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
