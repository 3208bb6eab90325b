"""Slack fan-out: one 4-part story to many channels under Slack's rate limits.

The story is composed from the real executorch activity of one day (2026-04-07: parent,
body, one action item, references) and queued through the real store (SQLite in a
temporary directory) for `--channels` channels. The real delivery `Worker` posts it
through `SlackPlatform` and slack-sdk's `AsyncWebClient` to the loopback Slack of the
tests, which allows one message a second per channel and `--per-minute` messages a
minute per workspace and answers HTTP 429 with Retry-After past either; the pacer is
configured to the same limits.

Prints the makespan (worker start to the last part recorded), the lower bound
max(parts·channels/N minutes, (parts-1)·1 s) and their ratio (target ≤ 1.15), the 429s
the loopback Slack sent, messages posted, duplicates and lost parts (both must be 0),
requests sent, time spent recording parts in SQLite, CPU time and peak RSS. Exits 1 when
a part is duplicated, lost or out of its thread.

    .venv/bin/python bench/slack_fanout.py                       # 1,000 channels, 6,000/min
    .venv/bin/python bench/slack_fanout.py --channels 200 --per-minute 600   # past a minute
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


from bot.delivery.attempts import part_key  # noqa: E402
from bot.delivery.pacing import Pacer  # noqa: E402
from bot.delivery.parts import parts_of  # noqa: E402
from bot.delivery.worker import Worker  # noqa: E402
from bot.settings_sections import DeliverySettings  # noqa: E402
from bot.slack.platform import EVENT_TYPE, SlackPlatform, slack_client  # noqa: E402
from bot.slack.render import render  # noqa: E402
from bot.store import Store, upgrade_database  # noqa: E402
from digest.compose import compose  # noqa: E402
from digest.config import load_config  # noqa: E402
from digest.model import Story, Window  # noqa: E402
from digest.sources.replay import ReplaySource  # noqa: E402
from tests.fakes.slack_server import TEAM_ID, FakeSlack  # noqa: E402

ACTIVITY = ROOT / "tests" / "data" / "activity" / "pytorch-executorch-2026-q2.jsonl"
DAY = datetime(2026, 4, 7, tzinfo=UTC)  # composes to exactly four parts
TOKEN = "xoxb-wire-bench"
INTERVAL = 1.0  # Slack: about one message a second per channel


def four_part_story() -> Story:
    """The story of `DAY`: parent, body, one action item, references; one message each."""
    config = load_config(ROOT / "config" / "wire.example.toml")
    activities = ReplaySource(ACTIVITY).read_all()
    story = compose(activities, config=config, window=Window(since=DAY, until=DAY + timedelta(1)))
    kinds = [part.kind for part in parts_of(story)]
    if kinds != ["parent", "body", "action_item", "references"] or story.checks.problems:
        raise SystemExit(f"the story of {DAY:%Y-%m-%d} is no longer four clean parts: {kinds}")
    if any(len(render(part)) != 1 for part in parts_of(story)):
        raise SystemExit("a part of the story needs more than one Slack message")
    return story


class RecordTimer:
    """Adds up the wall time of `record_part` calls (one SQLite transaction per part)."""

    def __init__(self, deliveries) -> None:
        self.calls = 0
        self.seconds = 0.0
        self._record = deliveries.record_part
        deliveries.record_part = self

    async def __call__(self, *args, **kwargs):
        started = time.perf_counter()
        try:
            return await self._record(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - started
            self.calls += 1


@dataclass
class Audit:
    """What the loopback Slack holds compared with what should be there."""

    posted: int
    duplicates: int
    lost: int
    unthreaded: int


def audit(fake: FakeSlack, expected: dict[str, int], parts: int) -> Audit:
    """Check every channel holds each part of its delivery once, replies in the parent's
    thread. `expected` maps channel → delivery id."""
    posted = duplicates = lost = unthreaded = 0
    for channel, delivery_id in expected.items():
        messages = fake.messages.get(channel, [])
        posted += len(messages)
        keys = Counter((m.metadata or {}).get("event_payload", {}).get("key") for m in messages)
        duplicates += sum(n - 1 for n in keys.values() if n > 1)
        wanted = [part_key(delivery_id, index) for index in range(parts)]
        lost += sum(1 for key in wanted if key not in keys)
        parent = next((m.ts for m in messages if m.thread_ts is None), None)
        unthreaded += sum(1 for m in messages if m.thread_ts not in (None, parent))
        unthreaded += sum(1 for m in messages if m.thread_ts is None) - (parent is not None)
        if any((m.metadata or {}).get("event_type") != EVENT_TYPE for m in messages):
            unthreaded += 1
    return Audit(posted, duplicates, lost, unthreaded)


async def run(args: argparse.Namespace) -> bool:
    story = four_part_story()
    parts = len(parts_of(story))
    channels = [f"C0FAN{i:05d}" for i in range(args.channels)]
    settings = DeliverySettings(workers=args.workers, batch_size=args.batch_size)
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{folder}/fanout.db"
        await upgrade_database(url)
        async with Store.from_url(url) as store:
            expected = {}
            for channel in channels:
                queued = await store.deliveries.enqueue(
                    story, platform="slack", workspace=TEAM_ID, channel=channel
                )
                expected[channel] = queued.id
            timer = RecordTimer(store.deliveries)
            fake = FakeSlack(
                tokens=[TOKEN],
                channels=channels,
                per_channel_interval=INTERVAL,
                per_minute=args.per_minute,
            )
            async with fake:
                pacer = Pacer(
                    per_channel_interval=INTERVAL, per_minute=args.per_minute, burst=args.burst
                )
                platform = SlackPlatform(slack_client(TOKEN, base_url=fake.url), pacer=pacer)
                worker = Worker(store, [platform], settings=settings)
                cpu = time.process_time()
                started = time.perf_counter()
                try:
                    summary = await worker.run_once()
                finally:
                    await platform.close()
                makespan = time.perf_counter() - started
                cpu = time.process_time() - cpu
    found = audit(fake, expected, parts)
    bound = max(parts * args.channels / args.per_minute * 60, (parts - 1) * INTERVAL)
    refused = sum(1 for r in fake.requests if r.status == 429)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{args.channels} channels × {parts} parts, {args.per_minute:g}/min workspace, "
        f"{INTERVAL:g} s per channel; workers {settings.workers}, batch {settings.batch_size}, "
        f"burst {args.burst}"
    )
    print(f"makespan           {makespan:8.2f} s")
    print(f"lower bound        {bound:8.2f} s   ratio {makespan / bound:.3f} (target ≤ 1.15)")
    print(f"429s received      {refused:8d}")
    print(f"messages posted    {found.posted:8d}   of {parts * args.channels}")
    print(f"duplicates         {found.duplicates:8d}")
    print(f"lost parts         {found.lost:8d}")
    print(f"out of thread      {found.unthreaded:8d}")
    print(f"requests sent      {len(fake.requests):8d}")
    print(
        f"delivered          {summary.delivered:8d}   retried {summary.retried}, "
        f"dead {summary.dead}, lost leases {summary.lost}"
    )
    per_part = timer.seconds / max(timer.calls, 1) * 1000
    print(f"SQLite part record {per_part:8.2f} ms wall each ({timer.calls} records)")
    print(f"CPU time           {cpu:8.2f} s   ({cpu / makespan:.0%} of one core)")
    print(f"peak RSS           {rss:8.1f} MiB")
    if fake.problems:
        print(f"requests the Slack API description refuses: {fake.problems[:3]}")
    return not (found.duplicates or found.lost or found.unthreaded or fake.problems)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--channels", type=int, default=1000)
    parser.add_argument("--per-minute", type=float, default=6000, help="workspace budget N")
    parser.add_argument("--burst", type=int, default=10, help="the pacer's workspace burst")
    parser.add_argument(
        "--workers", type=int, default=DeliverySettings().workers, help="deliveries in flight"
    )
    parser.add_argument("--batch-size", type=int, default=DeliverySettings().batch_size)
    args = parser.parse_args()
    if not asyncio.run(run(args)):
        sys.exit(1)


if __name__ == "__main__":
    main()
