"""Release and security stories on the realtime path, from real recorded activity (vite's and
svelte's releases of 2026 Q2 in tests/data/activity, read through `replay:` sources) on a
real store: one story per release for a channel that follows releases, one per security fix
for one that follows security, nothing for a channel that follows the repository in full (its
digest tells them), nothing twice."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.realtime.bulletins import Newsdesk
from bot.realtime.poller import Poller
from bot.realtime.releases import ReleaseDesk
from bot.schedule.newsroom import default_source
from bot.store import Store, check_failure
from digest.config import Project, WireConfig, load_config
from digest.model import Activity, Story, Window
from digest.sources.replay import ReplaySource
from tests.digest_data import ACTIVITY
from tests.slack_requests import demo_config
from tests.test_source_git import Clone, hermetic_git  # noqa: F401  (autouse)

VITE = ACTIVITY / "vitejs-vite-2026-q2.jsonl"
SVELTE = ACTIVITY / "sveltejs-svelte-2026-q2.jsonl"
FOREVER = timedelta(days=3650)  # the recorded changes are from 2026: never too old here


def wire_config(tmp_path: Path) -> WireConfig:
    """The demo's projects and vite and svelte, each replaying its recorded quarter."""
    path = demo_config(tmp_path)
    # named as each writes itself ("Svelte runtime properties"): a story's names are checked
    projects = [("vitejs/vite", "vite", VITE), ("sveltejs/svelte", "Svelte", SVELTE)]
    extra = "".join(
        f'\n[[projects]]\nrepo = "{repo}"\nname = "{name}"\nsource = "replay:{file}"\n'
        for repo, name, file in projects
    )
    path.write_text(path.read_text(encoding="utf-8") + extra, encoding="utf-8")
    return load_config(path)


def recorded(file: Path, since: datetime, until: datetime) -> list[Activity]:
    found = [a for a in ReplaySource(file).read_all() if since <= a.landed_at < until]
    return sorted(found, key=lambda a: a.landed_at)


async def follow(store: Store, channel: str, repo: str, kind: str = "all") -> None:
    await store.subscriptions.add(
        platform="console", workspace="local", channel=channel, repo=repo, kind=kind
    )


async def stories_of(store: Store, channel: str) -> list[Story]:
    infos = await store.listing.list(channel=channel)
    found = [await store.stories.get(i.story_id) for i in reversed(infos)]
    return [s for s in found if s is not None]


def desk(store: Store, config: WireConfig) -> ReleaseDesk:
    return ReleaseDesk(
        store=store,
        config=config,
        source_for=lambda project: default_source(project),
        max_age=FOREVER,
    )


async def test_a_releases_channel_gets_one_story_per_release_of_vites_june(
    store: Store, tmp_path: Path
) -> None:
    config = wire_config(tmp_path)
    await follow(store, "releases", "vitejs/vite", "releases")
    await follow(store, "full", "vitejs/vite")
    await follow(store, "svelte", "sveltejs/svelte", "releases")
    june = recorded(VITE, datetime(2026, 6, 1, tzinfo=UTC), datetime(2026, 7, 1, tzinfo=UTC))
    releases = desk(store, config)
    for activity in june:  # each change as it lands, as webhooks bring them
        await releases.judge([activity])
    stories = await stories_of(store, "releases")
    assert [s.headline for s in stories] == [
        "VITE 8.0.15 IS OUT",
        "VITE 8.0.16 IS OUT",
        "VITE 8.1.0-beta.0 IS OUT",
        "VITE SHIPS PLUGIN-LEGACY 8.1.0-beta.0",
        "VITE 8.1.0 IS OUT",
        "VITE SHIPS PLUGIN-LEGACY 8.1.0",
        "VITE SHIPS CREATE-VITE 9.1.0",
        "VITE 8.1.1 IS OUT",
        "VITE SHIPS CREATE-VITE 9.1.1",
        "VITE 8.1.2 IS OUT",
    ]
    for story in stories:
        assert check_failure(story) is None, story.checks
        # the release's own link, cited: the story is the release's
        assert any("release" in ref.title.lower() for ref in story.references)
    # what 8.0.16 carries: the window since 8.0.15, the traversal fix with it
    sixteen = stories[1]
    assert sixteen.window.since > stories[0].window.since
    assert "rejects windows alternate paths" in " ".join(s.text for s in sixteen.body)
    assert await store.listing.list(channel="full") == []  # the digest tells it
    assert await store.listing.list(channel="svelte") == []  # another repository
    # the same changes again (a poll after the webhook, a retry after a crash): nothing more
    again = await releases.judge(june)
    assert again.queued == 0 and len(await stories_of(store, "releases")) == 10


