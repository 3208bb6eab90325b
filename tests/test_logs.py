"""Structured logs: JSON lines that parse, with the delivery, story and channel where known,
and no secret in any line, whoever logged it (our code, slack-sdk, a traceback)."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot import logs
from bot.delivery.parts import Part
from bot.delivery.worker import Worker
from bot.settings import Settings
from bot.slack.platform import SlackPlatform, slack_client
from bot.store import Store
from tests.fakes.slack_server import FakeSlack

ROOT = Path(__file__).resolve().parents[1]
WIRE = [sys.executable, "-c", "from bot.app.cli import main; main()"]
SLACK_TOKEN = "xoxb-1234-5678-logsecretslack"
SIGNING_SECRET = "8f14e45fceea167a5a36dedd4bea2543"  # not token-shaped: redacted by value
GITHUB_TOKEN = "ghp_logsecretgithub0123456789abcd"
ARCHIVE_TOKEN = "archive-logsecret-42"
DB_PASSWORD = "logsecretdbpass"
SECRETS = (SLACK_TOKEN, SIGNING_SECRET, GITHUB_TOKEN, ARCHIVE_TOKEN, DB_PASSWORD)


def settings_with_secrets() -> Settings:
    return Settings(
        _env_file=None,
        database_url=f"postgresql+asyncpg://wire:{DB_PASSWORD}@127.0.0.1:5432/wire",
        slack={"bot_token": SLACK_TOKEN, "signing_secret": SIGNING_SECRET},
        github={"token": GITHUB_TOKEN},
        web={"token": ARCHIVE_TOKEN},
    )


def json_lines(stream: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


async def test_json_lines_carry_time_level_logger_event_and_ids(captured) -> None:
    logs.configure(level="INFO", format="json", stream=captured)
    log = logging.getLogger("wire.test")
    log.info("plain %s", "event")
    log.warning("with extra", extra={"delivery": 7, "channel": "C0EXTRA"})

    async def in_a_delivery() -> None:
        logs.bind(delivery=42, story="story_abc", channel="C0TASK")
        log.info("inside")

    await asyncio.create_task(in_a_delivery())
    log.info("outside again")  # the task's ids stayed in the task
    try:
        raise ValueError("broken")
    except ValueError:
        log.exception("failed")
    first, extra, inside, outside, failed = json_lines(captured)
    assert first["event"] == "plain event" and first["level"] == "INFO"
    assert first["logger"] == "wire.test" and first["time"].endswith("Z")
    assert set(first) == {"time", "level", "logger", "event"}
    assert extra["delivery"] == 7 and extra["channel"] == "C0EXTRA" and "story" not in extra
    assert (inside["delivery"], inside["story"], inside["channel"]) == (42, "story_abc", "C0TASK")
    assert "delivery" not in outside
    assert failed["level"] == "ERROR" and "ValueError: broken" in failed["exception"]


class BrokenPlatform:
    """A chat platform whose API fails in a way nobody classified."""

    name = "broken"

    async def post(self, channel: str, part: Part, thread: str | None, *, key: str) -> str:
        raise RuntimeError(f"the API fell over posting {key}")

    async def update(self, channel: str, message_id: str, part: Part) -> None:
        raise RuntimeError("no")


async def test_the_worker_logs_the_delivery_story_and_channel(
    captured, store: Store, make_story
) -> None:
    logs.configure(level="INFO", format="json", stream=captured)
    story = make_story(1)
    queued = await store.deliveries.enqueue(
        story, platform="broken", workspace="W", channel="C0LOGS0001"
    )
    summary = await Worker(store, [BrokenPlatform()]).run_once()
    assert summary.retried == 1
    [line] = [entry for entry in json_lines(captured) if entry["logger"] == "wire.deliver"]
    assert line["event"] == f"delivery {queued.id} failed unexpectedly"
    assert (line["delivery"], line["story"], line["channel"]) == (
        queued.id,
        story.id,
        "C0LOGS0001",
    )
    assert "RuntimeError: the API fell over" in line["exception"]


@pytest.mark.parametrize("form", ["json", "text"])
async def test_no_secret_reaches_the_log(captured, form: str) -> None:
    settings = settings_with_secrets()
    assert set(SECRETS) <= set(logs.secrets_in(settings))
    logs.configure(level="DEBUG", format=form, secrets=logs.secrets_in(settings), stream=captured)
    log = logging.getLogger("wire.test")
    log.info("settings: %r", settings)
    log.info("database %s", settings.database_url)
    for secret in SECRETS:
        log.warning("configured with %s", secret)
        log.info("GET https://wire.example/?token=%s&page=2", secret)
    log.info("headers %s", {"Authorization": f"Bearer {ARCHIVE_TOKEN}"})
    try:
        raise PermissionError(f"token {SIGNING_SECRET} was refused")
    except PermissionError:
        log.exception("refused")
    # slack-sdk's own debug lines of a real call to the loopback Slack
    async with FakeSlack(tokens=[SLACK_TOKEN]) as slack:
        platform = SlackPlatform(slack_client(SLACK_TOKEN, base_url=slack.url))
        try:
            await platform.client.auth_test()
        finally:
            await platform.close()
    out = captured.getvalue()
    assert "slack_sdk" in out and logs.REDACTED in out
    for secret in SECRETS:
        assert secret not in out, f"{secret} leaked into the {form} log"
    if form == "json":
        assert len(json_lines(captured)) == out.count("\n")


def test_wire_run_logs_json_lines_without_its_tokens(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WIRE_")} | {
        "WIRE_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'wire.db'}",
        "WIRE_LOG__FORMAT": "json",
        "WIRE_LOG_LEVEL": "DEBUG",
        "WIRE_GITHUB__TOKEN": GITHUB_TOKEN,
        "WIRE_WEB__TOKEN": ARCHIVE_TOKEN,
    }
    done = subprocess.run(
        [*WIRE, "run", "--once", "--config", "config/demo.toml"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("{")]
    assert len(lines) >= 3
    events = [json.loads(line) for line in lines]
    assert {"alembic.runtime.migration", "wire.deliver"} & {e["logger"] for e in events}
    assert "alembic.runtime.plugins" not in {e["logger"] for e in events}  # noise, even at DEBUG
    assert all({"time", "level", "logger", "event"} <= set(e) for e in events)
    for secret in (GITHUB_TOKEN, ARCHIVE_TOKEN):
        assert secret not in done.stderr and secret not in done.stdout


@pytest.mark.parametrize("form", ["json", "text"])
def test_a_weak_secret_is_redacted_only_where_it_stands_as_a_value(captured, form: str) -> None:
    """A database password "wire" once turned every "wire" of the log into [redacted]
    (4,961 times), which told anyone reading it the password."""
    settings = Settings(
        _env_file=None,
        database_url="postgresql+asyncpg://wire:wire@127.0.0.1:5432/wire",
        slack={"signing_secret": "Administrator"},  # a dictionary word, however long
        web={"token": "kX9$archive-7Tq2"},  # strong: redacted wherever it appears
    )
    logs.configure(level="INFO", format=form, secrets=logs.secrets_in(settings), stream=captured)
    log = logging.getLogger("wire.leader")
    log.info("wire.leader took over; /wire subscribe executorch from #wire-news")
    log.info("an Administrator asked; the wire format is fine")
    log.info("database %s", settings.database_url)
    log.info("password=wire token: wire secret=Administrator auth Bearer wire")
    log.info('{"password": "wire"} kX9$archive-7Tq2 and ?x=kX9$archive-7Tq2')
    out = captured.getvalue()
    assert "wire.leader took over; /wire subscribe executorch from #wire-news" in out
    assert "an Administrator asked; the wire format is fine" in out
    assert "postgresql+asyncpg://wire:[redacted]@127.0.0.1:5432/wire" in out
    assert "password=[redacted] token: [redacted] secret=[redacted] auth Bearer [redacted]" in out
    assert '"password": "[redacted]"' in out.replace('\\"', '"')
    assert "kX9$archive-7Tq2" not in out and out.count("[redacted]") >= 8


@pytest.mark.parametrize("form", ["json", "text"])
def test_a_long_random_secret_is_redacted_wherever_it_appears(captured, form: str) -> None:
    """Around a strong secret may stand anything (percent-encoding, a repr's escapes, a
    traceback): it is redacted there too, and a weak one where a sentence ends its value."""
    secret = "kX9mArchive7Tq2Lw4"
    logs.configure(level="INFO", format=form, secrets=[secret, "wire"], stream=captured)
    log = logging.getLogger("wire.web")
    log.info("%s opened the archive", secret)
    log.info("redirect to /login?next=%%2F%%3Ftoken%%3D%s%%26page%%3D2", secret)
    log.info("header %r", f"Bearer\n{secret}")
    try:
        raise ValueError(f"token {secret}x rejected")
    except ValueError:
        log.exception("archive access failed")
    log.warning("rejected password=wire. Retrying the wire.leader lock", extra={"facts": {}})
    out = captured.getvalue()
    assert secret not in out
    assert out.count("[redacted]") == 5
    assert "rejected password=[redacted]. Retrying the wire.leader lock" in out
