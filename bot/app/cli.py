"""`wire` — the command line of The Wire.

Every error a person can fix is a WireError whose message says what to fix; the CLI prints
that one sentence and exits with status 2, never a traceback.
"""

from __future__ import annotations

import asyncio
import os
import sys
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from digest.config import WireConfig, load_config
from digest.errors import WireError
from digest.model import Window
from digest.pipeline import compose_window, gather
from digest.render import render_markdown, render_plain, render_terminal
from digest.sources import open_source
from digest.sources.replay import write_replay_line

app = typer.Typer(
    name="wire",
    help="The Wire: cited news stories about what changed in the repositories you depend on.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
DEFAULT_CONFIGS = (Path("config/wire.toml"), Path("config/wire.example.toml"))


class Format(StrEnum):
    text = "text"
    markdown = "markdown"
    json = "json"
    plain = "plain"


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
        help="Project configuration (TOML); default $WIRE_CONFIG or config/wire.toml.",
    ),
]


def fail(message: str) -> None:
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
    if path is None and os.environ.get("WIRE_CONFIG"):
        path = Path(os.environ["WIRE_CONFIG"])
    if path is None:
        path = next((p for p in DEFAULT_CONFIGS if p.is_file()), None)
    return load_config(path)


def open_sources(specs: list[str], *, repo: str | None) -> list:
    """Open each `--source`; GitHub sources take their API URL from WIRE_GITHUB__API_URL."""
    github = {}
    if api_url := os.environ.get("WIRE_GITHUB__API_URL"):
        github["api_url"] = api_url
    return [
        open_source(spec, repo=repo, **(github if spec.startswith("github:") else {}))
        for spec in specs
    ]


def make_window(since: str, until: str | None) -> Window:
    start = parse_time(since, option="--since")
    end = parse_time(until, option="--until") if until else datetime.now(UTC)
    if start >= end:
        fail(f"--since ({start.isoformat()}) must be before --until ({end.isoformat()})")
    return Window(since=start, until=end)


def run_guarded(coro):
    """Run a coroutine, turning WireErrors into one-sentence failures."""
    try:
        return asyncio.run(coro)
    except WireError as error:
        fail(str(error))


@app.command()
def digest(
    source: SourceOption,
    since: SinceOption,
    until: UntilOption = None,
    repo: RepoOption = None,
    topic: Annotated[
        str | None, typer.Option("--topic", help="Only this topic (e.g. xnnpack).")
    ] = None,
    config: ConfigOption = None,
    output_format: Annotated[
        Format, typer.Option("--format", "-f", help="Output format.")
    ] = Format.text,
) -> None:
    """Compose the story of a window and print it."""
    window = make_window(since, until)
    try:
        cfg = resolve_config(config)
        sources = open_sources(source, repo=repo)
    except WireError as error:
        fail(str(error))
    story = run_guarded(
        compose_window(
            sources, config=cfg, window=window, topic=topic, repos=[repo] if repo else []
        )
    )
    names = [cfg.project(r).name for r in story.repos]
    if output_format is Format.json:
        sys.stdout.write(story.model_dump_json(indent=2) + "\n")
    elif output_format is Format.markdown:
        sys.stdout.write(render_markdown(story, project_names=names))
    elif output_format is Format.plain:
        sys.stdout.write(render_plain(story, project_names=names))
    else:
        Console(highlight=False).print(render_terminal(story, project_names=names))


@app.command()
def export(
    source: SourceOption,
    since: SinceOption,
    until: UntilOption = None,
    repo: RepoOption = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write here instead of stdout.")
    ] = None,
) -> None:
    """Record a window of any source as JSON Lines that `replay:FILE` reads back."""
    window = make_window(since, until)
    try:
        sources = open_sources(source, repo=repo)
    except WireError as error:
        fail(str(error))
    activities = run_guarded(gather(sources, window))
    lines = "".join(write_replay_line(a) + "\n" for a in activities)
    if output is None:
        sys.stdout.write(lines)
    else:
        output.write_text(lines, encoding="utf-8")
        Console(stderr=True).print(f"wrote {len(activities)} records to {output}", markup=False)


def main() -> None:
    """Console-script entry point."""
    app()


# The service's commands (run, console, deliveries, health, db upgrade) register themselves.
from bot.app import service_cli  # noqa: E402, F401

if __name__ == "__main__":
    main()
