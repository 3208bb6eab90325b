"""GitHubSource with a real httpx client against a loopback GitHub (tests/fakes/github/).

The fake validates every GraphQL query against GitHub's schema and every REST call against
GitHub's OpenAPI description; the `github` fixture fails any test that sent something invalid.
"""

from __future__ import annotations

import logging
import math
import random
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
import time_machine

from digest.errors import RemoteError
from digest.model import Activity, FileChange, Window
from digest.sources import open_source
from digest.sources.github import EtagCache, GitHubSource, endpoints
from tests.digest_data import executorch
from tests.fakes.github import FakeGitHub, FakePull, pulls_from_activities

REPO = "pytorch/executorch"
TOKEN = "ghp_wire_test"
DAY = datetime(2026, 5, 11, tzinfo=UTC)
WINDOW = Window(since=DAY, until=DAY + timedelta(days=1))


def pulls_on(
    day: datetime, count: int, *, first: int = 1, files: int = 1, every: float = 7
) -> list[FakePull]:
    """`count` PRs merged `every` seconds from `day`, numbered from `first`, with `files` files."""
    return [
        FakePull(
            number=n,
            title=f"Change number {n}",
            merged_at=day + timedelta(seconds=every * (n - first) + 1),
            merge_sha=f"{n:040x}",
            files=tuple(
                FileChange(path=f"src/m{n}/f{i}.py", additions=i, deletions=1) for i in range(files)
            ),
        )
        for n in range(first, first + count)
    ]


class Waits(list):
    """The injectable sleep: records each wait instead of sleeping."""

    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
async def github() -> AsyncIterator[FakeGitHub]:
    server = FakeGitHub(tokens=[TOKEN])
    async with server:
        yield server
    assert server.problems == [], "the fake GitHub saw requests GitHub would reject"


@pytest.fixture
def waits() -> Waits:
    return Waits()


