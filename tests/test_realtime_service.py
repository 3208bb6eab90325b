"""The service's part of real time: with several replicas on PostgreSQL only the scheduling
leader polls; every replica's web server takes webhook deliveries."""

from __future__ import annotations

import io

from bot.app.service import Service
from bot.delivery.platform import ConsolePlatform
from bot.settings import load_settings
from digest.config import load_config
from tests.slack_requests import ROOT
from tests.webhook_payloads import SECRET, WebhookSender, ping


async def start(database_url: str) -> Service:
    settings = load_settings(
        env_file=None,
        database_url=database_url,
        platforms=("console",),
        http={"host": "127.0.0.1", "port": 0},
        github={"webhook_secret": SECRET},
    )
    config = load_config(ROOT / "config/demo.toml")
    platforms = {"console": ConsolePlatform(io.StringIO())}
    return await Service.start(settings=settings, config=config, platforms=platforms)


async def test_only_the_leader_polls_and_every_replica_takes_webhooks(postgres_url: str) -> None:
    async with await start(postgres_url) as first, await start(postgres_url) as second:
        assert await first.leader.acquire()
        assert not await second.leader.acquire()
        await second.poll()
        assert second.realtime.poller.caches == {}  # polled nothing
        await first.poll()
        assert set(first.realtime.poller.caches) == {"pytorch/executorch", "pytorch/ci-infra"}

        for replica in (first, second):
            await replica.start_frontends()
            path = replica.settings.realtime.path
            async with WebhookSender(f"{replica.web_url}{path}") as sender:
                status, delivery = await sender.send("ping", ping("pytorch/ci-infra"))
            assert status == 202
            assert (await replica.store.webhooks.get(delivery)).state == "ignored"
