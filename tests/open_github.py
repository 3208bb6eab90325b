"""Shared parts of the open-subscription tests: the loopback GitHub holding real recorded
activity under public, private, internal, archived and renamed repositories, and chat
settings that point `[github] api_url` at it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.app.service import source_factory
from bot.settings import Settings
from bot.settings_sections import GitHubSettings, SubscribingSettings
from bot.store import Store
from digest.sources.replay import ReplaySource
from tests.chat import WireChat, demo_config, settings_with
from tests.fakes.github import FakeGitHub, pulls_from_activities

ROOT = Path(__file__).resolve().parents[1]
ACTIVITY = ROOT / "tests/data/activity"
TOKEN = "ghp_wire_test"
NOW = datetime(2026, 6, 4, tzinfo=UTC)  # polars merged 14 changes on 2026-06-03


def load_activity(fake: FakeGitHub, name: str, *, repo: str | None = None, until=NOW) -> int:
    """Serve the recorded activity of `name` (a file of tests/data/activity) as `repo`
    (default: its own repository), as landed by `until`; returns how many changes."""
    activities = [a for a in ReplaySource(ACTIVITY / name).read_all() if a.landed_at < until]
    count = 0
    for own, pulls in pulls_from_activities(activities).items():
        fake.add_pulls(repo or own, pulls)
        count += len(pulls)
    return count


def populate(fake: FakeGitHub) -> None:
    """Polars (public), a private and an internal repository, an archived one, a renamed one."""
    load_activity(fake, "pola-rs-polars-2026-q2.jsonl")
    load_activity(fake, "pydantic-pydantic-2026-q2.jsonl", repo="acme/secret-plans")
    fake.add_repository("acme/secret-plans", visibility="private")
    load_activity(fake, "vitejs-vite-2026-q2.jsonl", repo="acme/inner-tools")
    fake.add_repository("acme/inner-tools", visibility="internal")
    fake.add_repository("old-org/retired", archived=True)
    load_activity(fake, "sveltejs-svelte-2026-q2.jsonl", repo="sveltejs/svelte")
    fake.rename("sveltejs/svelte", "sveltejs/Svelte-Kit")


def open_settings(api_url: str, *, now: datetime = NOW, **rules: object) -> Settings:
    """Chat settings at `now` with open subscriptions (`rules` change [subscribing])."""
    return settings_with(
        now=now,
        first_lookback=timedelta(days=1),
        subscribing=SubscribingSettings(**rules),
        github=GitHubSettings(token=TOKEN, api_url=api_url),
    )


def open_chat(
    store: Store, api_url: str, *, channel: str = "C1", now: datetime = NOW, **rules: object
) -> WireChat:
    """A chat whose projects are the demo's and whose sources read the loopback GitHub."""
    settings = open_settings(api_url, now=now, **rules)
    return WireChat(
        store,
        config=demo_config(),
        settings=settings,
        channel=channel,
        source_for=source_factory(settings),
    )
