"""`wire run` and a PostgreSQL that goes away: at start it waits with back-off and answers
`/healthz` with 503 and the reason; while delivering it pauses, reports it, and resumes
with nothing lost. The database is reached through a loopback TCP proxy that refuses and
resets connections; PostgreSQL itself is real."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import aiohttp
import asyncpg
import pytest
from sqlalchemy.engine import make_url

from bot.app.resilience import keep_delivering, start_when_database_answers
from bot.app.service import Service
from bot.chat.adapters import Health
from bot.delivery.parts import parts_of
from bot.settings import Settings, load_settings
from bot.settings_sections import HttpSettings, SubscriptionSeed
from bot.store import upgrade_database
from digest.config import load_config
from tests.chat import ChatPlatform, Posted
from tests.conftest import POSTGRES_URL
from tests.fakes.tcp_proxy import TcpProxy
from tests.scratch_database import admin_dsn, drop_database

pytestmark = pytest.mark.postgres
ROOT = Path(__file__).resolve().parents[1]
SETTING = "check database_url in [service] or WIRE_DATABASE_URL"


@pytest.fixture
async def database() -> AsyncIterator[tuple[str, int, str]]:
    """A fresh, migrated database of its own: (host, port, name)."""
    if not POSTGRES_URL:
        pytest.skip("WIRE_TEST_POSTGRES_URL is not set")
    url = make_url(POSTGRES_URL)
    name = f"wire_faults_{secrets.token_hex(4)}"
    conn = await asyncpg.connect(admin_dsn(POSTGRES_URL))
    await conn.execute(f'CREATE DATABASE "{name}"')
    await upgrade_database(url.set(database=name))
    try:
        yield url.host or "127.0.0.1", url.port or 5432, name
    finally:
        await drop_database(conn, name)
        await conn.close()


def settings_through(proxy: TcpProxy, name: str, **overrides) -> Settings:
    """The demo's settings, the database reached through `proxy`."""
    url = make_url(POSTGRES_URL).set(host="127.0.0.1", port=proxy.port, database=name)
    return load_settings(
        config=ROOT / "config/demo.toml",
        env_file=None,
        database_url=url.render_as_string(hide_password=False),
        **overrides,
    )


async def test_wire_run_waits_for_the_database_and_says_so_on_healthz(database) -> None:
    host, port, name = database
    async with TcpProxy(host, port) as proxy:
        settings = settings_through(proxy, name, subscriptions=())
        await proxy.refuse()
        stop = asyncio.Event()
        standins: list[str] = []
        waiting = asyncio.create_task(
            start_when_database_answers(
                lambda: Service.start(
                    settings=settings,
                    config=load_config(ROOT / "config/demo.toml"),
                    platforms={"console": ChatPlatform(name="console")},
                ),
                stop=stop,
                http=HttpSettings(host="127.0.0.1", port=0),
                base=0.05,
                cap=0.2,
                on_standin=standins.append,
            )
        )
        while not standins:
            await asyncio.sleep(0.01)
        async with (
            aiohttp.ClientSession() as http,
            http.get(f"{standins[0]}/healthz") as answer,
        ):
            assert answer.status == 503
            body = await answer.json()
        assert body["ok"] is False
        assert body["problems"] == {
            "database": f"cannot reach the PostgreSQL database at 127.0.0.1:{proxy.port} "
            f"(connection refused); {SETTING}"
        }
        assert not waiting.done()
        await proxy.listen()  # the database is back
        service = await asyncio.wait_for(waiting, timeout=10)
        assert service is not None
        async with service:
            assert await service.store.subscriptions.list() == []
        async with aiohttp.ClientSession() as http:  # the stand-in is gone
            with pytest.raises(aiohttp.ClientConnectionError):
                await http.get(f"{standins[0]}/healthz")


class CuttingChat(ChatPlatform):
    """A chat at the far edge that, on its `at`-th post, has the database cut off (open
    connections reset, new ones refused) for `outage` seconds."""

    def __init__(self, proxy: TcpProxy, *, at: int, outage: float) -> None:
        super().__init__(name="console")
        self.proxy, self.at, self.outage = proxy, at, outage
        self.calls = 0
        self.outages: list[asyncio.Task[None]] = []

    async def post(self, channel: str, part, thread: str | None, *, key: str) -> str:
        self.calls += 1
        if self.calls == self.at:
            self.outages.append(asyncio.create_task(self._outage()))
            await asyncio.sleep(0.05)  # the cut lands while this delivery is under way
        return await super().post(channel, part, thread, key=key)

    async def _outage(self) -> None:
        await self.proxy.refuse()
        await asyncio.sleep(self.outage)
        await self.proxy.listen()


async def test_delivery_pauses_while_the_database_is_away_and_loses_nothing(database) -> None:
    host, port, name = database
    channels = [f"C{n}" for n in range(6)]
    async with TcpProxy(host, port) as proxy:
        settings = settings_through(
            proxy,
            name,
            subscriptions=[SubscriptionSeed(channel=c, target="executorch") for c in channels],
            delivery={"lease": "2s", "poll_interval": 0.05, "backoff_base": 0.05},
        )
        chat = CuttingChat(proxy, at=8, outage=1.0)
        async with await Service.start(
            settings=settings,
            config=load_config(ROOT / "config/demo.toml"),
            platforms={"console": chat},
        ) as service:
            report = await service.scheduler.compose_due(datetime.now(UTC))
            assert report.enqueued == len(channels)
            health = Health()
            stop = asyncio.Event()
            seen: list[dict[str, str]] = []
            delivering = asyncio.create_task(
                keep_delivering(service.worker, stop, health=health, base=0.1, cap=0.3)
            )
            for _ in range(400):
                seen.append(health.problems)
                counts = await _counts(service)
                if counts["delivered"] == len(channels):
                    break
                await asyncio.sleep(0.05)
            stop.set()
            await delivering
            for outage in chat.outages:
                await outage
            infos = await service.store.listing.list(limit=100)
            stories = {i.channel: await service.store.stories.get(i.story_id) for i in infos}
        assert {i.state for i in infos} == {"delivered"}
        assert any("database" in problems for problems in seen) and health.problems == {}
        assert proxy.faults >= 1
        print(f"faults injected: {proxy.faults} connections reset or refused")
    for channel in channels:
        story = stories[channel]
        assert story is not None
        posted = [p for p in chat.posts if p.channel == channel]
        assert_one_thread(posted, parts=len(parts_of(story)))


async def _counts(service: Service) -> dict[str, int]:
    try:
        return await service.store.listing.counts()
    except Exception:  # the database is away: not delivered yet
        return {"delivered": -1}


def assert_one_thread(posted: list[Posted], *, parts: int) -> None:
    """Each part once, in order, every reply threaded under the parent."""
    indexes = [p.part.index for p in posted]
    assert indexes == list(range(parts))
    parent = posted[0]
    assert parent.thread is None
    assert all(p.thread == parent.message_id for p in posted[1:])
