"""The delivery worker: claim due outbox rows, post each story's parts in order, retry.

For each claimed delivery the worker posts the parts not yet recorded, in order: the first
part's message is the thread parent and every later part is posted as a reply to it. Each
part's message id is recorded in its own transaction as soon as the platform returns it,
so a crash resumes after the last recorded part and a recorded part is never posted again.

The one gap left, a crash after the platform accepted a part but before its id was
recorded, is closed by the platform: every `post` carries the idempotency key
"<delivery id>.<part index>", and a platform answers a repeated key with the message it
already posted (see `bot.delivery.platform`). Together: nothing twice, nothing lost.

Failures: `RetryableError` puts the delivery back with exponential back-off and full
jitter, never sooner than the platform's `retry_after`; `PermanentError`, or running out
of attempts, dead-letters it with the error kept. A story whose checks failed is
dead-lettered at enqueue (`Deliveries.enqueue`) and, should one reach a worker anyway,
dead-lettered before any part is posted.

Concurrency: a worker keeps up to `workers` deliveries in flight, each posting its parts in
order, and starts the next as soon as one ends, claiming `batch_size` rows at a time; a
channel that is slow (paced, rate limited, a slow server) holds only its own slot. Claims
skip the rows the worker holds even past their lease, lest two of its tasks post one part.

Stopping: `run_forever(stop)` and `run_once(stop=…)` look at `stop` between parts; the part
in flight finishes and is recorded, and the rest of that delivery is released for any
worker to resume, as are claimed rows not yet started. The caller wires SIGTERM to
`stop.set()` (and must not cancel the task).
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from bot import logs, metrics
from bot.delivery.attempts import Summary, backoff, default_worker_id, part_key
from bot.delivery.parts import item_id_of, parts_of
from bot.delivery.platform import Platform, Resumable
from bot.errors import LeaseLostError, PermanentError, RetryableError
from bot.settings_sections import DeliverySettings
from bot.store import Claim, PostedPart, Store, check_failure, utcnow
from digest.model import Story

log = logging.getLogger("wire.deliver")
STORY_CACHE = 256  # stories kept parsed by a worker (a story never changes under its id)


@dataclass(frozen=True)
class _Claimed:
    """A claimed delivery waiting for a slot, with what was known when it was claimed."""

    claim: Claim
    posted: list[PostedPart]
    claimed_at: datetime


class Worker:
    """Delivers claimed outbox rows through the platform named by each row."""

    def __init__(
        self,
        store: Store,
        platforms: Mapping[str, Platform] | Iterable[Platform],
        *,
        settings: DeliverySettings | None = None,
        worker_id: str | None = None,
        rng: random.Random | None = None,
        public_url: str | None = None,
        default_zone: str = "UTC",
    ) -> None:
        self.store = store
        self.public_url = public_url  # [web] public_url: parent messages link to the archive
        self.default_zone = default_zone  # [schedule] timezone: a channel's unless it set one
        self.platforms = (
            dict(platforms) if isinstance(platforms, Mapping) else {p.name: p for p in platforms}
        )
        self.settings = settings or DeliverySettings()
        self.worker_id = worker_id or default_worker_id()
        self._rng = rng or random.Random()
        self._stories: dict[str, Story] = {}
        self._held: set[int] = set()  # delivery ids claimed and not yet settled or released
        self._arrivals = store.deliveries.arrivals  # rung by each enqueue in this process

    async def run_once(self, *, stop: asyncio.Event | None = None) -> Summary:
        """Deliver everything due now and return what happened.

        A sliding window: up to `settings.workers` deliveries are in flight, and as each one
        ends the next starts, claiming `batch_size` more rows whenever the claimed ones run
        out; one slow channel never holds back the others. When the outbox had nothing due,
        it is looked at again every `poll_interval` while a slot is free, at once when this
        process queues a delivery (`Deliveries.arrivals`), and once more when nothing is in
        flight, for rows that came due meanwhile (new ones, retries).

        On `stop` no delivery starts, the ones in flight finish their part in flight and
        release the rest, and claims not yet started are released untried. A store failure
        (a delivery's or a claim's) stops new starts, lets the others finish, and is raised.
        """
        stop = stop or asyncio.Event()
        total = Summary()
        waiting: deque[_Claimed] = deque()
        running: set[asyncio.Task[Summary]] = set()
        exhausted = False  # the last claim found nothing due
        failure: BaseException | None = None
        try:
            while True:
                while failure is None and not stop.is_set():
                    if len(running) >= self.settings.workers:
                        break
                    if not waiting and not exhausted:
                        try:
                            waiting.extend(await self._claim())
                        except Exception as exc:  # the store failed, as in a delivery
                            failure = exc
                            break
                        exhausted = not waiting
                    if not waiting:
                        break
                    claimed = waiting.popleft()
                    task = asyncio.create_task(self._start(claimed, stop))

                    def unhold(_: asyncio.Task[Summary], claim_id: int = claimed.claim.id) -> None:
                        self._held.discard(claim_id)

                    task.add_done_callback(unhold)
                    running.add(task)
                if not running:
                    break
                polling = exhausted and len(running) < self.settings.workers
                arrival = asyncio.ensure_future(self._arrivals.wait()) if polling else None
                awaited: set[asyncio.Future[Any]] = {*running}
                if arrival is not None:
                    awaited.add(arrival)
                done, _ = await asyncio.wait(
                    awaited,
                    timeout=self.settings.poll_interval if polling else None,
                    return_when=asyncio.FIRST_COMPLETED,
                )
                if arrival is not None:
                    arrival.cancel()
                    done.discard(arrival)
                running -= done
                for finished in done:
                    if finished.exception() is None:
                        total += finished.result()
                    elif failure is None:
                        failure = finished.exception()
                exhausted = exhausted and bool(running) and bool(done)
                exhausted = exhausted and not self._arrivals.is_set()
        finally:
            for task in running:  # only when run_once itself is cancelled: a post cut off
                task.cancel()  # after it went out would be forgotten and posted again
            self._held.difference_update(claimed.claim.id for claimed in waiting)
        for claimed in waiting:
            await self.store.deliveries.release(claimed.claim.id, worker_id=self.worker_id)
            total += Summary(claimed=1, released=1)
        if failure is not None:
            raise failure
        return total

    async def _claim(self) -> list[_Claimed]:
        """Claim up to `batch_size` due rows this worker does not hold, with their parts."""
        claimed_at = utcnow()
        # Cleared before the claim: a row queued from here on rings again, so none waits
        # for a poll that this claim missed.
        self._arrivals.clear()
        claims = await self.store.deliveries.claim_due(
            worker_id=self.worker_id,
            limit=self.settings.batch_size,
            lease=self.settings.lease,
            platforms=list(self.platforms),
            exclude=sorted(self._held),
        )
        if not claims:
            return []
        posted = await self.store.deliveries.posted_parts_of([claim.id for claim in claims])
        self._held.update(claim.id for claim in claims)
        return [_Claimed(claim, posted[claim.id], claimed_at) for claim in claims]

    async def _start(self, claimed: _Claimed, stop: asyncio.Event) -> Summary:
        logs.bind(
            delivery=claimed.claim.id, story=claimed.claim.story_id, channel=claimed.claim.channel
        )
        done = await self.deliver(
            claimed.claim, stop=stop, posted=claimed.posted, claimed_at=claimed.claimed_at
        )
        count_outcome(claimed.claim.platform, done, since=claimed.claimed_at)
        return done

    async def run_forever(self, stop: asyncio.Event) -> Summary:
        """Poll the outbox until `stop` is set; returns the totals."""
        total = Summary()
        while not stop.is_set():
            done = await self.run_once(stop=stop)
            total += done
            if done.claimed == 0:
                await self._idle(stop)
        return total

    async def _idle(self, stop: asyncio.Event) -> None:
        """Wait `poll_interval`, or less: until `stop` or a delivery is queued here."""
        waits = {asyncio.ensure_future(stop.wait()), asyncio.ensure_future(self._arrivals.wait())}
        try:
            await asyncio.wait(
                waits, timeout=self.settings.poll_interval, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            for waiting in waits:
                waiting.cancel()

    async def _story(self, story_id: str) -> Story | None:
        story = self._stories.get(story_id)
        if story is None:
            story = await self.store.stories.get(story_id)
            if story is not None:
                if len(self._stories) >= STORY_CACHE:
                    self._stories.pop(next(iter(self._stories)))
                self._stories[story_id] = story
        return story

    async def deliver(
        self,
        claim: Claim,
        *,
        stop: asyncio.Event | None = None,
        posted: list[PostedPart] | None = None,
        claimed_at: datetime | None = None,
    ) -> Summary:
        """Post the parts of one claimed delivery not yet recorded, then settle it.

        `posted` (the parts already recorded) and `claimed_at` save a query and a lease
        renewal when the caller knows them. The last part's record also marks the delivery
        delivered; the lease is renewed with a part's record once half of it has passed.
        """
        done = Summary(claimed=1)
        deliveries = self.store.deliveries
        story = await self._story(claim.story_id)
        reason = f"story {claim.story_id} is missing" if story is None else check_failure(story)
        if story is None or reason is not None:
            await self._dead(claim, str(reason))
            done.dead = 1
            return done
        platform = self.platforms[claim.platform]
        if posted is None:
            posted = await deliveries.posted_parts(claim.id)
        recorded = {p.part_index: p.message_id for p in posted}
        parent = recorded.get(0)
        where = {"platform": claim.platform, "workspace": claim.workspace}
        channel = await self.store.channels.get(**where, channel=claim.channel)
        zone = channel.timezone or self.default_zone
        parts = parts_of(story, public_url=self.public_url, zone=zone)
        missing = [part for part in parts if part.index not in recorded]
        half = self.settings.lease / 2
        renew_at = (claimed_at + half) if claimed_at is not None else utcnow()
        try:
            for part in missing:
                if stop is not None and stop.is_set():
                    await deliveries.release(claim.id, worker_id=self.worker_id)
                    done.released = 1
                    return done
                thread = None if part.index == 0 else parent
                key = part_key(claim.id, part.index)
                if thread is None and claim.attempts > 1 and isinstance(platform, Resumable):
                    platform.may_have_posted(claim.channel, key)  # by a process now gone
                message_id = await platform.post(claim.channel, part, thread, key=key)
                renew = utcnow() >= renew_at
                await deliveries.record_part(
                    claim.id,
                    worker_id=self.worker_id,
                    part_index=part.index,
                    message_id=message_id,
                    thread_id=thread,
                    item_id=item_id_of(part),
                    lease=self.settings.lease if renew else None,
                    last=part is missing[-1],
                )
                if renew:
                    renew_at = utcnow() + half
                done.parts_posted += 1
                if part.index == 0:
                    parent = message_id
            if not missing:
                await deliveries.finish(claim.id, worker_id=self.worker_id)
            done.delivered = 1
        except LeaseLostError as exc:
            log.warning("%s", exc)
            done.lost = 1
        except PermanentError as exc:
            await self._dead(claim, f"{claim.platform} refused: {exc}")
            done.dead = 1
        except Exception as exc:  # a retryable error, or a fault nobody classified
            if not isinstance(exc, RetryableError):
                log.exception("delivery %s failed unexpectedly", claim.id)
            settled = await self._retry_or_dead(claim, exc)
            done.retried, done.dead = (1, 0) if settled == "retried" else (0, 1)
        return done

    async def _dead(self, claim: Claim, error: str) -> None:
        try:
            await self.store.deliveries.dead_letter(claim.id, worker_id=self.worker_id, error=error)
        except LeaseLostError as exc:
            log.warning("%s", exc)

    async def _retry_or_dead(self, claim: Claim, exc: Exception) -> str:
        error = f"{type(exc).__name__}: {exc}" if not isinstance(exc, RetryableError) else str(exc)
        if claim.attempts >= self.settings.max_attempts:
            await self._dead(claim, f"gave up after {claim.attempts} attempts: {error}")
            return "dead"
        delay = backoff(
            claim.attempts,
            base=self.settings.backoff_base,
            cap=self.settings.backoff_cap,
            retry_after=getattr(exc, "retry_after", None),
            rng=self._rng,
        )
        at = utcnow() + timedelta(seconds=delay)
        try:
            await self.store.deliveries.retry_later(
                claim.id, worker_id=self.worker_id, error=error, at=at
            )
        except LeaseLostError as exc_lost:
            log.warning("%s", exc_lost)
        return "retried"


def count_outcome(platform: str, done: Summary, *, since: datetime) -> None:
    """Count one delivery's outcome in the metrics: posted (with the seconds since its
    claim), failed (to be retried) or dead; a released or lost one is not settled here."""
    if done.delivered:
        seconds = (utcnow() - since).total_seconds()
        metrics.delivery_settled(platform, "posted", seconds=seconds)
    elif done.retried:
        metrics.delivery_settled(platform, "failed")
    elif done.dead:
        metrics.delivery_settled(platform, "dead")
