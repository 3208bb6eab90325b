"""DiscordPlatform with discord.py's real HTTPClient against the loopback Discord
(tests/fakes/discord_rest.py), which checks every request against Discord's API description.

`discord.http.Route.BASE` is set to the loopback server: the one place discord.py keeps the
API's address, i.e. the far edge of the network."""

from __future__ import annotations

import asyncio
import re
import socket
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from functools import cache

import pytest
from aiohttp.test_utils import TestServer
from discord.http import HTTPClient, Route

from bot.delivery.parts import AckMark, ActionItemPart, Part, ReminderPart, item_part, parts_of
from bot.delivery.platform import Platform
from bot.discord.escape import ZWSP, escape_text
from bot.discord.platform import DiscordPlatform, discord_pacer, nonce_of
from bot.discord.render import edit_payload, render, thread_name
from bot.errors import PermanentError, RetryableError
from digest.compose import compose
from digest.model import Story
from tests.digest_data import (
    SHOWCASE_WINDOW,
    example_config,
    executorch,
    sectioned_story,
    window,
)
from tests.fakes.discord_rest import FakeDiscord, Limits

ROLE = 987654321098765432
FAST = 1000  # requests a second: pacing out of the way unless a test is about it


@cache
def story() -> Story:
    return compose(executorch(), config=example_config(), window=window(*SHOWCASE_WINDOW))


@pytest.fixture
async def discord_api(monkeypatch) -> AsyncIterator[tuple[FakeDiscord, HTTPClient]]:
    """A logged-in discord.py HTTPClient talking to a fresh loopback Discord."""
    fake = FakeDiscord(limits=Limits(messages=(5, 0.3), edits=(5, 0.3), threads=(5, 0.3)))
    server = TestServer(fake.app(), host="127.0.0.1")
    await server.start_server()
    monkeypatch.setattr(Route, "BASE", str(server.make_url("/api/v10")))
    http = HTTPClient(asyncio.get_running_loop())
    try:
        await http.static_login(fake.token)
        yield fake, http
        assert fake.problems == []
    finally:
        await http.close()
        await server.close()


def platform_for(http: HTTPClient, *, per_second: float = FAST) -> DiscordPlatform:
    return DiscordPlatform(http, oncall_role_id=ROLE, pacer=discord_pacer(per_second))


async def post_story(platform: DiscordPlatform, channel: str, s: Story, *, delivery: int = 1):
    """Post the parts in order as the delivery worker does; return their message ids."""
    ids: list[str] = []
    for part in parts_of(s):
        thread = ids[0] if ids else None
        ids.append(await platform.post(channel, part, thread, key=f"{delivery}.{part.index}"))
    return ids


def posted_bodies(fake: FakeDiscord, path_end: str = "/messages") -> list[dict]:
    return [body for method, path, body in fake.received if path.endswith(path_end)]


async def test_a_story_becomes_a_thread_started_from_its_parent(discord_api):
    fake, http = discord_api
    channel = fake.add_channel()
    platform = platform_for(http)
    assert isinstance(platform, Platform)
    ids = await post_story(platform, channel, story())
    parts = parts_of(story())
    parent_channel, parent = ids[0].split("/")
    assert parent_channel == channel and fake.messages[parent]["channel_id"] == channel
    thread = fake.threads[parent]
    assert thread["parent_id"] == channel and thread["name"] == thread_name(parts[0])
    replies = fake.thread_messages(parent)
    assert [f"{parent}/{m['id']}" for m in replies] == ids[1:]  # one message a part, in order
    expected = [render(part, oncall_role_id=ROLE)[0] for part in parts[1:]]
    assert [m["embeds"] for m in replies] == [p["embeds"] for p in expected]
    assert [m["nonce"] for m in replies] == [f"1.{part.index}" for part in parts[1:]]
    items = [p for p in parts if isinstance(p, ActionItemPart) and p.item.urgency == "immediate"]
    for part in items:
        button = fake.messages[ids[part.index].split("/")[1]]["components"][0]["components"][0]
        assert button["custom_id"] == f"wire:ack:{part.item.id}"
    assert all(body["enforce_nonce"] is True for body in posted_bodies(fake))
    assert fake.rate_limited == []


