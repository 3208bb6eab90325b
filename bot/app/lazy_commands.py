"""A Typer group whose subcommands are imported only when one of them runs.

`wire --help` lists every command from a one-line summary kept beside its module name, so it
imports none of them; `wire digest …` imports the module of `digest` and nothing else (not
the service, SQLAlchemy, aiohttp or APScheduler). This is click's "lazy group" pattern on
Typer's group class: placeholders stand in `commands` until `resolve_command` swaps in the
real command.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, ClassVar

import typer
from typer.core import TyperCommand, TyperGroup


@dataclass(frozen=True)
class LazyCommand:
    """Where a subcommand lives: `module` defines a `typer.Typer` named `commands` holding it."""

    module: str
    summary: str  # the first line of its docstring, shown by `wire --help`


class LazyTyperGroup(TyperGroup):
    """A TyperGroup that imports the module of a subcommand the first time it is resolved.

    Subclasses set `lazy_commands` (name → LazyCommand), in the order help lists them.
    """

    lazy_commands: ClassVar[dict[str, LazyCommand]] = {}

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        for name, lazy in self.lazy_commands.items():
            self.commands.setdefault(name, TyperCommand(name=name, help=lazy.summary))

    def resolve_command(self, ctx: Any, args: list[str]) -> tuple[str | None, Any, list[str]]:
        """Import the named subcommand's module before resolving it as usual."""
        if args and args[0] in self.lazy_commands:
            self.commands[args[0]] = load_command(args[0], self.lazy_commands[args[0]])
        return super().resolve_command(ctx, args)


def load_command(name: str, lazy: LazyCommand) -> Any:
    """The click command `name` from the `commands` Typer of `lazy.module`."""
    module = importlib.import_module(lazy.module)
    group = typer.main.get_group(module.commands)
    if name not in group.commands:
        raise LookupError(f"{lazy.module}.commands has no command {name!r}")
    return group.commands[name]
