"""`/metrics` after a loopback Slack fan-out: the counters match the deliveries made; and
every 429 of the loopback Discord is counted, those discord.py waits out included.

The real worker posts one story to a dozen channels through `SlackPlatform` and slack-sdk
to the loopback Slack of the tests, which answers five posts "rate limited" and knows nothing
of one channel (a dead letter). Then acks and reminders are recorded, and `/metrics` is
scraped over HTTP from the real route and parsed with prometheus-client's own parser.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from discord.http import HTTPClient, Route
from prometheus_client.parser import text_string_to_metric_families

from bot import metrics
from bot.acks.escalate import acknowledge
from bot.delivery.attempts import Summary
from bot.delivery.followups import send_reminders
from bot.delivery.pacing import Pacer
from bot.delivery.parts import parts_of
from bot.delivery.worker import Worker
from bot.discord.platform import DiscordPlatform, discord_pacer
from bot.errors import RetryableError
from bot.settings_sections import DeliverySettings
from bot.slack.platform import SlackPlatform, slack_client
from bot.store import Store
from bot.web import MetricsSite
from tests.fakes.discord_rest import FakeDiscord
from tests.fakes.slack_server import TEAM_ID, FakeSlack

TOKEN = "xoxb-wire-metrics"
CHANNELS = [f"C0MET{i:05d}" for i in range(12)]
GONE = "C0GONE0001"  # not a channel of the loopback Slack: channel_not_found, dead


async def scrape(store: Store, counted: metrics.Metrics) -> tuple[dict, str]:
    """Every sample of `/metrics` as {(name, sorted labels): value}, and the raw text."""
    app = web.Application()
    MetricsSite(store=store, instance=counted).mount(app)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        async with aiohttp.ClientSession() as http, http.get(server.make_url("/metrics")) as got:
            assert got.status == 200
            assert got.headers["Content-Type"].startswith("text/plain; version=")
            text = await got.text()
    finally:
        await server.close()
    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }
    return samples, text


async def deliver_all(worker: Worker, store: Store) -> Summary:
    """Run the worker until nothing is pending (retries come due within milliseconds)."""
    total = Summary()
    for _ in range(200):
        total += await worker.run_once()
        if (await store.listing.counts())["pending"] == 0:
            return total
        await asyncio.sleep(0.02)
    raise AssertionError(f"deliveries still pending: {await store.listing.counts()}")


async def test_metrics_match_a_loopback_fan_out(store: Store, make_story) -> None:
    counted = metrics.install(metrics.Metrics())
    story = make_story(1)  # parent, body, one [immediate] item, references
    for channel in [*CHANNELS, GONE]:
        await store.deliveries.enqueue(story, platform="slack", workspace=TEAM_ID, channel=channel)
    settings = DeliverySettings(workers=4, backoff_base=0.01, backoff_cap=0.02)
    async with FakeSlack(tokens=[TOKEN], channels=CHANNELS, per_channel_interval=0) as slack:
        # HTTP 429s (slack-sdk retries each once by itself, then the worker retries the
        # part), and two "ratelimited" answers without a 429 that only the worker retries
        slack.fail("chat.postMessage", status=429, error="ratelimited", retry_after=0, times=3)
        slack.fail("chat.postMessage", status=200, error="ratelimited", times=2)
        pacer = Pacer(per_channel_interval=0, per_minute=1_000_000)
        platform = SlackPlatform(slack_client(TOKEN, base_url=slack.url), pacer=pacer)
        try:
            summary = await deliver_all(Worker(store, [platform], settings=settings), store)
            acked = CHANNELS[0]
            item = story.action_items[0].id
            for _ in range(2):  # the second ack by the same user is not new
                await acknowledge(
                    store,
                    {"slack": platform},
                    item_id=item,
                    platform="slack",
                    channel=acked,
                    user_id="U0ANA0001",
                    user_name="Ana Lima",
                )
            reminded = await send_reminders(
                store, {"slack": platform}, reminder_after=timedelta(0), oncall={"slack": None}
            )
        finally:
            await platform.close()
    refused = sum(1 for request in slack.requests if request.error == "ratelimited")
    counts = await store.listing.counts()
    assert refused == 5 and summary.retried >= 2 and reminded == len(CHANNELS) - 1

    samples, text = await scrape(store, counted)

    def value(name: str, **labels: str) -> float:
        return samples.get((name, tuple(sorted(labels.items()))), 0.0)

    assert value("wire_deliveries_total", platform="slack", outcome="posted") == len(CHANNELS)
    assert value("wire_deliveries_total", platform="slack", outcome="posted") == counts["delivered"]
    assert value("wire_deliveries_total", platform="slack", outcome="failed") == summary.retried
    assert value("wire_deliveries_total", platform="slack", outcome="dead") == counts["dead"] == 1
    assert value("wire_rate_limited_total", platform="slack") == refused
    assert value("wire_delivery_seconds_count", platform="slack") == len(CHANNELS)
    assert value("wire_outbox_deliveries", state="delivered") == len(CHANNELS)
    assert value("wire_outbox_deliveries", state="pending") == 0
    assert value("wire_acks_total", platform="slack") == 1
    assert value("wire_reminders_sent_total", platform="slack") == reminded
    assert "C0MET" not in text and GONE not in text and story.id not in text  # no ids as labels


async def test_each_service_counts_on_its_own_registry(store: Store) -> None:
    first = metrics.install(metrics.Metrics())
    metrics.delivery_settled("discord", "posted", seconds=0.5)
    metrics.rate_limited("discord")
    metrics.leadership(True)
    with metrics.composing():
        pass
    try:
        with metrics.composing():
            raise ValueError("a composition that fails")
    except ValueError:
        pass
    second = metrics.install(metrics.Metrics())
    metrics.webhook_event("pull_request", "accepted")
    metrics.delivery_settled("C0NOTAPLATFORM", "exploded")  # folded into bounded labels

    one, _ = await scrape(store, first)
    two, _ = await scrape(store, second)
    posted = ("wire_deliveries_total", (("outcome", "posted"), ("platform", "discord")))
    assert one[posted] == 1 and posted not in two
    assert one[("wire_stories_composed_total", ())] == 1  # the failed one is not counted
    assert one[("wire_compose_seconds_count", ())] == 1
    assert one[("wire_leader", ())] == 1 and two[("wire_leader", ())] == 0
    assert one[("wire_rate_limited_total", (("platform", "discord"),))] == 1
    event = ("wire_webhook_events_total", (("event", "pull_request"), ("outcome", "accepted")))
    assert two[event] == 1 and event not in one
    assert two[("wire_deliveries_total", (("outcome", "other"), ("platform", "other")))] == 1


@pytest.fixture
async def discord_http(monkeypatch) -> AsyncIterator[tuple[FakeDiscord, HTTPClient]]:
    """discord.py's real HTTPClient, logged in to a fresh loopback Discord."""
    fake = FakeDiscord()
    server = TestServer(fake.app(), host="127.0.0.1")
    await server.start_server()
    monkeypatch.setattr(Route, "BASE", str(server.make_url("/api/v10")))
    http = HTTPClient(asyncio.get_running_loop())
    try:
        await http.static_login(fake.token)
        yield fake, http
    finally:
        await http.close()
        await server.close()


async def test_every_429_discord_answers_is_counted(discord_http, store: Store, make_story) -> None:
    fake, http = discord_http
    counted = metrics.install(metrics.Metrics())
    platform = DiscordPlatform(http, pacer=discord_pacer(1000))
    channel = fake.add_channel()
    parent = parts_of(make_story(2))[0]
    fake.script_429("messages", 0.01, 0.01)  # waited out inside discord.py
    await platform.post(channel, parent, None, key="1.0")
    fake.script_429("messages", *[0.01] * 5)  # discord.py gives up after five
    with pytest.raises(RetryableError):
        await platform.post(channel, parent, None, key="2.0")
    assert len(fake.rate_limited) == 7
    samples, _ = await scrape(store, counted)
    assert samples[("wire_rate_limited_total", (("platform", "discord"),))] == 7
