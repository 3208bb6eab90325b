"""Kill a delivering process at random moments, twenty times: every part of every story
still reaches the chat exactly once, in order, threaded under its parent.

Each incarnation is an OS process of its own (its connections die with it on SIGKILL),
forked from a multiprocessing forkserver that has imported the worker's modules, so that
twenty-one start-ups cost forks rather than twenty-one seconds of imports."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import signal
from collections import defaultdict

import pytest
from aiohttp import web

from bot.store import Store
from tests import crash_worker
from tests.conftest import build_story

STORIES = 200
PARTS = 4  # parent, body, one action item, references
KILLS = 20


class LoopbackChat:
    """A slow chat server on 127.0.0.1 that honours idempotency keys like client_msg_id."""

    def __init__(self, seed: int) -> None:
        self.records: list[dict] = []
        self.by_key: dict[str, str] = {}
        self.repeats = 0
        self.requests = 0
        self._rng = random.Random(seed)

    async def post(self, request: web.Request) -> web.Response:
        self.requests += 1
        body = await request.json()
        known = self.by_key.get(body["key"])
        if known is not None:
            self.repeats += 1
            return web.json_response({"message_id": known})
        message_id = f"msg-{len(self.records) + 1}"
        self.by_key[body["key"]] = message_id
        self.records.append({**body, "message_id": message_id})
        # Accepted before answering slowly: a kill here leaves a posted, unrecorded part.
        await asyncio.sleep(self._rng.uniform(0.002, 0.012))
        return web.json_response({"message_id": message_id})


async def start_server(chat: LoopbackChat) -> tuple[web.AppRunner, str]:
    app = web.Application()
    app.router.add_post("/post", chat.post)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    return runner, f"http://127.0.0.1:{port}"


_FORKSERVER = multiprocessing.get_context("forkserver")
_FORKSERVER.set_forkserver_preload(["tests.crash_worker"])


class Incarnation:
    """One run of `tests.crash_worker` in a process of its own."""

    def __init__(self, database_url: str, server: str, n: int) -> None:
        self._process = _FORKSERVER.Process(
            target=crash_worker.run, args=(database_url, server, f"crash-{n}")
        )
        self._process.start()
        self._exit: int | None = None

    @property
    def returncode(self) -> int | None:
        return self._exit if self._exit is not None else self._process.exitcode

    def kill(self) -> None:
        assert self._process.pid is not None
        os.kill(self._process.pid, signal.SIGKILL)

    async def wait(self) -> int:
        if self._exit is None:
            await asyncio.to_thread(self._process.join)
            assert self._process.exitcode is not None
            self._exit = self._process.exitcode
            self._process.close()
        return self._exit


def spawn(database_url: str, server: str, n: int) -> Incarnation:
    return Incarnation(database_url, server, n)


@pytest.mark.slow
async def test_sigkill_twenty_times_and_every_part_arrives_once(database_url: str) -> None:
    async with Store.from_url(database_url) as store:
        for n in range(STORIES):
            story = build_story(n, items=1)
            await store.deliveries.enqueue(
                story, platform="loopback", workspace="W", channel=f"C{n % 5}"
            )
    rng = random.Random(20260302)
    chat = LoopbackChat(seed=7)
    runner, server = await start_server(chat)
    processes: list[Incarnation] = []
    try:
        for n in range(KILLS):
            seen = chat.requests
            process = spawn(database_url, server, n)
            processes.append(process)
            for _ in range(1000):  # until this incarnation is posting
                if chat.requests > seen or process.returncode is not None:
                    break
                await asyncio.sleep(0.01)
            await asyncio.sleep(rng.uniform(0.0, 0.25))
            if process.returncode is None:
                process.kill()
            await process.wait()
        before_last = len(chat.records)
        last = spawn(database_url, server, KILLS)
        processes.append(last)
        assert await asyncio.wait_for(last.wait(), timeout=60) == 0
    finally:
        for process in processes:
            if process.returncode is None:
                process.kill()
                await process.wait()
        await runner.cleanup()

    assert before_last < STORIES * PARTS, "the kills should have left work for the last run"
    by_story: dict[str, list[dict]] = defaultdict(list)
    for record in chat.records:
        by_story[record["story_id"]].append(record)
    assert len(by_story) == STORIES
    for posts in by_story.values():
        assert [p["part_index"] for p in posts] == list(range(PARTS))
        parent = posts[0]["message_id"]
        assert [p["thread"] for p in posts] == [None] + [parent] * (PARTS - 1)
    async with Store.from_url(database_url) as store:
        counts = await store.listing.counts()
        assert counts["delivered"] == STORIES and counts["dead"] == 0
        recorded = {
            info.id: await store.deliveries.posted_parts(info.id)
            for info in await store.listing.list(limit=STORIES)
        }
    server_ids = {r["key"]: r["message_id"] for r in chat.records}
    for delivery_id, parts in recorded.items():
        assert [p.message_id for p in parts] == [
            server_ids[f"{delivery_id}.{i}"] for i in range(PARTS)
        ]
    print(f"\nrepeated keys answered from the server's memory: {chat.repeats}")
