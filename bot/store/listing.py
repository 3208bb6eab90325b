"""Read-only views of the outbox for `wire deliveries` and for summaries."""

from __future__ import annotations

import json

from sqlalchemy import func, select

from bot.store.database import Database
from bot.store.records import DeliveryInfo
from bot.store.tables import DELIVERY_STATES, StoryRow
from bot.store.tables import DeliveryRow as D
from bot.store.tables import PostedPartRow as P
from bot.store.types import AnyRow, AnySelect


def _headline(raw: str) -> str:
    try:
        return str(json.loads(raw).get("headline", ""))
    except ValueError:
        return ""


def _info(row: AnyRow) -> DeliveryInfo:
    values = row._asdict()
    values["headline"] = _headline(values.pop("story_json"))
    return DeliveryInfo(**values)


class DeliveryListing:
    """Deliveries with their story's headline and how many parts are posted."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def _query(self) -> AnySelect:
        posted = (
            select(func.count(P.id))
            .where(P.delivery_id == D.id)
            .scalar_subquery()
            .label("parts_posted")
        )
        return select(
            D.id,
            D.story_id,
            StoryRow.json.label("story_json"),
            D.platform,
            D.workspace,
            D.channel,
            D.state,
            D.attempts,
            posted,
            D.next_attempt_at,
            D.last_error,
            D.created_at,
            D.delivered_at,
        ).join(StoryRow, StoryRow.id == D.story_id)

    async def list(
        self,
        *,
        state: str | None = None,
        platform: str | None = None,
        channel: str | None = None,
        limit: int = 50,
    ) -> list[DeliveryInfo]:
        """The newest deliveries first, optionally of one state, platform or channel."""
        if state is not None and state not in DELIVERY_STATES:
            raise ValueError(
                f"unknown delivery state {state!r}; one of {', '.join(DELIVERY_STATES)}"
            )
        query = self._query().order_by(D.id.desc()).limit(limit)
        if state is not None:
            query = query.where(D.state == state)
        if platform is not None:
            query = query.where(D.platform == platform)
        if channel is not None:
            query = query.where(D.channel == channel)
        async with self._db.read() as conn:
            return [_info(row) for row in await conn.execute(query)]

    async def get(self, delivery_id: int) -> DeliveryInfo | None:
        """One delivery, or None."""
        async with self._db.read() as conn:
            row = (await conn.execute(self._query().where(D.id == delivery_id))).one_or_none()
        return None if row is None else _info(row)

    async def counts(self) -> dict[str, int]:
        """How many deliveries are in each state (every state is present, maybe with 0)."""
        query = select(D.state, func.count()).group_by(D.state)
        async with self._db.read() as conn:
            found = {state: count for state, count in await conn.execute(query)}
        return {state: found.get(state, 0) for state in DELIVERY_STATES}
