"""Chat adapters: how Slack and Discord plug into `wire run`.

An adapter is two things: the `Platform` the delivery worker posts through, and a front end
that receives what people do there (`/wire`, Acknowledge buttons, ✅ reactions) and answers
through the shared `Hub`. The service builds every enabled adapter, gives each the hub,
lets it add routes to the web server, starts it, and closes it on the way out:

    adapter = SlackAdapter.from_settings(settings)   # no I/O yet
    adapter.platform                                  # used by the worker and commands
    adapter.mount(web_app)                            # HTTP routes, if it has any
    await adapter.start(hub)                          # connect, sync commands, …
    await adapter.close()

`adapters_for` imports an adapter's package only when its platform is enabled: the chat SDKs
are extras of the package (`pip install 'the-wire[slack]'`, `[discord]`, see `EXTRAS`).
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Protocol, TextIO

from aiohttp import web

from bot import metrics
from bot.acks.escalate import AckOutcome, acknowledge
from bot.delivery.platform import ConsolePlatform, Platform
from bot.settings import Settings

if TYPE_CHECKING:
    from bot.commands.handlers import Commands
    from bot.store import Store

log = logging.getLogger("wire.adapters")

# platform name → "module:Class" whose `from_settings(settings)` builds the adapter
REGISTRY = {
    "slack": "bot.slack.adapter:SlackAdapter",
    "discord": "bot.discord.adapter:DiscordAdapter",
}
# platform name → the extra of the package that installs its SDK (pyproject.toml)
EXTRAS = {
    "slack": "slack",
    "discord": "discord",
}


class Health:
    """What is wrong in this process right now, by part ("database", "discord"): one
    sentence each. `/healthz` answers 503 with them while any is set, and the gauge
    `wire_unhealthy{part}` (`bot.metrics`) is 1."""

    def __init__(self) -> None:
        self._problems: dict[str, str] = {}

    def problem(self, part: str, sentence: str) -> None:
        """Report that `part` is unwell (again: the sentence is replaced)."""
        if self._problems.get(part) != sentence:
            log.warning("unhealthy: %s: %s", part, sentence)
        self._problems[part] = sentence
        metrics.health(part, ok=False)

    def ok(self, part: str) -> None:
        """Report that `part` is well again."""
        if self._problems.pop(part, None) is not None:
            log.info("healthy again: %s", part)
            metrics.health(part, ok=True)

    @property
    def problems(self) -> dict[str, str]:
        """The current problems, by part; empty when all is well."""
        return dict(self._problems)


@dataclass(frozen=True)
class Hub:
    """What a front end may use: the store, the shared command layer, every platform, and
    the process's `Health` to report on."""

    store: Store
    commands: Commands
    settings: Settings
    platforms: Mapping[str, Platform]
    health: Health = field(default_factory=Health)

    async def acknowledge(
        self, *, item_id: str, platform: str, channel: str, user_id: str, user_name: str
    ) -> AckOutcome:
        """Record an ack and re-render the item's message (see `bot.escalate.acknowledge`)."""
        return await acknowledge(
            self.store,
            self.platforms,
            item_id=item_id,
            platform=platform,
            channel=channel,
            user_id=user_id,
            user_name=user_name,
        )


class FrontEnd(Protocol):
    """What receives from outside and answers through the hub: a chat platform's adapter,
    or the GitHub webhook receiver (`bot.realtime.Realtime`), started by `bot.app.frontends`."""

    name: str
    exclusive: bool  # True: one replica at a time runs the front end (see bot.app.frontends)

    def mount(self, app: web.Application) -> bool:
        """Add this adapter's HTTP routes to the service's web server; True if it added any."""
        ...

    async def start(self, hub: Hub) -> None:
        """Begin receiving commands and acks (connect, sync commands, …)."""
        ...

    async def close(self) -> None:
        """Stop receiving and release connections; safe to call twice."""
        ...


class Adapter(FrontEnd, Protocol):
    """A chat platform's adapter (see the module docstring): a front end with a Platform."""

    platform: Platform


class ConsoleAdapter:
    """The console: a platform that prints, and nothing to receive."""

    name = "console"
    exclusive = False

    def __init__(self, stream: TextIO | None = None) -> None:
        self.platform: Platform = ConsolePlatform(stream)

    def mount(self, app: web.Application) -> bool:
        """The console serves nothing over HTTP."""
        return False

    async def start(self, hub: Hub) -> None:
        """Nothing to connect."""

    async def close(self) -> None:
        """Nothing to release."""


class AdapterClass(Protocol):
    """What `REGISTRY` names: an adapter class, which builds its adapter from the settings."""

    def from_settings(self, settings: Settings) -> Adapter: ...


def _load(name: str) -> AdapterClass:
    module, _, attribute = REGISTRY[name].partition(":")
    found: AdapterClass = getattr(importlib.import_module(module), attribute)
    return found


def adapters_for(settings: Settings, *, stream: TextIO | None = None) -> dict[str, Adapter]:
    """An adapter for every enabled platform (the console always has one); one whose SDK is
    not installed is skipped with an error naming the extra that installs it."""
    found: dict[str, Adapter] = {}
    for name in settings.enabled_platforms():
        if name == "console":
            found[name] = ConsoleAdapter(stream)
            continue
        try:
            found[name] = _load(name).from_settings(settings)
        except ModuleNotFoundError as error:
            missing = (error.name or "").partition(".")[0]
            if not missing or missing in {"bot", "digest"}:
                raise  # a module of The Wire itself: a bug, not a missing extra
            log.error(
                "%s is enabled but its package is not installed (no module named %r): "
                "pip install 'the-wire[%s]'; running without %s",
                name,
                missing,
                EXTRAS[name],
                name,
            )
    return found


def health_routes(app: web.Application, *, started: datetime, health: Health | None = None) -> None:
    """`GET /healthz`, for load balancers: 200 with the process's start time, or 503 with
    `problems` (part → sentence) while `health` reports any."""

    async def healthz(_request: web.Request) -> web.Response:
        problems = health.problems if health is not None else {}
        body: dict[str, object] = {"ok": not problems, "started": started.isoformat()}
        if problems:
            body["problems"] = problems
        return web.json_response(body, status=503 if problems else 200)

    app.router.add_get("/healthz", healthz)
