"""The scheduler on real SQLite with the recorded demo activity; time moved with time-machine."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from bot.delivery.parts import ActionItemPart, ParentPart, ReminderPart
from bot.delivery.worker import Worker
from bot.schedule.crontab import next_fire, trigger_for
from bot.schedule.newsroom import apply_excludes
from bot.schedule.scheduler import Scheduler
from bot.settings import Settings
from bot.store import Store
from digest.model import Window
from digest.sources import open_source
from tests.chat import (
    DEMO_ACTIVITY,
    ChatPlatform,
    WireChat,
    demo_config,
    demo_settings,
    demo_source,
    settings_with,
    sqlite_store,
)

MAY = datetime(2026, 5, 1, tzinfo=UTC)


@pytest.fixture
async def store(tmp_path) -> AsyncIterator[Store]:
    opened = await sqlite_store(tmp_path)
    try:
        yield opened
    finally:
        await opened.close()


def make(store: Store, settings: Settings, platform: ChatPlatform | None = None):
    platform = platform or ChatPlatform()
    scheduler = Scheduler(
        store=store,
        config=demo_config(),
        settings=settings,
        source_for=demo_source,
        platforms={platform.name: platform},
        worker=Worker(store, [platform]),
    )
    return scheduler, WireChat(store, settings=settings, platform=platform), platform


def parents(platform: ChatPlatform) -> list[tuple[str, ParentPart]]:
    return [(p.channel, p.part) for p in platform.posts if isinstance(p.part, ParentPart)]


async def test_first_run_posts_the_story_and_a_second_run_posts_nothing(store: Store) -> None:
    scheduler, wire, platform = make(store, demo_settings())
    await wire("/wire subscribe executorch ci-infra")
    report = await scheduler.run_due(datetime.now(UTC))
    assert (report.due, report.composed, report.enqueued) == (1, 1, 1)
    ((channel, parent),) = parents(platform)
    assert channel == "C1" and "CI-INFRA" in parent.headline
    assert parent.window_label == "2026-05-25 00:00 – 2026-05-27 00:00 UTC"
    again = await scheduler.run_due(datetime.now(UTC) + timedelta(days=3))
    assert (again.due, again.enqueued) == (0, 0) and len(parents(platform)) == 1


async def test_one_composition_per_filter_however_many_channels(store: Store) -> None:
    scheduler, wire, platform = make(store, demo_settings())
    for channel in ("C1", "C2", "C3"):
        await wire("/wire subscribe executorch ci-infra", channel=channel)
    await wire("/wire subscribe ci-infra topic:grafana", channel="C4")
    report = await scheduler.run_due(datetime.now(UTC))
    assert (report.due, report.composed, report.enqueued) == (4, 2, 4)
    by_channel = dict(parents(platform))
    assert by_channel["C1"] == by_channel["C2"] == by_channel["C3"] != by_channel["C4"]


async def test_windows_after_downtime_have_no_gap_and_no_overlap(store: Store) -> None:
    settings = settings_with(default_cron="0 9 * * *", first_lookback=timedelta(hours=12))
    scheduler, wire, _ = make(store, settings)
    await wire("/wire subscribe executorch ci-infra")
    moments = [
        datetime(2026, 5, 25, 12, tzinfo=UTC),  # first digest: the last 12 hours
        datetime(2026, 5, 25, 20, tzinfo=UTC),  # no 09:00 since: nothing due
        datetime(2026, 5, 27, 15, tzinfo=UTC),  # down over two 09:00 runs: they coalesce
    ]
    windows = []
    for moment in moments:
        with time_machine.travel(moment, tick=False):
            report = await scheduler.compose_due(datetime.now(UTC))
        windows.extend([report.due])
    assert windows == [1, 0, 1]
    stories = [await store.stories.get(d.story_id) for d in await store.listing.list()]
    spans = sorted((s.window.since, s.window.until) for s in stories if s is not None)
    assert spans == [
        (datetime(2026, 5, 25, 0, tzinfo=UTC), datetime(2026, 5, 25, 12, tzinfo=UTC)),
        (datetime(2026, 5, 25, 12, tzinfo=UTC), datetime(2026, 5, 27, 9, tzinfo=UTC)),
    ]


async def test_the_look_back_is_capped(store: Store) -> None:
    settings = settings_with(default_cron="0 9 * * *", max_lookback=timedelta(days=1))
    scheduler, wire, _ = make(store, settings)
    await wire("/wire subscribe executorch")
    where = dict(platform="chat", workspace="W1", channel="C1")
    await store.channels.set_window_until(**where, until=MAY)
    now = datetime(2026, 5, 26, 10, tzinfo=UTC)
    (plan,) = await scheduler.plans(now)
    assert plan.window == Window(
        since=datetime(2026, 5, 25, 9, tzinfo=UTC), until=datetime(2026, 5, 26, 9, tzinfo=UTC)
    )


async def test_muted_and_switched_off_channels_wait_then_catch_up(store: Store) -> None:
    scheduler, wire, platform = make(store, demo_settings())
    await wire("/wire subscribe executorch", channel="C1")
    await wire("/wire subscribe executorch", channel="C2")
    await wire("/wire schedule off", channel="C2")
    start = datetime(2026, 6, 1, 12, tzinfo=UTC)
    with time_machine.travel(start, tick=False):
        await wire("/wire mute 4h", channel="C1")
        assert (await scheduler.run_due(datetime.now(UTC))).due == 0
    with time_machine.travel(start + timedelta(hours=5), tick=False):
        assert (await scheduler.run_due(datetime.now(UTC))).due == 1
    ((channel, parent),) = parents(platform)
    assert channel == "C1" and parent.window_label.startswith("2026-05-25 00:00")


async def test_no_news_is_not_delivered_unless_configured(store: Store) -> None:
    quiet = datetime(2026, 5, 20, tzinfo=UTC)  # the demo data has nothing before May 25
    scheduler, wire, platform = make(store, demo_settings(now=quiet))
    await wire("/wire subscribe executorch")
    report = await scheduler.run_due(datetime.now(UTC))
    assert (report.skipped_no_news, report.enqueued, platform.posts) == (1, 0, [])
    chatty, wire2, platform2 = make(store, demo_settings(now=quiet, deliver_no_news=True))
    await wire2("/wire subscribe executorch", channel="C9")
    assert (await chatty.run_due(datetime.now(UTC))).enqueued == 1
    ((_, parent),) = parents(platform2)
    assert "NO" in parent.headline or "QUIET" in parent.headline.upper()


def test_excludes_drop_authors_and_topics_before_composing() -> None:
    activities = open_source(f"replay:{DEMO_ACTIVITY}").read_all()
    config = demo_config()
    no_jean = apply_excludes(activities, excludes=["author:jeanschmidt"], config=config)
    assert len(activities) - len(no_jean) == 9
    assert all(a.author != "Jean Schmidt" for a in no_jean)
    no_arm = apply_excludes(activities, excludes=["topic:arm"], config=config)
    assert 0 < len(activities) - len(no_arm) < len(activities)
    assert not any(any(f.path.startswith("backends/arm/") for f in a.files) for a in no_arm)


async def test_excluded_topics_never_reach_the_story(store: Store) -> None:
    scheduler, wire, _ = make(store, demo_settings())
    await wire("/wire subscribe ci-infra -topic:grafana", channel="C1")
    await wire("/wire subscribe ci-infra", channel="C2")
    report = await scheduler.run_due(datetime.now(UTC))
    assert (report.composed, report.enqueued) == (2, 2)
    activities = open_source(f"replay:{DEMO_ACTIVITY}", repo="pytorch/ci-infra").read_all()
    allowed = {
        a.sha for a in apply_excludes(activities, excludes=["topic:Grafana"], config=demo_config())
    }
    (narrow,) = await store.listing.list(channel="C1")
    (full,) = await store.listing.list(channel="C2")
    narrow_story = await store.stories.get(narrow.story_id)
    full_story = await store.stories.get(full.story_id)
    assert narrow_story is not None and full_story is not None
    assert {r.sha for r in narrow_story.references} <= allowed
    assert {r.sha for r in full_story.references} - allowed


async def test_unacknowledged_items_remind_once_and_return_in_the_next_digest(
    store: Store,
) -> None:
    hourly = dict(default_cron="0 * * * *", oncall={"console": "@sre"})
    morning = demo_settings(now=datetime(2026, 5, 26, 12, tzinfo=UTC), **hourly)
    scheduler, wire, platform = make(store, morning, ChatPlatform(name="console"))
    await wire("/wire subscribe executorch ci-infra", channel="C1")
    await wire("/wire subscribe executorch ci-infra", channel="C2")
    start = datetime(2026, 6, 1, 8, tzinfo=UTC)
    with time_machine.travel(start, tick=False):
        await scheduler.run_due(datetime.now(UTC))
    urgent = [
        p
        for p in platform.posts
        if isinstance(p.part, ActionItemPart) and p.part.item.urgency == "immediate"
    ]
    assert [p.channel for p in urgent] == ["C1", "C2"]
    item = urgent[0].part.item
    await wire(f"/wire ack {item.id}", channel="C1")

    with time_machine.travel(start + timedelta(minutes=31), tick=False):
        assert (await scheduler.run_due(datetime.now(UTC))).reminders == 1
        assert (await scheduler.run_due(datetime.now(UTC))).reminders == 0
    (reminder,) = [p for p in platform.posts if isinstance(p.part, ReminderPart)]
    assert (reminder.channel, reminder.thread) == ("C2", urgent[1].thread)
    assert reminder.part.oncall == "@sre" and "@sre" in reminder.text

    evening = demo_settings(now=datetime(2026, 5, 27, tzinfo=UTC), **hourly)
    later, _, _ = make(store, evening, platform)
    with time_machine.travel(start + timedelta(hours=2), tick=False):
        report = await later.run_due(datetime.now(UTC))
    assert (report.due, report.enqueued) == (2, 2)
    carried = {
        p.channel: p.part.item
        for p in platform.posts[len(urgent) :]
        if isinstance(p.part, ActionItemPart) and p.part.item.text.startswith("Still unack")
    }
    assert list(carried) == ["C2"] and carried["C2"].id == item.id
    assert (await wire(f"/wire ack {item.id}", channel="C2")).ok


def test_numeric_weekdays_mean_what_cron_means() -> None:
    trigger = trigger_for("0 9 * * 1-5", timezone="UTC")
    moment = datetime(2026, 12, 5, 10, tzinfo=UTC)  # a Saturday
    days = []
    for _ in range(5):
        fired = next_fire(trigger, after=moment)
        assert fired is not None
        days.append(fired.strftime("%a"))
        moment = fired
    assert days == ["Mon", "Tue", "Wed", "Thu", "Fri"]
    assert trigger_for("0 9 * * 0", timezone="UTC").fields[4].expressions[0].first == 6
