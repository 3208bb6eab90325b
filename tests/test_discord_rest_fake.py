"""discord.py's real HTTP client against the loopback Discord (tests/fakes/discord_rest.py):
rendered payloads are accepted by Discord's own request schemas, a story becomes a thread,
an item's message is edited, and discord.py waits out 429s and the bucket headers.

`discord.http.Route.BASE` is set to the loopback server: the one place discord.py keeps the
API's address, i.e. the far edge of the network."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from functools import cache

import discord
import pytest
from aiohttp.test_utils import TestServer
from discord.http import HTTPClient, MultipartParameters, Route

from bot.delivery.parts import AckMark, ParentPart, ReminderPart, item_part, parts_of
from bot.discord.render import edit_payload, render, thread_name
from bot.discord.views import GONE, ack_button
from digest.compose import compose
from digest.model import Story
from tests.digest_data import SHOWCASE_WINDOW, example_config, executorch, window
from tests.fakes.discord_rest import BOT_ID, FakeDiscord, Limits

ROLE = 987654321098765432


@cache
def story() -> Story:
    return compose(executorch(), config=example_config(), window=window(*SHOWCASE_WINDOW))


@pytest.fixture
async def discord_api(monkeypatch) -> AsyncIterator[tuple[FakeDiscord, HTTPClient]]:
    """A logged-in discord.py HTTPClient talking to a fresh loopback Discord."""
    fake = FakeDiscord(limits=Limits(messages=(5, 0.3), edits=(5, 0.3)))
    server = TestServer(fake.app(), host="127.0.0.1")
    await server.start_server()
    monkeypatch.setattr(Route, "BASE", str(server.make_url("/api/v10")))
    http = HTTPClient(asyncio.get_running_loop())
    try:
        me = await http.static_login(fake.token)
        assert me["id"] == BOT_ID
        yield fake, http
        assert fake.problems == []
    finally:
        await http.close()
        await server.close()


async def send(http: HTTPClient, channel_id: str, payload: dict) -> dict:
    """POST a rendered payload as it is, through discord.py's client."""
    return await http.send_message(
        channel_id, params=MultipartParameters(payload=payload, multipart=None, files=None)
    )


async def test_a_story_is_posted_as_a_thread_from_its_parent(discord_api):
    fake, http = discord_api
    channel = fake.add_channel()
    parts = parts_of(story())
    parent, *rest = render(parts[0], oncall_role_id=ROLE)
    posted = await send(http, channel, parent)
    thread = await http.start_thread_with_message(
        channel, posted["id"], name=thread_name(parts[0]), auto_archive_duration=1440
    )
    assert thread["id"] == posted["id"] and thread["name"] == story().headline
    replies = rest + [p for part in parts[1:] for p in render(part, oncall_role_id=ROLE)]
    for payload in replies:
        await send(http, thread["id"], payload)
    in_thread = fake.thread_messages(thread["id"])
    assert [m["embeds"] for m in in_thread] == [p["embeds"] for p in replies]
    assert all(
        m["mention_roles"] == [] and not m["mention_everyone"] for m in fake.messages.values()
    )
    assert fake.rate_limited == []


async def test_discord_py_paces_itself_on_the_bucket_headers(discord_api):
    fake, http = discord_api
    channel = fake.add_channel()
    payload = render(parts_of(story())[0])[0]
    started = time.monotonic()
    for _ in range(12):  # 5 a window of 0.3 s: two full windows must pass
        await send(http, channel, payload)
    assert time.monotonic() - started >= 0.55
    assert len(fake.thread_messages(channel)) == 12 and fake.rate_limited == []


async def test_only_a_reminder_pings_and_only_the_on_call_role(discord_api):
    fake, http = discord_api
    channel = fake.add_channel()
    item = story().action_items[0].model_copy(update={"text": "@everyone <@&1> fix it [1]"})
    reminder = ReminderPart(index=2, story_id=story().id, item=item, oncall=str(ROLE))
    answer = await send(http, channel, render(reminder, oncall_role_id=ROLE)[0])
    assert answer["mention_roles"] == [str(ROLE)] and answer["mention_everyone"] is False
    hostile = ParentPart(
        index=0, story_id="s", headline=f"<@&{ROLE}> @here", lede="x", window_label="w"
    )
    answer = await send(http, channel, render(hostile, oncall_role_id=ROLE)[0])
    assert answer["mention_roles"] == [] and answer["mention_everyone"] is False


