"""Discord fan-out: one story to many channels under Discord's global and per-route limits.

The story is the showcase story composed from the real executorch activity (parent, body,
action items, references). It is queued through the real store (SQLite in a temporary
directory) for `--channels` channels, and the real delivery `Worker` posts it through
`DiscordPlatform` and discord.py's `HTTPClient` to the loopback Discord of the tests, run
in its own process: 50 requests a second in all (429 with `"global": true` past it) and
per-channel buckets (5 messages per 5 s, 10 threads per 10 s), every request checked
against Discord's API description.

Prints the makespan (worker start to the last part recorded), the lower bound
(requests / 50 per s) and their ratio (target ≤ 1.15), the 429s (global and route), the
duplicates and lost parts (both must be 0), requests sent, and peak RSS. Exits 1 when a
message is duplicated or lost, a thread is missing, or a request was invalid.

    .venv/bin/python bench/discord_fanout.py                        # 1,000 channels
    .venv/bin/python bench/discord_fanout.py --channels 200 --rps 48 --window 1000
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import resource
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from aiohttp import web  # noqa: E402
from discord.http import HTTPClient, Route  # noqa: E402

from bot.delivery.attempts import part_key  # noqa: E402
from bot.delivery.parts import parts_of  # noqa: E402
from bot.delivery.worker import Worker  # noqa: E402
from bot.discord.platform import DiscordPlatform, discord_pacer, nonce_of  # noqa: E402
from bot.discord.render import render  # noqa: E402
from bot.settings_sections import DeliverySettings, DiscordSettings  # noqa: E402
from bot.store import Store, upgrade_database  # noqa: E402
from digest.compose import compose  # noqa: E402
from digest.model import Story  # noqa: E402
from tests.digest_data import SHOWCASE_WINDOW, example_config, executorch, window  # noqa: E402
from tests.fakes.discord_rest import FakeDiscord  # noqa: E402

GLOBAL_PER_SECOND = 50


def showcase_story() -> Story:
    """The showcase window's story; its checks must pass for it to be delivered."""
    story = compose(executorch(), config=example_config(), window=window(*SHOWCASE_WINDOW))
    if story.checks is None or story.checks.problems:
        raise SystemExit("the showcase story no longer passes its checks")
    return story


def expected_nonces(story: Story, delivery_id: int) -> list[str]:
    """The nonces of every message one delivery posts, in order."""
    nonces = []
    for part in parts_of(story):
        key = part_key(delivery_id, part.index)
        count = len(render(part))
        nonces += [nonce_of(key if i == 0 else f"{key}+{i}") for i in range(count)]
    return nonces


# ---- the loopback Discord, in its own process ------------------------------------------


def serve(channels: int, ready: Any, stop: Any, out: Any) -> None:
    """Run the fake with `channels` channels until `stop` is set, then report what it saw."""
    asyncio.run(_serve(channels, ready, stop, out))


