"""`wire doctor` against the loopback Slack, Discord and GitHub: one line per check, ok or
the fix, and exit 1 when one fails. Tokens are real requests to the fakes, never printed."""

from __future__ import annotations

import os
import socket
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory

from bot.app.doctor import run_checks
from bot.settings import load_settings
from bot.store import upgrade_database
from bot.store.engine import alembic_config
from tests.cli_runner import invoke
from tests.fakes.discord_gateway import LoopbackDiscord
from tests.fakes.github import FakeGitHub
from tests.fakes.slack_server import FakeSlack

ROOT = Path(__file__).resolve().parents[1]
SLACK, GITHUB, SECRET = "xoxb-doctor-5e1f09", "ghp_doctor5e1f09aa", "s" * 32
NEWEST = ", ".join(sorted(ScriptDirectory.from_config(alembic_config()).get_heads()))


@pytest.fixture
async def fakes() -> AsyncIterator[tuple[FakeSlack, LoopbackDiscord, FakeGitHub]]:
    async with (
        FakeSlack(tokens=[SLACK]) as slack,
        LoopbackDiscord() as discord,
        FakeGitHub(tokens=[GITHUB], scopes={GITHUB: "repo, read:org"}) as github,
    ):
        yield slack, discord, github
        assert slack.problems == [] and discord.problems == [] and github.problems == []


def settings_for(tmp_path: Path, fakes, *, slack=SLACK, discord=None, github=GITHUB, secret=SECRET):
    slack_fake, discord_fake, github_fake = fakes
    return load_settings(
        env_file=None,
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'wire.db'}",
        platforms=("slack", "discord"),
        slack={"bot_token": slack, "signing_secret": "x" * 32, "api_url": slack_fake.url},
        discord={"bot_token": discord or discord_fake.api.token, "api_url": discord_fake.api_url},
        github={"token": github, "api_url": github_fake.url, "webhook_secret": secret},
    )


def reset_of(github: FakeGitHub) -> str:
    return datetime.fromtimestamp(int(github.quota["core"].reset_at), UTC).strftime("%H:%M UTC")


async def test_every_check_passes_with_good_tokens(tmp_path: Path, fakes) -> None:
    await upgrade_database(f"sqlite+aiosqlite:///{tmp_path / 'wire.db'}")
    checks = await run_checks(settings_for(tmp_path, fakes))
    assert [c.line() for c in checks] == [
        f"ok    database: sqlite+aiosqlite:///{tmp_path / 'wire.db'} answers",
        f"ok    migrations: at {NEWEST} (the newest)",
        "ok    slack: the bot token works (workspace Wire Test, bot wire)",
        "ok    discord: the bot token works (bot the-wire)",
        "ok    github: token scopes repo, read:org; 5,000 of 5,000 requests left until "
        f"{reset_of(fakes[2])}",
        "ok    webhook secret: set, 32 characters",
    ]
    assert fakes[2].quota["core"].spent == 0  # /rate_limit costs nothing


async def test_each_failing_check_says_the_fix(tmp_path: Path, fakes) -> None:
    settings = settings_for(
        tmp_path, fakes, slack="xoxb-revoked", discord="stale", github="ghp_gone", secret="short"
    )
    lines = [c.line() for c in await run_checks(settings)]
    assert lines == [
        f"ok    database: sqlite+aiosqlite:///{tmp_path / 'wire.db'} answers",
        f"FAIL  migrations: the database has no migration applied, the newest is {NEWEST}; "
        "run `wire db upgrade`",
        "FAIL  slack: auth.test refused the bot token (invalid_auth); replace "
        "WIRE_SLACK__BOT_TOKEN with the app's Bot User OAuth Token",
        "FAIL  discord: /users/@me refused the bot token (HTTP 401); replace "
        "WIRE_DISCORD__BOT_TOKEN with the bot's token",
        "FAIL  github: GitHub refused the token (401 Bad credentials); replace WIRE_GITHUB__TOKEN",
        "FAIL  webhook secret: 5 characters; use at least 16 random ones (openssl rand -hex "
        "32) here and in GitHub",
        "warn  secrets: WIRE_DISCORD__BOT_TOKEN, WIRE_GITHUB__TOKEN, "
        "WIRE_GITHUB__WEBHOOK_SECRET: fewer than 12 characters or a dictionary word, so logs "
        "redact it only where it stands as a value (password=…); use a long random one",
    ]
    for secret in ("xoxb-revoked", "stale", "ghp_gone", "short"):
        assert all(secret not in line for line in lines)


