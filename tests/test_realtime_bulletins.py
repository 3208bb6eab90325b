"""Bulletins from end to end: a signed webhook delivery reaches the real receiver over HTTP,
the processor reads the change from the project's source (the demo's recorded activity),
the digest's rules find an [immediate] item, and the real Slack and Discord platforms post
one bulletin thread per subscribed channel to the loopback servers. Redeliveries and forged
signatures post nothing; the next digest refers back to the bulletin instead of repeating
its item; acks and reminders work on the bulletin's item."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import time_machine

from bot.app.service import Service
from bot.commands.replies import Context
from bot.settings import load_settings
from digest.compose import compose
from digest.config import load_config
from digest.model import Story, Window
from digest.sources.replay import ReplaySource
from tests.fakes.discord_gateway import FakeDiscordAPI, LoopbackDiscord
from tests.fakes.discord_rest import BOT_ID, Limits
from tests.fakes.slack_server import TEAM_ID, FakeSlack, block_texts
from tests.slack_requests import DEMO_NOW, ROOT, TOKEN, demo_config
from tests.slack_requests import SECRET as SLACK_SECRET
from tests.test_discord_frontend import restore_discord_py_globals  # noqa: F401  (autouse)
from tests.webhook_payloads import SECRET, WebhookSender, merged_pull_request, push

SLACK_BOTH, SLACK_GATE, SLACK_OFF, SLACK_ET = "C0WIRE0001", "C0WIRE0002", "C0WIRE0003", "C0WIRE0004"


def demo_activity(number: int):
    return next(
        a for a in ReplaySource(ROOT / "demo/activity.jsonl").read_all() if a.number == number
    )


async def until(condition: Callable[[], Any], timeout: float = 15.0) -> None:
    """Wait for work the service does in its own tasks."""
    deadline = time.monotonic() + timeout
    while not await condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


class Newsroom:
    """The running service with its loopback Slack and Discord, and a webhook sender."""

    def __init__(self, service: Service, slack: FakeSlack, discord: LoopbackDiscord) -> None:
        self.service = service
        self.slack = slack
        self.discord = discord
        self.sender = WebhookSender(f"{service.web_url}{service.settings.realtime.path}")
        self.gate_channels: list[str] = []
        self.muted = ""

    async def wire(self, platform: str, channel: str, text: str) -> str:
        workspace = TEAM_ID if platform == "slack" else self.discord.api.guild_id
        context = Context(platform, workspace, channel, "U0ANA0001", "ana")
        reply = await self.service.commands.handle(text, context=context)
        assert reply.ok, reply.text
        return reply.text

    async def deliver(self) -> None:
        """Let the processor judge every stored delivery, then deliver the outbox."""

        async def settled() -> bool:
            return (await self.service.store.webhooks.counts())["pending"] == 0

        await until(settled)
        await self.service.worker.run_once()

    async def stories(self, platform: str, channel: str) -> list[Story]:
        infos = await self.service.store.listing.list(platform=platform, channel=channel)
        return [await self.service.store.stories.get(i.story_id) for i in reversed(infos)]


@asynccontextmanager
async def newsroom(tmp_path: Path) -> AsyncIterator[Newsroom]:
    channels = (SLACK_BOTH, SLACK_GATE, SLACK_OFF, SLACK_ET)
    slack = FakeSlack(tokens=[TOKEN], channels=channels, per_channel_interval=0.02)
    api = FakeDiscordAPI(limits=Limits(messages=(5, 1.0), edits=(5, 1.0)))
    async with slack, LoopbackDiscord(api) as discord:
        settings = load_settings(
            env_file=None,
            database_url=f"sqlite+aiosqlite:///{tmp_path / 'wire.db'}",
            platforms=("slack", "discord"),
            http={"host": "127.0.0.1", "port": 0},
            slack={
                "bot_token": TOKEN,
                "signing_secret": SLACK_SECRET,
                "api_url": slack.url,
                "per_channel_interval": 0.02,
            },
            discord={
                "bot_token": api.token,
                "application_id": BOT_ID,
                "api_url": discord.api_url,
                "guild_id": int(api.guild_id),
            },
            github={"webhook_secret": SECRET},
            # the demo's changes landed in May 2026: not too old for a bulletin here
            realtime={"max_age": "3650d", "polling": False},
        )
        config = load_config(demo_config(tmp_path))
        async with await Service.start(settings=settings, config=config) as service:
            await service.start_frontends()
            room = Newsroom(service, slack, discord)
            try:
                for channel in (SLACK_BOTH,):
                    await room.wire("slack", channel, "/wire subscribe ci-infra executorch")
                for channel in (SLACK_GATE, SLACK_OFF):
                    await room.wire("slack", channel, "/wire subscribe ci-infra")
                await room.wire("slack", SLACK_ET, "/wire subscribe executorch")
                assert "Bulletins are off" in await room.wire(
                    "slack", SLACK_OFF, "/wire bulletins off"
                )
                room.gate_channels = [api.add_channel("gate-1"), api.add_channel("gate-2")]
                room.muted = api.add_channel("muted")
                for channel in [*room.gate_channels, room.muted]:
                    await room.wire("discord", channel, "/wire subscribe ci-infra")
                await room.wire("discord", room.muted, "/wire mute 4h")
                yield room
            finally:
                await room.sender.close()
        assert slack.problems == [] and discord.problems == []


def cited_without_urgency(room: Newsroom):
    """A change the demo's ExecuTorch digest cites but gives no [immediate] item."""
    activities = ReplaySource(ROOT / "demo/activity.jsonl").read_all()
    executorch = [a for a in activities if a.repo == "pytorch/executorch"]
    window = Window(since=DEMO_NOW - room.service.settings.first_lookback, until=DEMO_NOW)
    story = compose(executorch, config=room.service.scheduler.config, window=window)
    urgent = {n for item in story.action_items if item.urgency == "immediate" for n in item.refs}
    cited = [ref.url for ref in story.references if ref.n not in urgent]
    return next(a for a in executorch if a.link in cited)


