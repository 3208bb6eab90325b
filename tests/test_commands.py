"""`/wire …` commands end to end: typed text → parser → handlers → real SQLite store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from bot.delivery.parts import ActionItemPart
from bot.delivery.worker import Worker
from bot.store import Store
from tests.chat import WireChat, sqlite_store
from tests.conftest import build_story


@pytest.fixture
async def store(tmp_path) -> AsyncIterator[Store]:
    opened = await sqlite_store(tmp_path)
    try:
        yield opened
    finally:
        await opened.close()


@pytest.fixture
def wire(store: Store) -> WireChat:
    return WireChat(store)


async def test_subscribe_by_alias_then_again_is_a_no_op(wire: WireChat, store: Store) -> None:
    reply = await wire("/wire subscribe executorch")
    assert "Subscribed this channel to ExecuTorch" in reply
    assert reply.visibility == "channel" and reply.ok
    again = await wire("/wire subscribe pytorch/executorch")
    assert "Already subscribed to ExecuTorch" in again and "nothing changed" in again
    (sub,) = await store.subscriptions.list(channel="C1")
    assert (sub.repo, sub.topic, sub.created_by) == ("pytorch/executorch", None, "alice")


async def test_subscribe_repo_topic_pairs_and_lone_topics(wire: WireChat, store: Store) -> None:
    reply = await wire("/wire subscribe pytorch/executorch topic:xnnpack topic:grafana ci-infra")
    assert "ExecuTorch topic:XNNPACK" in reply and "topic:Grafana" in reply
    subs = {(s.repo, s.topic) for s in await store.subscriptions.list(channel="C1")}
    assert subs == {
        ("pytorch/executorch", "XNNPACK"),
        (None, "Grafana"),
        ("pytorch/ci-infra", None),
    }


async def test_excludes_narrow_a_subscription_and_are_updated(wire: WireChat, store: Store) -> None:
    reply = await wire("/wire subscribe executorch -author:pytorchbot -topic:doc")
    assert "excluding author:pytorchbot, topic:Docs" in reply
    (sub,) = await store.subscriptions.list()
    assert sub.excludes == ("author:pytorchbot", "topic:Docs")
    changed = await wire("/wire subscribe executorch -author:dependabot")
    assert "exclusions now: author:dependabot" in changed
    (sub,) = await store.subscriptions.list()
    assert sub.excludes == ("author:dependabot",)


async def test_unconfigured_repositories_are_refused_without_confirming_them(
    wire: WireChat, store: Store
) -> None:
    """With `[subscribing] open = "config"` (WireChat's), GitHub is never asked."""
    real = await wire("/wire subscribe pytorch/pytorch")  # exists on GitHub, not configured
    fake = await wire("/wire subscribe nobody/nothing-here")
    assert not real.ok and not fake.ok
    first, last = real.text.splitlines()[0], real.text.splitlines()[-1]
    assert first.replace("pytorch/pytorch", "X") == fake.text.splitlines()[0].replace(
        "nobody/nothing-here", "X"
    )
    assert last == fake.text.splitlines()[-1]
    assert not any(w in real.text.lower() for w in ("private", "exist", "access", "found"))
    assert "Usage: /wire subscribe" in real and "not a project this Wire follows" in real
    assert await store.subscriptions.list() == []


async def test_unknown_names_suggest_the_closest_known_ones(wire: WireChat) -> None:
    reply = await wire("/wire subscribe executorh")
    assert "Did you mean: `executorch`" in reply
    topic = await wire("/wire subscribe executorch topic:xnnpak")
    assert "`XNNPACK`" in topic and "Usage:" in topic
    verb = await wire("/wire subscrbe executorch")
    assert "`subscribe`" in verb and "Usage: /wire help" in verb


async def test_a_refused_name_carries_the_usage_of_the_command_typed(wire: WireChat) -> None:
    for command in ("unsubscribe", "preview", "subscribe"):
        reply = await wire(f"/wire {command} nothing-here")
        assert not reply.ok and "`nothing-here` is not a project" in reply
        [usage] = [line for line in reply.text.splitlines() if line.startswith("Usage: ")]
        assert usage.startswith(f"Usage: /wire {command} "), reply.text
    topic = await wire("/wire unsubscribe topic:nothing-here")
    assert "Usage: /wire unsubscribe " in topic and "Usage: /wire subscribe" not in topic


async def test_unsubscribe_one_then_all(wire: WireChat, store: Store) -> None:
    await wire("/wire subscribe executorch ci-infra topic:osdc")
    assert "Unsubscribed this channel from ExecuTorch" in await wire("/wire unsubscribe et")
    assert "was not subscribed to ExecuTorch" in await wire("/wire unsubscribe executorch")
    assert "from all 1 subscription" in await wire("/wire unsubscribe all")
    assert await store.subscriptions.list() == []
    assert "nothing changed" in await wire("/wire unsubscribe all")


async def test_list_shows_who_subscribed_and_the_last_delivery(
    wire: WireChat, store: Store
) -> None:
    assert "no subscriptions" in await wire("/wire list")
    await wire("/wire subscribe executorch", user=("U2", "bob"))
    listing = await wire("/wire list")
    assert "ExecuTorch — by bob" in listing and "Last delivery: none yet" in listing
    story = build_story(3)
    await store.deliveries.enqueue(story, platform="chat", workspace="W1", channel="C1")
    await Worker(store, [wire.platform]).run_once()
    listing = await wire("/wire list")
    assert f"“{story.headline}” (delivered" in listing
    assert listing.visibility == "ephemeral"


async def test_topics_of_one_project_or_all(wire: WireChat) -> None:
    one = await wire("/wire topics ci-infra")
    assert one.text == "ci-infra: OSDC, Grafana, CI, Docs"
    every = await wire("/wire topics")
    assert "ExecuTorch: XNNPACK, Arm" in every and "ci-infra: OSDC" in every
    assert not (await wire("/wire topics pytorch/pytorch")).ok


async def test_preview_is_the_next_story_shown_only_to_the_asker(wire: WireChat) -> None:
    await wire("/wire subscribe executorch ci-infra")
    reply = await wire("/wire preview")
    assert reply.visibility == "ephemeral" and reply.story is not None
    assert set(reply.story.repos) == {"pytorch/executorch", "pytorch/ci-infra"}
    assert reply.story.window.until == datetime(2026, 5, 27, tzinfo=UTC)
    assert reply.story.headline in reply and not reply.story.is_empty
    only = await wire("/wire preview ci-infra topic:grafana")
    assert only.story is not None and only.story.topic == "Grafana"
    assert {r.repo for r in only.story.references} == {"pytorch/ci-infra"}


async def test_schedule_rhythms_and_timezones(wire: WireChat, store: Store) -> None:
    reply = await wire("/wire schedule weekdays 09:00 Europe/Berlin")
    assert "weekdays at 09:00 Europe/Berlin" in reply
    got = await store.channels.get(platform="chat", workspace="W1", channel="C1")
    assert (got.schedule, got.timezone) == ("0 9 * * mon-fri", "Europe/Berlin")
    assert "weekly on mon at 07:30 Europe/Berlin" in await wire("/wire schedule weekly Monday 7:30")
    assert "daily at 09:00 UTC" in await wire("/wire schedule daily utc")
    assert "off" in await wire("/wire schedule off")
    got = await store.channels.get(platform="chat", workspace="W1", channel="C1")
    assert got.schedule == "off"
    bad = await wire("/wire schedule daily 25:00")
    assert not bad.ok and "HH:MM" in bad and "Usage: /wire schedule" in bad
    zone = await wire("/wire schedule daily 08:00 Europe/Berlim")
    assert "`Europe/Berlin`" in zone


async def test_mute_for_a_while_then_off(wire: WireChat, store: Store) -> None:
    with time_machine.travel(datetime(2026, 6, 1, 12, tzinfo=UTC), tick=False):
        assert "Muted for 4h, until 2026-06-01 16:00 UTC" in await wire("/wire mute 4h")
        got = await store.channels.get(platform="chat", workspace="W1", channel="C1")
        assert got.muted_until == datetime(2026, 6, 1, 16, tzinfo=UTC)
        assert "Muted for 1d 2h" in await wire("/wire mute 1d2h")
        assert "Unmuted" in await wire("/wire mute off")
    got = await store.channels.get(platform="chat", workspace="W1", channel="C1")
    assert got.muted_until is None
    bad = await wire("/wire mute forever")
    assert not bad.ok and "Usage: /wire mute DURATION" in bad


async def test_ack_is_recorded_once_per_user_and_shown_on_the_item(
    wire: WireChat, store: Store
) -> None:
    story = build_story(5)
    item = story.action_items[0].id
    await store.deliveries.enqueue(story, platform="chat", workspace="W1", channel="C1")
    await Worker(store, [wire.platform]).run_once()
    posted = next(p for p in wire.platform.posts if isinstance(p.part, ActionItemPart))

    assert f"Acknowledged {item} (by alice)" in await wire(f"/wire ack {item}")
    assert "already acknowledged" in await wire(f"/wire ack {item}")
    bare = item.removeprefix("item_")
    assert "(by alice, bob)" in await wire(f"/wire ack {bare}", user=("U2", "bob"))
    assert [(c, m) for c, m, _ in wire.platform.updates] == [("C1", posted.message_id)] * 2
    last = wire.platform.updates[-1][2]
    assert isinstance(last, ActionItemPart) and [a.user_name for a in last.acks] == [
        "alice",
        "bob",
    ]
    elsewhere = await wire(f"/wire ack {item}", channel="C2")
    assert not elsewhere.ok and "Usage: /wire ack ITEM" in elsewhere


async def test_help_and_empty_input_list_every_command(wire: WireChat) -> None:
    for text in ("/wire help", "/wire", ""):
        reply = await wire(text)
        assert reply.ok and "/wire subscribe" in reply and "/wire mute" in reply
    assert (await wire("/wire help schedule")).text.startswith("Usage: /wire schedule")


def test_mute_durations_are_capped() -> None:
    from bot.commands.grammar import MAX_MUTE, parse_mute

    assert parse_mute("90m") == timedelta(minutes=90)
    assert parse_mute("999999d") == MAX_MUTE
    assert parse_mute("0m") is None and parse_mute("4x") is None
