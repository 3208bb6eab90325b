"""Repositories added from chat at poll and digest time, against the loopback GitHub: the
poller re-checks each with a conditional request (free when unchanged) before anything new
of it is told and otherwise hourly, and reads it like a configured one, bulletins included; one made private stops and its channels are told once;
one nobody follows for `drop_after` is dropped; a digest round reads each repository's
window once however many filters include it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from bot.app.service import source_factory
from bot.delivery.worker import Worker
from bot.realtime import Realtime
from bot.schedule.scheduler import Scheduler
from bot.store import Store
from digest.config import WireConfig
from tests.chat import ChatPlatform
from tests.fakes.github import FakeGitHub, FakePull
from tests.open_github import TOKEN, load_activity, open_chat, open_settings

LANDED = datetime(2026, 5, 26, 5, 18, 31, tzinfo=UTC)  # the demo's CI-gate change (#619)
NOW = LANDED + timedelta(minutes=1)
GATES = "acme/ci-gates"  # the demo's ci-infra activity, under a name nobody configured


@pytest.fixture
async def github() -> AsyncIterator[FakeGitHub]:
    async with FakeGitHub(tokens=[TOKEN]) as fake:
        load_activity(fake, "pytorch-ci-infra-2026-05.jsonl", repo=GATES, until=NOW)
        yield fake
        assert fake.problems == []


def realtime(store: Store, github: FakeGitHub, **rules: object) -> Realtime:
    settings = open_settings(github.url, now=NOW, **rules)
    return Realtime(
        store=store, config=WireConfig(), settings=settings, source_for=source_factory(settings)
    )


def scheduler_for(store: Store, github: FakeGitHub, platform: ChatPlatform) -> Scheduler:
    """The scheduler as `wire run` wires it: it re-checks open projects before reading."""
    settings = open_settings(github.url, now=NOW)
    return Scheduler(
        store=store,
        config=WireConfig(),
        settings=settings,
        source_for=source_factory(settings),
        platforms={"chat": platform},
        worker=Worker(store, {"chat": platform}),
        before_reading=realtime(store, github).watch.before_reading,
    )


async def test_a_poll_reads_an_open_project_and_sends_its_bulletin(
    store: Store, github: FakeGitHub
) -> None:
    with time_machine.travel(NOW, tick=True):
        assert (await open_chat(store, github.url, now=NOW)(f"/wire subscribe {GATES}")).ok
        poller = realtime(store, github)
        report = await poller.poll(NOW)
        assert report.polled == [GATES] and report.queued == 1
        [queued] = await store.listing.list()
        story = await store.stories.get(queued.story_id)
        assert queued.channel == "C1" and [r.number for r in story.references] == [619]
        before = github.counters()
        again = await poller.poll(NOW + timedelta(minutes=2))
    assert again.polled == [GATES] and again.queued == 0
    cost = {k: github.counters()[k] - before[k] for k in before}
    # nothing new and checked minutes ago: no re-check, and the commits answer 304
    assert cost == {"graphql_requests": 0, "rest_requests": 1, "core_quota": 0, "graphql_quota": 0}
    assert [r.status for r in github.requests[-1:]] == [304]


async def test_a_repository_with_nothing_new_is_re_checked_hourly_and_before_news(
    store: Store, github: FakeGitHub
) -> None:
    with time_machine.travel(NOW, tick=True):
        assert (await open_chat(store, github.url, now=NOW)(f"/wire subscribe {GATES}")).ok
        poller = realtime(store, github)
        await poller.poll(NOW)
        looked = len(lookups(github))
        for minutes in (10, 20, 30):
            await poller.poll(NOW + timedelta(minutes=minutes))
        assert len(lookups(github)) == looked  # nothing new: not asked
        github.add_pulls(GATES, [later_gate(github)])
        news = await poller.poll(NOW + timedelta(minutes=40))
        assert len(lookups(github)) == looked + 1  # news: asked first
        assert news.queued == 1
        await poller.poll(NOW + timedelta(minutes=110))
    assert len(lookups(github)) == looked + 2  # an hour on: asked again


async def test_a_repository_made_private_stops_and_its_channels_are_told_once(
    store: Store, github: FakeGitHub
) -> None:
    with time_machine.travel(NOW, tick=True):
        for channel in ("C1", "C2"):
            chat = open_chat(store, github.url, now=NOW, channel=channel)
            assert (await chat(f"/wire subscribe {GATES}")).ok
        poller = realtime(store, github)
        assert (await poller.poll(NOW)).queued == 2  # the CI gate's bulletin, to each
        platform = ChatPlatform()
        await Worker(store, {"chat": platform}).run_once()
        github.add_repository(GATES, visibility="private")
        github.add_pulls(GATES, [later_gate(github)])  # news nobody may now receive
        report = await poller.poll(NOW + timedelta(minutes=10))
        again = await poller.poll(NOW + timedelta(minutes=20))
    assert report.polled == [] and again.polled == [] and report.queued == 0
    assert await store.subscriptions.list() == [] and await store.open_projects.list() == []
    told = [d for d in await store.listing.list() if d.headline.startswith("NO MORE NEWS")]
    assert sorted(d.channel for d in told) == ["C1", "C2"]
    assert {d.headline for d in told} == {"NO MORE NEWS OF ACME/CI-GATES"}
    before = len(platform.posts)
    await Worker(store, {"chat": platform}).run_once()
    after = "\n".join(p.text for p in platform.posts[before:])
    assert after.count("is no longer a public repository on GitHub") == 2
    assert "pull/" not in after  # nothing of it after it went private
    refused = await open_chat(store, github.url, now=NOW)(f"/wire subscribe {GATES}")
    assert "GitHub has no public repository" in refused


def lookups(github: FakeGitHub) -> list[object]:
    """The requests that asked GitHub about the repository itself (`GET /repos/{o}/{r}`)."""
    return [r for r in github.requests if r.path.lower() == f"/repos/{GATES}".lower()]


def later_gate(github: FakeGitHub) -> FakePull:
    """The CI-gate change landing again, five minutes after NOW."""
    gate = next(p for p in github.repos[GATES] if p.number == 619)
    return replace(gate, number=9619, merge_sha="e" * 40, merged_at=NOW + timedelta(minutes=5))


async def test_a_project_nobody_follows_for_drop_after_is_dropped(
    store: Store, github: FakeGitHub
) -> None:
    with time_machine.travel(NOW, tick=True):
        chat = open_chat(store, github.url, now=NOW)
        await chat(f"/wire subscribe {GATES}")
        await chat(f"/wire unsubscribe {GATES}")
        poller = realtime(store, github, drop_after=timedelta(days=30))
        await poller.poll(NOW + timedelta(days=29))
        assert [p.repo for p in await store.open_projects.list()] == [GATES]
        await poller.poll(NOW + timedelta(days=30, minutes=1))
    assert await store.open_projects.list() == []


async def test_a_digest_round_reads_each_repository_window_once(
    store: Store, github: FakeGitHub
) -> None:
    platform = ChatPlatform()
    with time_machine.travel(NOW, tick=True):
        for channel, extra in (("C1", ""), ("C2", " -author:nobody"), ("C3", " -author:someone")):
            chat = open_chat(store, github.url, now=NOW, channel=channel)
            assert (await chat(f"/wire subscribe {GATES}{extra}")).ok
        scheduler = scheduler_for(store, github, platform)
        before = len(github.requests)
        report = await scheduler.run_due(NOW)
    assert (report.due, report.composed, report.enqueued) == (3, 3, 3)
    probes = [r for r in github.requests[before:] if r.path == f"/repos/{GATES}/commits"]
    assert len(probes) == 1  # three filters, one read of its window
    assert all("pull/619" in platform.texts(c) for c in ("C1", "C2", "C3"))


async def test_a_digest_re_checks_first_and_never_tells_of_a_repository_made_private(
    store: Store, github: FakeGitHub
) -> None:
    """With polling off, or between two polls, the digest round's own re-check stops it."""
    platform = ChatPlatform()
    with time_machine.travel(NOW, tick=True):
        assert (await open_chat(store, github.url, now=NOW)(f"/wire subscribe {GATES}")).ok
        github.add_repository(GATES, visibility="private")
        before = len(github.requests)  # subscribing read its first day, for its topics
        scheduler = scheduler_for(store, github, platform)
        report = await scheduler.run_due(NOW)
        again = await scheduler.run_due(NOW + timedelta(days=1))
    assert report.composed == again.composed == 0
    read = [r.path for r in github.requests[before:] if r.path != f"/repos/{GATES}"]
    assert read == []  # only the re-check: nothing of it was read
    assert platform.texts("C1").count("is no longer a public repository on GitHub") == 1
    assert "pull/" not in platform.texts()


async def test_a_repository_renamed_between_polls_is_followed_under_its_new_name(
    store: Store, github: FakeGitHub
) -> None:
    with time_machine.travel(NOW, tick=True):
        assert (await open_chat(store, github.url, now=NOW)(f"/wire subscribe {GATES}")).ok
        poller = realtime(store, github)
        await poller.poll(NOW)
        github.rename(GATES, "acme/Merge-Gates")
        report = await poller.poll(NOW + timedelta(minutes=70))  # past the hourly re-check
    assert report.polled == ["acme/Merge-Gates"] and report.failed == []
    [project] = await store.open_projects.list()
    assert (project.repo, project.source) == ("acme/Merge-Gates", "github:acme/Merge-Gates")
    assert [s.repo for s in await store.subscriptions.list()] == ["acme/Merge-Gates"]
