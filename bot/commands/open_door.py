"""Open subscriptions: `/wire subscribe OWNER/REPO` for a repository nobody configured.

    door = OpenDoor(store=store, config=config, settings=settings, source_for=source_for)
    names = await door.names()             # configured projects, then open ones
    found = await door.admit("astral-sh/uv", ctx)   # an OpenProject, a Project or a Reply

`admit` checks, in order: `[subscribing] open`, the name (as GitHub allows it: see
`digest.sources.github.names`), the owner lists, the channel's and the Wire's caps, then
GitHub (`GET /repos/{owner}/{repo}`, one request, following a rename), for a repository
stored already too: one that went private is withdrawn there and then. Only a repository
GitHub calls public (`private` false and `visibility` "public") and not archived is
admitted, with its name as GitHub spells it, its default branch, a `github:` source and the
automatic topics of its last day. A configured project always wins, under whichever name it
was reached. `admit` stores nothing: the command stores what every target needs in one
transaction that counts the caps again (`bot.store.admissions`), or nothing at all.
`recheck` asks GitHub again before a preview tells anything of an open project.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime
from difflib import get_close_matches

from bot.commands import open_replies as say
from bot.commands.replies import Context, Reply
from bot.commands.targets import Names
from bot.schedule.crontab import next_fire, trigger_for
from bot.schedule.newsroom import SourceFor
from bot.schedule.withdrawal import settle
from bot.settings import Settings
from bot.store import OpenProject, Store
from digest.config import Project, TopicRule, WireConfig
from digest.errors import WireError
from digest.model import Activity, Window
from digest.reading.classify import classify
from digest.sources.github.names import is_repository_name
from digest.sources.github.repository import RepositoryLookup, look_up_repository

# (repo, the ETag of the last answer) → what GitHub says of it now
LookUp = Callable[[str, str | None], Awaitable[RepositoryLookup]]
TOPICS_WAIT_SECONDS = 20.0  # reading the first day for its topics; longer: "none yet"


def as_project(found: OpenProject) -> Project:
    """An open project as the configuration would name it: by its repository (GitHub's
    spelling), with its automatic topics by name only."""
    topics = tuple(TopicRule(name=t) for t in found.topics)
    return Project(repo=found.repo, name=found.repo, source=found.source, topics=topics)


def with_open(config: WireConfig, projects: list[OpenProject]) -> WireConfig:
    """`config` with the open projects after its own; a configured repository keeps its
    configured project."""
    extra = tuple(as_project(p) for p in projects if not config.is_configured(p.repo))
    return WireConfig(projects=config.projects + extra, digest=config.digest, prose=config.prose)


def topics_seen(activities: list[Activity], config: WireConfig) -> tuple[str, ...]:
    """The automatic topics of `activities`, most frequent first."""
    counts = Counter(t for event in classify(activities, config) for t in event.topics)
    return tuple(name for name, _ in counts.most_common())


class OpenDoor:
    """Admits public repositories from chat (see the module docstring)."""

    def __init__(
        self,
        *,
        store: Store,
        config: WireConfig,
        settings: Settings,
        source_for: SourceFor,
        look_up: LookUp | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.settings = settings
        self.rules = settings.subscribing
        self.source_for = source_for
        self.look_up = look_up or self._github

    async def _github(self, repo: str, etag: str | None) -> RepositoryLookup:
        token = self.settings.github.token
        return await look_up_repository(
            repo,
            token=token.get_secret_value() if token else None,
            api_url=self.settings.github.api_url,
            etag=etag,
        )

    async def names(self) -> Names:
        """Names over the configured projects and the open ones."""
        return Names(with_open(self.config, await self.store.open_projects.list()))

    def _close(self, token: str) -> list[str]:
        names = {n.lower(): n for p in self.config.projects for n in (p.repo, *p.aliases)}
        bare = token.lower()
        candidates = [bare, bare.rsplit("/", 1)[-1]]
        found = [c for t in candidates for c in get_close_matches(t, list(names), n=3, cutoff=0.6)]
        return [names[c] for c in dict.fromkeys(found)][:3]

    async def admit(self, token: str, ctx: Context) -> Project | OpenProject | Reply:
        """The project `token` names, as GitHub describes it now, or the one-sentence
        refusal. A new open project is returned unstored: the command stores it with its
        subscriptions, within the caps (`Store.admissions`), or not at all."""
        known = [p.aliases[0] if p.aliases else p.repo for p in self.config.projects]
        if self.rules.open == "config":
            return say.closed(token, known, self._close(token))
        if not is_repository_name(token):
            return say.unknown_name(token, known, self._close(token))
        if refused := self._owner_refused(token):
            return refused
        if full := await self._channel_full(ctx, token):
            return full  # the transaction counts again; this spares GitHub a request
        stored = await self.store.open_projects.get(token)
        if stored is None and await self.store.open_projects.count() >= self.rules.total:
            return say.wire_full(self.rules.total)
        found = await self.look_up(token, stored.etag if stored else None)
        if found.outcome in ("limited", "unreachable"):
            return say.try_later(found.retry_minutes, limited=found.outcome == "limited")
        if stored is not None:
            return await self._stored_again(stored, found, token)
        info = found.info
        if found.outcome != "found" or info is None or not info.is_public:
            return say.missing(token, self._close(token))  # private reads as missing
        if info.archived:
            return say.archived(info.full_name)
        if configured := self.config.resolve_repo(info.full_name):
            return configured  # renamed into a configured project: the configuration wins
        if refused := self._owner_refused(info.full_name):
            return refused  # transferred to an owner kept out
        if (again := await self.store.open_projects.get(info.full_name)) is not None:
            return again
        return OpenProject(
            repo=info.full_name,
            name=info.name,
            default_branch=info.default_branch,
            source=f"github:{info.full_name}",
            topics=await self._topics(info.full_name),
            added_by=ctx.user_name or ctx.user_id,
            etag=found.etag,
        )

    async def _stored_again(
        self, stored: OpenProject, found: RepositoryLookup, token: str
    ) -> OpenProject | Reply:
        """A stored open project after GitHub's fresh answer: still public (under its new
        name if renamed), or withdrawn and refused as a missing one."""
        name = await settle(self.store, self.config, stored, found, self.settings.now())
        current = await self.store.open_projects.get(name) if name else None
        return current if current is not None else say.missing(token, self._close(token))

    async def recheck(self, repos: Iterable[str | None]) -> Reply | None:
        """Ask GitHub again about the open projects among `repos` before anything new of
        them is told, withdrawing any it no longer calls public; a reply when GitHub cannot
        say now (then nothing of them may be told)."""
        wanted = {repo.lower() for repo in repos if repo}
        now = self.settings.now()
        for project in await self.store.open_projects.list():
            if project.key not in wanted or self.config.is_configured(project.repo):
                continue
            found = await self.look_up(project.repo, project.etag)
            if found.outcome in ("limited", "unreachable"):
                return say.try_later(found.retry_minutes, limited=found.outcome == "limited")
            await settle(self.store, self.config, project, found, now)
        return None

    def _owner_refused(self, repo: str) -> Reply | None:
        owner = repo.split("/", 1)[0]
        setting = self.rules.owner_refused(owner)
        return say.owner_refused(owner, setting) if setting else None

    async def _channel_full(self, ctx: Context, repo: str) -> Reply | None:
        subs = await self.store.subscriptions.list(
            platform=ctx.platform, workspace=ctx.workspace, channel=ctx.channel
        )
        repos = {s.repo.lower() for s in subs if s.repo} - {repo.lower()}
        return (
            say.channel_full(self.rules.per_channel)
            if len(repos) >= self.rules.per_channel
            else None
        )

    async def _topics(self, repo: str) -> tuple[str, ...]:
        """The automatic topics of the repository's last `first_lookback` (none if unread)."""
        until = self.settings.now()
        window = Window(since=until - self.settings.first_lookback, until=until)
        project = Project(repo=repo, name=repo.split("/", 1)[1], source=f"github:{repo}")
        source = self.source_for(project)

        async def read() -> list[Activity]:
            return [a async for a in source.fetch(window)]

        try:  # a person waits for the answer: topics are not worth a rate limit's wait
            activities = await asyncio.wait_for(read(), TOPICS_WAIT_SECONDS)
        except (WireError, TimeoutError):
            return ()
        return topics_seen(activities, self.config)

    async def next_digest(self, ctx: Context, now: datetime) -> str:
        """When the channel's next digest is due, e.g. "Mon 09:00 UTC"."""
        channel = await self.store.channels.get(
            platform=ctx.platform, workspace=ctx.workspace, channel=ctx.channel
        )
        cron = channel.schedule or self.settings.schedule.default_cron
        if cron == "off":
            return "not scheduled (digests are off here; see /wire schedule)"
        zone = channel.timezone or self.settings.schedule.timezone
        fire = next_fire(trigger_for(cron, timezone=zone), after=now)
        return f"{fire:%a %H:%M} {zone}" if fire else "not scheduled"
