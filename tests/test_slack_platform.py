"""SlackPlatform with the real slack-sdk AsyncWebClient against a loopback Slack
(tests/fakes/slack_server.py), which checks every request against Slack's API description."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import AsyncRateLimitErrorRetryHandler
from slack_sdk.web.async_client import AsyncWebClient

from bot.delivery.pacing import Pacer
from bot.delivery.parts import AckMark, ActionItemPart, item_part, parts_of
from bot.delivery.platform import Platform
from bot.errors import PermanentError, RetryableError
from bot.slack.limits import ACK_ACTION_ID
from bot.slack.platform import EVENT_TYPE, SlackPlatform
from bot.slack.render import render
from digest.compose import compose
from digest.model import Reference, Story
from tests.digest_data import (
    SHOWCASE_WINDOW,
    example_config,
    executorch,
    sectioned_story,
    window,
)
from tests.fakes.slack_server import FakeSlack

TOKEN = "xoxb-wire-test"
CHANNEL = "C0WIRE0001"
GAP = 0.05  # the fake's per-channel limit and our pacing, shortened for tests


@pytest.fixture(scope="module")
def story() -> Story:
    return compose(executorch(), config=example_config(), window=window(*SHOWCASE_WINDOW))


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    server = FakeSlack(tokens=[TOKEN], not_member=["C0OUTSIDE1"], per_channel_interval=GAP)
    async with server:
        yield server
    assert server.problems == []


@pytest.fixture(autouse=True)
async def _close_platforms() -> AsyncIterator[None]:
    """Every platform a test builds closes its kept-alive session at teardown, as the
    service closes its adapters."""
    yield
    while BUILT:
        await BUILT.pop().close()


BUILT: list[SlackPlatform] = []


def platform_for(slack: FakeSlack, *, token: str = TOKEN, **client_kwargs) -> SlackPlatform:
    client = AsyncWebClient(token=token, base_url=slack.url, **client_kwargs)
    BUILT.append(SlackPlatform(client, pacer=Pacer(per_channel_interval=GAP)))
    return BUILT[-1]


async def post_story(platform: SlackPlatform, story: Story, *, delivery: str = "d1") -> list[str]:
    """Post the parts in order as the delivery worker does; return their message ids."""
    ids: list[str] = []
    for part in parts_of(story):
        thread = ids[0] if ids else None
        ids.append(await platform.post(CHANNEL, part, thread, key=f"{delivery}.{part.index}"))
    return ids


async def test_a_story_becomes_a_thread_of_block_kit_messages(slack: FakeSlack, story: Story):
    platform = platform_for(slack)
    assert isinstance(platform, Platform)
    ids = await post_story(platform, story)
    parent = ids[0]
    thread = slack.thread(CHANNEL, parent)
    assert [m.ts for m in thread] == ids
    assert thread[0].thread_ts is None
    assert all(m.thread_ts == parent for m in thread[1:])
    for message, part in zip(thread, parts_of(story), strict=True):
        assert message.blocks == list(render(part)[0].blocks)
        assert message.metadata == {
            "event_type": EVENT_TYPE,
            "event_payload": {"key": f"d1.{part.index}"},
        }
        assert message.params["unfurl_links"] is False and message.params["unfurl_media"] is False
    assert thread[0].blocks[0]["text"]["text"] == story.headline
    assert not [r for r in slack.requests if r.status == 429]  # pacing kept us under the limit


async def test_a_sectioned_story_posts_its_headings_in_the_body_message(slack: FakeSlack):
    weekly = sectioned_story()
    ids = await post_story(platform_for(slack), weekly)
    body = slack.thread(CHANNEL, ids[0])[1]
    texts = [block["text"]["text"] for block in body.blocks]
    assert [t.split("\n", 1)[0] for t in texts] == [f"*{s.heading}*" for s in weekly.sections]
    assert [b["type"] for b in body.blocks] == ["section"] * len(weekly.sections)


async def test_posts_share_one_kept_alive_connection_until_closed(slack: FakeSlack, story: Story):
    platform = platform_for(slack)
    await post_story(platform, story)
    peers = {r.peer for r in slack.requests if r.method == "chat.postMessage"}
    assert len(slack.calls("chat.postMessage")) == len(parts_of(story)) and len(peers) == 1
    session = platform.client.session
    await platform.close()
    assert session is not None and session.closed and platform.client.session is None
    await platform.close()  # twice is harmless


async def test_the_same_key_posts_once(slack: FakeSlack, story: Story):
    platform = platform_for(slack)
    first = await post_story(platform, story)
    again = await post_story(platform, story)
    assert again == first
    assert len(slack.messages[CHANNEL]) == len(first)


async def test_a_restarted_process_finds_replies_already_posted(slack: FakeSlack, story: Story):
    before = platform_for(slack)
    parts = parts_of(story)
    parent = await before.post(CHANNEL, parts[0], None, key="d7.0")
    body = await before.post(CHANNEL, parts[1], parent, key="d7.1")
    after = platform_for(slack)  # fresh memory, as after a crash before the worker recorded
    assert await after.post(CHANNEL, parts[1], parent, key="d7.1") == body
    await after.post(CHANNEL, parts[2], parent, key="d7.2")
    assert len(slack.thread(CHANNEL, parent)) == 3
    assert len(slack.calls("conversations.replies")) == 1


async def test_an_item_message_is_updated_with_acks(slack: FakeSlack, story: Story):
    platform = platform_for(slack)
    ids = await post_story(platform, story)
    part = next(p for p in parts_of(story) if isinstance(p, ActionItemPart))
    acks = [AckMark("ana", datetime(2026, 5, 26, 9, 15, tzinfo=UTC))]
    await platform.update(CHANNEL, ids[part.index], item_part(story, part.item.id, acks))
    [message] = [m for m in slack.messages[CHANNEL] if m.ts == ids[part.index]]
    assert len(message.edits) == 1
    assert message.blocks[0]["accessory"]["action_id"] == ACK_ACTION_ID
    assert "Acknowledged by ana" in message.blocks[-1]["elements"][0]["text"]


async def test_a_part_too_big_for_one_message_continues_in_the_thread(
    slack: FakeSlack, story: Story
):
    refs = tuple(
        Reference(n=i, repo="o/r", number=i, title=f"Change {i} " * 30, url=f"https://x.org/{i}")
        for i in range(1, 700)
    )
    big = story.model_copy(update={"references": refs})
    platform = platform_for(slack)
    parent = await platform.post(CHANNEL, parts_of(big)[0], None, key="d9.0")
    first = await platform.post(CHANNEL, parts_of(big)[-1], parent, key="d9.5")
    thread = slack.thread(CHANNEL, parent)
    assert len(thread) == 1 + len(render(parts_of(big)[-1])) > 2
    assert thread[1].ts == first and all(m.thread_ts == parent for m in thread[1:])
    assert [m.metadata["event_payload"]["key"] for m in thread[1:3]] == ["d9.5", "d9.5+1"]


async def test_a_429_is_retried_after_retry_after(slack: FakeSlack, story: Story):
    platform = platform_for(slack)
    slack.fail("chat.postMessage", status=429, error="ratelimited", retry_after=1)
    started = time.monotonic()
    ts = await platform.post(CHANNEL, parts_of(story)[0], None, key="d2.0")
    assert time.monotonic() - started >= 1
    assert [r.status for r in slack.calls("chat.postMessage")] == [429, 200]
    assert slack.thread(CHANNEL, ts)


async def test_rate_limits_and_server_errors_are_retryable(slack: FakeSlack, story: Story):
    platform = platform_for(
        slack, retry_handlers=[AsyncRateLimitErrorRetryHandler(max_retry_count=0)]
    )
    parent = parts_of(story)[0]
    slack.fail("chat.postMessage", status=429, error="ratelimited", retry_after=7)
    with pytest.raises(RetryableError) as limited:
        await platform.post(CHANNEL, parent, None, key="d3.0")
    assert limited.value.retry_after == 7
    assert platform.pacer._next[CHANNEL] > time.monotonic() + 6  # and pacing holds the channel
    slack.fail("chat.postMessage", status=502, error="bad_gateway")
    with pytest.raises(RetryableError, match="HTTP 502"):
        await platform.post("C0WIRE0002", parent, None, key="d3.1")
    slack.fail("chat.postMessage", status=503, error="service_unavailable")
    assert await platform.post("C0WIRE0002", parent, None, key="d3.2")  # retried by slack-sdk


@pytest.mark.parametrize(
    ("channel", "token", "error", "reason"),
    [
        ("C0MISSING1", TOKEN, "channel_not_found", "does not exist"),
        ("C0OUTSIDE1", TOKEN, "not_in_channel", "/invite"),
        (CHANNEL, "xoxb-revoked", "invalid_auth", "token is not valid"),
    ],
)
async def test_refusals_are_permanent_and_say_why(slack, story, channel, token, error, reason):
    platform = platform_for(slack, token=token)
    with pytest.raises(PermanentError) as refused:
        await platform.post(channel, parts_of(story)[0], None, key="d4.0")
    message = str(refused.value)
    assert error in message and reason in message and channel in message
    assert token not in message


async def test_editing_a_missing_message_is_permanent(slack: FakeSlack, story: Story):
    platform = platform_for(slack)
    with pytest.raises(PermanentError, match="message_not_found"):
        await platform.update(CHANNEL, "1.000001", parts_of(story)[0])


async def test_the_fake_rejects_what_slack_would(slack: FakeSlack):
    client = AsyncWebClient(token=TOKEN, base_url=slack.url)
    oversized = [{"type": "section", "text": {"type": "mrkdwn", "text": "x" * 3001}}]
    for body in (
        {"channel": CHANNEL, "text": "x", "colour": "red"},
        {"channel": CHANNEL, "text": "x", "blocks": oversized},
    ):
        with pytest.raises(SlackApiError) as refused:
            await client.api_call("chat.postMessage", json=body)
        assert refused.value.response["error"] == "invalid_arguments"
    assert len(slack.problems) == 2
    slack.problems.clear()
    auth = await client.auth_test()
    assert auth["ok"] and auth["user_id"]
    posted = await client.chat_postMessage(channel=CHANNEL, text="hello")
    await client.reactions_add(channel=CHANNEL, timestamp=posted["ts"], name="eyes")
    await client.reactions_remove(channel=CHANNEL, timestamp=posted["ts"], name="eyes")
    assert [r.status for r in slack.calls("reactions.add")] == [200]
