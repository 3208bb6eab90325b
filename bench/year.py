"""Benchmark: `wire digest` over a year of a ~5,000-commit clone next to `git log --numstat`.

The clone is built once under var/bench/ from the executorch quarter (1,209 commits): the
quarter is replayed four times, shifted back by 0, 91, 182 and 273 days, so a year from
2025-07-02 to 2026-07-01 holds 4,836 commits with their messages, authors and files (see
`cli_startup.build_clone`). Prints, best of `--runs`:

- `git log --first-parent --numstat` over the year (what reading the clone costs git alone);
- `wire digest --source git:CLONE` over the same range (a fresh process, as a person runs it);
- their ratio, target 1.5 at most, and the ratio of their CPU time (what a busy machine,
  where wire's `git log` runs cannot run side by side, gives as the wall-time ratio);
- with `--profile`, where the in-process call the CLI makes (`compose_window`) spends its
  CPU time (git's apart): the functions of the most own time under cProfile, then the
  digest's functions by cumulative time.

    .venv/bin/python bench/year.py [--clone PATH] [--runs N] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.cli_startup import REPLAY, WIRE, build_clone, commits_in, timed  # noqa: E402

CLONE = ROOT / "var/bench/executorch-year"
SINCE, UNTIL = "2025-07-02T00:00:00Z", "2026-07-02T00:00:00Z"
SHIFTS = (0, 91, 182, 273)  # days each replay of the quarter is moved back
RATIO_TARGET = 1.5
# Replayed four times, the quarter's additions would grow files past any real source file
# (megabytes of test_ops.py), and git's diffing of random lines would dwarf everything
# else; short lines in files of at most 300 keep `git log --numstat` of the year near what
# a real clone of the project costs it (27,504 file diffs).
MAX_LINES, LINE_BYTES = 300, 24


def year_of_commits(replay: Path = REPLAY) -> list[dict]:
    """The quarter's records four times over, each copy moved back by one of `SHIFTS`."""
    rows = [json.loads(line) for line in replay.read_text(encoding="utf-8").splitlines()]
    year = []
    for days in SHIFTS:
        for row in rows:
            moved = dict(row)
            for key in ("authored_at", "committed_at"):
                moment = datetime.fromisoformat(row[key]) - timedelta(days=days)
                moved[key] = moment.isoformat()
            year.append(moved)
    return year


def profile(clone: Path, since: str, until: str, top: int) -> None:
    """Compose the year in this process under cProfile; print the stages and the hot spots."""
    from digest.config import load_config
    from digest.model import Window
    from digest.pipeline import compose_window
    from digest.sources import open_source

    config = load_config(None)
    window = Window(
        since=datetime.fromisoformat(since.replace("Z", "+00:00")),
        until=datetime.fromisoformat(until.replace("Z", "+00:00")),
    )

    def compose() -> object:
        return asyncio.run(
            compose_window([open_source(f"git:{clone}")], config=config, window=window)
        )

    compose()  # warm: imports and the lexicon's word tables
    started = time.perf_counter()
    compose()
    print(f"compose_window in process (warm)  {time.perf_counter() - started:6.3f} s")
    profiler = cProfile.Profile(time.process_time)  # this process's CPU: git's runs apart
    profiler.enable()
    compose()
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(r"digest/", top)
    print(out.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clone", type=Path, help="a local clone (default: the year stand-in)")
    parser.add_argument("--since", default=SINCE)
    parser.add_argument("--until", default=UNTIL)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="print where the time goes")
    parser.add_argument("--top", type=int, default=25, help="hot spots to print")
    args = parser.parse_args()
    clone = args.clone or CLONE
    if not (clone / ".git").is_dir():
        started = time.perf_counter()
        build_clone(clone, commits=year_of_commits(), max_lines=MAX_LINES, line_bytes=LINE_BYTES)
        print(f"built {clone} in {time.perf_counter() - started:.1f} s")

    span = [f"--since={args.since}", f"--until={args.until}"]
    log = ["git", "-C", str(clone), "log", "--first-parent", "--numstat", *span]
    digest = [*WIRE, "digest", "--source", f"git:{clone}", *span, "--format", "plain"]
    # taken in turns, so a busy moment of the machine weighs on both sides alike
    runs = [(timed(1, log), timed(1, digest)) for _ in range(args.runs)]
    git_log, git_cpu = min(git for git, _ in runs)
    wire, wire_cpu = min(wire for _, wire in runs)
    ratio = wire / git_log
    commits = commits_in(clone, args.since, args.until)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, best of {args.runs} runs")
    print(f"clone                          {clone} ({commits} commits, {args.since}..{args.until})")
    print(f"git log --first-parent --numstat {git_log:6.3f} s   (CPU {git_cpu:.3f} s)")
    print(f"wire digest --source git:        {wire:6.3f} s   (CPU {wire_cpu:.3f} s)")
    print(f"ratio                            {ratio:6.2f}×   target ≤ {RATIO_TARGET}×")
    # On a machine busy with other work, wall time follows CPU time, and wire's git runs
    # side by side gain nothing: the CPU ratio is the figure such a machine gives.
    print(f"ratio of CPU time                {wire_cpu / git_cpu:6.2f}×")
    if args.profile:
        profile(clone, args.since, args.until, args.top)


if __name__ == "__main__":
    os.environ.setdefault("NO_COLOR", "1")
    main()
