"""What is posted after a delivery, in the threads it made: an action item's message
re-rendered with its acknowledgements, and reminders of [immediate] items nobody acknowledged.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta

from bot import metrics
from bot.delivery.parts import AckMark, item_part, reminder_part
from bot.delivery.platform import Platform
from bot.store import Store, utcnow


async def refresh_item(store: Store, platform: Platform, *, channel: str, item_id: str) -> bool:
    """Re-render the message of an action item with everyone who acknowledged it (call
    after `store.acks.record`); False when the item was never posted in that channel."""
    found = await store.acks.find_item_message(item_id, platform=platform.name, channel=channel)
    story = None if found is None else await store.stories.get(found.story_id)
    if found is None or story is None:
        return False
    acks = await store.acks.for_item(item_id, channel=channel)
    part = item_part(story, item_id, [AckMark(a.user_name, a.acked_at) for a in acks])
    await platform.update(channel, found.message_id, part)
    return True


async def send_reminders(
    store: Store,
    platforms: Mapping[str, Platform],
    *,
    reminder_after: timedelta,
    oncall: Mapping[str, str | None],
    horizon: timedelta = timedelta(days=1),
) -> int:
    """Post one reminder in the thread of every [immediate] item nobody acknowledged within
    `reminder_after` (items older than `reminder_after + horizon` are left alone).

    The post carries an idempotency key and the reminder is recorded after it, so a crash
    in between neither loses the reminder nor sends it twice. Returns how many were sent.
    """
    now = utcnow()
    due = await store.acks.unacked_items(
        posted_before=now - reminder_after, posted_after=now - reminder_after - horizon
    )
    sent = 0
    for message in due:
        platform = platforms.get(message.platform)
        story = await store.stories.get(message.story_id)
        if platform is None or story is None:
            continue
        part = reminder_part(story, message.item_id, oncall=oncall.get(message.platform))
        if part.item.urgency != "immediate":
            continue
        key = f"{message.delivery_id}.r{message.part_index}"
        await platform.post(message.channel, part, message.thread_id, key=key)
        recorded = await store.acks.record_reminder(message.item_id, channel=message.channel)
        metrics.reminders_sent(message.platform, int(recorded))
        sent += recorded
    return sent
