"""Text helpers shared by composing and checking: fragments of untrusted text, citations, words."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

CITATION = re.compile(r"\[(?:ref:)?(\d+)\]")
# Control characters and line/paragraph separators; format characters (Unicode category
# Cf: bidi overrides and isolates, zero-width spaces and joiners, U+FEFF, soft hyphens, tag
# characters…) go too, by category: invisible in a title, they can reorder or hide text.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u2028\u2029]")
# A fragment longer than this (GitHub caps a title at 256) is cut at a word boundary.
MAX_FRAGMENT_CHARS = 256
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "with",
        "also",
        "alongside",
        "after",
        "new",
        "now",
        "their",
        "while",
        "which",
        "who",
        "will",
        "than",
        "then",
    ]
)


def clean_fragment(text: str) -> str:
    """Make a piece of source text safe to embed in a sentence of ours.

    Collapses whitespace, drops control and format characters (category Cf), turns
    bracketed numbers into parentheses so a title can never forge one of our citations,
    and shortens a fragment past `MAX_FRAGMENT_CHARS` at a word boundary with an ellipsis.
    """
    text = _CONTROL.sub("", text)
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    text = re.sub(r"\s+", " ", text).strip()
    text = CITATION.sub(lambda m: f"({m.group(1)})", text)
    return shorten(text.rstrip(" .;:,"), MAX_FRAGMENT_CHARS)


def shorten(text: str, limit: int) -> str:
    """`text` if it fits in `limit` characters, else its words up to the last boundary
    that leaves room for "…" (a single word longer than that is cut inside)."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    cut = head.rfind(" ")
    if cut > limit // 2:
        head = head[:cut]
    return head.rstrip(" .;:,-–—(") + "…"


def cited_numbers(text: str) -> list[int]:
    """Every citation number in `text`, in order ("[3]" and "[ref:3]" forms)."""
    return [int(n) for n in CITATION.findall(text)]


def content_words(text: str) -> set[str]:
    """Lower-case content words of a sentence, citations and stopwords removed."""
    text = CITATION.sub(" ", text.lower())
    words = re.findall(r"[a-z0-9][a-z0-9_.+-]*[a-z0-9]|[a-z0-9]", text)
    return {w.rstrip("s") if len(w) > 3 else w for w in words if w not in STOPWORDS and len(w) > 2}


def jaccard(a: set[str], b: set[str]) -> float:
    """|a ∩ b| / |a ∪ b|, 0 for two empty sets."""
    union = a | b
    return len(a & b) / len(union) if union else 0.0


MAX_SLOT_WORDS = 3  # a slot longer than this is another change, not another instance
MIN_SHARED_WORDS = 3  # the verb and at least two words of the shape


def slots(texts: Sequence[str]) -> tuple[int, int, list[list[str]]] | None:
    """Where texts of one shape differ: (words shared before, words shared after, each
    text's own words between), when all differ in one span of at most `MAX_SLOT_WORDS`
    words and share at least `MIN_SHARED_WORDS`, two of them first; else None.
    "Add a16w8 per-op test for exp" and "… for reciprocal" differ in one slot."""
    split = [text.split() for text in texts]
    first = split[0]
    prefix = min(_common_prefix(first, other) for other in split[1:])
    suffix = min(_common_prefix(first[::-1], other[::-1]) for other in split[1:])
    suffix = min(suffix, *(len(words) - prefix - 1 for words in split))
    if prefix < 2 or prefix + suffix < MIN_SHARED_WORDS or suffix < 0:
        return None
    spans = [words[prefix : len(words) - suffix] for words in split]
    if any(not span or len(span) > MAX_SLOT_WORDS for span in spans):
        return None
    if len({" ".join(span).lower() for span in spans}) < len(spans):
        return None  # two changes in the same words: no slot tells them apart
    if any(span[0].lower() in STOPWORDS or span[-1].lower() in STOPWORDS for span in spans):
        return None  # "`to_pandas()` in" and "`to_arrow()` in a": the shape is not shared
    return prefix, suffix, spans


def _common_prefix(one: list[str], other: list[str]) -> int:
    n = 0
    while n < min(len(one), len(other)) and one[n].lower() == other[n].lower():
        n += 1
    return n


def join_words(items: list[str], conjunction: str = "and") -> str:
    """English list: "a", "a and b", "a, b and c"."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {conjunction} {items[-1]}"


def plural(count: int, word: str, many: str | None = None) -> str:
    """ "1 change", "3 changes"."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


# A token of code: a span in backticks, or a word with the marks only code has (snake_case,
# a path, a generic `From<OwnedFd>`, `a::b`, `call()`, `module.attr`, a `--flag`, camelCase).
_CODE_TOKEN = re.compile(
    r"`[^`]*`"
    r"|(?<![\w`])(?:--?[a-z][\w-]*"
    r"|[A-Za-z_]\w*<[^<>\n]{0,30}(?:<[^<>\n]{0,30}>)?[^<>\n]{0,30}>(?:::\w+|\(\))*"
    r"|[\w.-]*\w/[\w./-]*\w|[\w.-]*_[\w.-]*\w|\w+(?:::\w+)+(?:\(\))?|\w+\(\)"
    r"|[A-Za-z][A-Za-z0-9]+\.[a-z_]\w+(?:\.\w+)*|[a-z]+[a-z0-9]*[A-Z][a-z]\w*"
    # a class in a lower-case module ("nn.Parameter", "pl.DataFrame"), a rooted path ("/@fs/")
    r"|[a-z][a-z0-9_]*\.[A-Z]\w+|/@?[\w.-]+/[\w./@-]*)"
)


def headline_case(text: str) -> str:
    """`text` upper-cased for a headline, except code: backtick spans and identifier-like
    tokens keep the case that is part of their name ("PROACTIVE_CAPACITY" stays
    "proactive_capacity", "From<OwnedFd>", "src/cli/main.rs", "torch.compile", "camelCase").
    Ordinary names and acronyms are upper-cased as headline style wants ("ExecuTorch")."""
    out: list[str] = []
    at = 0
    for match in _CODE_TOKEN.finditer(text):
        out += [text[at : match.start()].upper(), match.group(0)]
        at = match.end()
    out.append(text[at:].upper())
    return "".join(out)
