"""One read per repository and window in a scheduling pass, however many filters need it.

Channels whose filters differ (ExecuTorch alone, ExecuTorch with ci-infra, ExecuTorch
without docs) still read ExecuTorch's window once: `SharedReads` wraps the pass's
`source_for` and keeps each (source, window)'s activity for the rest of the pass. Two
filters asking at once wait for the one read.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from bot.schedule.newsroom import SourceFor
from digest.config import Project
from digest.model import Activity, Window
from digest.sources import Source


class SharedReads:
    """A `SourceFor` whose sources share their reads for as long as this object lives."""

    def __init__(self, source_for: SourceFor) -> None:
        self.source_for = source_for
        self.reads = 0  # reads that went to a source
        self._kept: dict[tuple[str, str, Window], list[Activity]] = {}
        self._locks: dict[tuple[str, str, Window], asyncio.Lock] = {}

    def __call__(self, project: Project) -> Source:
        return _SharedSource(self, self.source_for(project), project.repo.lower())

    async def read(self, source: Source, window: Window, repo: str) -> list[Activity]:
        """The activity of `repo`'s `source` in `window`, read once (one file may be the
        source of several repositories, so the repository is part of the key)."""
        key = (repo, source.description, window)
        async with self._locks.setdefault(key, asyncio.Lock()):
            if key not in self._kept:
                self._kept[key] = [a async for a in source.fetch(window)]
                self.reads += 1
        return self._kept[key]


class _SharedSource:
    def __init__(self, shared: SharedReads, inner: Source, repo: str) -> None:
        self._shared = shared
        self._inner = inner
        self._repo = repo

    @property
    def description(self) -> str:
        return self._inner.description

    async def fetch(self, window: Window) -> AsyncIterator[Activity]:
        for activity in await self._shared.read(self._inner, window, self._repo):
            yield activity
