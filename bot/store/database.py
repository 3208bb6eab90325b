"""Transactions for the repositories: pooled on PostgreSQL, one held connection on SQLite.

SQLite admits one writer at a time, and every transaction here starts `BEGIN IMMEDIATE`,
so a process gains nothing from several SQLite connections: they would only wait on each
other's lock. Instead the process keeps one connection and queues its transactions on an
asyncio lock, which also skips the pool's check-out and check-in round trips to the
driver's thread (about 3× the transactions per second). Transactions must not nest.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine


class Database:
    """Hands out transactions on an engine; `close()` releases every connection."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._shared = engine.dialect.name == "sqlite"
        self._lock = asyncio.Lock()
        self._conn: AsyncConnection | None = None

    @asynccontextmanager
    async def begin(self) -> AsyncIterator[AsyncConnection]:
        """A transaction, committed when the block ends and rolled back if it raises."""
        if not self._shared:
            async with self.engine.begin() as conn:
                yield conn
            return
        async with self._lock:
            if self._conn is None or self._conn.closed or self._conn.invalidated:
                self._conn = await self.engine.connect()
            async with self._conn.begin():
                yield self._conn

    read = begin

    async def close(self) -> None:
        """Close the held connection and dispose of the pool."""
        async with self._lock:
            if self._conn is not None:
                await self._conn.close()
                self._conn = None
        await self.engine.dispose()
