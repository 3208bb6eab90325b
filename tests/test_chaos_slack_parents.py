"""Kill a process delivering one story to many Slack channels while Slack is slow to answer,
again and again: no channel ever reads two parents (two threads of one story).

Slack has no client message id, and a process that dies after Slack accepted a parent and
before recording it remembers nothing. The next attempt at that delivery is told so by the
worker and looks for the parent (by its key, in the message metadata) among the channel's
latest messages before posting it. Each incarnation is an OS process of its own, forked
from a forkserver that has imported the worker's modules, against the loopback Slack, which
answers every call `DELAY` seconds after it took effect."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import signal
from collections import Counter

import pytest

from bot.store import Store
from tests import crash_slack_worker
from tests.conftest import build_story
from tests.fakes.slack_server import FakeSlack

CHANNELS = [f"C0CRASH{n:03d}" for n in range(24)]
KILLS = 8
DELAY = 0.15  # seconds Slack takes to answer, after the post took effect

_FORKSERVER = multiprocessing.get_context("forkserver")
_FORKSERVER.set_forkserver_preload(["tests.crash_slack_worker"])


def spawn(database_url: str, slack: str, n: int) -> multiprocessing.process.BaseProcess:
    process = _FORKSERVER.Process(
        target=crash_slack_worker.run, args=(database_url, slack, f"slack-crash-{n}")
    )
    process.start()
    return process


def parents_posted(slack: FakeSlack) -> int:
    return sum(1 for posted in slack.messages.values() for m in posted if m.thread_ts is None)


async def finished(process: multiprocessing.process.BaseProcess) -> int:
    await asyncio.to_thread(process.join)
    assert process.exitcode is not None
    return process.exitcode


@pytest.mark.slow
async def test_kills_mid_fanout_with_a_slow_slack_leave_one_parent_per_channel(
    database_url: str,
) -> None:
    story = build_story(5, items=1)
    async with Store.from_url(database_url) as store:
        for channel in CHANNELS:
            await store.deliveries.enqueue(story, platform="slack", workspace="T1", channel=channel)
    rng = random.Random(20261204)
    slack = FakeSlack(
        tokens=[crash_slack_worker.TOKEN],
        channels=CHANNELS,
        per_channel_interval=0.0,
        per_minute=1_000_000,
        delay=DELAY,
    )
    kills = 0
    async with slack:
        for n in range(KILLS):
            seen = parents_posted(slack)
            process = spawn(database_url, slack.url, n)
            for _ in range(2000):  # until this incarnation has posted a parent
                if parents_posted(slack) > seen or process.exitcode is not None:
                    break
                await asyncio.sleep(0.005)
            # while Slack has yet to answer that post: posted, and never recorded
            await asyncio.sleep(rng.uniform(0, DELAY / 2))
            if process.exitcode is None:
                assert process.pid is not None
                os.kill(process.pid, signal.SIGKILL)
                kills += 1
            await finished(process)
        last = spawn(database_url, slack.url, KILLS)
        assert await asyncio.wait_for(finished(last), timeout=120) == 0
        messages = {channel: list(slack.messages.get(channel, [])) for channel in CHANNELS}
        histories = len(slack.calls("conversations.history"))
    assert slack.problems == []

    parents = Counter(c for c, posted in messages.items() for m in posted if m.thread_ts is None)
    keys = Counter(
        (m.metadata or {}).get("event_payload", {}).get("key")
        for posted in messages.values()
        for m in posted
    )
    total = sum(len(posted) for posted in messages.values())
    print(
        f"\n{len(CHANNELS)} channels, {kills} kills, {total} messages, "
        f"{sum(n - 1 for n in parents.values())} duplicate parents, "
        f"{histories} channel reads to resume"
    )
    assert kills >= KILLS // 2, "the kills should land while the fan-out runs"
    assert parents == Counter({channel: 1 for channel in CHANNELS})
    assert [key for key, n in keys.items() if n > 1] == []
    async with Store.from_url(database_url) as store:
        counts = await store.listing.counts()
    assert counts["delivered"] == len(CHANNELS) and counts["dead"] == 0
