"""Acknowledgements and escalation of [immediate] action items.

* `acknowledge` records an ack once per (item, user) and re-renders the item's message on
  its platform with everyone who acknowledged it.
* `remind` posts ONE reminder, in the item's thread and naming the on-call handle,
  for each [immediate] item nobody acknowledged within `reminder_after`.
* `with_unacknowledged` adds a channel's still-unacknowledged [immediate] items to the next
  digest it receives (same item ids, so acking either message counts).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot import metrics
from bot.acks.unacked import unacknowledged_items
from bot.delivery.followups import refresh_item, send_reminders
from bot.delivery.platform import Platform
from bot.errors import PlatformError
from bot.store import AckResult, Store
from digest.model import ActionItem, Reference, Story, stable_id

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class AckOutcome:
    """What `acknowledge` did: None `result` means the item is not posted in the channel."""

    item_id: str
    result: AckResult | None
    updated: bool = False


async def acknowledge(
    store: Store,
    platforms: Mapping[str, Platform],
    *,
    item_id: str,
    platform: str,
    channel: str,
    user_id: str,
    user_name: str,
) -> AckOutcome:
    """Record `user_id`'s ack of `item_id` in `channel` and show it on the item's message.

    The item may be named with or without its "item_" prefix. A second ack by the same user
    changes nothing and edits nothing; a platform that fails the edit keeps the ack.
    """
    for candidate in dict.fromkeys([item_id, f"item_{item_id}"]):
        message = await store.acks.find_item_message(candidate, platform=platform, channel=channel)
        if message is not None:
            break
    else:
        return AckOutcome(item_id=item_id, result=None)
    result = await store.acks.record(
        message.item_id, platform=platform, channel=channel, user_id=user_id, user_name=user_name
    )
    if result.new:
        metrics.ack_recorded(platform)
    updated = False
    if result.new and platform in platforms:
        try:
            updated = await refresh_item(
                store, platforms[platform], channel=channel, item_id=message.item_id
            )
        except PlatformError as error:
            log.warning("could not show the ack on %s: %s", message.message_id, error)
    return AckOutcome(item_id=message.item_id, result=result, updated=updated)


async def remind(
    store: Store,
    platforms: Mapping[str, Platform],
    *,
    reminder_after: timedelta,
    oncall: Mapping[str, str | None],
) -> int:
    """Post ONE reminder, naming the on-call handle, in the thread of each [immediate] item
    nobody acknowledged within `reminder_after`; a failing platform is logged, not raised."""
    try:
        return await send_reminders(store, platforms, reminder_after=reminder_after, oncall=oncall)
    except PlatformError as error:
        log.warning("reminders stopped: %s", error)
        return 0


def _item_of(story: Story, item_id: str) -> ActionItem | None:
    return next((i for i in story.action_items if i.id == item_id), None)


async def with_unacknowledged(
    story: Story, store: Store, *, platform: str, channel: str, since: datetime
) -> Story:
    """`story` plus the channel's [immediate] items, first posted after `since`, that nobody
    has acknowledged; the items keep their ids and bring their references along."""
    pending: list[tuple[ActionItem, tuple[Reference, ...]]] = []
    present = {i.id for i in story.action_items}
    for found in await unacknowledged_items(store, platform=platform, channel=channel, since=since):
        old = await store.stories.get(found.story_id)
        item = _item_of(old, found.item_id) if old else None
        if old is None or item is None or item.urgency != "immediate" or item.id in present:
            continue
        present.add(item.id)
        pending.append((item, tuple(r for r in old.references if r.n in item.refs)))
    if not pending:
        return story
    references = list(story.references)
    items = list(story.action_items)
    for item, refs in pending:
        numbers = []
        for ref in refs:
            same = next((r for r in references if r.url == ref.url), None)
            if same is None:
                same = ref.model_copy(update={"n": len(references) + 1})
                references.append(same)
            numbers.append(same.n)
        text = f"Still unacknowledged: {item.text}"
        items.append(item.model_copy(update={"text": text, "refs": tuple(numbers)}))
    return story.model_copy(
        update={
            "id": stable_id("story", story.id, sorted(i.id for i, _ in pending)),
            "action_items": tuple(items),
            "references": tuple(references),
        }
    )
