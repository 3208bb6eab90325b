"""The archive's columns: migration 0004 fills them in for stories saved before it, and a
story saved after it is indexed as it is saved."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import create_async_engine

from bot.store import Store, upgrade_database
from tests.conftest import build_story


async def test_migration_fills_in_stories_saved_before_it(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    await upgrade_database(url, revision="0003")
    listed, failed = build_story(1), build_story(2, problems=("dangling citation [4]",))
    quiet = build_story(3, body=False, items=0)
    topical = build_story(4).model_copy(
        update={"topic": "XNNPACK", "repos": ("PyTorch/ExecuTorch",)}  # 0005 folds the case
    )
    engine = create_async_engine(url)
    async with engine.begin() as conn:
        for story in (listed, failed, quiet, topical):
            await conn.execute(
                sa.text("INSERT INTO stories (id, json, created_at) VALUES (:id, :json, :at)"),
                {"id": story.id, "json": story.model_dump_json(), "at": "2026-03-03 09:00:00"},
            )
    await engine.dispose()
    await upgrade_database(url)
    async with Store.from_url(url) as store:
        page = await store.archive.page()
        assert {s.id for s in page.stories} == {listed.id, topical.id} and not page.more
        only = await store.archive.page(topic="xnnpack", repo="pytorch/executorch")
        assert [s.id for s in only.stories] == [topical.id]
        assert (await store.archive.page(hidden=("PYTORCH/EXECUTORCH",))).stories == ()
        assert await store.archive.topics() == ["XNNPACK"]


async def test_saving_indexes_a_story_once(store: Store) -> None:
    story = build_story(5).model_copy(update={"repos": ("a/one", "b/two")})
    await store.stories.save(story)
    await store.stories.save(story)  # the same id again: a no-op
    for repo in ("a/one", "b/two"):
        page = await store.archive.page(repo=repo)
        assert [s.id for s in page.stories] == [story.id]
    assert (await store.archive.page(hidden=("b/two",))).stories == ()
    assert (await store.archive.page(repo="c/three")).stories == ()
    assert (await store.archive.page(offset=1)).stories == ()
    more = [build_story(6 + n) for n in range(3)]
    for extra in more:
        await store.stories.save(extra)
    first, last = await store.archive.page(limit=2), await store.archive.page(offset=2, limit=2)
    assert first.more and not last.more
    assert [s.id for s in first.stories + last.stories] == [s.id for s in [*reversed(more), story]]
