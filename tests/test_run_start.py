"""What an operator meets when `wire run` starts: a port already taken is one sentence and
exit 2, and Slack in Socket Mode starts without a signing secret. The real command runs as a
process on the demo configuration, each on its own SQLite database; the sockets are real."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qsl

import pytest

from bot.errors import SettingsError
from bot.settings import load_settings
from bot.slack.adapter import SlackAdapter
from tests.fakes.slack_server import FakeSlack
from tests.slack_requests import TOKEN, eventually, slash_command

ROOT = Path(__file__).resolve().parents[1]
WIRE = [sys.executable, "-c", "from bot.app.cli import main; main()"]
DEMO = ["--config", "config/demo.toml"]
APP_TOKEN = "xapp-1-A0WIRE0001-wire-start"
CHANNEL = "C0WIRE0001"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """This process's environment less every WIRE_ setting, on a database under tmp_path."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("WIRE_")}
    return clean | {"WIRE_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'wire.db'}"}


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A loopback port another program listens on."""
    with socket.create_server(("127.0.0.1", 0)) as other:
        yield other.getsockname()[1]


def test_a_port_in_use_is_one_sentence_naming_the_setting(
    env: dict[str, str], taken_port: int
) -> None:
    started = subprocess.run(
        [*WIRE, "run", *DEMO],
        cwd=ROOT,
        env=env | {"WIRE_HTTP__PORT": str(taken_port)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert started.returncode == 2, started.stderr
    assert "Traceback" not in started.stderr
    [line] = started.stderr.splitlines()
    assert line.startswith(
        f"wire: port {taken_port} on 127.0.0.1 is already in use; set [http] port to a free "
        "one (e.g. WIRE_HTTP__PORT="
    ), line
    suggested = int(line.rpartition("=")[2].rstrip(")"))
    assert suggested != taken_port


# ---------------------------------------------------------------- Slack in Socket Mode


def test_socket_mode_needs_no_signing_secret_and_http_mode_does() -> None:
    """Socket Mode's requests arrive over the WebSocket the app opens, so nothing is signed;
    over HTTP the signing secret is how a request proves it comes from Slack."""
    socket_mode = load_settings(
        env_file=None, platforms=("slack",), slack={"bot_token": TOKEN, "app_token": APP_TOKEN}
    )
    adapter = SlackAdapter.from_settings(socket_mode)
    assert adapter.socket_mode
    with pytest.raises(SettingsError) as refused:
        load_settings(env_file=None, platforms=("slack",), slack={"bot_token": TOKEN})
    assert refused.value.problems == [
        "WIRE_SLACK__SIGNING_SECRET: required when 'slack' is an enabled platform in HTTP "
        "mode, but not set (Socket Mode, with WIRE_SLACK__APP_TOKEN, needs none)"
    ]


async def _wire(*args: str, env: dict[str, str]) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        *WIRE,
        *args,
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


def _socket_mode(env: dict[str, str], slack: FakeSlack) -> dict[str, str]:
    """Slack as the only platform, in Socket Mode, against the loopback Slack; no secret."""
    return env | {
        "WIRE_PLATFORMS": '["slack"]',
        "WIRE_SLACK__BOT_TOKEN": TOKEN,
        "WIRE_SLACK__APP_TOKEN": APP_TOKEN,
        "WIRE_SLACK__API_URL": slack.url,
        "WIRE_HTTP__PORT": "0",
    }


async def test_doctor_passes_the_config_of_socket_mode_without_a_signing_secret(
    env: dict[str, str],
) -> None:
    async with FakeSlack(tokens=[TOKEN], app_tokens=[APP_TOKEN]) as slack:
        doctor = await _wire("doctor", *DEMO, env=_socket_mode(env, slack))
        out, err = await asyncio.wait_for(doctor.communicate(), timeout=60)
    lines = out.decode().splitlines()
    assert "SIGNING_SECRET" not in out.decode() + err.decode()
    assert any(line.startswith("ok    config:") for line in lines), lines
    assert any(line.startswith("ok    slack: the bot token works") for line in lines), lines


async def test_run_in_socket_mode_starts_and_answers_without_a_signing_secret(
    env: dict[str, str],
) -> None:
    async with FakeSlack(tokens=[TOKEN], app_tokens=[APP_TOKEN]) as slack:
        service = await _wire("run", *DEMO, env=_socket_mode(env, slack))
        try:
            await eventually(lambda: slack.sockets or service.returncode is not None, timeout=60)
            assert service.returncode is None, (await service.stderr.read()).decode()
            fields = slash_command(
                "help",
                channel=CHANNEL,
                user_id="U0ANA0001",
                user_name="ana",
                response_url=slack.hook_url("help"),
            )
            await slack.send_envelope("slash_commands", dict(parse_qsl(fields)))
            [answer] = await eventually(lambda: slack.responses_to("help"), timeout=30)
            assert "/wire subscribe" in answer.body["text"]
        finally:
            if service.returncode is None:
                service.send_signal(signal.SIGTERM)
            _, err = await asyncio.wait_for(service.communicate(), timeout=30)
        assert service.returncode == 0, err.decode()
        assert slack.problems == []
