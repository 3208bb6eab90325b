"""The archive served by the real service on the demo: the list, a story's page with its
citations, acks and references, the JSON contract, and the security headers.

The service runs the demo once (console platform, demo data), starts its web server on a
free loopback port, and a real aiohttp client reads the pages over HTTP.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.app.service import Service
from bot.settings import load_settings
from bot.web.site import CONTENT_SECURITY_POLICY
from digest.config import load_config

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "config" / "demo.toml"
HEADLINE = "CI-INFRA SPLITS PRE-MERGE CI INTO FAST AND SLOW GATES"


@pytest.fixture
async def demo(tmp_path: Path) -> AsyncIterator[tuple[Service, str]]:
    """The demo service after one run, serving on a free port: (service, base URL)."""
    settings = load_settings(
        config=DEMO,
        env_file=None,
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'wire.db'}",
        http={"host": "127.0.0.1", "port": 0},
    )
    service = await Service.start(settings=settings, config=load_config(DEMO), stream=io.StringIO())
    async with service:
        report = await service.run_once()
        assert report.delivered.delivered == 1
        await service.start_frontends()
        assert service.web_url is not None
        yield service, service.web_url


async def fetch(url: str, **options) -> tuple[int, dict[str, str], str]:
    async with aiohttp.ClientSession() as http, http.get(url, **options) as response:
        return response.status, dict(response.headers), await response.text()


async def story_id_of(service: Service) -> str:
    page = await service.store.archive.page()
    [story] = page.stories
    return story.id


async def test_the_list_shows_the_demo_story_with_a_strict_policy(demo) -> None:
    service, url = demo
    status, headers, html = await fetch(url + "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert (
        "script-src" not in CONTENT_SECURITY_POLICY
        and "default-src 'none'" in headers["Content-Security-Policy"]
    )
    assert headers["X-Content-Type-Options"] == "nosniff"
    story_id = await story_id_of(service)
    assert f'<a href="/stories/{story_id}">{HEADLINE}' in html
    assert "<script" not in html
    assert '<a class="skip" href="#main">' in html and '<main id="main"' in html
    assert html.count('<h2><a href="/stories/') == 1 and "Page 1" not in html  # one page


async def test_a_story_page_links_its_citations_and_shows_acks(demo) -> None:
    service, url = demo
    story_id = await story_id_of(service)
    story = await service.store.stories.get(story_id)
    assert story is not None
    status, _, html = await fetch(f"{url}/stories/{story_id}")
    assert status == 200
    assert f"<h1>{HEADLINE}" in html
    assert "About ci-infra, ExecuTorch" in html
    # every citation links to its reference's anchor, and every anchor exists
    cited = set(re.findall(r'<a class="cite" href="#ref-(\d+)"', html))
    anchors = set(re.findall(r'<li id="ref-(\d+)">', html))
    assert cited and cited <= anchors == {str(ref.n) for ref in story.references}
    assert '<a href="https://github.com/pytorch/ci-infra/pull/619">' in html
    assert html.count("Not acknowledged yet") == len(story.action_items)

    item = story.action_items[0]
    outcome = await service.hub.acknowledge(
        item_id=item.id, platform="console", channel="demo", user_id="U1", user_name="Ana Lima"
    )
    assert outcome.result is not None and outcome.result.new
    acked_at = outcome.result.acks[0].acked_at
    _, _, html = await fetch(f"{url}/stories/{story_id}")
    assert "Acknowledged by" in html and "Ana Lima (console) at" in html
    assert f'<time datetime="{acked_at.isoformat()}">' in html
    assert html.count("Not acknowledged yet") == len(story.action_items) - 1


async def test_the_json_is_the_contract_of_wire_digest(demo) -> None:
    service, url = demo
    story_id = await story_id_of(service)
    status, headers, served = await fetch(f"{url}/stories/{story_id}.json")
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    printed = subprocess.run(
        [
            *(sys.executable, "-c", "from bot.app.cli import main; main()", "digest"),
            *("--source", "replay:demo/activity.jsonl", "--config", str(DEMO)),
            *("--since", "2026-05-25T00:00:00Z", "--until", "2026-05-27T00:00:00Z"),
            *("--format", "json"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    ours, theirs = json.loads(served), json.loads(printed)
    assert list(ours) == list(theirs)  # the same fields in the same order, indented alike
    assert served.startswith('{\n  "id": ') and printed.startswith('{\n  "id": ')
    # the same story (its id is a hash of what it was composed from); the service lists
    # the channel's repositories sorted, the CLI in the configuration's order
    assert ours["id"] == theirs["id"] == story_id
    assert sorted(ours.pop("repos")) == sorted(theirs.pop("repos"))
    assert ours == theirs


async def test_unknown_stories_are_404_pages_under_the_same_policy(demo) -> None:
    _, url = demo
    status, headers, html = await fetch(f"{url}/stories/story_0000000000000000")
    assert status == 404 and "Story not found" in html
    assert headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    status, _, body = await fetch(f"{url}/stories/story_0000000000000000.json")
    assert status == 404 and json.loads(body) == {"error": "not found"}
    status, _, _ = await fetch(f"{url}/stories/%3Cscript%3E")
    assert status == 404


async def test_metrics_are_served_beside_the_archive(demo) -> None:
    _, url = demo
    status, headers, text = await fetch(f"{url}/metrics")
    assert status == 200 and headers["Content-Type"].startswith("text/plain")
    assert 'wire_deliveries_total{outcome="posted",platform="console"} 1.0' in text
    assert 'wire_outbox_deliveries{state="delivered"} 1.0' in text
    assert "wire_stories_composed_total 1.0" in text
