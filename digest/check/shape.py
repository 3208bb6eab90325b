"""Rules 5–7 of DIGEST.md: what a story covers and how it reads. Its top changes and every
must-act change are accounted for (5), its sentences do not repeat each other (6), and its
headline and body keep to the window's length (7)."""

from __future__ import annotations

import re
from itertools import combinations

from digest.budget import body_limits, is_quiet
from digest.check.claims import QUOTED
from digest.config import WireConfig
from digest.english.numbers import COUNT_WORDS
from digest.english.similarity import content_words, jaccard
from digest.model import Story
from digest.reading.event import Event
from digest.select import folds_trivia, nameable, split_news

REDUNDANT_PAIR = 0.5


def coverage(story: Story, ranking: list[tuple[Event, float]]) -> tuple[float, float]:
    """Share of each project's top-3 events that are cited, leaving aside what the story
    counts instead of telling (`select.split_news`: routine bumps, a longer window's
    trivia); share of the must-act events cited."""
    cited = {r.sha for r in story.references} | {
        (r.repo.lower(), r.number) for r in story.references
    }

    def is_cited(event: Event) -> bool:
        return event.activity.sha in cited or (event.repo.lower(), event.activity.number) in cited

    events = [event for event, _ in ranking]
    fold = folds_trivia(story.window, events)
    by_repo: dict[str, list[Event]] = {}
    for event in events:
        by_repo.setdefault(event.repo, []).append(event)
    top = [
        e
        for group in by_repo.values()
        for e in [e for e in split_news(group, fold_trivia=fold)[0] if nameable(e)][:3]
    ]
    coverage = sum(map(is_cited, top)) / len(top) if top else 1.0
    must = [event for event in events if event.must_act]
    # A revert or reland no sentence cites may be counted instead ("backs out or relands 12
    # more changes"): a story names a handful of action items, whatever the window. A
    # breaking or CI-gate change is always cited.
    undone = sum(not is_cited(e) and e.kind in ("revert", "reland") for e in must)
    accounted = sum(map(is_cited, must)) + min(undone, _counted_undos(story))
    # So may security fixes beyond the cited ones, when an item or sentence counts them
    # all ("the project lands six security fixes, among them …").
    fixes = [e for e in must if e.security and e.kind not in ("revert", "reland")]
    uncounted = sum(not is_cited(e) for e in fixes)
    accounted += min(uncounted, max(0, _counted_fixes(story) - (len(fixes) - uncounted)))
    reverts = accounted / len(must) if must else 1.0
    return coverage, reverts


_COUNTED_UNDOS = re.compile(r"\b(?:backs out|relands|backs out or relands) (\w+) more changes?\b")
_COUNT_VALUES = {word: n for n, word in enumerate(COUNT_WORDS)}
_COUNTED_FIXES = re.compile(r"\b(\w+) security fix(?:es)?\b")


def _counted_fixes(story: Story) -> int:
    """The largest number of security fixes the story says it counts."""
    texts = [story.lede, *(s.text for s in story.body), *(i.text for i in story.action_items)]
    found = [
        _number(word) for text in texts for word in _COUNTED_FIXES.findall(QUOTED.sub(" ", text))
    ]
    return max(found, default=0)


def _counted_undos(story: Story) -> int:
    """How many reverts and relands the body counts without citing them."""
    total = 0
    for sentence in story.body:
        for match in _COUNTED_UNDOS.finditer(QUOTED.sub(" ", sentence.text)):
            total += _number(match.group(1))
    return total


def _number(word: str) -> int:
    """A count the story writes, in digits or as a word ("12", "three"); 0 for any other."""
    return int(word) if word.isdigit() else _COUNT_VALUES.get(word.lower(), 0)


def length(
    story: Story, config: WireConfig, *, changes: int | None, words: int, projects: int
) -> list[str]:
    """Rule 7: headline length, and a body within the limits of its window and of the
    number of `projects` it tells of (DIGEST.md).

    A quiet window (1–3 changes besides routine bumps; without events, a story of 1–3
    references) may have a body of one sentence a change, and its lede must say so.
    """
    problems = []
    max_chars = config.digest.max_headline_chars
    if len(story.headline) > max_chars:
        problems.append(f"rule 7: headline has {len(story.headline)} characters > {max_chars}")
    if story.is_empty:
        return problems
    if changes is None and is_quiet(len(story.references)):
        changes = len(story.references)
    limits = body_limits(story.window, config, changes=changes, projects=projects)
    sentences = len(story.body)
    if not limits.min_sentences <= sentences <= limits.max_sentences:
        problems.append(
            f"rule 7: body has {sentences} sentences, "
            f"not {limits.min_sentences}–{limits.max_sentences}"
        )
    if words > limits.max_words:
        problems.append(f"rule 7: body has {words} words > {limits.max_words}")
    lede = story.lede.lower()
    # A release is news however little else landed: a lede that tells one need not be quiet.
    released = re.search(r"\b(ships|publishes)\b", lede) is not None
    # A busy window's few news changes: "…; two documentation changes landed as well."
    said = "quiet" in lede or "landed as well." in lede or released
    if changes is not None and is_quiet(changes) and not said:
        problems.append(
            "rule 7: the lede of a quiet window's story does not say it was quiet, "
            "or what most of a busy one was"
        )
    return problems


def redundancy(story: Story) -> float:
    """Share of body sentence pairs whose content words overlap by more than half."""
    words = [content_words(s.text) for s in story.body]
    pairs = list(combinations(words, 2))
    if not pairs:
        return 0.0
    return sum(jaccard(a, b) > REDUNDANT_PAIR for a, b in pairs) / len(pairs)
