"""From source specs to a checked story: the one call the CLI and the scheduler make.

The composer (classify, compose, check and the lexicon they read) is imported when a story
is first composed, not with this module, and the prose engine (an HTTP client) only when
`[prose]` asks for it. `compose_window` imports the composer in a worker thread while its
sources are read, so a command that reads a clone pays for those imports while `git log`
runs rather than before it starts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import TYPE_CHECKING

from digest.model import Activity, Story, Window
from digest.sources import Source, collect

if TYPE_CHECKING:
    from digest.config import WireConfig


def load_composer() -> None:
    """Import the composer and give lemminflect its word tables (idempotent)."""
    import digest.compose  # noqa: F401
    from digest import lexicon

    lexicon.load()


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
    gathering = asyncio.ensure_future(gather(sources, window))
    try:
        await asyncio.to_thread(load_composer)
    except BaseException:
        gathering.cancel()
        raise
    activities = await gathering
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
    from digest.compose import compose

    story = compose(activities, config=config, window=window, topic=topic, repos=repos)
    if config.prose.enabled:
        from digest.prose.engine import rewrite_story

        story = await rewrite_story(story, config=config, activities=activities)
    return story