def slack_threads(slack: FakeSlack, channel: str) -> list[list]:
    parents = [m for m in slack.messages.get(channel, []) if m.thread_ts is None]
    return [slack.thread(channel, parent.ts) for parent in parents]


def discord_threads(api: FakeDiscordAPI, channel: str) -> list[list[dict]]:
    parents = api.thread_messages(channel)
    return [[parent, *api.thread_messages(api.threads[parent["id"]]["id"])] for parent in parents]


async def test_a_ci_gate_merge_is_one_bulletin_in_each_subscribed_channel(tmp_path) -> None:
    gate = demo_activity(619)  # "Split pre-merge CI into fast and slow gates": a CI gate
    async with newsroom(tmp_path) as room:
        status, delivery = await room.sender.send("pull_request", merged_pull_request(gate))
        assert status == 202
        # GitHub also sends the push of the same merge: the same change, judged once
        assert (await room.sender.send("push", push(gate)))[0] == 202
        await room.deliver()

        for channel in (SLACK_BOTH, SLACK_GATE):
            [thread] = slack_threads(room.slack, channel)
            [story] = await room.stories("slack", channel)
            assert story.id.startswith("bulletin_")
            assert thread[0].blocks[0]["text"]["text"] == story.headline
            texts = [" ".join(block_texts(m.blocks)) for m in thread]
            assert len(thread) == 4  # parent, one cited sentence, the item, the reference
            assert "[1]" in texts[1] or "pull/619" in texts[1]
            [item] = story.action_items
            assert item.urgency == "immediate" and "blocks merges" in item.text
            assert thread[2].blocks[0]["accessory"]["value"] == item.id  # Acknowledge
            assert "https://github.com/pytorch/ci-infra/pull/619" in texts[3]
        assert slack_threads(room.slack, SLACK_OFF) == []  # /wire bulletins off
        assert slack_threads(room.slack, SLACK_ET) == []  # follows another project
        api = room.discord.api
        for channel in room.gate_channels:
            [thread] = discord_threads(api, channel)
            assert len(thread) == 4
            item_message = thread[2]
            [story] = await room.stories("discord", channel)
            [item] = story.action_items
            button = item_message["components"][0]["components"][0]
            assert button["custom_id"] == f"wire:ack:{item.id}"
        assert discord_threads(api, room.muted) == []  # muted
        assert "Bulletins: off" in await room.wire("slack", SLACK_OFF, "/wire list")
        assert "Bulletins: off" not in await room.wire("slack", SLACK_GATE, "/wire list")
        context = Context("slack", TEAM_ID, SLACK_OFF, "U0ANA0001", "ana")
        wrong = await room.service.commands.handle("/wire bulletins maybe", context=context)
        assert not wrong.ok and "/wire bulletins on|off" in wrong.text
        assert "Bulletins are on" in await room.wire("slack", SLACK_OFF, "/wire bulletins on")

        # GitHub's redelivery of the same delivery id, and a forged delivery: nothing more
        posted = len(room.slack.requests), len(api.messages)
        assert (
            await room.sender.send("pull_request", merged_pull_request(gate), delivery=delivery)
        )[0] == 200
        assert (await room.sender.send("pull_request", merged_pull_request(gate), secret="x"))[
            0
        ] == 401
        await room.deliver()
        assert (len(room.slack.requests), len(api.messages)) == posted
        assert len(await room.service.store.listing.list()) == 4


