"""A parent an earlier process posted, and never recorded, is found on the platform before the
delivery's next attempt posts it again: Slack by the key in the message metadata among the
channel's history (paged), Discord by this bot's message with the parent's embeds once its
nonce (a few minutes) has expired. Real slack-sdk and discord.py clients against the
loopback fakes, which answer as Slack and Discord do."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from functools import cache

import pytest
from aiohttp.test_utils import TestServer
from discord.http import HTTPClient, Route
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.delivery.pacing import Pacer
from bot.delivery.parts import ParentPart, parts_of
from bot.delivery.platform import Resumable
from bot.discord.platform import DiscordPlatform, discord_pacer
from bot.errors import RetryableError
from bot.slack.platform import HISTORY_PAGE, SlackPlatform
from digest.compose import compose
from digest.model import Story
from tests.digest_data import (
    SHOWCASE_WINDOW,
    example_config,
    executorch,
    sectioned_story,
    window,
)
from tests.fakes.discord_rest import FakeDiscord
from tests.fakes.slack_server import FakeSlack

TOKEN = "xoxb-wire-test"
CHANNEL = "C0WIRE0001"


@cache
def story() -> Story:
    return compose(executorch(), config=example_config(), window=window(*SHOWCASE_WINDOW))


def parent_part() -> ParentPart:
    part = parts_of(story())[0]
    assert isinstance(part, ParentPart)
    return part


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    async with FakeSlack(tokens=[TOKEN], per_channel_interval=0.0) as server:
        yield server


@pytest.fixture
async def slack_platforms(slack: FakeSlack) -> AsyncIterator[list[SlackPlatform]]:
    """Each platform a test makes stands for one process; all are closed at teardown."""
    made: list[SlackPlatform] = []
    yield made
    for platform in made:
        await platform.close()


def slack_process(slack: FakeSlack, made: list[SlackPlatform]) -> SlackPlatform:
    """A fresh SlackPlatform: what a restarted process has, remembering nothing."""
    client = AsyncWebClient(token=TOKEN, base_url=slack.url)
    made.append(SlackPlatform(client, pacer=Pacer(per_channel_interval=0.0, burst=1_000)))
    return made[-1]


def parents(slack: FakeSlack, channel: str = CHANNEL) -> list[str]:
    return [m.ts for m in slack.messages.get(channel, []) if m.thread_ts is None]


async def test_slack_finds_a_parent_posted_before_a_restart_below_pages_of_newer_messages(
    slack: FakeSlack, slack_platforms: list[SlackPlatform]
) -> None:
    dead = slack_process(slack, slack_platforms)
    ts = await dead.post(CHANNEL, parent_part(), None, key="d9.0")  # then the process died
    others = AsyncWebClient(token=TOKEN, base_url=slack.url)  # a busy channel meanwhile
    for n in range(HISTORY_PAGE + 50):
        await others.chat_postMessage(channel=CHANNEL, text=f"another app's message {n}")
    if others.session is not None:
        await others.session.close()

    restarted = slack_process(slack, slack_platforms)
    assert isinstance(restarted, Resumable)
    restarted.may_have_posted(CHANNEL, "d9.0")  # the worker: attempted before
    assert await restarted.post(CHANNEL, parent_part(), None, key="d9.0") == ts
    keyed = [m for m in slack.messages[CHANNEL] if m.metadata]
    assert [m.ts for m in keyed] == [ts]
    reads = slack.calls("conversations.history")
    assert len(reads) == 2 and "cursor" in reads[1].params  # a second page, by Slack's cursor
    assert slack.problems == []


async def test_slack_posts_the_parent_once_when_the_channel_may_not_be_read(
    slack: FakeSlack, slack_platforms: list[SlackPlatform], caplog: pytest.LogCaptureFixture
) -> None:
    """Without the channels:history scope the check cannot be made: the story is posted
    (with a warning) rather than never delivered."""
    slack.fail("conversations.history", error="missing_scope")
    restarted = slack_process(slack, slack_platforms)
    restarted.may_have_posted(CHANNEL, "d3.0")
    with caplog.at_level(logging.WARNING, logger="bot.slack.platform"):
        ts = await restarted.post(CHANNEL, parent_part(), None, key="d3.0")
    assert parents(slack) == [ts]
    assert "could not read Slack channel C0WIRE0001 to resume" in caplog.text


async def test_slack_holds_the_parent_back_while_the_channel_cannot_be_read(
    slack: FakeSlack, slack_platforms: list[SlackPlatform]
) -> None:
    dead = slack_process(slack, slack_platforms)
    ts = await dead.post(CHANNEL, parent_part(), None, key="d4.0")
    slack.fail("conversations.history", status=503, error="service_unavailable", times=3)
    restarted = slack_process(slack, slack_platforms)
    restarted.may_have_posted(CHANNEL, "d4.0")
    with pytest.raises(RetryableError, match=r"conversations\.history"):
        await restarted.post(CHANNEL, parent_part(), None, key="d4.0")
    assert await restarted.post(CHANNEL, parent_part(), None, key="d4.0") == ts
    assert parents(slack) == [ts]


async def test_the_fake_slack_pages_and_checks_history_as_slack_does(slack: FakeSlack) -> None:
    client = AsyncWebClient(token=TOKEN, base_url=slack.url)
    try:
        for n in range(5):
            await client.chat_postMessage(channel=CHANNEL, text=f"message {n}")
        first = await client.conversations_history(channel=CHANNEL, limit=3)
        cursor = first["response_metadata"]["next_cursor"]
        rest = await client.conversations_history(channel=CHANNEL, limit=3, cursor=cursor)
        texts = [m["text"] for m in [*first["messages"], *rest["messages"]]]
        assert texts == [f"message {n}" for n in (4, 3, 2, 1, 0)]
        assert first["has_more"] and not rest["has_more"]
        assert "response_metadata" not in rest.data
        oldest = first["messages"][1]["ts"]
        newer = await client.conversations_history(channel=CHANNEL, oldest=oldest)
        assert [m["text"] for m in newer["messages"]] == ["message 4"]
        with pytest.raises(SlackApiError, match="invalid_arguments"):
            await client.api_call("conversations.history", params={"limit": 2})
        assert slack.problems == ["conversations.history: missing required parameter 'channel'"]
    finally:
        if client.session is not None:
            await client.session.close()


# ---- Discord ------------------------------------------------------------------------------


@pytest.fixture
async def discord_api(monkeypatch) -> AsyncIterator[tuple[FakeDiscord, HTTPClient]]:
    """A logged-in discord.py HTTPClient and a loopback Discord whose nonces expire at once,
    as they have by the time a killed process's lease (5 minutes) lets another retry."""
    fake = FakeDiscord(nonce_window=0.0)
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


