"""Deciding what is due and composing it: windows per channel, one story per channel.

A channel is due when its schedule (its own cron and timezone, else the defaults) fired
after the end of its last delivered window, or when it never got one. Its window runs
from that end to the latest fire time (so a re-run after a crash composes the same window
and the same story ids: enqueueing is then a no-op), never further back than
`max_lookback`. Downtime leaves no gap and missed runs coalesce into one window. A muted
or switched-off channel is skipped; its next window covers the time it missed.

A channel's subscriptions make one selection (see `bot.schedule.newsroom`), and the channel
gets one story of it per window, each change told once. Channels with an equal selection
and an equal window share one composition. Each channel then gets the story plus its
still-unacknowledged [immediate] items, enqueued as one delivery per (story, platform, channel); a "no news" story is not
delivered unless `deliver_no_news`.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from bot.acks.escalate import remind, with_unacknowledged
from bot.delivery.attempts import Summary
from bot.delivery.platform import Platform
from bot.delivery.worker import Worker
from bot.schedule.crontab import last_fire, trigger_for
from bot.schedule.newsroom import (
    Filter,
    Selection,
    SourceFor,
    compose_selection,
    filters_of,
    window_for,
)
from bot.schedule.reported import note_bulletins
from bot.schedule.shared_reads import SharedReads
from bot.settings import Settings
from bot.store import ChannelSettings, Store, Subscription
from digest.config import WireConfig
from digest.errors import WireError
from digest.model import Story, Window

log = logging.getLogger("wire.schedule")
ChannelKey = tuple[str, str, str]  # (platform, workspace, channel)
BeforeReading = Callable[[Iterable[str], datetime], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Plan:
    """A due channel: the window to compose and the filters of its subscriptions."""

    key: ChannelKey
    window: Window
    filters: tuple[Filter, ...]
    timezone: str | None = None  # the channel's own, for times its story names


@dataclass
class RunReport:
    """What one pass did."""

    due: int = 0
    composed: int = 0
    enqueued: int = 0
    skipped_no_news: int = 0
    failed: list[str] = field(default_factory=list)
    reminders: int = 0
    delivered: Summary = field(default_factory=Summary)


def plan_channel(
    channel: ChannelSettings,
    subscriptions: list[Subscription],
    *,
    settings: Settings,
    now: datetime,
) -> Plan | None:
    """The channel's due window at wall-clock `now`, or None when nothing is due."""
    cron = channel.schedule or settings.schedule.default_cron
    filters = tuple(filters_of(subscriptions))
    if cron == "off" or not filters:  # none, or only releases and security as they land
        return None
    if channel.muted_until is not None and channel.muted_until > now:
        return None
    clock = settings.now() if settings.demo.now else now  # the demo's fixed clock
    last = channel.last_window_until
    until = clock
    if last is not None:
        trigger = trigger_for(cron, timezone=channel.timezone or settings.schedule.timezone)
        fired = last_fire(trigger, after=last, until=clock)
        if fired is None:
            return None
        until = fired
    window = window_for(
        last_until=last,
        until=until,
        first_lookback=settings.first_lookback,
        max_lookback=settings.schedule.max_lookback,
    )
    if window is None:
        return None
    key = (channel.platform, channel.workspace, channel.channel)
    return Plan(key=key, window=window, filters=filters, timezone=channel.timezone)


class Scheduler:
    """Composes what is due and (with a worker) delivers it; `run_due` does one full pass."""

    def __init__(
        self,
        *,
        store: Store,
        config: WireConfig,
        settings: Settings,
        source_for: SourceFor,
        platforms: Mapping[str, Platform],
        worker: Worker | None = None,
        before_reading: BeforeReading | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.settings = settings
        self.source_for = source_for
        self.platforms = platforms
        self.worker = worker
        # re-checks the repositories a pass is about to read (those added from chat may have
        # gone private: see `bot.realtime.open_watch`); it may remove their subscriptions
        self.before_reading = before_reading

    async def plans(self, now: datetime) -> list[Plan]:
        """Every due channel at `now`."""
        by_channel: dict[ChannelKey, list[Subscription]] = defaultdict(list)
        for sub in await self.store.subscriptions.list():
            by_channel[(sub.platform, sub.workspace, sub.channel)].append(sub)
        plans = []
        for (platform, workspace, channel), subs in sorted(by_channel.items()):
            found = await self.store.channels.get(
                platform=platform, workspace=workspace, channel=channel
            )
            try:
                plan = plan_channel(found, subs, settings=self.settings, now=now)
            except ValueError as error:  # a schedule APScheduler cannot read
                log.warning("channel %s:%s has a bad schedule: %s", platform, channel, error)
                continue
            if plan is not None:
                plans.append(plan)
        return plans

    async def compose_due(self, now: datetime, report: RunReport | None = None) -> RunReport:
        """Compose and enqueue every due channel's stories, then advance its window."""
        report = report or RunReport()
        plans = await self.plans(now)
        if plans and self.before_reading is not None:
            repos = {r for plan in plans for f in plan.filters for r in f.repos}
            await self.before_reading(repos, now)
            plans = await self.plans(now)  # without what was withdrawn
        report.due = len(plans)
        composed: dict[tuple[Selection, Window], Story | None] = {}
        reads = SharedReads(self.source_for)  # each repository's window read once this pass
        for plan in plans:
            shared = (plan.filters, plan.window)
            if shared not in composed:
                composed[shared] = await self._compose(plan.filters, plan.window, report, reads)
            story = composed[shared]
            if story is None:
                continue  # retried on the next pass, with the same window
            await self._enqueue(story, plan, now=now, report=report)
            platform, workspace, channel = plan.key
            await self.store.channels.set_window_until(
                platform=platform, workspace=workspace, channel=channel, until=plan.window.until
            )
        return report

    async def _compose(
        self, selection: Selection, window: Window, report: RunReport, reads: SharedReads
    ) -> Story | None:
        try:
            story = await compose_selection(
                selection, config=self.config, window=window, source_for=reads
            )
        except WireError as error:
            what = "; ".join(f.describe() for f in selection)
            log.warning("could not compose %s: %s", what, error)
            report.failed.append(f"{what}: {error}")
            return None
        report.composed += 1
        return story

    async def _enqueue(self, story: Story, plan: Plan, *, now: datetime, report: RunReport) -> None:
        if story.is_empty and not self.settings.deliver_no_news:
            report.skipped_no_news += 1
            return
        platform, workspace, channel = plan.key
        if not story.is_empty:
            composed = [item.id for item in story.action_items]
            story = await with_unacknowledged(
                story,
                self.store,
                platform=platform,
                channel=channel,
                since=now - self.settings.carry_unacked_for,
            )
            story = await note_bulletins(
                story,
                self.store,
                platform=platform,
                channel=channel,
                among=composed,
                zone=plan.timezone or self.settings.schedule.timezone,
                now=now,
            )
        queued = await self.store.deliveries.enqueue(
            story, platform=platform, workspace=workspace, channel=channel
        )
        report.enqueued += int(queued.created)

    async def remind(self) -> int:
        """One reminder per [immediate] item nobody acknowledged in time."""
        return await remind(
            self.store,
            self.platforms,
            reminder_after=self.settings.acks.reminder_after,
            oncall=self.settings.acks.oncall.model_dump(),
        )

    async def run_due(self, now: datetime) -> RunReport:
        """All due work at `now`, deterministically: compose and enqueue, deliver everything
        due, then send reminders (`wire run --once` and the tests call this)."""
        report = await self.compose_due(now)
        if self.worker is not None:
            report.delivered = await self.worker.run_once()
        report.reminders = await self.remind()
        return report
