"""Engines and migrations: SQLite (WAL, busy timeout) by default, PostgreSQL by URL.

`upgrade_database(url)` applies the Alembic migrations shipped in `bot/migrations`; the
CLI's `wire db upgrade` and the service's start both call it.

A database that cannot be reached or opened raises `StoreError` with one sentence naming
where it is and the setting to check, on the first connection and on every reconnection:

    cannot reach the PostgreSQL database at 127.0.0.1:5432 (connection refused); check
    database_url in [service] or WIRE_DATABASE_URL
"""

from __future__ import annotations

import socket
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.util import await_

from bot.errors import StoreError

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"
SQLITE_BUSY_TIMEOUT_MS = 30_000
SETTING = "check database_url in [service] or WIRE_DATABASE_URL"


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
    try:
        engine = create_async_engine(
            parsed,
            echo=echo,
            pool_size=pool_size,
            max_overflow=pool_size,
            pool_pre_ping=True,
            pool_recycle=1800,
            pool_timeout=30,
        )
    except ModuleNotFoundError as error:  # the driver is the extra [postgres]
        if error.name != "asyncpg":
            raise
        raise StoreError(
            f"database URL {parsed.render_as_string(hide_password=True)} names PostgreSQL, "
            "whose driver asyncpg is not installed: pip install 'the-wire[postgres]'"
        ) from None
    _explain_connect_failures(engine, parsed)
    return engine


class UnreachableError(StoreError):
    """The database did not answer or refused the connection: it may pass (a restart, a
    failover), so a long-running service waits and tries again."""


def unreachable(url: URL, exc: BaseException) -> StoreError:
    """The sentence for a connection to `url` that failed with `exc`."""
    if url.get_backend_name() == "sqlite":
        return UnreachableError(f"cannot open the SQLite database {url.database}: {exc}; {SETTING}")
    where = f"{url.host or 'localhost'}:{url.port or 5432}"
    if isinstance(exc, ConnectionRefusedError):
        reason = "connection refused"
    elif isinstance(exc, socket.gaierror):
        reason = f"no host is called {url.host}"
    elif isinstance(exc, TimeoutError):
        reason = "no answer"
    elif isinstance(exc, OSError) and exc.strerror:
        reason = exc.strerror.lower()
    else:
        reason = str(exc).strip().rstrip(".") or type(exc).__name__
    return UnreachableError(
        f"cannot reach the PostgreSQL database at {where} ({reason}); {SETTING}"
    )


def _explain_connect_failures(engine: AsyncEngine, url: URL) -> None:
    """Turn a failed connection (the first, or a reconnection after an outage) into one
    `StoreError` sentence instead of the driver's own exception and its traceback."""

    @event.listens_for(engine.sync_engine, "do_connect")
    def _connect(dialect: Any, _record: Any, cargs: Any, cparams: Any) -> Any:
        try:
            return dialect.connect(*cargs, **cparams)
        except (OSError, sqlite3.Error) as exc:
            raise unreachable(url, exc) from exc
        except Exception as exc:  # asyncpg's: wrong password, no such database, starting up
            if type(exc).__module__.split(".")[0] != "asyncpg":
                raise
            raise unreachable(url, exc) from exc


def _sqlite_engine(url: URL, *, echo: bool) -> AsyncEngine:
    if url.drivername == "sqlite":
        url = url.set(drivername="sqlite+aiosqlite")
    if url.database and url.database != ":memory:":
        _make_parent(Path(url.database))
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

    _explain_connect_failures(engine, url)
    _explain_full_disk(engine, url)

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
        assert driver is not None, "a connection that begins is open"
        await_(driver.execute("BEGIN IMMEDIATE"))

    return engine


def _explain_full_disk(engine: AsyncEngine, url: URL) -> None:
    """A write that fails for want of space is one `StoreError` sentence saying where;
    the transaction is rolled back, so nothing half-written stays."""

    @event.listens_for(engine.sync_engine, "handle_error")
    def _full(context: Any) -> None:
        if "database or disk is full" in str(context.original_exception):
            raise StoreError(
                f"cannot write the SQLite database {url.database}: its disk is full; free "
                "space there and the work resumes"
            ) from context.original_exception


def _make_parent(database: Path) -> None:
    """Create the SQLite file's directory, or say in one sentence why it cannot be."""
    try:
        database.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next((p for p in database.parents if p.is_file()), database.parent)
        raise StoreError(
            f"cannot create the SQLite database {database}: {blocker} is a file, not a "
            f"directory; {SETTING}"
        ) from None
    except PermissionError:
        raise StoreError(
            f"cannot create the SQLite database {database}: no permission to create "
            f"{database.parent}; {SETTING}"
        ) from None


def insert_for(engine: AsyncEngine) -> Any:
    """The dialect's `insert` construct, which has `on_conflict_do_nothing`."""
    return postgresql.insert if engine.dialect.name == "postgresql" else sqlite.insert


def alembic_config(url: str | URL | None = None) -> Config:
    """An Alembic configuration pointing at the migrations shipped in the package."""
    # Alembic is imported here, not at the top: only migrating needs it, and it is about a
    # fifth of the store's import time for every process that only reads and writes.
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if url is not None:
        rendered = parse_url(url).render_as_string(hide_password=False)
        config.set_main_option("sqlalchemy.url", rendered.replace("%", "%%"))
    return config


async def upgrade_database(url: str | URL, *, revision: str = "head") -> str | None:
    """Bring the database at `url` to `revision` (the newest by default); idempotent.
    Returns the revision the database is at afterwards (None at the empty base)."""
    engine = make_engine(url)
    config = alembic_config()
    try:
        async with engine.begin() as conn:
            return await conn.run_sync(_upgrade, config, revision)
    except SQLAlchemyError as exc:
        where = parse_url(url).render_as_string(hide_password=True)
        raise StoreError(f"could not migrate the database {where}: {exc}") from exc
    finally:
        await engine.dispose()


def _upgrade(connection: Connection, config: Config, revision: str) -> str | None:
    from alembic import command

    config.attributes["connection"] = connection
    command.upgrade(config, revision)
    reached = connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalars()
    return ", ".join(sorted(reached)) or None  # several only on branched histories
