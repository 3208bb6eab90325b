"""`/healthz` of the running service's web server follows the process's Health: 200 while
all is well, 503 with one sentence per unwell part, 200 again once it recovers."""

from __future__ import annotations

from pathlib import Path

import aiohttp

from tests.fakes.slack_server import FakeSlack
from tests.slack_requests import TOKEN, slack_service


async def healthz(http: aiohttp.ClientSession, url: str) -> tuple[int, dict]:
    async with http.get(url) as answer:
        return answer.status, await answer.json()


async def test_healthz_answers_503_with_the_reason_while_a_part_is_unwell(tmp_path: Path) -> None:
    async with (
        FakeSlack(tokens=[TOKEN]) as slack,
        slack_service(tmp_path, slack.url) as (service, _sender),
        aiohttp.ClientSession() as http,
    ):
        assert service.web_url is not None
        url = f"{service.web_url}/healthz"
        status, body = await healthz(http, url)
        assert (status, body["ok"], "problems" in body) == (200, True, False)
        service.hub.health.problem("database", "cannot reach the database at db:5432")
        status, body = await healthz(http, url)
        assert (status, body["ok"]) == (503, False)
        assert body["problems"] == {"database": "cannot reach the database at db:5432"}
        service.hub.health.ok("database")
        status, body = await healthz(http, url)
        assert (status, body["ok"], "problems" in body) == (200, True, False)
