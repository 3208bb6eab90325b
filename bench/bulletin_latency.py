"""Bulletin latency: from a change's arrival to its bulletin's first part posted, per channel.

Webhook path: `--events` signed `pull_request` deliveries (CI-gate merges: the demo's #619
under new numbers and commits) are POSTed one every `--interval` seconds, over HTTP, to the
real receiver. `--repos` projects are followed by `--channels` channels, half on the loopback
Slack (one message a second per channel, `--slack-per-minute` per workspace) and half on the
loopback Discord (50 requests a second); every event concerns one project, so it fans out to
that project's channels. The real processor judges each delivery (the project's source, the
digest's rules), the real outbox `Worker` (shipped settings) posts through the real
`SlackPlatform` and `DiscordPlatform`. The clock starts just before the POST and stops when
the platform returned the bulletin's parent message.

Polling path: the same projects read through `github:` against the loopback GitHub (in a
process of its own: its GraphQL checks are slow); the poller runs every `--poll-interval`
(as the service's APScheduler job would) while `--poll-events` merges land one every
`--interval` seconds. The clock starts when the merge appears on the loopback GitHub.

Both paths start warm, as a service that has run a while: the language tables are loaded
and the poller knows every project's ETag. Besides the end-to-end figures, "arrival →
queued" is the real-time part alone (the rest is the worker's outbox poll and pacing).

Prints p50/p90/p99/max for each path against its target (webhook p99 < 5 s; polling p99 <
poll interval + 5 s), bulletins posted, duplicate and lost ones (both must be 0) and the
429s. Exits 1 when a bulletin is lost or duplicated.

    .venv/bin/python bench/bulletin_latency.py                     # 100 events, 200 channels
    .venv/bin/python bench/bulletin_latency.py --poll-interval 120  # the shipped poll interval
    .venv/bin/python bench/bulletin_latency.py --interval 1.5       # heavier: 13 bulletins/s
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import statistics
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from aiohttp import web  # noqa: E402
from discord.http import HTTPClient, Route  # noqa: E402

from bot.delivery.pacing import Pacer  # noqa: E402
from bot.delivery.worker import Worker  # noqa: E402
from bot.discord.platform import DiscordPlatform, discord_pacer  # noqa: E402
from bot.realtime import Realtime  # noqa: E402
from bot.realtime.bulletins import bulletin_of, bulletin_window  # noqa: E402
from bot.schedule.newsroom import default_source  # noqa: E402
from bot.settings import load_settings  # noqa: E402
from bot.settings_sections import DeliverySettings  # noqa: E402
from bot.slack.platform import SlackPlatform, slack_client  # noqa: E402
from bot.store import Store, upgrade_database  # noqa: E402
from digest.compose import compose  # noqa: E402
from digest.config import Project, WireConfig  # noqa: E402
from digest.model import Activity  # noqa: E402
from digest.sources.replay import parse_replay_line  # noqa: E402
from tests.fakes.discord_rest import FakeDiscord  # noqa: E402
from tests.fakes.github import FakeGitHub, graphql_schema, pulls_from_activities  # noqa: E402
from tests.fakes.slack_server import TEAM_ID, FakeSlack  # noqa: E402
from tests.webhook_payloads import SECRET, WebhookSender, merged_pull_request  # noqa: E402

SLACK_TOKEN = "xoxb-wire-bench"
GITHUB_TOKEN = "ghp_wire_bench"
NAMES = (
    "Alpha",
    "Bravo",
    "Charlie",
    "Delta",
    "Echo",
    "Foxtrot",
    "Golf",
    "Hotel",
    "India",
    "Juliet",
)
GATE = 619  # the demo's CI-gate change: every bench change is a copy of it


class Timed:
    """A platform that notes when each delivery's parent message was posted."""

    def __init__(self, inner, posted: dict[tuple[str, str], float]) -> None:
        self.inner = inner
        self.name = inner.name
        self.posted = posted

    async def post(self, channel, part, thread, *, key):
        message_id = await self.inner.post(channel, part, thread, key=key)
        if part.index == 0:
            self.posted.setdefault((part.story_id, channel), time.perf_counter())
        return message_id

    async def update(self, channel, message_id, part):
        await self.inner.update(channel, message_id, part)


