"""Acknowledgements of action items, where each item was posted, and reminders sent."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from sqlalchemy import ColumnElement, exists, select
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.database import Database
from bot.store.engine import insert_for
from bot.store.records import Ack, AckResult, ItemMessage
from bot.store.tables import AckRow as A
from bot.store.tables import DeliveryRow as D
from bot.store.tables import PostedPartRow as P
from bot.store.tables import ReminderRow as R
from bot.store.types import utcnow

# The columns of an ItemMessage: where an action item's message was posted.
ITEM_COLUMNS = (
    D.id.label("delivery_id"),
    D.story_id,
    P.item_id,
    D.platform,
    D.workspace,
    D.channel,
    P.part_index,
    P.message_id,
    P.thread_id,
    P.posted_at,
)


async def _acks_on(conn: AsyncConnection, item_id: str, channel: str) -> tuple[Ack, ...]:
    query = (
        select(A.item_id, A.platform, A.channel, A.user_id, A.user_name, A.acked_at)
        .where((A.item_id == item_id) & (A.channel == channel))
        .order_by(A.acked_at, A.id)
    )
    return tuple(Ack(**row._asdict()) for row in await conn.execute(query))


class Acks:
    """Record acks (once per user), find an item's message, and remember reminders sent."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def record(
        self, item_id: str, *, platform: str, channel: str, user_id: str, user_name: str
    ) -> AckResult:
        """Record that `user_id` acknowledged `item_id` in `channel`; idempotent per user."""
        insert = insert_for(self._db.engine)
        statement = insert(A).values(
            item_id=item_id,
            platform=platform,
            channel=channel,
            user_id=user_id,
            user_name=user_name,
            acked_at=utcnow(),
        )
        statement = statement.on_conflict_do_nothing(
            index_elements=["item_id", "channel", "user_id"]
        )
        async with self._db.begin() as conn:
            new = (await conn.execute(statement)).rowcount == 1
            acks = await _acks_on(conn, item_id, channel)
        return AckResult(new=new, acks=acks)

    async def for_item(self, item_id: str, *, channel: str) -> tuple[Ack, ...]:
        """Every ack of `item_id` in `channel`, oldest first."""
        async with self._db.read() as conn:
            return await _acks_on(conn, item_id, channel)

    async def for_items(self, item_ids: Collection[str]) -> dict[str, tuple[Ack, ...]]:
        """Every ack of each of `item_ids` in any channel, oldest first (the archive's
        "acknowledged by" of a story); an item nobody acknowledged is absent."""
        query = (
            select(A.item_id, A.platform, A.channel, A.user_id, A.user_name, A.acked_at)
            .where(A.item_id.in_(sorted(set(item_ids))))
            .order_by(A.acked_at, A.id)
        )
        found: dict[str, list[Ack]] = {}
        async with self._db.read() as conn:
            for row in await conn.execute(query):
                found.setdefault(row.item_id, []).append(Ack(**row._asdict()))
        return {item_id: tuple(acks) for item_id, acks in found.items()}

    async def find_item_message(
        self, item_id: str, *, platform: str, channel: str
    ) -> ItemMessage | None:
        """The message that carries `item_id` in a channel (the newest, if posted twice)."""
        return await self._newest(P.item_id == item_id, platform=platform, channel=channel)

    async def find_message(
        self, message_id: str, *, platform: str, channel: str
    ) -> ItemMessage | None:
        """The action item posted as `message_id` in a channel, or None when that message
        is not an action item's (a reaction names only the message)."""
        where = (P.message_id == message_id) & P.item_id.is_not(None)
        return await self._newest(where, platform=platform, channel=channel)

    async def _newest(
        self, where: ColumnElement[bool], *, platform: str, channel: str
    ) -> ItemMessage | None:
        query = (
            select(*ITEM_COLUMNS)
            .join(D, D.id == P.delivery_id)
            .where(where & (D.platform == platform) & (D.channel == channel))
            .order_by(P.posted_at.desc(), P.id.desc())
            .limit(1)
        )
        async with self._db.read() as conn:
            row = (await conn.execute(query)).one_or_none()
        return None if row is None else ItemMessage(**row._asdict())

    async def unacked_items(
        self, *, posted_before: datetime, posted_after: datetime | None = None
    ) -> list[ItemMessage]:
        """Item messages posted in [posted_after, posted_before) with no ack and no reminder."""
        acked = exists().where((A.item_id == P.item_id) & (A.channel == D.channel))
        reminded = exists().where((R.item_id == P.item_id) & (R.channel == D.channel))
        query = (
            select(*ITEM_COLUMNS)
            .join(D, D.id == P.delivery_id)
            .where(P.item_id.is_not(None) & (P.posted_at < posted_before) & ~acked & ~reminded)
            .order_by(P.posted_at, P.id)
        )
        if posted_after is not None:
            query = query.where(P.posted_at >= posted_after)
        async with self._db.read() as conn:
            return [ItemMessage(**row._asdict()) for row in await conn.execute(query)]

    async def record_reminder(self, item_id: str, *, channel: str) -> bool:
        """Remember that a reminder for `item_id` went to `channel`; False if one already had."""
        insert = insert_for(self._db.engine)
        statement = (
            insert(R)
            .values(item_id=item_id, channel=channel, sent_at=utcnow())
            .on_conflict_do_nothing(index_elements=["item_id", "channel"])
        )
        async with self._db.begin() as conn:
            return (await conn.execute(statement)).rowcount == 1