async def test_a_sectioned_story_posts_its_headings_in_the_body_embed(discord_api):
    fake, http = discord_api
    channel = fake.add_channel()
    weekly = sectioned_story()
    ids = await post_story(platform_for(http), channel, weekly)
    body = fake.thread_messages(ids[0].split("/")[1])[0]
    description = "".join(embed["description"] for embed in body["embeds"])
    headings = [line for line in description.split("\n") if line.startswith("**")]
    assert headings == [f"**{escape_text(s.heading)}**" for s in weekly.sections]


async def test_the_same_key_posts_once_even_from_a_fresh_process(discord_api):
    fake, http = discord_api
    channel = fake.add_channel()
    first = await post_story(platform_for(http), channel, story())
    count = len(fake.messages)
    assert await post_story(platform_for(http), channel, story()) == first  # Discord's nonce
    platform = platform_for(http)
    await post_story(platform, channel, story())
    sent = fake.requests["messages"]
    assert await post_story(platform, channel, story()) == first  # remembered: no request
    assert fake.requests["messages"] == sent
    assert len(fake.messages) == count and len(fake.threads) == 1


async def test_a_retry_after_a_crash_before_the_thread_gives_one_parent_one_thread(discord_api):
    fake, http = discord_api
    channel = fake.add_channel()
    parent = parts_of(story())[0]
    fake.script_error("threads", 503)
    with pytest.raises(RetryableError, match="start a thread"):
        await platform_for(http).post(channel, parent, None, key="7.0")
    again = platform_for(http)  # a new process: nothing remembered
    parent_id = await again.post(channel, parent, None, key="7.0")
    assert await platform_for(http).post(channel, parent, None, key="7.0") == parent_id
    assert len(fake.thread_messages(channel)) == 1 and list(fake.threads) == [
        parent_id.split("/")[1]
    ]
    assert fake.requests["threads"] == 3  # failed, created, "already created" (160004)


async def test_a_long_key_is_hashed_into_a_nonce_discord_accepts(discord_api):
    fake, http = discord_api
    channel = fake.add_channel()
    key = "1234567890123.r1234567890123"
    assert len(nonce_of(key)) == 25 and nonce_of(key) == nonce_of(key) != nonce_of(key + "x")
    body = parts_of(story())[1]
    platform = platform_for(http)
    parent = await platform.post(channel, parts_of(story())[0], None, key="1.0")
    first = await platform.post(channel, body, parent, key=key)
    assert await platform_for(http).post(channel, body, parent, key=key) == first
    assert fake.messages[first.split("/")[1]]["nonce"] == nonce_of(key)


async def test_route_and_global_429s_are_waited_out(discord_api):
    fake, http = discord_api
    channel = fake.add_channel()
    platform = platform_for(http)
    fake.script_429("messages", 0.2)
    started = time.monotonic()
    parent = await platform.post(channel, parts_of(story())[0], None, key="2.0")
    assert time.monotonic() - started >= 0.2
    fake.script_429("messages", 0.2, is_global=True)
    await platform.post(channel, parts_of(story())[1], parent, key="2.1")
    assert fake.rate_limited == [("0.200", False), ("0.200", True)]
    assert len(fake.thread_messages(parent.split("/")[1])) == 1


async def test_a_429_that_outlasts_discord_py_retries_is_retryable(discord_api):
    fake, http = discord_api
    channel = fake.add_channel()
    fake.script_429("messages", *[0.01] * 5)
    with pytest.raises(RetryableError, match="rate limited") as limited:
        await platform_for(http).post(channel, parts_of(story())[0], None, key="3.0")
    assert limited.value.retry_after == 1  # the Retry-After header, in whole seconds


async def test_pacing_keeps_a_fan_out_under_the_global_limit(discord_api):
    fake, http = discord_api
    fake.global_limit = 10
    channels = [fake.add_channel(f"c{n}") for n in range(6)]
    platform = platform_for(http, per_second=9)
    short = story().model_copy(update={"action_items": ()})
    started = time.monotonic()
    await asyncio.gather(
        *(post_story(platform, c, short, delivery=n) for n, c in enumerate(channels))
    )
    requests = fake.requests["messages"] + fake.requests["threads"]
    assert fake.rate_limited == []
    assert time.monotonic() - started >= (requests - 1) / 9


