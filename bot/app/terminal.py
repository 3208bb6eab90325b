"""What `wire run` tells the person who started it: a banner once the service is up, one
line on Ctrl-C, and an immediate exit on a second Ctrl-C.

    The Wire is running.
      archive    http://127.0.0.1:3000
      platforms  console
      channels   console #demo follows executorch, ci-infra
      database   var/demo.db at revision 0005
    Ctrl-C to stop.

With `[log] format = "json"` the banner is one record ("running") with the same facts as
fields (see `bot.logs.announce`). The chatter of other packages stays out of the log unless
asked for (see `bot.logs.configure`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlalchemy.engine import make_url

from bot import logs
from bot.settings import Settings

if TYPE_CHECKING:
    from bot.app.service import Service

log = logging.getLogger("wire.service")
STOPPING = "stopping: finishing the work in flight (Ctrl-C again to force)"
FORCED = 130  # the shell's status of a process ended by SIGINT


def local(url: str) -> str:
    """A listening address a person can open: any-interface hosts become loopback."""
    scheme, _, rest = url.partition("://")
    host, _, port = rest.rpartition(":")
    loopback = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "[::1]", "[::]": "[::1]"}
    return f"{scheme}://{loopback.get(host, host)}:{port}"


def _same(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and a.rstrip("/") == b.rstrip("/")


def _database(settings: Settings) -> str:
    url = make_url(settings.database_url)
    if url.get_backend_name() == "sqlite" and url.database:
        return url.database
    return settings.database_url_for_display


def _channels(settings: Settings) -> list[dict[str, Any]]:
    """The [[subscriptions]] of the file, grouped by channel, in the file's order."""
    found: dict[tuple[str, str, str], dict[str, Any]] = {}
    for _table, seed in settings.seeds:
        key = (seed.platform, seed.workspace, seed.channel)
        entry = found.setdefault(
            key,
            {"platform": key[0], "workspace": key[1], "channel": key[2], "follows": []},
        )
        without = f" (without {', '.join(seed.exclude)})" if seed.exclude else ""
        entry["follows"].append(seed.target + without)
    return list(found.values())


def banner_facts(settings: Settings, service: Service) -> dict[str, Any]:
    """What the banner says: where the archive and the web server are (the address bound,
    when that is every interface), the platforms, the seeded channels and what they
    follow, the database and its migration."""
    server = local(service.web_url) if service.web_url else None
    public = service.worker.public_url  # [web] public_url, else the address served
    facts: dict[str, Any] = {}
    if settings.web.enabled and (public or server):
        facts["archive"] = public or server
    if service.web_url and service.web_url != server:
        facts["server"] = service.web_url  # every interface: say so, not only loopback
    elif server and not _same(server, facts.get("archive")):
        facts["server"] = server
    receiver = service.realtime.receiver if service.realtime is not None else None
    if receiver is not None and (public or server):
        facts["webhooks"] = (public or server or "").rstrip("/") + receiver.path
    facts["platforms"] = list(settings.enabled_platforms())
    facts["channels"] = _channels(settings)
    facts["database"] = _database(settings)
    facts["revision"] = service.revision
    return facts


def banner_text(facts: dict[str, Any]) -> str:
    """The banner of `banner_facts` as lines for a terminal."""
    rows: list[tuple[str, str]] = [("archive", facts["archive"])] if "archive" in facts else []
    if "server" in facts:
        everywhere = " (every interface)" if local(facts["server"]) != facts["server"] else ""
        rows.append(("server", f"listening on {facts['server']}{everywhere}"))
    if "webhooks" in facts:
        rows.append(("webhooks", facts["webhooks"]))
    rows.append(("platforms", ", ".join(facts["platforms"])))
    for number, entry in enumerate(facts["channels"] or [None]):
        label = "channels" if number == 0 else ""
        if entry is None:
            rows.append((label, "none in [[subscriptions]]; /wire subscribe adds one"))
            continue
        where = "" if entry["workspace"] == "local" else f" in {entry['workspace']}"
        follows = ", ".join(entry["follows"])
        rows.append((label, f"{entry['platform']} #{entry['channel']}{where} follows {follows}"))
    revision = facts["revision"] or "its base (no migration)"
    rows.append(("database", f"{facts['database']} at revision {revision}"))
    lines = ["The Wire is running.", *(f"  {label:<10} {value}" for label, value in rows)]
    return "\n".join([*lines, "Ctrl-C to stop."])


def announce_start(settings: Settings, service: Service) -> None:
    """The banner, once the service is up: bare lines, or one JSON record."""
    facts = banner_facts(settings, service)
    logs.announce(log, "running", text=banner_text(facts), **facts)


class Interrupts:
    """SIGINT and SIGTERM set `stop`: the work in flight finishes, then `wire run` returns.
    Ctrl-C says so in one line; a second Ctrl-C meanwhile exits at once with status 130
    (a claimed delivery returns to the queue when its lease ends)."""

    def __init__(self, stop: asyncio.Event, *, exit: Callable[[int], Any] = os._exit) -> None:
        self.stop = stop
        self.received: int | None = None  # the signal that asked to stop
        self._exit = exit

    def install(self, loop: asyncio.AbstractEventLoop) -> None:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, self, signum)

    def __call__(self, signum: int) -> None:
        if self.stop.is_set():
            if signum == signal.SIGINT:
                for stream in (sys.stdout, sys.stderr):
                    stream.flush()
                self._exit(FORCED)
            return
        self.received = signum
        if signum == signal.SIGINT:
            logs.announce(log, STOPPING)
        self.stop.set()

    def stopped(self) -> None:
        """Log the end of a stop: "stopped" for SIGTERM (a supervisor's log); after Ctrl-C
        the one line said it already."""
        level = logging.DEBUG if self.received == signal.SIGINT else logging.INFO
        log.log(level, "stopped")
