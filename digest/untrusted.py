"""Source text is untrusted: a fragment of a title or body made safe to embed in our prose."""

from __future__ import annotations

import re
import unicodedata

from digest.model import CITATION

# Control characters and line/paragraph separators; format characters (Unicode category
# Cf: bidi overrides and isolates, zero-width spaces and joiners, U+FEFF, soft hyphens, tag
# characters…) go too, by category: invisible in a title, they can reorder or hide text.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u2028\u2029]")
_RST_CODE = re.compile(r"``([^`]+)``")
# A fragment longer than this (GitHub caps a title at 256) is cut at a word boundary.
MAX_FRAGMENT_CHARS = 256


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
    text = _RST_CODE.sub(r"`\1`", text)  # reStructuredText's ``code`` reads as Markdown's
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
