"""A delivery worker process for the crash test: delivers everything in the outbox to the
loopback chat server, then exits 0. The test SIGKILLs it at random moments. The test starts
it with `run` in a process forked from a server that imported this module already (start-up
is then a fork, not a second of imports); by hand:

    python -m tests.crash_worker --database URL --server http://127.0.0.1:PORT --worker-id ID
"""

from __future__ import annotations

import argparse
import asyncio
from datetime import timedelta

import httpx

from bot.delivery.parts import Part
from bot.delivery.worker import Worker
from bot.errors import PermanentError, RetryableError
from bot.settings_sections import DeliverySettings
from bot.store import Store

SETTINGS = DeliverySettings(
    max_attempts=1000,
    backoff_base=0.01,
    backoff_cap=0.05,
    workers=2,
    batch_size=4,
    lease=timedelta(seconds=1.5),
)


class LoopbackPlatform:
    """Posts parts over HTTP to the test's loopback chat server, with idempotency keys."""

    name = "loopback"

    def __init__(self, client: httpx.AsyncClient) -> None:
        self._client = client

    async def post(self, channel: str, part: Part, thread: str | None, *, key: str) -> str:
        payload = {
            "channel": channel,
            "story_id": part.story_id,
            "part_index": part.index,
            "kind": part.kind,
            "thread": thread,
            "key": key,
        }
        try:
            response = await self._client.post("/post", json=payload)
        except httpx.TransportError as exc:
            raise RetryableError(f"loopback unreachable: {exc!r}") from exc
        if response.status_code >= 500:
            raise RetryableError(f"loopback answered {response.status_code}")
        if response.status_code >= 400:
            raise PermanentError(f"loopback refused: {response.text}")
        return response.json()["message_id"]

    async def update(self, channel: str, message_id: str, part: Part) -> None:
        raise PermanentError("the loopback server does not edit messages")


async def main(database: str, server: str, worker_id: str) -> None:
    async with (
        Store.from_url(database) as store,
        httpx.AsyncClient(base_url=server, timeout=10) as client,
    ):
        worker = Worker(store, [LoopbackPlatform(client)], settings=SETTINGS, worker_id=worker_id)
        await deliver_until_empty(worker, store)


async def deliver_until_empty(worker: Worker, store: Store) -> None:
    """Run `worker` until nothing in the outbox is pending or in progress."""
    while True:
        await worker.run_once()
        counts = await store.listing.counts()
        if counts["pending"] == counts["in_progress"] == 0:
            return
        await asyncio.sleep(0.05)


def run(database: str, server: str, worker_id: str) -> None:
    """The process's whole life: deliver until the outbox is empty."""
    asyncio.run(main(database, server, worker_id))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--database", required=True)
    parser.add_argument("--server", required=True)
    parser.add_argument("--worker-id", required=True)
    args = parser.parse_args()
    run(args.database, args.server, args.worker_id)
