"""`wire run`: the scheduler, the delivery worker and every enabled platform in one process.

    stop = asyncio.Event()                       # SIGTERM / SIGINT set it
    async with await Service.start(settings=settings, config=config) as service:
        await service.run(stop)                  # or: await service.run_once()

Every replica runs the delivery worker; only the leader (see `bot.schedule.leader`) composes and
sends reminders. APScheduler 3 (AsyncIOScheduler) fires a `tick` every `tick_interval` (a
minute; at once on start: leadership, schedules, due work, reminders), a `poll` every
[realtime] `poll_interval`, and one cron job per distinct channel
schedule, so digests go out on the minute; missed runs coalesce. On stop the part in
flight finishes (composition or post), then everything shuts down.

Each enabled platform comes as an adapter (see `bot.chat.adapters`): its platform posts, its
front end takes `/wire`, buttons and reactions. Front ends start with `run` (or
`start_frontends`; see `bot.app.frontends`, which also keeps an exclusive one, like a Discord
gateway session, on one replica); the web server listens only if an adapter or the archive
(`[web] enabled`, see `bot.web`) mounted routes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.interval import IntervalTrigger

from bot import metrics
from bot.app.frontends import Frontends, Site
from bot.app.heartbeat import heartbeat_path, remove_beat, write_beat
from bot.app.resilience import describe_failure, keep_delivering
from bot.app.terminal import local
from bot.chat.adapters import Adapter, Hub, adapters_for
from bot.commands.handlers import Commands
from bot.commands.replies import Context
from bot.delivery.platform import Platform
from bot.delivery.worker import Worker
from bot.realtime import Realtime
from bot.schedule.crontab import trigger_for
from bot.schedule.leader import Leadership
from bot.schedule.newsroom import SourceFor, default_source
from bot.schedule.scheduler import RunReport, Scheduler
from bot.settings import Settings
from bot.store import Store, upgrade_database
from bot.web import ArchiveSite, MetricsSite
from digest.config import Project, WireConfig
from digest.errors import ConfigError
from digest.sources import Source

log = logging.getLogger("wire.service")


def source_factory(settings: Settings) -> SourceFor:
    """Each project's configured source, else GitHub with the configured token and URL."""
    token = settings.github.token.get_secret_value() if settings.github.token else None
    options = {"token": token, "api_url": settings.github.api_url}

    def source_for(project: Project) -> Source:
        return default_source(project, github_options=options)

    return source_for


async def seed_subscriptions(commands: Commands, settings: Settings) -> int:
    """Create the file's [[subscriptions]] that are missing; returns how many were new.
    A subscription naming an unknown target is a configuration error."""
    created = 0
    for table, seed in settings.seeds:
        context = Context(
            platform=seed.platform,
            workspace=seed.workspace,
            channel=seed.channel,
            user_id="config",
            user_name="config",
            operator=True,
        )
        reply = await commands.handle(seed.command(), context=context)
        if not reply.ok:
            where = f"{seed.platform} #{seed.channel}"
            raise ConfigError(f"[[{table}]] {seed.target!r} for {where}: {reply.text}")
        created += int("Subscribed" in reply)
    return created


def web_sites(
    *, store: Store, config: WireConfig, settings: Settings, counted: metrics.Metrics
) -> list[Site]:
    """The archive (`[web] enabled`) and `/metrics` (`[web] metrics`) for the web server."""
    sites: list[Site] = []
    if settings.web.enabled:
        sites.append(ArchiveSite(store=store, config=config, settings=settings.web))
    if settings.web.metrics:
        sites.append(MetricsSite(store=store, instance=counted))
    return sites


