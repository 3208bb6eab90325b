"""A second run on the demo clock: say that its window went out already, and how to see it again.

With `[demo] now` fixed, every run ends its window at the same instant, so a second
`make run` finds the seeded channels' window delivered and would print the banner and then
nothing at all. `already_delivered` gives the one sentence per such channel that explains it:

    the demo window (2026-05-25 00:00 – 2026-05-27 00:00 UTC) was already delivered to
    #demo; `rm var/demo.db` to see it again
"""

from __future__ import annotations

from sqlalchemy.engine import make_url

from bot.settings import Settings
from bot.store import Store


def _fresh_start(database_url: str) -> str:
    """How to start over: remove the SQLite file, or drop the PostgreSQL database."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite" and url.database:
        return f"`rm {url.database}` to see it again"
    return f"drop the database {url.database or ''} to see it again".replace("  ", " ")


async def already_delivered(settings: Settings, store: Store) -> list[str]:
    """One sentence for each seeded channel whose window ending at `[demo] now` an earlier
    run delivered; none without the demo clock (real time moves on by itself)."""
    if settings.demo.now is None:
        return []
    now = settings.now()
    lines = []
    channels = dict.fromkeys((s.platform, s.workspace, s.channel) for _t, s in settings.seeds)
    for platform, workspace, name in channels:
        where = {"platform": platform, "workspace": workspace, "channel": name}
        channel = await store.channels.get(**where)
        if channel.last_window_until is None or channel.last_window_until < now:
            continue
        recent = await store.listing.list(platform=platform, channel=name, limit=1)
        story = await store.stories.get(recent[0].story_id) if recent else None
        window = f" ({story.window.label()})" if story is not None else ""
        lines.append(
            f"the demo window{window} was already delivered to #{name}; "
            f"{_fresh_start(settings.database_url)}"
        )
    return lines
