"""The story archive: listed stories newest first, a page at a time, by project and topic.

A story is listed when it has news and its checks passed (`is_listed`); stories of hidden
repositories (private projects, for a reader without the access token) are left out of
every page and count. Saving a story (`bot.store.stories.save_story_on`) copies its topic
and repositories into indexed columns, so a page is one indexed query however many stories
the store holds.

    page = await store.archive.page(repo="pytorch/executorch", hidden=("acme/secret",),
                                    offset=0, limit=20)
    page.stories, page.total
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy import func, select, true
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.database import Database
from bot.store.engine import insert_for
from bot.store.tables import StoryRepoRow as SR
from bot.store.tables import StoryRow as S
from bot.store.types import AnySelect
from digest.model import Story


def is_listed(story: Story) -> bool:
    """Whether the archive lists `story`: it has news, and its checks passed (or never ran)."""
    return not story.is_empty and (story.checks is None or story.checks.passed)


async def index_story_on(conn: AsyncConnection, story: Story) -> None:
    """Record the repositories of a just-saved story (inside the saving transaction)."""
    repos = dict.fromkeys(repo.lower() for repo in story.repos)
    rows = [{"story_id": story.id, "repo": repo} for repo in repos]
    if rows:
        insert = insert_for(conn.engine)
        await conn.execute(insert(SR).on_conflict_do_nothing(), rows)


@dataclass(frozen=True, slots=True)
class ArchivePage:
    """One page of listed stories, newest first; `more` when older ones follow."""

    stories: tuple[Story, ...]
    more: bool


class StoryArchive:
    """Read the listed stories by page, project and topic; see the module docstring."""

    def __init__(self, db: Database) -> None:
        self._db = db

    @staticmethod
    def _where(
        query: AnySelect, *, repo: str | None, topic: str | None, hidden: Collection[str]
    ) -> AnySelect:
        # Uncorrelated subqueries over story_repos' index, and the rest of the filter on
        # ix_stories_listed, which covers it: a count reads no story row.
        query = query.where(S.listed == true())
        if repo is not None:
            query = query.where(S.id.in_(select(SR.story_id).where(SR.repo == repo.lower())))
        if topic is not None:
            query = query.where(func.lower(S.topic) == topic.lower())
        if hidden:
            lowered = sorted({r.lower() for r in hidden})
            query = query.where(S.id.not_in(select(SR.story_id).where(SR.repo.in_(lowered))))
        return query

    async def page(
        self,
        *,
        repo: str | None = None,
        topic: str | None = None,
        hidden: Collection[str] = (),
        offset: int = 0,
        limit: int = 20,
    ) -> ArchivePage:
        """Listed stories newest first: `limit` of them from `offset`, only those covering
        `repo` and of `topic` when given, none covering a `hidden` repo (names
        case-insensitive). No total is counted: that would read every matching entry."""
        rows = (
            self._where(select(S.json), repo=repo, topic=topic, hidden=hidden)
            .order_by(S.created_at.desc(), S.id.desc())
            .offset(max(offset, 0))
            .limit(limit + 1)
        )
        async with self._db.read() as conn:
            found = (await conn.execute(rows)).scalars().all()
        stories = tuple(Story.model_validate_json(raw) for raw in found[:limit])
        return ArchivePage(stories, more=len(found) > limit)

    async def topics(self, *, hidden: Collection[str] = ()) -> list[str]:
        """The topics of listed stories (not of hidden repositories), sorted."""
        query = self._where(select(S.topic).distinct(), repo=None, topic=None, hidden=hidden).where(
            S.topic.is_not(None)
        )
        async with self._db.read() as conn:
            return sorted((await conn.execute(query)).scalars().all(), key=str.lower)
