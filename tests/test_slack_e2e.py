"""End to end on Slack: a channel subscribes with `/wire`, the scheduler runs at the demo's
clock, the story arrives on the loopback Slack as one thread, and people acknowledge its
action items with the button and with ✅; untrusted titles never ping; an unacknowledged
[immediate] item gets one reminder naming the on-call user group."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
import time_machine

from bot.delivery.parts import parts_of
from bot.slack.limits import ACK_ACTION_ID
from bot.store import utcnow
from tests.fakes.slack_server import FakeSlack, Message, block_texts
from tests.slack_requests import (
    DEMO_NOW,
    ROOT,
    SECRET,
    TOKEN,
    block_actions,
    demo_config,
    eventually,
    reaction_added,
    slack_service,
    slash_command,
)

CHANNEL = "C0WIRE0001"
PEOPLE = {"U0ANA0001": "Ana Lima", "U0BEN0002": "Ben Okafor", "U0CAT0003": "Cat Ito"}
HOSTILE = ["<!channel>", "<!here>", "<@U123>", "<https://evil.example|click>", "&lt;"]


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    server = FakeSlack(tokens=[TOKEN], per_channel_interval=0.02, users=PEOPLE)
    async with server:
        yield server
    assert server.problems == []


async def subscribe(sender, slack: FakeSlack, target: str) -> None:
    body = slash_command(
        f"subscribe {target}",
        channel=CHANNEL,
        user_id="U0ANA0001",
        user_name="ana",
        response_url=slack.hook_url(f"subscribe-{target}"),
    )
    assert (await sender.post(body)).status_code == 200
    [answer] = await eventually(lambda: slack.responses_to(f"subscribe-{target}"))
    assert "Subscribed this channel" in answer.body["text"]


def item_messages(thread: list[Message]) -> list[Message]:
    return [m for m in thread if m.blocks and m.blocks[0].get("accessory")]


def ack_lines(message: Message) -> list[str]:
    return [t for t in block_texts(message.blocks) if "Acknowledged by" in t]


async def press(sender, slack: FakeSlack, message: Message, user_id: str, name: str) -> None:
    button = message.blocks[0]["accessory"]
    assert button["action_id"] == ACK_ACTION_ID
    body = block_actions(
        value=button["value"],
        channel=CHANNEL,
        message_ts=message.ts,
        user_id=user_id,
        user_name=name,
        response_url=slack.hook_url(f"press-{message.ts}-{user_id}"),
    )
    assert (await sender.post(body)).status_code == 200


async def test_a_subscribed_channel_gets_its_story_as_a_thread_and_acks_show_on_it(
    tmp_path: Path, slack: FakeSlack
) -> None:
    async with slack_service(tmp_path, slack.url) as (service, sender):
        await subscribe(sender, slack, "executorch")
        await subscribe(sender, slack, "ci-infra")
        report = await service.run_once(now=DEMO_NOW)
        assert report.delivered.delivered == 1 and report.delivered.dead == 0

        # one thread: the parent, then every other part as a reply to it, in order
        [parent] = [m for m in slack.messages[CHANNEL] if m.thread_ts is None]
        thread = slack.thread(CHANNEL, parent.ts)
        assert thread == slack.messages[CHANNEL] and thread[0] is parent
        assert [m.params.get("thread_ts") for m in thread[1:]] == [parent.ts] * (len(thread) - 1)
        [info] = await service.store.listing.list(platform="slack", channel=CHANNEL)
        story = await service.store.stories.get(info.story_id)
        assert story is not None and parent.blocks[0]["text"]["text"] == story.headline
        assert len(thread) == len(parts_of(story)) == report.delivered.parts_posted
        values = [m.blocks[0]["accessory"]["value"] for m in item_messages(thread)]
        assert values == [i.id for i in story.action_items]
        first, *others = item_messages(thread)
        assert others, "the demo story has at least two action items"
        untouched = [m for m in slack.messages[CHANNEL] if m is not first]

        # Acknowledge: exactly that message is edited, showing who
        await press(sender, slack, first, "U0ANA0001", "ana")
        await eventually(lambda: first.edits)
        assert ack_lines(first) and "ana" in ack_lines(first)[0]
        # a second person's ack is added, not lost
        await press(sender, slack, first, "U0BEN0002", "ben")
        await eventually(lambda: len(first.edits) == 2)
        [line] = ack_lines(first)
        assert "Acknowledged by ana" in line and "Acknowledged by ben" in line
        assert line.count("<!date^") == 2  # when, in each reader's time zone
        # the same person again changes nothing, and is told so
        await press(sender, slack, first, "U0BEN0002", "ben")
        [told] = await eventually(lambda: slack.responses_to(f"press-{first.ts}-U0BEN0002"))
        assert told.ephemeral and "already acknowledged" in told.body["text"]
        assert len(first.edits) == 2

        # ✅ (any skin tone) on another item's message acknowledges it, by display name
        second = others[0]
        await sender.event(
            reaction_added(
                "white_check_mark::skin-tone-3", channel=CHANNEL, ts=second.ts, user_id="U0CAT0003"
            )
        )
        await eventually(lambda: second.edits)
        assert "Acknowledged by Cat Ito" in ack_lines(second)[0]
        assert len(slack.calls("users.info")) == 1

        # other reactions, and ✅ on a message that is not an item's, do nothing
        await sender.event(
            reaction_added("heart_eyes", channel=CHANNEL, ts=others[-1].ts, user_id="U0CAT0003")
        )
        await sender.event(
            reaction_added(
                "white_check_mark", channel=CHANNEL, ts=thread[0].ts, user_id="U0CAT0003"
            )
        )
        await sender.post(  # a last request, so the ones before it have been handled
            slash_command(
                "list",
                channel=CHANNEL,
                user_id="U0ANA0001",
                user_name="ana",
                response_url=slack.hook_url("list"),
            )
        )
        await eventually(lambda: slack.responses_to("list"))
        assert [m for m in untouched if m.edits] == [second]
        assert len(slack.calls("chat.update")) == 3
        acks = await service.store.acks.for_item(
            second.blocks[0]["accessory"]["value"], channel=CHANNEL
        )
        assert [a.user_name for a in acks] == ["Cat Ito"]


def hostile_activity(tmp_path: Path) -> Path:
    """The demo's recorded activity with hostile text in every commit's title line."""
    lines = []
    for line in (ROOT / "demo/activity.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        title, _, rest = record["message"].partition("\n")
        record["message"] = f"{title} {' '.join(HOSTILE)}\n{rest}"
        lines.append(json.dumps(record))
    path = tmp_path / "hostile.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


ANGLE = re.compile(r"<([^<>]*)>")


async def test_hostile_titles_are_delivered_without_pinging_or_linking(
    tmp_path: Path, slack: FakeSlack
) -> None:
    config = demo_config(tmp_path, activity=hostile_activity(tmp_path))
    async with slack_service(tmp_path, slack.url, config=config) as (service, sender):
        await subscribe(sender, slack, "executorch")
        await subscribe(sender, slack, "ci-infra")
        report = await service.run_once(now=DEMO_NOW)
        assert report.delivered.delivered == 1
        references = set()
        for info in await service.store.listing.list(platform="slack", channel=CHANNEL):
            story = await service.store.stories.get(info.story_id)
            references |= {r.url for r in story.references}
            references.add(f"{service.worker.public_url}/stories/{story.id}")  # its page
    texts = [t for m in slack.messages[CHANNEL] for t in [m.text, *block_texts(m.blocks)]]
    joined = "\n".join(texts)
    assert "&lt;!channel&gt;" in joined  # the hostile titles did reach Slack, escaped
    for token in ANGLE.findall(joined):
        if token.startswith("!date^"):
            continue
        url, bar, _label = token.partition("|")
        assert bar and url in references, f"<{token}> is a mention or a forged link"
    assert not [m for m in slack.messages[CHANNEL] if m.params.get("link_names")]


async def test_an_unacknowledged_immediate_item_reminds_the_oncall_group_once(
    tmp_path: Path, slack: FakeSlack
) -> None:
    async with slack_service(
        tmp_path, slack.url, acks={"reminder_after": "30m", "oncall": {"slack": "S0ONCALL1"}}
    ) as (service, sender):
        await subscribe(sender, slack, "ci-infra")
        await service.run_once(now=DEMO_NOW)
        before = len(slack.messages[CHANNEL])
        with time_machine.travel(utcnow() + timedelta(minutes=31), tick=True):
            report = await service.run_once(now=DEMO_NOW)
            assert report.reminders >= 1
            again = await service.run_once(now=DEMO_NOW)
            assert again.reminders == 0
    reminders = slack.messages[CHANNEL][before:]
    assert len(reminders) == report.reminders
    parent = slack.messages[CHANNEL][0]
    for reminder in reminders:
        assert reminder.thread_ts == parent.ts
        text = "\n".join(block_texts(reminder.blocks))
        assert text.startswith("<!subteam^S0ONCALL1>") and "[immediate]" in text
        assert "<!subteam^S0ONCALL1>" in reminder.text


async def test_rate_limits_and_server_errors_leave_the_thread_whole_and_tokens_unlogged(
    tmp_path: Path, slack: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with slack_service(tmp_path, slack.url) as (service, sender):
        await subscribe(sender, slack, "executorch")
        slack.fail("chat.postMessage", status=429, error="ratelimited", retry_after=1)
        slack.fail("chat.postMessage", status=503, error="service_unavailable")
        report = await service.run_once(now=DEMO_NOW)
        assert report.delivered.delivered == 1
        [info] = await service.store.listing.list(platform="slack", channel=CHANNEL)
        story = await service.store.stories.get(info.story_id)
    assert [r.status for r in slack.calls("chat.postMessage")][:3] == [429, 503, 200]
    [parent] = [m for m in slack.messages[CHANNEL] if m.thread_ts is None]
    thread = slack.thread(CHANNEL, parent.ts)
    assert thread == slack.messages[CHANNEL] and len(thread) == len(parts_of(story))
    keys = [m.metadata["event_payload"]["key"] for m in thread]
    assert keys == [f"{info.id}.{i}" for i in range(len(thread))]  # each part once, in order
    assert caplog.records and TOKEN not in caplog.text and SECRET not in caplog.text
