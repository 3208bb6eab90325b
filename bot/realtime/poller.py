"""Polling, for repositories without a webhook: every `poll_interval`, on the leader only.

Each configured project whose webhook delivered nothing for `webhook_fresh_for` is read
through its own source (for GitHub, `github:OWNER/REPO` with the configured token) over a
window aligned to the hour: from the start of the previous hour to the end of the current
one. Within an hour every poll asks about the same window, so the GitHub source's
conditional probe carries the ETag of the last answer and an unchanged repository answers
304: no rate-limit quota, no search (see `digest.sources.github`). Each project keeps its
own `EtagCache` for as long as this process polls. New changes go to the `Newsdesk`, which
judges each (repository, commit) once whoever brings it.

Repositories added from chat (open projects) are polled too, after `OpenWatch` re-checked
that GitHub still calls them public (see `bot.realtime.open_watch`).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from bot.realtime.bulletins import Newsdesk
from bot.realtime.open_watch import OpenWatch
from bot.realtime.releases import ReleaseDesk
from bot.schedule.newsroom import default_source
from bot.store import Store
from digest.config import Project, WireConfig
from digest.errors import WireError
from digest.model import Activity, Window
from digest.sources.github import EtagCache

log = logging.getLogger("wire.realtime.poller")
BLOCK = timedelta(hours=1)
# Repositories added from chat poll a window aligned to the day: its first probe, which no
# ETag can answer, comes once a day instead of once an hour (500 of them would spend a tenth
# of the hourly REST budget on that alone), and a quiet hour costs no search.
OPEN_BLOCK = timedelta(days=1)
CONCURRENCY = 8  # projects read at once


def poll_window(now: datetime, block: timedelta = BLOCK) -> Window:
    """The window every poll within the hour (the `block`) of `now` asks about: the previous
    block and this one, so a change that lands just before the block turns is still seen."""
    moment = now.astimezone(UTC)
    start = datetime.fromtimestamp(
        moment.timestamp() // block.total_seconds() * block.total_seconds(), UTC
    )
    return Window(since=start - block, until=start + block)


@dataclass
class PollReport:
    """What one poll did."""

    polled: list[str] = field(default_factory=list)
    served_by_webhook: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    withdrawn: list[str] = field(default_factory=list)  # read, then found no longer public
    changes: int = 0
    queued: int = 0


class Poller:
    """Polls the projects no webhook serves (see the module docstring)."""

    def __init__(
        self,
        *,
        store: Store,
        config: WireConfig,
        newsdesk: Newsdesk,
        github_options: dict[str, Any],
        webhook_fresh_for: timedelta,
        watch: OpenWatch | None = None,
        releases: ReleaseDesk | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.newsdesk = newsdesk
        self.github_options = dict(github_options)
        self.webhook_fresh_for = webhook_fresh_for
        self.caches: dict[str, EtagCache] = {}
        self.watch = watch
        self.releases = releases  # release and security stories, for those who follow them

    async def poll(self, now: datetime | None = None) -> PollReport:
        """Poll every project whose webhook is not fresh, once; up to `CONCURRENCY` projects
        are read at a time, then their new changes are judged in configuration order."""
        now = now or datetime.now(UTC)
        report = PollReport()
        repos = [project.repo for project in self.config.projects]
        heard = await self.store.webhooks.last_received(repos)
        window = poll_window(now)
        due = []
        for project in self.config.projects:
            last = heard.get(project.repo)
            if last is not None and now - last < self.webhook_fresh_for:
                report.served_by_webhook.append(project.repo)
            else:
                due.append(project)
        # one HTTP client for the whole poll: a client per request would build a TLS
        # context each time, which costs more than the request itself
        async with httpx.AsyncClient(timeout=httpx.Timeout(30.0)) as http:
            opened = await self.watch.due(now, client=http) if self.watch is not None else []
            due += opened
            gate = asyncio.Semaphore(CONCURRENCY)

            open_window = poll_window(now, OPEN_BLOCK)

            async def read(project: Project) -> list[Activity] | None:
                asked = open_window if project in opened else window
                cache = self.caches.setdefault(project.repo, EtagCache())
                options = {**self.github_options, "cache": cache, "client": http}
                async with gate:
                    try:
                        source = default_source(project, github_options=options)
                        return [a async for a in source.fetch(asked)]
                    except WireError as error:
                        log.warning("polling %s failed: %s", project.repo, error)
                        return None

            found = await asyncio.gather(*(read(project) for project in due))
        for project, activities in zip(due, found, strict=True):
            if activities is None:
                report.failed.append(project.repo)
                continue
            if self.watch is not None and project in opened:
                # nothing new of a repository added from chat is told unchecked
                if not await self.watch.cleared(project.repo, activities, now):
                    report.withdrawn.append(project.repo)
                    continue
                await self.watch.note_topics(project.repo, activities)
            report.polled.append(project.repo)
            if self.releases is not None:  # first: the newsdesk marks the changes judged
                await self.releases.judge(activities, now=now)
            judged = await self.newsdesk.judge(activities, via="poll", now=now)
            report.changes += judged.changes
            report.queued += judged.queued
        return report
