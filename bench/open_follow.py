"""500 repositories followed from chat: a day of polling and a digest round, on the loopback
GitHub, against GitHub's budget of 5,000 requests (REST core) and 5,000 points (GraphQL)
an hour.

Each repository is given one typical weekday of the recorded activity in
tests/data/activity/ (the seven repositories' weekdays, shuffled with a fixed seed), moved
onto one bench day; its pull requests appear on the loopback GitHub as their merge time
passes. Every `--interval` (10 minutes) the real poller runs as `wire run`'s leader runs it:
a conditional `GET /repos` re-check of every open project (304, no quota, when unchanged),
then the `github:` source's probe and, on a change, its GraphQL search. At the end of the
day the scheduler composes the day's digest for every channel (each follows 5 of the
repositories) and the time of that round is printed. Target: under 20 % of each hourly
budget.

    .venv/bin/python bench/open_follow.py [--repos 500] [--interval 10] [--channels 100]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.app.service import source_factory  # noqa: E402
from bot.realtime import Realtime  # noqa: E402
from bot.schedule.scheduler import Scheduler  # noqa: E402
from bot.settings import Settings  # noqa: E402
from bot.store import OpenProject, Store, upgrade_database  # noqa: E402
from digest.config import WireConfig  # noqa: E402
from digest.model import Activity  # noqa: E402
from digest.sources.replay import ReplaySource  # noqa: E402
from tests.fakes.github import FakeGitHub, FakePull, pulls_from_activities  # noqa: E402

ACTIVITY = ROOT / "tests/data/activity"
TOKEN = "ghp_wire_bench"
DAY = datetime(2026, 6, 10, tzinfo=UTC)  # a Wednesday
BUDGET = 5000
TARGET = 0.20


def typical_days(seed: int = 7) -> list[list[Activity]]:
    """Every recorded weekday of the seven repositories (quiet ones too), shuffled."""
    days: dict[tuple[str, str], list[Activity]] = defaultdict(list)
    for path in sorted(ACTIVITY.glob("*.jsonl")):
        activities = ReplaySource(path).read_all()
        first = min(a.landed_at for a in activities).date()
        last = max(a.landed_at for a in activities).date()
        repo = activities[0].repo
        for n in range((last - first).days + 1):
            date = first + timedelta(days=n)
            if date.weekday() < 5:
                days[(repo, date.isoformat())] = []
        for activity in activities:
            if activity.landed_at.weekday() < 5:
                days[(activity.repo, activity.landed_at.date().isoformat())].append(activity)
    found = [days[key] for key in sorted(days)]
    random.Random(seed).shuffle(found)
    return found


def moved_onto(day: list[Activity], repo: str) -> list[FakePull]:
    """A recorded day's changes as pull requests of `repo`, merged at the same times of DAY."""
    pulls = next(iter(pulls_from_activities(day).values()), [])
    for pull in pulls:
        start = pull.merged_at.replace(hour=0, minute=0, second=0, microsecond=0)
        pull.merged_at = DAY + (pull.merged_at - start)
    return pulls


class Hours:
    """Requests and quota spent per hour of the simulated day."""

    def __init__(self, github: FakeGitHub) -> None:
        self.github = github
        self.spent: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self._last = github.counters()

    def note(self, hour: int) -> None:
        now = self.github.counters()
        for name, value in now.items():
            self.spent[hour][name] += value - self._last[name]
        self._last = now