async def _serve(channels: int, ready: Any, stop: Any, out: Any) -> None:
    fake = FakeDiscord(global_limit=GLOBAL_PER_SECOND)
    ids = [fake.add_channel(f"wire-{n}") for n in range(channels)]
    runner = web.AppRunner(fake.app(), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    ready.put((port, fake.token, ids))
    await asyncio.get_running_loop().run_in_executor(None, stop.wait)
    await runner.cleanup()
    out.put(
        {
            "messages": [(m["channel_id"], m["nonce"]) for m in fake.messages.values()],
            "threads": {t: thread["parent_id"] for t, thread in fake.threads.items()},
            "rate_limited": [is_global for _, is_global in fake.rate_limited],
            "requests": dict(fake.requests),
            "problems": fake.problems[:5],
            "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        }
    )


# ---- the bot side ----------------------------------------------------------------------


async def deliver(
    *, base: str, token: str, channels: list[str], story: Story, rps: float, window_size: int
) -> tuple[float, dict[str, int], dict[str, int]]:
    """Queue the story for every channel and run the worker; returns (makespan, summary,
    delivery id by channel)."""
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{folder}/bench.db"
        await upgrade_database(url)
        async with Store.from_url(url) as store:
            ids = {}
            for channel in channels:
                queued = await store.deliveries.enqueue(
                    story, platform="discord", workspace="bench", channel=channel
                )
                ids[channel] = queued.id
            Route.BASE = f"{base}/api/v10"
            http = HTTPClient(asyncio.get_running_loop())
            await http.static_login(token)
            try:
                platform = DiscordPlatform(http, pacer=discord_pacer(rps))
                settings = DeliverySettings(workers=window_size, batch_size=window_size)
                worker = Worker(store, [platform], settings=settings, worker_id="bench")
                started = time.perf_counter()
                summary = await worker.run_once()
                makespan = time.perf_counter() - started
            finally:
                await http.close()
    return makespan, vars(summary), ids


def tally(seen: dict[str, Any], story: Story, ids: dict[str, int]) -> dict[str, int]:
    """Duplicates (messages beyond the first of a nonce) and lost messages per channel."""
    by_place = Counter(seen["messages"])
    threads_of = {parent: thread for thread, parent in seen["threads"].items()}
    duplicates = sum(n - 1 for n in by_place.values())
    lost = missing_threads = 0
    for channel, delivery_id in ids.items():
        nonces = expected_nonces(story, delivery_id)
        thread = threads_of.get(channel)
        missing_threads += thread is None
        lost += (channel, nonces[0]) not in by_place
        lost += sum((thread, nonce) not in by_place for nonce in nonces[1:])
    return {"duplicates": duplicates, "lost": lost, "missing_threads": missing_threads}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--channels", type=int, default=1000)
    parser.add_argument(
        "--rps", type=float, default=DiscordSettings().requests_per_second, help="our pacing"
    )
    parser.add_argument("--window", type=int, default=100, help="deliveries in flight")
    args = parser.parse_args()

    story = showcase_story()
    per_channel = 1 + len(expected_nonces(story, 1))  # every message, and the thread
    requests = per_channel * args.channels
    bound = requests / GLOBAL_PER_SECOND
    print(
        f"{args.channels} channels × {per_channel} requests ({len(parts_of(story))} parts "
        f"and a thread) = {requests} requests; pacing {args.rps:g}/s, "
        f"{args.window} deliveries in flight"
    )

    context = multiprocessing.get_context("spawn")
    ready, out, stop = context.Queue(), context.Queue(), context.Event()
    server = context.Process(target=serve, args=(args.channels, ready, stop, out))
    server.start()
    try:
        port, token, channels = ready.get(timeout=120)
        makespan, summary, ids = asyncio.run(
            deliver(
                base=f"http://127.0.0.1:{port}",
                token=token,
                channels=channels,
                story=story,
                rps=args.rps,
                window_size=args.window,
            )
        )
    finally:
        stop.set()
    seen = out.get(timeout=120)
    server.join()
    counts = tally(seen, story, ids)
    sent = sum(n for route, n in seen["requests"].items() if route in ("messages", "threads"))
    global_429 = sum(seen["rate_limited"])
    route_429 = len(seen["rate_limited"]) - global_429

    print(f"makespan          {makespan:8.2f} s")
    print(f"lower bound       {bound:8.2f} s  (requests / {GLOBAL_PER_SECOND} per s)")
    print(f"ratio             {makespan / bound:8.3f}  (target ≤ 1.15)")
    print(
        f"429s              {global_429 + route_429:8d}  ({global_429} global, {route_429} route)"
    )
    print(f"requests sent     {sent:8d}  ({seen['requests']})")
    print(f"deliveries        {summary['delivered']:8d} delivered, {summary['retried']} retried")
    print(f"duplicates        {counts['duplicates']:8d}")
    print(f"lost parts        {counts['lost']:8d}  ({counts['missing_threads']} threads missing)")
    print(f"invalid requests  {len(seen['problems']):8d}  {seen['problems'] or ''}")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"peak RSS          {rss:8.1f} MiB (bot)  {seen['rss'] / 1024:.1f} MiB (loopback Discord)"
    )
    failed = counts["duplicates"] or counts["lost"] or counts["missing_threads"] or seen["problems"]
    if failed or summary["delivered"] != args.channels:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
