"""A channel with a schedule timezone reads its window in that zone: in the posted parent
message, in `/wire preview`, and on the archive page its link opens. Channels without one
keep the UTC label (the service's `[schedule] timezone` otherwise)."""

from __future__ import annotations

from datetime import UTC, datetime

import aiohttp
from aiohttp import web
from aiohttp.test_utils import TestServer

from bot.delivery.parts import ParentPart
from bot.delivery.worker import Worker
from bot.settings_sections import WebSettings
from bot.store import Store
from bot.web.site import ArchiveSite
from digest.model import Window
from tests.chat import WireChat, demo_config
from tests.conftest import build_story
from tests.test_deliver import FAST, RecordingPlatform


def test_a_window_reads_in_a_zone_with_its_days_or_its_dates() -> None:
    day = Window(
        since=datetime(2026, 1, 5, 8, 30, tzinfo=UTC), until=datetime(2026, 1, 6, 8, 30, tzinfo=UTC)
    )
    assert day.label() == day.label("UTC") == "2026-01-05 08:30 – 2026-01-06 08:30 UTC"
    assert day.label("Europe/Berlin") == "Mon 09:30 – Tue 09:30 CET"
    month = Window(
        since=datetime(2026, 3, 2, 8, 30, tzinfo=UTC),
        until=datetime(2026, 3, 30, 7, 30, tzinfo=UTC),
    )
    assert month.label("Europe/Berlin") == "Mon 2026-03-02 09:30 – Mon 2026-03-30 09:30 CEST"


async def test_the_parent_message_reads_the_window_in_the_channels_zone(store: Store) -> None:
    story = build_story(7)
    for channel, zone in (("BERLIN", "Europe/Berlin"), ("PLAIN", None)):
        if zone:
            await store.channels.update(
                platform="chat", workspace="W", channel=channel, timezone=zone
            )
        await store.deliveries.enqueue(story, platform="chat", workspace="W", channel=channel)
    chat = RecordingPlatform()
    worker = Worker(store, [chat], settings=FAST, public_url="https://wire.example.com")
    assert (await worker.run_once()).delivered == 2
    parents = {p.channel: p.part for p in chat.posts if isinstance(p.part, ParentPart)}
    assert parents["BERLIN"].window_label == story.window.label("Europe/Berlin")
    assert parents["BERLIN"].window_label.endswith(("CET", "CEST"))
    assert parents["BERLIN"].permalink == (
        f"https://wire.example.com/stories/{story.id}?tz=Europe%2FBerlin"
    )
    assert parents["PLAIN"].window_label == story.window.label()
    assert parents["PLAIN"].permalink == f"https://wire.example.com/stories/{story.id}"


async def test_preview_reads_the_window_in_the_channels_zone(store: Store) -> None:
    wire = WireChat(store, config=demo_config())
    assert (await wire("/wire schedule daily 09:30 Europe/Berlin")).ok
    reply = await wire("/wire preview executorch")
    assert reply.zone == "Europe/Berlin"
    assert reply.text.startswith("Preview (Mon 02:00 – Wed 02:00 CEST): "), reply.text


async def test_the_archive_page_reads_the_window_in_the_zone_of_its_link(
    store: Store, make_story
) -> None:
    story = make_story(8)
    await store.stories.save(story)
    app = web.Application()
    ArchiveSite(store=store, config=demo_config(), settings=WebSettings(enabled=True)).mount(app)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        async with aiohttp.ClientSession() as http:
            for query, label in (
                ("?tz=Asia/Tokyo", story.window.label("Asia/Tokyo")),
                ("", story.window.label()),
                ("?tz=../../etc/passwd", story.window.label()),  # no such zone: UTC
            ):
                url = str(server.make_url(f"/stories/{story.id}")) + query
                async with http.get(url) as response:
                    assert response.status == 200 and label in await response.text(), query
    finally:
        await server.close()
