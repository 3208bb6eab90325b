"""`wire run`, `wire console`, `wire health`, `wire db upgrade`, `wire deliveries` as processes
on the demo configuration, each on its own SQLite database (WIRE_DATABASE_URL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import pytest

ROOT = Path(__file__).resolve().parents[1]
WIRE = [sys.executable, "-c", "from bot.app.cli import main; main()"]
DEMO = ["--config", "config/demo.toml"]
HEADLINE = "CI-INFRA SPLITS PRE-MERGE CI INTO FAST AND SLOW GATES"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("WIRE_")}
    return clean | {
        "WIRE_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'wire.db'}",
        "WIRE_HTTP__PORT": "0",  # the demo serves its archive: on a free port, not 3000
    }


def wire(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*WIRE, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )


def lines_until(stream: IO[str], needle: str, *, seconds: float = 30) -> list[str]:
    """The lines a running process writes to `stream` up to the first holding `needle` (or
    its end, or `seconds`)."""
    seen = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        line = stream.readline()
        seen.append(line)
        if needle in line or not line:
            break
    return seen


def test_run_once_twice_posts_the_demo_story_once(env: dict[str, str]) -> None:
    first = wire("run", "--once", *DEMO, env=env)
    assert first.returncode == 0, first.stderr
    assert first.stdout.count("#demo") == 1 and HEADLINE in first.stdout
    assert "[immediate] Check what now blocks merges in ci-infra" in first.stdout
    assert "(2026-05-25 00:00 – 2026-05-27 00:00 UTC)" in first.stdout
    second = wire("run", "--once", *DEMO, env=env)
    assert second.returncode == 0, second.stderr
    assert "#demo" not in second.stdout and HEADLINE not in second.stdout
    assert "due channels: 0" in second.stderr

    listed = wire("deliveries", *DEMO, "--state", "delivered", env=env)
    assert listed.returncode == 0 and listed.stdout.count("console:demo") == 1
    # parent, body, one part per action item, references
    items = sum(first.stdout.count(f"↳ [{tag}]") for tag in ("immediate", "monitor", "plan"))
    assert items >= 1
    assert f"parts={items + 3}" in listed.stdout and HEADLINE in listed.stdout
    bad = wire("deliveries", *DEMO, "--state", "lost", env=env)
    assert bad.returncode == 2 and "unknown delivery state" in bad.stderr


def test_sigterm_stops_the_service_cleanly_after_the_story(env: dict[str, str]) -> None:
    service = subprocess.Popen(
        [*WIRE, "run", *DEMO],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert service.stdout is not None
        seen = lines_until(service.stdout, HEADLINE)
        assert any(HEADLINE in line for line in seen), "".join(seen)
        service.send_signal(signal.SIGTERM)
        _, err = service.communicate(timeout=20)
    finally:
        if service.poll() is None:
            service.kill()
            service.wait()
    assert service.returncode == 0, err
    assert "wire.service: stopped" in err


def test_a_second_run_says_the_demo_window_went_out_already(
    env: dict[str, str], tmp_path: Path
) -> None:
    assert wire("run", "--once", *DEMO, env=env).returncode == 0
    service = subprocess.Popen(
        [*WIRE, "run", *DEMO], cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        assert service.stderr is not None
        seen = lines_until(service.stderr, "already delivered")
        service.send_signal(signal.SIGTERM)
        seen += service.communicate(timeout=20)[1].splitlines()
    finally:
        if service.poll() is None:
            service.kill()
            service.wait()
    said = [line.strip() for line in seen if "already delivered" in line]
    assert said == [
        "the demo window (2026-05-25 00:00 – 2026-05-27 00:00 UTC) was already delivered to "
        f"#demo; `rm {tmp_path / 'wire.db'}` to see it again"
    ], "".join(seen)


def test_console_commands_against_the_demo(env: dict[str, str]) -> None:
    done = wire(
        "console",
        *DEMO,
        "--user",
        "dana",
        "-e",
        "/wire list",
        "-e",
        "/wire subscribe executorch topic:xnnpack",
        "-e",
        "/wire subscribe pytorch/secret",
        "-e",
        "/wire preview ci-infra",
        env=env | {"WIRE_SUBSCRIBING__OPEN": "config"},  # configured projects only: no GitHub
    )
    assert done.returncode == 2, done.stderr  # one command was refused
    out = done.stdout
    assert "ExecuTorch — by config" in out and "ci-infra — by config" in out
    assert "#demo: Subscribed this channel to ExecuTorch topic:XNNPACK." in out
    assert "not a project this Wire follows" in out and "Usage: /wire subscribe" in out
    assert "Preview (2026-05-25 00:00 – 2026-05-27 00:00 UTC)" in out and "References:" in out


def test_console_exits_0_when_every_command_worked(env: dict[str, str]) -> None:
    done = wire("console", *DEMO, "-e", "/wire list", "-e", "/wire topics executorch", env=env)
    assert done.returncode == 0, done.stderr
    refused = wire("console", *DEMO, "-e", "/wire list", "-e", "/wire mute forever", env=env)
    assert refused.returncode == 2 and "Usage: /wire mute" in refused.stdout


def test_health_and_db_upgrade(env: dict[str, str]) -> None:
    upgraded = wire("db", "upgrade", *DEMO, env=env)
    assert upgraded.returncode == 0 and "is up to date" in upgraded.stdout
    assert wire("health", "--database", *DEMO, env=env).returncode == 0
    idle = wire("health", *DEMO, env=env)  # the database answers, but no service runs
    assert idle.returncode == 1 and "the service is not running here" in idle.stderr
    down = env | {"WIRE_DATABASE_URL": "postgresql+asyncpg://nobody:x@127.0.0.1:9/none"}
    unhealthy = wire("health", "--database", *DEMO, env=down)
    assert unhealthy.returncode == 1 and "unhealthy" in unhealthy.stderr
    assert "nobody:x" not in unhealthy.stderr


@pytest.mark.parametrize("web", ["true", "false"])
def test_health_checks_what_the_running_service_runs(env: dict[str, str], web: str) -> None:
    """With the archive on, `wire health` asks the heartbeat and /healthz; with no web server
    at all (Socket Mode, Discord only) the heartbeat alone, and it is healthy all the same."""
    env = env | {"WIRE_WEB__ENABLED": web, "WIRE_WEB__METRICS": web}
    service = subprocess.Popen(
        [*WIRE, "run", *DEMO], cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 30
        checked = wire("health", *DEMO, env=env)
        while checked.returncode != 0 and time.monotonic() < deadline:
            time.sleep(0.5)
            checked = wire("health", *DEMO, env=env)
        assert checked.returncode == 0 and checked.stdout.strip() == "ok", checked.stderr
        if web == "false":
            assert wire("health", "--http", *DEMO, env=env).returncode == 1
        service.send_signal(signal.SIGTERM)
        service.communicate(timeout=20)
    finally:
        if service.poll() is None:
            service.kill()
            service.wait()
    stopped = wire("health", *DEMO, env=env)
    assert stopped.returncode == 1 and "the service is not running here" in stopped.stderr
