"""Per-channel settings: schedule, timezone, mute, and the end of the last delivered window."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select

from bot.store.database import Database
from bot.store.engine import insert_for
from bot.store.records import ChannelSettings
from bot.store.tables import ChannelSettingsRow as C
from bot.store.types import AnyRow

_UNSET: Any = object()


def _record(row: AnyRow) -> ChannelSettings:
    return ChannelSettings(**row._asdict())


class Channels:
    """Read and update channel settings; a channel never set reads as all defaults (None)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, *, platform: str, workspace: str, channel: str) -> ChannelSettings:
        """The channel's settings; None fields mean the service defaults apply."""
        key = (C.platform == platform) & (C.workspace == workspace) & (C.channel == channel)
        async with self._db.read() as conn:
            row = (await conn.execute(select(C.__table__).where(key))).one_or_none()
        if row is None:
            return ChannelSettings(platform=platform, workspace=workspace, channel=channel)
        return _record(row)

    async def update(
        self,
        *,
        platform: str,
        workspace: str,
        channel: str,
        schedule: str | None = _UNSET,
        timezone: str | None = _UNSET,
        muted_until: datetime | None = _UNSET,
        last_window_until: datetime | None = _UNSET,
    ) -> ChannelSettings:
        """Set the given fields (others keep their value; pass None to clear one)."""
        given = {
            name: value
            for name, value in (
                ("schedule", schedule),
                ("timezone", timezone),
                ("muted_until", muted_until),
                ("last_window_until", last_window_until),
            )
            if value is not _UNSET
        }
        insert = insert_for(self._db.engine)
        statement = insert(C).values(
            platform=platform, workspace=workspace, channel=channel, **given
        )
        if given:
            statement = statement.on_conflict_do_update(
                index_elements=["platform", "workspace", "channel"], set_=given
            )
        else:
            statement = statement.on_conflict_do_nothing()
        async with self._db.begin() as conn:
            await conn.execute(statement)
        return await self.get(platform=platform, workspace=workspace, channel=channel)

    async def window_until(self, *, platform: str, workspace: str, channel: str) -> datetime | None:
        """The end of the last window delivered to the channel, or None if none was."""
        found = await self.get(platform=platform, workspace=workspace, channel=channel)
        return found.last_window_until

    async def set_window_until(
        self, *, platform: str, workspace: str, channel: str, until: datetime
    ) -> None:
        """Remember `until` as the end of the last window delivered to the channel."""
        await self.update(
            platform=platform, workspace=workspace, channel=channel, last_window_until=until
        )

    async def list(self) -> list[ChannelSettings]:
        """Every channel that has settings."""
        query = select(C.__table__).order_by(C.platform, C.workspace, C.channel)
        async with self._db.read() as conn:
            return [_record(row) for row in await conn.execute(query)]
