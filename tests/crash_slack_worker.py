"""A delivery worker process for the Slack crash test: delivers everything in the outbox to
the loopback Slack through the real `SlackPlatform` (slack-sdk), then exits 0. The test
SIGKILLs it while Slack is slow to answer, so a parent it posted may never be recorded.

    python -m tests.crash_slack_worker --database URL --slack http://127.0.0.1:PORT/api/ --worker-id ID
"""

from __future__ import annotations

import argparse
import asyncio

from bot.delivery.pacing import Pacer
from bot.delivery.worker import Worker
from bot.slack.platform import SlackPlatform, slack_client
from bot.store import Store
from tests.crash_worker import SETTINGS, deliver_until_empty

TOKEN = "xoxb-crash-test"


async def main(database: str, slack: str, worker_id: str) -> None:
    pacer = Pacer(per_channel_interval=0.0, per_minute=60_000, burst=1_000)
    platform = SlackPlatform(slack_client(TOKEN, base_url=slack), pacer=pacer)
    async with Store.from_url(database) as store:
        try:
            worker = Worker(store, [platform], settings=SETTINGS, worker_id=worker_id)
            await deliver_until_empty(worker, store)
        finally:
            await platform.close()


def run(database: str, slack: str, worker_id: str) -> None:
    """The process's whole life: deliver until the outbox is empty."""
    asyncio.run(main(database, slack, worker_id))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--database", required=True)
    parser.add_argument("--slack", required=True)
    parser.add_argument("--worker-id", required=True)
    args = parser.parse_args()
    run(args.database, args.slack, args.worker_id)
