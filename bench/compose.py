"""Benchmark: composing stories from the real executorch quarter (1,209 commits).

Prints, for one window over the whole file, the one-time cost a process pays before its
first story (importing the composer and lemminflect, and loading lemminflect's word lists:
`digest.english.lexicon`, from its fast copy when there is one), the first compose, a warm
compose, and their total; then each day's compose and the GitHub source's requests per
repo-day against the loopback GitHub server. Targets: the total (the word lists' load
and the first compose; the imports are printed beside it) under 1 s and 200 MB on a quiet
2-core machine; ⌈merged/100⌉ + 1 GraphQL requests per
repo-day and 0 primary quota for an unchanged re-poll. Run it twice: the first run of a
machine also writes the lexicon's fast copy.

    .venv/bin/python bench/compose.py [--skip-github]
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import time
import tracemalloc
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

_started = time.perf_counter()
from digest.compose import compose  # noqa: E402
from digest.config import load_config  # noqa: E402
from digest.english import lexicon  # noqa: E402
from digest.model import Window  # noqa: E402
from digest.sources.replay import ReplaySource  # noqa: E402

IMPORT_SECONDS = time.perf_counter() - _started

DATA = ROOT / "tests" / "data" / "activity" / "pytorch-executorch-2026-q2.jsonl"


def timed(label: str, work):
    """Run `work` once for time, once more under tracemalloc for its peak allocation."""
    started = time.perf_counter()
    result = work()
    elapsed = time.perf_counter() - started
    tracemalloc.start()
    work()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"{label:<38} {elapsed * 1000:9.1f} ms   peak allocated {peak / 2**20:7.1f} MiB")
    return result, elapsed


def once(label: str, work):
    """Run `work` once and print its wall time."""
    started = time.perf_counter()
    result = work()
    elapsed = time.perf_counter() - started
    print(f"{label:<38} {elapsed * 1000:9.1f} ms")
    return result, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-github", action="store_true", help="skip the request count")
    args = parser.parse_args()
    config = load_config(ROOT / "config" / "wire.example.toml")

    activities, _ = timed("read 1,209 commits (replay)", lambda: ReplaySource(DATA).read_all())
    print(f"  {len(activities)} activities")
    quarter = Window(since=datetime(2026, 4, 1, tzinfo=UTC), until=datetime(2026, 7, 1, tzinfo=UTC))
    print("once a process:")
    print(f"{'  import composer and lemminflect':<38} {IMPORT_SECONDS * 1000:9.1f} ms")
    cached, load = once("  load lemminflect's word lists", lexicon.load)
    print(
        f"    from {'the fast copy' if cached else 'its gzip files (copy written)'} in {lexicon.cache_dir()}"
    )
    story, first = once(
        "compose whole file, first time", lambda: compose(activities, config=config, window=quarter)
    )
    _, whole = timed(
        "compose whole file, warm",
        lambda: compose(activities, config=config, window=quarter),
    )
    print(f"  {len(story.references)} references, checks: {story.checks.problems or 'all pass'}")
    total = load + first
    print(f"{'total: load + first compose':<38} {total * 1000:9.1f} ms")
    print(
        f"{'  with the imports, the whole process':<38} {(IMPORT_SECONDS + total) * 1000:9.1f} ms"
    )

    def every_day() -> list:
        stories, day = [], quarter.since
        while day < quarter.until:
            window = Window(since=day, until=day + timedelta(days=1))
            stories.append(compose(activities, config=config, window=window))
            day += timedelta(days=1)
        return stories

    stories, daily = timed("compose day by day (91 windows)", every_day)
    failing = sum(bool(s.checks.problems) for s in stories)
    print(f"  {daily / len(stories) * 1000:.1f} ms a day; {failing} days with a non-fatal remark")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory of the process: {rss:.0f} MiB")
    met = total < 1 and rss < 200
    print(
        f"target total < 1 s and < 200 MB: {'met' if met else 'MISSED'} (warm compose {whole:.2f} s)"
    )

    if not args.skip_github:
        try:
            from bench.github_requests import measure, report
        except ImportError as error:
            print(f"GitHub request count skipped: {error}")
            return
        print("\nGitHub source against the loopback server (executorch, 14 days):")
        print(report(asyncio.run(measure())))


if __name__ == "__main__":
    main()
