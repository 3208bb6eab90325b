"""What one repo-day costs the `github:` source, in requests and rate-limit quota.

Starts the loopback GitHub of the tests loaded with the executorch replay file (every commit
of a day is served as a PR merged that day), polls the source day by day, then polls each day
again with nothing changed. Targets: ⌈merged/100⌉ + 1 requests for a first poll, and a single
304 costing no quota for an unchanged re-poll.

    .venv/bin/python bench/github_requests.py [DAYS] [START, e.g. 2026-05-04]
"""

from __future__ import annotations

import asyncio
import math
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from digest.model import Window  # noqa: E402
from digest.sources.github import GitHubSource  # noqa: E402
from digest.sources.replay import ReplaySource  # noqa: E402
from tests.digest_data import ACTIVITY  # noqa: E402
from tests.fakes.github import FakeGitHub, pulls_from_activities  # noqa: E402

REPO = "pytorch/executorch"
REPLAY = ACTIVITY / "pytorch-executorch-2026-q2.jsonl"
TOKEN = "ghp_wire_bench"


async def measure(days: int = 14, *, start: date = date(2026, 5, 4)) -> dict:
    """Poll `days` UTC days from `start`, then re-poll them; return the cost of each poll."""
    activities = ReplaySource(REPLAY).read_all()
    async with FakeGitHub(tokens=[TOKEN]) as github:
        for repo, pulls in pulls_from_activities(activities).items():
            github.add_pulls(repo, pulls)
        source = GitHubSource(REPO, token=TOKEN, api_url=github.url)
        windows = [_day(start + timedelta(days=n)) for n in range(days)]
        rows = []
        for window in windows:
            merged, first = await _poll(github, source, window)
            in_replay = sum(
                1 for a in activities if a.repo == REPO and window.contains(a.landed_at)
            )
            rows.append(
                {
                    "day": window.since.date().isoformat(),
                    "merged": merged,
                    "in_replay": in_replay,
                    "first": first,
                }
            )
        for row, window in zip(rows, windows, strict=True):
            _, row["repoll"] = await _poll(github, source, window)
    for row in rows:
        row["target"] = math.ceil(row["merged"] / 100) + 1
    return {
        "repo": REPO,
        "rows": rows,
        "first_polls_on_target": sum(r["first"]["requests"] == r["target"] for r in rows),
        "repolls_free": sum(
            r["repoll"]["requests"] == 1 and r["repoll"]["quota"] == 0 for r in rows
        ),
        "days": len(rows),
    }


async def _poll(github: FakeGitHub, source: GitHubSource, window: Window) -> tuple[int, dict]:
    before = github.counters()
    merged = len([activity async for activity in source.fetch(window)])
    spent = {key: value - before[key] for key, value in github.counters().items()}
    spent["requests"] = spent["graphql_requests"] + spent["rest_requests"]
    spent["quota"] = spent["core_quota"] + spent["graphql_quota"]
    return merged, spent


def _day(day: date) -> Window:
    since = datetime(day.year, day.month, day.day, tzinfo=UTC)
    return Window(since=since, until=since + timedelta(days=1))


def report(result: dict) -> str:
    """The measurement as a table, one line per repo-day."""
    lines = [
        f"{result['repo']}: first poll, then an unchanged re-poll, per UTC day",
        f"{'day':<11}{'merged':>7}{'graphql':>9}{'rest':>6}{'core q':>8}{'gql q':>7}"
        f"{'target':>8}  | re-poll: {'requests':>8}{'quota':>7}",
    ]
    for row in result["rows"]:
        first, again = row["first"], row["repoll"]
        mark = "" if first["requests"] == row["target"] else "  (first poll off target)"
        if mark and row["merged"] == 0:
            mark = "  (searched: something landed in the PROBE_LEAD before the day)"
        if row["merged"] != row["in_replay"]:
            mark += f"  (replay file has {row['in_replay']})"
        lines.append(
            f"{row['day']:<11}{row['merged']:>7}{first['graphql_requests']:>9}"
            f"{first['rest_requests']:>6}{first['core_quota']:>8}{first['graphql_quota']:>7}"
            f"{row['target']:>8}  | {'':>9}{again['requests']:>8}{again['quota']:>7}{mark}"
        )
    lines.append(
        f"first polls at ⌈merged/100⌉+1 requests: {result['first_polls_on_target']}/{result['days']}; "
        f"re-polls costing 1 request and 0 quota: {result['repolls_free']}/{result['days']}"
    )
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    days = int(argv[0]) if argv else 14
    start = date.fromisoformat(argv[1]) if len(argv) > 1 else date(2026, 5, 4)
    print(report(asyncio.run(measure(days, start=start))))


if __name__ == "__main__":
    main(sys.argv[1:])
