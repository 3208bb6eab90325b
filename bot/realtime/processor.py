"""The background half of the webhook: stored deliveries → the changes they announce → judged.

Every replica runs one processor. It claims pending deliveries with a lease (so replicas
share the work and a dead one's claims come back), and for each reads what landed from the
project's own source, the one its digest reads, over the few minutes the delivery names
(`Hint`): the pull request it merged, or the commits it pushed. Those activities go to the
`Newsdesk`. A change the source does not show yet (GitHub's search can lag a merge by a
little) is looked for again with back-off, at most `max_attempts` times, then left to the
digest with the reason kept.

At start the processor first takes whatever a previous process left pending (a SIGKILL
between receipt and delivery loses nothing); afterwards it wakes when this process's
receiver stores a delivery, and otherwise looks every `poll_every` seconds for deliveries
another replica stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from bot.realtime.bulletins import Judged, Newsdesk
from bot.realtime.payloads import Hint
from bot.realtime.releases import ReleaseDesk
from bot.store import Store, WebhookEvent, utcnow
from digest.config import Project, WireConfig
from digest.errors import WireError
from digest.model import Activity, Window
from digest.sources import Source

log = logging.getLogger("wire.realtime.processor")
SourceFor = Callable[[Project], Source]
MARGIN = timedelta(minutes=2)  # around the delivery's times: clocks and merge queues differ
LEASE = timedelta(seconds=30)  # judging one delivery takes well under a second
BATCH = 10


def retry_delay(attempts: int) -> float:
    """Seconds before looking again after attempt `attempts`: 5 s, 10 s, … at most 5 min."""
    doubling: int = 2 ** max(attempts - 1, 0)
    return min(300.0, 5.0 * doubling)


def announced(activities: list[Activity], hint: Hint) -> list[Activity]:
    """The activities a delivery announced: its pull request, or its pushed commits."""
    shas = set(hint.shas)
    return [
        a
        for a in activities
        if a.repo.lower() == hint.repo.lower()
        and ((hint.number is not None and a.number == hint.number) or a.sha in shas)
    ]


class EventProcessor:
    """Turns stored webhook deliveries into judged changes."""

    def __init__(
        self,
        *,
        store: Store,
        config: WireConfig,
        newsdesk: Newsdesk,
        source_for: SourceFor,
        max_attempts: int = 8,
        poll_every: float = 1.0,
        releases: ReleaseDesk | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.newsdesk = newsdesk
        self.source_for = source_for
        self.max_attempts = max_attempts
        self.poll_every = poll_every
        self.releases = releases  # release and security stories, for those who follow them
        self.wake = asyncio.Event()

    async def run(self, stop: asyncio.Event) -> None:
        """Process deliveries until `stop` is set; a failing pass is logged and retried.

        On SQLite, where one process serves, claims left by a killed predecessor are
        released first; on PostgreSQL they expire with their lease."""
        if self.store.backend == "sqlite":
            released = await self.store.webhooks.release_claims()
            if released:
                log.info("took back %d webhook deliveries a stopped process had claimed", released)
        while not stop.is_set():
            try:
                done = await self.run_once()
            except Exception:
                log.exception("processing webhook deliveries failed; retrying")
                done = 0
            if done:
                continue
            self.wake.clear()
            waits = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(self.wake.wait())]
            try:
                await asyncio.wait(waits, timeout=self.poll_every, return_when="FIRST_COMPLETED")
            finally:
                for waiting in waits:
                    waiting.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await waiting

    async def run_once(self) -> int:
        """Process the deliveries due now; returns how many were claimed."""
        claimed = await self.store.webhooks.claim_due(limit=BATCH, lease=LEASE)
        for event in claimed:
            await self.process(event)
        return len(claimed)

    async def process(self, event: WebhookEvent) -> Judged | None:
        """Judge what one claimed delivery announced, then settle it (or look again later)."""
        started = time.perf_counter()
        hint = Hint.model_validate(event.hint)
        if not self.config.is_configured(hint.repo):
            await self.store.webhooks.settle(
                event.id, state="ignored", error="not a configured project"
            )
            return None
        if hint.shas and await self.store.changes.seen(hint.repo, hint.shas) == set(hint.shas):
            # the merge's other delivery (its pull_request or its push) came first
            await self.store.webhooks.settle(event.id, state="done")
            return Judged()
        project = self.config.project(hint.repo)
        window = Window(since=hint.since - MARGIN, until=hint.until + MARGIN)
        try:
            source = self.source_for(project)
            activities = [a async for a in source.fetch(window)]
        except WireError as error:
            await self._later(event, f"reading {project.repo}: {error}")
            return None
        found = announced(activities, hint)
        if not found:
            what = f"#{hint.number}" if hint.number is not None else ", ".join(hint.shas)[:80]
            await self._later(event, f"{project.repo} {what} is not in its source yet")
            return None
        if self.releases is not None:  # first: the newsdesk marks the changes judged
            await self.releases.judge(found)
        judged = await self.newsdesk.judge(found, via="webhook")
        await self.store.webhooks.settle(event.id, state="done")
        log.info(
            "webhook delivery %s: %d change(s) judged, %d bulletin(s) queued in %.2f s",
            event.delivery_id,
            judged.changes,
            judged.queued,
            time.perf_counter() - started,
        )
        return judged

    async def _later(self, event: WebhookEvent, error: str) -> None:
        if event.attempts >= self.max_attempts:
            log.warning(
                "webhook delivery %s given up after %d attempts: %s; the digest still covers it",
                event.delivery_id,
                event.attempts,
                error,
            )
            await self.store.webhooks.settle(event.id, state="failed", error=error)
            return
        at: datetime = utcnow() + timedelta(seconds=retry_delay(event.attempts))
        log.info("webhook delivery %s: %s; looking again at %s", event.delivery_id, error, at)
        await self.store.webhooks.retry_later(event.id, error=error, at=at)
