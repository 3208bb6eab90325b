"""Releases of a `github:` window, with a real httpx client against the loopback GitHub.

The releases ride on the window's first search page, so they cost no request; the story
tells a published release like a release tag ("Vite 8.0.16 is out"), a prerelease as one, and
never a draft.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from digest.check.proofread import proofread
from digest.config import WireConfig
from digest.model import FileChange, Story, Window
from digest.pipeline import compose_window
from digest.sources.github import GitHubSource
from tests.fakes.github import FakeGitHub, FakePull, FakeRelease
from tests.test_source_github import TOKEN, Waits, fetch, graphql_bodies, source

REPO = "vitejs/vite"
DAY = datetime(2026, 6, 1, tzinfo=UTC)
WINDOW = Window(since=DAY, until=DAY + timedelta(days=1))


@pytest.fixture
async def github(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeGitHub]:
    """The loopback GitHub (`test_source_github`'s, asserted clean the same way)."""
    for name in ("GITHUB_TOKEN", "WIRE_GITHUB__TOKEN"):
        monkeypatch.delenv(name, raising=False)
    async with FakeGitHub(tokens=[TOKEN]) as server:
        yield server
    assert server.problems == [], "the fake GitHub saw requests GitHub would reject"


def pull(number: int, title: str, path: str, *, hours: float, lines: int = 40) -> FakePull:
    return FakePull(
        number=number,
        title=title,
        merged_at=DAY + timedelta(hours=hours),
        merge_sha=f"{number:040x}",
        files=(FileChange(path=path, status="M", additions=lines, deletions=3),),
    )


def release(tag: str, *, hours: float, **options) -> FakeRelease:
    """A release whose commit is dated `hours` into DAY, published ten minutes later."""
    created = DAY + timedelta(hours=hours)
    return FakeRelease(
        tag, created_at=created, published_at=created + timedelta(minutes=10), **options
    )


FEATURES = [
    pull(
        1, "fix: reject windows alternate paths", "packages/vite/src/node/server/static.ts", hours=2
    ),
    pull(2, "feat(css): support lightningcss 2", "packages/vite/src/node/plugins/css.ts", hours=3),
    pull(3, "ci: bump actions/checkout", ".github/workflows/ci.yml", hours=4, lines=2),
]


async def story_of(github: FakeGitHub, window: Window = WINDOW) -> Story:
    src = source(github, Waits(), repo=REPO)
    story = await compose_window([src], config=WireConfig(), window=window)
    assert story.checks is not None and story.checks.problems == ()
    assert proofread(story, config=WireConfig()) == []
    return story


def told(story: Story) -> str:
    return " ".join([story.headline, story.lede, *(s.text for s in story.body)])


async def test_a_release_published_in_the_window_leads_and_costs_no_request(github: FakeGitHub):
    github.add_pulls(REPO, FEATURES)
    github.add_releases(REPO, [release("v8.0.16", hours=5, description="See CHANGELOG.md")])

    story = await story_of(github)

    assert story.headline == "VITE 8.0.16 IS OUT"
    assert story.body[0].text.startswith("Vite 8.0.16 is out [1]")
    assert story.references[0].url == f"https://github.com/{REPO}/releases/tag/v8.0.16"
    assert story.lead == (f"{REPO}@tag:v8.0.16",)
    # the probe and one search page, which brought the releases along: ⌈3/100⌉ + 1
    assert [r.method for r in github.requests] == ["GET", "POST"]
    assert graphql_bodies(github)[0]["variables"]["releases"] is True


async def test_only_the_first_search_page_asks_for_releases(github: FakeGitHub):
    github.add_pulls(
        REPO,
        [pull(n, f"Change number {n}", f"src/m{n}.ts", hours=n / 20) for n in range(1, 251)],
    )
    github.add_releases(REPO, [release("v8.0.16", hours=20)])

    got = await fetch(source(github, Waits(), repo=REPO), WINDOW)

    assert [a.title for a in got if a.sha.startswith("tag:")] == ["v8.0.16"]
    assert [b["variables"]["releases"] for b in graphql_bodies(github)] == [True, False, False]
    assert github.quota["graphql"].spent == 2 * 3  # the releases add no point to the page


async def test_a_prerelease_is_told_as_one_and_a_draft_never(github: FakeGitHub):
    github.add_pulls(REPO, FEATURES)
    github.add_releases(
        REPO,
        [
            release("v8.1.0-beta.0", hours=5, prerelease=True),
            FakeRelease("v8.0.17", created_at=DAY + timedelta(hours=6), draft=True),
        ],
    )

    story = await story_of(github)

    assert "8.1.0-beta.0 (prerelease) is out" in story.body[0].text
    assert "8.0.17" not in told(story)
    assert not any("releases/tag/untagged" in r.url for r in story.references)


async def test_releases_outside_the_window_are_not_told(github: FakeGitHub):
    github.add_pulls(REPO, FEATURES)
    github.add_releases(
        REPO,
        [
            release("v8.0.15", hours=-30),  # the day before
            release("v8.0.18", hours=30),  # the day after
            # its commit is of the window, but it was published the next day
            FakeRelease(
                "v8.0.17",
                created_at=DAY + timedelta(hours=12),
                published_at=DAY + timedelta(days=1, hours=1),
            ),
        ],
    )

    story = await story_of(github)

    assert not any(v in told(story) for v in ("8.0.15", "8.0.17", "8.0.18"))
    assert all("/releases/" not in r.url for r in story.references)


async def test_a_release_its_release_commit_tells_is_told_once(github: FakeGitHub):
    github.add_pulls(
        REPO, [*FEATURES, pull(4, "release: v8.0.16", "packages/vite/package.json", hours=5)]
    )
    github.add_releases(REPO, [release("v8.0.16", hours=5)])

    story = await story_of(github)

    assert story.headline == "VITE 8.0.16 IS OUT"
    # headline, lede, one body sentence says it is out (the changes it ships name it too)
    assert told(story).count("8.0.16 is out") == 1 and told(story).count("8.0.16 IS OUT") == 1
    assert len([r for r in story.references if "8.0.16" in r.title]) == 1
    [cited] = [r for r in story.references if "8.0.16" in r.title]
    assert (cited.title, cited.url) == ("release: v8.0.16", f"https://github.com/{REPO}/pull/4")


async def test_an_old_window_pages_back_to_its_releases(github: FakeGitHub):
    github.add_pulls(REPO, FEATURES)
    weekly = [release(f"v8.{n}.0", hours=24 * 7 * n) for n in range(1, 31)]
    github.add_releases(REPO, [release("v8.0.16", hours=5), *weekly])

    got = await fetch(source(github, Waits(), repo=REPO), WINDOW)

    assert [a.title for a in got if a.sha.startswith("tag:")] == ["v8.0.16"]
    paths = [r.path for r in github.requests]
    assert paths == ["/repos/vitejs/vite/commits", "/graphql", "/graphql"]
    assert "query Releases" in graphql_bodies(github)[1]["query"]


async def test_an_unchanged_re_poll_keeps_its_releases_at_no_cost(github: FakeGitHub):
    github.add_pulls(REPO, FEATURES)
    github.add_releases(REPO, [release("v8.0.16", hours=5)])
    src: GitHubSource = source(github, Waits(), repo=REPO)
    first = await fetch(src, WINDOW)
    before = github.counters()

    again = await fetch(src, WINDOW)

    assert again == first and "v8.0.16" in {a.title for a in again}
    after = github.counters()
    assert after["rest_requests"] == before["rest_requests"] + 1
    assert (after["graphql_requests"], after["core_quota"], after["graphql_quota"]) == (
        before["graphql_requests"],
        before["core_quota"],
        before["graphql_quota"],
    )
