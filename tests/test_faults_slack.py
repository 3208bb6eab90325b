"""A Slack post whose answer is lost (it landed; the connection broke before the reply) is
not posted again: the retry reads the channel (a parent) or the thread (a reply) first.
The loopback Slack sits behind a TCP proxy that drops its answers on demand."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from yarl import URL

from bot.delivery.pacing import Pacer
from bot.delivery.parts import parts_of
from bot.errors import RetryableError
from bot.slack.platform import SlackPlatform, slack_client
from tests.conftest import build_story
from tests.fakes.slack_server import FakeSlack
from tests.fakes.tcp_proxy import TcpProxy

TOKEN = "xoxb-wire-test"
CHANNEL = "C0WIRE0001"


def platform_at(base_url: str) -> SlackPlatform:
    client = slack_client(TOKEN, base_url=base_url, timeout=5)
    return SlackPlatform(client, pacer=Pacer(per_channel_interval=0, burst=100))


@asynccontextmanager
async def behind_a_proxy() -> AsyncIterator[tuple[FakeSlack, TcpProxy, SlackPlatform]]:
    """The loopback Slack, a TCP proxy in front of it and a platform that posts through it."""
    async with FakeSlack(tokens=[TOKEN], per_channel_interval=0) as slack:
        url = URL(slack.url)
        async with TcpProxy(url.host or "127.0.0.1", url.port or 80) as proxy:
            platform = platform_at(f"http://127.0.0.1:{proxy.port}/api/")
            try:
                yield slack, proxy, platform
            finally:
                await platform.close()


async def test_a_post_whose_answer_was_lost_is_not_posted_twice() -> None:
    parent, body, *_ = parts_of(build_story())
    async with behind_a_proxy() as (slack, proxy, platform):
        proxy.mode = "lose_answers"
        with pytest.raises(RetryableError):
            await platform.post(CHANNEL, parent, None, key="7.0")
        assert len(slack.messages[CHANNEL]) == 1  # it did land
        proxy.mode = "forward"
        ts = await platform.post(CHANNEL, parent, None, key="7.0")
        assert [m.ts for m in slack.messages[CHANNEL]] == [ts]  # found, not reposted

        proxy.mode = "lose_answers"
        with pytest.raises(RetryableError):
            await platform.post(CHANNEL, body, ts, key="7.1")
        proxy.mode = "forward"
        reply = await platform.post(CHANNEL, body, ts, key="7.1")
        keys = [m.metadata["event_payload"]["key"] for m in slack.messages[CHANNEL]]
        assert keys == ["7.0", "7.1"] and slack.messages[CHANNEL][1].ts == reply
        assert slack.problems == []
    assert proxy.faults == 2


async def test_a_lost_reply_is_not_posted_again_while_its_thread_cannot_be_read() -> None:
    """The reply's answer was lost; on the retry the thread read fails (HTTP 503, each of
    slack-sdk's tries) while posting would work. Posting then could repeat the reply, so the
    attempt fails as retryable; the next one reads the thread and finds the reply."""
    parent, body, *_ = parts_of(build_story())
    async with behind_a_proxy() as (slack, proxy, platform):
        ts = await platform.post(CHANNEL, parent, None, key="8.0")
        proxy.mode = "lose_answers"
        with pytest.raises(RetryableError):
            await platform.post(CHANNEL, body, ts, key="8.1")
        proxy.mode = "forward"
        slack.fail("conversations.replies", status=503, error="service_unavailable", times=3)
        with pytest.raises(RetryableError, match=r"conversations\.replies"):
            await platform.post(CHANNEL, body, ts, key="8.1")
        assert len(slack.messages[CHANNEL]) == 2  # nothing posted blind
        reply = await platform.post(CHANNEL, body, ts, key="8.1")
        keys = [m.metadata["event_payload"]["key"] for m in slack.messages[CHANNEL]]
        assert keys == ["8.0", "8.1"] and slack.messages[CHANNEL][1].ts == reply
        assert len(slack.calls("conversations.replies")) == 4
        assert slack.problems == []


async def test_a_thread_the_app_may_not_read_is_posted_to_without_resuming() -> None:
    """A refusal (here `missing_scope`) will not pass with time: the reply is posted, as
    before there was any resuming, rather than held back for ever."""
    parent, body, *_ = parts_of(build_story())
    async with FakeSlack(tokens=[TOKEN], per_channel_interval=0) as slack:
        platform = platform_at(slack.url)
        try:
            ts = await platform.post(CHANNEL, parent, None, key="9.0")
            fresh = platform_at(slack.url)  # fresh memory, as after a restart
            try:
                slack.fail("conversations.replies", error="missing_scope")
                await fresh.post(CHANNEL, body, ts, key="9.1")
            finally:
                await fresh.close()
        finally:
            await platform.close()
        keys = [m.metadata["event_payload"]["key"] for m in slack.messages[CHANNEL]]
        assert keys == ["9.0", "9.1"]
