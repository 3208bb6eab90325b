"""The Wire on Discord from end to end, on the demo configuration and its recorded activity:
a member runs `/wire subscribe executorch`; the scheduler's story arrives as a parent
message, its thread and the replies in order; an Acknowledge button and a ✅ reaction record
acks and edit the item's message; after a restart an old button still works; a reminder
mentions the on-call role and may ping nobody else. Everything runs through discord.py's
real client against the loopback Discord (REST + gateway), which validates every request."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import time_machine

from bot.delivery.parts import ActionItemPart, ParentPart, parts_of
from bot.discord.frontend import ALREADY
from bot.discord.render import render
from tests.fakes.discord_gateway import (
    MANAGE_CHANNELS,
    LoopbackDiscord,
    button_press,
    member,
    reaction_add,
    slash,
)
from tests.fakes.discord_rest import BOT_ID
from tests.test_discord_frontend import (
    EPHEMERAL,
    interact,
    restore_discord_py_globals,  # noqa: F401  (an autouse fixture)
    running,
    settings_for,
    until,
)

DEMO_NOW = datetime(2026, 5, 27, tzinfo=UTC)
ROLE = "1250000000000000001"
ANA = member("1300000000000000001", "Ana", permissions=MANAGE_CHANNELS)
BEN = member("1300000000000000002", "Ben")
CY = member("1300000000000000003", "Cy")


def footer(message: dict) -> str:
    return (message["embeds"][0].get("footer") or {}).get("text", "")


async def subscribe(loopback: LoopbackDiscord, target: str) -> None:
    payload = slash(
        loopback.api,
        "wire subscribe",
        channel_id=loopback.channel,
        who=ANA,
        options={"target": target},
    )
    callback = await interact(loopback, payload)
    assert "Subscribed this channel to" in callback["data"]["content"]


def item_message(in_thread: list[dict], part: ActionItemPart) -> dict:
    """The message an action item was posted as (its first payload's embeds)."""
    embeds = render(part, oncall_role_id=int(ROLE))[0]["embeds"]
    return next(m for m in in_thread if m["embeds"] == embeds)


async def test_subscribe_deliver_remind_acknowledge_and_restart(loopback, tmp_path: Path):
    api = loopback.api
    settings = settings_for(loopback, tmp_path, acks={"oncall": {"discord": ROLE}})
    async with running(settings) as service:
        await subscribe(loopback, "executorch")
        await subscribe(loopback, "ci-infra")  # it brings an [immediate] item
        report = await service.run_once(now=DEMO_NOW)
        assert report.delivered.delivered == 1  # one story for the channel's subscriptions

        # each story: one parent in the channel, its thread, every other part inside, in order
        parents = api.thread_messages(loopback.channel)
        deliveries = await service.store.listing.list(platform="discord")
        stories = {}
        for delivery in deliveries:
            story = await service.store.stories.get(delivery.story_id)
            parts = parts_of(story)
            assert isinstance(parts[0], ParentPart)
            (parent,) = [p for p in parents if p["embeds"] == render(parts[0])[0]["embeds"]]
            thread = api.threads[parent["id"]]
            assert thread["parent_id"] == loopback.channel and thread["name"] == story.headline
            rendered = [p for part in parts[1:] for p in render(part, oncall_role_id=int(ROLE))]
            in_thread = api.thread_messages(thread["id"])
            assert [m["embeds"] for m in in_thread] == [p["embeds"] for p in rendered]
            stories[story.id] = (parts, thread["id"], in_thread)
        assert len(parents) == len(stories) == 1

        items = [
            (p, thread_id, in_thread)
            for parts, thread_id, in_thread in stories.values()
            for p in parts
            if isinstance(p, ActionItemPart)
        ]
        urgent, urgent_thread, urgent_messages = next(
            i for i in items if i[0].item.urgency == "immediate"
        )
        message = item_message(urgent_messages, urgent)
        button = message["components"][0]["components"][0]
        assert button["custom_id"] == f"wire:ack:{urgent.item.id}"

        # nobody acknowledged the [immediate] item in time: the reminder pings the role only
        with time_machine.travel(datetime.now(UTC) + timedelta(minutes=31), tick=True):
            assert await service.scheduler.remind() == 1
        (reminder,) = [m for m in api.thread_messages(urgent_thread) if m["content"]]
        assert reminder["content"].startswith(f"<@&{ROLE}>")
        assert reminder["mention_roles"] == [ROLE] and reminder["mention_everyone"] is False

        # the Acknowledge button: the ack is stored and the item's message (in the thread)
        # edited once, by the platform; the press itself is only acknowledged
        edits_before = api.requests["edits"]
        callback = await interact(loopback, button_press(api, message, who=ANA))
        assert callback["type"] == 6  # DEFERRED_UPDATE_MESSAGE
        assert api.requests["edits"] == edits_before + 1
        assert "Ana" in footer(api.messages[message["id"]])
        await interact(loopback, button_press(api, api.messages[message["id"]], who=BEN))
        assert "Ana" in footer(api.messages[message["id"]])
        assert "Ben" in footer(api.messages[message["id"]])
        again = await interact(loopback, button_press(api, api.messages[message["id"]], who=BEN))
        assert again["type"] == 4 and again["data"]["content"] == ALREADY
        assert again["data"]["flags"] & EPHEMERAL
        acks = await service.store.acks.for_item(urgent.item.id, channel=loopback.channel)
        assert [(a.user_id, a.user_name) for a in acks] == [
            (ANA["user"]["id"], "Ana"),
            (BEN["user"]["id"], "Ben"),
        ]

        # a ✅ on another item's message acknowledges that item; other emoji and the bot's
        # own reactions do nothing
        other, _thread, other_messages = next(i for i in items if i[0] is not urgent)
        target = item_message(other_messages, other)
        bot_self = member(BOT_ID, "the-wire")
        for who, emoji in ((bot_self, "✅"), (CY, "👀"), (CY, "✅")):
            reaction = reaction_add(api, target, who=who, emoji=emoji)
            await loopback.gateway.dispatch("MESSAGE_REACTION_ADD", reaction)
        await until(lambda: "Cy" in footer(api.messages[target["id"]]))
        acks = await service.store.acks.for_item(other.item.id, channel=loopback.channel)
        assert [a.user_name for a in acks] == ["Cy"]

    # a restart on the same database: the old button still records and edits
    async with running(settings):
        assert len(loopback.gateway.identifies) == 2
        pressed = button_press(api, api.messages[message["id"]], who=CY)
        callback = await interact(loopback, pressed)
        assert callback["type"] == 6
        shown = footer(api.messages[message["id"]])
        assert all(name in shown for name in ("Ana", "Ben", "Cy"))
