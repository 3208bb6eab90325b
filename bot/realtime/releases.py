"""Release and security stories: for channels that follow a repository's `releases` or its
`security` fixes only, a story as each lands, through the realtime path (no digest).

The processor and the poller hand every landed change to the `ReleaseDesk` before the
`Newsdesk` judges it. Changes judged before (`store.changes`) are passed over, and so is a
repository nobody follows this way, before anything is read. For the rest the digest engine
decides what is a release and what a security fix (`digest.reading.classify`: a release
commit, a tag or a GitHub release, each version told once), and composes the story:

- a release: the story `digest.compose` writes of the window since the repository's
  previous release (at most `LOOKBACK` back), up to the release itself: its version, what
  it carries, stated breaking changes and security fixes, with citations and its link;
- a security fix: the one-change story a bulletin is cut from, whole.

Each story goes into the outbox for every such channel that is not muted, under an id of
its own (a release's is its versions), so the same release brought twice (its commit by a
push, its tag by a poll) or judged again after a crash is queued once per channel.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from bot.realtime.bulletins import bulletin_window
from bot.store import Store
from digest.compose import compose
from digest.config import Project, WireConfig
from digest.errors import WireError
from digest.model import Activity, Story, Window, stable_id
from digest.reading.classify import classify
from digest.reading.event import Event
from digest.reading.releases import TAG_PREFIX, release_of
from digest.sources import Source

log = logging.getLogger("wire.realtime.releases")
ChannelKey = tuple[str, str, str]  # (platform, workspace, channel)
LOOKBACK = timedelta(days=30)  # how far back a release story looks for the previous one
_INSTANT = timedelta(microseconds=1)  # a window is half-open: the release itself is in it


@dataclass
class ReleasesJudged:
    """What judging some changes did for the channels that follow releases or security."""

    stories: list[str] = field(default_factory=list)  # headlines of the stories composed
    queued: int = 0  # deliveries created
    skipped: list[str] = field(default_factory=list)  # channels passed over, and why


def release_window(
    release: Event, events: Iterable[Event], activities: Iterable[Activity]
) -> Window:
    """From just after the repository's previous release among `events` (else `LOOKBACK`
    before) to just after `release`: what the release carries. The previous release ends
    with the last of its commit and its tag (`activities`): a tag published after its
    commit is the same release, not news of this one."""
    landed = release.activity.landed_at
    earlier = [
        e
        for e in events
        if e.release is not None and e.repo.lower() == release.repo.lower()
        if landed - LOOKBACK < e.activity.landed_at < landed
    ]
    if not earlier:
        return Window(since=landed - LOOKBACK, until=landed + _INSTANT)
    previous = max(earlier, key=_landed)
    told = {version for _, version in previous.release.versions} if previous.release else set()
    ends = [previous.activity.landed_at] + [
        a.landed_at
        for a in activities
        if a.sha.startswith(TAG_PREFIX) and previous.activity.landed_at < a.landed_at < landed
        if (tag := release_of(a, a.title, frozenset())) and told & {v for _, v in tag.versions}
    ]
    return Window(since=max(ends) + _INSTANT, until=landed + _INSTANT)


class ReleaseDesk:
    """Queues release and security stories for the channels that follow only those."""

    def __init__(
        self,
        *,
        store: Store,
        config: WireConfig,
        source_for: Callable[[Project], Source],
        max_age: timedelta,
    ) -> None:
        self.store = store
        self.config = config
        self.source_for = source_for
        self.max_age = max_age

    async def judge(
        self, activities: Iterable[Activity], *, now: datetime | None = None
    ) -> ReleasesJudged:
        """Tell each release and security fix among the new `activities` to its followers."""
        now = now or datetime.now(UTC)
        report = ReleasesJudged()
        followers = await self._followers()
        by_repo: dict[str, list[Activity]] = defaultdict(list)
        for activity in activities:
            if activity.repo.lower() in followers and now - activity.landed_at <= self.max_age:
                by_repo[activity.repo].append(activity)
        for repo, group in by_repo.items():
            seen = await self.store.changes.seen(repo, [a.sha for a in group])
            fresh = [a for a in group if a.sha not in seen]
            if fresh:
                await self._judge_repo(repo, fresh, followers[repo.lower()], report, now)
        return report

    async def _followers(self) -> dict[str, dict[str, list[ChannelKey]]]:
        """repository (lower case) → kind → the channels that follow it so."""
        found: dict[str, dict[str, list[ChannelKey]]] = defaultdict(lambda: defaultdict(list))
        for sub in await self.store.subscriptions.list():
            if sub.kind != "all" and sub.repo is not None:
                found[sub.repo.lower()][sub.kind].append((sub.platform, sub.workspace, sub.channel))
        return found

    async def _judge_repo(
        self,
        repo: str,
        fresh: list[Activity],
        kinds: dict[str, list[ChannelKey]],
        report: ReleasesJudged,
        now: datetime,
    ) -> None:
        wanted = {a.key for a in fresh}
        quick = classify(fresh, self.config)  # the common case, no release: nothing to read
        if not any(
            (e.release and kinds["releases"]) or (e.security and kinds["security"]) for e in quick
        ):
            return
        try:
            activities = await self._with_history(repo, fresh)
        except WireError as error:
            log.warning("no release story of %s: reading its history failed: %s", repo, error)
            return
        events = classify(activities, self.config)
        landed = sorted((e for e in events if e.activity.key in wanted), key=_landed)
        for event in landed:
            if event.release is not None and kinds["releases"]:
                story = self._release_story(event, events, activities)
                await self._send(story, kinds["releases"], report, now)
            if event.security and kinds["security"]:
                await self._send(self._security_story(event), kinds["security"], report, now)

    async def _with_history(self, repo: str, fresh: list[Activity]) -> list[Activity]:
        """`fresh` with the repository's changes of the `LOOKBACK` before them."""
        until = max(a.landed_at for a in fresh) + _INSTANT
        window = Window(since=min(a.landed_at for a in fresh) - LOOKBACK, until=until)
        source = self.source_for(self.config.project(repo))
        read = [a async for a in source.fetch(window)]
        known = {a.key for a in read}
        return sorted([*read, *(a for a in fresh if a.key not in known)], key=_when)

    def _release_story(
        self, release: Event, events: list[Event], activities: list[Activity]
    ) -> Story | None:
        window = release_window(release, events, activities)
        try:
            story = compose(activities, config=self.config, window=window, repos=(release.repo,))
        except WireError as error:
            log.warning("no release story of %s: %s", release.activity.link, error)
            return None
        versions = release.release.versions if release.release else ()
        return story.model_copy(
            update={
                "id": stable_id("release", release.repo.lower(), versions or release.activity.sha)
            }
        )

    def _security_story(self, fix: Event) -> Story | None:
        activity = fix.activity
        try:
            story = compose(
                [activity],
                config=self.config,
                window=bulletin_window(activity),
                repos=(activity.repo,),
            )
        except WireError as error:
            log.warning("no security story of %s: %s", activity.link, error)
            return None
        return story.model_copy(update={"id": stable_id("security", story.id)})

    async def _send(
        self, story: Story | None, keys: list[ChannelKey], report: ReleasesJudged, now: datetime
    ) -> None:
        """Queue `story` for each channel of `keys` that is not muted."""
        if story is None:
            return
        report.stories.append(story.headline)
        muted = {
            (c.platform, c.workspace, c.channel)
            for c in await self.store.channels.list()
            if c.muted_until is not None and c.muted_until > now
        }
        for platform, workspace, channel in dict.fromkeys(keys):
            if (platform, workspace, channel) in muted:
                report.skipped.append(f"{platform}:{channel}: muted")
                continue
            queued = await self.store.deliveries.enqueue(
                story, platform=platform, workspace=workspace, channel=channel
            )
            report.queued += int(queued.created)
        log.info(
            "release desk queued %s for %d channel(s): %s", story.id, len(keys), story.headline
        )


def _landed(event: Event) -> datetime:
    return event.activity.landed_at


def _when(activity: Activity) -> datetime:
    return activity.landed_at
