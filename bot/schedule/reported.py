"""The digest after a bulletin: it still tells the change, marked as already sent, and does
not post the bulletin's action item a second time.

`note_bulletins` drops from a channel's story each action item the channel already received
in a delivered bulletin (`store.bulletins.reported`; same item id, since both were composed
from the same change) and adds one body sentence per such item instead, citing what the item
cited: "As reported at 05:18 UTC: Check what now blocks merges in ci-infra: …".
Only items of the composed story count, so an item carried later as still unacknowledged is
posted as usual.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from zoneinfo import ZoneInfo

from bot.store import Store
from digest.model import Sentence, Story, stable_id


def reported_phrase(posted: datetime, *, zone: str, now: datetime) -> str:
    """ "As reported at 14:02 CET", with the day when it was not the day of `now`."""
    local = posted.astimezone(ZoneInfo(zone))
    text = f"As reported at {local:%H:%M} {local.tzname() or zone}"
    if local.date() != now.astimezone(ZoneInfo(zone)).date():
        text += f" on {local.day} {local:%b}"
    return text


async def note_bulletins(
    story: Story,
    store: Store,
    *,
    platform: str,
    channel: str,
    among: Collection[str],
    zone: str,
    now: datetime,
) -> Story:
    """`story` without the action items among `among` that the channel got as a delivered
    bulletin, each told in the body as already reported instead."""
    sent = await store.bulletins.reported(platform=platform, channel=channel, item_ids=among)
    if not sent:
        return story
    kept = tuple(item for item in story.action_items if item.id not in sent)
    notes = tuple(
        Sentence(
            text=f"{reported_phrase(sent[item.id], zone=zone, now=now)}: {item.text}",
            refs=item.refs,
        )
        for item in story.action_items
        if item.id in sent
    )
    return story.model_copy(
        update={
            "id": stable_id("story", story.id, "reported", sorted(sent)),
            "action_items": kept,
            "body": (*story.body, *notes),
        }
    )
