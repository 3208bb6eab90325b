"""One channel, one story: a channel that follows two repositories, a topic anywhere and a
topic of one of them gets one story per window, with every change told at most once, on
the console, Slack and Discord alike (the demo configuration and its recorded activity)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from bot.app.service import Service
from bot.commands.replies import Context
from bot.delivery.platform import ConsolePlatform
from bot.settings import load_settings
from bot.store import Store
from digest.config import load_config
from digest.model import Story
from tests.fakes.slack_server import FakeSlack
from tests.slack_requests import slack_service
from tests.test_discord_e2e import subscribe as discord_subscribe
from tests.test_discord_frontend import (
    restore_discord_py_globals,  # noqa: F401  (an autouse fixture)
    running,
    settings_for,
)
from tests.test_slack_e2e import CHANNEL
from tests.test_slack_e2e import slack as slack  # the fake Slack, a fixture
from tests.test_slack_e2e import subscribe as slack_subscribe

ROOT = Path(__file__).resolve().parents[1]
DEMO_NOW = datetime(2026, 5, 27, tzinfo=UTC)
TARGETS = ["executorch", "ci-infra", "topic:XNNPACK", "executorch topic:Arm"]


async def stories_of(store: Store, platform: str, channel: str) -> list[Story]:
    deliveries = await store.listing.list(platform=platform, channel=channel)
    return [story for d in deliveries if (story := await store.stories.get(d.story_id))]


def told_once(story: Story) -> bool:
    """Every change the story cites is one reference, and the body tells each once."""
    urls = [r.url for r in story.references]
    return len(urls) == len(set(urls))


async def console_service(tmp_path: Path) -> Service:
    """The service on the demo configuration, on a database under `tmp_path`, whose only
    platform is the console."""
    settings = load_settings(
        config=ROOT / "config/demo.toml",
        env_file=None,
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'wire.db'}",
        http={"port": 0},
    )
    return await Service.start(
        settings=settings,
        config=load_config(ROOT / "config/demo.toml"),
        platforms={"console": ConsolePlatform()},
    )


def console_channel(name: str) -> Context:
    return Context(platform="console", workspace="local", channel=name, user_id="U", user_name="u")


async def test_on_the_console(tmp_path: Path) -> None:
    ops = console_channel("ops")
    async with await console_service(tmp_path) as service:
        for target in TARGETS:
            assert (await service.commands.handle(f"/wire subscribe {target}", context=ops)).ok
        preview = await service.commands.handle("/wire preview", context=ops)
        assert "Also:" not in preview.text and preview.story is not None
        await service.run_once(now=DEMO_NOW)
        [story] = await stories_of(service.store, "console", "ops")
    assert told_once(story) and story.headline == preview.story.headline
    repos = {r.repo for r in story.references}
    assert repos == {"pytorch/executorch", "pytorch/ci-infra"}  # sections for both projects
    assert story.topic is None


async def test_on_slack(tmp_path: Path, slack: FakeSlack) -> None:
    async with slack_service(tmp_path, slack.url) as (service, sender):
        for target in TARGETS:
            await slack_subscribe(sender, slack, target)
        report = await service.run_once(now=DEMO_NOW)
        assert report.delivered.delivered == 1
        [story] = await stories_of(service.store, "slack", CHANNEL)
    parents = [m for m in slack.messages[CHANNEL] if m.thread_ts is None]
    assert len(parents) == 1 and told_once(story)


async def test_on_discord(loopback, tmp_path: Path) -> None:
    async with running(settings_for(loopback, tmp_path)) as service:
        for target in TARGETS:
            await discord_subscribe(loopback, target)
        report = await service.run_once(now=DEMO_NOW)
        assert report.delivered.delivered == 1
        [story] = await stories_of(service.store, "discord", loopback.channel)
    assert len(loopback.api.thread_messages(loopback.channel)) == 1 and told_once(story)


async def test_a_lone_topic_still_reads_as_a_topic_story(tmp_path: Path) -> None:
    arm = console_channel("arm")
    async with await console_service(tmp_path) as service:
        assert (await service.commands.handle("/wire subscribe topic:XNNPACK", context=arm)).ok
        await service.run_once(now=DEMO_NOW)
        [story] = await stories_of(service.store, "console", "arm")
    assert story.topic == "XNNPACK"