def gate_record() -> dict:
    for line in (ROOT / "demo/activity.jsonl").read_text(encoding="utf-8").splitlines():
        if f"(#{GATE})" in line:
            return json.loads(line)
    raise SystemExit("the demo data no longer has its CI-gate change")


def gate_records(count: int, repos: list[str], start: datetime, interval: float) -> list[dict]:
    """`count` CI-gate changes as replay records, round robin over `repos`, landing
    `interval` s apart from `start`."""
    record = gate_record()
    found = []
    for n in range(count):
        landed = (start + timedelta(seconds=n * interval)).isoformat()
        found.append(
            {
                **record,
                "repo": repos[n % len(repos)],
                "sha": f"{n:06x}" + record["sha"][6:],
                "message": record["message"].replace(f"(#{GATE})", f"(#{10_000 + n})"),
                "committed_at": landed,
                "authored_at": landed,
            }
        )
    return found


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def serve_github(repos: list[str], ready, merges) -> None:
    """The loopback GitHub in a process of its own (its GraphQL validation and execution
    would otherwise share the bot's CPU): merges arrive on `merges`; None stops it."""
    asyncio.run(_serve_github(repos, ready, merges))


async def _serve_github(repos: list[str], ready, merges) -> None:
    async with FakeGitHub(tokens=[GITHUB_TOKEN]) as fake:
        for repo in repos:
            fake.add_pulls(repo, [])
        graphql_schema()  # parsed before the clock starts
        ready.put(fake.url)
        loop = asyncio.get_running_loop()
        while (merge := await loop.run_in_executor(None, merges.get)) is not None:
            repo, pulls = merge
            fake.add_pulls(repo, pulls)


class GitHubProcess:
    """The child process serving the loopback GitHub."""

    def __init__(self, repos: list[str]) -> None:
        context = multiprocessing.get_context("spawn")
        ready, self._merges = context.Queue(), context.Queue()
        self._process = context.Process(target=serve_github, args=(repos, ready, self._merges))
        self._process.start()
        self.url = ready.get(timeout=120)

    def merge(self, activity: Activity) -> None:
        """Land `activity` as a merged pull request."""
        self._merges.put((activity.repo, pulls_from_activities([activity])[activity.repo]))

    def close(self) -> None:
        self._merges.put(None)
        self._process.join(timeout=30)


