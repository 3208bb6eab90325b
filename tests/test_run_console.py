"""`wire run` in a terminal: a banner, the story, then nothing until Ctrl-C, which stops it
with one line. The real command runs on a copy of the demo config (its own SQLite file, a
free port) whose scheduler ticks every second and polls every two: sixty times the usual
pace, so a few seconds stand for minutes of the service's time."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory

from bot import logs
from bot.app.terminal import FORCED, STOPPING, Interrupts, local
from bot.store.engine import alembic_config

ROOT = Path(__file__).resolve().parents[1]
WIRE = [sys.executable, "-c", "from bot.app.cli import main; main()"]
HEADLINE = "CI-INFRA SPLITS PRE-MERGE CI INTO FAST AND SLOW GATES"
SPEED = 60  # tick "1s" for "1m", poll "2s" for "2m"
QUIET = 70 / SPEED + 2.0  # 70 s of service time, and ticks and polls enough to show
pytestmark = pytest.mark.slow


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """The demo config on a database under tmp_path, a free port, 60 times the pace."""
    text = (ROOT / "config" / "demo.toml").read_text(encoding="utf-8")
    changes = {
        'database_url = "sqlite+aiosqlite:///var/demo.db"': (
            f'database_url = "sqlite+aiosqlite:///{tmp_path / "wire.db"}"\ntick_interval = "1s"'
        ),
        "port = 3000 ": "port = 0 ",
        "[demo]\n": '[realtime]\npoll_interval = "2s"\n\n[demo]\n',
    }
    for old, new in changes.items():
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / "demo.toml"
    path.write_text(text, encoding="utf-8")
    return path


class Running:
    """`wire run` as a process; each stream's lines kept with when they arrived."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        outside = {k: v for k, v in os.environ.items() if not k.startswith("WIRE_")}
        self.process = subprocess.Popen(
            [*WIRE, "run", *args],
            cwd=ROOT,
            env=outside | (env or {}),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.out: list[tuple[float, str]] = []
        self.err: list[tuple[float, str]] = []
        self._readers = [
            threading.Thread(target=self._read, args=(stream, lines), daemon=True)
            for stream, lines in ((self.process.stdout, self.out), (self.process.stderr, self.err))
        ]
        for reader in self._readers:
            reader.start()

    @staticmethod
    def _read(stream, lines: list[tuple[float, str]]) -> None:
        for line in stream:
            lines.append((time.monotonic(), line.rstrip("\n")))

    def stdout(self) -> list[str]:
        return [line for _, line in list(self.out)]

    def stderr(self) -> list[str]:
        return [line for _, line in list(self.err)]

    def wait_for(self, found: Callable[[], bool], *, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not found():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(
                    "never came:\n" + "\n".join(self.stderr()) + "\n" + "\n".join(self.stdout())
                )
            time.sleep(0.05)

    def settle(self, *, quiet: float = 1.0, timeout: float = 30) -> None:
        """Wait until neither stream has had a new line for `quiet` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            last = max((at for at, _ in [*self.out, *self.err]), default=0.0)
            if time.monotonic() - last >= quiet:
                return
            time.sleep(0.1)
        raise AssertionError("the output never settled:\n" + "\n".join(self.stderr()))

    def interrupt(self) -> int:
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=30)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for reader in self._readers:
            reader.join(timeout=5)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def start() -> Iterator[Callable[..., Running]]:
    started: list[Running] = []

    def run(*args: str, env: dict[str, str] | None = None) -> Running:
        started.append(Running(*args, env=env))
        return started[-1]

    yield run
    for running in started:
        running.close()


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def test_banner_story_then_quiet_until_one_ctrl_c(demo: Path, start, tmp_path: Path) -> None:
    wire = start("--config", str(demo))
    wire.wait_for(lambda: any(HEADLINE in line for line in wire.stdout()))
    wire.settle()  # the story's parts are all out
    before = (len(wire.out), len(wire.err))
    time.sleep(QUIET)
    assert (len(wire.out), len(wire.err)) == before, "\n".join(
        [*wire.stderr(), *wire.stdout()[before[0] :]]
    )

    banner = wire.stderr()
    port = re.fullmatch(r"  archive    http://127\.0\.0\.1:(\d+)", banner[1])
    assert port is not None and port.group(1) != "0", banner
    assert banner == [
        "The Wire is running.",
        f"  archive    http://127.0.0.1:{port.group(1)}",  # the address served, port 0's too
        "  platforms  console",
        "  channels   console #demo follows executorch, ci-infra",
        f"  database   {tmp_path / 'wire.db'} at revision {head_revision()}",
        "Ctrl-C to stop.",
    ]
    out = wire.stdout()
    assert out[:3] == ["", "#demo", out[2]] and out[2].startswith(HEADLINE)
    read_at = [line for line in out if line.startswith("Read it at ")]
    assert len(read_at) == 1, out  # the story's page, at the address actually served
    assert read_at[0].startswith(f"Read it at http://127.0.0.1:{port.group(1)}/stories/")
    assert sum(line.startswith("#") for line in out) == 1  # one story, then nothing
    assert wire.out[-1][0] < time.monotonic() - QUIET

    assert wire.interrupt() == 0
    wire.close()
    assert wire.stderr()[len(banner) :] == [STOPPING]
    assert len(wire.stdout()) == len(out)


def test_a_server_open_on_every_interface_says_so_in_the_banner(demo: Path, start) -> None:
    wire = start("--config", str(demo), env={"WIRE_HTTP__HOST": "0.0.0.0"})
    wire.wait_for(lambda: any(line.startswith("  server ") for line in wire.stderr()))
    archive, server = wire.stderr()[1:3]
    port = re.fullmatch(r"  archive    http://127\.0\.0\.1:(\d+)", archive)
    assert port is not None, wire.stderr()
    assert server == f"  server     listening on http://0.0.0.0:{port.group(1)} (every interface)"
    assert wire.interrupt() == 0


def test_json_lines_only(demo: Path, start) -> None:
    wire = start("--config", str(demo), env={"WIRE_LOG__FORMAT": "json"})
    wire.wait_for(lambda: any(HEADLINE in line for line in wire.stdout()))
    wire.settle()
    assert wire.interrupt() == 0
    wire.close()
    records = [json.loads(line) for line in wire.stderr()]  # every line is JSON
    # A starved machine may add a scheduler's warning of a late job: the service's own two
    # records are looked for, not counted.
    [running] = [r for r in records if r.get("event") == "running"]
    stopping = records[-1]
    assert running["event"] == "running" and running["logger"] == "wire.service"
    assert re.fullmatch(r"http://127\.0\.0\.1:[1-9]\d*", running["archive"]), running
    assert "server" not in running  # the archive is the address served
    assert running["platforms"] == ["console"] and running["revision"] == head_revision()
    assert running["channels"] == [
        {
            "platform": "console",
            "workspace": "local",
            "channel": "demo",
            "follows": ["executorch", "ci-infra"],
        }
    ]
    assert stopping["event"] == STOPPING and stopping["level"] == "INFO"
    assert any(HEADLINE in line for line in wire.stdout())


def test_verbose_brings_the_chatter_back(demo: Path, start) -> None:
    wire = start("--config", str(demo), "--verbose")
    wire.wait_for(lambda: any(HEADLINE in line for line in wire.stdout()))
    shown = re.compile(r'Job "Service\.(tick|poll) .* executed successfully')

    def both_jobs_ran() -> bool:
        return {m.group(1) for line in wire.stderr() if (m := shown.search(line))} == {
            "tick",
            "poll",
        }

    wire.wait_for(both_jobs_ran, timeout=QUIET)  # the window the quiet test waits
    assert wire.interrupt() == 0
    wire.close()
    err = "\n".join(wire.stderr())
    assert "INFO alembic.runtime.migration: Running upgrade" in err
    assert "INFO apscheduler.scheduler: Scheduler started" in err
    assert "DEBUG wire.frontends: web server listening on" in err
    assert "The Wire is running." in err and STOPPING in err


class Exited(Exception):
    pass


def test_a_second_ctrl_c_exits_at_once() -> None:
    stop = asyncio.Event()
    codes: list[int] = []

    def exit(code: int) -> None:
        codes.append(code)
        raise Exited

    interrupts = Interrupts(stop, exit=exit)
    interrupts(signal.SIGINT)
    assert stop.is_set() and codes == []
    with pytest.raises(Exited):
        interrupts(signal.SIGINT)
    assert codes == [FORCED] == [130]


def test_sigterm_stops_cleanly_however_often_it_comes() -> None:
    stop = asyncio.Event()
    interrupts = Interrupts(stop, exit=lambda code: pytest.fail(f"exited {code}"))
    interrupts(signal.SIGTERM)
    interrupts(signal.SIGTERM)
    assert stop.is_set() and interrupts.received == signal.SIGTERM


@pytest.mark.parametrize(
    ("level", "libraries", "shown"),
    [
        ("INFO", None, ["wire info", "library warning"]),
        ("INFO", "INFO", ["wire info", "library info", "library warning"]),
        (
            "DEBUG",
            None,
            ["wire debug", "wire info", "library debug", "library info", "library warning"],
        ),
        ("DEBUG", "INFO", ["wire debug", "wire info", "library info", "library warning"]),
        ("WARNING", None, ["library warning"]),
    ],
)
def test_other_packages_are_quiet_unless_asked(
    captured: io.StringIO, level: str, libraries: str | None, shown: list[str]
) -> None:
    logs.configure(level=level, stream=captured, libraries=libraries)
    own, library = logging.getLogger("wire.test"), logging.getLogger("apscheduler.test")
    own.debug("wire debug")
    own.info("wire info")
    library.debug("library debug")
    library.info("library info")
    library.warning("library warning")
    said = [line.split(": ", 1)[1] for line in captured.getvalue().splitlines()]
    assert said == shown


def test_an_announcement_is_bare_text_or_a_record_with_its_facts(captured) -> None:
    log = logging.getLogger("wire.test")
    logs.configure(format="text", stream=captured)
    logs.announce(log, "running", text="The Wire is running.\nCtrl-C to stop.", port=1)
    assert captured.getvalue() == "The Wire is running.\nCtrl-C to stop.\n"
    json_lines = io.StringIO()
    logs.configure(format="json", stream=json_lines, secrets=["s3cr3tvalue-long"])
    logs.announce(log, "running", text="ignored", channels=[{"follows": ["s3cr3tvalue-long"]}])
    record = json.loads(json_lines.getvalue())
    assert record["event"] == "running" and record["channels"] == [{"follows": ["[redacted]"]}]


def test_a_listening_address_a_person_can_open() -> None:
    assert local("http://0.0.0.0:3000") == "http://127.0.0.1:3000"
    assert local("http://10.0.0.5:8080") == "http://10.0.0.5:8080"
