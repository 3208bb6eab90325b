"""`wire run` outlives a database outage: it waits, says so on `/healthz`, and carries on.

    service = await start_when_database_answers(start, stop=stop, http=settings.http)
    delivering = asyncio.create_task(keep_delivering(worker, stop, health=hub.health))

At start, a database that does not answer (`UnreachableError`) is tried again with
exponential back-off (1 s, 2 s, 4 s … at most a minute) while a stand-in web server answers
`/healthz` with 503 and the reason (with the limits and headers of the
real one, `bot.app.web_server`). While running, a delivery pass that fails on the store
marks "database" unhealthy, waits, and resumes once a `SELECT 1` answers. Nothing queued is
lost: the outbox is in the database, and a claim whose worker stopped returns to the queue
when its lease ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TypeVar

from aiohttp import web
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.app.web_server import ListenError, serve, web_application
from bot.chat.adapters import Health, health_routes
from bot.delivery.worker import Worker
from bot.settings_sections import HttpSettings
from bot.store.engine import UnreachableError
from digest.errors import WireError

log = logging.getLogger("wire.service")
T = TypeVar("T")
BASE_DELAY = 1.0
MAX_DELAY = 60.0


def backoff_delay(failures: int, *, base: float = BASE_DELAY, cap: float = MAX_DELAY) -> float:
    """Seconds to wait after the `failures`-th failure in a row: base·2^(n-1), capped."""
    doubling: int = 2 ** max(0, failures - 1)
    return min(cap, base * doubling)


def describe_failure(exc: BaseException) -> str:
    """One line about a store failure: our own sentence, or the driver's first line."""
    if isinstance(exc, WireError):
        return str(exc)
    first = (str(exc).strip().splitlines() or [""])[0]
    return f"{type(exc).__name__}: {first}"[:300]


async def _pause(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)


async def _standin_server(http: HttpSettings, health: Health) -> web.AppRunner | None:
    """A web server with only `/healthz`, while the service cannot start; None if it cannot
    listen. Only a warning then: a service that serves nothing over HTTP (Socket Mode,
    Discord alone) never needs the address, and one that does fails on it once it starts."""
    app = web_application(http)
    health_routes(app, started=datetime.now(UTC), health=health)
    try:
        return await serve(app, http)
    except ListenError as exc:
        log.warning("cannot serve /healthz while waiting: %s", exc)
        return None


async def start_when_database_answers(
    start: Callable[[], Awaitable[T]],
    *,
    stop: asyncio.Event,
    http: HttpSettings | None = None,
    base: float = BASE_DELAY,
    cap: float = MAX_DELAY,
    on_standin: Callable[[str], None] | None = None,
) -> T | None:
    """`await start()`, again and again with back-off while the database is unreachable;
    None when `stop` is set first. Meanwhile `/healthz` (on `http`) answers 503.

    `on_standin` is told the stand-in server's URL once it listens (for tests).
    """
    health = Health()
    server: web.AppRunner | None = None
    failures = 0
    try:
        while True:
            try:
                return await start()
            except UnreachableError as exc:
                failures += 1
                delay = backoff_delay(failures, base=base, cap=cap)
                health.problem("database", str(exc))
                log.warning("%s; trying again in %.0f s", exc, delay)
                if server is None and http is not None:
                    server = await _standin_server(http, health)
                    if server is not None and on_standin is not None:
                        host, port = server.addresses[0][:2]
                        on_standin(f"http://{host}:{port}")
            await _pause(stop, delay)
            if stop.is_set():
                return None
    finally:
        if server is not None:
            await server.cleanup()


async def database_answers(engine: AsyncEngine) -> bool:
    """True when a `SELECT 1` succeeds."""
    try:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
    except Exception:  # any failure: not yet
        return False
    return True


async def keep_delivering(
    worker: Worker,
    stop: asyncio.Event,
    *,
    health: Health,
    base: float = BASE_DELAY,
    cap: float = MAX_DELAY,
) -> None:
    """`worker.run_forever(stop)`, resumed after every store failure once the database
    answers again; "database" is unhealthy in between."""
    failures = 0
    while not stop.is_set():
        try:
            await worker.run_forever(stop)
            return
        except Exception as exc:  # the store failed under the worker
            failures += 1
            health.problem("database", describe_failure(exc))
            log.warning("delivery paused: %s", describe_failure(exc))
        while not stop.is_set():
            await _pause(stop, backoff_delay(failures, base=base, cap=cap))
            if await database_answers(worker.store.engine):
                health.ok("database")
                log.info("database answers again; delivery resumes")
                failures = 0
                break
            failures += 1
