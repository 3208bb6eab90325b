"""Open projects: repositories added from chat, one row each (see `OpenProjectRow`).

    project, created = await store.open_projects.add(OpenProject.new(...))
    await store.open_projects.followed(["astral-sh/uv"], now=now)
    dropped = await store.open_projects.drop_unfollowed(before=now - timedelta(days=30))

Adding is an insert that does nothing on a conflict, so two replicas adding the same
repository at once leave one row and both read it back. A repository withdrawn (GitHub no
longer calls it public) loses its row and is remembered in `withdrawn_repos` until it is
admitted again.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.database import Database
from bot.store.engine import insert_for
from bot.store.tables import OpenProjectRow as O
from bot.store.tables import WithdrawnRepoRow as W
from bot.store.types import AnyRow, utcnow


@dataclass(frozen=True, slots=True)
class OpenProject:
    """A repository added from chat: its name as GitHub spells it, its default branch, its
    source (`github:OWNER/REPO`) and the automatic topics seen so far."""

    repo: str
    name: str
    default_branch: str
    source: str
    topics: tuple[str, ...] = ()
    added_by: str = ""
    added_at: datetime = field(default_factory=utcnow)
    followed_at: datetime = field(default_factory=utcnow)
    etag: str | None = None

    @property
    def key(self) -> str:
        """The repository in lower case: how rows are told apart."""
        return self.repo.lower()


async def insert_open_project(conn: AsyncConnection, project: OpenProject) -> bool:
    """Insert `project` in the open transaction `conn` unless its repository is stored; it
    is no longer withdrawn. True when this call created the row."""
    insert = insert_for(conn.engine)
    statement = (
        insert(O)
        .values(
            key=project.key,
            repo=project.repo,
            name=project.name,
            default_branch=project.default_branch,
            source=project.source,
            topics=list(project.topics),
            etag=project.etag,
            added_by=project.added_by,
            added_at=project.added_at,
            followed_at=project.followed_at,
        )
        .on_conflict_do_nothing()
    )
    created = (await conn.execute(statement)).rowcount == 1
    await conn.execute(delete(W).where(W.key == project.key))
    return created


def _record(row: AnyRow) -> OpenProject:
    return OpenProject(
        repo=row.repo,
        name=row.name,
        default_branch=row.default_branch,
        source=row.source,
        topics=tuple(row.topics or ()),
        added_by=row.added_by,
        added_at=row.added_at,
        followed_at=row.followed_at,
        etag=row.etag,
    )


class OpenProjects:
    """Add, read, re-tag and drop open projects."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def add(self, project: OpenProject) -> tuple[OpenProject, bool]:
        """Store `project` unless its repository is stored already; returns the stored row
        and whether this call created it."""
        async with self._db.begin() as conn:
            created = await insert_open_project(conn, project)
            row = (await conn.execute(select(O.__table__).where(O.key == project.key))).one()
        return _record(row), created

    async def get(self, repo: str) -> OpenProject | None:
        """The open project of `repo` (any case), or None."""
        async with self._db.read() as conn:
            query = select(O.__table__).where(O.key == repo.lower())
            row = (await conn.execute(query)).one_or_none()
        return _record(row) if row is not None else None

    async def list(self) -> list[OpenProject]:
        """Every open project, in order of repository."""
        async with self._db.read() as conn:
            rows = await conn.execute(select(O.__table__).order_by(O.key))
            return [_record(row) for row in rows]

    async def count(self) -> int:
        """How many open projects are stored."""
        async with self._db.read() as conn:
            return int((await conn.execute(select(func.count()).select_from(O))).scalar_one())

    async def update(
        self, repo: str, *, topics: Iterable[str] | None = None, etag: str | None = None
    ) -> None:
        """Replace the project's topics and/or the ETag of its last `GET /repos` answer."""
        given: dict[str, object] = {}
        if topics is not None:
            given["topics"] = list(topics)
        if etag is not None:
            given["etag"] = etag
        if given:
            async with self._db.begin() as conn:
                await conn.execute(update(O).where(O.key == repo.lower()).values(**given))

    async def followed(self, repos: Iterable[str], *, now: datetime) -> None:
        """Note that channels follow `repos` at `now`."""
        keys = [r.lower() for r in repos]
        if keys:
            async with self._db.begin() as conn:
                await conn.execute(update(O).where(O.key.in_(keys)).values(followed_at=now))

    async def rename(self, old: str, project: OpenProject) -> None:
        """Store `project` (a renamed or transferred repository) in place of `old`."""
        async with self._db.begin() as conn:
            await conn.execute(delete(O).where(O.key == old.lower()))
        await self.add(replace(project, source=f"github:{project.repo}"))

    async def remove(self, repo: str) -> bool:
        """Drop the open project of `repo`; False when there was none."""
        async with self._db.begin() as conn:
            result = await conn.execute(delete(O).where(O.key == repo.lower()))
        return result.rowcount > 0

    async def withdraw(self, repo: str, *, now: datetime) -> None:
        """Drop the open project of `repo` and remember it as withdrawn, so the archive
        hides its stories from readers without the web token."""
        insert = insert_for(self._db.engine)
        mark = insert(W).values(key=repo.lower(), repo=repo, withdrawn_at=now)
        async with self._db.begin() as conn:
            await conn.execute(delete(O).where(O.key == repo.lower()))
            await conn.execute(mark.on_conflict_do_nothing())

    async def withdrawn(self) -> frozenset[str]:
        """The repositories withdrawn and not admitted again, in lower case."""
        async with self._db.read() as conn:
            return frozenset((await conn.execute(select(W.key))).scalars())

    async def drop_unfollowed(self, *, before: datetime) -> builtins.list[str]:
        """Drop every open project last followed before `before`; returns their repositories."""
        async with self._db.begin() as conn:
            query = select(O.repo).where(O.followed_at < before)
            gone = [row.repo for row in await conn.execute(query)]
            if gone:
                await conn.execute(delete(O).where(O.followed_at < before))
        return gone
