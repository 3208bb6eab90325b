"""From a change that just landed to bulletins: judged by the digest's own rules, cut short,
queued in the outbox for every channel that follows it.

For each landed change (an `Activity` from the project's source) the `Newsdesk`:

1. skips it if it was judged before (`store.changes`: a webhook and a poll, or a merge's
   pull_request and push deliveries, bring the same change) or landed more than `max_age`
   ago (the digest has it);
2. folds every channel's subscriptions into one selection, as the scheduler does, and keeps
   the filters that cover the change's repository;
3. composes, once per selection, the one-change story `digest.compose` writes for it (the
   filters' topics and exclusions applied as for a digest), so a channel gets at most one
   bulletin of a change however many of its subscriptions take it; only an `[immediate]`
   action item in that story makes a bulletin: the digest's rules decide, not this module;
4. cuts the story to a bulletin (`bulletin_of`) and, for each channel of the selection whose
   bulletins are on, that is not muted and was not posted the item already (by a digest
   that came first), notes it (`store.bulletins`, once per item and
   channel) and enqueues it: the worker delivers it like any story, exactly once and paced,
   and its Acknowledge button, ✅ and reminder work as on a digest item (same item id).

The change is marked judged only after its bulletins are queued, so a crash in between
judges it again, and enqueueing the same bulletin twice is a no-op.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from bot.schedule.newsroom import Filter, Selection, filters_of, selected
from bot.store import Store, Subscription
from digest.compose import compose
from digest.config import WireConfig
from digest.errors import WireError
from digest.model import Activity, Story, Window, stable_id

log = logging.getLogger("wire.realtime.bulletins")
ChannelKey = tuple[str, str, str]  # (platform, workspace, channel)


def bulletin_window(activity: Activity) -> Window:
    """The minute the change landed in: a bulletin's window."""
    since = activity.landed_at.astimezone(UTC).replace(second=0, microsecond=0)
    return Window(since=since, until=since + timedelta(minutes=1))


def bulletin_of(story: Story) -> Story | None:
    """The bulletin cut from a one-change story: its headline, one cited sentence, its
    [immediate] action items and the references they cite; None without such an item."""
    urgent = tuple(item for item in story.action_items if item.urgency == "immediate")
    if not urgent or (story.checks is not None and not story.checks.passed):
        return None
    cited = {n for item in urgent for n in item.refs}
    sentence = next((s for s in story.body if cited & set(s.refs)), None)
    if sentence is None and story.body:
        sentence = story.body[0]
    body = (sentence,) if sentence is not None else ()
    cited |= {n for s in body for n in s.refs}
    landed = story.window.since.astimezone(UTC)
    return story.model_copy(
        update={
            "id": stable_id("bulletin", story.id, [item.id for item in urgent]),
            "lede": f"Landed at {landed:%H:%M} UTC; sent now, ahead of the next digest.",
            "body": body,
            "action_items": urgent,
            "references": tuple(ref for ref in story.references if ref.n in cited),
        }
    )


def covers(story_filter: Filter, repo: str) -> bool:
    """True when a filter's stories can be about `repo`."""
    return not story_filter.repos or repo.lower() in {r.lower() for r in story_filter.repos}


@dataclass
class Judged:
    """What judging some changes did."""

    changes: int = 0  # new changes judged
    stale: int = 0  # landed too long ago: left to the digest
    immediate: int = 0  # changes that made at least one bulletin
    queued: int = 0  # bulletin deliveries created
    skipped: list[str] = field(default_factory=list)  # channels passed over, and why


