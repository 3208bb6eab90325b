"""Pacing of Slack posts, on a fake clock that only moves when someone sleeps."""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.delivery.pacing import Pacer


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
    pace = pacer(clock, per_minute=604, burst=5, skew=0)
    for i in range(5):
        await pace.wait(f"C{i}")
    assert clock.sleeps == []
    await pace.wait("C9")  # the bucket is empty: the 600 left of 604 a minute, one every 0.1 s
    assert clock.sleeps == [pytest.approx(0.1)]


async def test_the_workspace_budget_refills_over_time() -> None:
    clock = Clock()
    pace = pacer(clock, per_minute=61, burst=2, skew=0)
    assert [pace.reserve() for _ in range(4)] == [0, 0, 1.0, 2.0]
    clock.now += 10
    assert [pace.reserve() for _ in range(3)] == [0, 0, 1.0]


def send_times(pace: Pacer, clock: Clock, count: int) -> list[float]:
    """When `count` messages go, each sender taking its token and waiting as told."""
    times = []
    for _ in range(count):
        clock.now += pace.reserve()
        times.append(clock.now)
    return times


def busiest_minute(times: list[float]) -> int:
    """The most messages a server counting the last 60 s, (t - 60, t], ever holds."""
    ordered = sorted(times)
    return max(sum(1 for s in ordered if t - 60 < s <= t) for t in ordered)


@pytest.mark.parametrize(("per_minute", "burst"), [(120, 10), (240, 1), (300, 40), (5, 10)])
def test_no_minute_ever_holds_more_than_the_budget(per_minute: int, burst: int) -> None:
    clock = Clock()
    # a microsecond of skew keeps the window's exact edge out of floating-point noise
    times = send_times(pacer(clock, per_minute=per_minute, burst=burst, skew=1e-6), clock, 700)
    assert busiest_minute(times) == per_minute  # full use of the budget, never more
    assert times.count(times[0]) == min(burst, per_minute)  # the burst went at once


def test_the_budget_holds_when_the_server_sees_messages_late() -> None:
    skew = 0.5
    clock = Clock()
    times = send_times(pacer(clock, per_minute=600, burst=10, skew=skew), clock, 2000)
    rng = random.Random(4)
    seen = [t + rng.uniform(0, skew) for t in times]
    assert busiest_minute(seen) <= 600
    # what the margin costs: after the burst, 591 messages every 60.5 s
    assert 60 * (len(times) - 10) / (times[-1] - times[0]) == pytest.approx(591 * 60 / 60.5)


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
    for bad in (dict(per_minute=0), dict(burst=0), dict(skew=-1), dict(per_channel_interval=-1)):
        with pytest.raises(ValueError):
            Pacer(**bad)
