"""`wire console` as a person uses it: they type `/wire subscribe pola-rs/polars` (a
repository nobody configured), and the service's next due window (`wire run --once`) posts
that repository's story on the console. Both are the real commands in their own processes,
with `[github] api_url` pointed at the loopback GitHub this test serves."""

from __future__ import annotations

import asyncio
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

from tests.fakes.github import FakeGitHub
from tests.open_github import TOKEN, load_activity

ROOT = Path(__file__).resolve().parents[1]
WIRE = [sys.executable, "-c", "from bot.app.cli import main; main()"]
DEMO_NOW = datetime(2026, 5, 27, tzinfo=UTC)  # the service's clock: [demo] now


def config_for(tmp_path: Path, api_url: str) -> Path:
    """A service with no configured project, the console only, GitHub at `api_url`."""
    path = tmp_path / "wire.toml"
    path.write_text(
        f"""[service]
database_url = "sqlite+aiosqlite:///{tmp_path / "wire.db"}"
platforms = ["console"]
first_lookback = "2d"

[github]
api_url = "{api_url}"

[demo]
now = "{DEMO_NOW:%Y-%m-%dT%H:%M:%SZ}"
""",
        encoding="utf-8",
    )
    return path


async def wire(*args: str, typed: str = "") -> tuple[int, str, str]:
    """Run `wire ARGS…` with `typed` on its stdin, as a person at a terminal would."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WIRE_")}
    process = await asyncio.create_subprocess_exec(
        *WIRE,
        *args,
        cwd=ROOT,
        env=env | {"WIRE_GITHUB__TOKEN": TOKEN},
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(typed.encode()), timeout=120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_subscribing_in_the_console_brings_that_repository_story(tmp_path: Path) -> None:
    async with FakeGitHub(tokens=[TOKEN]) as github:
        load_activity(github, "pola-rs-polars-2026-q2.jsonl", until=DEMO_NOW)
        config = str(config_for(tmp_path, github.url))
        code, out, err = await wire(
            "console",
            "--config",
            config,
            "--channel",
            "deps",
            "--user",
            "dana",
            typed="/wire subscribe pola-rs/polars\n/wire list\n",
        )
        assert code == 0, err
        assert "#deps: Subscribed to pola-rs/polars: its next digest is Wed 09:00 UTC." in out
        assert "• pola-rs/polars — by dana" in out
        code, out, err = await wire("run", "--once", "--config", config)
        assert code == 0, err
        again, later, _ = await wire("run", "--once", "--config", config)
        assert github.problems == []
    assert "#deps" in out and "https://github.com/pola-rs/polars/pull/" in out
    assert again == 0 and "pola-rs/polars/pull/" not in later  # that window is delivered
