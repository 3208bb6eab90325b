"""Archive page render time over 10,000 stories in the store (target: p99 < 50 ms).

Composes the demo's story (config/demo.toml, demo/activity.jsonl), saves `--stories`
copies of it under distinct ids (alternating projects, one in four with a topic, one in
fifty private) through the store's own saving transaction, then serves `ArchiveSite` on a
loopback port and reads each page `--requests` times (after ten to warm up) with a real
aiohttp client, one request at a time. Prints p50, p95 and p99 per page (request to last
byte: the store's query, the template, HTTP), and exits 1 when a p99 misses the target.

    .venv/bin/python bench/archive_render.py                     # SQLite, 10,000 stories
    .venv/bin/python bench/archive_render.py --database-url postgresql+asyncpg://…/wire
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402
from aiohttp import web  # noqa: E402
from aiohttp.test_utils import TestServer  # noqa: E402
from pydantic import SecretStr  # noqa: E402
from sqlalchemy import text  # noqa: E402

from bot.settings_sections import WebSettings  # noqa: E402
from bot.store import Store, upgrade_database  # noqa: E402
from bot.store.stories import save_story_on  # noqa: E402
from bot.web import ArchiveSite  # noqa: E402
from digest.config import load_config  # noqa: E402
from digest.model import Story, Window  # noqa: E402
from digest.pipeline import compose_window  # noqa: E402
from digest.sources.replay import ReplaySource  # noqa: E402

TARGET_MS = 50.0
PROJECTS = ("pytorch/executorch", "pytorch/ci-infra")
WINDOW = Window(since=datetime(2026, 5, 25, tzinfo=UTC), until=datetime(2026, 5, 27, tzinfo=UTC))


async def demo_story() -> tuple[Story, object]:
    config = load_config(ROOT / "config" / "demo.toml")
    source = ReplaySource(ROOT / "demo" / "activity.jsonl")
    story = await compose_window([source], config=config, window=WINDOW)
    private = config.projects[1].model_copy(update={"repo": "acme/private", "private": True})
    return story, config.model_copy(update={"projects": (*config.projects, private)})


def copies(story: Story, count: int) -> list[Story]:
    """`count` stories like `story`, each with its own id, window, projects and topic."""
    made = []
    for n in range(count):
        repos = ("acme/private",) if n % 50 == 49 else (PROJECTS[n % 2],)
        since = WINDOW.since - timedelta(days=count - n)
        made.append(
            story.model_copy(
                update={
                    "id": f"story_{n:016x}",
                    "repos": repos,
                    "topic": "XNNPACK" if n % 4 == 0 else None,
                    "headline": f"{story.headline} ({n})",
                    "window": Window(since=since, until=since + timedelta(days=2)),
                }
            )
        )
    return made


async def fill(store: Store, stories: list[Story]) -> float:
    started = time.perf_counter()
    for start in range(0, len(stories), 500):
        async with store.db.begin() as conn:
            for story in stories[start : start + 500]:
                await save_story_on(conn, story)
    return time.perf_counter() - started


async def timed(http: aiohttp.ClientSession, url: str, times: int) -> list[float]:
    seconds = []
    for _ in range(times):
        started = time.perf_counter()
        async with http.get(url) as response:
            await response.read()
            assert response.status == 200, (url, response.status)
        seconds.append(time.perf_counter() - started)
    return seconds


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def run(args: argparse.Namespace) -> bool:
    story, config = await demo_story()
    stories = copies(story, args.stories)
    with tempfile.TemporaryDirectory() as folder:
        url = args.database_url or f"sqlite+aiosqlite:///{folder}/archive.db"
        await upgrade_database(url)
        async with Store.from_url(url) as store:
            if (await store.archive.page(limit=1)).stories:
                raise SystemExit(f"{url} already holds stories; give an empty database")
            filled = await fill(store, stories)
            if store.backend == "postgresql":  # what autovacuum does after a bulk load
                async with store.engine.connect() as conn:
                    await conn.execute(text("ANALYZE stories"))
                    await conn.execute(text("ANALYZE story_repos"))
                    await conn.commit()
            settings = WebSettings(enabled=True, token=SecretStr("bench-token"))
            app = web.Application()
            ArchiveSite(store=store, config=config, settings=settings).mount(app)
            server = TestServer(app, host="127.0.0.1")
            await server.start_server()
            pages = {
                "list, page 1": "/",
                "list, page 250": "/?page=250",
                "list, one project": "/?project=executorch",
                "list, one topic": "/?topic=XNNPACK",
                "story": f"/stories/{stories[args.stories // 2].id}",
                "story JSON": f"/stories/{stories[args.stories // 2].id}.json",
            }
            results = {}
            try:
                async with aiohttp.ClientSession(str(server.make_url(""))) as http:
                    for name, path in pages.items():
                        await timed(http, path, 10)  # warm the page cache and the template
                        results[name] = await timed(http, path, args.requests)
            finally:
                await server.close()
            backend = store.backend
    print(
        f"{args.stories:,} stories on {backend} (filled in {filled:.1f} s), "
        f"{args.requests} requests per page, one at a time"
    )
    print(f"{'page':<20} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}")
    ok = True
    for name, seconds in results.items():
        p50, p95, p99 = (percentile(seconds, q) * 1000 for q in (0.5, 0.95, 0.99))
        ok = ok and p99 < TARGET_MS
        print(f"{name:<20} {p50:8.2f} {p95:8.2f} {p99:8.2f}")
    overall = percentile([s for v in results.values() for s in v], 0.99) * 1000
    print(f"p99 over every page  {overall:.2f} ms (target < {TARGET_MS:g} ms)")
    print(
        f"mean                 {statistics.fmean(s for v in results.values() for s in v) * 1000:.2f} ms"
    )
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stories", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=200, help="per page")
    parser.add_argument("--database-url", help="an empty, reachable database (default SQLite)")
    args = parser.parse_args()
    if not asyncio.run(run(args)):
        sys.exit(1)


if __name__ == "__main__":
    main()
