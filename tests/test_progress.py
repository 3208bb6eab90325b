"""Progress of long work: `wire export` draws a rich bar on a terminal and writes plain
lines to a pipe; `progress.gather` gathers exactly what the digest's gather does."""

from __future__ import annotations

import io
import os
import pty
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from bot import progress
from bot.schedule.newsroom import Filter, compose_filter
from digest.model import Window
from digest.pipeline import gather
from digest.sources.replay import ReplaySource
from tests.chat import demo_config, demo_source

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "demo" / "activity.jsonl"
WINDOW = Window(since=datetime(2026, 5, 25, tzinfo=UTC), until=datetime(2026, 5, 27, tzinfo=UTC))
EXPORT = [
    *(sys.executable, "-c", "from bot.app.cli import main; main()", "export"),
    *("--source", f"replay:{DEMO}", "--since", "2026-05-25T00:00:00Z"),
    *("--until", "2026-05-27T00:00:00Z"),
]
CLEAN_ENV = {k: v for k, v in os.environ.items() if not k.startswith("WIRE_")}


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_plain_lines_come_every_interval_and_at_the_end() -> None:
    lines: list[str] = []
    clock = Clock()
    reporter = progress.LineReporter(lines.append, interval=5, clock=clock)
    reporter.start("export")
    reporter.update(0.1, 10)  # too soon: nothing yet
    clock.now = 5.0
    reporter.update(0.25, 40)
    clock.now = 7.0
    reporter.update(0.5, 60)  # within the interval again
    clock.now = 12.0
    reporter.finish(100)
    assert lines == [
        "export: 25% of the window, 40 records, 5 s",
        "export: 100% of the window, 100 records, 12 s",
    ]
    quiet: list[str] = []
    service = progress.LineReporter(quiet.append, interval=30, always_finish=False, clock=clock)
    service.start("gathering")
    service.update(0.9, 5)
    service.finish(5)
    assert quiet == []  # short work in a service says nothing


async def test_gather_reports_and_gathers_what_the_digest_does() -> None:
    lines: list[str] = []
    reporter = progress.LineReporter(lines.append, interval=0)
    found = await progress.gather(
        [ReplaySource(DEMO), ReplaySource(DEMO)], WINDOW, label="two", reporter=reporter
    )
    assert found == await gather([ReplaySource(DEMO), ReplaySource(DEMO)], WINDOW)
    shares = [int(re.match(r"two: (\d+)%", line).group(1)) for line in lines]
    assert shares == sorted(shares) and shares[-1] == 100 and 50 in shares
    assert lines[-1].startswith(f"two: 100% of the window, {len(found)} records")


def test_wire_export_writes_plain_lines_to_a_pipe(tmp_path: Path) -> None:
    out = tmp_path / "window.jsonl"
    done = subprocess.run(
        [*EXPORT, "--output", str(out)],
        cwd=ROOT,
        env=CLEAN_ENV,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    records = len(out.read_text().splitlines())
    assert records > 0
    assert f"export: 100% of the window, {records} records" in done.stderr
    assert "━" not in done.stderr and "\x1b[" not in done.stderr


def test_wire_export_draws_a_bar_on_a_terminal(tmp_path: Path) -> None:
    out = tmp_path / "window.jsonl"
    terminal, stderr = pty.openpty()
    running = subprocess.Popen(
        [*EXPORT, "--output", str(out)],
        cwd=ROOT,
        env=CLEAN_ENV | {"COLUMNS": "100"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
    )
    os.close(stderr)
    shown = b""
    while True:
        try:
            chunk = os.read(terminal, 65536)
        except OSError:  # the program closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(terminal)
    assert running.wait(timeout=60) == 0
    text = shown.decode()
    records = len(out.read_text().splitlines())
    assert "export" in text and "━" in text and "100%" in text
    assert f"{records} records" in text
    assert "of the window" not in text  # the bar, not the plain lines


async def test_a_first_backfill_reports_its_gathering() -> None:
    lines: list[str] = []
    backfill = Window(since=datetime(2026, 4, 27, tzinfo=UTC), until=WINDOW.until)  # 30 days
    chosen = Filter(repos=("pytorch/executorch",), topic=None, excludes=())
    with progress.reporting(progress.LineReporter(lines.append, interval=0)):
        story = await compose_filter(
            chosen, config=demo_config(), window=backfill, source_for=demo_source
        )
    assert story.references
    assert lines[0].startswith("gathering pytorch/executorch, 2026-04-27 00:00 – 2026-05-27")
    assert lines[-1].split(": ", 1)[1].startswith("100% of the window")


def test_a_service_bar_waits_until_the_work_lasts() -> None:
    clock = Clock()
    bar = progress.BarReporter(io.StringIO(), delay=3, clock=clock)
    bar.start("gathering")
    bar.update(0.5, 10)
    assert not bar.shown  # quick work: no bar at all
    clock.now = 4.0
    bar.update(0.6, 12)
    assert bar.shown
    bar.finish(20)
    assert not bar.shown
