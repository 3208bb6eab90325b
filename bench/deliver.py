"""Delivery throughput: 10,000 deliveries of a 4-part story to a no-op platform.

    .venv/bin/python bench/deliver.py                      # SQLite, one worker
    .venv/bin/python bench/deliver.py --pg postgresql+asyncpg://wire:wire@127.0.0.1:54329/wire_test

SQLite runs one worker process. PostgreSQL (given by --pg or WIRE_TEST_POSTGRES_URL) runs
1, 2 and 4 worker processes on a scratch database that is dropped afterwards. Each run
prints deliveries/s, parts/s and the ratio to one worker. Setup (bulk insert of the outbox)
is not timed; the timed part is claim → post 4 parts → record each → finish.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import secrets
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import asyncpg
from sqlalchemy import insert, text
from sqlalchemy.engine import make_url

from bot.delivery.parts import Part
from bot.delivery.worker import Worker
from bot.settings_sections import DeliverySettings
from bot.store import Store, upgrade_database
from bot.store.tables import DeliveryRow
from digest.model import ActionItem, Reference, Sentence, Story, Window
from tests.scratch_database import admin_dsn, drop_database

PARTS = 4
SETTINGS = DeliverySettings(batch_size=50, workers=1)


class NoopPlatform:
    """Accepts every part at once; the key is the message id."""

    name = "noop"

    async def post(self, channel: str, part: Part, thread: str | None, *, key: str) -> str:
        return key

    async def update(self, channel: str, message_id: str, part: Part) -> None:
        return None


def story() -> Story:
    ref = Reference(n=1, repo="pytorch/executorch", number=1, title="Fix", url="https://x/1")
    return Story(
        id="story_bench",
        window=Window(
            since=datetime(2026, 3, 2, tzinfo=UTC), until=datetime(2026, 3, 3, tzinfo=UTC)
        ),
        repos=("pytorch/executorch",),
        headline="EXECUTORCH FIXES A CRASH",
        lede="A crash is fixed.",
        body=(Sentence(text="A crash is fixed.", refs=(1,)),),
        action_items=(
            ActionItem(id="item_1", text="Rebuild", urgency="plan", repo="pytorch/executorch"),
        ),
        references=(ref,),
    )


async def fill(url: str, count: int) -> None:
    """An empty outbox, then `count` pending deliveries of one story to distinct channels."""
    async with Store.from_url(url) as store:
        async with store.engine.begin() as conn:
            for table in ("posted_parts", "deliveries", "stories"):
                await conn.execute(text(f"DELETE FROM {table}"))
        await store.stories.save(story())
        now = datetime.now(UTC)
        rows = [
            dict(
                story_id="story_bench",
                platform="noop",
                workspace="W",
                channel=f"C{i}",
                state="pending",
                attempts=0,
                next_attempt_at=now,
                created_at=now,
            )
            for i in range(count)
        ]
        async with store.engine.begin() as conn:
            for start in range(0, count, 1000):
                await conn.execute(insert(DeliveryRow), rows[start : start + 1000])


async def drain(url: str, worker_id: str) -> int:
    async with Store.from_url(url) as store:
        worker = Worker(store, [NoopPlatform()], settings=SETTINGS, worker_id=worker_id)
        return (await worker.run_once()).delivered


def _process(url: str, worker_id: str, go: multiprocessing.Event, out: multiprocessing.Queue):
    go.wait()
    out.put(asyncio.run(drain(url, worker_id)))


def run_processes(url: str, processes: int) -> tuple[float, int]:
    context = multiprocessing.get_context("spawn")
    go, out = context.Event(), context.Queue()
    workers = [
        context.Process(target=_process, args=(url, f"bench-{i}", go, out))
        for i in range(processes)
    ]
    for process in workers:
        process.start()
    time.sleep(1.5)  # let every process import before the clock starts
    started = time.perf_counter()
    go.set()
    delivered = sum(out.get() for _ in workers)
    elapsed = time.perf_counter() - started
    for process in workers:
        process.join()
    return elapsed, delivered


def report(label: str, elapsed: float, delivered: int, base: float | None) -> float:
    rate = delivered / elapsed
    ratio = f"  ×{rate / base:.2f} of one worker" if base else ""
    print(
        f"{label:<28} {delivered:>6} deliveries in {elapsed:6.2f} s: "
        f"{rate:8.0f} deliveries/s {rate * PARTS:8.0f} parts/s{ratio}"
    )
    return rate


async def _admin(url: str, sql: str) -> None:
    conn = await asyncpg.connect(admin_dsn(url))
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


async def _drop(url: str, name: str) -> None:
    conn = await asyncpg.connect(admin_dsn(url))
    try:
        await drop_database(conn, name)
    finally:
        await conn.close()


def bench_postgres(url: str, count: int, processes: list[int]) -> None:
    name = f"wire_bench_{secrets.token_hex(4)}"
    asyncio.run(_admin(url, f'CREATE DATABASE "{name}"'))
    scratch = make_url(url).set(database=name).render_as_string(hide_password=False)
    try:
        asyncio.run(upgrade_database(scratch))
        base = None
        for n in processes:
            asyncio.run(fill(scratch, count))
            elapsed, delivered = run_processes(scratch, n)
            rate = report(f"PostgreSQL, {n} process(es)", elapsed, delivered, base)
            base = base or rate
    finally:
        asyncio.run(_drop(url, name))


def bench_sqlite(count: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{folder}/bench.db"
        asyncio.run(upgrade_database(url))
        asyncio.run(fill(url, count))
        started = time.perf_counter()
        delivered = asyncio.run(drain(url, "bench"))
        report("SQLite, 1 worker", time.perf_counter() - started, delivered, None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deliveries", type=int, default=10_000)
    parser.add_argument("--pg", default=os.environ.get("WIRE_TEST_POSTGRES_URL"))
    parser.add_argument("--processes", default="1,2,4", help="PostgreSQL worker processes")
    parser.add_argument("--skip-sqlite", action="store_true")
    args = parser.parse_args()
    print(f"{args.deliveries} deliveries × {PARTS} parts, batch {SETTINGS.batch_size}")
    if not args.skip_sqlite:
        bench_sqlite(args.deliveries)
    if args.pg:
        bench_postgres(args.pg, args.deliveries, [int(n) for n in args.processes.split(",")])
    else:
        print("PostgreSQL: skipped (give --pg URL or set WIRE_TEST_POSTGRES_URL)")


if __name__ == "__main__":
    main()