@pytest.mark.parametrize(
    ("code", "explains"),
    [(50001, "the bot cannot see the channel"), (50013, "Send Messages")],
)
async def test_a_403_is_permanent_says_why_and_stops_sends_to_that_channel(
    discord_api, code, explains
):
    fake, http = discord_api
    denied, other = fake.add_channel("denied"), fake.add_channel("other")
    fake.deny(denied, code)
    platform = platform_for(http)
    with pytest.raises(PermanentError) as refused:
        await platform.post(denied, parts_of(story())[0], None, key="4.0")
    assert str(code) in str(refused.value) and explains in str(refused.value)
    assert denied in str(refused.value) and fake.token not in str(refused.value)
    sent = fake.requests["messages"]
    with pytest.raises(PermanentError):
        await platform.post(denied, parts_of(story())[0], None, key="5.0")
    assert fake.requests["messages"] == sent  # not asked again: 403s count towards a ban
    assert await platform.post(other, parts_of(story())[0], None, key="6.0")


async def test_missing_thread_permission_names_it(discord_api):
    fake, http = discord_api
    channel = fake.add_channel()
    fake.script_error("threads", 403, 50013)
    with pytest.raises(PermanentError, match="Create Public Threads"):
        await platform_for(http).post(channel, parts_of(story())[0], None, key="4.0")


async def test_an_unknown_channel_is_permanent(discord_api):
    _, http = discord_api
    with pytest.raises(PermanentError, match="10003 the channel does not exist"):
        await platform_for(http).post("123456", parts_of(story())[0], None, key="1.0")


async def test_a_bad_token_stops_every_send(discord_api):
    fake, http = discord_api
    channels = [fake.add_channel(), fake.add_channel()]
    platform = platform_for(http)
    real = fake.token
    fake.token = "rotated-elsewhere"
    with pytest.raises(PermanentError, match="token is not valid") as refused:
        await platform.post(channels[0], parts_of(story())[0], None, key="1.0")
    assert real not in str(refused.value)
    sent = sum(fake.requests.values())
    with pytest.raises(PermanentError, match="no request is sent"):
        await platform.post(channels[1], parts_of(story())[0], None, key="2.0")
    assert sum(fake.requests.values()) == sent


async def test_server_errors_and_network_failures_are_retryable(discord_api, monkeypatch):
    fake, http = discord_api
    channel = fake.add_channel()
    platform = platform_for(http)
    fake.script_error("messages", 503)
    with pytest.raises(RetryableError, match="HTTP 503"):
        await platform.post(channel, parts_of(story())[0], None, key="1.0")
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    monkeypatch.setattr(Route, "BASE", f"http://127.0.0.1:{port}/api/v10")
    with pytest.raises(RetryableError, match="did not complete"):
        await platform.post(channel, parts_of(story())[0], None, key="1.0")


async def test_a_client_not_logged_in_yet_is_retryable_and_sends_nothing():
    http = HTTPClient(asyncio.get_running_loop())
    with pytest.raises(RetryableError, match="not logged in"):
        await DiscordPlatform(http).post("1", parts_of(story())[0], None, key="1.0")


HOSTILE = ("@everyone", "@here", "<@123>", f"<@&{ROLE}>", "<@&456>", "[x](https://evil)", "**")


UNESCAPED_MENTION = re.compile(r"(?<!\\)<[@#]")
UNESCAPED_BOLD = re.compile(r"(?<!\\)\*\*")


def texts(body: dict) -> list[str]:
    """The text a message shows: its content and its embeds' titles and descriptions."""
    embeds = body.get("embeds") or []
    return [body.get("content") or ""] + [
        e.get(k) or "" for e in embeds for k in ("title", "description")
    ]


def hostile_story() -> Story:
    text = " ".join(HOSTILE)
    s = story()
    items = tuple(i.model_copy(update={"text": f"{text} {i.text}"}) for i in s.action_items)
    refs = tuple(r.model_copy(update={"title": text}) for r in s.references)
    return s.model_copy(
        update={"headline": text, "lede": text, "action_items": items, "references": refs}
    )