@pytest.fixture(autouse=True)
def _no_ambient_token(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_TOKEN", "WIRE_GITHUB__TOKEN"):
        monkeypatch.delenv(name, raising=False)


def source(github: FakeGitHub, waits: Waits, **options) -> GitHubSource:
    options = {"token": TOKEN, "api_url": github.url, "sleep": waits, **options}
    return GitHubSource(options.pop("repo", REPO), rng=random.Random(7), **options)


async def fetch(src: GitHubSource, window: Window = WINDOW) -> list[Activity]:
    return [activity async for activity in src.fetch(window)]


def graphql_bodies(github: FakeGitHub) -> list[dict]:
    return [r.body for r in github.requests if r.path.endswith("/graphql")]


# ---- what comes back ------------------------------------------------------------------------


async def test_a_merged_pull_request_comes_back_as_activity(github: FakeGitHub, waits: Waits):
    merged_at = DAY + timedelta(hours=9, minutes=30, seconds=5)
    github.add_pulls(
        REPO,
        [
            FakePull(
                number=19752,
                title="Fix XNNPACK crash on empty tensors",
                body="Guards the zero-size path.\n\ncc @someone",
                author="ada-l",
                merged_at=merged_at,
                merge_sha="c0ffee" * 6 + "beef",
                labels=("ciflow/trunk", "release notes: xnnpack"),
                files=(
                    FileChange(
                        path="backends/xnnpack/runtime.cpp", status="M", additions=12, deletions=3
                    ),
                    FileChange(
                        path="backends/xnnpack/test/test_empty.py",
                        status="A",
                        additions=40,
                        deletions=0,
                    ),
                    FileChange(path="docs/old.md", status="D", additions=0, deletions=9),
                ),
            )
        ],
    )

    [activity] = await fetch(source(github, waits))

    assert activity == Activity(
        repo=REPO,
        sha="c0ffee" * 6 + "beef",
        number=19752,
        title="Fix XNNPACK crash on empty tensors",
        body="Guards the zero-size path.\n\ncc @someone",
        author="ada-l",
        landed_at=merged_at,
        url=f"https://github.com/{REPO}/pull/19752",
        labels=("ciflow/trunk", "release notes: xnnpack"),
        files=(
            FileChange(path="backends/xnnpack/runtime.cpp", status="M", additions=12, deletions=3),
            FileChange(
                path="backends/xnnpack/test/test_empty.py", status="A", additions=40, deletions=0
            ),
            FileChange(path="docs/old.md", status="D", additions=0, deletions=9),
        ),
    )
    probe, search = github.requests
    assert probe.headers["authorization"] == f"bearer {TOKEN}"
    assert probe.headers["accept"] == "application/vnd.github+json"
    assert probe.headers["x-github-api-version"] == "2022-11-28"
    assert probe.headers["user-agent"] == "the-wire"
    assert search.headers["authorization"] == f"bearer {TOKEN}"
    assert "merged:2026-05-11T00:00:00Z..2026-05-12T00:00:00Z" in search.body["variables"]["search"]


async def test_a_day_of_executorch_matches_the_replay_file(github: FakeGitHub, waits: Waits):
    for repo, pulls in pulls_from_activities(executorch()).items():
        github.add_pulls(repo, pulls)
    expected = sorted(
        (a for a in executorch() if WINDOW.contains(a.landed_at)), key=lambda a: a.landed_at
    )

    got = await fetch(source(github, waits))

    assert len(got) == len(expected) == 34
    assert [(a.sha, a.title, a.landed_at) for a in got] == [
        (a.sha, a.title, a.landed_at) for a in expected
    ]
    assert all(a.url == f"https://github.com/{REPO}/pull/{a.number}" for a in got)
    assert [[(f.path, f.status) for f in a.files] for a in got] == [
        [(f.path, f.status) for f in a.files] for a in expected
    ]
    assert github.graphql_requests == 1 and github.rest_requests == 1


async def test_only_pull_requests_merged_inside_the_half_open_window(
    github: FakeGitHub, waits: Waits
):
    second = timedelta(seconds=1)
    edges = [WINDOW.since - second, WINDOW.since, WINDOW.until - second, WINDOW.until]
    github.add_pulls(
        REPO,
        [
            FakePull(number=n, title=f"PR {n}", merged_at=at, merge_sha=f"{n:040x}")
            for n, at in enumerate(edges, start=1)
        ],
    )

    got = await fetch(source(github, waits))

    assert [a.number for a in got] == [2, 3]


# ---- paging -----------------------------------------------------------------------------------


@pytest.mark.parametrize("merged", [1, 100, 101, 250])
async def test_search_pages_by_one_hundred(github: FakeGitHub, waits: Waits, merged: int):
    github.add_pulls(REPO, pulls_on(DAY, merged))

    got = await fetch(source(github, waits))

    assert sorted(a.number for a in got) == list(range(1, merged + 1))
    bodies = graphql_bodies(github)
    assert len(bodies) == math.ceil(merged / 100)
    cursors = [body["variables"]["after"] for body in bodies]
    assert cursors[0] is None and None not in cursors[1:] and len(set(cursors)) == len(cursors)
    assert github.quota["graphql"].spent == 2 * len(bodies)  # 100 nodes x 2 nested connections


async def test_files_past_the_first_hundred_are_fetched(github: FakeGitHub, waits: Waits):
    github.add_pulls(REPO, pulls_on(DAY, 3, files=2) + pulls_on(DAY, 1, first=50, files=250))

    got = {a.number: a for a in await fetch(source(github, waits))}

    assert len(got[50].files) == 250
    assert [f.path for f in got[50].files] == [f"src/m50/f{i}.py" for i in range(250)]
    assert [len(got[n].files) for n in (1, 2, 3)] == [2, 2, 2]
    file_pages = [
        b["variables"] for b in graphql_bodies(github) if "PullRequestFiles" in b["query"]
    ]
    assert [(v["number"], v["after"] is not None) for v in file_pages] == [(50, True), (50, True)]


async def test_a_window_search_cannot_page_through_is_split(github: FakeGitHub, waits: Waits):
    github.add_pulls(REPO, pulls_on(DAY, 1200, every=60))  # 720 before noon, 480 after

    got = await fetch(source(github, waits))

    assert sorted(a.number for a in got) == list(range(1, 1201))
    searches = [b["variables"]["search"] for b in graphql_bodies(github)]
    assert searches[0].endswith("merged:2026-05-11T00:00:00Z..2026-05-12T00:00:00Z")
    assert sorted(set(searches[1:])) == [
        f"repo:{REPO} is:pr is:merged merged:2026-05-11T00:00:00Z..2026-05-11T12:00:00Z",
        f"repo:{REPO} is:pr is:merged merged:2026-05-11T12:00:00Z..2026-05-12T00:00:00Z",
    ]
    assert len(searches) == 1 + 8 + 5


# ---- conditional polling ----------------------------------------------------------------------


async def test_an_unchanged_poll_is_a_free_304_and_no_graphql(github: FakeGitHub, waits: Waits):
    github.add_pulls(REPO, pulls_on(DAY, 150))
    src = source(github, waits)
    first = await fetch(src)
    before = github.counters()

    again = await fetch(src)

    after = github.counters()
    assert again == first and len(again) == 150
    assert after["rest_requests"] - before["rest_requests"] == 1
    assert after["graphql_requests"] == before["graphql_requests"]
    assert (
        after["core_quota"] == before["core_quota"]
        and after["graphql_quota"] == before["graphql_quota"]
    )
    probe = github.requests[-1]
    assert probe.status == 304
    assert probe.headers["if-none-match"] == github.requests[0].response_headers["ETag"]


async def test_a_new_merge_changes_the_etag_and_is_fetched(github: FakeGitHub, waits: Waits):
    github.add_pulls(REPO, pulls_on(DAY, 5))
    src = source(github, waits)
    await fetch(src)

    github.add_pulls(REPO, pulls_on(DAY + timedelta(hours=20), 1, first=77))
    got = await fetch(src)

    assert [r.status for r in github.requests if not r.path.endswith("/graphql")] == [200, 200]
    assert 77 in {a.number for a in got} and len(got) == 6
    assert github.graphql_requests == 2


async def test_the_etag_cache_file_survives_a_restart(
    github: FakeGitHub, waits: Waits, tmp_path: Path
):
    github.add_pulls(REPO, pulls_on(DAY, 3))
    first = await fetch(source(github, waits, cache=EtagCache(tmp_path / "etags.json")))

    again = await fetch(source(github, waits, cache=EtagCache(tmp_path / "etags.json")))

    assert again == first
    assert github.requests[-1].status == 304 and github.graphql_requests == 1


def test_an_unreadable_etag_cache_file_is_ignored(tmp_path: Path, caplog: pytest.LogCaptureFixture):
    path = tmp_path / "etags.json"
    path.write_text('{"version": 1, "entries": {"k": {"etag": "x", "activities": [{"sha": 1}]}}}')

    with caplog.at_level(logging.WARNING):
        cache = EtagCache(path)

    assert len(cache) == 0 and "ignoring the GitHub ETag cache" in caplog.text


async def test_a_quiet_window_costs_one_probe_and_no_graphql(github: FakeGitHub, waits: Waits):
    github.add_pulls(REPO, pulls_on(DAY - timedelta(days=3), 4))

    assert await fetch(source(github, waits)) == []
    assert github.rest_requests == 1 and github.graphql_requests == 0


# ---- rate limits and failures -----------------------------------------------------------------


async def test_a_secondary_rate_limit_is_waited_out_for_retry_after(
    github: FakeGitHub, waits: Waits, caplog: pytest.LogCaptureFixture
):
    github.add_pulls(REPO, pulls_on(DAY, 3))
    github.secondary_rate_limit("graphql", retry_after=7)

    with caplog.at_level(logging.INFO, logger="digest.sources.github"):
        got = await fetch(source(github, waits))

    assert len(got) == 3
    assert waits == [7.0]
    assert [r.status for r in github.requests] == [200, 403, 200]
    assert "waiting 7.0 s" in caplog.text


async def test_a_429_is_waited_out_for_retry_after(github: FakeGitHub, waits: Waits):
    github.add_pulls(REPO, pulls_on(DAY, 3))
    github.too_many_requests("rest", retry_after=3)

    assert len(await fetch(source(github, waits))) == 3
    assert waits == [3.0]
    assert [r.status for r in github.requests] == [429, 200, 200]


@pytest.mark.parametrize("resource", ["graphql", "core"])
async def test_a_used_up_quota_is_waited_out_until_it_resets(
    github: FakeGitHub, waits: Waits, resource: str
):
    github.add_pulls(REPO, pulls_on(DAY, 3))
    with time_machine.travel(datetime.fromtimestamp(int(time.time()), UTC), tick=False) as clock:

        async def sleep(seconds: float) -> None:
            waits.append(seconds)
            clock.shift(seconds)

        github.exhaust(resource, reset_in=30)
        got = await fetch(source(github, waits, sleep=sleep))

    assert len(got) == 3
    assert waits == [31.0], "until x-ratelimit-reset, plus a second"
    refused = {"core": 0, "graphql": 1}[resource]  # the probe uses core, the search graphql
    assert [r.status for r in github.requests] == (
        [403, 200, 200] if resource == "core" else [200, 200, 200]
    )
    assert "API rate limit exceeded" in github.requests[refused].response_text
    assert "API rate limit exceeded" not in github.requests[refused + 1].response_text


async def test_a_quota_resetting_after_max_wait_is_an_error_naming_the_reset(
    github: FakeGitHub, waits: Waits
):
    github.add_pulls(REPO, pulls_on(DAY, 3))
    github.exhaust("graphql", reset_in=3600)
    reset = datetime.fromtimestamp(int(github.quota["graphql"].reset_at), UTC)

    with pytest.raises(RemoteError) as caught:
        await fetch(source(github, waits, max_wait=600))

    assert f"until {reset:%Y-%m-%d %H:%M:%S} UTC" in str(caught.value)
    assert "graphql rate limit" in str(caught.value)
    assert waits == [] and github.graphql_requests == 1


async def test_server_errors_are_retried_with_jittered_exponential_back_off(
    github: FakeGitHub, waits: Waits
):
    github.add_pulls(REPO, pulls_on(DAY, 3))
    github.server_error("graphql", status=502, times=4)

    assert len(await fetch(source(github, waits))) == 3
    assert len(waits) == 4
    assert all(0 <= wait <= 2**i for i, wait in enumerate(waits)), waits
    assert waits != [1, 2, 4, 8], "full jitter, not a fixed schedule"


async def test_back_off_jitter_differs_between_clients(github: FakeGitHub):
    github.add_pulls(REPO, pulls_on(DAY, 1))
    schedules = []
    for seed in (1, 2):
        waits = Waits()
        github.server_error("rest", status=503, times=3)
        src = GitHubSource(
            REPO, token=TOKEN, api_url=github.url, sleep=waits, rng=random.Random(seed)
        )
        await fetch(src)
        schedules.append(list(waits))
    assert schedules[0] != schedules[1]


async def test_server_errors_give_up_after_max_retries(github: FakeGitHub, waits: Waits):
    github.add_pulls(REPO, pulls_on(DAY, 3))
    github.server_error("graphql", status=502, times=10)

    with pytest.raises(RemoteError) as caught:
        await fetch(source(github, waits, max_retries=2))

    assert str(caught.value) == (
        f"GitHub kept answering 502 Bad Gateway for {REPO} after 3 attempts; try again later"
    )
    assert github.graphql_requests == 3 and len(waits) == 2


async def test_a_bad_token_names_the_setting_to_fix(github: FakeGitHub, waits: Waits):
    with pytest.raises(RemoteError) as caught:
        await fetch(source(github, waits, token="ghp_revoked"))

    assert str(caught.value) == (
        "GitHub rejected the token (401 Bad credentials); "
        "set GITHUB_TOKEN or WIRE_GITHUB__TOKEN to a valid token"
    )
    assert caught.value.status == 401 and waits == []


async def test_no_token_at_all_names_the_setting_to_fix(github: FakeGitHub, waits: Waits):
    github.add_pulls(REPO, pulls_on(DAY, 1))

    with pytest.raises(RemoteError) as caught:
        await fetch(source(github, waits, token=None))

    assert "authorization" not in github.requests[0].headers
    assert str(caught.value).startswith("GitHub needs a token (401 This endpoint requires")
    assert str(caught.value).endswith("set GITHUB_TOKEN or WIRE_GITHUB__TOKEN")


async def test_an_unknown_repository_is_one_sentence_naming_it(github: FakeGitHub, waits: Waits):
    github.add_pulls(REPO, pulls_on(DAY, 1))

    with pytest.raises(RemoteError) as caught:
        await fetch(source(github, waits, repo="pytorch/executorhc"))

    assert str(caught.value) == (
        "GitHub has no repository pytorch/executorhc that this token can see (404 Not Found); "
        "check the name, or that the token has access to it"
    )
    assert caught.value.status == 404


async def test_graphql_not_found_is_one_sentence_naming_the_repository(
    github: FakeGitHub, waits: Waits
):
    github.add_pulls(REPO, pulls_on(DAY, 1))
    github.graphql_not_found(REPO)

    with pytest.raises(RemoteError) as caught:
        await fetch(source(github, waits))

    message = str(caught.value)
    assert message.startswith(f"GitHub has no repository {REPO} that this token can see (NOT_FOUND")
    assert message.endswith("check the name, or that the token has access to it")
    assert "\n" not in message and caught.value.status == 404


# ---- the token stays secret -------------------------------------------------------------------


async def test_the_token_never_appears_in_logs_errors_or_repr(
    github: FakeGitHub, waits: Waits, caplog: pytest.LogCaptureFixture
):
    secret = "ghp_s3cr3tTOKENvalue0123456789"
    github.tokens.add(secret)
    github.add_pulls(REPO, pulls_on(DAY, 2))
    github.secondary_rate_limit("graphql", retry_after=1)
    github.server_error("rest", status=500)
    github.script("graphql", 400, {"message": f"proxy rejected 'bearer {secret}'"})
    src = source(github, waits, token=secret)

    with caplog.at_level(logging.DEBUG), pytest.raises(RemoteError) as caught:
        await fetch(src)

    assert all(r.headers["authorization"] == f"bearer {secret}" for r in github.requests)
    assert len(github.requests) == 4 and caplog.records
    assert secret not in caplog.text
    assert secret not in str(caught.value) and "***" in str(caught.value)
    assert secret not in repr(src) and "token=set" in repr(src)


async def test_the_token_comes_from_the_environment(
    github: FakeGitHub, waits: Waits, monkeypatch: pytest.MonkeyPatch
):
    github.add_pulls(REPO, pulls_on(DAY, 1))
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_general")
    monkeypatch.setenv("WIRE_GITHUB__TOKEN", TOKEN)

    src = GitHubSource(REPO, api_url=github.url, sleep=waits)
    assert len(await fetch(src)) == 1

    assert {r.headers["authorization"] for r in github.requests} == {f"bearer {TOKEN}"}
    assert TOKEN not in repr(src)


# ---- where GitHub is --------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", ["/api", "/api/v3", "/api/"])
async def test_an_enterprise_api_url_is_honoured(waits: Waits, suffix: str):
    async with FakeGitHub(tokens=[TOKEN], enterprise=True) as ghes:
        ghes.add_pulls(REPO, pulls_on(DAY, 2))
        src = GitHubSource(REPO, token=TOKEN, api_url=ghes.url + suffix, sleep=waits)

        assert len(await fetch(src)) == 2

        assert [r.path for r in ghes.requests] == [f"/api/v3/repos/{REPO}/commits", "/api/graphql"]
        assert ghes.problems == []
        assert src.description == f"github:{REPO} at {ghes.url}{suffix.rstrip('/')}"


async def test_an_api_url_answering_html_says_so(github: FakeGitHub, waits: Waits):
    github.script("rest", 200, "<!DOCTYPE html><title>Sign in to GitHub</title>")

    with pytest.raises(RemoteError) as caught:
        await fetch(source(github, waits))

    assert str(caught.value) == (
        f"GitHub answered 200 for {REPO} with a body that is not JSON "
        "(text/html; charset=utf-8); check the API URL"
    )


def test_github_dot_com_endpoints():
    assert endpoints("https://api.github.com/") == (
        "https://api.github.com",
        "https://api.github.com/graphql",
    )


async def test_open_source_builds_the_github_source(github: FakeGitHub, waits: Waits):
    github.add_pulls(REPO, pulls_on(DAY, 2))
    async with httpx.AsyncClient() as client:
        src = open_source(
            f"github:{REPO}", token=TOKEN, api_url=github.url, client=client, sleep=waits
        )
        assert isinstance(src, GitHubSource)
        assert len(await fetch(src)) == 2
        assert not client.is_closed, "a client passed in stays the caller's to close"


# ---- the fake is strict -----------------------------------------------------------------------


async def test_the_fake_rejects_queries_github_would_reject(github: FakeGitHub):
    github.add_pulls(REPO, pulls_on(DAY, 1))
    async with httpx.AsyncClient(base_url=github.url, headers={"User-Agent": "t"}) as client:
        bad_field = await client.post(
            "/graphql",
            json={"query": '{ repository(owner: "a", name: "b") { mergedPullRequests } }'},
            headers={"Authorization": f"bearer {TOKEN}"},
        )
        unbounded = await client.post(
            "/graphql",
            json={"query": f'{{ search(query: "repo:{REPO}", type: ISSUE) {{ issueCount }} }}'},
            headers={"Authorization": f"bearer {TOKEN}"},
        )
        bad_path = await client.get(f"/repos/{REPO}/merged-pulls")
        bad_param = await client.get(f"/repos/{REPO}/commits", params={"state": "merged"})

    assert "Cannot query field 'mergedPullRequests'" in bad_field.json()["errors"][0]["message"]
    assert unbounded.json()["errors"][0]["type"] == "MISSING_PAGINATION_BOUNDARIES"
    assert bad_path.status_code == 404 and bad_param.status_code == 200
    assert len(github.problems) == 4, github.problems
    github.problems.clear()
