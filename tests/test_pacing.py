"""Pacing of Slack posts, on a fake clock that only moves when someone sleeps."""

from __future__ import annotations

import asyncio

import pytest

from bot.pacing import Pacer


class Clock:
    """A monotonic clock for tests: `sleep` advances it and records the delay."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 6))
        self.now += seconds
        await asyncio.sleep(0)


def pacer(clock: Clock, **kwargs) -> Pacer:
    return Pacer(clock=clock, sleep=clock.sleep, **kwargs)


async def test_one_channel_gets_one_message_a_second() -> None:
    clock = Clock()
    pace = pacer(clock)
    for _ in range(3):
        await pace.wait("C1")
    assert clock.sleeps == [1.0, 1.0]


async def test_channels_do_not_wait_for_each_other_within_the_budget() -> None:
    clock = Clock()
    pace = pacer(clock, per_minute=600, burst=5)
    for i in range(5):
        await pace.wait(f"C{i}")
    assert clock.sleeps == []
    await pace.wait("C9")  # the bucket is empty: 600 a minute is one every 0.1 s
    assert clock.sleeps == [pytest.approx(0.1)]


async def test_the_workspace_budget_refills_over_time() -> None:
    clock = Clock()
    pace = pacer(clock, per_minute=60, burst=2)
    assert [pace.reserve() for _ in range(4)] == [0, 0, 1.0, 2.0]
    clock.now += 10
    assert [pace.reserve() for _ in range(3)] == [0, 0, 1.0]


async def test_concurrent_senders_to_one_channel_go_a_second_apart_in_order() -> None:
    clock = Clock()
    pace = pacer(clock)
    sent: list[tuple[int, float]] = []

    async def send(n: int) -> None:
        await pace.wait("C1")
        sent.append((n, clock.now))

    await asyncio.gather(*(send(n) for n in range(4)))
    assert [n for n, _ in sent] == [0, 1, 2, 3]
    assert [t - sent[0][1] for _, t in sent] == [0, 1.0, 2.0, 3.0]


async def test_a_waiting_channel_does_not_spend_the_workspace_budget() -> None:
    clock = Clock()
    pace = pacer(clock, per_minute=60, burst=2)
    await pace.wait("C1")
    waiting = asyncio.create_task(pace.wait("C1"))
    await asyncio.sleep(0)
    start = clock.now
    await pace.wait("C2")
    assert clock.now == start  # C2 used the second token while C1 waits its second out
    await waiting


async def test_pause_holds_a_channel_or_the_workspace() -> None:
    clock = Clock()
    pace = pacer(clock)
    pace.pause(5, channel="C1")
    await pace.wait("C2")
    assert clock.sleeps == []
    await pace.wait("C1")
    assert clock.sleeps == [5]
    pace.pause(7)
    await pace.wait("C3")
    assert clock.sleeps == [5, pytest.approx(7)]


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError):
        Pacer(per_minute=0)
