"""How alike two texts are: their content words, and the one slot where texts of a shape differ."""

from __future__ import annotations

import re
from collections.abc import Sequence

from digest.english.words import STOPWORDS
from digest.model import CITATION


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
    # (a verb alone before the slot is shape enough when three words or more follow it:
    # "Add `tanh` support with new Neutron flow" and "Add `mean.dim` support …")
    if prefix < 1 or (prefix < 2 and suffix < 3) or prefix + suffix < MIN_SHARED_WORDS:
        return None
    if suffix < 0:
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
