"""Changes that differ in one slot, told as one clause.

"Adding QNN backend support for scatter.src core ATen op", "… for randn …", "… for tan …"
are three changes with one shape. Told one by one they repeat the shape; cited behind the
first they are told by nothing. Merged, each keeps its own words and citation: "adds QNN
backend support for scatter.src [1], randn [2] and tan [3] core ATen ops".
"""

from __future__ import annotations

from collections.abc import Sequence

from digest.compose.citations import cite
from digest.model import Activity
from digest.reading.language_words import inflect, is_identifier, noun_lemma
from digest.reading.text import join_words

MAX_SLOT_WORDS = 3  # a slot longer than this is another change, not another instance
MIN_SHARED_WORDS = 3  # the verb and at least two words of the shape


def merged_predicate(predicates: Sequence[str], activities: Sequence[Activity]) -> str | None:
    """One verb phrase for predicates that differ only in one span of words, each span
    cited with its change; None when they differ more (or in their verb)."""
    split = [p.split() for p in predicates]
    first = split[0]
    prefix = min(_common_prefix(first, other) for other in split[1:])
    suffix = min(_common_prefix(first[::-1], other[::-1]) for other in split[1:])
    suffix = min(suffix, *(len(words) - prefix - 1 for words in split))
    if prefix < 2 or prefix + suffix < MIN_SHARED_WORDS or suffix < 0:
        return None
    slots = [words[prefix : len(words) - suffix] for words in split]
    if any(not slot or len(slot) > MAX_SLOT_WORDS for slot in slots):
        return None
    if len({" ".join(slot).lower() for slot in slots}) < len(slots):
        return None  # two changes in the same words: no slot tells them apart
    told = [f"{' '.join(slot)} {cite(a)}" for slot, a in zip(slots, activities, strict=True)]
    tail = first[len(first) - suffix :] if suffix else []
    if tail:
        tail = [*tail[:-1], _plural(tail[-1])]
    return " ".join([*first[:prefix], join_words(told), *tail])


def _common_prefix(one: list[str], other: list[str]) -> int:
    n = 0
    while n < min(len(one), len(other)) and one[n].lower() == other[n].lower():
        n += 1
    return n


def _plural(word: str) -> str:
    """ "op" → "ops": the shared head noun now stands for every slot."""
    if is_identifier(word) or not word.isalpha() or noun_lemma(word) != word.lower():
        return word
    plural = inflect(word.lower(), "NNS")
    if plural == word.lower():  # a word the lexicon lacks
        plural += "es" if word.endswith(("s", "x", "ch", "sh")) else "s"
    return word[0] + plural[1:]
