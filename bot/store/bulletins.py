"""Bulletins: which action item went to which channel ahead of the digest, and each
channel's switch (on unless `/wire bulletins off`).

A bulletin is noted before its delivery is queued, unique on (item, platform, channel), so a
channel gets one bulletin per action item however many of its subscriptions match
(`note`). `posted_to` and `switched_off` let the newsdesk read, once per change, where its
items were already posted and which channels want no bulletins. The next
digest asks `reported` which of its items a channel already received as a *delivered*
bulletin, and when the bulletin's first message was posted.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Integer, String, UniqueConstraint, func, select
from sqlalchemy.orm import Mapped, mapped_column

from bot.store.database import Database
from bot.store.engine import insert_for
from bot.store.tables import Base
from bot.store.tables import DeliveryRow as D
from bot.store.tables import PostedPartRow as P
from bot.store.types import utcnow


class BulletinRow(Base):
    """An action item sent to a channel as a bulletin (story `story_id`)."""

    __tablename__ = "bulletins"
    __table_args__ = (UniqueConstraint("item_id", "platform", "channel"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    story_id: Mapped[str] = mapped_column(ForeignKey("stories.id", ondelete="CASCADE"))
    item_id: Mapped[str] = mapped_column(String(64))
    platform: Mapped[str] = mapped_column(String(32))
    workspace: Mapped[str] = mapped_column(String(128))
    channel: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ChannelBulletinRow(Base):
    """A channel's bulletin switch; a channel without a row gets bulletins."""

    __tablename__ = "channel_bulletins"

    platform: Mapped[str] = mapped_column(String(32), primary_key=True)
    workspace: Mapped[str] = mapped_column(String(128), primary_key=True)
    channel: Mapped[str] = mapped_column(String(128), primary_key=True)
    enabled: Mapped[bool] = mapped_column(Boolean)


class Bulletins:
    """Note bulletins, find the delivered ones of a channel, and switch them per channel."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def note(
        self,
        *,
        story_id: str,
        item_ids: Collection[str],
        channels: Collection[tuple[str, str, str]],
    ) -> dict[tuple[str, str, str], set[str]]:
        """Note that `item_ids` go to each (platform, workspace, channel) in story `story_id`
        (which must be saved), in one transaction; returns, for each channel, the stories
        that carry its bulletins of these items (only `story_id` unless another came first)."""
        row = BulletinRow
        now = utcnow()
        values = [
            {
                "story_id": story_id,
                "item_id": item_id,
                "platform": platform,
                "workspace": workspace,
                "channel": channel,
                "created_at": now,
            }
            for platform, workspace, channel in channels
            for item_id in item_ids
        ]
        if not values:
            return {}
        statement = insert_for(self._db.engine)(row).on_conflict_do_nothing(
            index_elements=["item_id", "platform", "channel"]
        )
        query = select(row.platform, row.workspace, row.channel, row.story_id).where(
            row.item_id.in_(list(item_ids))
        )
        wanted = {(p, c): (p, w, c) for p, w, c in channels}
        holders: dict[tuple[str, str, str], set[str]] = {key: set() for key in channels}
        async with self._db.begin() as conn:
            await conn.execute(statement, values)
            for found in await conn.execute(query):
                key = wanted.get((found.platform, found.channel))
                if key is not None:
                    holders[key].add(found.story_id)
        return holders

    async def reported(
        self, *, platform: str, channel: str, item_ids: Collection[str]
    ) -> dict[str, datetime]:
        """Of `item_ids`, those the channel received in a delivered bulletin, each with the
        time the bulletin's first message was posted."""
        if not item_ids:
            return {}
        row = BulletinRow
        query = (
            select(row.item_id, func.min(P.posted_at).label("at"))
            .join(
                D,
                (D.story_id == row.story_id)
                & (D.platform == row.platform)
                & (D.channel == row.channel),
            )
            .join(P, (P.delivery_id == D.id) & (P.part_index == 0))
            .where(
                (row.platform == platform)
                & (row.channel == channel)
                & row.item_id.in_(list(item_ids))
                & (D.state == "delivered")
            )
            .group_by(row.item_id)
        )
        async with self._db.read() as conn:
            return {r.item_id: r.at for r in await conn.execute(query)}

    async def posted_to(self, item_ids: Collection[str]) -> set[tuple[str, str, str]]:
        """The (item, platform, channel) of each of `item_ids` already posted somewhere (in a
        digest or a bulletin), in one query."""
        if not item_ids:
            return set()
        query = (
            select(P.item_id, D.platform, D.channel)
            .join(D, D.id == P.delivery_id)
            .where(P.item_id.in_(list(item_ids)))
            .distinct()
        )
        async with self._db.read() as conn:
            return {(r.item_id, r.platform, r.channel) for r in await conn.execute(query)}

    async def switched_off(self) -> set[tuple[str, str, str]]:
        """Every (platform, workspace, channel) whose bulletins are off."""
        row = ChannelBulletinRow
        query = select(row.platform, row.workspace, row.channel).where(row.enabled.is_(False))
        async with self._db.read() as conn:
            return {(r.platform, r.workspace, r.channel) for r in await conn.execute(query)}

    async def enabled(self, *, platform: str, workspace: str, channel: str) -> bool:
        """Whether the channel gets bulletins (the default is yes)."""
        row = ChannelBulletinRow
        key = (row.platform == platform) & (row.workspace == workspace) & (row.channel == channel)
        async with self._db.read() as conn:
            found = (await conn.execute(select(row.enabled).where(key))).scalar_one_or_none()
        return True if found is None else bool(found)

    async def set_enabled(
        self, *, platform: str, workspace: str, channel: str, enabled: bool
    ) -> bool:
        """Switch the channel's bulletins on or off; returns whether that changed anything."""
        before = await self.enabled(platform=platform, workspace=workspace, channel=channel)
        statement = (
            insert_for(self._db.engine)(ChannelBulletinRow)
            .values(platform=platform, workspace=workspace, channel=channel, enabled=enabled)
            .on_conflict_do_update(
                index_elements=["platform", "workspace", "channel"], set_={"enabled": enabled}
            )
        )
        async with self._db.begin() as conn:
            await conn.execute(statement)
        return before != enabled