class Bench:
    """One run: the store, the loopback platforms, the worker and the real-time parts."""

    def __init__(self, args: argparse.Namespace, folder: Path, *, polling: bool) -> None:
        self.args = args
        self.folder = folder
        self.polling = polling
        self.repos = [f"bench/service-{i:02d}" for i in range(args.repos)]
        self.posted: dict[tuple[str, str], float] = {}
        self.started: dict[int, float] = {}  # change number → when it arrived
        self.arrived: dict[int, datetime] = {}  # the same, on the wall clock
        self.expected: Counter[int] = Counter()  # change number → channels that follow it

    def config(self) -> WireConfig:
        source = None if self.polling else f"replay:{self.folder / 'changes.jsonl'}"
        projects = [
            Project(repo=repo, name=NAMES[i % len(NAMES)] + "s" * (i // len(NAMES)), source=source)
            for i, repo in enumerate(self.repos)
        ]
        return WireConfig(projects=tuple(projects))

    async def run(self) -> dict:
        args = self.args
        url = f"sqlite+aiosqlite:///{self.folder / ('poll.db' if self.polling else 'hook.db')}"
        await upgrade_database(url)
        count = args.poll_events if self.polling else args.events
        config = self.config()
        slack_channels = [f"C0LAT{n:05d}" for n in range(0, args.channels, 2)]
        slack = FakeSlack(
            tokens=[SLACK_TOKEN],
            channels=slack_channels,
            per_channel_interval=1.0,
            per_minute=args.slack_per_minute,
        )
        discord = FakeDiscord(global_limit=50)
        discord_channels = [discord.add_channel(f"lat-{n}") for n in range(1, args.channels, 2)]
        github = GitHubProcess(self.repos) if self.polling else None
        async with Store.from_url(url) as store, slack:
            runner = web.AppRunner(discord.app(), access_log=None)
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            port = runner.addresses[0][1]
            Route.BASE = f"http://127.0.0.1:{port}/api/v10"
            http = HTTPClient(asyncio.get_running_loop())
            await http.static_login(discord.token)
            channels = [("slack", TEAM_ID, c) for c in slack_channels]
            channels += [("discord", "bench", c) for c in discord_channels]
            channels.sort(key=lambda c: (int(c[2][5:]) if c[0] == "slack" else 0, c[2]))
            for n, (platform, workspace, channel) in enumerate(channels):
                await store.subscriptions.add(
                    platform=platform,
                    workspace=workspace,
                    channel=channel,
                    repo=self.repos[n % len(self.repos)],
                )
            for n in range(count):
                self.expected[10_000 + n] = sum(
                    1 for k in range(len(channels)) if k % len(self.repos) == n % len(self.repos)
                )
            settings = load_settings(
                env_file=None,
                github={
                    "webhook_secret": SECRET,
                    "token": GITHUB_TOKEN,
                    "api_url": github.url if github else "https://api.github.com",
                },
                realtime={"poll_interval": f"{args.poll_interval}s"},
            )
            slack_platform = SlackPlatform(
                slack_client(SLACK_TOKEN, base_url=slack.url),
                pacer=Pacer(per_channel_interval=1.0, per_minute=args.slack_per_minute, burst=10),
            )
            discord_platform = DiscordPlatform(http, pacer=discord_pacer(45))
            platforms = [Timed(slack_platform, self.posted), Timed(discord_platform, self.posted)]
            worker = Worker(store, platforms, settings=DeliverySettings())
            realtime = Realtime(
                store=store, config=config, settings=settings, source_for=default_source
            )
            app = web.Application()
            realtime.mount(app)
            hook = web.AppRunner(app, access_log=None)
            await hook.setup()
            await web.TCPSite(hook, "127.0.0.1", 0).start()
            hook_port = hook.addresses[0][1]
            # a service that has run a while: the language tables are loaded, and a poller
            # knows its ETags
            warm = parse_replay_line(
                json.dumps(gate_records(1, self.repos, datetime.now(UTC), 0)[0]),
                file="warm",
                line=1,
            )
            bulletin_of(compose([warm], config=config, window=bulletin_window(warm)))
            if self.polling:
                await realtime.poll()
            stop = asyncio.Event()
            await realtime.start()
            delivering = asyncio.create_task(worker.run_forever(stop))
            polling = asyncio.create_task(self._poll(realtime, stop)) if self.polling else None
            try:
                async with WebhookSender(
                    f"http://127.0.0.1:{hook_port}{settings.realtime.path}"
                ) as sender:
                    # the changes land from a second after everything is set up
                    start = datetime.now(UTC) + timedelta(seconds=1)
                    records = gate_records(count, self.repos, start, args.interval)
                    planned = [
                        parse_replay_line(json.dumps(r), file="bench", line=n + 1)
                        for n, r in enumerate(records)
                    ]
                    if not self.polling:  # the source the processor reads
                        text = "".join(json.dumps(r) + "\n" for r in records)
                        (self.folder / "changes.jsonl").write_text(text, encoding="utf-8")
                    await self._arrive(planned, sender, github)
                await self._drain(store, sum(self.expected.values()))
            finally:
                stop.set()
                await delivering
                if polling is not None:
                    await polling
                await realtime.close()
                await slack_platform.close()
                await http.close()
                await hook.cleanup()
                await runner.cleanup()
                if github is not None:
                    github.close()
            return await self._report(store, slack, discord)

    async def _arrive(
        self, planned: list[Activity], sender: WebhookSender, github: GitHubProcess | None
    ) -> None:
        for activity in planned:
            delay = (activity.landed_at - datetime.now(UTC)).total_seconds()
            if delay > 0:
                await asyncio.sleep(delay)
            self.started[activity.number] = time.perf_counter()
            self.arrived[activity.number] = datetime.now(UTC)
            if github is not None:
                github.merge(activity)
            else:
                status, _ = await sender.send("pull_request", merged_pull_request(activity))
                if status != 202:
                    raise SystemExit(f"the receiver answered {status}")

    async def _poll(self, realtime: Realtime, stop: asyncio.Event) -> None:
        """What the leader's APScheduler job does: a poll every poll interval (fixed rate, a
        run still going when the next is due makes that one wait)."""
        due = time.perf_counter() + self.args.poll_interval
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), timeout=max(0.0, due - time.perf_counter()))
            except TimeoutError:
                await realtime.poll()
                due += self.args.poll_interval

    async def _drain(self, store: Store, wanted: int) -> None:
        deadline = time.perf_counter() + self.args.poll_interval + 120
        while len(self.posted) < wanted and time.perf_counter() < deadline:
            await asyncio.sleep(0.2)
        while time.perf_counter() < deadline:  # the rest of the parts
            counts = await store.listing.counts()
            if counts["pending"] == counts["in_progress"] == 0:
                return
            await asyncio.sleep(0.2)

    async def _report(self, store: Store, slack: FakeSlack, discord: FakeDiscord) -> dict:
        latencies = []
        got: Counter[int] = Counter()
        numbers: dict[str, int] = {}
        for (story_id, _channel), at in self.posted.items():
            if story_id not in numbers:
                numbers[story_id] = (await store.stories.get(story_id)).references[0].number
            number = numbers[story_id]
            got[number] += 1
            latencies.append(at - self.started[number])
        queued = [
            (info.created_at - self.arrived[numbers[info.story_id]]).total_seconds()
            for info in await store.listing.list(limit=100_000)
            if info.story_id in numbers
        ]
        parents = sum(
            1 for messages in slack.messages.values() for m in messages if m.thread_ts is None
        )
        parents += sum(1 for m in discord.messages.values() if m["channel_id"] in discord.channels)
        return {
            "latencies": latencies,
            "queued": queued,
            "expected": sum(self.expected.values()),
            "lost": sum(max(0, n - got[k]) for k, n in self.expected.items()),
            "duplicates": parents - len(self.posted),
            "slack_429": sum(1 for r in slack.requests if r.status == 429),
            "discord_429": len(discord.rate_limited),
            "problems": slack.problems[:3] + discord.problems[:3],
        }


