"""Two replicas adding the same repository from chat at the same moment leave one row (on
SQLite and on PostgreSQL), and both channels follow it."""

from __future__ import annotations

import asyncio

from bot.store import Store
from tests.fakes.github import FakeGitHub
from tests.open_github import TOKEN, open_chat, populate


async def test_two_replicas_adding_the_same_project_at_once_make_one_row(
    database_url: str,
) -> None:
    first, second = Store.from_url(database_url), Store.from_url(database_url)
    try:
        async with FakeGitHub(tokens=[TOKEN]) as github:
            populate(github)
            replies = await asyncio.gather(
                open_chat(first, github.url, channel="C1")("/wire subscribe pola-rs/polars"),
                open_chat(second, github.url, channel="C2")("/wire subscribe POLA-RS/polars"),
            )
            assert github.problems == []
        assert all(r.ok and r.text.startswith("Subscribed to pola-rs/polars") for r in replies)
        assert [p.repo for p in await first.open_projects.list()] == ["pola-rs/polars"]
        subs = await second.subscriptions.list()
        assert sorted((s.channel, s.repo) for s in subs) == [
            ("C1", "pola-rs/polars"),
            ("C2", "pola-rs/polars"),
        ]
    finally:
        await first.close()
        await second.close()