class Service:
    """One process of The Wire."""

    def __init__(
        self,
        *,
        store: Store,
        scheduler: Scheduler,
        worker: Worker,
        commands: Commands,
        settings: Settings,
        adapters: Mapping[str, Adapter] | None = None,
        sites: Sequence[Site] = (),
        realtime: Realtime | None = None,
    ) -> None:
        self.store = store
        self.scheduler = scheduler
        self.worker = worker
        self.commands = commands
        self.settings = settings
        self.adapters = dict(adapters or {})
        self.metrics = metrics.active()  # installed fresh by `start`
        self.hub = Hub(
            store=store, commands=commands, settings=settings, platforms=worker.platforms
        )
        self.leader = Leadership(store.engine)
        self.realtime = realtime  # webhook receiver and processor, a front end; the poller
        receivers = {realtime.name: realtime} if realtime is not None else {}
        self.frontends = Frontends(
            {**self.adapters, **receivers},
            hub=self.hub,
            http=settings.http,
            engine=store.engine,
            sites=sites,
        )
        self._busy = asyncio.Lock()
        self._stop = asyncio.Event()
        self.revision: str | None = None  # the database's migration, once `start` applied it

    @classmethod
    async def start(
        cls,
        *,
        settings: Settings,
        config: WireConfig,
        platforms: Mapping[str, Platform] | None = None,
        adapters: Mapping[str, Adapter] | None = None,
        stream: TextIO | None = None,
    ) -> Service:
        """Migrate the database, open the store, build the parts, seed subscriptions.

        `platforms` alone means post only (no front ends); otherwise the given `adapters`,
        or one for every enabled platform, supply both.
        """
        revision = await upgrade_database(settings.database_url)
        store = Store.from_url(settings.database_url)
        if adapters is None and platforms is None:
            adapters = adapters_for(settings, stream=stream)
        chosen = (
            dict(platforms)
            if platforms is not None
            else {name: adapter.platform for name, adapter in (adapters or {}).items()}
        )
        source_for = source_factory(settings)
        counted = metrics.install(metrics.Metrics())  # this service's own counts
        worker = Worker(
            store,
            chosen,
            settings=settings.delivery,
            public_url=settings.web.public_url,
            default_zone=settings.schedule.timezone,
        )
        commands = Commands(
            store=store, config=config, settings=settings, source_for=source_for, platforms=chosen
        )
        realtime = Realtime(store=store, config=config, settings=settings, source_for=source_for)
        scheduler = Scheduler(
            store=store,
            config=config,
            settings=settings,
            source_for=source_for,
            platforms=chosen,
            worker=worker,
            before_reading=realtime.watch.before_reading,
        )
        service = cls(
            store=store,
            scheduler=scheduler,
            worker=worker,
            commands=commands,
            settings=settings,
            adapters=adapters,
            sites=web_sites(store=store, config=config, settings=settings, counted=counted),
            realtime=realtime,
        )
        service.revision = revision
        try:
            await seed_subscriptions(commands, settings)
        except BaseException:
            await store.close()
            raise
        return service

    async def __aenter__(self) -> Service:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.stop_frontends()
        await self.leader.release()
        await self.store.close()

    @property
    def web_url(self) -> str | None:
        """Where the web server listens, once it does (None when nothing is served)."""
        return self.frontends.url

    async def start_frontends(self) -> None:
        """Start the front ends this replica may run and, if any mounted routes, the web
        server (see `bot.app.frontends`). Without `[web] public_url`, stories link to the
        archive at the address actually served (its port may be 0 in the settings)."""
        await self.frontends.open()
        if self.settings.web.public_url is None and self.settings.web.enabled and self.web_url:
            self.worker.public_url = local(self.web_url)

    async def stop_frontends(self) -> None:
        """Close the front ends and the web server; safe to call twice."""
        await self.frontends.close()

    async def run_once(self, now: datetime | None = None) -> RunReport:
        """Do all due work now and return what was done (`wire run --once`)."""
        return await self.scheduler.run_due(now or datetime.now(UTC))

    async def run(self, stop: asyncio.Event) -> None:
        """Serve until `stop` is set, then finish the work in flight and return."""
        self._stop = stop
        grace = int(self.settings.misfire_grace.total_seconds())
        jobs = AsyncIOScheduler(
            timezone=UTC,
            job_defaults={"coalesce": True, "misfire_grace_time": grace, "max_instances": 1},
        )
        every = self.settings.tick_interval.total_seconds()
        jobs.add_job(
            self.tick,
            IntervalTrigger(seconds=every, timezone=UTC),
            id="tick",
            next_run_time=datetime.now(UTC),
        )
        if self.realtime is not None and self.settings.realtime.polling:
            every = self.settings.realtime.poll_interval.total_seconds()
            jobs.add_job(self.poll, IntervalTrigger(seconds=every, timezone=UTC), id="poll")
        self._jobs = jobs
        await self.start_frontends()
        jobs.start()
        delivering = asyncio.create_task(keep_delivering(self.worker, stop, health=self.hub.health))
        try:
            await stop.wait()
        finally:
            jobs.pause()
            async with self._busy:  # the composition in flight finishes
                jobs.shutdown(wait=False)
            await delivering  # the post in flight finishes; the rest is released
            await self.stop_frontends()
            remove_beat(self.heartbeat)

    @property
    def heartbeat(self) -> Path:
        """Where this service's heartbeat is written (see `bot.app.heartbeat`)."""
        return heartbeat_path(self.settings.database_url, self.settings.heartbeat_file)

    def beat(self) -> None:
        """Write the heartbeat `wire health` reads: now, this process, the web server."""
        try:
            write_beat(self.heartbeat, url=local(self.web_url) if self.web_url else None)
        except OSError as error:  # health then says so; the service itself is fine
            log.warning("cannot write the heartbeat at %s: %s", self.heartbeat, error)

    async def tick(self) -> None:
        """Lead if possible; as leader keep the cron jobs in line and do the due work."""
        self.beat()
        async with self._busy:
            if self._stop.is_set():
                return
            try:
                await self.frontends.claim()
            except Exception:
                log.exception("starting a front end failed; the next tick retries")
            try:
                leading = await self.leader.acquire()
            except Exception as exc:  # the database is away; the next tick tries again
                self.hub.health.problem("scheduler", describe_failure(exc))
                return
            if not metrics.leadership(leading):
                self._sync_jobs(set())
                return
            try:
                self._sync_jobs(await self._schedules())
                await self.scheduler.compose_due(datetime.now(UTC))
                await self.scheduler.remind()
                self.hub.health.ok("scheduler")
            except Exception as exc:
                self.hub.health.problem("scheduler", describe_failure(exc))
                log.exception("scheduling pass failed; the next tick retries")

    async def poll(self) -> None:
        """As leader, poll the repositories no webhook serves (see `bot.realtime.poller`)."""
        async with self._busy:
            if self._stop.is_set() or self.realtime is None or not self.leader.held:
                return
            try:
                await self.realtime.poll()
            except Exception:
                log.exception("polling failed; the next poll retries")

    async def fire(self) -> None:
        """A channel schedule fired: compose what is due now."""
        async with self._busy:
            if self._stop.is_set() or not self.leader.held:
                return
            try:
                await self.scheduler.compose_due(datetime.now(UTC))
            except Exception:
                log.exception("scheduled composition failed; the next tick retries")

    async def _schedules(self) -> set[tuple[str, str]]:
        channels = {
            (s.platform, s.workspace, s.channel) for s in await self.store.subscriptions.list()
        }
        found = set()
        for platform, workspace, channel in channels:
            got = await self.store.channels.get(
                platform=platform, workspace=workspace, channel=channel
            )
            cron = got.schedule or self.settings.schedule.default_cron
            if cron != "off":
                found.add((cron, got.timezone or self.settings.schedule.timezone))
        return found

    def _sync_jobs(self, schedules: set[tuple[str, str]]) -> None:
        wanted = {f"digest {cron} @ {zone}": (cron, zone) for cron, zone in schedules}
        for job in self._jobs.get_jobs():
            if job.id.startswith("digest ") and job.id not in wanted:
                job.remove()
        for job_id, (cron, zone) in wanted.items():
            if self._jobs.get_job(job_id) is None:
                with contextlib.suppress(ValueError):
                    self._jobs.add_job(self.fire, trigger_for(cron, timezone=zone), id=job_id)
