"""Engines and migrations: SQLite (WAL, busy timeout) by default, PostgreSQL by URL.

`upgrade_database(url)` applies the Alembic migrations shipped in `bot/migrations`; the
CLI's `wire db upgrade` and the service's start both call it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.util import await_

from bot.errors import StoreError

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"
SQLITE_BUSY_TIMEOUT_MS = 30_000


def parse_url(url: str | URL) -> URL:
    """Parse a database URL, naming it (without its password) when it is malformed."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StoreError(f"database URL {str(url)!r} is not a SQLAlchemy URL") from None
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise StoreError(
            f"database URL {parsed.render_as_string(hide_password=True)} names "
            f"{parsed.get_backend_name()!r}; The Wire supports sqlite and postgresql"
        )
    return parsed


def make_engine(url: str | URL, *, pool_size: int = 5, echo: bool = False) -> AsyncEngine:
    """An async engine for `url`; a SQLite file's directory is created when missing.

    SQLite runs in WAL mode with a busy timeout, and every transaction starts with
    `BEGIN IMMEDIATE` so two writers queue on the lock instead of failing on upgrade.
    PostgreSQL gets a bounded pool with pre-ping and recycling.
    """
    parsed = parse_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(parsed, echo=echo)
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+asyncpg")
    return create_async_engine(
        parsed,
        echo=echo,
        pool_size=pool_size,
        max_overflow=pool_size,
        pool_pre_ping=True,
        pool_recycle=1800,
        pool_timeout=30,
    )


def _sqlite_engine(url: URL, *, echo: bool) -> AsyncEngine:
    if url.drivername == "sqlite":
        url = url.set(drivername="sqlite+aiosqlite")
    if url.database and url.database != ":memory:":
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
    # Transactions always end in COMMIT or ROLLBACK (context managers), so the pool's extra
    # rollback on every check-in is skipped: it costs a round trip to the driver thread.
    engine = create_async_engine(
        url,
        echo=echo,
        pool_size=1,
        max_overflow=4,
        pool_timeout=60,
        pool_reset_on_return=None,
    )

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the sqlite3 module, decide when a transaction begins.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Connection) -> None:
        # One call on aiosqlite's own connection: `exec_driver_sql` would open, run and
        # close a cursor, three round trips to the driver's thread instead of one.
        driver = conn.connection.driver_connection
        await_(driver.execute("BEGIN IMMEDIATE"))

    return engine


def insert_for(engine: AsyncEngine) -> Any:
    """The dialect's `insert` construct, which has `on_conflict_do_nothing`."""
    return postgresql.insert if engine.dialect.name == "postgresql" else sqlite.insert


def alembic_config(url: str | URL | None = None) -> Config:
    """An Alembic configuration pointing at the migrations shipped in the package."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if url is not None:
        rendered = parse_url(url).render_as_string(hide_password=False)
        config.set_main_option("sqlalchemy.url", rendered.replace("%", "%%"))
    return config


async def upgrade_database(url: str | URL, *, revision: str = "head") -> None:
    """Bring the database at `url` to `revision` (the newest by default); idempotent."""
    engine = make_engine(url)
    config = alembic_config()
    try:
        async with engine.begin() as conn:
            await conn.run_sync(_upgrade, config, revision)
    except SQLAlchemyError as exc:
        where = parse_url(url).render_as_string(hide_password=True)
        raise StoreError(f"could not migrate the database {where}: {exc}") from exc
    finally:
        await engine.dispose()


def _upgrade(connection: Connection, config: Config, revision: str) -> None:
    config.attributes["connection"] = connection
    command.upgrade(config, revision)
