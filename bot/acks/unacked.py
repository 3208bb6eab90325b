"""A read the store does not offer: a channel's posted action items that nobody acknowledged.

(`Store.acks.unacked_items` leaves out items already reminded about; the next digest lists
those too.)
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import exists, func, select

from bot.store import ItemMessage, Store
from bot.store.acks import ITEM_COLUMNS
from bot.store.tables import AckRow as A
from bot.store.tables import DeliveryRow as D
from bot.store.tables import PostedPartRow as P


async def unacknowledged_items(
    store: Store, *, platform: str, channel: str, since: datetime
) -> list[ItemMessage]:
    """Each action item posted in the channel, first after `since`, with no ack there; one
    row per item (its newest message), oldest item first."""
    acked = exists().where((A.item_id == P.item_id) & (A.channel == D.channel))
    first_posted = func.min(P.posted_at)
    items = (
        select(P.item_id, first_posted.label("first"), func.max(P.id).label("newest"))
        .join(D, D.id == P.delivery_id)
        .where(P.item_id.is_not(None) & (D.platform == platform) & (D.channel == channel) & ~acked)
        .group_by(P.item_id)
        .having(first_posted >= since)
        .subquery()
    )
    query = (
        select(*ITEM_COLUMNS)
        .join(D, D.id == P.delivery_id)
        .join(items, items.c.newest == P.id)
        .order_by(items.c.first, P.id)
    )
    async with store.engine.connect() as conn:
        return [ItemMessage(**row._asdict()) for row in await conn.execute(query)]
