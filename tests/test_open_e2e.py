"""A repository nobody configured, followed from Slack and from Discord end to end: the
real service (its [github] api_url at the loopback GitHub) takes `/wire subscribe
pola-rs/polars`, asks GitHub, and its next due window delivers that repository's story
through the platform's real client to the loopback Slack or Discord."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.delivery.parts import parts_of
from bot.discord.render import render
from bot.settings_sections import GitHubSettings
from tests.fakes.discord_gateway import MANAGE_CHANNELS, member, slash
from tests.fakes.github import FakeGitHub
from tests.fakes.slack_server import FakeSlack
from tests.open_github import TOKEN, load_activity
from tests.slack_requests import DEMO_NOW, eventually, slack_service, slash_command
from tests.slack_requests import TOKEN as SLACK_TOKEN
from tests.test_discord_frontend import (
    interact,
    restore_discord_py_globals,  # noqa: F401  (an autouse fixture)
    running,
    settings_for,
)

REPO = "pola-rs/polars"
CHANNEL = "C0WIRE0001"


@pytest.fixture
async def github() -> AsyncIterator[FakeGitHub]:
    """Polars' recorded activity up to the demo's clock, on the loopback GitHub."""
    async with FakeGitHub(tokens=[TOKEN]) as fake:
        assert load_activity(fake, "pola-rs-polars-2026-q2.jsonl", until=DEMO_NOW) > 0
        yield fake
        assert fake.problems == []


async def test_slack_subscribe_to_an_unconfigured_repository_delivers_its_story(
    tmp_path: Path, github: FakeGitHub
) -> None:
    async with FakeSlack(tokens=[SLACK_TOKEN], per_channel_interval=0.02) as slack:
        async with slack_service(
            tmp_path, slack.url, github={"token": TOKEN, "api_url": github.url}
        ) as (service, sender):
            body = slash_command(
                f"subscribe {REPO}",
                channel=CHANNEL,
                user_id="U0ANA0001",
                user_name="ana",
                response_url=slack.hook_url("subscribe"),
            )
            assert (await sender.post(body)).status_code == 200
            [answer] = await eventually(lambda: slack.responses_to("subscribe"))
            assert answer.body["text"].startswith(f"Subscribed to {REPO}: its next digest is")
            report = await service.run_once(now=DEMO_NOW)
            assert report.delivered.delivered == 1 and report.delivered.dead == 0
            [info] = await service.store.listing.list(platform="slack", channel=CHANNEL)
            story = await service.store.stories.get(info.story_id)
        assert slack.problems == []
    assert story is not None and story.repos == (REPO,) and story.references
    assert all(r.url.startswith(f"https://github.com/{REPO}/pull/") for r in story.references)
    [parent] = [m for m in slack.messages[CHANNEL] if m.thread_ts is None]
    assert parent.blocks[0]["text"]["text"] == story.headline


async def test_discord_subscribe_to_an_unconfigured_repository_delivers_its_story(
    loopback, tmp_path: Path, github: FakeGitHub
) -> None:
    settings = settings_for(loopback, tmp_path).model_copy(
        update={"github": GitHubSettings(token=TOKEN, api_url=github.url)}
    )
    async with running(settings) as service:
        payload = slash(
            loopback.api,
            "wire subscribe",
            channel_id=loopback.channel,
            who=member("1300000000000000001", "Ana", permissions=MANAGE_CHANNELS),
            options={"target": REPO},
        )
        callback = await interact(loopback, payload)
        said = callback["data"]["content"].replace("\\", "")  # Discord's markdown escapes
        assert said.startswith(f"Subscribed to {REPO}: its next digest is Wed 09:00 UTC.")
        report = await service.run_once(now=DEMO_NOW)
        assert report.delivered.delivered == 1 and report.delivered.dead == 0
        [info] = await service.store.listing.list(platform="discord")
        story = await service.store.stories.get(info.story_id)
    assert story is not None and story.repos == (REPO,) and story.references
    [parent] = loopback.api.thread_messages(loopback.channel)
    assert parent["embeds"] == render(parts_of(story)[0])[0]["embeds"]