async def test_an_item_message_is_edited_to_show_who_acknowledged(discord_api):
    fake, http = discord_api
    channel = fake.add_channel()
    item = story().action_items[0].model_copy(update={"urgency": "immediate"})
    hot = story().model_copy(update={"action_items": (item,)})
    posted = await send(http, channel, render(item_part(hot, item.id))[0])
    assert posted["components"][0]["components"][0]["custom_id"] == f"wire:ack:{item.id}"
    ack = AckMark(user_name="ana", acked_at=datetime(2026, 5, 25, 10, 5, tzinfo=UTC))
    edited = await http.edit_message(
        channel,
        posted["id"],
        params=MultipartParameters(
            payload=edit_payload(item_part(hot, item.id, [ack])), multipart=None, files=None
        ),
    )
    assert edited["embeds"][0]["footer"]["text"] == "✓ Acknowledged by ana (2026-05-25 10:05 UTC)"
    assert fake.messages[posted["id"]]["edited_timestamp"] is not None
    await http.add_reaction(channel, posted["id"], "✅")
    assert fake.reactions == [(channel, posted["id"], "✅")]


async def test_discord_py_waits_out_a_429_and_retries(discord_api):
    fake, http = discord_api
    channel = fake.add_channel()
    fake.script_429("messages", 0.2)
    started = time.monotonic()
    answer = await send(http, channel, render(parts_of(story())[0])[0])
    assert time.monotonic() - started >= 0.2
    assert fake.rate_limited == [("0.200", False)]
    assert fake.requests["messages"] == 2 and fake.thread_messages(channel) == [
        fake.messages[answer["id"]]
    ]


async def test_discord_py_waits_out_the_global_limit(discord_api):
    fake, http = discord_api
    fake.global_limit = 4
    channels = [fake.add_channel(f"c{n}") for n in range(8)]
    payload = render(parts_of(story())[0])[0]
    answers = await asyncio.gather(*(send(http, c, payload) for c in channels))
    assert len({a["id"] for a in answers}) == 8
    assert fake.rate_limited and all(is_global for _, is_global in fake.rate_limited)


async def test_the_fake_refuses_what_discord_refuses(discord_api):
    fake, http = discord_api
    channel = fake.add_channel()
    too_long = {"content": "x" * 2001}
    bad_mentions = {"content": "hi", "allowed_mentions": {"parse": ["bogus"]}}
    for payload in (too_long, bad_mentions):
        with pytest.raises(discord.HTTPException) as refused:
            await send(http, channel, payload)
        assert refused.value.status == 400 and refused.value.code == 50035
    assert len(fake.problems) >= 2
    fake.problems.clear()
    with pytest.raises(discord.NotFound):
        await send(http, "1", {"content": "nowhere"})


def component_interaction(fake: FakeDiscord, message: dict, *, user_id: str) -> dict:
    """An INTERACTION_CREATE for a press of the first button of `message`, as the gateway
    delivers it (shape of Discord's documented component interaction)."""
    interaction_id = fake.snowflake()
    fake.expect_interaction(interaction_id, message["id"])
    button = message["components"][0]["components"][0]
    user = {
        "id": user_id,
        "username": "ana",
        "discriminator": "0",
        "global_name": "Ana",
        "avatar": None,
    }
    return {
        "id": interaction_id,
        "application_id": BOT_ID,
        "type": 3,
        "token": "interaction-token",
        "version": 1,
        "guild_id": fake.guild_id,
        "channel_id": message["channel_id"],
        "channel": fake.channels[message["channel_id"]],
        "member": {
            "user": user,
            "roles": [],
            "joined_at": "2026-01-01T00:00:00+00:00",
            "deaf": False,
            "mute": False,
            "flags": 0,
            "permissions": "0",
        },
        "data": {"custom_id": button["custom_id"], "component_type": 2},
        "message": message,
        "app_permissions": "0",
        "attachment_size_limit": 10485760,
        "locale": "en-US",
        "guild_locale": "en-US",
        "entitlements": [],
        "authorizing_integration_owners": {"0": fake.guild_id},
        "context": 0,
    }