def discord_process(http: HTTPClient) -> DiscordPlatform:
    """A fresh DiscordPlatform: what a restarted process has, remembering nothing."""
    return DiscordPlatform(http, pacer=discord_pacer(1_000))


def discord_parents(fake: FakeDiscord, channel: str) -> list[str]:
    return [m["id"] for m in fake.thread_messages(channel)]


async def test_discord_finds_a_parent_posted_before_a_restart_after_its_nonce_expired(
    discord_api,
) -> None:
    fake, http = discord_api
    channel = fake.add_channel()
    first = await discord_process(http).post(channel, parent_part(), None, key="5.0")
    another = parts_of(sectioned_story())[0]  # another story's parent, posted since
    await discord_process(http).post(channel, another, None, key="6.0")
    restarted = discord_process(http)
    assert isinstance(restarted, Resumable)
    restarted.may_have_posted(channel, "5.0")  # the worker: attempted before
    assert await restarted.post(channel, parent_part(), None, key="5.0") == first
    assert len(discord_parents(fake, channel)) == 2  # 5.0 once, and the other delivery's
    assert next(iter(fake.threads)) == first.split("/")[1] and len(fake.threads) == 2
    assert fake.requests["history"] == 1


async def test_discord_takes_no_other_authors_message_for_the_parent(discord_api) -> None:
    fake, http = discord_api
    channel = fake.add_channel()
    await discord_process(http).post(channel, parent_part(), None, key="5.0")
    for message in fake.messages.values():  # the same embeds, posted by someone else
        message["author"] = {**message["author"], "id": "1100000000000000999"}
    restarted = discord_process(http)
    restarted.may_have_posted(channel, "5.0")
    second = await restarted.post(channel, parent_part(), None, key="5.0")
    assert len(discord_parents(fake, channel)) == 2 and second.split("/")[1] in fake.threads


async def test_discord_posts_the_parent_once_when_the_channel_may_not_be_read(
    discord_api, caplog: pytest.LogCaptureFixture
) -> None:
    fake, http = discord_api
    channel = fake.add_channel()
    fake.script_error("history", 403, 50001)
    restarted = discord_process(http)
    restarted.may_have_posted(channel, "5.0")
    with caplog.at_level(logging.WARNING, logger="bot.discord.platform"):
        first = await restarted.post(channel, parent_part(), None, key="5.0")
    assert discord_parents(fake, channel) == [first.split("/")[1]]
    assert f"could not read Discord channel {channel} to resume" in caplog.text


async def test_the_fake_discord_lists_messages_as_discord_does(discord_api) -> None:
    fake, http = discord_api
    channel = fake.add_channel()
    platform = discord_process(http)
    posted = [await platform.post(channel, parent_part(), None, key=f"{n}.0") for n in range(3)]
    ids = [p.split("/")[1] for p in posted]
    newest_first = await http.logs_from(channel, 2)
    assert [m["id"] for m in newest_first] == ids[::-1][:2]
    assert all("nonce" not in m for m in newest_first)  # Discord keeps no nonce
    older = await http.logs_from(channel, 50, before=ids[2])
    assert [m["id"] for m in older] == ids[1::-1]
    with pytest.raises(Exception, match="Invalid Form Body"):
        await http.logs_from(channel, 101)
    assert fake.problems == [
        f"GET /api/v10/channels/{channel}/messages: limit must be 1 to 100: '101'"
    ]
    fake.problems.clear()
