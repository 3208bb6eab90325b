"""A Typer group whose subcommands are imported only when one of them runs.

`wire --help` lists every command from a one-line summary kept beside its module name, so it
imports none of them; `wire digest …` imports the module of `digest` and nothing else (not
the service, SQLAlchemy, aiohttp or APScheduler). This is click's "lazy group" pattern on
Typer's group class: placeholders stand in `commands` until `resolve_command` swaps in the
real command.

A command that needs an extra of the package (`pip install 'the-wire[service]'`) names it:
when its module cannot import a library the install lacks, `wire` says which extra to
install, in one sentence with exit status 2, instead of a traceback.

Typer coerces every parameter through a pydantic TypeAdapter, built the first time the
parameter is processed, and it builds one for a help flag left unset (value None, which
coercion returns as None before the adapter is used). Left alone, that makes `wire digest
--help` import pydantic only to process the group's own unset `--help`; `cheap_help` gives
the help flags the pass-through coercion instead, with the same result.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, ClassVar

import typer
from typer.core import TyperCommand, TyperGroup

pass_through: type[PassThroughRuntimeParam] | None
try:  # typer's coercion layer (0.25+): the pass-through needs no pydantic
    from typer._coercion import PassThroughRuntimeParam

    pass_through = PassThroughRuntimeParam
except ImportError:  # pragma: no cover - an older typer builds no adapter for help
    pass_through = None


@dataclass(frozen=True)
class LazyCommand:
    """Where a subcommand lives: `module` defines a `typer.Typer` named `commands` holding it."""

    module: str
    summary: str  # the first line of its docstring, shown by `wire --help`
    extra: str | None = None  # the extra of [project.optional-dependencies] it needs


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

    def get_help_option(self, ctx: Any) -> Any:
        """The group's `--help`, coerced without pydantic."""
        return cheap_help(super().get_help_option(ctx))


def cheap_help(option: Any) -> Any:
    """`option` (a help flag, or None) with typer's pass-through coercion preset.

    A help flag's value is True when given and None when not; typer skips coercion of a
    bool and returns None for None before any adapter runs, so the pass-through changes no
    result and spares building a pydantic TypeAdapter (and importing pydantic) for it.
    """
    descriptor = getattr(option, "type_descriptor", None)
    if (
        pass_through is not None
        and descriptor is not None
        and descriptor.annotation is bool
        and getattr(option, "_runtime_param", False) is None
    ):
        option._runtime_param = pass_through(
            parameter_info=descriptor.parameter_info, annotation=bool
        )
    return option


# the packages of this project: a module of theirs that is missing is a bug, not an extra
OWN_PACKAGES = frozenset({"bot", "digest"})


def install_hint(extra: str) -> str:
    """The command that installs `extra`."""
    return f"pip install 'the-wire[{extra}]'"


def load_command(name: str, lazy: LazyCommand) -> Any:
    """The click command `name` from the `commands` Typer of `lazy.module`; exits 2 naming
    the extra to install when the module needs a library this install lacks."""
    try:
        module = importlib.import_module(lazy.module)
    except ModuleNotFoundError as error:
        missing = (error.name or "").partition(".")[0]
        if lazy.extra is None or not missing or missing in OWN_PACKAGES:
            raise
        typer.echo(
            f"wire: `wire {name}` needs the {lazy.extra} extra, which this install lacks "
            f"(no module named {missing!r}): {install_hint(lazy.extra)}",
            err=True,
        )
        raise typer.Exit(2) from error
    group = typer.main.get_group(module.commands)
    if name not in group.commands:
        raise LookupError(f"{lazy.module}.commands has no command {name!r}")
    return group.commands[name]