async def test_a_security_channel_gets_a_story_per_security_fix(
    store: Store, tmp_path: Path
) -> None:
    config = wire_config(tmp_path)
    await follow(store, "security", "sveltejs/svelte", "security")
    may = recorded(SVELTE, datetime(2026, 5, 11, tzinfo=UTC), datetime(2026, 5, 18, tzinfo=UTC))
    releases = desk(store, config)
    for activity in may:
        await releases.judge([activity])
    stories = await stories_of(store, "security")
    assert len(stories) == 4  # the four advisories merged from private forks
    for story in stories:
        assert check_failure(story) is None
        # Each fix is told as it lands, before the release that ships it: nothing to
        # upgrade to yet, so it is watched, not an interruption.
        [item] = story.action_items
        assert item.urgency == "monitor"
        assert item.text.startswith("Upgrade Svelte once a release carries this security fix")
        assert "VERSION PACKAGES" not in story.headline
    assert "SVELTE DISALLOWS EMPTY ATTRIBUTE NAMES DURING SSR" in {s.headline for s in stories}


async def test_the_poller_tells_a_release_it_finds_once(store: Store, tmp_path: Path) -> None:
    config = wire_config(tmp_path)
    await follow(store, "releases", "vitejs/vite", "releases")
    newsdesk = Newsdesk(store=store, config=config, max_age=FOREVER)
    poller = Poller(
        store=store,
        config=config,
        newsdesk=newsdesk,
        github_options={},
        webhook_fresh_for=timedelta(hours=6),
        releases=desk(store, config),
    )
    release = next(a for a in ReplaySource(VITE).read_all() if a.title == "release: v8.0.16")
    for minutes in (2, 4):  # two polls of the same hour: the release is judged once
        await poller.poll(release.landed_at + timedelta(minutes=minutes))
    [story] = await stories_of(store, "releases")
    assert story.headline == "VITE 8.0.16 IS OUT"
    assert release.link in {ref.url for ref in story.references}


@pytest.mark.parametrize("kind", ["releases", "security"])
async def test_a_muted_channel_gets_no_release_story(
    store: Store, tmp_path: Path, kind: str
) -> None:
    config = wire_config(tmp_path)
    await follow(store, "muted", "sveltejs/svelte", kind)
    await store.channels.update(
        platform="console",
        workspace="local",
        channel="muted",
        muted_until=datetime.now(UTC) + timedelta(hours=4),
    )
    may = recorded(SVELTE, datetime(2026, 5, 14, tzinfo=UTC), datetime(2026, 5, 15, tzinfo=UTC))
    judged = await desk(store, config).judge(may)
    assert judged.stories and judged.queued == 0 and judged.skipped
    assert await store.listing.list(channel="muted") == []


async def test_a_release_commit_of_a_git_clone_is_a_release_story(
    store: Store, tmp_path: Path
) -> None:
    clone = Clone(tmp_path / "clone")
    day = datetime(2026, 5, 25, tzinfo=UTC)
    clone.commit("release: v2.2.0", day - timedelta(days=5), {"package.json": '"2.2.0"\n'})
    clone.commit("feat: add a `--watch` option", day - timedelta(days=1), {"src/cli.py": "w\n"})
    clone.commit("release: v2.3.0", day, {"package.json": '"2.3.0"\n'})
    project = Project(repo="acme/widgets", name="widgets", source=f"git:{clone.path}")
    config = WireConfig(projects=(project,))
    await follow(store, "releases", "acme/widgets", "releases")
    landed = [
        a
        async for a in default_source(project).fetch(
            Window(since=day - timedelta(hours=1), until=day + timedelta(hours=1))
        )
    ]
    assert [a.title for a in landed] == ["release: v2.3.0"]
    judged = await desk(store, config).judge(landed)
    assert judged.queued == 1
    [story] = await stories_of(store, "releases")
    assert story.headline == "WIDGETS 2.3.0 IS OUT"
    assert "`--watch` option" in " ".join(s.text for s in story.body)  # what it carries
    assert "release: v2.2.0" not in {r.title for r in story.references}  # the one before
