"""The Discord front end of the real service: discord.py's client logs in over REST, syncs
`/wire`, opens a gateway session and answers interactions — all against the loopback
Discord of tests/fakes/discord_gateway.py, whose requests are checked against Discord's
API description (`problems` stays empty)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import discord
import pytest
from discord.gateway import DiscordWebSocket
from discord.http import Route

from bot.app.service import Service
from bot.commands import grammar
from bot.commands.replies import Context
from bot.discord.adapter import DiscordAdapter, DiscordStartError
from bot.errors import SettingsError
from bot.settings import load_settings
from digest.config import load_config
from tests.fakes.discord_gateway import (
    ADMINISTRATOR,
    MANAGE_CHANNELS,
    LoopbackDiscord,
    member,
    slash,
)
from tests.fakes.discord_rest import BOT_ID

ROOT = Path(__file__).resolve().parents[1]
EPHEMERAL = 64
GUILDS, GUILD_REACTIONS = 1 << 0, 1 << 10
ADMIN = member("1300000000000000001", "Ana", permissions=MANAGE_CHANNELS | (1 << 10))
GUEST = member("1300000000000000002", "Ben")


async def until(condition: Callable[[], Any], timeout: float = 10.0) -> None:
    """Wait for work discord.py does in its own tasks (a dispatched event)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


@pytest.fixture(autouse=True)
def restore_discord_py_globals(monkeypatch) -> None:
    """The adapter points discord.py at the loopback servers through two class attributes
    (its REST base and default gateway); each test gets them back as they were."""
    monkeypatch.setattr(Route, "BASE", Route.BASE)
    monkeypatch.setattr(DiscordWebSocket, "DEFAULT_GATEWAY", DiscordWebSocket.DEFAULT_GATEWAY)
    monkeypatch.setattr(DiscordAdapter, "guild_ready_timeout", 0.05)


def settings_for(loopback: LoopbackDiscord, tmp_path: Path, **discord_overrides: Any):
    """Settings of a service on SQLite whose only platform is the loopback Discord."""
    acks = discord_overrides.pop("acks", None)
    discord_settings = {
        "bot_token": loopback.api.token,
        "application_id": BOT_ID,
        "api_url": loopback.api_url,
        "guild_id": int(loopback.api.guild_id),
        **discord_overrides,
    }
    extra = {"acks": acks} if acks else {}
    return load_settings(
        config=ROOT / "config/demo.toml",
        env_file=None,
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'wire.db'}",
        platforms=("discord",),
        http={"host": "127.0.0.1", "port": 0},
        discord=discord_settings,
        **extra,
    )


@asynccontextmanager
async def running(settings) -> AsyncIterator[Service]:
    """The real service with its front ends started (the Discord gateway session)."""
    service = await Service.start(settings=settings, config=load_config(ROOT / "config/demo.toml"))
    async with service:
        await service.start_frontends()
        yield service


async def interact(loopback: LoopbackDiscord, payload: dict) -> dict:
    """Dispatch an INTERACTION_CREATE and return the callback the bot POSTed for it."""
    await loopback.gateway.dispatch("INTERACTION_CREATE", payload)
    await until(lambda: any(c["interaction_id"] == payload["id"] for c in loopback.api.callbacks))
    return next(c for c in loopback.api.callbacks if c["interaction_id"] == payload["id"])


async def test_the_bot_connects_with_minimal_intents_and_syncs_wire_to_the_guild(
    loopback, tmp_path
):
    async with running(settings_for(loopback, tmp_path)):
        (identify,) = loopback.gateway.identifies
        assert identify["intents"] == GUILDS | GUILD_REACTIONS
        assert loopback.gateway.heartbeats >= 1
        wire = loopback.api.command("wire", guild_id=loopback.api.guild_id)
        assert wire is not None and "global" not in loopback.api.commands
        assert {o["name"] for o in wire["options"]} == set(grammar.COMMANDS)
        subscribe = next(o for o in wire["options"] if o["name"] == "subscribe")
        target = next(o for o in subscribe["options"] if o["name"] == "target")
        assert target["required"] is True and target["autocomplete"] is True
        assert wire["dm_permission"] is False  # servers only


async def test_subscribe_stores_the_subscription_and_answers_the_channel(loopback, tmp_path):
    async with running(settings_for(loopback, tmp_path)) as service:
        payload = slash(
            loopback.api,
            "wire subscribe",
            channel_id=loopback.channel,
            who=ADMIN,
            options={"target": "executorch", "exclude": "author:pytorchbot"},
        )
        callback = await interact(loopback, payload)
        subs = await service.store.subscriptions.list(
            platform="discord", workspace=loopback.api.guild_id, channel=loopback.channel
        )
    assert [(s.repo, s.excludes, s.created_by) for s in subs] == [
        ("pytorch/executorch", ("author:pytorchbot",), "Ana")
    ]
    assert callback["type"] == 4  # CHANNEL_MESSAGE_WITH_SOURCE
    data = callback["data"]
    assert "Subscribed this channel to ExecuTorch" in data["content"]
    assert not data.get("flags", 0) & EPHEMERAL  # the command layer says: for the channel
    assert data["allowed_mentions"]["parse"] == []


