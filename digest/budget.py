"""How much a story of a window may say: the units it names and the bounds of rule 7.

A day names `DAY_BUDGET` story units, a week `WEEK_BUDGET`; a quiet window (at most
`QUIET_MAX_CHANGES` changes told) gets a short story that says it was quiet.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import timedelta

from digest.config import WireConfig
from digest.model import Window

# A window of at most this many changes is quiet: its story is short and says so.
QUIET_MAX_CHANGES = 3
# Units a story names: DAY_BUDGET for a day, WEEK_BUDGET for a week, linear in between,
# then one more for every two further weeks, never more than MAX_BUDGET.
DAY_BUDGET = 5
WEEK_BUDGET = 8
MAX_BUDGET = 10


def window_days(window: Window) -> int:
    """The window's length in whole days, rounded half down: 36 hours is still one day."""
    hours = (window.until - window.since) / timedelta(hours=1)
    return max(1, math.ceil(hours / 24 - 0.5))


# Room a story gains for each project beyond its first: its units' sentences, its count of
# the rest, and its counted trivia and bumps.
PROJECT_SENTENCES = 3
PROJECT_WORDS = 45
# The most changes one sentence tells: a unit's lead and its related changes
# (`select.MAX_RELATED` is derived from it).
CHANGES_A_SENTENCE = 3


def story_budget(window: Window) -> int:
    """How many story units a story of `window` names (DIGEST.md, "Stories scale")."""
    days = window_days(window)
    if days <= 7:
        return DAY_BUDGET + math.ceil((WEEK_BUDGET - DAY_BUDGET) * (days - 1) / 6)
    return min(MAX_BUDGET, WEEK_BUDGET + math.ceil((days - 7) / 14))


@dataclass(frozen=True)
class BodyLimits:
    """Rule 7's bounds on a body: sentences and words."""

    min_sentences: int
    max_sentences: int
    max_words: int


def body_limits(
    window: Window, config: WireConfig, *, changes: int | None, projects: int = 1
) -> BodyLimits:
    """Rule 7's bounds for a story of `window` about `changes` changes (None: unknown) of
    `projects` projects.

    A day's body has 4 to `max_body_sentences` sentences and at most `max_body_words`
    words; each unit of budget beyond a day's adds a sentence and 20 words. Each project
    beyond the first adds `PROJECT_SENTENCES` sentences and `PROJECT_WORDS` words: a
    channel that follows seven repositories reads one story of all seven, and a story
    that failed rule 7 would not be delivered at all. A quiet window (1–3 changes told,
    `told_count`) needs only one sentence and allows one a change, plus one each project
    for its folded dependency bumps and one for its counted trivia.
    """
    limits = config.digest
    extra = story_budget(window) - DAY_BUDGET
    more = max(0, projects - 1)
    words = limits.max_body_words + 20 * extra + PROJECT_WORDS * more
    if changes is not None and is_quiet(changes):
        # one a change, and one each project for the counted bumps and the counted trivia
        return BodyLimits(min_sentences=1, max_sentences=changes + 2 * (1 + more), max_words=words)
    return BodyLimits(
        # Four, unless the changes fit in fewer: one sentence tells up to three of one shape.
        min_sentences=min(4, math.ceil(changes / CHANGES_A_SENTENCE)) if changes else 4,
        max_sentences=limits.max_body_sentences + extra + PROJECT_SENTENCES * more,
        max_words=words,
    )


def is_quiet(changes: int) -> bool:
    """True when a window of `changes` changes gets a quiet-day story."""
    return 1 <= changes <= QUIET_MAX_CHANGES
