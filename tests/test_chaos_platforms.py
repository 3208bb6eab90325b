"""Chaos: the connection to the loopback Slack and Discord breaks in the middle of a story:
every connection reset, then new ones reset, then a server that accepts and never answers,
then it heals. Every thread still comes out whole, each part once and in order. The store
is a real PostgreSQL; a TCP proxy stands between the service and each fake."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from yarl import URL

from bot.app.service import Service
from bot.delivery.parts import parts_of
from bot.discord.adapter import DiscordAdapter
from bot.discord.platform import nonce_of
from bot.settings import load_settings
from bot.settings_sections import SubscriptionSeed
from digest.config import load_config
from tests import test_discord_frontend as discord_tests
from tests.chaos import (
    assert_whole_threads,
    break_connections,
    fresh_database,
    slack_fanout,
    wait_delivered,
)
from tests.chaos import channels as channel_names
from tests.conftest import POSTGRES_URL
from tests.fakes.discord_gateway import LoopbackDiscord
from tests.fakes.slack_server import FakeSlack
from tests.fakes.tcp_proxy import TcpProxy
from tests.slack_requests import TOKEN, demo_config

pytestmark = pytest.mark.postgres
CHANNELS = 12
restore_discord_py_globals = discord_tests.restore_discord_py_globals  # autouse


@pytest.fixture
async def database() -> AsyncIterator[str]:
    if not POSTGRES_URL:
        pytest.skip("WIRE_TEST_POSTGRES_URL is not set")
    async for url in fresh_database(POSTGRES_URL):
        yield url


async def test_slack_connections_break_mid_story(tmp_path: Path, database: str) -> None:
    async with FakeSlack(
        tokens=[TOKEN], channels=channel_names(CHANNELS), per_channel_interval=0
    ) as slack:
        host, port = URL(slack.url).host, URL(slack.url).port
        async with TcpProxy(host or "127.0.0.1", port or 80) as proxy:
            service = await slack_fanout(
                tmp_path,
                slack,
                database_url=database,
                count=CHANNELS,
                api_url=f"http://127.0.0.1:{proxy.port}/api/",
            )
            async with service:
                service.worker.platforms["slack"].client.timeout = 1  # a silent server: 1 s
                assert (await service.scheduler.compose_due(datetime.now(UTC))).enqueued == 12
                posted = lambda: len(slack.calls("chat.postMessage")) >= 2 * CHANNELS  # noqa: E731
                breaking = asyncio.create_task(break_connections(proxy, after=posted))
                stop = asyncio.Event()
                delivering = asyncio.create_task(service.worker.run_forever(stop))
                await wait_delivered(service, CHANNELS, timeout=20)
                await breaking
                stop.set()
                await delivering
                checked = await assert_whole_threads(service, slack, CHANNELS)
        assert slack.problems == []
    assert proxy.faults >= 1
    print(
        f"faults injected (Slack): {proxy.faults} connections reset or left unanswered; "
        f"{checked} messages checked"
    )


async def test_discord_connections_break_mid_story(
    tmp_path: Path, database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(DiscordAdapter, "request_timeout", 1.0)
    async with LoopbackDiscord() as discord:
        channels = [discord.api.add_channel(f"wire-{n}") for n in range(CHANNELS)]
        rest = URL(discord.api_url)
        async with TcpProxy(rest.host or "127.0.0.1", rest.port or 80) as proxy:
            config = demo_config(tmp_path)
            settings = load_settings(
                config=config,
                env_file=None,
                database_url=database,
                platforms=("discord",),
                subscriptions=[
                    SubscriptionSeed(
                        platform="discord",
                        workspace=discord.api.guild_id,
                        channel=channel,
                        target="executorch" if n % 2 else "ci-infra",
                    )
                    for n, channel in enumerate(channels)
                ],
                discord={
                    "bot_token": discord.api.token,
                    "api_url": f"http://127.0.0.1:{proxy.port}{rest.path}",
                    "requests_per_second": 1000,
                },
                delivery={
                    "lease": "2s",
                    "poll_interval": 0.05,
                    "backoff_base": 0.05,
                    "backoff_cap": 0.5,
                    "max_attempts": 100,
                },
            )
            async with await Service.start(
                settings=settings, config=load_config(config)
            ) as service:
                assert (await service.scheduler.compose_due(datetime.now(UTC))).enqueued == 12
                posted = lambda: len(discord.api.messages) >= 2 * CHANNELS  # noqa: E731
                breaking = asyncio.create_task(break_connections(proxy, after=posted))
                stop = asyncio.Event()
                delivering = asyncio.create_task(service.worker.run_forever(stop))
                await wait_delivered(service, CHANNELS, timeout=20)
                await breaking
                stop.set()
                await delivering
                infos = await service.store.listing.list(limit=100)
                stories = {i.id: await service.store.stories.get(i.story_id) for i in infos}
        assert discord.problems == []
    checked = 0
    for info in infos:
        story = stories[info.id]
        assert story is not None
        mine = [
            m
            for m in discord.api.messages.values()
            if str(m.get("nonce", "")).startswith(f"{info.id}.")
        ]
        expected = [nonce_of(f"{info.id}.{i}") for i in range(len(parts_of(story)))]
        assert [m["nonce"] for m in mine] == expected  # each part once, in order
        parent, *replies = mine
        assert parent["channel_id"] == info.channel
        assert {m["channel_id"] for m in replies} == {parent["id"]}  # in the parent's thread
        checked += len(mine)
    assert proxy.faults >= 1
    print(
        f"faults injected (Discord): {proxy.faults} connections reset or left unanswered; "
        f"{checked} messages checked"
    )