async def test_only_releases_or_security_is_a_choice_of_subscribe(loopback, tmp_path):
    async with running(settings_for(loopback, tmp_path)) as service:
        answers = []
        for verb, only in (("subscribe", "releases"), ("subscribe", "security")):
            options = {"target": "executorch", "only": only}
            payload = slash(
                loopback.api,
                f"wire {verb}",
                channel_id=loopback.channel,
                who=ADMIN,
                options=options,
            )
            answers.append((await interact(loopback, payload))["data"]["content"])
        subs = await service.store.subscriptions.list(channel=loopback.channel)
        kinds = sorted((s.repo, s.kind) for s in subs)
        payload = slash(
            loopback.api,
            "wire unsubscribe",
            channel_id=loopback.channel,
            who=ADMIN,
            options={"target": "executorch", "only": "security"},
        )
        answers.append((await interact(loopback, payload))["data"]["content"])
        left = [s.kind for s in await service.store.subscriptions.list(channel=loopback.channel)]
    assert kinds == [("pytorch/executorch", "releases"), ("pytorch/executorch", "security")]
    assert answers[0].startswith("Subscribed this channel to ExecuTorch releases")
    assert answers[1].startswith("Subscribed this channel to ExecuTorch security fixes")
    assert answers[2] == "Unsubscribed this channel from ExecuTorch security fixes."
    assert left == ["releases"]


async def test_a_member_without_manage_channels_is_refused_alone(loopback, tmp_path):
    async with running(settings_for(loopback, tmp_path)) as service:
        for path, options in (
            ("wire subscribe", {"target": "executorch"}),
            ("wire mute", {"duration": "4h"}),
        ):
            payload = slash(
                loopback.api, path, channel_id=loopback.channel, who=GUEST, options=options
            )
            callback = await interact(loopback, payload)
            assert callback["data"]["flags"] & EPHEMERAL
            assert "Manage Channels" in callback["data"]["content"]
        listed = await interact(
            loopback, slash(loopback.api, "wire list", channel_id=loopback.channel, who=GUEST)
        )
        assert await service.store.subscriptions.list(platform="discord") == []
    assert listed["data"]["flags"] & EPHEMERAL
    assert "no subscriptions" in listed["data"]["content"]


async def test_an_administrator_may_change_subscriptions_without_the_named_flag(loopback, tmp_path):
    owner = member("1300000000000000003", "Cy", permissions=ADMINISTRATOR)
    async with running(settings_for(loopback, tmp_path)):
        payload = slash(
            loopback.api,
            "wire schedule",
            channel_id=loopback.channel,
            who=owner,
            options={"when": "weekdays 08:30", "timezone": "Europe/Berlin"},
        )
        callback = await interact(loopback, payload)
    shown = callback["data"]["content"].replace("\\", "")  # Discord hides the escapes
    assert "weekdays at 08:30 Europe/Berlin" in shown


async def test_the_front_end_can_stop_and_start_again(loopback, tmp_path):
    async with running(settings_for(loopback, tmp_path)) as service:
        await service.stop_frontends()
        await service.start_frontends()  # as when a replica regains the gateway's lock
        assert len(loopback.gateway.identifies) == 2
        payload = slash(loopback.api, "wire list", channel_id=loopback.channel, who=GUEST)
        callback = await interact(loopback, payload)
    assert callback["data"]["flags"] & EPHEMERAL


async def test_the_permission_is_configurable_and_checked_at_start(loopback, tmp_path):
    with pytest.raises(SettingsError, match="manage_chanels"):
        DiscordAdapter.from_settings(
            settings_for(loopback, tmp_path, subscribe_permission="manage_chanels")
        )
    async with running(settings_for(loopback, tmp_path, subscribe_permission="")) as service:
        payload = slash(
            loopback.api,
            "wire subscribe",
            channel_id=loopback.channel,
            who=GUEST,
            options={"target": "ci-infra"},
        )
        callback = await interact(loopback, payload)
        assert "Subscribed" in callback["data"]["content"]
        assert len(await service.store.subscriptions.list(platform="discord")) == 1


