"""Release stories from end to end: signed GitHub webhooks reach the real service, the
processor reads the repository from the loopback GitHub (GraphQL: vite's recorded pull
requests and its published releases), and a Slack and a Discord channel that follow vite's
releases get one story per release; the release commit and its GitHub release are one
release; a channel that follows vite in full gets none of these, and nothing comes on the
schedule to the releases-only channels."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.app.service import Service
from bot.commands.replies import Context
from bot.settings import load_settings
from digest.config import load_config
from digest.model import Story
from digest.reading.releases import tag_activity
from digest.sources.replay import ReplaySource
from tests.digest_data import ACTIVITY
from tests.fakes.discord_gateway import FakeDiscordAPI, LoopbackDiscord
from tests.fakes.discord_rest import BOT_ID, Limits
from tests.fakes.github import FakeGitHub, FakeRelease
from tests.fakes.slack_server import TEAM_ID, FakeSlack
from tests.open_github import TOKEN as GITHUB_TOKEN
from tests.open_github import load_activity
from tests.slack_requests import SECRET as SLACK_SECRET
from tests.slack_requests import TOKEN, demo_config
from tests.test_discord_frontend import restore_discord_py_globals  # noqa: F401  (autouse)
from tests.test_realtime_bulletins import discord_threads, slack_threads, until
from tests.webhook_payloads import SECRET, WebhookSender, published_release, push

REPO = "vitejs/vite"
RELEASES, FULL = "C0WIRE0001", "C0WIRE0002"
VITE = {a.title: a for a in ReplaySource(ACTIVITY / "vitejs-vite-2026-q2.jsonl").read_all()}
V8_0_16 = VITE["release: v8.0.16"]  # the release commit, 2026-06-01 09:49 UTC
# GitHub publishes the release of that commit ten minutes later, and a patch without a
# release commit (only its tag and release) that afternoon
PUBLISHED = V8_0_16.landed_at + timedelta(minutes=10)
PATCH_AT = datetime(2026, 6, 1, 15, 0, tzinfo=UTC)


class Room:
    """The running service, its loopback Slack and Discord, and a webhook sender."""

    def __init__(self, service: Service, slack: FakeSlack, discord: LoopbackDiscord) -> None:
        self.service = service
        self.slack = slack
        self.discord = discord
        self.sender = WebhookSender(f"{service.web_url}{service.settings.realtime.path}")
        self.releases_channel = ""

    async def wire(self, platform: str, channel: str, text: str) -> str:
        workspace = TEAM_ID if platform == "slack" else self.discord.api.guild_id
        context = Context(platform, workspace, channel, "U0ANA0001", "ana")
        reply = await self.service.commands.handle(text, context=context)
        assert reply.ok, reply.text
        return reply.text

    async def send(self, event: str, payload: dict) -> None:
        """Deliver one webhook, let the processor judge it, then deliver the outbox."""
        assert (await self.sender.send(event, payload))[0] == 202

        async def settled() -> bool:
            return (await self.service.store.webhooks.counts())["pending"] == 0

        await until(settled)
        await self.service.worker.run_once()

    async def stories(self, platform: str, channel: str) -> list[Story]:
        infos = await self.service.store.listing.list(platform=platform, channel=channel)
        found = [await self.service.store.stories.get(i.story_id) for i in reversed(infos)]
        return [s for s in found if s is not None]


@asynccontextmanager
async def room(tmp_path: Path) -> AsyncIterator[Room]:
    github = FakeGitHub(tokens=[GITHUB_TOKEN])
    slack = FakeSlack(tokens=[TOKEN], channels=(RELEASES, FULL), per_channel_interval=0.02)
    api = FakeDiscordAPI(limits=Limits(messages=(5, 1.0), edits=(5, 1.0)))
    async with github, slack, LoopbackDiscord(api) as discord:
        load_activity(github, "vitejs-vite-2026-q2.jsonl", until=PATCH_AT + timedelta(hours=1))
        github.add_releases(
            REPO,
            [
                FakeRelease("v8.0.16", created_at=V8_0_16.landed_at, published_at=PUBLISHED),
                FakeRelease("v8.0.17", created_at=PATCH_AT, published_at=PATCH_AT),
            ],
        )
        path = demo_config(tmp_path)
        text = f'\n[[projects]]\nrepo = "{REPO}"\nname = "vite"\nsource = "github:{REPO}"\n'
        path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")
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
            github={"webhook_secret": SECRET, "token": GITHUB_TOKEN, "api_url": github.url},
            # vite's changes landed in June 2026: not too old for the realtime path here
            realtime={"max_age": "3650d", "polling": False},
        )
        async with await Service.start(settings=settings, config=load_config(path)) as service:
            await service.start_frontends()
            here = Room(service, slack, discord)
            try:
                await here.wire("slack", RELEASES, "/wire subscribe vitejs/vite releases")
                await here.wire("slack", FULL, "/wire subscribe vitejs/vite")
                here.releases_channel = api.add_channel("releases")
                await here.wire("discord", here.releases_channel, "/wire subscribe vite releases")
                yield here
            finally:
                await here.sender.close()
        assert slack.problems == [] and discord.problems == [] and github.problems == []


async def test_each_release_is_one_story_in_each_releases_channel(tmp_path: Path) -> None:
    async with room(tmp_path) as here:
        await here.send("push", push(V8_0_16))  # the release commit lands
        tag = tag_activity(REPO, "v8.0.16", PUBLISHED)
        assert tag is not None
        await here.send("release", published_release(tag))  # its GitHub release: the same
        [story] = await here.stories("slack", RELEASES)
        assert story.headline == "VITE 8.0.16 IS OUT"
        # cited: the release commit (a pull request on the loopback GitHub) and what it carries
        assert "release: v8.0.16" in {r.title for r in story.references}
        assert "rejects windows alternate paths" in " ".join(s.text for s in story.body)
        [thread] = slack_threads(here.slack, RELEASES)
        assert thread[0].blocks[0]["text"]["text"] == story.headline
        api = here.discord.api
        [discord_thread] = discord_threads(api, here.releases_channel)
        assert len(discord_thread) > 2  # the parent, the body, the references
        [same] = await here.stories("discord", here.releases_channel)
        assert same.id == story.id
        assert slack_threads(here.slack, FULL) == []  # its digest tells the release

        patch = tag_activity(REPO, "v8.0.17", PATCH_AT)
        assert patch is not None
        await here.send("release", published_release(patch))  # a release with no commit
        first, second = await here.stories("slack", RELEASES)
        assert first.id == story.id and second.headline == "VITE 8.0.17 IS OUT"
        assert "https://github.com/vitejs/vite/releases/tag/v8.0.17" in {
            r.url for r in second.references
        }
        assert len(discord_threads(api, here.releases_channel)) == 2

        # the schedule's digests go to the full subscription only
        await here.service.scheduler.compose_due(datetime(2026, 6, 2, 9, tzinfo=UTC))
        assert len(await here.stories("slack", RELEASES)) == 2
        assert len(await here.stories("discord", here.releases_channel)) == 2