async def test_an_exhausted_github_budget_fails(tmp_path: Path, fakes) -> None:
    github = fakes[2]
    github.exhaust("core", reset_in=600)
    checks = await run_checks(settings_for(tmp_path, fakes))
    (line,) = [c.line() for c in checks if c.name == "github"]
    assert line == (
        f"FAIL  github: token scopes repo, read:org; no request left until {reset_of(github)}: "
        "wait, or use another token"
    )


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_command_prints_one_line_per_check_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    port = closed_port()
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("WIRE_")}
    env |= {
        "WIRE_DATABASE_URL": f"postgresql+asyncpg://wire:pw@127.0.0.1:{port}/wire",
        "WIRE_GITHUB__API_URL": f"http://127.0.0.1:{port}",
    }
    done = invoke(["doctor", "--config", "config/demo.toml"], env=env)
    lines = done.stdout.splitlines()
    assert done.exit_code == 1
    assert lines[0] == "ok    config: config/demo.toml, 2 projects, platforms console"
    assert lines[1] == (
        f"FAIL  database: cannot reach the PostgreSQL database at 127.0.0.1:{port} (connection "
        "refused); check database_url in [service] or WIRE_DATABASE_URL"
    )
    # the demo replays files: only /wire subscribe OWNER/REPO would ask GitHub, so it warns
    assert lines[2].startswith("warn  github: unreachable (ClientConnector")
    assert lines[2].endswith(
        "; check the network or a proxy; only /wire subscribe OWNER/REPO needs GitHub here"
    )
    assert lines[3].startswith("warn  secrets: WIRE_DATABASE_URL password: fewer than 12")
    assert "pw" not in lines[3] and len(lines) == 4

    offline = env | {"WIRE_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'demo.db'}"}
    assert invoke(["db", "upgrade", "--config", "config/demo.toml"], env=offline).exit_code == 0
    done = invoke(["doctor", "--config", "config/demo.toml"], env=offline)
    assert done.exit_code == 0, done.stdout  # an offline demo is healthy
    assert [line[:4] for line in done.stdout.splitlines()] == ["ok  ", "ok  ", "ok  ", "warn"]

    closed = {"WIRE_SUBSCRIBING__OPEN": "config"}  # nothing here uses GitHub at all
    done = invoke(["doctor", "--config", "config/demo.toml"], env=offline | closed)
    assert done.exit_code == 0 and "github" not in done.stdout

    sourced = tmp_path / "github.toml"  # a project read from GitHub: unreachable fails
    sourced.write_text('[[projects]]\nrepo = "astral-sh/uv"\nname = "uv"\n')
    done = invoke(["doctor", "--config", str(sourced)], env=offline)
    assert done.exit_code == 1
    assert "FAIL  github: unreachable (ClientConnector" in done.stdout

    bad = tmp_path / "x.toml"
    bad.write_text('[service]\nfirst_lookbak = "2d"\n')
    done = invoke(["doctor", "--config", str(bad)], env=env)
    assert (done.exit_code, done.stdout) == (
        1,
        f"FAIL  config: [service] first_lookbak: unknown key in {bad}; did you mean "
        "first_lookback?\n",
    )


def test_the_command_warns_by_name_about_each_short_or_dictionary_word_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A weak secret is redacted from the log only where it stands as a value, so doctor
    names it (never its value); a long random one is not named."""
    monkeypatch.chdir(ROOT)
    port = closed_port()
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("WIRE_")}
    env |= {
        "WIRE_DATABASE_URL": f"postgresql+asyncpg://wire:wire@127.0.0.1:{port}/wire",
        "WIRE_GITHUB__API_URL": f"http://127.0.0.1:{port}",
        "WIRE_SLACK__SIGNING_SECRET": "Administrator",  # 13 letters, but a dictionary word
        "WIRE_WEB__TOKEN": "kX9mArchive7Tq2Lw4",
    }
    done = invoke(["doctor", "--config", "config/demo.toml"], env=env)
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("warn  secrets:")]
    assert line == (
        "warn  secrets: WIRE_DATABASE_URL password, WIRE_SLACK__SIGNING_SECRET: fewer than 12 "
        "characters or a dictionary word, so logs redact it only where it stands as a value "
        "(password=…); use a long random one"
    )
    assert "Administrator" not in done.stdout and "kX9mArchive7Tq2Lw4" not in done.stdout
