"""From subscriptions to stories: filters, windows, exclusions, and one story per channel.

A channel's subscriptions fold into *filters*: every subscription with the same topic and
the same exclusions joins one filter whose repositories are their union. The filters of a
channel are its *selection*, and the channel gets one story of it per window
(`compose_selection`): the changes any filter selects, each told once, with a section per
project. A topic subscription that a repository subscription covers adds nothing; a
channel whose only filter is a topic still reads a topic story. Channels whose selection
and window are equal share one composition.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from bot import metrics, progress
from bot.store import Subscription
from digest.compose import filter_topic
from digest.config import Project, WireConfig, topic_key
from digest.errors import UnknownTopicError
from digest.model import Activity, Story, Window
from digest.pipeline import compose_activities
from digest.reading.classify import classify
from digest.sources import Source, open_source

SourceFor = Callable[[Project], Source]


@dataclass(frozen=True, slots=True)
class Filter:
    """What one story covers: `repos` (empty: every configured project), a topic, and
    exclusions such as "author:pytorchbot" or "topic:docs"."""

    repos: tuple[str, ...]
    topic: str | None
    excludes: tuple[str, ...]

    def describe(self) -> str:
        """A short human description, e.g. "pytorch/executorch topic:XNNPACK"."""
        parts = [", ".join(self.repos) or "every project"]
        if self.topic:
            parts.append(f"topic:{self.topic}")
        parts.extend(f"-{e}" for e in self.excludes)
        return " ".join(parts)


def filters_of(subscriptions: Iterable[Subscription]) -> list[Filter]:
    """Fold a channel's subscriptions into filters (one per topic and exclusion set)."""
    groups: dict[tuple[str | None, tuple[str, ...]], set[str] | None] = {}
    for sub in subscriptions:
        if sub.kind != "all":
            continue  # releases and security: a story as each lands (bot.realtime.releases)
        key = (sub.topic, tuple(sorted(sub.excludes)))
        repos = groups.setdefault(key, set())
        if sub.repo is None or repos is None:
            groups[key] = None  # a topic anywhere: every project
        else:
            repos.add(sub.repo)
    return [
        Filter(repos=tuple(sorted(repos or ())), topic=topic, excludes=excludes)
        for (topic, excludes), repos in sorted(groups.items(), key=lambda kv: str(kv[0]))
    ]


def window_for(
    *,
    last_until: datetime | None,
    until: datetime,
    first_lookback: timedelta,
    max_lookback: timedelta,
) -> Window | None:
    """The window from the end of the last delivered one to `until`, never reaching further
    back than `max_lookback`; a channel's first window looks back `first_lookback`.
    None when the window would be empty."""
    since = last_until if last_until is not None else until - first_lookback
    since = max(since, until - max_lookback)
    return Window(since=since, until=until) if since < until else None


def default_source(project: Project, *, github_options: dict[str, Any] | None = None) -> Source:
    """A project's configured source, else GitHub for its repository."""
    spec = project.source or f"github:{project.repo}"
    options = github_options if spec.startswith("github:") else {}
    return open_source(spec, repo=project.repo, **(options or {}))


def _excluded(
    activities: list[Activity], excludes: Iterable[str], config: WireConfig
) -> list[Activity]:
    authors = {topic_key(e.split(":", 1)[1]) for e in excludes if e.startswith("author:")}
    topics = {topic_key(e.split(":", 1)[1]) for e in excludes if e.startswith("topic:")}
    kept = [a for a in activities if topic_key(a.author) not in authors]
    if not topics:
        return kept
    names = topics | {
        topic_key(t.name) for p in config.projects for t in p.topics if topics & t.keys
    }
    dropped = {
        (e.activity.repo, e.activity.sha)
        for e in classify(kept, config)
        if names & {topic_key(t) for t in e.topics}
    }
    return [a for a in kept if (a.repo, a.sha) not in dropped]


def apply_excludes(
    activities: Iterable[Activity], *, excludes: Iterable[str], config: WireConfig
) -> list[Activity]:
    """Drop activities by an excluded author (name folded like topics) or in an excluded
    topic (by name or alias), before composing."""
    excludes = tuple(excludes)
    activities = list(activities)
    return _excluded(activities, excludes, config) if excludes else activities


async def compose_filter(
    story_filter: Filter, *, config: WireConfig, window: Window, source_for: SourceFor
) -> Story:
    """Gather, filter and compose the checked story of one filter over one window."""
    repos = story_filter.repos or tuple(p.repo for p in config.projects)
    projects = [config.project(repo) for repo in repos]
    with metrics.composing():  # stories composed, compose seconds
        label = f"gathering {story_filter.describe()}, {window.label()}"
        activities = await progress.gather([source_for(p) for p in projects], window, label=label)
        kept = apply_excludes(activities, excludes=story_filter.excludes, config=config)
        try:
            return await compose_activities(
                kept, config=config, window=window, topic=story_filter.topic, repos=repos
            )
        except UnknownTopicError:
            if all(config.is_configured(repo) for repo in repos):
                raise
            # an automatic topic of a repository added from chat, quiet in this window
            return await compose_activities([], config=config, window=window, repos=repos)


Selection = tuple[Filter, ...]  # a channel's filters, in the order `filters_of` gives


def on_topic(activities: list[Activity], topic: str, config: WireConfig) -> list[Activity]:
    """The activities of `topic` (name or alias, automatic topics too); none when no project
    knows the topic in them (an automatic topic of a quiet window)."""
    try:
        events = filter_topic(classify(activities, config), topic, config)
    except UnknownTopicError:
        return []
    return [event.activity for event in events]


def selected(
    activities: Iterable[Activity], selection: Selection, config: WireConfig
) -> list[Activity]:
    """The activities any filter of `selection` takes (its repositories, less its exclusions,
    on its topic), each once, in the order given."""
    activities = list(activities)
    chosen: dict[tuple[str, str], Activity] = {}
    for story_filter in selection:
        wanted = {r.lower() for r in story_filter.repos}
        theirs = [a for a in activities if not wanted or a.repo.lower() in wanted]
        kept = apply_excludes(theirs, excludes=story_filter.excludes, config=config)
        if story_filter.topic is not None:
            kept = on_topic(kept, story_filter.topic, config)
        for activity in kept:
            chosen.setdefault(activity.key, activity)
    return [a for a in activities if a.key in chosen]


async def compose_selection(
    selection: Selection, *, config: WireConfig, window: Window, source_for: SourceFor
) -> Story:
    """The one story of a channel's `selection` over `window`: a single filter's story as
    `compose_filter` writes it (a topic story for a lone topic), else the story of every
    change some filter selects, told once."""
    if len(selection) == 1:
        return await compose_filter(
            selection[0], config=config, window=window, source_for=source_for
        )
    every = tuple(p.repo for p in config.projects)
    repos = tuple(dict.fromkeys(r for f in selection for r in (f.repos or every)))
    named = tuple(dict.fromkeys(r for f in selection for r in f.repos))
    with metrics.composing():  # stories composed, compose seconds
        label = f"gathering {'; '.join(f.describe() for f in selection)}, {window.label()}"
        sources = [source_for(config.project(repo)) for repo in repos]
        activities = await progress.gather(sources, window, label=label)
        kept = selected(activities, selection, config)
        about = tuple(dict.fromkeys([*named, *(a.repo for a in kept)]))
        return await compose_activities(kept, config=config, window=window, repos=about)
