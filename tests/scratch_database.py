"""Dropping the scratch databases the PostgreSQL tests create, as a role that is not superuser.

`DROP DATABASE … WITH (FORCE)` must be allowed to end every session on the database, and
an autovacuum worker's session belongs to no role: whenever autovacuum happens to be at
work on a database just written to, the test role gets "must be a member of the role whose
process is being terminated". A plain DROP DATABASE stops autovacuum by itself; the
sessions left are the test role's own, which it may end.
"""

from __future__ import annotations

import asyncio
import time

import asyncpg
from sqlalchemy.engine import make_url


def admin_dsn(url: str) -> str:
    """`url` (a SQLAlchemy URL with the asyncpg driver) as a DSN asyncpg itself takes."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def drop_database(conn: asyncpg.Connection, name: str, *, patience: float = 30.0) -> None:
    """Drop database `name` if it exists, ending this role's own sessions on it first.

    Sessions take a moment to go once told to; the drop is retried until `patience`
    seconds have passed, then the last error is raised."""
    deadline = time.monotonic() + patience
    while True:
        await conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = $1 AND usename = current_user AND pid <> pg_backend_pid()",
            name,
        )
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            return
        except asyncpg.ObjectInUseError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)
