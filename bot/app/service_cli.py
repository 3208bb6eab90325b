"""The service's commands of `wire`: run, console, deliveries, health and `db upgrade`.

They are defined on `commands`; `bot.app.cli` lists them and imports this module only when
one of them runs, so the digest commands never load the service, SQLAlchemy or aiohttp.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
from collections.abc import Awaitable, Iterator
from pathlib import Path
from typing import Annotated

import httpx
import typer
from rich.console import Console
from sqlalchemy import text

from bot import logs
from bot.app import run_once
from bot.app.cli_options import DEFAULT_CONFIGS, ConfigOption, fail, resolve_config
from bot.app.heartbeat import beat_problem, heartbeat_path, read_beat
from bot.app.replayed import already_delivered
from bot.app.resilience import start_when_database_answers
from bot.app.service import Service
from bot.app.terminal import Interrupts, announce_start
from bot.commands.replies import Context
from bot.delivery.listing import describe, list_deliveries
from bot.delivery.parts import parts_of
from bot.delivery.platform import ConsolePlatform, render_text
from bot.settings import Settings, load_settings
from bot.store import Store, upgrade_database
from digest.errors import WireError

log = logging.getLogger("wire.service")

commands = typer.Typer()
db_app = typer.Typer(help="The database: migrations.", no_args_is_help=True)
commands.add_typer(db_app, name="db")


def _settings(config: Path | None, *, chat: bool = True) -> Settings:
    """The settings from the file `resolve_config` reads too; `chat=False` for a command
    that talks to no chat platform, which then needs none of their tokens."""
    origin = "--config"
    if config is None and not os.environ.get("WIRE_CONFIG"):
        config = next((p for p in DEFAULT_CONFIGS if p.is_file()), None)
        origin = "the default config file"
    try:
        return load_settings(config=config, config_origin=origin, require_tokens=chat)
    except WireError as error:
        fail(str(error))
        raise  # unreachable: fail exits


def _logging(settings: Settings, *, verbose: bool = False) -> None:
    """Log to stderr as [log] format says, with every secret of the settings redacted.
    `verbose`: The Wire's DEBUG lines and the INFO lines of other packages too."""
    level = "DEBUG" if verbose else settings.log_level
    libraries = "INFO" if verbose and settings.log_level != "DEBUG" else None
    logs.configure(
        level=level,
        format=settings.log.format,
        secrets=logs.secrets_in(settings),
        libraries=libraries,
    )


async def _run(settings: Settings, config: Path | None, *, once: bool) -> int:
    """Run the service; the exit status (see `bot.app.run_once` for --once's)."""
    stop = asyncio.Event()
    interrupts = Interrupts(stop)
    interrupts.install(asyncio.get_running_loop())
    projects = resolve_config(config)

    def start() -> Awaitable[Service]:
        return Service.start(settings=settings, config=projects)

    # --once fails at once on a database that does not answer; `wire run` waits for it
    service = await (
        start() if once else start_when_database_answers(start, stop=stop, http=settings.http)
    )
    if service is None:  # stopped while waiting
        return 0
    async with service:
        if not once:
            if not stop.is_set():  # the banner names where the web server listens
                await service.start_frontends()
                announce_start(settings, service)
                for line in await already_delivered(settings, service.store):
                    logs.announce(log, "already_delivered", text=line)
            await service.run(stop)
            interrupts.stopped()
            return 0
        report = await service.run_once()
        lines, status = await run_once.outcome(service.store, report)
        print("\n".join(lines), file=sys.stderr)
        for problem in report.failed:
            Console(stderr=True, highlight=False).print(f"failed: {problem}", markup=False)
        return status


@commands.command()
def run(
    config: ConfigOption = None,
    once: Annotated[
        bool, typer.Option("--once", help="Do all due work now (compose, deliver), then exit.")
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="Log The Wire's DEBUG lines and other packages' INFO lines (APScheduler's "
            "jobs, Alembic's migrations), which are left out by default.",
        ),
    ] = False,
) -> None:
    """Run the service: scheduler, delivery worker and every enabled platform."""
    settings = _settings(config)
    _logging(settings, verbose=verbose)
    try:
        status = asyncio.run(_run(settings, config, once=once))
    except WireError as error:
        fail(str(error))
    if status:
        raise typer.Exit(status)


