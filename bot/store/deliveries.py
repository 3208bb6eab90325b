"""The delivery outbox: enqueue, claim with a lease, record posted parts, finish or fail.

Claiming is one statement on both backends: `UPDATE … WHERE id IN (SELECT … LIMIT n
FOR UPDATE SKIP LOCKED) RETURNING …`. PostgreSQL skips rows another worker has locked;
SQLite has no row locks but runs the statement under `BEGIN IMMEDIATE`, which serializes
writers, so two workers never claim the same row there either.

Each new pending row rings `arrivals`, so a worker of this process that is waiting for its
next poll claims it at once (a bulletin, a story); workers of other processes find it at
their next poll.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from datetime import datetime, timedelta

from sqlalchemy import Update, and_, bindparam, or_, select, update

from bot.errors import LeaseLostError, UnknownDeliveryError
from bot.store.database import Database
from bot.store.engine import insert_for
from bot.store.records import Claim, Enqueued, PostedPart
from bot.store.stories import save_story_on
from bot.store.tables import DeliveryRow as D
from bot.store.tables import PostedPartRow as P
from bot.store.types import utcnow
from digest.model import Story


def check_failure(story: Story) -> str | None:
    """Why `story` must not be delivered, or None when its checks passed or never ran."""
    if story.checks is None or story.checks.passed:
        return None
    return "story failed its checks: " + "; ".join(story.checks.problems)


class Deliveries:
    """The outbox rows and the parts posted for them."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self.arrivals = asyncio.Event()  # set by each enqueue that queued a pending row
        # The statements of the hot path are built once: each part costs one transaction.
        mine = update(D).where(
            (D.id == bindparam("did"))
            & (D.claimed_by == bindparam("wid"))
            & (D.state == "in_progress")
        )
        self._insert_part = insert_for(db.engine)(P).on_conflict_do_nothing(
            index_elements=["delivery_id", "part_index"]
        )
        self._renew = mine.values(claimed_until=bindparam("until"))
        self._deliver = mine.values(
            state="delivered",
            delivered_at=bindparam("at"),
            last_error=None,
            claimed_by=None,
            claimed_until=None,
        )

    async def enqueue(
        self, story: Story, *, platform: str, workspace: str, channel: str
    ) -> Enqueued:
        """Save `story` and queue it for one channel; the same (story, platform, channel) twice
        is a no-op that returns the existing delivery.

        A story whose checks failed is dead-lettered here, with the reason as its error, so
        it shows in `wire deliveries` and no worker ever posts it.
        """
        failure = check_failure(story)
        now = utcnow()
        insert = insert_for(self._db.engine)
        statement = insert(D).values(
            story_id=story.id,
            platform=platform,
            workspace=workspace,
            channel=channel,
            state="dead" if failure else "pending",
            attempts=0,
            next_attempt_at=now,
            last_error=failure,
            created_at=now,
        )
        statement = statement.on_conflict_do_nothing(
            index_elements=["story_id", "platform", "channel"]
        )
        key = (D.story_id == story.id) & (D.platform == platform) & (D.channel == channel)
        async with self._db.begin() as conn:
            await save_story_on(conn, story)
            created = (await conn.execute(statement)).rowcount == 1
            row = (await conn.execute(select(D.id, D.state).where(key))).one()
        if created and row.state == "pending":
            self.arrivals.set()
        return Enqueued(id=row.id, created=created, state=row.state)

    async def claim_due(
        self,
        *,
        worker_id: str,
        limit: int,
        lease: timedelta,
        platforms: Collection[str] | None = None,
        exclude: Collection[int] = (),
    ) -> list[Claim]:
        """Claim up to `limit` due deliveries for `worker_id` until now + `lease`.

        Due: pending with `next_attempt_at` reached, or in progress under an expired lease
        (its worker died). Each claim counts as an attempt. Oldest due first. The ids in
        `exclude` are never claimed: the caller still holds them (a delivery in flight
        whose lease ran out), and a second claim under the same worker id would let two
        tasks post the same parts.
        """
        now = utcnow()
        due = or_(
            and_(D.state == "pending", D.next_attempt_at <= now),
            and_(D.state == "in_progress", D.claimed_until < now),
        )
        candidates = select(D.id).where(due)
        if platforms is not None:
            candidates = candidates.where(D.platform.in_(list(platforms)))
        if exclude:
            candidates = candidates.where(D.id.not_in(list(exclude)))
        candidates = (
            candidates.order_by(D.next_attempt_at, D.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        statement = (
            update(D)
            .where(D.id.in_(candidates.scalar_subquery()))
            .values(
                state="in_progress",
                claimed_by=worker_id,
                claimed_until=now + lease,
                attempts=D.attempts + 1,
            )
            .returning(D.id, D.story_id, D.platform, D.workspace, D.channel, D.attempts)
        )
        async with self._db.begin() as conn:
            rows = (await conn.execute(statement)).all()
        claims = [Claim(**row._asdict()) for row in rows]
        return sorted(claims, key=lambda claim: claim.id)

    async def posted_parts(self, delivery_id: int) -> list[PostedPart]:
        """The parts already posted for a delivery, by index."""
        return (await self.posted_parts_of([delivery_id]))[delivery_id]

    async def posted_parts_of(self, delivery_ids: Collection[int]) -> dict[int, list[PostedPart]]:
        """The parts already posted for each of several deliveries (one query), by index."""
        query = (
            select(P.delivery_id, P.part_index, P.message_id, P.thread_id, P.item_id, P.posted_at)
            .where(P.delivery_id.in_(list(delivery_ids)))
            .order_by(P.delivery_id, P.part_index)
        )
        found: dict[int, list[PostedPart]] = {delivery_id: [] for delivery_id in delivery_ids}
        async with self._db.read() as conn:
            for row in await conn.execute(query):
                values = row._asdict()
                found[values.pop("delivery_id")].append(PostedPart(**values))
        return found

    async def record_part(
        self,
        delivery_id: int,
        *,
        worker_id: str,
        part_index: int,
        message_id: str,
        thread_id: str | None,
        item_id: str | None = None,
        lease: timedelta | None = None,
        last: bool = False,
    ) -> None:
        """Record a posted part in its own transaction; with `lease`, extend the worker's
        claim to now + lease; with `last`, also mark the delivery delivered.

        The part is recorded even when the claim was lost (it *was* posted); when renewing
        or finishing finds the claim gone, the worker gets `LeaseLostError` and must stop.
        """
        now = utcnow()
        part = dict(
            delivery_id=delivery_id,
            part_index=part_index,
            message_id=message_id,
            thread_id=thread_id,
            item_id=item_id,
            posted_at=now,
        )
        claim = None
        if last:
            claim = (self._deliver, {"did": delivery_id, "wid": worker_id, "at": now})
        elif lease is not None:
            claim = (self._renew, {"did": delivery_id, "wid": worker_id, "until": now + lease})
        async with self._db.begin() as conn:
            await conn.execute(self._insert_part, part)
            held = claim is None or (await conn.execute(*claim)).rowcount == 1
        if not held:
            raise LeaseLostError(delivery_id, worker_id)

    async def finish(self, delivery_id: int, *, worker_id: str) -> None:
        """Mark a claimed delivery delivered."""
        await self._settle(
            delivery_id, worker_id, state="delivered", delivered_at=utcnow(), last_error=None
        )

    async def retry_later(
        self, delivery_id: int, *, worker_id: str, error: str, at: datetime
    ) -> None:
        """Give a claimed delivery back, due again at `at`, keeping `error`."""
        await self._settle(
            delivery_id, worker_id, state="pending", next_attempt_at=at, last_error=error
        )

    async def release(self, delivery_id: int, *, worker_id: str) -> None:
        """Give a claimed delivery back untried (the worker is stopping): due now, the
        attempt not counted."""
        await self._settle(
            delivery_id,
            worker_id,
            state="pending",
            next_attempt_at=utcnow(),
            attempts=D.attempts - 1,
        )

    async def dead_letter(self, delivery_id: int, *, worker_id: str | None, error: str) -> None:
        """Stop trying a delivery for good, keeping `error`; None as worker forces it."""
        if worker_id is not None:
            await self._settle(delivery_id, worker_id, state="dead", last_error=error)
            return
        statement = (
            update(D)
            .where(D.id == delivery_id)
            .values(state="dead", last_error=error, claimed_by=None, claimed_until=None)
        )
        async with self._db.begin() as conn:
            if (await conn.execute(statement)).rowcount != 1:
                raise UnknownDeliveryError(delivery_id)

    async def requeue(self, delivery_id: int) -> None:
        """Make a dead (or any) delivery due now with a fresh attempt count; posted parts stay
        recorded, so only the missing ones will be posted."""
        statement = (
            update(D)
            .where(D.id == delivery_id)
            .values(
                state="pending",
                attempts=0,
                next_attempt_at=utcnow(),
                claimed_by=None,
                claimed_until=None,
            )
        )
        async with self._db.begin() as conn:
            if (await conn.execute(statement)).rowcount != 1:
                raise UnknownDeliveryError(delivery_id)

    def _mine(self, delivery_id: int, worker_id: str) -> Update:
        return update(D).where(
            (D.id == delivery_id) & (D.claimed_by == worker_id) & (D.state == "in_progress")
        )

    async def _settle(self, delivery_id: int, worker_id: str, **values: object) -> None:
        statement = self._mine(delivery_id, worker_id).values(
            claimed_by=None, claimed_until=None, **values
        )
        async with self._db.begin() as conn:
            settled = (await conn.execute(statement)).rowcount == 1
        if not settled:
            raise LeaseLostError(delivery_id, worker_id)
