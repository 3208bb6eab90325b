"""Helpers of the chaos tests: a throwaway PostgreSQL server to restart, the demo service on
a fan-out of Slack channels, waiting for the outbox, and the check that every thread came
out whole.

The throwaway server has its own port and data directory (`pg_ctl`, as
.ci/start-postgres.sh does), so restarting it disturbs no other test's database.
"""

from __future__ import annotations

import asyncio
import glob
import os
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import asyncpg
from sqlalchemy.engine import make_url

from bot.app.service import Service
from bot.delivery.parts import parts_of
from bot.settings import load_settings
from bot.settings_sections import SubscriptionSeed
from bot.store import DeliveryInfo, upgrade_database
from digest.config import load_config
from tests.fakes.slack_server import TEAM_ID, FakeSlack
from tests.fakes.tcp_proxy import TcpProxy
from tests.scratch_database import admin_dsn, drop_database
from tests.slack_requests import SECRET, TOKEN, demo_config

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ThrowawayPostgres:
    """A PostgreSQL server of its own on 127.0.0.1, trust authentication, user postgres."""

    def __init__(self) -> None:
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
        self.bin = Path(found[-1]) if found else None
        self.port = _free_port()
        self.data = Path(f"/tmp/wire-chaos-pg-{self.port}")
        self.restarts = 0

    @property
    def available(self) -> bool:
        return self.bin is not None and (self.bin / "pg_ctl").exists()

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/{database}"

    def _as_postgres(self, *command: str) -> list[str]:
        assert self.bin is not None
        binary = [str(self.bin / command[0]), *command[1:]]
        return ["runuser", "-u", "postgres", "--", *binary] if os.getuid() == 0 else binary

    def _pg_ctl(self, *args: str) -> list[str]:
        return self._as_postgres("pg_ctl", "-D", str(self.data), "-w", *args)

    def start(self) -> None:
        shutil.rmtree(self.data, ignore_errors=True)
        self.data.mkdir(parents=True)
        if os.getuid() == 0:
            shutil.chown(self.data, "postgres")
        run = dict(check=True, capture_output=True, timeout=60)
        subprocess.run(self._as_postgres("initdb", "-D", str(self.data), "-U", "postgres",
                                         "--auth=trust", "-E", "UTF8"), **run)  # fmt: skip
        options = f"-h 127.0.0.1 -p {self.port} -k /tmp -c fsync=off -c max_connections=100"
        subprocess.run(self._pg_ctl("-l", str(self.data / "log"), "-o", options, "start"), **run)

    async def restart(self) -> float:
        """Restart the server (fast shutdown: every connection is dropped); seconds taken."""
        begun = time.monotonic()
        process = await asyncio.create_subprocess_exec(
            *self._pg_ctl("-m", "fast", "restart"),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        assert await process.wait() == 0
        self.restarts += 1
        return time.monotonic() - begun

    def stop(self) -> None:
        subprocess.run(self._pg_ctl("-m", "immediate", "stop"), capture_output=True, timeout=60)
        shutil.rmtree(self.data, ignore_errors=True)


def throwaway_postgres() -> Iterator[ThrowawayPostgres]:
    """Started for the caller (a fixture), stopped and removed after."""
    server = ThrowawayPostgres()
    server.start()
    try:
        yield server
    finally:
        server.stop()


def channels(count: int) -> list[str]:
    return [f"C0FAN{n:05d}" for n in range(count)]


async def slack_fanout(
    tmp_path: Path,
    slack: FakeSlack,
    *,
    database_url: str,
    count: int,
    api_url: str | None = None,
    **settings,
) -> Service:
    """The service as shipped, Slack its only platform at `slack` (or at `api_url`, a
    proxy in front of it), `count` channels subscribed as code (half to ExecuTorch, half
    to ci-infra); fast retries and leases."""
    seeds = [
        SubscriptionSeed(
            platform="slack",
            workspace=TEAM_ID,
            channel=channel,
            target="executorch" if n % 2 else "ci-infra",
        )
        for n, channel in enumerate(channels(count))
    ]
    config = demo_config(tmp_path)
    loaded = load_settings(
        config=config,
        env_file=None,
        database_url=database_url,
        platforms=("slack",),
        subscriptions=seeds,
        slack={
            "bot_token": TOKEN,
            "signing_secret": SECRET,
            "api_url": api_url or slack.url,
            "per_channel_interval": 0,
            "per_minute": 1_000_000,
            "burst": 10_000,
        },
        delivery={
            "lease": "2s",
            "poll_interval": 0.05,
            "backoff_base": 0.05,
            "backoff_cap": 0.5,
            "max_attempts": 100,
        },
        **settings,
    )
    return await Service.start(settings=loaded, config=load_config(config))


async def wait_delivered(service: Service, count: int, *, timeout: float) -> dict[str, int]:
    """Poll the outbox until `count` deliveries are delivered (the database may be away
    meanwhile); returns the last counts."""
    deadline = time.monotonic() + timeout
    counts: dict[str, int] = {}
    while time.monotonic() < deadline:
        try:
            counts = await service.store.listing.counts()
        except Exception:  # the database is restarting
            counts = {}
        if counts.get("delivered") == count:
            return counts
        await asyncio.sleep(0.1)
    raise AssertionError(f"not all delivered in {timeout} s: {counts}")


async def assert_whole_threads(service: Service, slack: FakeSlack, count: int) -> int:
    """Every delivery's parts in Slack exactly once, in order, as one thread; returns the
    number of messages checked."""
    infos: list[DeliveryInfo] = await service.store.listing.list(limit=count + 1)
    assert len(infos) == count and {i.state for i in infos} == {"delivered"}
    checked = 0
    for info in infos:
        story = await service.store.stories.get(info.story_id)
        assert story is not None
        parents = [m for m in slack.messages[info.channel] if m.thread_ts is None]
        assert len(parents) == 1, f"{info.channel}: {len(parents)} parents"
        [parent] = parents
        thread = slack.thread(info.channel, parent.ts)
        assert thread == slack.messages[info.channel]  # nothing outside the thread
        keys = [m.metadata["event_payload"]["key"] for m in thread]
        expected = [f"{info.id}.{i}" for i in range(len(parts_of(story)))]
        assert keys == expected, f"{info.channel}: {keys} != {expected}"
        checked += len(thread)
    return checked


async def fresh_database(base_url: str) -> AsyncIterator[str]:
    """A new, migrated database on the server of `base_url`, dropped after (a fixture)."""
    url = make_url(base_url)
    name = f"wire_chaos_{secrets.token_hex(4)}"
    admin = await asyncpg.connect(admin_dsn(base_url))
    await admin.execute(f'CREATE DATABASE "{name}"')
    migrated = url.set(database=name).render_as_string(hide_password=False)
    await upgrade_database(migrated)
    try:
        yield migrated
    finally:
        await drop_database(admin, name)
        await admin.close()


async def break_connections(proxy: TcpProxy, *, after: Callable[[], bool]) -> None:
    """Once `after()` holds (the story is under way): reset every connection and refuse
    new ones by reset for 0.3 s, then accept and never answer for 1.5 s, then forward
    again (ending the silent connections)."""
    while not after():
        await asyncio.sleep(0.002)
    proxy.mode = "reset"
    proxy.cut()
    await asyncio.sleep(0.3)
    proxy.mode = "silent"
    await asyncio.sleep(1.5)
    proxy.mode = "forward"
    proxy.cut()
