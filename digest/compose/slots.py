"""Changes that differ in one slot, told as one clause.

"Adding QNN backend support for scatter.src core ATen op", "… for randn …", "… for tan …"
are three changes with one shape. Told one by one they repeat the shape; cited behind the
first they are told by nothing. Merged, each keeps its own words and citation: "adds QNN
backend support for scatter.src [1], randn [2] and tan [3] core ATen ops".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from digest.compose.citations import cite
from digest.compose.phrases import event_predicate
from digest.config import topic_key
from digest.english.nouns import MASS_NOUNS
from digest.english.numbers import count_word, join_words
from digest.english.similarity import slots
from digest.english.words import (
    ARTICLES,
    PREPOSITIONS,
    inflect,
    is_identifier,
    noun_lemma,
    parts_of_speech,
)
from digest.model import Activity
from digest.reading.event import Event
from digest.select import Unit, same_change


def merged_predicate(
    predicates: Sequence[str],
    activities: Sequence[Activity],
    *,
    reserved: frozenset[str] = frozenset(),
) -> str | None:
    """One verb phrase for predicates that differ only in one span of words, each span
    cited with its change; None when they differ more (or in their verb). The shared head
    noun becomes plural unless that names one of the project's topics (`reserved`, topic
    keys): "fuses quant add [1] and mul [2] kernel" stays clear of the Kernels topic."""
    found = slots(predicates)
    if found is None:
        return None
    prefix, suffix, spans = found
    if any(" ".join(span).count("`") % 2 for span in spans):
        return None  # a slot that splits a code span: "`inexact [7] and `floating [8] | x`"
    first = predicates[0].split()
    told = [f"{' '.join(span)} {cite(a)}" for span, a in zip(spans, activities, strict=True)]
    tail = first[len(first) - suffix :] if suffix else []
    head = first[:prefix]
    if not tail and "the" in head[1:-2] and head[-1].lower() in PREPOSITIONS:
        # "fixes the dead link to A [1] and B [2]" reads as one link to both: "the dead
        # links to A [1] and to B [2]" ("adds a test for A [1] and B [2]" is one each).
        told = [told[0], *(f"{head[-1]} {t}" for t in told[1:])]
        head = [*head[:-2], _plural(head[-2]), head[-1]]
    # The shared head noun is the tail's last word before a preposition: "adds proxy [1]
    # and retry [2] options to the client", not "option to the clients".
    at = next((i for i, w in enumerate(tail) if w.lower() in PREPOSITIONS), len(tail)) - 1
    if tail and at >= 0 and topic_key(_plural(tail[at])) not in reserved:
        tail = [*tail[:at], _plural(tail[at]), *tail[at + 1 :]]
        if head[-1].lower() in ("a", "an"):
            head = head[
                :-1
            ]  # "adds a TOML parser" and "… a YAML parser": "adds TOML and YAML parsers"
    return " ".join([*head, join_words(told), *tail])


def unit_slots(unit: Unit, predicate: str, *, max_words: int) -> str | None:
    """A unit's changes of one shape as one clause (`merged_predicate`), `predicate` being
    its lead's: "adds TOML [1] and YAML [2] parsers". None when it has no related change,
    when they only retell the lead (`same_change`), or when they differ in more than a slot.
    The shared noun keeps clear of the project's topics."""
    if not unit.related or all(same_change(unit.lead, e) for e in unit.related):
        return None
    others = [event_predicate(e, max_words=max_words) for e in unit.related]
    topics = frozenset(topic_key(t.name) for t in unit.lead.project.topics)
    return merged_predicate([predicate, *others], unit.activities, reserved=topics)


def _plural(word: str) -> str:
    """ "op" → "ops": the shared head noun now stands for every slot; an amount of
    something stays as it is ("`tanh` and `mean.dim` support")."""
    if is_identifier(word) or not word.isalpha() or noun_lemma(word) != word.lower():
        return word
    if word.lower() in MASS_NOUNS:
        return word
    if word.lower().endswith("s") and not parts_of_speech(word.lower()):
        return word  # "ops", a word the lexicon lacks: plural already
    plural = inflect(word.lower(), "NNS")
    if plural == word.lower():  # a word the lexicon lacks
        plural += "es" if word.endswith(("s", "x", "ch", "sh")) else "s"
    return word[0] + plural[1:]


def related_clause(predicate: str, related: tuple[Event, ...]) -> str:
    """What a unit's related changes do, after its own clause: " and adds `LazyFrame.execute`
    [5]", its verb left out when it repeats the lead's ("adds X [4] and `Y` [5]"); a second
    related change is counted and cited after the first's citation."""
    first = event_predicate(related[0], max_words=10)
    if _told_words(first) <= _told_words(predicate):
        # It would read as the lead's clause again ("keeps X clients from Y [1] and X client
        # from Y [2]"): counted and cited, not told.
        noun = "related change" if len(related) == 1 else "related changes"
        return f", with {count_word(len(related))} {noun} {cite(*(e.activity for e in related))}"
    verb = predicate.split(" ", 1)[0]
    same = first.split(" ", 1)[0] == verb and " " in first
    # one subject, two predicates: no comma before "and" ("unflags X [1] and fixes Y [2]")
    said = f" and {first.split(' ', 1)[1]}" if same else f" and {first}"
    said += f" {cite(related[0].activity)}"
    if len(related) > 1:
        # each citation beside what it stands for: "HiRA [1] and VeLoRA [2], with one more
        # related change [3]", not "… VeLoRA, with one more related change [2][3]"
        more = count_word(len(related) - 1)
        noun = f"more related change{'s' if len(related) > 2 else ''}"
        said += f", with {more} {noun} {cite(*(e.activity for e in related[1:]))}"
    return said


def _told_words(text: str) -> set[str]:
    """The words a clause tells, a noun's number and its article aside."""
    return {noun_lemma(w) for w in re.findall(r"[\w`.()/@-]+", text.lower())} - ARTICLES