def show(name: str, found: dict, target: float) -> bool:
    values = found["latencies"]
    ok = bool(values) and not found["lost"] and not found["duplicates"]
    if values:
        p99 = percentile(values, 0.99)
        print(
            f"{name:8} bulletins {len(values):5d} of {found['expected']}   "
            f"p50 {statistics.median(values):6.2f} s   p90 {percentile(values, 0.90):6.2f} s   "
            f"p99 {p99:6.2f} s   max {max(values):6.2f} s   (target p99 < {target:g} s: "
            f"{'met' if p99 < target else 'NOT met'})"
        )
    if found["queued"]:
        queued = found["queued"]
        print(
            f"{'':8} of which arrival → bulletin queued in the outbox: "
            f"p50 {statistics.median(queued):.2f} s, p99 {percentile(queued, 0.99):.2f} s"
        )
    print(
        f"{'':8} lost {found['lost']}, duplicates {found['duplicates']}, "
        f"429s Slack {found['slack_429']} Discord {found['discord_429']}"
    )
    if found["problems"]:
        print(f"{'':8} requests the loopback APIs refused: {found['problems']}")
        ok = False
    return ok


async def main_async(args: argparse.Namespace) -> bool:
    print(
        f"{args.channels} channels (half Slack, half Discord) following {args.repos} projects; "
        f"one change every {args.interval:g} s; worker as shipped "
        f"(poll {DeliverySettings().poll_interval:g} s, {DeliverySettings().workers} in flight)"
    )
    ok = True
    cpu, wall = time.process_time(), time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        if args.events:
            print(f"webhook: {args.events} signed deliveries")
            hooked = await Bench(args, Path(folder), polling=False).run()
            ok &= show("webhook", hooked, 5.0)
        if args.poll_events:
            print(f"polling: {args.poll_events} merges, a poll every {args.poll_interval:g} s")
            polled = await Bench(args, Path(folder), polling=True).run()
            ok &= show("polling", polled, args.poll_interval + 5.0)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"CPU {cpu:.1f} s over {wall:.1f} s ({cpu / wall:.0%} of one core: bot and fakes)")
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100, help="webhook deliveries")
    parser.add_argument("--channels", type=int, default=200)
    parser.add_argument("--repos", type=int, default=10)
    parser.add_argument("--interval", type=float, default=2.0, help="seconds between changes")
    parser.add_argument("--slack-per-minute", type=float, default=6000)
    parser.add_argument("--poll-events", type=int, default=20, help="merges found by polling")
    parser.add_argument("--poll-interval", type=float, default=10.0, help="seconds")
    args = parser.parse_args()
    if not asyncio.run(main_async(args)):
        sys.exit(1)


if __name__ == "__main__":
    main()
