"""Open subscriptions as an attacker would try them, against the loopback GitHub: the caps
hold under one command naming many repositories and under fifty commands at once (on two
store connections, as two replicas, on PostgreSQL); a repository that went private is
refused at every door and its archived stories are hidden; hostile names never reach any
GitHub path but `/repos/{owner}/{repo}`; a refused command stores nothing. On SQLite, and on
PostgreSQL when WIRE_TEST_POSTGRES_URL is set (the `store` fixture of conftest.py)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from pydantic import SecretStr

from bot.settings_sections import WebSettings
from bot.store import Store
from bot.web.site import ArchiveSite
from digest.errors import SourceError
from digest.sources.github import GitHubSource
from digest.sources.github.names import is_repository_name, repository_path
from digest.sources.github.repository import look_up_repository
from tests.chat import demo_config
from tests.fakes.github import FakeGitHub
from tests.open_github import TOKEN, open_chat, populate

CAPCO = [f"capco/r{n:03d}" for n in range(100)]


@pytest.fixture
async def github() -> AsyncIterator[FakeGitHub]:
    async with FakeGitHub(tokens=[TOKEN]) as fake:
        populate(fake)
        for repo in CAPCO:
            fake.add_repository(repo)
        yield fake


@pytest.fixture
async def second_store(store: Store) -> AsyncIterator[Store]:
    """Another connection pool on the same database: a second replica on PostgreSQL, and on
    SQLite a second process's connection to the same file."""
    other = Store.from_url(store.engine.url)
    yield other
    await other.close()


def repo_lookups(github: FakeGitHub, repo: str) -> int:
    return sum(1 for r in github.requests if r.path.lower() == f"/repos/{repo}".lower())


# ------------------------------------------------------------------ caps


async def test_one_command_naming_more_repositories_than_the_channel_cap_stores_nothing(
    store: Store, github: FakeGitHub
):
    wire = open_chat(store, github.url, per_channel=5, total=40)
    reply = await wire("/wire subscribe " + " ".join(CAPCO[10:20]))
    assert reply.text.splitlines()[0] == (
        "Sorry: this channel already follows 5 repositories, the most [subscribing] "
        "per_channel allows; unsubscribe from one first."
    )
    assert await store.open_projects.list() == [] and await store.subscriptions.list() == []
    assert (await wire("/wire subscribe " + " ".join(CAPCO[10:15]))).ok
    assert len(await store.subscriptions.list()) == 5


async def test_one_command_passing_the_total_cap_stores_nothing(store: Store, github: FakeGitHub):
    wire = open_chat(store, github.url, per_channel=50, total=3)
    reply = await wire("/wire subscribe " + " ".join(CAPCO[:4]))
    assert "the most [subscribing] total allows" in reply.text
    assert await store.open_projects.list() == [] and await store.subscriptions.list() == []


async def test_fifty_commands_at_once_from_one_channel_keep_its_cap(
    store: Store, second_store: Store, github: FakeGitHub
):
    chats = [open_chat(s, github.url, per_channel=5, total=40) for s in (store, second_store)]
    replies = await asyncio.gather(
        *(chats[n % 2](f"/wire subscribe {repo}") for n, repo in enumerate(CAPCO[:50]))
    )
    followed = {s.repo for s in await store.subscriptions.list(channel="C1")}
    assert len(followed) == 5
    assert sum(r.ok for r in replies) == 5
    refused = [r for r in replies if not r.ok]
    assert all("[subscribing] per_channel" in r.text for r in refused)


async def test_fifty_channels_at_once_keep_the_total_cap(
    store: Store, second_store: Store, github: FakeGitHub
):
    chats = [
        open_chat(s, github.url, channel=f"C{n}", per_channel=5, total=40)
        for n, s in enumerate([store, second_store] * 25)
    ]
    replies = await asyncio.gather(
        *(chat(f"/wire subscribe {repo}") for chat, repo in zip(chats, CAPCO[50:], strict=False))
    )
    assert len(await store.open_projects.list()) == 40
    assert len(await store.subscriptions.list()) == 40
    assert sum(r.ok for r in replies) == 40


async def test_a_refused_alias_stores_no_open_project(store: Store, github: FakeGitHub):
    wire = open_chat(store, github.url)
    reply = await wire(f"/wire subscribe {CAPCO[0]} no-such-alias")
    assert not reply.ok and "no-such-alias" in reply.text
    assert await store.open_projects.list() == [] and await store.subscriptions.list() == []


# ------------------------------------------------------------------ private at every door


async def test_a_preview_asks_github_again_and_refuses_a_repository_gone_private(
    store: Store, github: FakeGitHub
):
    assert (await open_chat(store, github.url)("/wire subscribe pola-rs/polars")).ok
    elsewhere = open_chat(store, github.url, channel="C9")
    assert (await elsewhere("/wire preview pola-rs/polars")).story is not None
    github.add_repository("pola-rs/polars", visibility="private")
    asked = repo_lookups(github, "pola-rs/polars")

    reply = await elsewhere("/wire preview pola-rs/polars")
    assert reply.story is None and "pola-rs/polars" in reply.text
    assert repo_lookups(github, "pola-rs/polars") == asked + 1
    assert await store.open_projects.list() == [] and await store.subscriptions.list() == []
    notices = await store.listing.list(platform="chat", channel="C1", limit=5)
    assert [n.headline for n in notices] == ["NO MORE NEWS OF POLA-RS/POLARS"]


async def test_a_channel_preview_drops_a_repository_gone_private(store: Store, github: FakeGitHub):
    wire = open_chat(store, github.url)
    assert (await wire("/wire subscribe pola-rs/polars")).ok
    github.add_repository("pola-rs/polars", visibility="private")
    reply = await wire("/wire preview")
    assert reply.story is None and "no subscriptions" in reply.text