class Newsdesk:
    """Judges landed changes and queues their bulletins (see the module docstring)."""

    def __init__(self, *, store: Store, config: WireConfig, max_age: timedelta) -> None:
        self.store = store
        self.config = config
        self.max_age = max_age

    async def judge(
        self, activities: Iterable[Activity], *, via: str, now: datetime | None = None
    ) -> Judged:
        """Judge each change not judged before; queue bulletins for the immediate ones."""
        now = now or datetime.now(UTC)
        report = Judged()
        by_repo: dict[str, list[Activity]] = defaultdict(list)
        for activity in activities:
            by_repo[activity.repo].append(activity)
        for repo, group in by_repo.items():
            seen = await self.store.changes.seen(repo, [a.sha for a in group])
            for activity in group:
                if activity.sha in seen:
                    continue
                seen.add(activity.sha)
                report.changes += 1
                if now - activity.landed_at > self.max_age:
                    report.stale += 1
                else:
                    await self._bulletins(activity, report, now=now)
                await self.store.changes.mark(repo, activity.sha, via=via)
        return report

    async def _bulletins(self, activity: Activity, report: Judged, *, now: datetime) -> None:
        channels = await self._channels_following(activity.repo)
        stories: dict[Selection, Story | None] = {}
        for selection in dict.fromkeys(channels.values()):
            stories[selection] = self._compose(activity, selection)
        made = [story for story in stories.values() if story is not None]
        if not made:
            return
        report.immediate += 1
        # what each channel's send needs, read once for all of them
        off = await self.store.bulletins.switched_off()
        muted = {
            (c.platform, c.workspace, c.channel)
            for c in await self.store.channels.list()
            if c.muted_until is not None and c.muted_until > now
        }
        posted = await self.store.bulletins.posted_to(
            {item.id for story in made for item in story.action_items}
        )
        sending: dict[str, list[ChannelKey]] = {}
        for key, selection in channels.items():
            platform, _workspace, channel = key
            if key in off or key in muted:
                report.skipped.append(
                    f"{platform}:{channel}: {'bulletins off' if key in off else 'muted'}"
                )
                continue
            story = stories[selection]
            if story is None:
                continue
            if any((item.id, platform, channel) in posted for item in story.action_items):
                report.skipped.append(f"{platform}:{channel}: already posted")
            else:
                sending.setdefault(story.id, []).append(key)
        by_id = {story.id: story for story in made}
        for story_id, keys in sending.items():
            await self._send(by_id[story_id], keys, report)

    async def _channels_following(self, repo: str) -> dict[ChannelKey, Selection]:
        """Each channel whose subscriptions can take a change of `repo`: the filters of its
        selection that cover the repository."""
        by_channel: dict[ChannelKey, list[Subscription]] = defaultdict(list)
        for sub in await self.store.subscriptions.list():
            by_channel[(sub.platform, sub.workspace, sub.channel)].append(sub)
        found = {}
        for key, subs in sorted(by_channel.items()):
            filters = tuple(f for f in filters_of(subs) if covers(f, repo))
            if filters:
                found[key] = filters
        return found

    def _compose(self, activity: Activity, selection: Selection) -> Story | None:
        """The bulletin of `activity` for channels of `selection`: one story whichever of
        their filters take the change (a lone topic filter's reads as its topic's)."""
        kept = selected([activity], selection, self.config)
        topic = selection[0].topic if len(selection) == 1 else None
        try:
            story = compose(
                kept,
                config=self.config,
                window=bulletin_window(activity),
                topic=topic,
                repos=(activity.repo,),
            )
        except WireError as error:
            what = "; ".join(f.describe() for f in selection)
            log.warning("no bulletin of %s for %s: %s", activity.link, what, error)
            return None
        return bulletin_of(story)

    async def _send(self, story: Story, keys: list[ChannelKey], report: Judged) -> None:
        """Note the story's bulletins for `keys` (one transaction), then queue it for each
        channel whose bulletin of these items it carries (not another filter's story)."""
        await self.store.stories.save(story)
        holders = await self.store.bulletins.note(
            story_id=story.id, item_ids=[item.id for item in story.action_items], channels=keys
        )
        for key in keys:
            platform, workspace, channel = key
            if holders[key] != {story.id}:  # another of the channel's filters carries it
                report.skipped.append(f"{platform}:{channel}: already sent")
                continue
            queued = await self.store.deliveries.enqueue(
                story, platform=platform, workspace=workspace, channel=channel
            )
            report.queued += int(queued.created)
        log.info("bulletin %s queued for %d channel(s): %s", story.id, len(keys), story.headline)