async def until(condition, timeout: float = 5.0) -> None:
    """Wait for work discord.py runs in its own tasks (a dispatched interaction)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def test_a_button_posted_before_a_restart_records_the_ack_and_edits_its_message(
    discord_api,
):
    fake, http = discord_api
    channel = fake.add_channel()
    item = story().action_items[0].model_copy(update={"urgency": "immediate"})
    hot = story().model_copy(update={"action_items": (item,)})
    posted = await send(http, channel, render(item_part(hot, item.id))[0])
    pressed: list[tuple[str, int, str]] = []

    async def on_ack(item_id: str, user_id: int, user_name: str):
        pressed.append((item_id, user_id, user_name))
        mark = AckMark(user_name=user_name, acked_at=datetime(2026, 5, 25, 10, 5, tzinfo=UTC))
        return item_part(hot, item_id, [mark]) if item_id == item.id else None

    client = discord.Client(intents=discord.Intents.none())  # a fresh process: no views kept
    client.add_dynamic_items(ack_button(on_ack, oncall_role_id=ROLE))
    await client.login(fake.token)
    try:
        client._connection.parse_interaction_create(
            component_interaction(fake, posted, user_id="1300000000000000001")
        )
        await until(lambda: fake.callbacks)
        gone = dict(
            posted,
            components=[
                {
                    "type": 1,
                    "components": [
                        dict(
                            posted["components"][0]["components"][0], custom_id="wire:ack:item_gone"
                        )
                    ],
                }
            ],
        )
        client._connection.parse_interaction_create(
            component_interaction(fake, gone, user_id="1300000000000000002")
        )
        await until(lambda: len(fake.callbacks) == 2)
    finally:
        await client.close()
    assert pressed == [
        (item.id, 1300000000000000001, "Ana"),
        ("item_gone", 1300000000000000002, "Ana"),
    ]
    update, refusal = fake.callbacks
    assert update["type"] == 7
    assert update["data"]["allowed_mentions"] == {"parse": [], "roles": [ROLE]}
    edited = fake.messages[posted["id"]]
    assert edited["embeds"][0]["footer"]["text"] == "✓ Acknowledged by Ana (2026-05-25 10:05 UTC)"
    assert edited["components"][0]["components"][0]["custom_id"] == f"wire:ack:{item.id}"
    assert refusal["type"] == 4 and refusal["data"]["flags"] == 64
    assert refusal["data"]["content"] == GONE


async def test_an_enforced_nonce_posts_once_within_the_window(discord_api):
    fake, http = discord_api
    channel, other = fake.add_channel(), fake.add_channel()
    payload = render(parts_of(story())[0])[0]
    once = {**payload, "nonce": "d1.0", "enforce_nonce": True}
    first = await send(http, channel, once)
    assert (await send(http, channel, once))["id"] == first["id"]
    assert (await send(http, other, once))["id"] != first["id"]  # per channel
    loose = {**payload, "nonce": "d1.0"}  # a nonce not enforced is only echoed
    assert (await send(http, channel, loose))["id"] != first["id"]
    fake.nonce_window = 0
    assert (await send(http, channel, once))["id"] != first["id"]
    assert len(fake.thread_messages(channel)) == 3


async def test_scripted_errors_and_denied_channels(discord_api):
    fake, http = discord_api
    channel = fake.add_channel()
    payload = render(parts_of(story())[0])[0]
    fake.script_error("messages", 503)
    with pytest.raises(discord.DiscordServerError):
        await send(http, channel, payload)
    posted = await send(http, channel, payload)
    thread = await http.start_thread_with_message(
        channel, posted["id"], name="t", auto_archive_duration=1440
    )
    fake.deny(channel, 50013)
    for target in (channel, thread["id"]):
        with pytest.raises(discord.Forbidden) as refused:
            await send(http, target, payload)
        assert refused.value.code == 50013