@commands.command()
def console(
    config: ConfigOption = None,
    channel: Annotated[str, typer.Option("--channel", help="The console channel.")] = "demo",
    user: Annotated[str, typer.Option("--user", help="Who is typing.")] = "you",
    command: Annotated[
        list[str] | None,
        typer.Option("--command", "-e", help="Run this /wire command and exit; repeatable."),
    ] = None,
) -> None:
    """Type `/wire …` commands against the console platform (reads stdin without -e).

    The exit status is 2 when any command was rejected or refused, else 0.
    """
    settings = _settings(config)
    lines = command or None
    refused = 0

    async def session() -> None:
        nonlocal refused
        platform = ConsolePlatform()
        service = await Service.start(
            settings=settings, config=resolve_config(config), platforms={"console": platform}
        )
        context = Context(
            platform="console", workspace="local", channel=channel, user_id=user, user_name=user
        )
        async with service:
            source = lines if lines is not None else _stdin_lines()
            for line in source:
                if not line.strip() and lines is None and not sys.stdin.isatty():
                    continue  # a blank line of a piped script; typed or -e "" gets the help
                reply = await service.commands.handle(line, context=context)
                refused += not reply.ok
                print(
                    reply.text if reply.visibility == "ephemeral" else f"#{channel}: {reply.text}"
                )
                if reply.story is not None:
                    print(
                        "\n".join(
                            render_text(part) for part in parts_of(reply.story, zone=reply.zone)
                        )
                    )

    try:
        asyncio.run(session())
    except WireError as error:
        fail(str(error))
    if refused:
        raise typer.Exit(2)


def _stdin_lines() -> Iterator[str]:
    prompt = sys.stdin.isatty()
    while True:
        if prompt:
            print("wire> ", end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            return
        yield line


@commands.command()
def deliveries(
    config: ConfigOption = None,
    state: Annotated[
        str | None,
        typer.Option("--state", help="Only this state: pending, in_progress, delivered, dead."),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", help="At most this many, newest first.")] = 50,
) -> None:
    """List deliveries (the outbox), newest first."""
    settings = _settings(config, chat=False)

    async def show() -> list[str]:
        async with Store.from_url(settings.database_url) as store:
            return [
                describe(info) for info in await list_deliveries(store, state=state, limit=limit)
            ]

    try:
        found = asyncio.run(show())
    except (WireError, ValueError) as error:
        fail(str(error))
    for line in found or ["no deliveries"]:
        print(line)


@commands.command()
def health(
    config: ConfigOption = None,
    database: Annotated[
        bool, typer.Option("--database", help="Check only that the database answers.")
    ] = False,
    http: Annotated[
        bool,
        typer.Option(
            "--http", help="Check only the running service's GET /healthz on [http] port."
        ),
    ] = False,
) -> None:
    """Exit 0 when the running service is healthy, else 1 and why.

    Healthy: the database answers, the scheduler ticked lately, and GET /healthz answers
    200 when the service serves HTTP at all.
    """
    settings = _settings(config, chat=False)

    async def ping() -> None:
        async with Store.from_url(settings.database_url) as store, store.engine.connect() as conn:
            await conn.execute(text("SELECT 1"))

    try:
        if http:
            _healthz(f"http://127.0.0.1:{settings.http.port}")
        else:
            asyncio.run(asyncio.wait_for(ping(), timeout=10))
            if not database:
                _running(settings)
    except Exception as error:  # any failure means unhealthy
        Console(stderr=True, highlight=False).print(f"unhealthy: {error}", markup=False)
        raise typer.Exit(1) from None
    print("ok")


def _running(settings: Settings) -> None:
    """Raise unless the service's heartbeat is fresh and, when it serves HTTP, /healthz
    answers 200 (see `bot.app.heartbeat`)."""
    path = heartbeat_path(settings.database_url, settings.heartbeat_file)
    beat = read_beat(path)
    tick = settings.tick_interval.total_seconds()
    if problem := beat_problem(beat, path=path, now=time.time(), tick_seconds=tick):
        raise RuntimeError(problem)
    if beat is not None and beat.url:
        _healthz(beat.url)


def _healthz(server: str) -> None:
    """GET the local service's /healthz; raise with its answer unless it is 200."""
    url = f"{server.rstrip('/')}/healthz"
    try:
        answer = httpx.get(url, timeout=10)
    except httpx.HTTPError as error:
        raise RuntimeError(f"nothing answers at {url} ({error})") from None
    if answer.status_code != 200:
        raise RuntimeError(f"{url} answered {answer.status_code}: {answer.text.strip()}")


@db_app.command("upgrade")
def db_upgrade(config: ConfigOption = None) -> None:
    """Apply the database migrations (idempotent)."""
    settings = _settings(config, chat=False)
    try:
        asyncio.run(upgrade_database(settings.database_url))
    except WireError as error:
        fail(str(error))
    print(f"database {settings.database_url_for_display} is up to date")