async def test_autocomplete_offers_configured_projects_and_topics(loopback, tmp_path):
    async with running(settings_for(loopback, tmp_path)):
        answers = {}
        for typed in ("exe", "executorch topic:xnn", "ci"):
            payload = slash(
                loopback.api,
                "wire subscribe",
                channel_id=loopback.channel,
                who=GUEST,
                options={"target": typed},
                focused="target",
            )
            callback = await interact(loopback, payload)
            assert callback["type"] == 8  # APPLICATION_COMMAND_AUTOCOMPLETE_RESULT
            answers[typed] = [c["value"] for c in callback["data"]["choices"]]
        topics = slash(
            loopback.api,
            "wire topics",
            channel_id=loopback.channel,
            who=GUEST,
            options={"project": ""},
            focused="project",
        )
        projects = await interact(loopback, topics)
    assert answers["exe"] == ["executorch"]
    assert answers["executorch topic:xnn"] == ["executorch topic:XNNPACK"]
    assert answers["ci"][:2] == ["ci-infra", "topic:CI"]
    assert [c["value"] for c in projects["data"]["choices"]] == ["ci-infra", "executorch"]


async def test_replies_cannot_ping_or_link_whatever_was_typed(loopback, tmp_path):
    async with running(settings_for(loopback, tmp_path)):
        payload = slash(
            loopback.api,
            "wire subscribe",
            channel_id=loopback.channel,
            who=ADMIN,
            options={"target": "@everyone <@&42> [x](https://evil.example)"},
        )
        callback = await interact(loopback, payload)
    content = callback["data"]["content"]
    assert "Sorry" in content and "@everyone" not in content and "<@&42>" not in content
    assert "[x](https" not in content
    assert callback["data"]["allowed_mentions"]["parse"] == []


async def test_preview_defers_then_shows_the_story_as_embeds(loopback, tmp_path):
    async with running(settings_for(loopback, tmp_path)):
        payload = slash(
            loopback.api,
            "wire preview",
            channel_id=loopback.channel,
            who=GUEST,
            options={"target": "executorch"},
        )
        callback = await interact(loopback, payload)
        await until(lambda: len(loopback.api.followups) >= 2)
        await asyncio.sleep(0.2)  # the rest of the follow-ups
    assert callback["type"] == 5 and callback["data"]["flags"] & EPHEMERAL
    text, *stories = loopback.api.followups
    assert text["content"].startswith("Preview")
    assert all(f["flags"] & EPHEMERAL for f in loopback.api.followups)
    embeds = [e for f in stories for e in f["embeds"]]
    assert embeds and embeds[0]["title"]  # the headline
    assert all("components" not in f or not f["components"] for f in stories)


async def test_commands_sync_globally_without_a_guild(loopback, tmp_path):
    settings = settings_for(loopback, tmp_path, guild_id=None)
    async with running(settings):
        assert loopback.api.command("wire") is not None
        assert list(loopback.api.commands) == ["global"]
        payload = slash(loopback.api, "wire help", channel_id=loopback.channel, who=GUEST)
        callback = await interact(loopback, payload)
    assert "/wire subscribe" in callback["data"]["content"]


async def test_shards_split_the_guilds_and_each_answers_its_own(loopback, tmp_path):
    loopback.api.shards = 2
    async with running(settings_for(loopback, tmp_path, shard_count=0)) as service:
        adapter = service.adapters["discord"]
        assert isinstance(adapter.bot.client, discord.AutoShardedClient)
        await loopback.gateway.wait_ready(2)
        shards = sorted(tuple(i["shard"]) for i in loopback.gateway.identifies)
        assert shards == [(0, 2), (1, 2)]
        payload = slash(loopback.api, "wire list", channel_id=loopback.channel, who=GUEST)
        callback = await interact(loopback, payload)
    assert callback["data"]["flags"] & EPHEMERAL


async def test_a_refused_token_is_one_clear_error(loopback, tmp_path):
    settings = settings_for(loopback, tmp_path, bot_token="not-the-token")
    service = await Service.start(settings=settings, config=load_config(ROOT / "config/demo.toml"))
    async with service:
        with pytest.raises(DiscordStartError) as refused:
            await service.start_frontends()
    assert "refused the bot token" in str(refused.value)
    assert "not-the-token" not in str(refused.value)
    assert loopback.gateway.sessions == []
    loopback.api.problems.clear()


async def test_run_once_logs_the_platform_in_without_a_gateway_session(loopback, tmp_path):
    settings = settings_for(loopback, tmp_path)
    service = await Service.start(settings=settings, config=load_config(ROOT / "config/demo.toml"))
    async with service:
        context = Context(
            platform="discord",
            workspace=loopback.api.guild_id,
            channel=loopback.channel,
            user_id="1300000000000000001",
            user_name="Ana",
        )
        reply = await service.commands.handle("/wire subscribe executorch", context=context)
        assert "Subscribed" in reply
        report = await service.run_once(now=datetime(2026, 5, 27, tzinfo=UTC))
        # no front end was started, so the service does not close the adapter itself
        await service.adapters["discord"].close()
    assert report.delivered.delivered == 1
    assert loopback.gateway.sessions == [] and "global" not in loopback.api.commands
    (parent,) = loopback.api.thread_messages(loopback.channel)
    assert loopback.api.thread_messages(parent["id"])
