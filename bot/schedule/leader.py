"""Which replica schedules: the holder of a PostgreSQL advisory lock (SQLite: the one process).

The lock is session-level, taken with `pg_try_advisory_lock` on a dedicated connection
(its own engine without a pool, in autocommit) that stays open for as long as this replica
leads. If the process dies, PostgreSQL drops the session and the lock with it, and another
replica's next `acquire` wins. No home-made coordination.
"""

from __future__ import annotations

import contextlib
import logging

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool

log = logging.getLogger("wire.leader")
LOCK_KEY = 0x57495245  # "WIRE"


class Leadership:
    """Try to become (and stay) the scheduling leader for one database."""

    def __init__(self, engine: AsyncEngine, *, key: int = LOCK_KEY) -> None:
        self._url = engine.url
        self._backend = engine.dialect.name
        self._key = key
        self._engine: AsyncEngine | None = None
        self._conn: AsyncConnection | None = None

    @property
    def held(self) -> bool:
        """True while this replica leads."""
        return self._backend != "postgresql" or self._conn is not None

    async def acquire(self) -> bool:
        """Lead if nobody else does; True when this replica leads (already or now).

        A held lock is checked on its connection first, so a lost session is noticed."""
        if self._backend != "postgresql":
            return True
        if self._conn is not None:
            if await self._alive():
                return True
            await self._drop()
        self._engine = self._engine or create_async_engine(self._url, poolclass=NullPool)
        try:
            conn = await self._engine.connect()
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            got = await conn.scalar(text("SELECT pg_try_advisory_lock(:key)"), {"key": self._key})
        except (SQLAlchemyError, OSError) as error:
            log.warning("could not try the leader lock: %s", error)
            return False
        if got:
            self._conn = conn
            log.info("this replica is now the scheduling leader")
            return True
        await conn.close()
        return False

    async def _alive(self) -> bool:
        assert self._conn is not None
        try:
            await self._conn.scalar(text("SELECT 1"))
        except (SQLAlchemyError, OSError):
            log.warning("lost the leader connection")
            return False
        return True

    async def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(SQLAlchemyError, OSError):
                await conn.invalidate()

    async def release(self) -> None:
        """Stop leading: unlock and close the dedicated connection (idempotent)."""
        if self._conn is not None:
            try:
                await self._conn.scalar(text("SELECT pg_advisory_unlock(:key)"), {"key": self._key})
                await self._conn.close()
            except (SQLAlchemyError, OSError):
                await self._drop()
            self._conn = None
        if self._engine is not None:
            await self._engine.dispose()
            self._engine = None
