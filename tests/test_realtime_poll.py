"""Polling, for repositories without a webhook: the real `github:` source over HTTP against
the loopback GitHub, at the moment the demo's CI-gate change had just landed. A change is
judged once; an unchanged poll costs no quota and no search; a repository whose webhook
delivered recently is not polled."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import time_machine

from bot.realtime.bulletins import Newsdesk
from bot.realtime.poller import Poller, poll_window
from bot.store import Store
from digest.config import WireConfig, load_config
from digest.sources.replay import ReplaySource
from tests.fakes.github import FakeGitHub, pulls_from_activities
from tests.slack_requests import ROOT

TOKEN = "ghp_wire_test"
LANDED = datetime(2026, 5, 26, 5, 18, 31, tzinfo=UTC)  # the demo's CI-gate change (#619)
NOW = LANDED + timedelta(minutes=1)


def github_config(tmp_path: Path) -> WireConfig:
    """The demo's projects, read through `github:OWNER/REPO` (their replay sources removed)."""
    text = (ROOT / "config/demo.toml").read_text(encoding="utf-8")
    path = tmp_path / "github.toml"
    path.write_text(
        "\n".join(line for line in text.splitlines() if not line.startswith("source = ")),
        encoding="utf-8",
    )
    config = load_config(path)
    assert all(p.source is None for p in config.projects)
    return config


@pytest.fixture
async def github() -> AsyncIterator[FakeGitHub]:
    """The loopback GitHub holding the demo's changes that had landed by NOW."""
    activities = [
        a for a in ReplaySource(ROOT / "demo/activity.jsonl").read_all() if a.landed_at <= NOW
    ]
    async with FakeGitHub(tokens=[TOKEN]) as fake:
        for repo, pulls in pulls_from_activities(activities).items():
            fake.add_pulls(repo, pulls)
        yield fake
        assert fake.problems == []


def poller_for(store: Store, config: WireConfig, github: FakeGitHub) -> Poller:
    return Poller(
        store=store,
        config=config,
        newsdesk=Newsdesk(store=store, config=config, max_age=timedelta(hours=1)),
        github_options={"token": TOKEN, "api_url": github.url},
        webhook_fresh_for=timedelta(hours=6),
    )


def spent(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {name: after[name] - before[name] for name in after}


def test_every_poll_of_an_hour_asks_about_the_same_window() -> None:
    first = poll_window(datetime(2026, 5, 26, 5, 0, 1, tzinfo=UTC))
    assert first == poll_window(datetime(2026, 5, 26, 5, 59, 59, tzinfo=UTC))
    assert first.contains(datetime(2026, 5, 26, 4, 0, tzinfo=UTC))  # the previous hour too
    assert first != poll_window(datetime(2026, 5, 26, 6, 0, tzinfo=UTC))


async def test_a_poll_finds_the_ci_gate_once_and_an_unchanged_poll_costs_nothing(
    store: Store, github: FakeGitHub, tmp_path: Path
) -> None:
    config = github_config(tmp_path)
    await store.subscriptions.add(
        platform="console", workspace="local", channel="gate", repo="pytorch/ci-infra"
    )
    await store.subscriptions.add(
        platform="console", workspace="local", channel="et", repo="pytorch/executorch"
    )
    poller = poller_for(store, config, github)
    with time_machine.travel(NOW, tick=True):
        report = await poller.poll(NOW)
        assert sorted(report.polled) == ["pytorch/ci-infra", "pytorch/executorch"]
        assert report.queued == 1  # only the CI gate is [immediate]; only #gate follows it
        [queued] = await store.listing.list()
        assert queued.channel == "gate" and queued.story_id.startswith("bulletin_")
        story = await store.stories.get(queued.story_id)
        assert [ref.number for ref in story.references] == [619]

        before = github.counters()
        again = await poller.poll(NOW + timedelta(minutes=2))
        cost = spent(before, github.counters())
    assert again.changes == 0 and again.queued == 0
    assert cost == {"graphql_requests": 0, "rest_requests": 2, "core_quota": 0, "graphql_quota": 0}
    assert [r.status for r in github.requests[-2:]] == [304, 304]
    assert len(await store.listing.list()) == 1


async def test_a_repository_whose_webhook_delivered_recently_is_not_polled(
    store: Store, github: FakeGitHub, tmp_path: Path
) -> None:
    config = github_config(tmp_path)
    poller = poller_for(store, config, github)
    with time_machine.travel(NOW, tick=True):
        await store.webhooks.record(
            delivery_id="ping-1", event="ping", repo="pytorch/ci-infra", hint={}, state="ignored"
        )
        before = len(github.requests)
        report = await poller.poll(NOW)
        asked = {r.path for r in github.requests[before:]}
    assert report.served_by_webhook == ["pytorch/ci-infra"]
    assert report.polled == ["pytorch/executorch"]
    assert not any("ci-infra" in path for path in asked)
    # six hours of silence later the webhook no longer counts, and polling resumes
    later = NOW + timedelta(hours=6, minutes=1)
    with time_machine.travel(later, tick=True):
        report = await poller.poll(later)
    assert sorted(report.polled) == ["pytorch/ci-infra", "pytorch/executorch"]


async def test_a_merge_that_lands_between_polls_is_judged_at_the_next(
    store: Store, github: FakeGitHub, tmp_path: Path
) -> None:
    config = github_config(tmp_path)
    await store.subscriptions.add(
        platform="console", workspace="local", channel="gate", repo="pytorch/ci-infra"
    )
    poller = poller_for(store, config, github)
    gate = next(a for a in ReplaySource(ROOT / "demo/activity.jsonl").read_all() if a.number == 619)
    with time_machine.travel(NOW, tick=True):
        await poller.poll(NOW)
        assert len(await store.listing.list()) == 1
        # a second CI-gate merge (the same change re-landed under a new number and commit)
        relanded = gate.model_copy(
            update={"sha": "f" * 40, "number": 620, "landed_at": NOW + timedelta(seconds=30)}
        )
        github.add_pulls("pytorch/ci-infra", pulls_from_activities([relanded])["pytorch/ci-infra"])
        report = await poller.poll(NOW + timedelta(minutes=2))
    assert report.changes == 1 and report.queued == 1
    assert len(await store.listing.list()) == 2
