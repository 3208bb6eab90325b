"""Text helpers shared by composing and checking: fragments of untrusted text, citations, words."""

from __future__ import annotations

import re

CITATION = re.compile(r"\[(?:ref:)?(\d+)\]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u2028-\u202e\u2066-\u2069]")
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

    Collapses whitespace, drops control and bidi characters, and turns bracketed numbers
    into parentheses so a title can never forge one of our citations.
    """
    text = _CONTROL.sub("", text)
    text = re.sub(r"\s+", " ", text).strip()
    text = CITATION.sub(lambda m: f"({m.group(1)})", text)
    return text.rstrip(" .;:,")


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


def join_words(items: list[str], conjunction: str = "and") -> str:
    """English list: "a", "a and b", "a, b and c"."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {conjunction} {items[-1]}"


def plural(count: int, word: str, many: str | None = None) -> str:
    """ "1 change", "3 changes"."""
    return f"{count} {word if count == 1 else (many or word + 's')}"
