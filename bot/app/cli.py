"""`wire` — the command line of The Wire.

Every error a person can fix is a WireError whose message says what to fix; the CLI prints
that one sentence and exits with status 2, never a traceback (see `bot.app.cli_options`).

Each command lives in a module that defines a `typer.Typer` named `commands`, and is listed
in `COMMANDS` below with its one-line summary. The module is imported only when its command
runs (or shows its own help), so `wire --help` imports no command at all and `wire digest`
never imports the service. To add a command: write it on the `commands` of a module (a new
one, or one whose imports it shares) and add one line to `COMMANDS`, naming the extra of
the package it needs, if any.
"""

from __future__ import annotations

import typer

from bot.app.lazy_commands import LazyCommand, LazyTyperGroup

DIGEST = "bot.app.digest_cli"
SERVICE = "bot.app.service_cli"
# `wire digest` and `wire export` need only the core install; the others need the
# service's extra, and say so when it is missing
SERVICE_EXTRA = "service"

# name → where it lives and what `wire --help` says of it (its docstring's first line)
COMMANDS: dict[str, LazyCommand] = {
    "digest": LazyCommand(DIGEST, "Compose the story of a window and print it."),
    "export": LazyCommand(
        DIGEST, "Record a window of any source as JSON Lines that `replay:FILE` reads back."
    ),
    "run": LazyCommand(
        SERVICE,
        "Run the service: scheduler, delivery worker and every enabled platform.",
        SERVICE_EXTRA,
    ),
    "console": LazyCommand(
        SERVICE,
        "Type `/wire …` commands against the console platform (reads stdin without -e).",
        SERVICE_EXTRA,
    ),
    "deliveries": LazyCommand(
        SERVICE, "List deliveries (the outbox), newest first.", SERVICE_EXTRA
    ),
    "health": LazyCommand(
        SERVICE, "Exit 0 when the running service is healthy, else 1 and why.", SERVICE_EXTRA
    ),
    "db": LazyCommand(SERVICE, "The database: migrations.", SERVICE_EXTRA),
    "doctor": LazyCommand(
        "bot.app.doctor",
        "Check the config, database, migrations and every token; one line each, ok or the fix.",
        SERVICE_EXTRA,
    ),
}


class WireCommands(LazyTyperGroup):
    """The `wire` group: the commands of `COMMANDS`, each imported when it runs."""

    lazy_commands = COMMANDS


app = typer.Typer(
    name="wire",
    cls=WireCommands,
    help="The Wire: cited news stories about what changed in the repositories you depend on.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def wire() -> None:
    """The Wire: cited news stories about what changed in the repositories you depend on."""


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
