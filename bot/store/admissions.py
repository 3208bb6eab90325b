"""One `/wire subscribe` command, stored whole or not at all, against the caps.

    outcome = await store.admissions.subscribe(
        where, targets=[("astral-sh/uv", None)], projects=[uv], excludes=(),
        created_by="alice", caps=Caps(per_channel=5, total=40),
    )
    if isinstance(outcome, CapReached): ...   # nothing was stored

The caps of open subscriptions are counted and the command's rows written in one
transaction that no other admission runs beside: on PostgreSQL it first takes a
transaction-level advisory lock, on SQLite every transaction is `BEGIN IMMEDIATE` already,
which admits one writer at a time. So fifty commands at once, on one replica or several,
can never together pass a cap that each alone would respect, and a command naming several
repositories is refused as a whole when its sum would pass one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import delete, func, select, text, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.database import Database
from bot.store.engine import insert_for
from bot.store.open_projects import OpenProject, insert_open_project
from bot.store.records import Subscription
from bot.store.subscriptions import SubscriptionTarget, same_target, subscription_of
from bot.store.tables import OpenProjectRow as O
from bot.store.tables import SubscriptionRow as S
from bot.store.types import utcnow

ADMISSION_LOCK_KEY = 0x57495245_00000A  # distinct from the leader's and the front ends'


@dataclass(frozen=True, slots=True)
class Where:
    """The channel a command was typed in."""

    platform: str
    workspace: str
    channel: str


@dataclass(frozen=True, slots=True)
class Caps:
    """`[subscribing] per_channel` and `total`."""

    per_channel: int
    total: int


@dataclass(frozen=True, slots=True)
class CapReached:
    """The command would pass a cap: which one, and the cap's value."""

    cap: Literal["per_channel", "total"]
    limit: int


@dataclass(frozen=True, slots=True)
class Subscribed:
    """One target of the command once stored: its subscription, whether this command
    created it, and whether its exclusions were replaced. A full subscription covers the
    repository's releases and security fixes: `covered` when the command asked for one of
    those and the channel follows the repository in full already (`subscription` is that
    one, unchanged); `replaced`, the kinds a new full subscription took the place of."""

    subscription: Subscription
    created: bool
    excludes_changed: bool
    covered: bool = False
    replaced: tuple[str, ...] = ()


class Admissions:
    """Stores a subscribe command's open projects and subscriptions in one transaction."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def subscribe(
        self,
        where: Where,
        *,
        targets: Sequence[tuple[str | None, str | None]],
        projects: Iterable[OpenProject],
        excludes: Sequence[str],
        created_by: str,
        caps: Caps,
        kind: str = "all",
    ) -> list[Subscribed] | CapReached:
        """Subscribe the channel to every (repo, topic) of `targets` (of `kind`), storing
        the open `projects` they need, or nothing at all when a cap would be passed. The
        caps hold only for a command that brings the channel a repository added from chat."""
        projects = list(projects)
        async with self._db.begin() as conn:
            if conn.dialect.name == "postgresql":
                await conn.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": ADMISSION_LOCK_KEY}
                )
            if reached := await _cap_reached(conn, where, targets, projects, caps):
                return reached
            for project in projects:
                await insert_open_project(conn, project)
            return [
                await _subscribe_one(conn, where, (repo, topic, kind), excludes, created_by)
                for repo, topic in dict.fromkeys(targets)
            ]


async def _cap_reached(
    conn: AsyncConnection,
    where: Where,
    targets: Sequence[tuple[str | None, str | None]],
    projects: list[OpenProject],
    caps: Caps,
) -> CapReached | None:
    stored = set((await conn.execute(select(O.key))).scalars())
    open_keys = stored | {p.key for p in projects}
    wanted = {repo.lower() for repo, _ in targets if repo}
    in_channel = (
        select(func.lower(S.repo))
        .where(S.platform == where.platform)
        .where(S.workspace == where.workspace)
        .where(S.channel == where.channel)
        .where(S.repo.is_not(None))
    )
    followed = set((await conn.execute(in_channel)).scalars())
    if not (wanted - followed) & open_keys:
        return None  # nothing new from chat for this channel: the caps are not asked
    if len(followed | wanted) > caps.per_channel:
        return CapReached("per_channel", caps.per_channel)
    if open_keys - stored and len(open_keys) > caps.total:
        return CapReached("total", caps.total)
    return None


async def _subscribe_one(
    conn: AsyncConnection,
    where: Where,
    what: tuple[str | None, str | None, str],
    excludes: Sequence[str],
    created_by: str,
) -> Subscribed:
    repo, topic, kind = what
    target = SubscriptionTarget(
        platform=where.platform,
        workspace=where.workspace,
        channel=where.channel,
        repo=repo,
        topic=topic,
        kind=kind,
    )
    full_target: SubscriptionTarget = {**target, "kind": "all"}
    full = select(S.__table__).where(same_target(**full_target))
    if kind != "all" and (covering := (await conn.execute(full)).first()) is not None:
        return Subscribed(subscription_of(covering), False, False, covered=True)
    insert = insert_for(conn.engine)
    statement = (
        insert(S)
        .values(**target, excludes=list(excludes), created_by=created_by, created_at=utcnow())
        .on_conflict_do_nothing()
    )
    created = (await conn.execute(statement)).rowcount == 1
    row = (await conn.execute(select(S.__table__).where(same_target(**target)))).one()
    changed = not created and set(row.excludes or ()) != set(excludes)
    if changed:
        await conn.execute(update(S).where(S.id == row.id).values(excludes=list(excludes)))
        row = (await conn.execute(select(S.__table__).where(S.id == row.id))).one()
    replaced: tuple[str, ...] = ()
    if kind == "all":  # the full subscription tells releases and security fixes too
        any_kind: SubscriptionTarget = {**target, "kind": None}
        narrower = same_target(**any_kind) & (S.kind != "all")
        replaced = tuple((await conn.execute(select(S.kind).where(narrower))).scalars())
        await conn.execute(delete(S).where(narrower))
    return Subscribed(subscription_of(row), created, changed, replaced=replaced)
