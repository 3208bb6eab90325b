"""GitHub webhook deliveries as received, and the changes real-time handling has seen.

A delivery is stored before GitHub gets its answer, unique on its `X-GitHub-Delivery` id, so
a redelivery is recognised and a crash after the answer loses nothing: whatever is still
`pending` is claimed again (with a lease, so two replicas never work on one event at once)
when a processor starts. `realtime_changes` remembers each (repository, commit) that was
handled, whether a webhook or a poll brought it, so one landed change is judged once.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import JSON, Index, Integer, String, Text, and_, func, or_, select, update
from sqlalchemy.orm import Mapped, mapped_column

from bot.store.database import Database
from bot.store.engine import insert_for
from bot.store.tables import Base
from bot.store.types import utcnow

EVENT_STATES = ("pending", "done", "ignored", "failed")


class WebhookEventRow(Base):
    """One webhook delivery: what it said (`hint`, the few fields handling needs) and how
    far its handling got."""

    __tablename__ = "webhook_events"
    __table_args__ = (
        Index("ix_webhook_events_due", "state", "next_attempt_at"),
        Index("ix_webhook_events_repo", "repo", "received_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    delivery_id: Mapped[str] = mapped_column(String(100), unique=True)
    event: Mapped[str] = mapped_column(String(64))
    repo: Mapped[str | None] = mapped_column(String(200))
    hint: Mapped[dict[str, Any]] = mapped_column(JSON)
    state: Mapped[str] = mapped_column(String(16), default="pending")
    attempts: Mapped[int] = mapped_column(default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(default=utcnow)
    claimed_until: Mapped[datetime | None]
    last_error: Mapped[str | None] = mapped_column(Text)
    received_at: Mapped[datetime] = mapped_column(default=utcnow)
    processed_at: Mapped[datetime | None]


class RealtimeChangeRow(Base):
    """A landed change that real-time handling has judged (bulletin or not)."""

    __tablename__ = "realtime_changes"

    repo: Mapped[str] = mapped_column(String(200), primary_key=True)
    sha: Mapped[str] = mapped_column(String(64), primary_key=True)
    via: Mapped[str] = mapped_column(String(16))
    seen_at: Mapped[datetime] = mapped_column(default=utcnow)


@dataclass(frozen=True, slots=True)
class WebhookEvent:
    """A stored delivery; `attempts` counts the current claim too."""

    id: int
    delivery_id: str
    event: str
    repo: str | None
    hint: dict[str, Any]
    state: str
    attempts: int
    received_at: datetime


_COLUMNS = (
    WebhookEventRow.id,
    WebhookEventRow.delivery_id,
    WebhookEventRow.event,
    WebhookEventRow.repo,
    WebhookEventRow.hint,
    WebhookEventRow.state,
    WebhookEventRow.attempts,
    WebhookEventRow.received_at,
)


class WebhookEvents:
    """Record deliveries once, claim the pending ones, settle them."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def record(
        self,
        *,
        delivery_id: str,
        event: str,
        repo: str | None,
        hint: dict[str, Any],
        state: str = "pending",
    ) -> bool:
        """Store a delivery; False when this delivery id was stored before (a redelivery)."""
        now = utcnow()
        statement = (
            insert_for(self._db.engine)(WebhookEventRow)
            .values(
                delivery_id=delivery_id,
                event=event,
                repo=repo,
                hint=hint,
                state=state,
                attempts=0,
                next_attempt_at=now,
                received_at=now,
                processed_at=None if state == "pending" else now,
            )
            .on_conflict_do_nothing(index_elements=["delivery_id"])
        )
        async with self._db.begin() as conn:
            return (await conn.execute(statement)).rowcount == 1

    async def get(self, delivery_id: str) -> WebhookEvent | None:
        """The stored delivery with this id, or None."""
        query = select(*_COLUMNS).where(WebhookEventRow.delivery_id == delivery_id)
        async with self._db.read() as conn:
            row = (await conn.execute(query)).one_or_none()
        return None if row is None else WebhookEvent(**row._asdict())

    async def claim_due(self, *, limit: int, lease: timedelta) -> list[WebhookEvent]:
        """Claim up to `limit` pending deliveries that are due and not claimed by a live
        processor, until now + `lease`; oldest first. Each claim counts as an attempt."""
        now = utcnow()
        row = WebhookEventRow
        due = and_(
            row.state == "pending",
            row.next_attempt_at <= now,
            or_(row.claimed_until.is_(None), row.claimed_until < now),
        )
        candidates = (
            select(row.id)
            .where(due)
            .order_by(row.next_attempt_at, row.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        statement = (
            update(row)
            .where(row.id.in_(candidates.scalar_subquery()))
            .values(claimed_until=now + lease, attempts=row.attempts + 1)
            .returning(*_COLUMNS)
        )
        async with self._db.begin() as conn:
            rows = (await conn.execute(statement)).all()
        return sorted((WebhookEvent(**r._asdict()) for r in rows), key=lambda e: e.id)

    async def release_claims(self) -> int:
        """Forget every claim on pending deliveries (their processors are gone: call it only
        where no other process can be working, as at the start of a single SQLite process)."""
        row = WebhookEventRow
        statement = (
            update(row)
            .where((row.state == "pending") & row.claimed_until.is_not(None))
            .values(claimed_until=None)
        )
        async with self._db.begin() as conn:
            return (await conn.execute(statement)).rowcount

    async def settle(self, event_id: int, *, state: str, error: str | None = None) -> None:
        """End the handling of a delivery: `done`, `ignored` or `failed` (with `error`)."""
        await self._update(
            event_id, state=state, last_error=error, claimed_until=None, processed_at=utcnow()
        )

    async def retry_later(self, event_id: int, *, error: str, at: datetime) -> None:
        """Give a claimed delivery back, due again at `at`, keeping `error`."""
        await self._update(event_id, next_attempt_at=at, last_error=error, claimed_until=None)

    async def _update(self, event_id: int, **values: object) -> None:
        statement = update(WebhookEventRow).where(WebhookEventRow.id == event_id).values(**values)
        async with self._db.begin() as conn:
            await conn.execute(statement)

    async def last_received(self, repos: Collection[str]) -> dict[str, datetime]:
        """When each repository's webhook last delivered anything (repositories that never
        did are missing); names compare case-insensitively."""
        row = WebhookEventRow
        wanted = {repo.lower(): repo for repo in repos}
        query = (
            select(func.lower(row.repo).label("repo"), func.max(row.received_at).label("at"))
            .where(func.lower(row.repo).in_(list(wanted)))
            .group_by(func.lower(row.repo))
        )
        async with self._db.read() as conn:
            found = (await conn.execute(query)).all()
        return {wanted[r.repo]: r.at for r in found if r.at is not None}

    async def counts(self) -> dict[str, int]:
        """How many deliveries are in each state."""
        query = select(WebhookEventRow.state, func.count()).group_by(WebhookEventRow.state)
        async with self._db.read() as conn:
            found = {state: count for state, count in await conn.execute(query)}
        return {state: found.get(state, 0) for state in EVENT_STATES}


class Changes:
    """The landed changes real-time handling has already judged."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def seen(self, repo: str, shas: Iterable[str]) -> set[str]:
        """Which of `shas` of `repo` were judged before."""
        wanted = list(shas)
        if not wanted:
            return set()
        row = RealtimeChangeRow
        query = select(row.sha).where((row.repo == repo.lower()) & row.sha.in_(wanted))
        async with self._db.read() as conn:
            return set((await conn.execute(query)).scalars().all())

    async def mark(self, repo: str, sha: str, *, via: str) -> bool:
        """Remember that `sha` of `repo` was judged; False when it already was."""
        statement = (
            insert_for(self._db.engine)(RealtimeChangeRow)
            .values(repo=repo.lower(), sha=sha, via=via, seen_at=utcnow())
            .on_conflict_do_nothing(index_elements=["repo", "sha"])
        )
        async with self._db.begin() as conn:
            return (await conn.execute(statement)).rowcount == 1
