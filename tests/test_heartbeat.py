"""The heartbeat file `wire run` writes and `wire health` reads: where it lives, how fresh
it must be, and that a garbled or missing one reads as no service."""

from __future__ import annotations

import time
from pathlib import Path

from bot.app.heartbeat import beat_problem, heartbeat_path, read_beat, remove_beat, write_beat


def test_it_lives_beside_a_sqlite_database_else_in_var(tmp_path: Path) -> None:
    database = f"sqlite+aiosqlite:///{tmp_path / 'wire.db'}"
    assert heartbeat_path(database) == tmp_path / "wire.db.heartbeat"
    assert heartbeat_path("postgresql+asyncpg://wire@db/wire") == Path("var/heartbeat.json")
    assert heartbeat_path(database, tmp_path / "beat") == tmp_path / "beat"


def test_a_fresh_beat_is_healthy_and_a_silent_one_says_for_how_long(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "beat"
    now = time.time()
    write_beat(path, url="http://127.0.0.1:3000", now=now - 30)
    beat = read_beat(path)
    assert beat is not None and beat.url == "http://127.0.0.1:3000"
    assert beat_problem(beat, path=path, now=now, tick_seconds=60) is None
    silent = beat_problem(beat, path=path, now=now + 200, tick_seconds=60)
    assert silent is not None and silent.startswith("the scheduler has not ticked for 230 s")
    assert "allowed 180 s" in silent


def test_missing_or_garbled_reads_as_no_service(tmp_path: Path) -> None:
    path = tmp_path / "beat"
    assert read_beat(path) is None
    path.write_text("{not json")
    assert read_beat(path) is None
    problem = beat_problem(None, path=path, now=time.time(), tick_seconds=60)
    assert problem == f"the service is not running here (no heartbeat at {path})"
    remove_beat(path)
    remove_beat(path)  # twice is fine: a clean stop after a crash's leftovers
    assert not path.exists()
