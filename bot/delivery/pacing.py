"""Pacing of posts: a minimum interval per channel, and a budget shared by all channels.

Chat APIs refuse bursts with HTTP 429: Slack allows chat.postMessage about one message per
second per channel and a few hundred a minute per workspace; Discord 50 requests a second
per bot across all routes. Pacing keeps us under such limits so a fan-out to many channels
does not spend its time being refused:

- per channel, a message goes `per_channel_interval` seconds after the API answered the
  previous one, in the order they asked (one FIFO lock per channel, held while sending);
- per workspace, a token bucket (the generic cell rate algorithm: one "theoretical arrival
  time") holding `burst` tokens, charged when a message actually goes, so a channel's wait
  never uses up other channels' budget. It refills just slowly enough that no 60 seconds
  ever hold more than `per_minute` messages, burst included, even as counted by a server
  that sees each message up to `skew` seconds after the pacer let it go (transit, a busy
  event loop): a burst of b, then one every (60 + skew) / (per_minute - b + 1) seconds.
  So a limit counted per fixed or per sliding minute is never hit, however long the run.

The clock and the sleep are injectable for tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable

_EPSILON = 1e-9  # float noise in the bucket's arithmetic is not a wait


class Pacer:
    """Books send slots per channel and against a workspace-wide budget."""

    def __init__(
        self,
        *,
        per_channel_interval: float = 1.0,
        per_minute: float = 240,
        burst: int = 10,
        skew: float = 0.25,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        if per_channel_interval < 0 or per_minute <= 0 or burst < 1 or skew < 0:
            raise ValueError("pacing needs interval ≥ 0, per_minute > 0, burst ≥ 1, skew ≥ 0")
        self.per_channel_interval = per_channel_interval
        self.burst = max(1, min(burst, math.floor(per_minute)))
        # b at once, then one every e: any span shorter than 60 s + skew holds at most
        # b + (per_minute - b) messages.
        self._emission = (60.0 + skew) / (per_minute - self.burst + 1)
        self._tolerance = (self.burst - 1) * self._emission
        self._clock = clock
        self._sleep = sleep
        self._tat = float("-inf")
        self._next: dict[str, float] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def reserve(self) -> float:
        """Take one token of the workspace budget now; return the seconds to wait before
        using it (0 when the bucket had one)."""
        now = self._clock()
        start = max(now, self._tat - self._tolerance)
        self._tat = max(self._tat, start) + self._emission
        return start - now if start - now > _EPSILON else 0.0

    @contextlib.asynccontextmanager
    async def slot(self, channel: str) -> AsyncIterator[None]:
        """Hold the next slot of `channel` while sending: enter once the channel's last
        message is `per_channel_interval` old (in order of asking) and the workspace budget
        allows; the interval counts from when the block is left, i.e. from the API's answer,
        so network delays never squeeze two messages closer than the interval."""
        lock = self._locks.setdefault(channel, asyncio.Lock())
        async with lock:
            await self._sleep_for(self._next.get(channel, 0.0) - self._clock())
            await self._sleep_for(self.reserve())
            try:
                yield
            finally:
                self._next[channel] = self._clock() + self.per_channel_interval
        if len(self._next) > 4096:
            self._forget()

    async def wait(self, channel: str | None = None) -> None:
        """Wait until a message may go (to `channel`, when given; see `slot`)."""
        if channel is None:
            await self._sleep_for(self.reserve())
            return
        async with self.slot(channel):
            pass

    async def _sleep_for(self, seconds: float) -> None:
        if seconds > 0:
            await self._sleep(seconds)

    def pause(self, seconds: float, *, channel: str | None = None) -> None:
        """Hold back sends for `seconds` (after the API said Retry-After): to `channel` only
        when given, else everywhere."""
        until = self._clock() + seconds
        if channel is not None:
            self._next[channel] = max(self._next.get(channel, until), until)
            self._locks.setdefault(channel, asyncio.Lock())
        else:
            self._tat = max(self._tat, until + self._tolerance)

    def _forget(self) -> None:
        now = self._clock()
        idle = [c for c, t in self._next.items() if t <= now and not self._locks[c].locked()]
        for channel in idle:
            del self._next[channel]
            del self._locks[channel]
