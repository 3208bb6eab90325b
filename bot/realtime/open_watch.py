"""Open projects at poll time: which to read, which to withdraw, which to drop.

The poller asks GitHub again about a repository added from chat (see
`bot.commands.open_door`) before anything new of it is told, and otherwise at most every
`RECHECK_EVERY`: on github.com the repository's ETag changes with every push to any
branch, star or issue, so a check at every poll of a busy repository would cost a point of
the REST budget each time. A check sends the ETag of the last answer; an unchanged
repository answers 304, which costs no quota. One GitHub no longer calls public (made
private or internal, or gone) is withdrawn at once (`bot.schedule.withdrawal`): its
subscriptions and its row are deleted, its archived stories hidden from readers without the
web token, and each channel that followed it is told once, through the outbox, that it stops. A rate limit or an
unreachable GitHub skips the repository for this poll. A project no channel followed for
`[subscribing] drop_after` is dropped; topics seen in a poll join the project's topics.
A digest round re-checks the open projects it is about to read the same way
(`before_reading`, which `bot.app.service` hands the scheduler), so polling switched off
leaves no gap.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from datetime import UTC, datetime, timedelta

import httpx

from bot.commands.open_door import topics_seen
from bot.schedule.withdrawal import settle, withdraw
from bot.store import OpenProject, Store
from digest.config import Project, WireConfig
from digest.model import Activity
from digest.sources.github.repository import RepositoryLookup

log = logging.getLogger("wire.realtime.open")
CONCURRENCY = 8  # re-checks at once
# How long a repository with nothing new may go without a re-check: a rename is followed
# and a repository gone private is withdrawn by then even if it lands nothing.
RECHECK_EVERY = timedelta(hours=1)
# (repo, etag of the last answer, the poll's HTTP client) → what GitHub says now
ReCheck = Callable[[str, str | None, httpx.AsyncClient | None], Awaitable[RepositoryLookup]]


_NEVER = datetime.min.replace(tzinfo=UTC)


def _as_project(repo: str) -> Project:
    return Project(repo=repo, name=repo.split("/", 1)[1], source=f"github:{repo}")


class OpenWatch:
    """Re-checks, withdraws and drops open projects for the poller."""

    def __init__(
        self,
        *,
        store: Store,
        config: WireConfig,
        recheck: ReCheck,
        drop_after: timedelta,
    ) -> None:
        self.store = store
        self.config = config
        self.recheck = recheck
        self.drop_after = drop_after
        self.checked: dict[str, datetime] = {}  # repository key → its last re-check
        self.seen: dict[str, set[str]] = {}  # repository key → shas of its last read

    async def due(self, now: datetime, *, client: httpx.AsyncClient | None = None) -> list[Project]:
        """The open projects to read in this poll, as projects of the `github:` source;
        `client` is the poll's HTTP client, shared by the re-checks."""
        subs = await self.store.subscriptions.list()
        followed = {s.repo.lower() for s in subs if s.repo}
        stored = await self.store.open_projects.list()
        await self.store.open_projects.followed(
            [p.repo for p in stored if p.key in followed], now=now
        )
        dropped = await self.store.open_projects.drop_unfollowed(before=now - self.drop_after)
        if dropped:
            log.info("dropped %d open project(s) no channel followed: %s", len(dropped), dropped)
        candidates = [p for p in stored if p.key in followed and p.repo not in dropped]
        stale = [p for p in candidates if now - self.checked.get(p.key, _NEVER) >= RECHECK_EVERY]
        fresh = [_as_project(p.repo) for p in candidates if p not in stale]
        return fresh + await self._public(stale, now, client)

    async def cleared(
        self,
        repo: str,
        activities: list[Activity],
        now: datetime,
        client: httpx.AsyncClient | None = None,
    ) -> bool:
        """True when the poll may judge `activities` of open project `repo`: nothing in
        them is new, it was re-checked in this poll, or a re-check now finds it public
        still. False when it is withdrawn (or GitHub cannot say): nothing of it is told."""
        key = repo.lower()
        shas = {a.sha for a in activities}
        new = not shas <= self.seen.get(key, set()) and self.checked.get(key) != now
        if new:
            stored = [p for p in await self.store.open_projects.list() if p.key == key]
            if not stored or not await self._public(stored, now, client):
                return False
        # only this read's shas: the poll window moves on, and so does what was seen
        self.seen[key] = shas
        return True

    async def before_reading(self, repos: Iterable[str], now: datetime) -> None:
        """Re-check the open projects among `repos` before a digest reads them, withdrawing
        any GitHub no longer calls public (so a digest never tells of one, even with
        polling off or between two polls)."""
        wanted = {r.lower() for r in repos}
        stored = [p for p in await self.store.open_projects.list() if p.key in wanted]
        if stored:
            async with httpx.AsyncClient(timeout=httpx.Timeout(30.0)) as client:
                await self._public(stored, now, client)

    async def _public(
        self, projects: list[OpenProject], now: datetime, client: httpx.AsyncClient | None
    ) -> list[Project]:
        """The `projects` GitHub still calls public, re-checked `CONCURRENCY` at a time; the
        configured ones are left to the configuration."""
        candidates = [p for p in projects if not self.config.is_configured(p.repo)]
        gate = asyncio.Semaphore(CONCURRENCY)

        async def check(project: OpenProject) -> str | None:
            async with gate:
                return await self._still_public(project, now, client)

        public = await asyncio.gather(*(check(p) for p in candidates))
        for project, repo in zip(candidates, public, strict=True):
            if repo is not None:
                self.checked[repo.lower()] = now
                self.checked[project.key] = now
        return [_as_project(repo) for repo in public if repo is not None]

    async def _still_public(
        self, project: OpenProject, now: datetime, client: httpx.AsyncClient | None
    ) -> str | None:
        """The repository's name if GitHub still calls it public (its new name if it was
        renamed or transferred meanwhile), else None (see `bot.schedule.withdrawal`)."""
        found = await self.recheck(project.repo, project.etag, client)
        return await settle(self.store, self.config, project, found, now)

    async def withdraw(self, repo: str, now: datetime) -> int:
        """Stop following `repo` (see `bot.schedule.withdrawal.withdraw`)."""
        return await withdraw(self.store, repo, now)

    async def note_topics(self, repo: str, activities: Iterable[Activity]) -> None:
        """Add the automatic topics of `activities` to the open project's topics."""
        seen = topics_seen(list(activities), self.config)
        if not seen:
            return
        project = await self.store.open_projects.get(repo)
        if project is not None and set(seen) - set(project.topics):
            await self.store.open_projects.update(
                repo, topics=tuple(dict.fromkeys((*project.topics, *seen)))
            )
