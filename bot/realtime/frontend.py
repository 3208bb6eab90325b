"""`Realtime`: the webhook receiver, its processor and the poller, wired for `wire run`.

It is a front end like a chat adapter's (see `bot.app.frontends`): `mount` adds
`POST [realtime] path` to the web server when [github] webhook_secret is set, `start`
starts the processor (which first takes what an earlier process left pending), `close`
stops it. `poll` is the leader's polling job (`bot.app.service` schedules it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime

import httpx
from aiohttp import web

from bot.realtime.bulletins import Newsdesk
from bot.realtime.open_watch import OpenWatch
from bot.realtime.poller import Poller, PollReport
from bot.realtime.processor import EventProcessor, SourceFor
from bot.realtime.receiver import WebhookReceiver
from bot.realtime.releases import ReleaseDesk
from bot.settings import Settings
from bot.store import Store
from digest.config import WireConfig
from digest.sources.github.repository import RepositoryLookup, look_up_repository

log = logging.getLogger("wire.realtime")


class Realtime:
    """Bulletins as changes land: webhook deliveries and polls, judged by one newsdesk."""

    name = "github-webhook"
    exclusive = False

    def __init__(
        self, *, store: Store, config: WireConfig, settings: Settings, source_for: SourceFor
    ) -> None:
        options = settings.realtime
        self.settings = settings
        self.newsdesk = Newsdesk(store=store, config=config, max_age=options.max_age)
        self.releases = ReleaseDesk(
            store=store, config=config, source_for=source_for, max_age=options.max_age
        )
        self.processor = EventProcessor(
            store=store,
            config=config,
            newsdesk=self.newsdesk,
            source_for=source_for,
            max_attempts=options.max_attempts,
            releases=self.releases,
        )
        secret = settings.github.webhook_secret
        self.receiver = (
            WebhookReceiver(
                store=store,
                secret=secret,
                path=options.path,
                wake=self.processor.wake,
                max_body=options.webhook_max_body,
                concurrency=options.webhook_concurrency,
                wait=options.webhook_wait,
            )
            if secret is not None and secret.get_secret_value()
            else None
        )
        token = settings.github.token.get_secret_value() if settings.github.token else None
        api_url = settings.github.api_url

        async def recheck(
            repo: str, etag: str | None, client: httpx.AsyncClient | None
        ) -> RepositoryLookup:
            return await look_up_repository(
                repo, token=token, api_url=api_url, etag=etag, client=client
            )

        # repositories added from chat: re-checked at each poll and before each digest
        self.watch = OpenWatch(
            store=store, config=config, recheck=recheck, drop_after=settings.subscribing.drop_after
        )
        self.poller = Poller(
            store=store,
            config=config,
            newsdesk=self.newsdesk,
            github_options={"token": token, "api_url": api_url},
            webhook_fresh_for=options.webhook_fresh_for,
            watch=self.watch,
            releases=self.releases,
        )
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def platform(self) -> None:
        """A front end only: it posts nothing itself (bulletins go through the outbox)."""
        return None

    def mount(self, app: web.Application) -> bool:
        """Serve the webhook route when a secret is configured."""
        if self.receiver is None:
            return False
        self.receiver.mount(app)
        log.debug("GitHub webhooks accepted at %s", self.receiver.path)
        return True

    async def start(self, _hub: object = None) -> None:
        """Start the processor of stored deliveries (idempotent)."""
        if self._task is None or self._task.done():
            self._stop = asyncio.Event()
            self._task = asyncio.create_task(self.processor.run(self._stop))

    async def close(self) -> None:
        """Stop the processor after the delivery in hand; safe to call twice."""
        task, self._task = self._task, None
        if task is None:
            return
        self._stop.set()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def poll(self, now: datetime | None = None) -> PollReport:
        """One poll of the repositories no webhook serves (the leader calls this)."""
        report = await self.poller.poll(now)
        if report.queued:
            log.info("poll: %d change(s), %d bulletin(s) queued", report.changes, report.queued)
        return report
