"""`wire run --once` under heavy 429s: the summary says what is pending and why, the exit
status (75, EX_TEMPFAIL) says work remains, and a second run completes every thread, each
part once and in order. The CLI runs in this thread (it installs signal handlers); the
loopback Slack serves from an event loop of its own in another."""

from __future__ import annotations

import asyncio
import os
import re
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import time_machine

from bot.app.run_once import EX_TEMPFAIL
from bot.delivery.parts import parts_of
from bot.store import Store
from tests.cli_runner import invoke
from tests.fakes.slack_server import TEAM_ID, FakeSlack
from tests.slack_requests import SECRET, TOKEN, demo_config

ROOT = Path(__file__).resolve().parents[1]
LOG_RECORD = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} [A-Z]+ ")
CHANNELS = [f"C0LIMIT{n:04d}" for n in range(50)]


def _config(tmp_path: Path) -> Path:
    path = demo_config(tmp_path)
    seeds = "".join(
        f'\n[[subscriptions]]\nplatform = "slack"\nworkspace = "{TEAM_ID}"\n'
        f'channel = "{channel}"\ntarget = "{"executorch" if n % 2 else "ci-infra"}"\n'
        for n, channel in enumerate(CHANNELS)
    )
    path.write_text(path.read_text(encoding="utf-8") + seeds, encoding="utf-8")
    return path


def _env(tmp_path: Path, slack_url: str) -> dict[str, str | None]:
    outside: dict[str, str | None] = {k: None for k in os.environ if k.startswith("WIRE_")}
    return outside | {
        "WIRE_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'wire.db'}",
        "WIRE_PLATFORMS": '["slack"]',
        "WIRE_SLACK__BOT_TOKEN": TOKEN,
        "WIRE_SLACK__SIGNING_SECRET": SECRET,
        "WIRE_SLACK__API_URL": slack_url,
        "WIRE_SLACK__PER_CHANNEL_INTERVAL": "0",
        "WIRE_SLACK__PER_MINUTE": "100000",
        "WIRE_SLACK__BURST": "1000",
        "WIRE_DELIVERY__BACKOFF_BASE": "600",  # a retry waits minutes, beyond this run
    }


def _run_once(config: Path, env: dict[str, str | None]):
    result = invoke(["run", "--once", "--config", str(config)], env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def said(stderr: str) -> list[str]:
    """What the command itself printed at the end: stderr from its summary on (the log
    records, some of several lines, come before it)."""
    lines = stderr.splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("due channels: "))
    return [line for line in lines[start:] if not LOG_RECORD.match(line)]


def _pending_line(pending: list, now: datetime) -> str:
    soonest = min(info.next_attempt_at for info in pending).astimezone(UTC)
    same_day = soonest.date() == now.date()
    when = f"{soonest:%H:%M}" if same_day else f"{soonest:%Y-%m-%d %H:%M} UTC"
    return f"3 pending: rate limited, next attempt {when}"


@pytest.fixture
def served() -> Iterator[tuple[FakeSlack, asyncio.AbstractEventLoop]]:
    """The loopback Slack, serving from its own event loop in a thread."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    slack = FakeSlack(tokens=[TOKEN], channels=CHANNELS, per_channel_interval=0)
    asyncio.run_coroutine_threadsafe(slack.start(), loop).result(10)
    try:
        yield slack, loop
    finally:
        asyncio.run_coroutine_threadsafe(slack.close(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


async def _read(url: str) -> tuple[list, dict]:
    """The pending deliveries, and every delivery with its story."""
    async with Store.from_url(url) as store:
        pending = await store.listing.list(state="pending")
        every = {
            info: await store.stories.get(info.story_id)
            for info in await store.listing.list(limit=100)
        }
    return pending, every


def test_run_once_under_heavy_429s_says_what_is_pending_and_exits_75(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, served
) -> None:
    slack, _loop = served
    monkeypatch.chdir(ROOT)
    config = _config(tmp_path)
    env = _env(tmp_path, slack.url)
    url = str(env["WIRE_DATABASE_URL"])
    for channel in CHANNELS[:3]:  # three threads stop after their second part
        slack.throttle(channel, after=2, retry_after=1)
    first = _run_once(config, env)
    now = datetime.now(UTC)
    pending, _ = asyncio.run(_read(url))
    assert first.exit_code == EX_TEMPFAIL, first.stderr
    summary, line, *rest = said(first.stderr)
    assert "deliveries queued: 50, delivered: 47," in summary and rest == []
    assert line == _pending_line(pending, now)
    assert [info.parts_posted for info in pending] == [2, 2, 2]  # half posted

    slack.unthrottle()
    with time_machine.travel(now + timedelta(minutes=11), tick=True):
        second = _run_once(config, env)
    assert second.exit_code == 0, second.stderr
    assert "deliveries queued: 0, delivered: 3," in second.stderr
    assert len(said(second.stderr)) == 1  # nothing pending: no second line

    pending, every = asyncio.run(_read(url))
    assert pending == [] and len(every) == 50
    for info, story in every.items():
        assert info.state == "delivered" and story is not None
        [parent] = [m for m in slack.messages[info.channel] if m.thread_ts is None]
        thread = slack.thread(info.channel, parent.ts)
        assert thread == slack.messages[info.channel]  # nothing outside the thread
        keys = [m.metadata["event_payload"]["key"] for m in thread]
        assert keys == [f"{info.id}.{i}" for i in range(len(parts_of(story)))]  # once, in order
    assert slack.problems == []
