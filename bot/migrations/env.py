"""Alembic environment: runs on the connection `upgrade_database` hands over, or on
`sqlalchemy.url` when Alembic's own command line is used (`alembic -c bot/alembic.ini …`)."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy import Connection

from bot.store.engine import make_engine
from bot.store.tables import Base

config = context.config
target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_online() -> None:
    engine = make_engine(config.get_main_option("sqlalchemy.url") or "")
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_run)
            await connection.commit()
    finally:
        await engine.dispose()


def _run_offline() -> None:
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    _run_offline()
elif (shared := config.attributes.get("connection")) is not None:
    _run(shared)
else:
    asyncio.run(_run_online())
