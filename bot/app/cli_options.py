"""What every `wire` command shares: its common options and its way of failing.

Every error a person can fix is a WireError whose message says what to fix; a command prints
that one sentence and exits with status 2, never a traceback.

Only typer is imported here; the digest engine is imported by the helpers that need it, when
they run, so that `wire --help` and `wire COMMAND --help` stay quick.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer

from digest.errors import WireError

if TYPE_CHECKING:
    from collections.abc import Coroutine

    from digest.config import WireConfig
    from digest.model import Window
    from digest.sources import Source

T = TypeVar("T")
DEFAULT_CONFIGS = (Path("config/wire.toml"), Path("config/wire.example.toml"))

SourceOption = Annotated[
    list[str],
    typer.Option(
        "--source",
        "-s",
        help="SCHEME:ARG — git:PATH, replay:FILE.jsonl or github:OWNER/REPO; repeatable.",
    ),
]
RepoOption = Annotated[
    str | None, typer.Option("--repo", help="OWNER/REPO: narrow the sources to one repository.")
]
SinceOption = Annotated[
    str, typer.Option("--since", help="Window start, ISO 8601 (UTC if no offset).")
]
UntilOption = Annotated[
    str | None, typer.Option("--until", help="Window end, ISO 8601; default now.")
]
ConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--config",
        "-c",
        help=(
            "Project configuration (TOML); default $WIRE_CONFIG, then config/wire.toml, "
            "then config/wire.example.toml."
        ),
    ),
]


def fail(message: str) -> NoReturn:
    """Print one error sentence and exit 2."""
    typer.echo(f"wire: {message}", err=True)
    raise typer.Exit(2)


def parse_time(value: str, *, option: str) -> datetime:
    """An aware UTC datetime from ISO 8601; a naive time is taken as UTC."""
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        fail(f"{option} {value!r} is not an ISO 8601 time; use e.g. 2026-05-25T00:00:00Z")
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def resolve_config(path: Path | None) -> WireConfig:
    """The configuration from --config, $WIRE_CONFIG, or the first default file that exists."""
    from digest.config import load_config

    if path is None and os.environ.get("WIRE_CONFIG"):
        path = Path(os.environ["WIRE_CONFIG"])
    if path is None:
        path = next((p for p in DEFAULT_CONFIGS if p.is_file()), None)
    return load_config(path)


def open_sources(specs: list[str], *, repo: str | None) -> list[Source]:
    """Open each `--source`; GitHub sources take their API URL from WIRE_GITHUB__API_URL."""
    from digest.sources import open_source

    github = {}
    if api_url := os.environ.get("WIRE_GITHUB__API_URL"):
        github["api_url"] = api_url
    return [
        open_source(spec, repo=repo, **(github if spec.startswith("github:") else {}))
        for spec in specs
    ]


def make_window(since: str, until: str | None) -> Window:
    """The window of `--since` and `--until` (default now); it must not be empty."""
    from digest.model import Window

    start = parse_time(since, option="--since")
    end = parse_time(until, option="--until") if until else datetime.now(UTC)
    if start >= end:
        fail(f"--since ({start.isoformat()}) must be before --until ({end.isoformat()})")
    return Window(since=start, until=end)


def run_guarded(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine, turning WireErrors into one-sentence failures."""
    import asyncio

    try:
        return asyncio.run(coro)
    except WireError as error:
        fail(str(error))