async def run(repos: int, interval: int, channels: int) -> None:
    days = typical_days()
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{folder}/bench.db"
        await upgrade_database(url)
        store = Store.from_url(url)
        async with FakeGitHub(tokens=[TOKEN]) as github:
            settings = Settings(
                _env_file=None,
                github={"token": TOKEN, "api_url": github.url},
                demo={"now": DAY + timedelta(days=1)},
                first_lookback=timedelta(days=1),
            )
            names = [f"bench-{i // 25:02d}/repo-{i:03d}" for i in range(repos)]
            waiting: dict[str, list[FakePull]] = {}
            for i, repo in enumerate(names):
                waiting[repo] = sorted(
                    moved_onto(days[i % len(days)], repo), key=lambda p: p.merged_at
                )
                github.add_repository(repo)
                await store.open_projects.add(
                    OpenProject(
                        repo=repo,
                        name=repo.split("/")[1],
                        default_branch="main",
                        source=f"github:{repo}",
                    )
                )
            for c in range(channels):
                for repo in names[c * repos // channels : (c + 1) * repos // channels]:
                    await store.subscriptions.add(
                        platform="console", workspace="local", channel=f"c{c:03d}", repo=repo
                    )
            merged = sum(len(p) for p in waiting.values())
            config = WireConfig()
            realtime = Realtime(
                store=store, config=config, settings=settings, source_for=source_factory(settings)
            )
            # the previous day's last poll: every repository has its ETags, as in a running
            # service (subscribing stored the first); not counted
            await realtime.poll(DAY - timedelta(minutes=interval))
            hours = Hours(github)
            started = time.perf_counter()
            polls, bulletins = 0, 0
            for step in range(24 * 60 // interval):
                moment = DAY + timedelta(minutes=step * interval)
                if moment.minute < interval:  # GitHub's quota resets every hour
                    for quota in github.quota.values():
                        quota.used, quota.reset_at = 0, time.time() + 3600
                for repo, pulls in waiting.items():
                    landed = [p for p in pulls if p.merged_at <= moment]
                    if landed:
                        github.add_pulls(repo, landed)
                        waiting[repo] = pulls[len(landed) :]
                report = await realtime.poll(moment)
                polls += 1
                bulletins += report.queued
                hours.note(moment.hour)
            polling = time.perf_counter() - started
            for repo, pulls in waiting.items():
                github.add_pulls(repo, pulls)
            scheduler = Scheduler(
                store=store,
                config=config,
                settings=settings,
                source_for=source_factory(settings),
                platforms={},
                before_reading=realtime.watch.before_reading,  # as `wire run` wires it
            )
            before = github.counters()
            started = time.perf_counter()
            round_report = await scheduler.compose_due(DAY + timedelta(days=1))
            round_seconds = time.perf_counter() - started
            digest = {k: github.counters()[k] - before[k] for k in before}
            assert github.problems == [], github.problems[:3]
        await store.close()
    print_figures(hours, repos, interval, merged, polls, bulletins, polling)
    print(
        f"digest round: {round_report.due} channels, {round_report.composed} stories, "
        f"{len(round_report.failed)} failed, in {round_seconds:.1f} s; "
        f"{digest['rest_requests']} REST requests ({digest['core_quota']} core points), "
        f"{digest['graphql_requests']} GraphQL requests ({digest['graphql_quota']} points)"
    )


def print_figures(hours: Hours, repos, interval, merged, polls, bulletins, seconds) -> None:
    print(
        f"{repos} repositories, {merged} merges on the day, polled every {interval} min "
        f"({polls} polls in {seconds:.0f} s), {bulletins} bulletins queued"
    )
    print("hour  requests  REST core  GraphQL points   % of 5,000 (core / GraphQL)")
    for hour in sorted(hours.spent):
        s = hours.spent[hour]
        requests = s["rest_requests"] + s["graphql_requests"]
        print(
            f"{hour:02d}    {requests:8,}  {s['core_quota']:9,}  {s['graphql_quota']:14,}"
            f"   {s['core_quota'] / BUDGET:5.1%} / {s['graphql_quota'] / BUDGET:5.1%}"
        )
    worst_core = max(s["core_quota"] for s in hours.spent.values())
    worst_graphql = max(s["graphql_quota"] for s in hours.spent.values())
    mean_requests = (
        sum(s["rest_requests"] + s["graphql_requests"] for s in hours.spent.values()) / 24
    )
    verdict = "within" if max(worst_core, worst_graphql) < TARGET * BUDGET else "OVER"
    print(
        f"busiest hour: {worst_core:,} core ({worst_core / BUDGET:.1%}), {worst_graphql:,} "
        f"GraphQL points ({worst_graphql / BUDGET:.1%}); {mean_requests:,.0f} requests/h on "
        f"average; {verdict} the {TARGET:.0%} target"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", type=int, default=500)
    parser.add_argument("--interval", type=int, default=10, help="minutes between polls")
    parser.add_argument("--channels", type=int, default=100)
    args = parser.parse_args()
    asyncio.run(run(args.repos, args.interval, args.channels))


if __name__ == "__main__":
    main()
