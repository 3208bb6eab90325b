"""Chaos: the disk under the SQLite database fills up in the middle of a fan-out to the
loopback Slack. Writes fail with one clear sentence (on the process's health and in the
log), delivery waits, and when space returns every thread comes out whole, each part once.

The disk is a small tmpfs mounted for the test (root only: skipped elsewhere, with why).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.app.resilience import keep_delivering
from bot.chat.adapters import Health
from bot.store import upgrade_database
from tests.chaos import assert_whole_threads, slack_fanout, wait_delivered
from tests.chaos import channels as channel_names
from tests.fakes.slack_server import FakeSlack
from tests.slack_requests import TOKEN

CHANNELS = 24
DISK_MB = 8


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A DISK_MB MiB tmpfs at tmp_path/disk, unmounted after."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={DISK_MB}m", "tmpfs", str(disk)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def fill(disk: Path) -> Path:
    """Write a file until the disk has no space left; returns it."""
    filler = disk / "filler"
    chunk = b"\0" * 65536
    with filler.open("wb", buffering=0) as out, contextlib.suppress(OSError):
        while True:
            try:
                out.write(chunk)
            except OSError as error:
                if error.errno != errno.ENOSPC:
                    raise
                chunk = chunk[: len(chunk) // 2]
                if not chunk:
                    break
    return filler


async def test_a_full_disk_pauses_delivery_with_one_sentence_and_loses_nothing(
    tmp_path: Path, small_disk: Path, caplog: pytest.LogCaptureFixture
) -> None:
    database = small_disk / "wire.db"
    url = f"sqlite+aiosqlite:///{database}"
    await upgrade_database(url)
    full = (
        f"cannot write the SQLite database {database}: its disk is full; free space there "
        "and the work resumes"
    )
    async with FakeSlack(
        tokens=[TOKEN], channels=channel_names(CHANNELS), per_channel_interval=0
    ) as slack:
        async with await slack_fanout(tmp_path, slack, database_url=url, count=CHANNELS) as service:
            assert (await service.scheduler.compose_due(datetime.now(UTC))).enqueued == CHANNELS
            health, stop = Health(), asyncio.Event()
            delivering = asyncio.create_task(
                keep_delivering(service.worker, stop, health=health, base=0.1, cap=0.3)
            )
            while len(slack.calls("chat.postMessage")) < CHANNELS:  # under way
                await asyncio.sleep(0.002)
            filler = fill(small_disk)
            posted_when_full = len(slack.calls("chat.postMessage"))
            seen: list[str] = []
            for _ in range(100):  # the outbox cannot be written: delivery waits
                seen += health.problems.values()
                await asyncio.sleep(0.02)
            posted_while_full = len(slack.calls("chat.postMessage")) - posted_when_full
            filler.unlink()  # space returns
            await wait_delivered(service, CHANNELS, timeout=20)
            stop.set()
            await delivering
            checked = await assert_whole_threads(service, slack, CHANNELS)
        assert slack.problems == []
    assert full in seen, seen  # the one sentence, on the process's health
    assert any(full in record.getMessage() for record in caplog.records)
    assert health.problems == {}
    print(
        f"faults injected: 1 full disk ({DISK_MB} MiB tmpfs), {posted_while_full} posts while "
        f"full; {checked} messages checked"
    )