async def test_the_next_digest_refers_back_and_acks_and_reminders_work(tmp_path) -> None:
    gate = demo_activity(619)
    async with newsroom(tmp_path) as room:
        await room.sender.send("pull_request", merged_pull_request(gate))
        await room.deliver()
        [bulletin] = await room.stories("slack", SLACK_BOTH)
        [item] = bulletin.action_items

        # an ack on the bulletin's item is recorded and shown on its message
        [thread] = slack_threads(room.slack, SLACK_BOTH)
        reply = await room.wire("slack", SLACK_BOTH, f"/wire ack {item.id}")
        assert "Acknowledged" in reply and thread[2].edits
        # nobody acknowledged it in #gate: one reminder in the bulletin's thread
        with time_machine.travel(datetime.now(UTC) + timedelta(minutes=31), tick=True):
            assert await room.service.scheduler.remind() == 3  # #gate and two Discord channels
        [gate_thread] = slack_threads(room.slack, SLACK_GATE)
        assert (
            len(gate_thread) == 5
            and "not acknowledged" in " ".join(block_texts(gate_thread[-1].blocks)).lower()
        )

        report = await room.service.run_once(now=DEMO_NOW)
        assert report.delivered.dead == 0
        for channel in (SLACK_BOTH, SLACK_GATE):
            _bulletin, digest = await room.stories("slack", channel)
            assert digest.id.startswith("story_")
            assert item.id not in {i.id for i in digest.action_items}  # not posted again
            notes = [s for s in digest.body if s.text.startswith("As reported at ")]
            assert len(notes) == 1 and "blocks merges" in notes[0].text
            cited = {digest.reference(n).url for n in notes[0].refs}
            assert cited == {"https://github.com/pytorch/ci-infra/pull/619"}
            posted = slack_threads(room.slack, channel)[-1]
            assert not any(
                m.blocks and m.blocks[0].get("accessory", {}).get("value") == item.id
                for m in posted
            )
        # the channel that switched bulletins off gets the item in its digest as usual
        [off_digest] = await room.stories("slack", SLACK_OFF)
        assert item.id in {i.id for i in off_digest.action_items}
        assert not any(s.text.startswith("As reported") for s in off_digest.body)


async def test_a_change_that_is_not_immediate_waits_for_the_digest(tmp_path) -> None:
    async with newsroom(tmp_path) as room:
        feature = cited_without_urgency(room)
        status, delivery = await room.sender.send("pull_request", merged_pull_request(feature))
        assert status == 202
        await room.deliver()
        assert (await room.service.store.webhooks.get(delivery)).state == "done"
        assert await room.service.store.listing.list() == []
        assert (
            slack_threads(room.slack, SLACK_ET) == []
            and slack_threads(room.slack, SLACK_BOTH) == []
        )

        await room.service.run_once(now=DEMO_NOW)
        [digest] = await room.stories("slack", SLACK_ET)
        assert feature.link in {ref.url for ref in digest.references}
        assert not any(s.text.startswith("As reported") for s in digest.body)


@pytest.mark.parametrize("number", [619])
async def test_a_change_the_source_does_not_show_is_looked_for_again(tmp_path, number) -> None:
    gate = demo_activity(number)
    async with newsroom(tmp_path) as room:
        payload = merged_pull_request(gate)
        payload["pull_request"]["number"] = payload["number"] = 99999  # not in the source
        payload["pull_request"]["merge_commit_sha"] = "f" * 40
        status, delivery = await room.sender.send("pull_request", payload)
        assert status == 202

        async def retried() -> bool:
            found = await room.service.store.webhooks.get(delivery)
            return found.attempts >= 1 and found.state == "pending"

        await until(retried)
        assert await room.service.store.listing.list() == []
