"""Stories as composed: saved once by id, read back as `digest.model.Story`."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.archive import index_story_on, is_listed
from bot.store.database import Database
from bot.store.engine import insert_for
from bot.store.tables import StoryRow
from bot.store.types import utcnow
from digest.model import Story


async def save_story_on(conn: AsyncConnection, story: Story) -> None:
    """Insert `story` inside an open transaction; an existing id is left as it is."""
    insert = insert_for(conn.engine)
    saved = await conn.execute(
        insert(StoryRow)
        .values(
            id=story.id,
            json=story.model_dump_json(),
            created_at=utcnow(),
            topic=story.topic,
            listed=is_listed(story),
        )
        .on_conflict_do_nothing(index_elements=["id"])
    )
    if saved.rowcount == 1:
        await index_story_on(conn, story)


class Stories:
    """Save and load composed stories (ids are stable hashes, so saving twice is a no-op)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def save(self, story: Story) -> None:
        """Keep `story`; a story with the same id is already the same story."""
        async with self._db.begin() as conn:
            await save_story_on(conn, story)

    async def get(self, story_id: str) -> Story | None:
        """The story with `story_id`, or None."""
        async with self._db.read() as conn:
            raw = (
                await conn.execute(select(StoryRow.json).where(StoryRow.id == story_id))
            ).scalar_one_or_none()
        return None if raw is None else Story.model_validate_json(raw)
