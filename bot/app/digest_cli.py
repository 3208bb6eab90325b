"""`wire digest` and `wire export`: the digest engine from the command line, no service needed.

Nothing of the service (store, scheduler, platforms) is imported here; the engine itself is
imported when a command runs, not when its help is shown.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from bot.app.cli_options import (
    ConfigOption,
    RepoOption,
    SinceOption,
    SourceOption,
    UntilOption,
    fail,
    make_window,
    open_sources,
    resolve_config,
    run_guarded,
)
from digest.errors import WireError

commands = typer.Typer()


class Format(StrEnum):
    text = "text"
    markdown = "markdown"
    json = "json"
    plain = "plain"


@commands.command()
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
    from digest.pipeline import compose_window

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
        from digest.render import render_markdown

        sys.stdout.write(render_markdown(story, project_names=names))
    elif output_format is Format.plain:
        from digest.render import render_plain

        sys.stdout.write(render_plain(story, project_names=names))
    else:
        from rich.console import Console

        from digest.render import render_terminal

        Console(highlight=False).print(render_terminal(story, project_names=names))


@commands.command()
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
    from bot import progress
    from digest.sources.replay import write_replay_line

    window = make_window(since, until)
    try:
        sources = open_sources(source, repo=repo)
    except WireError as error:
        fail(str(error))
    with progress.reporting(progress.for_stream(sys.stderr)):  # a bar, or plain lines
        activities = run_guarded(progress.gather(sources, window, label="export"))
    lines = "".join(write_replay_line(a) + "\n" for a in activities)
    if output is None:
        sys.stdout.write(lines)
    else:
        from rich.console import Console

        output.write_text(lines, encoding="utf-8")
        Console(stderr=True).print(f"wrote {len(activities)} records to {output}", markup=False)
