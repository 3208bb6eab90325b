"""From source specs to a checked story: the one call the CLI and the scheduler make.

The composer (classify, compose, check and the lexicon they read) is imported when a story
is first composed, not with this module, and the prose engine (an HTTP client) only when
`[prose]` asks for it. `compose_window` imports the composer in a worker thread while its
sources are read, so a command that reads a clone pays for those imports while `git log`
runs rather than before it starts, and classifies what has arrived while the rest streams.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from digest.model import Activity, Story, Window
from digest.sources import Source, collect

if TYPE_CHECKING:
    from digest.config import WireConfig
    from digest.reading.classify import Reading


def load_composer() -> None:
    """Import the composer and give lemminflect its word tables (idempotent)."""
    import digest.compose  # noqa: F401
    from digest.english import lexicon

    lexicon.load()


async def gather(
    sources: Iterable[Source],
    window: Window,
    each: Callable[[Activity], object] | None = None,
    *,
    history: bool = False,
) -> list[Activity]:
    """All activity of `window` from `sources`, deduplicated, in landing order; `each` is
    called with every activity as it arrives. With `history`, local sources give the weeks
    before the window too (`sources.reach`)."""
    activities = await collect(list(sources), window, each, history=history)
    return sorted(activities, key=lambda a: a.landed_at)


async def compose_window(
    sources: Iterable[Source],
    *,
    config: WireConfig,
    window: Window,
    topic: str | None = None,
    repos: Iterable[str] = (),
) -> Story:
    """Gather the window's activity from `sources` and compose its checked story.

    While the sources stream, the composer is imported in a thread and, once it is in, each
    arriving activity is read (`read_change`: all of classifying but its topics), so a slow
    source such as `git log` hides most of the classifying as well as the imports. Local
    sources give the weeks before the window too, read only for how the project writes its
    name (`compose`).
    """
    loading = asyncio.ensure_future(asyncio.to_thread(load_composer))
    readings: dict[tuple[str, str], Reading] = {}

    def read_ahead(activity: Activity) -> None:
        if not window.contains(activity.landed_at):
            return  # history: read only for how the project writes, never told
        if loading.done() and not loading.cancelled() and loading.exception() is None:
            from digest.reading.classify import read_change

            readings[activity.key] = read_change(activity, config.project(activity.repo))

    try:
        activities = await gather(sources, window, read_ahead, history=True)
    except BaseException:
        loading.cancel()
        raise
    await loading
    return await compose_activities(
        activities, config=config, window=window, topic=topic, repos=repos, readings=readings
    )


async def compose_activities(
    activities: list[Activity],
    *,
    config: WireConfig,
    window: Window,
    topic: str | None = None,
    repos: Iterable[str] = (),
    readings: Mapping[tuple[str, str], Reading] | None = None,
) -> Story:
    """Compose the checked story of `activities` (`readings`: those read ahead, see
    `classify`); with `[prose] engine = "llm"` the model rewrites its lede and body, and the
    rules' text stays whenever the rewrite fails a check."""
    from digest.compose import compose

    story = compose(
        activities, config=config, window=window, topic=topic, repos=repos, readings=readings
    )
    if config.prose.enabled:
        from digest.prose.engine import rewrite_story

        told = [a for a in activities if window.contains(a.landed_at)]
        story = await rewrite_story(story, config=config, activities=told)
    return story