async def test_hostile_titles_cannot_ping_or_link(discord_api):
    fake, http = discord_api
    channel = fake.add_channel()
    platform = platform_for(http)
    s = hostile_story()
    ids = await post_story(platform, channel, s)
    hot = next(p for p in parts_of(s) if isinstance(p, ActionItemPart))
    reminder: Part = ReminderPart(index=9, story_id=s.id, item=hot.item, oncall=str(ROLE))
    await platform.post(channel, reminder, ids[0], key="1.r9")
    bodies = posted_bodies(fake)
    assert len(bodies) == len(ids) + 1
    for body in bodies:
        mentions = body["allowed_mentions"]
        assert mentions["parse"] == [] and mentions["users"] == []
        assert set(mentions["roles"]) <= {str(ROLE)}
        for text in texts(body):
            assert "@everyone" not in text and "@here" not in text
            assert "[x](" not in text and not UNESCAPED_BOLD.search(text)
            assert not UNESCAPED_MENTION.search(text.replace(f"<@&{ROLE}> ⏰", ""))
    shown = [text for body in bodies for text in texts(body)]
    assert sum(f"@{ZWSP}everyone" in text for text in shown) >= len(ids)  # escaped, not lost
    pinged = [m for m in fake.messages.values() if m["mention_roles"] or m["mention_everyone"]]
    assert [m["mention_roles"] for m in pinged] == [[str(ROLE)]]  # the reminder, on purpose
    assert pinged[0]["content"].startswith(f"<@&{ROLE}> ")


async def test_update_edits_the_item_message_in_its_thread(discord_api):
    fake, http = discord_api
    channel = fake.add_channel()
    platform = platform_for(http)
    ids = await post_story(platform, channel, story())
    part = next(p for p in parts_of(story()) if isinstance(p, ActionItemPart))
    ack = AckMark(user_name="ana <@1>", acked_at=datetime(2026, 5, 26, 9, 15, tzinfo=UTC))
    acked = item_part(story(), part.item.id, [ack])
    await platform.update(channel, ids[part.index], acked)
    thread, message = ids[part.index].split("/")
    assert thread == ids[0].split("/")[1]
    edits = [(m, p, b) for m, p, b in fake.received if m == "PATCH"]
    assert edits == [
        ("PATCH", f"/api/v10/channels/{thread}/messages/{message}", edit_payload(acked))
    ]
    edited = fake.messages[message]
    assert edited["edited_timestamp"] is not None and edited["channel_id"] == thread
    assert edited["embeds"][0]["footer"]["text"].startswith("✓ Acknowledged by ana <@1>")
    assert edited["mention_roles"] == [] and not edited["mention_everyone"]
    others = [m for m in fake.messages.values() if m["id"] != message]
    assert all(m["edited_timestamp"] is None for m in others)


async def test_a_part_too_big_for_one_message_continues_in_the_thread(discord_api):
    fake, http = discord_api
    channel = fake.add_channel()
    big = story().model_copy(update={"lede": "word " * 2000})
    parent_part = parts_of(big)[0]
    payloads = render(parent_part, oncall_role_id=ROLE)
    assert len(payloads) == 2
    parent = await platform_for(http).post(channel, parent_part, None, key="8.0")
    thread = parent.split("/")[1]
    assert [m["nonce"] for m in fake.thread_messages(channel)] == ["8.0"]
    [rest] = fake.thread_messages(thread)
    assert rest["nonce"] == "8.0+1" and rest["embeds"] == payloads[1]["embeds"]


async def test_a_refused_channel_is_tried_again_once_its_pause_is_over(discord_api):
    fake, http = discord_api
    channel = fake.add_channel()
    platform = DiscordPlatform(http, pacer=discord_pacer(FAST), refused_for=0.2)
    fake.deny(channel)
    with pytest.raises(PermanentError, match="50001"):
        await platform.post(channel, parts_of(story())[0], None, key="1.0")
    del fake.denied[channel]  # someone fixed the channel's permissions
    with pytest.raises(PermanentError, match=r"not retried for 0\.2 s"):
        await platform.post(channel, parts_of(story())[0], None, key="1.0")
    await asyncio.sleep(0.2)
    assert await platform.post(channel, parts_of(story())[0], None, key="1.0")


async def test_editing_a_message_that_is_gone_is_permanent(discord_api):
    fake, http = discord_api
    channel = fake.add_channel()
    with pytest.raises(PermanentError, match="10008 the message no longer exists"):
        await platform_for(http).update(channel, f"{channel}/42", parts_of(story())[0])
    with pytest.raises(PermanentError, match="not a Discord message id"):
        await platform_for(http).update(channel, "42", parts_of(story())[0])
