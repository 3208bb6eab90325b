"""Subscriptions: which channel follows which repository or topic, and what of it (`kind`:
"all", or only its "releases" or "security" fixes)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypedDict

from sqlalchemy import ColumnElement, delete, func, select, update

from bot.store.database import Database
from bot.store.engine import insert_for
from bot.store.records import KINDS, Subscription
from bot.store.tables import SubscriptionRow as S
from bot.store.types import AnyRow, utcnow


class SubscriptionTarget(TypedDict):
    """What `same_target` selects by: one channel's subscription to (repo, topic) of `kind`."""

    platform: str
    workspace: str
    channel: str
    repo: str | None
    topic: str | None
    kind: str | None


def same_target(
    *,
    platform: str,
    workspace: str,
    channel: str,
    repo: str | None,
    topic: str | None,
    kind: str | None = "all",
) -> ColumnElement[bool]:
    """The condition that selects one channel's subscription to (repo, topic) of `kind`
    (None: of any kind)."""
    condition = (
        (S.platform == platform)
        & (S.workspace == workspace)
        & (S.channel == channel)
        & (func.coalesce(S.repo, "") == (repo or ""))
        & (func.coalesce(S.topic, "") == (topic or ""))
    )
    return condition if kind is None else condition & (S.kind == kind)


def subscription_of(row: AnyRow) -> Subscription:
    """The record of one subscriptions row."""
    return Subscription(
        id=row.id,
        platform=row.platform,
        workspace=row.workspace,
        channel=row.channel,
        repo=row.repo,
        topic=row.topic,
        excludes=tuple(row.excludes or ()),
        created_by=row.created_by,
        created_at=row.created_at,
        kind=row.kind,
    )


class Subscriptions:
    """Add, remove and list subscriptions; (platform, workspace, channel, repo, topic, kind)
    is unique."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def add(
        self,
        *,
        platform: str,
        workspace: str,
        channel: str,
        repo: str | None = None,
        topic: str | None = None,
        excludes: Iterable[str] = (),
        created_by: str = "",
        kind: str = "all",
    ) -> tuple[Subscription, bool]:
        """Subscribe a channel; returns the subscription and False if it already existed."""
        if repo is None and topic is None:
            raise ValueError("a subscription needs a repository, a topic, or both")
        if kind not in KINDS:
            raise ValueError(f"a subscription's kind is one of {', '.join(KINDS)}, not {kind!r}")
        target = SubscriptionTarget(
            platform=platform,
            workspace=workspace,
            channel=channel,
            repo=repo,
            topic=topic,
            kind=kind,
        )
        insert = insert_for(self._db.engine)
        statement = (
            insert(S)
            .values(**target, excludes=list(excludes), created_by=created_by, created_at=utcnow())
            .on_conflict_do_nothing()
        )
        async with self._db.begin() as conn:
            created = (await conn.execute(statement)).rowcount == 1
            row = (await conn.execute(select(S.__table__).where(same_target(**target)))).one()
        return subscription_of(row), created

    async def set_excludes(self, subscription_id: int, excludes: Iterable[str]) -> bool:
        """Replace a subscription's exclusions (e.g. ["author:pytorchbot", "topic:docs"])."""
        async with self._db.begin() as conn:
            result = await conn.execute(
                update(S).where(S.id == subscription_id).values(excludes=list(excludes))
            )
        return result.rowcount == 1

    async def remove(
        self,
        *,
        platform: str,
        workspace: str,
        channel: str,
        repo: str | None = None,
        topic: str | None = None,
        kind: str | None = None,
    ) -> bool:
        """Unsubscribe from (repo, topic) of `kind`, or of every kind when None; returns
        False when there was no such subscription."""
        target = SubscriptionTarget(
            platform=platform,
            workspace=workspace,
            channel=channel,
            repo=repo,
            topic=topic,
            kind=kind,
        )
        async with self._db.begin() as conn:
            result = await conn.execute(delete(S).where(same_target(**target)))
        return result.rowcount > 0

    async def rename_repo(self, old: str, new: str) -> int:
        """Point every subscription of `old` (any case) at `new`, a renamed repository; a
        channel that already follows `new` the same way keeps that one. Returns how many
        moved."""
        async with self._db.begin() as conn:
            rows = (
                await conn.execute(select(S.__table__).where(func.lower(S.repo) == old.lower()))
            ).all()
            moved = 0
            for row in rows:
                taken = same_target(
                    platform=row.platform,
                    workspace=row.workspace,
                    channel=row.channel,
                    repo=new,
                    topic=row.topic,
                    kind=row.kind,
                )
                if (await conn.execute(select(S.id).where(taken))).first() is not None:
                    await conn.execute(delete(S).where(S.id == row.id))
                else:
                    await conn.execute(update(S).where(S.id == row.id).values(repo=new))
                    moved += 1
        return moved

    async def list(
        self,
        *,
        platform: str | None = None,
        workspace: str | None = None,
        channel: str | None = None,
    ) -> list[Subscription]:
        """Subscriptions, optionally of one platform, workspace or channel, oldest first."""
        query = select(S.__table__).order_by(S.id)
        if platform is not None:
            query = query.where(S.platform == platform)
        if workspace is not None:
            query = query.where(S.workspace == workspace)
        if channel is not None:
            query = query.where(S.channel == channel)
        async with self._db.read() as conn:
            return [subscription_of(row) for row in await conn.execute(query)]
