"""Chaos: restart PostgreSQL in the middle of a 200-channel fan-out to the loopback Slack.
The worker pauses, waits for the database, and carries on; every thread comes out whole,
each part once and in order. The server restarted is a throwaway one of this module."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import asyncpg
import pytest

from bot.app.resilience import keep_delivering
from bot.chat.adapters import Health
from bot.store import upgrade_database
from tests.chaos import ThrowawayPostgres, assert_whole_threads, slack_fanout, throwaway_postgres
from tests.chaos import channels as channel_names
from tests.fakes.slack_server import FakeSlack
from tests.slack_requests import TOKEN

pytestmark = pytest.mark.postgres
FANOUT = 200


@pytest.fixture(scope="module")
def postgres() -> Iterator[ThrowawayPostgres]:
    if not ThrowawayPostgres().available:
        pytest.skip("no PostgreSQL server binaries (bash .ci/start-postgres.sh installs them)")
    yield from throwaway_postgres()


async def _connections(postgres: ThrowawayPostgres, database: str) -> int:
    conn = await asyncpg.connect(postgres.url().replace("+asyncpg", ""))
    try:
        return await conn.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = $1", database
        )
    finally:
        await conn.close()


async def test_a_database_restart_mid_fanout_loses_and_repeats_nothing(
    tmp_path: Path, postgres: ThrowawayPostgres, caplog: pytest.LogCaptureFixture
) -> None:
    admin = await asyncpg.connect(postgres.url().replace("+asyncpg", ""))
    await admin.execute("DROP DATABASE IF EXISTS wire WITH (FORCE)")
    await admin.execute("CREATE DATABASE wire")
    await admin.close()
    url = postgres.url("wire")
    await upgrade_database(url)
    async with FakeSlack(
        tokens=[TOKEN], channels=channel_names(FANOUT), per_channel_interval=0
    ) as slack:
        async with await slack_fanout(tmp_path, slack, database_url=url, count=FANOUT) as service:
            report = await service.scheduler.compose_due(datetime.now(UTC))
            assert report.enqueued == FANOUT
            health, stop = Health(), asyncio.Event()
            unhealthy: list[str] = []
            delivering = asyncio.create_task(
                keep_delivering(service.worker, stop, health=health, base=0.1, cap=0.5)
            )
            while len(slack.calls("chat.postMessage")) < FANOUT:  # the fan-out is under way
                await asyncio.sleep(0.005)
            dropped = await _connections(postgres, "wire")
            took = await postgres.restart()
            try:
                for _ in range(400):
                    unhealthy += health.problems.values()
                    try:
                        counts = await service.store.listing.counts()
                    except Exception:  # not back yet
                        counts = {}
                    if counts.get("delivered") == FANOUT:
                        break
                    await asyncio.sleep(0.05)
            finally:
                stop.set()
                await delivering
            checked = await assert_whole_threads(service, slack, FANOUT)
        assert slack.problems == []
    assert health.problems == {}
    interrupted = {
        r.getMessage() for r in caplog.records if "failed unexpectedly" in r.getMessage()
    }
    print(
        f"faults injected: {postgres.restarts} PostgreSQL restart ({took:.1f} s), "
        f"{dropped} server connections dropped, {len(interrupted)} deliveries interrupted, "
        f"delivery paused {'yes' if unhealthy else 'no'}; {checked} messages checked"
    )
