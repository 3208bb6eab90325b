"""`/wire subscribe OWNER/REPO` for repositories nobody configured, against the loopback
GitHub: a public one is stored and followed; private, internal, archived, missing, typo,
renamed, rate-limited and unreachable each get one clear sentence and store nothing; the
operator's switches and caps refuse by naming their setting. On SQLite, and on PostgreSQL
when WIRE_TEST_POSTGRES_URL is set (the `store` fixture of conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.store import Store
from tests.fakes.github import FakeGitHub
from tests.open_github import TOKEN, open_chat, populate


@pytest.fixture
async def github() -> AsyncIterator[FakeGitHub]:
    async with FakeGitHub(tokens=[TOKEN]) as fake:
        populate(fake)
        yield fake
        assert fake.problems == []


async def nothing_stored(store: Store) -> bool:
    return await store.open_projects.list() == [] and await store.subscriptions.list() == []


async def test_a_public_repository_is_stored_and_followed(store: Store, github: FakeGitHub):
    wire = open_chat(store, github.url)
    reply = await wire("/wire subscribe pola-rs/polars")
    assert reply.ok and reply.visibility == "channel"
    first = reply.text.splitlines()[0]
    assert first.startswith("Subscribed to pola-rs/polars: its next digest is Thu 09:00 UTC.")
    assert "Topics so far: " in first and "none yet" not in first
    [project] = await store.open_projects.list()
    assert (project.repo, project.name, project.default_branch, project.source) == (
        "pola-rs/polars",
        "polars",
        "main",
        "github:pola-rs/polars",
    )
    assert project.topics and project.added_by == "alice"
    [sub] = await store.subscriptions.list()
    assert sub.repo == "pola-rs/polars"
    lookups = [r for r in github.requests if r.path == "/repos/pola-rs/polars"]
    assert len(lookups) == 1 and lookups[0].headers["authorization"] == f"bearer {TOKEN}"


async def test_topics_list_exclusions_topic_and_unsubscribe_work_on_it(
    store: Store, github: FakeGitHub
):
    wire = open_chat(store, github.url)
    await wire("/wire subscribe pola-rs/polars")
    [project] = await store.open_projects.list()
    topic = project.topics[0]
    topics = await wire("/wire topics pola-rs/polars")
    assert topics.text.startswith(f"pola-rs/polars: automatic topics so far: {topic}")
    narrowed = await wire(f"/wire subscribe pola-rs/polars topic:{topic.lower()} -author:nobody")
    assert narrowed.text.startswith(
        f"Subscribed to pola-rs/polars topic:{topic} (excluding author:nobody): its next digest"
    )
    listed = await wire("/wire list")
    assert "• pola-rs/polars — by alice" in listed
    assert f"• pola-rs/polars topic:{topic} (excluding author:nobody)" in listed
    preview = await wire("/wire preview pola-rs/polars")
    assert preview.ok and preview.story is not None and preview.story.references
    assert all(r.repo == "pola-rs/polars" for r in preview.story.references)
    gone = await wire("/wire unsubscribe pola-rs/polars")
    assert "Unsubscribed this channel from pola-rs/polars." in gone
    assert {s.topic for s in await store.subscriptions.list()} == {topic}


@pytest.mark.parametrize("repo", ["acme/secret-plans", "acme/inner-tools", "nobody/nothing"])
async def test_private_internal_and_missing_read_the_same(
    store: Store, github: FakeGitHub, repo: str
):
    wire = open_chat(store, github.url)
    reply = await wire(f"/wire subscribe {repo}")
    assert not reply.ok
    assert reply.text.splitlines()[0] == (
        f"Sorry: GitHub has no public repository `{repo}`; check the spelling, or follow one "
        "of the configured projects."
    )
    for leak in ("private", "internal", "pydantic", "vite", "exists", "access"):
        assert leak not in reply.text.lower()
    assert await nothing_stored(store)


async def test_a_missing_repository_names_the_closest_configured_projects(
    store: Store, github: FakeGitHub
):
    reply = await open_chat(store, github.url)("/wire subscribe pytorch/executorh")
    assert "GitHub has no public repository `pytorch/executorh`" in reply
    assert "Did you mean: `pytorch/executorch`" in reply
    assert await nothing_stored(store)


async def test_a_typo_of_a_configured_alias_asks_did_you_mean(store: Store, github: FakeGitHub):
    before = len(github.requests)
    reply = await open_chat(store, github.url)("/wire subscribe executorh")
    assert "`executorh` is not a project this Wire follows" in reply
    assert "Did you mean: `executorch`" in reply and "OWNER/REPO" in reply
    assert len(github.requests) == before  # a bare name is never looked up


async def test_an_archived_repository_is_refused(store: Store, github: FakeGitHub):
    reply = await open_chat(store, github.url)("/wire subscribe old-org/retired")
    assert reply.text.splitlines()[0] == (
        "Sorry: `old-org/retired` is archived on GitHub, so nothing lands there any more to report."
    )
    assert await nothing_stored(store)


async def test_a_renamed_repository_is_followed_under_its_new_name(
    store: Store, github: FakeGitHub
):
    reply = await open_chat(store, github.url)("/wire subscribe sveltejs/svelte")
    assert reply.text.startswith("Subscribed to sveltejs/Svelte-Kit (renamed from sveltejs/svelte)")
    [project] = await store.open_projects.list()
    assert project.repo == "sveltejs/Svelte-Kit" and project.source == "github:sveltejs/Svelte-Kit"
    assert [s.repo for s in await store.subscriptions.list()] == ["sveltejs/Svelte-Kit"]
    assert [r.status for r in github.requests if "epositor" in r.path or "/repos/" in r.path][
        :2
    ] == [301, 200]


async def test_a_configured_project_always_wins(store: Store, github: FakeGitHub):
    wire = open_chat(store, github.url)
    reply = await wire("/wire subscribe PyTorch/ExecuTorch")
    assert "Subscribed this channel to ExecuTorch." in reply
    assert await store.open_projects.list() == []
    assert not any(r.path.startswith("/repos/") for r in github.requests)


async def test_a_rate_limit_says_when_to_try_again_and_stores_nothing(
    store: Store, github: FakeGitHub
):
    github.exhaust("core", reset_in=9 * 60 + 30)
    reply = await open_chat(store, github.url)("/wire subscribe pola-rs/polars")
    assert reply.text.splitlines()[0] == (
        "Sorry: GitHub's rate limit is used up, so nothing was added; try again in 10 minutes."
    )
    assert await nothing_stored(store)


async def test_an_unreachable_github_says_when_to_try_again(store: Store, github: FakeGitHub):
    reply = await open_chat(store, "http://127.0.0.1:9")("/wire subscribe pola-rs/polars")
    assert reply.text == (  # the command was right: no usage line
        "Sorry: GitHub could not be reached, so nothing was added; try again in 5 minutes."
    )
    assert await nothing_stored(store)


async def test_open_config_keeps_to_the_configured_projects(store: Store, github: FakeGitHub):
    reply = await open_chat(store, github.url, open="config")("/wire subscribe pola-rs/polars")
    assert '[subscribing] open = "config"' in reply and "not a project this Wire follows" in reply
    assert not github.requests and await nothing_stored(store)


@pytest.mark.parametrize(
    ("rules", "setting"),
    [({"deny_owners": ("Pola-RS",)}, "deny_owners"), ({"allow_owners": ("acme",)}, "allow_owners")],
)
async def test_owner_lists_refuse_by_naming_their_setting(
    store: Store, github: FakeGitHub, rules: dict, setting: str
):
    reply = await open_chat(store, github.url, **rules)("/wire subscribe pola-rs/polars")
    assert "repositories of `pola-rs` cannot be followed here" in reply
    assert f"[subscribing] {setting}" in reply
    assert not github.requests and await nothing_stored(store)


async def test_the_per_channel_cap_names_its_setting(store: Store, github: FakeGitHub):
    wire = open_chat(store, github.url, per_channel=2)
    assert (await wire("/wire subscribe executorch ci-infra")).ok
    reply = await wire("/wire subscribe pola-rs/polars")
    assert reply.text.splitlines()[0] == (
        "Sorry: this channel already follows 2 repositories, the most [subscribing] "
        "per_channel allows; unsubscribe from one first."
    )
    assert await store.open_projects.list() == []
    other = open_chat(store, github.url, per_channel=2, channel="C2")
    assert (await other("/wire subscribe pola-rs/polars")).ok


async def test_the_total_cap_names_its_setting(store: Store, github: FakeGitHub):
    assert (await open_chat(store, github.url, total=1)("/wire subscribe pola-rs/polars")).ok
    wire = open_chat(store, github.url, total=1, channel="C2")
    reply = await wire("/wire subscribe sveltejs/Svelte-Kit")
    assert reply.text.splitlines()[0] == (
        "Sorry: this Wire already follows 1 repository added from chat, the most "
        "[subscribing] total allows; ask its operator to raise it or to configure the project."
    )
    assert (await wire("/wire subscribe pola-rs/polars")).ok  # one stored already: no new row
    assert len(await store.open_projects.list()) == 1