async def test_subscribing_again_asks_github_and_refuses_a_repository_gone_private(
    store: Store, github: FakeGitHub
):
    assert (await open_chat(store, github.url)("/wire subscribe pola-rs/polars")).ok
    github.add_repository("pola-rs/polars", visibility="private")
    asked = repo_lookups(github, "pola-rs/polars")
    reply = await open_chat(store, github.url, channel="C2")("/wire subscribe pola-rs/polars")
    assert not reply.ok and "pola-rs/polars" in reply.text
    assert repo_lookups(github, "pola-rs/polars") == asked + 1
    assert await store.open_projects.list() == [] and await store.subscriptions.list() == []


async def test_subscribing_again_to_a_public_one_costs_a_conditional_request(
    store: Store, github: FakeGitHub
):
    assert (await open_chat(store, github.url)("/wire subscribe pola-rs/polars")).ok
    reply = await open_chat(store, github.url, channel="C2")("/wire subscribe pola-rs/polars")
    assert reply.ok
    [first, again] = [r for r in github.requests if r.path == "/repos/pola-rs/polars"]
    assert again.headers.get("if-none-match") and not first.headers.get("if-none-match")
    assert len(await store.subscriptions.list()) == 2


async def test_a_withdrawn_repositorys_stories_leave_the_archive(
    store: Store, github: FakeGitHub, make_story
):
    wire = open_chat(store, github.url)
    assert (await wire("/wire subscribe pola-rs/polars")).ok
    story = make_story(7).model_copy(update={"repos": ("pola-rs/polars",)})
    await store.stories.save(story)
    token = "archive-token-0c91d2e4"
    app = web.Application()
    web_settings = WebSettings(enabled=True, token=SecretStr(token))
    ArchiveSite(store=store, config=demo_config(), settings=web_settings).mount(app)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        page = str(server.make_url(f"/stories/{story.id}"))
        async with aiohttp.ClientSession() as http:
            async with http.get(page) as response:
                assert response.status == 200
            github.add_repository("pola-rs/polars", visibility="private")
            assert (await wire("/wire preview pola-rs/polars")).story is None
            async with http.get(page) as response:
                assert response.status == 404
            async with http.get(str(server.make_url("/"))) as response:
                assert story.headline not in await response.text()
            bearer = {"Authorization": f"Bearer {token}"}
            async with http.get(page, headers=bearer) as response:
                assert response.status == 200
            github.add_repository("pola-rs/polars", visibility="public")
            assert (await wire("/wire subscribe pola-rs/polars")).ok  # public again
            async with http.get(page) as response:
                assert response.status == 200
    finally:
        await server.close()


# ------------------------------------------------------------------ names

HOSTILE = [
    "../user",
    "../..",
    "owner/..",
    "../emojis",
    "./x",
    "a/.",
    "./.",
    "../../user",
    "a/b/c",
    "a/b/../../user",
    "a/b?per_page=100",
    "a/b#fragment",
    "a/b;x",
    "a%2F../user",
    "a/%2e%2e",
    "%2e%2e/user",
    "a/b%00",
    "ünï/cödé",
    "a/ｂ",
    "a/b\u200b",
    "ａ/b",
    "a/b c",
    "a\\b",
    "a/b\\..\\user",
    "/a",
    "a/",
    "a//b",
    "a/b/",
    "a@b/c",
    "a:b/c",
    "a/b:c",
    "http://x/y",
    "//evil.example/x",
    "a/" + "b" * 101,
    "o" * 40 + "/b",
    "a/b'",
    'a/b"',
    "a/<b>",
    "a/b&c=1",
    "a/b+c",
    "a/b~c",
    "a/b$",
    "a/b*",
    "a/{b}",
    "a/[b]",
    "a/b|c",
    "a/b!",
    "a/b,c",
    "..%2f/user",
    "a/b%2f..%2f..%2fuser",
]
ALLOWED_PATH = re.compile(r"/repos/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")


def test_fifty_hostile_names_are_refused_and_real_ones_pass() -> None:
    assert len(set(HOSTILE)) == 50
    assert [n for n in HOSTILE if is_repository_name(n)] == []
    for name in ("astral-sh/uv", "pola-rs/polars", "a/.github", "a/b...c", "o" * 39 + "/b"):
        assert is_repository_name(name), name
    assert repository_path("a/.github") == "/repos/a/.github"
    with pytest.raises(ValueError):
        repository_path("../user")
    with pytest.raises(SourceError):
        GitHubSource("../user")


async def test_hostile_names_reach_no_other_github_path(store: Store, github: FakeGitHub):
    wire = open_chat(store, github.url)
    for name in HOSTILE:
        for command in (f"/wire subscribe {name}", f"/wire preview {name}"):
            assert not (await wire(command)).ok, command
        found = await look_up_repository(name, token=TOKEN, api_url=github.url)
        assert found.outcome == "missing", name
    paths = [r.path for r in github.requests]
    assert all(ALLOWED_PATH.fullmatch(p) and "/../" not in p + "/" for p in paths), paths
    assert await store.open_projects.list() == [] and await store.subscriptions.list() == []


async def test_a_redirect_is_followed_only_to_a_repository(github: FakeGitHub):
    found = await look_up_repository("sveltejs/svelte", token=TOKEN, api_url=github.url)
    assert found.outcome == "found" and found.info is not None
    assert found.info.full_name == "sveltejs/Svelte-Kit"
    github.script("rest", 301, {"message": "Moved"}, {"Location": f"{github.url}/user"})
    moved = await look_up_repository("sveltejs/svelte", token=TOKEN, api_url=github.url)
    assert moved.outcome == "missing"
    assert "/user" not in [r.path for r in github.requests]
