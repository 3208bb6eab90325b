"""`wire` imports a command's module only when that command runs."""

from __future__ import annotations

import subprocess
import sys

import pytest
import typer

from bot.app.cli import COMMANDS
from bot.app.lazy_commands import load_command

PROBE = """
import sys
from bot.app.cli import main
sys.argv = ["wire", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
loaded = sorted(m for m in sys.modules if m.startswith(("bot.", "digest.", "sqlalchemy",
    "aiohttp", "apscheduler", "slack_bolt", "discord", "pydantic")))
print("LOADED", " ".join(loaded))
"""


def loaded_after(*args: str) -> set[str]:
    """The bot/digest modules and heavy libraries imported by `wire ARGS`."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=True
    )
    line = next(line for line in done.stdout.splitlines() if line.startswith("LOADED"))
    return set(line.split()[1:])


def test_help_imports_no_command_module() -> None:
    loaded = loaded_after("--help")

    assert not {COMMANDS[name].module for name in COMMANDS} & loaded
    assert not any(m.startswith("digest.") for m in loaded), sorted(loaded)


def test_digest_help_imports_neither_the_service_nor_the_engine() -> None:
    loaded = loaded_after("digest", "--help")

    assert "bot.app.digest_cli" in loaded
    assert "bot.app.service_cli" not in loaded
    assert not {"sqlalchemy", "aiohttp", "apscheduler", "digest.pipeline"} & loaded, sorted(loaded)


@pytest.mark.parametrize("args", [("--help",), ("digest", "--help"), ("export", "--help")])
def test_help_imports_no_pydantic(args: tuple[str, ...]) -> None:
    # typer would build a pydantic TypeAdapter for the group's unset --help flag
    loaded = loaded_after(*args)

    assert not any(m == "pydantic" or m.startswith("pydantic.") for m in loaded), sorted(loaded)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_listed_command_exists_with_the_summary_help_shows(name: str) -> None:
    command = load_command(name, COMMANDS[name])

    assert command.name == name
    real = (command.help or "").strip().splitlines()[0]
    assert COMMANDS[name].summary == real


def test_every_command_of_a_listed_module_is_listed() -> None:
    modules = {lazy.module for lazy in COMMANDS.values()}
    for module in modules:
        group = typer.main.get_group(__import__(module, fromlist=["commands"]).commands)
        assert set(group.commands) <= set(COMMANDS), module
