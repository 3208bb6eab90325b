"""The running front ends of one process: the adapters' receivers and the web server.

Most front ends can run on every replica: Slack sends each HTTP request to one replica
behind the load balancer, and each Socket Mode event to one of the open connections. A
front end marked `exclusive` (a Discord gateway session: every session of a bot receives
every event) runs on one replica at a time: the holder of its own PostgreSQL advisory
lock. The others try again on every `claim`, so when the holder dies a survivor takes over
within a tick. On SQLite there is one process, which always holds the lock.

The web server and its limits (the address, timeouts, the cap on connections, the security
headers) are `bot.app.web_server`'s.
"""

from __future__ import annotations

import logging
import zlib
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Protocol

from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.app.web_server import serve, web_application
from bot.chat.adapters import FrontEnd, Hub, health_routes
from bot.schedule.leader import LOCK_KEY, Leadership
from bot.settings_sections import HttpSettings

log = logging.getLogger("wire.frontends")


class Site(Protocol):
    """Routes on the web server that belong to no adapter (see `bot.web`)."""

    def mount(self, app: web.Application) -> bool:
        """Add the routes; True if they are reason enough to start the server."""
        ...


def exclusive_lock_key(name: str) -> int:
    """The advisory lock key of `name`'s exclusive front end (distinct from the leader's)."""
    return LOCK_KEY + 1 + zlib.crc32(name.encode()) % 1_000_000


class Frontends:
    """Starts, claims and stops the front ends of a set of adapters."""

    def __init__(
        self,
        adapters: Mapping[str, FrontEnd],
        *,
        hub: Hub,
        http: HttpSettings,
        engine: AsyncEngine,
        sites: Sequence[Site] = (),
    ) -> None:
        self.adapters = dict(adapters)
        self.sites = list(sites)  # routes of no adapter: the archive, /metrics (bot.web)
        self.hub = hub
        self.http = http
        self.url: str | None = None  # where the web server listens, once it does
        self._locks = {
            name: Leadership(engine, key=exclusive_lock_key(name))
            for name, adapter in self.adapters.items()
            if getattr(adapter, "exclusive", False)
        }
        self._running: dict[str, FrontEnd] = {}
        self._web: web.AppRunner | None = None
        self._closed: set[str] = set()  # closed since the last `open`: not closed again
        self._opened = False

    @property
    def running(self) -> list[str]:
        """The names of the front ends running in this process."""
        return list(self._running)

    async def open(self) -> None:
        """Serve the mounted routes (if any) and start every front end this replica may run."""
        if self._opened:
            return
        self._opened = True
        self._closed.clear()
        app = web_application(self.http)
        health_routes(app, started=datetime.now(UTC), health=self.hub.health)
        served = [site.mount(app) for site in [*self.adapters.values(), *self.sites]]
        if any(served):
            runner = await serve(app, self.http)
            self._web = runner
            host, port = runner.addresses[0][:2]
            self.url = f"http://{host}:{port}"
            log.debug("web server listening on %s", self.url)
        await self.claim()

    async def claim(self) -> None:
        """Start the front ends not running yet whose lock this replica holds (or that need
        none); stop an exclusive one whose lock was lost."""
        if not self._opened:
            return
        for name, adapter in self.adapters.items():
            lock = self._locks.get(name)
            allowed = lock is None or await lock.acquire()
            if allowed and name not in self._running:
                await adapter.start(self.hub)
                self._running[name] = adapter
                log.debug("%s front end started", name)
            elif not allowed and name in self._running:
                log.warning("%s front end lost its lock; another replica takes over", name)
                await self._stop(name)

    async def close(self) -> None:
        """Stop the front ends (newest first), release their locks, stop the web server;
        safe to call twice. Adapters that never started are closed too: a platform may
        have opened connections of its own (a login on first post, in `wire run --once`)."""
        for name in reversed(list(self._running)):
            await self._stop(name)
        for name, adapter in self.adapters.items():
            if name not in self._closed:
                self._closed.add(name)
                try:
                    await adapter.close()
                except Exception:
                    log.exception("closing the %s adapter failed", name)
        for lock in self._locks.values():
            await lock.release()
        if self._web is not None:
            runner, self._web = self._web, None
            await runner.cleanup()
        self._opened = False

    async def _stop(self, name: str) -> None:
        adapter = self._running.pop(name)
        self._closed.add(name)
        try:
            await adapter.close()
        except Exception:
            log.exception("closing the %s front end failed", name)
