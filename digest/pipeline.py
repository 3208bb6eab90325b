"""From source specs to a checked story: the one call the CLI and the scheduler make."""

from __future__ import annotations

from collections.abc import Iterable

from digest.compose import compose
from digest.config import WireConfig
from digest.model import Activity, Story, Window
from digest.prose.engine import rewrite_story
from digest.sources import Source, collect


async def gather(sources: Iterable[Source], window: Window) -> list[Activity]:
    """All activity of `window` from `sources`, deduplicated, in landing order."""
    activities = await collect(list(sources), window)
    return sorted(activities, key=lambda a: a.landed_at)


async def compose_window(
    sources: Iterable[Source],
    *,
    config: WireConfig,
    window: Window,
    topic: str | None = None,
    repos: Iterable[str] = (),
) -> Story:
    """Gather the window's activity from `sources` and compose its checked story."""
    activities = await gather(sources, window)
    return await compose_activities(
        activities, config=config, window=window, topic=topic, repos=repos
    )


async def compose_activities(
    activities: list[Activity],
    *,
    config: WireConfig,
    window: Window,
    topic: str | None = None,
    repos: Iterable[str] = (),
) -> Story:
    """Compose the checked story of `activities`; with `[prose] engine = "llm"` the model
    rewrites its lede and body, and the rules' text stays whenever the rewrite fails a check."""
    story = compose(activities, config=config, window=window, topic=topic, repos=repos)
    if config.prose.enabled:
        story = await rewrite_story(story, config=config, activities=activities)
    return story
