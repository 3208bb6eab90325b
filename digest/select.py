"""Choosing what a story covers: the lead stories of each project, and what they cite.

A *story unit* is one lead event plus closely related events of the same project (the same
piece of work landing as several PRs), so one sentence can cite them together.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from digest.classify import Event
from digest.model import Activity
from digest.text import content_words, jaccard

# Titles sharing this much of their content words describe one piece of work.
RELATED_TITLE_SIMILARITY = 0.3
MAX_RELATED = 2


@dataclass(frozen=True)
class Unit:
    """One lead event, the related events folded into it, and its significance."""

    lead: Event
    score: float
    related: tuple[Event, ...] = ()
    # The topic most of the project's changes share; naming it adds nothing.
    dominant_topic: str | None = None

    @property
    def activities(self) -> tuple[Activity, ...]:
        """Everything this unit cites: the lead's linked originals first, then the lead, then related."""
        return (*self.lead.linked, self.lead.activity, *(e.activity for e in self.related))


@dataclass(frozen=True)
class ProjectPick:
    """The units chosen for one project, lead first, and how many changes it landed."""

    repo: str
    units: tuple[Unit, ...]
    extra: tuple[Unit, ...]
    landed: int
    topic_counts: tuple[tuple[str, int], ...]

    @property
    def lead(self) -> Unit:
        return self.units[0]


def _must_cite(event: Event) -> bool:
    return event.kind in ("revert", "reland") or event.breaking or event.ci_gate


def _title_words(event: Event) -> set[str]:
    return content_words(event.subject.replace("_", " "))


def group_units(ranked: list[tuple[Event, float]], *, per_project: int) -> list[ProjectPick]:
    """Pick the top `per_project` units of each project; reverts, relands, breaking changes
    and CI-gate changes beyond them are kept as `extra` so they are always cited.

    Projects are ordered by the score of their lead unit.
    """
    by_repo: dict[str, list[tuple[Event, float]]] = defaultdict(list)
    for event, score in ranked:
        by_repo[event.repo].append((event, score))

    picks = []
    for repo, events in by_repo.items():
        topic_counts: dict[str, int] = defaultdict(int)
        for event, _ in events:
            for topic in event.topics:
                topic_counts[topic] += 1
        ordered_topics = sorted(topic_counts.items(), key=lambda kv: (-kv[1], kv[0].lower()))
        dominant = (
            ordered_topics[0][0]
            if ordered_topics and ordered_topics[0][1] * 2 > len(events)
            else None
        )
        words = {e.activity.sha: _title_words(e) for e, _ in events}
        used: set[str] = set()
        top: list[Unit] = []
        extras: list[Unit] = []
        for event, score in events:
            if event.activity.sha in used:
                continue
            used.add(event.activity.sha)
            if len(top) < per_project:
                related = _related(event, events, used, words)
                top.append(Unit(lead=event, score=score, related=related, dominant_topic=dominant))
            elif _must_cite(event):
                extras.append(Unit(lead=event, score=score, dominant_topic=dominant))
        extra = tuple(extras)
        picks.append(
            ProjectPick(
                repo=repo,
                units=tuple(top),
                extra=extra,
                landed=len(events),
                topic_counts=tuple(ordered_topics),
            )
        )
    picks.sort(key=lambda p: -p.lead.score)
    return picks


def _related(
    lead: Event, events: list[tuple[Event, float]], used: set[str], words: dict[str, set[str]]
) -> tuple[Event, ...]:
    if lead.kind in ("revert", "reland"):
        return ()
    lead_words = words[lead.activity.sha]
    related = []
    for other, _ in events:
        if other.activity.sha in used or other.kind in ("revert", "reland"):
            continue
        if jaccard(lead_words, words[other.activity.sha]) >= RELATED_TITLE_SIMILARITY:
            related.append(other)
            used.add(other.activity.sha)
            if len(related) == MAX_RELATED:
                break
    return tuple(related)
