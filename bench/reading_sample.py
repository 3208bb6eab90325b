"""Windows for a reader to score beside their sources (../shared/READING.md), drawn with a
fixed seed from activity files kept out of tuning, new windows each round.

Per file: busy days (five or more commits), quiet days, Monday-to-Monday weeks and one
four-week window; `--kinds fortnight=4` draws other kinds or counts, two-week windows
among them. Each window's story and commits are written by ../shared/tools/beside.py
to OUT/NN-<file>-<since>-<kind>.txt; OUT/index.txt lists them.

    .venv/bin/python bench/reading_sample.py OUT --round 5 \
        numpy-numpy prometheus-prometheus pytest-dev-pytest withastro-astro \
        --skip ROUND1 ROUND2 ROUND3 ROUND4
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from collections import Counter
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
ACTIVITY = SHARED / "data" / "activity"
BESIDE = SHARED / "tools" / "beside.py"
# How many windows of each kind a file gives per round, and each kind's length in days.
KINDS = {"busy-day": 8, "quiet-day": 2, "week": 4, "fortnight": 0, "four-weeks": 1}
LENGTHS = {"busy-day": 1, "quiet-day": 1, "week": 7, "fortnight": 14, "four-weeks": 28}


def landed_days(path: Path) -> Counter[date]:
    """Commits per UTC day of one activity file."""
    days: Counter[date] = Counter()
    for line in path.read_text(encoding="utf-8").splitlines():
        landed = datetime.fromisoformat(json.loads(line)["committed_at"])
        days[landed.astimezone(UTC).date()] += 1
    return days


def pick(
    days: Counter[date],
    rng: random.Random,
    read: frozenset[tuple[str, date]] = frozenset(),
    kinds: dict[str, int] | None = None,
) -> list[tuple[str, date, int]]:
    """(kind, first day, length in days) of this file's windows for the round, none of
    them one an earlier round read (`read`): a longer window starts on a Monday while any
    is left unread, then on any day. `kinds` says how many of each kind (`KINDS`)."""
    kinds = KINDS if kinds is None else kinds
    first, last = min(days), max(days)
    every = [first + timedelta(n) for n in range((last - first).days + 1)]
    pools = {
        "busy-day": [d for d in every if days[d] >= 5],
        "quiet-day": [d for d in every if 0 < days[d] < 5],
        "week": [d for d in every if d + timedelta(7) <= last],
        "fortnight": [d for d in every if d + timedelta(14) <= last + timedelta(1)],
        "four-weeks": [d for d in every if d + timedelta(28) <= last + timedelta(1)],
    }
    chosen: list[tuple[str, date, int]] = []
    for kind, pool in pools.items():
        length = LENGTHS[kind]
        fresh = [d for d in pool if (kind, d) not in read]
        mondays = [d for d in fresh if d.weekday() == 0 or length == 1]
        # Days an earlier round used up are made up in weeks: the file still gives its share.
        short = sum(kinds.get(k, 0) for k in ("busy-day", "quiet-day")) - len(chosen)
        want = min(kinds.get(kind, 0) + (short if kind == "week" else 0), len(fresh))
        days_ = rng.sample(mondays, min(want, len(mondays)))
        rest = [d for d in fresh if d not in days_]
        days_ += rng.sample(rest, want - len(days_))
        chosen += [(kind, day, length) for day in days_]
    return chosen


def already_read(rounds: list[Path], stem: str) -> frozenset[tuple[str, date]]:
    """The (kind, first day) of the windows of `stem` that earlier rounds' index files list."""
    found = set()
    for folder in rounds:
        for line in (folder / "index.txt").read_text(encoding="utf-8").splitlines():
            _, file, span, kind = line.split("\t")
            if file.startswith(stem):
                found.add((kind, date.fromisoformat(span.split("..")[0])))
    return frozenset(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("files", nargs="+", help="activity file stems, e.g. numpy-numpy")
    parser.add_argument("--round", type=int, default=1)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--kinds",
        nargs="*",
        default=[],
        metavar="KIND=N",
        help=f"windows of each kind a file gives (default {KINDS}), e.g. fortnight=4",
    )
    parser.add_argument(
        "--skip", type=Path, nargs="*", default=[], help="earlier rounds' folders: never again"
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(f"{args.seed}-{args.round}")
    kinds = dict(KINDS)
    if args.kinds:
        kinds = {k: 0 for k in KINDS}
        for asked in args.kinds:
            kind, _, count = asked.partition("=")
            if kind not in KINDS or not count.isdigit():
                parser.error(f"--kinds takes KIND=N with KIND one of {', '.join(KINDS)}: {asked}")
            kinds[kind] = int(count)
    index, number = [], 0
    for stem in args.files:
        path = next(ACTIVITY.glob(f"{stem}*.jsonl"))
        drawn = pick(landed_days(path), rng, already_read(args.skip, stem), kinds)
        for kind, day, length in drawn:
            number += 1
            until = day + timedelta(length)
            name = f"{number:02d}-{stem}-{day}-{kind}.txt"
            text = subprocess.run(
                [
                    sys.executable,
                    str(BESIDE),
                    str(path),
                    str(day),
                    str(until),
                    "--wire",
                    str(ROOT / ".venv" / "bin" / "wire"),
                ],
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            (args.out / name).write_text(text, encoding="utf-8")
            index.append(f"{name}\t{path.name}\t{day}..{until}\t{kind}")
    (args.out / "index.txt").write_text("\n".join(index) + "\n", encoding="utf-8")
    print(f"{number} windows written to {args.out}")


if __name__ == "__main__":
    main()
