"""How alike the stories of a feed read: the share of stories that use each connective, and
the share that follow the most common scaffold (the openings of their first sentences).

A reader of a channel sees many stories; a connective in most of them ("In addition, …")
or one fixed run of sentence openings reads as a template. `variety` measures both over
the busy stories of a corpus (at least `MIN_SENTENCES` body sentences), for the proofread
test to hold under a third.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from digest.check.proofread_rules import CONNECTIVES
from digest.model import Story

MIN_SENTENCES = 4
_SCAFFOLD_LENGTH = 5
_CITATION = re.compile(r"\s*\[\d+\]")
_STAND_INS = ("It", "The project", "The backend")


@dataclass(frozen=True)
class Variety:
    """Shares over `stories` busy stories: of each connective, and of the commonest scaffold."""

    stories: int
    connectives: dict[str, float]
    scaffold: tuple[str, ...]
    scaffold_share: float

    def worst_connective(self) -> tuple[str, float]:
        """The connective used in most stories, and its share (("", 0.0) when none is)."""
        return max(self.connectives.items(), key=lambda item: item[1], default=("", 0.0))


def opening(sentence: str, names: Iterable[str]) -> str:
    """What a sentence opens with, its subject's name abstracted: "In addition, P", "It",
    "P also", "P"."""
    text = _CITATION.sub("", sentence)
    lowered = text.lower()
    for connective in CONNECTIVES:
        if lowered.startswith(connective + ","):
            return connective.capitalize() + ","
    for stand_in in _STAND_INS:
        if text.startswith(stand_in + " "):
            return stand_in + (" also" if text.startswith(stand_in + " also ") else "")
    for name in names:
        if text.startswith(name):
            return "P also" if text[len(name) :].startswith(" also ") else "P"
    return "other"


def scaffold(story: Story, names: Iterable[str]) -> tuple[str, ...]:
    """The openings of a story's first body sentences."""
    names = sorted(set(names), key=len, reverse=True)
    return tuple(opening(s.text, names) for s in story.body[:_SCAFFOLD_LENGTH])


def connectives_of(story: Story) -> set[str]:
    """The connectives a story's body uses: "also" anywhere, the others where they join
    sentences, at the start ("Elsewhere, …"), not as an adverb ("six elsewhere")."""
    found: set[str] = set()
    for sentence in story.body:
        text = _CITATION.sub("", sentence.text).lower()
        found.update(c for c in CONNECTIVES if text.startswith(c + ","))
        if re.search(r"\balso\b", text):
            found.add("also")
    return found


def variety(stories: Iterable[Story], names: Iterable[str]) -> Variety:
    """Connective and scaffold shares over the busy stories of a corpus."""
    names = tuple(names)
    busy = [s for s in stories if len(s.body) >= MIN_SENTENCES]
    used: Counter[str] = Counter()
    shapes: Counter[tuple[str, ...]] = Counter()
    for story in busy:
        used.update(connectives_of(story))
        shapes[scaffold(story, names)] += 1
    total = len(busy) or 1
    common, count = shapes.most_common(1)[0] if shapes else ((), 0)
    return Variety(
        stories=len(busy),
        connectives={c: round(n / total, 3) for c, n in used.items()},
        scaffold=common,
        scaffold_share=round(count / total, 3),
    )
