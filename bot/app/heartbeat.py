"""The running service's heartbeat: a small file that `wire health` reads.

    write_beat(path, url="http://127.0.0.1:3000")   # every scheduler tick
    problem = beat_problem(read_beat(path), now=time.time(), tick_seconds=60)

Every tick of `wire run` rewrites the file (atomically: a temporary file, then a rename)
with the time, the process id and the address of its web server, or none when it serves no
HTTP (Socket Mode, Discord only, `[web] enabled = false`). So `wire health` checks what the
service runs and nothing else: the database, that the scheduler ticked lately, and
`/healthz` only when there is a web server to ask. A clean stop removes the file.

The file sits beside the SQLite database by default (each SQLite database has one service),
else in `var/`; `[service] heartbeat_file` (WIRE_HEARTBEAT_FILE) names another.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url

# Ticks that may be missed before the service counts as stuck: a long composition holds the
# next tick back, and APScheduler coalesces what it missed into one.
MISSED_TICKS = 3
MIN_SILENCE = 90.0  # seconds, whatever the tick interval


@dataclass(frozen=True, slots=True)
class Beat:
    """One heartbeat: when (Unix time), which process, and its web server's address."""

    at: float
    pid: int
    url: str | None


def heartbeat_path(database_url: str, configured: Path | None = None) -> Path:
    """Where the heartbeat of the service on `database_url` lives (see the module docstring)."""
    if configured is not None:
        return configured
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        database = Path(url.database)
        return database.with_name(database.name + ".heartbeat")
    return Path("var/heartbeat.json")


def write_beat(path: Path, *, url: str | None, now: float | None = None) -> None:
    """Record a heartbeat of this process at `path`, replacing the last one at once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    beat = {"at": time.time() if now is None else now, "pid": os.getpid(), "url": url}
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(handle, "w") as out:
        json.dump(beat, out)
    os.replace(temporary, path)


def read_beat(path: Path) -> Beat | None:
    """The last heartbeat written at `path`, or None when there is none (or it is garbled)."""
    try:
        raw = json.loads(path.read_text())
        return Beat(at=float(raw["at"]), pid=int(raw["pid"]), url=raw.get("url") or None)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def remove_beat(path: Path) -> None:
    """Forget the heartbeat (a clean stop): `wire health` then says nothing runs."""
    path.unlink(missing_ok=True)


def beat_problem(beat: Beat | None, *, path: Path, now: float, tick_seconds: float) -> str | None:
    """Why the heartbeat shows no healthy service, as one sentence, or None."""
    if beat is None:
        return f"the service is not running here (no heartbeat at {path})"
    silence = now - beat.at
    allowed = max(MISSED_TICKS * tick_seconds, MIN_SILENCE)
    if silence > allowed:
        return (
            f"the scheduler has not ticked for {silence:.0f} s (allowed {allowed:.0f} s; "
            f"heartbeat at {path}, process {beat.pid})"
        )
    return None
