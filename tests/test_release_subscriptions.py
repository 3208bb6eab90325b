"""`/wire subscribe … releases|security`: typed as a user in the console's chat harness (the
same `Commands` every platform answers through), stored on SQLite and PostgreSQL, listed and
removed; a full subscription covers the kinds; and such a channel gets no digest."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import create_async_engine

from bot.delivery.worker import Worker
from bot.schedule.newsroom import filters_of
from bot.schedule.scheduler import Scheduler
from bot.store import Store, upgrade_database
from tests.chat import ChatPlatform, WireChat, demo_config, demo_settings, demo_source


async def kinds_of(store: Store, channel: str = "C1") -> list[tuple[str | None, str]]:
    subs = await store.subscriptions.list(channel=channel)
    return sorted((s.repo, s.kind) for s in subs)


async def test_a_channel_follows_a_repositorys_releases_and_lists_them(store: Store) -> None:
    wire = WireChat(store)
    reply = await wire("/wire subscribe executorch releases")
    assert reply.ok and reply.text.startswith("Subscribed this channel to ExecuTorch releases")
    assert "a story as each release lands" in reply.text and "No digest" in reply.text
    security = await wire("/wire subscribe pytorch/executorch security")
    assert security.text.startswith("Subscribed this channel to ExecuTorch security fixes")
    assert await kinds_of(store) == [
        ("pytorch/executorch", "releases"),
        ("pytorch/executorch", "security"),
    ]
    listed = (await wire("/wire list")).text
    assert "• ExecuTorch (releases only, as they land) — by alice" in listed
    assert "• ExecuTorch (security fixes only, as they land) — by alice" in listed
    assert "Schedule: no digest (releases and security fixes come as they land)" in listed
    again = await wire("/wire subscribe executorch releases")
    assert again.text == "Already subscribed to ExecuTorch releases: nothing changed."


async def test_one_channel_follows_a_repository_in_full_and_anothers_releases(
    store: Store,
) -> None:
    wire = WireChat(store)
    await wire("/wire subscribe ci-infra")
    await wire("/wire subscribe executorch releases")
    assert await kinds_of(store) == [
        ("pytorch/ci-infra", "all"),
        ("pytorch/executorch", "releases"),
    ]
    listed = (await wire("/wire list")).text
    assert "• ci-infra — by alice" in listed and "Schedule: `0 9 * * 1-5` UTC" in listed
    [story_filter] = filters_of(await store.subscriptions.list())  # the digest's: ci-infra only
    assert story_filter.repos == ("pytorch/ci-infra",)


async def test_the_full_subscription_covers_releases_and_says_so(store: Store) -> None:
    wire = WireChat(store)
    await wire("/wire subscribe executorch releases")
    await wire("/wire subscribe executorch security")
    full = await wire("/wire subscribe executorch")
    assert full.text == (
        "Subscribed this channel to ExecuTorch in full, in place of its releases and security "
        "fixes only: its digests and bulletins tell those too."
    )
    assert await kinds_of(store) == [("pytorch/executorch", "all")]
    covered = await wire("/wire subscribe executorch releases")
    assert covered.ok and covered.text == (
        "This channel follows ExecuTorch in full already, which covers its releases: they "
        "come in its digests and bulletins. Nothing changed."
    )
    assert await kinds_of(store) == [("pytorch/executorch", "all")]
    kept = await wire("/wire unsubscribe executorch releases")
    assert kept.text == "This channel was not subscribed to ExecuTorch releases: nothing changed."
    assert await kinds_of(store) == [("pytorch/executorch", "all")]


async def test_unsubscribe_removes_one_kind_or_every_kind(store: Store) -> None:
    wire = WireChat(store)
    await wire("/wire subscribe executorch releases")
    await wire("/wire subscribe executorch security")
    gone = await wire("/wire unsubscribe executorch releases")
    assert gone.text == "Unsubscribed this channel from ExecuTorch releases."
    assert await kinds_of(store) == [("pytorch/executorch", "security")]
    everything = await wire("/wire unsubscribe executorch")
    assert everything.text == "Unsubscribed this channel from ExecuTorch."
    assert await kinds_of(store) == []


@pytest.mark.parametrize(
    ("typed", "answer"),
    [
        ("/wire subscribe executorch relases", "did you mean `releases`?"),
        ("/wire subscribe executorch securty", "did you mean `security`?"),
        ("/wire unsubscribe executorch relese", "did you mean `releases`?"),
        ("/wire subscribe executorch topic:XNNPACK releases", "a repository's, not a topic's"),
        ("/wire subscribe executorch releases -author:bot", "`releases` takes no exclusions"),
        ("/wire subscribe releases", "the releases of what? e.g. /wire subscribe vitejs/vite"),
        ("/wire subscribe et releases security", "are two subscriptions: one command each"),
    ],
)
async def test_a_misspelt_or_misplaced_kind_gets_a_specific_answer(
    store: Store, typed: str, answer: str
) -> None:
    reply = await WireChat(store)(typed)
    assert not reply.ok and answer in reply.text
    assert "[releases|security]" in reply.text  # the usage line names the kinds
    assert await kinds_of(store) == []


async def test_the_kind_is_part_of_what_makes_a_subscription_unique(store: Store) -> None:
    where = {"platform": "console", "workspace": "local", "channel": "c", "repo": "a/b"}
    _, created = await store.subscriptions.add(**where, kind="releases")
    _, again = await store.subscriptions.add(**where, kind="releases")
    _, other = await store.subscriptions.add(**where, kind="security")
    assert (created, again, other) == (True, False, True)
    with pytest.raises(ValueError, match="kind is one of all, releases, security"):
        await store.subscriptions.add(**where, kind="tags")
    assert await store.subscriptions.remove(**where, kind="security")
    assert [s.kind for s in await store.subscriptions.list()] == ["releases"]


@pytest.mark.parametrize("no_news", [False, True])
async def test_a_releases_only_channel_gets_nothing_on_the_schedule(
    store: Store, no_news: bool
) -> None:
    """Not even a "no news" story when quiet windows are delivered (`deliver_no_news`)."""
    platform = ChatPlatform()
    settings = demo_settings(deliver_no_news=no_news)
    scheduler = Scheduler(
        store=store,
        config=demo_config(),
        settings=settings,
        source_for=demo_source,
        platforms={platform.name: platform},
        worker=Worker(store, [platform]),
    )
    wire = WireChat(store, settings=settings, platform=platform)
    await wire("/wire subscribe executorch releases", channel="releases")
    await wire("/wire subscribe executorch security", channel="releases")
    await wire("/wire subscribe executorch", channel="full")
    assert await kinds_of(store, "releases") == [
        ("pytorch/executorch", "releases"),
        ("pytorch/executorch", "security"),
    ]
    await scheduler.run_due(datetime.now(UTC))
    assert {p.channel for p in platform.posts} == {"full"}  # the demo's two days, told once
    assert await store.listing.list(channel="releases") == []
    preview = await wire("/wire preview", channel="releases")
    assert "releases or security fixes only" in preview and preview.story is None


async def test_migration_0008_keeps_every_subscription_as_a_full_one(tmp_path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    await upgrade_database(url, revision="0007")
    engine = create_async_engine(url)
    async with engine.begin() as conn:
        await conn.execute(
            sa.text(
                "INSERT INTO subscriptions (platform, workspace, channel, repo, topic, excludes,"
                " created_by, created_at) VALUES ('slack', 'T1', 'C1', 'pytorch/executorch',"
                " NULL, '[]', 'ana', '2026-03-03 09:00:00')"
            )
        )
    await engine.dispose()
    await upgrade_database(url)
    async with Store.from_url(url) as store:
        [old] = await store.subscriptions.list()
        assert (old.repo, old.kind, old.created_by) == ("pytorch/executorch", "all", "ana")
        where = {"platform": "slack", "workspace": "T1", "channel": "C1"}
        _, again = await store.subscriptions.add(**where, repo="pytorch/executorch")
        _, releases = await store.subscriptions.add(
            **where, repo="pytorch/executorch", kind="releases"
        )
        assert (again, releases) == (False, True)
