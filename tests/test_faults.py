"""Faults and bad input as a new user or an operator meets them: each gets one sentence,
the right exit status and no traceback. The `wire` commands run in-process through typer's
runner (a process each would cost seconds of imports), from the repository's root."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cli_runner import invoke

ROOT = Path(__file__).resolve().parents[1]
DEMO = ["--config", "config/demo.toml"]
SETTING = "check database_url in [service] or WIRE_DATABASE_URL"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str | None]:
    """No WIRE_ variable from outside, a SQLite file under tmp_path, the repository as cwd."""
    monkeypatch.chdir(ROOT)
    outside: dict[str, str | None] = {k: None for k in os.environ if k.startswith("WIRE_")}
    return outside | {
        "WIRE_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'wire.db'}",
        "WIRE_HTTP__PORT": "0",
    }


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str


def wire(*args: str, env: dict[str, str | None]) -> Done:
    result = invoke(args, env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception  # a traceback: the test fails and shows it
    return Done(result.exit_code, result.stdout, result.stderr)


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize(
    "command",
    [["run", "--once"], ["db", "upgrade"], ["deliveries"], ["console", "-e", "/wire list"]],
    ids=["run-once", "db-upgrade", "deliveries", "console"],
)
def test_postgres_down_is_one_sentence_naming_host_port_and_setting(
    command: list[str], env: dict[str, str]
) -> None:
    port = closed_port()
    env["WIRE_DATABASE_URL"] = f"postgresql+asyncpg://wire:secret-pw@127.0.0.1:{port}/wire"
    done = wire(*command, *DEMO, env=env)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"wire: cannot reach the PostgreSQL database at 127.0.0.1:{port} (connection "
        f"refused); {SETTING}\n"
    )
    assert "secret-pw" not in done.stderr


def test_a_sqlite_path_under_a_regular_file_is_one_sentence(
    tmp_path: Path, env: dict[str, str]
) -> None:
    blocker = tmp_path / "passwd"
    blocker.write_text("root:x:0:0\n")
    env["WIRE_DATABASE_URL"] = f"sqlite+aiosqlite:///{blocker}/x.db"
    for command in (["db", "upgrade"], ["run", "--once"]):
        done = wire(*command, *DEMO, env=env)
        assert (done.returncode, done.stderr) == (
            2,
            f"wire: cannot create the SQLite database {blocker}/x.db: {blocker} is a file, "
            f"not a directory; {SETTING}\n",
        )
    assert blocker.read_text() == "root:x:0:0\n"


def test_an_unknown_key_or_table_stops_the_start(tmp_path: Path, env: dict[str, str]) -> None:
    config = tmp_path / "x.toml"
    config.write_text('[service]\nfirst_lookbak = "2d"\n[bogus]\nx = 1\n')
    done = wire("run", "--once", "--config", str(config), env=env)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        f"wire: [service] first_lookbak: unknown key in {config}; did you mean first_lookback?",
        f"[bogus]: unknown table in {config}; known tables: "
        + ", ".join(f"[{name}]" for name in sorted(_tables())),
    ]
    assert not (tmp_path / "wire.db").exists()  # refused before anything was touched


def _tables() -> set[str]:
    from bot.settings import file_tables

    return set(file_tables())


def test_a_duration_without_unit_is_refused_at_start(tmp_path: Path, env: dict[str, str]) -> None:
    config = tmp_path / "x.toml"
    config.write_text("[service]\nfirst_lookback = 42\n")
    done = wire("run", "--once", "--config", str(config), env=env)
    assert (done.returncode, done.stderr) == (
        2,
        f"wire: [service] first_lookback in {config}: expected a duration such as 90s, 30m, "
        "2h or 7d (a number and its unit), got 42\n",
    )


def test_a_missing_config_file_names_where_its_name_came_from(
    tmp_path: Path, env: dict[str, str]
) -> None:
    missing = tmp_path / "nope.toml"
    done = wire("deliveries", "--config", str(missing), env=env)
    assert (done.returncode, done.stderr) == (
        2,
        f"wire: --config: config file {missing} does not exist\n",
    )
    done = wire("deliveries", env=env | {"WIRE_CONFIG": str(missing)})
    assert (done.returncode, done.stderr) == (
        2,
        f"wire: WIRE_CONFIG: config file {missing} does not exist\n",
    )


def test_only_commands_that_talk_to_slack_need_its_tokens(env: dict[str, str]) -> None:
    env["WIRE_PLATFORMS"] = '["slack"]'
    assert wire("db", "upgrade", *DEMO, env=env).returncode == 0
    listed = wire("deliveries", *DEMO, env=env)
    assert (listed.returncode, listed.stdout, listed.stderr) == (0, "no deliveries\n", "")
    running = wire("run", "--once", *DEMO, env=env)
    assert running.returncode == 2
    assert running.stderr == (
        "wire: WIRE_SLACK__BOT_TOKEN: required when 'slack' is an enabled platform, but not "
        "set\nWIRE_SLACK__SIGNING_SECRET: required when 'slack' is an enabled platform in "
        "HTTP mode, but not set (Socket Mode, with WIRE_SLACK__APP_TOKEN, needs none)\n"
    )


def test_an_empty_console_command_gets_the_help(env: dict[str, str]) -> None:
    done = wire("console", *DEMO, "-e", "", "-e", "   ", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("The Wire — commands:") == 2
    assert "• /wire subscribe TARGET…" in done.stdout and "• /wire mute" in done.stdout
