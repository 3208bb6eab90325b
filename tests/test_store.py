"""The store on real SQLite and real PostgreSQL: identity rules, claiming, leases, acks."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
import time_machine

from bot.errors import LeaseLostError, UnknownDeliveryError
from bot.store import Store, upgrade_database, utcnow
from tests.conftest import build_story

LEASE = timedelta(seconds=60)


async def test_upgrade_is_idempotent(database_url: str) -> None:
    await upgrade_database(database_url)
    await upgrade_database(database_url)


async def test_subscriptions_are_unique_even_with_null_repo_or_topic(store: Store) -> None:
    where = dict(platform="slack", workspace="T1", channel="C1")
    first, created = await store.subscriptions.add(**where, topic="xnnpack", created_by="U1")
    again, created_again = await store.subscriptions.add(**where, topic="xnnpack")
    assert created and not created_again
    assert again.id == first.id and again.repo is None and again.created_by == "U1"

    repo_sub, _ = await store.subscriptions.add(
        **where, repo="pytorch/executorch", excludes=["author:pytorchbot", "topic:docs"]
    )
    assert repo_sub.excludes == ("author:pytorchbot", "topic:docs")
    await store.subscriptions.add(platform="discord", workspace="G1", channel="C9", repo="a/b")

    assert [s.id for s in await store.subscriptions.list(channel="C1")] == [first.id, repo_sub.id]
    assert len(await store.subscriptions.list()) == 3
    assert await store.subscriptions.remove(**where, topic="xnnpack")
    assert not await store.subscriptions.remove(**where, topic="xnnpack")
    assert await store.subscriptions.set_excludes(repo_sub.id, ["author:dependabot"])
    (left,) = await store.subscriptions.list(platform="slack")
    assert left.excludes == ("author:dependabot",)


async def test_a_subscription_needs_a_target(store: Store) -> None:
    with pytest.raises(ValueError, match="repository, a topic"):
        await store.subscriptions.add(platform="slack", workspace="T1", channel="C1")


async def test_channel_settings_default_then_update_partially(store: Store) -> None:
    where = dict(platform="slack", workspace="T1", channel="C1")
    assert (await store.channels.get(**where)).schedule is None
    await store.channels.update(**where, schedule="0 9 * * 1-5", timezone="Europe/Paris")
    until = utcnow().replace(microsecond=0)
    await store.channels.set_window_until(**where, until=until)
    settings = await store.channels.get(**where)
    assert (settings.schedule, settings.timezone) == ("0 9 * * 1-5", "Europe/Paris")
    assert await store.channels.window_until(**where) == until
    cleared = await store.channels.update(**where, timezone=None)
    assert cleared.timezone is None and cleared.schedule == "0 9 * * 1-5"
    assert [c.channel for c in await store.channels.list()] == ["C1"]


async def test_story_round_trips(store: Store) -> None:
    story = build_story(1)
    await store.stories.save(story)
    await store.stories.save(story)
    assert await store.stories.get(story.id) == story
    assert await store.stories.get("story_missing") is None


async def test_enqueue_is_idempotent(store: Store) -> None:
    story = build_story(1)
    first = await store.deliveries.enqueue(story, platform="slack", workspace="T1", channel="C1")
    again = await store.deliveries.enqueue(story, platform="slack", workspace="T1", channel="C1")
    other = await store.deliveries.enqueue(story, platform="slack", workspace="T1", channel="C2")
    assert first.created and not again.created and other.created
    assert again.id == first.id != other.id
    assert (await store.listing.counts())["pending"] == 2


async def test_failing_story_is_dead_lettered_at_enqueue(store: Store) -> None:
    story = build_story(2, problems=("citation [3] resolves to nothing",))
    queued = await store.deliveries.enqueue(story, platform="slack", workspace="T1", channel="C1")
    assert queued.state == "dead"
    assert await store.deliveries.claim_due(worker_id="w", limit=10, lease=LEASE) == []
    info = await store.listing.get(queued.id)
    assert info is not None and "citation [3] resolves to nothing" in (info.last_error or "")


async def test_claim_marks_attempt_and_skips_claimed_rows(store: Store) -> None:
    for n in range(3):
        await store.deliveries.enqueue(build_story(n), platform="slack", workspace="T", channel="C")
    first = await store.deliveries.claim_due(worker_id="a", limit=2, lease=LEASE)
    second = await store.deliveries.claim_due(worker_id="b", limit=5, lease=LEASE)
    assert [c.attempts for c in first] == [1, 1]
    assert len(second) == 1 and second[0].id not in {c.id for c in first}
    assert await store.deliveries.claim_due(worker_id="c", limit=5, lease=LEASE) == []


async def test_claim_only_named_platforms(store: Store) -> None:
    await store.deliveries.enqueue(build_story(1), platform="slack", workspace="T", channel="C")
    await store.deliveries.enqueue(build_story(1), platform="discord", workspace="G", channel="C")
    claims = await store.deliveries.claim_due(
        worker_id="w", limit=5, lease=LEASE, platforms=["discord"]
    )
    assert [c.platform for c in claims] == ["discord"]


async def test_two_workers_on_two_engines_never_claim_the_same_row(database_url: str) -> None:
    stores = [Store.from_url(database_url), Store.from_url(database_url)]
    try:
        for n in range(120):
            await stores[0].deliveries.enqueue(
                build_story(n), platform="slack", workspace="T", channel="C"
            )

        async def drain(store: Store, worker_id: str) -> list[int]:
            claimed: list[int] = []
            while batch := await store.deliveries.claim_due(
                worker_id=worker_id, limit=7, lease=LEASE
            ):
                claimed += [c.id for c in batch]
                await asyncio.sleep(0.002)  # give the other worker its turn
            return claimed

        a, b = await asyncio.gather(drain(stores[0], "a"), drain(stores[1], "b"))
        assert not set(a) & set(b)
        assert len(a) + len(b) == 120 and a and b
    finally:
        for store in stores:
            await store.close()


async def test_expired_lease_is_reclaimed_and_old_worker_is_fenced(store: Store) -> None:
    queued = await store.deliveries.enqueue(
        build_story(1), platform="slack", workspace="T", channel="C"
    )
    (claim,) = await store.deliveries.claim_due(worker_id="old", limit=1, lease=LEASE)
    assert await store.deliveries.claim_due(worker_id="new", limit=1, lease=LEASE) == []
    with time_machine.travel(utcnow() + timedelta(minutes=2), tick=True):
        (again,) = await store.deliveries.claim_due(worker_id="new", limit=1, lease=LEASE)
        assert again.id == claim.id == queued.id and again.attempts == 2
        with pytest.raises(LeaseLostError):
            await store.deliveries.record_part(
                claim.id,
                worker_id="old",
                part_index=0,
                message_id="m0",
                thread_id=None,
                lease=LEASE,
            )
        # The part was posted, so it is recorded even though the old worker lost its lease.
        assert [p.message_id for p in await store.deliveries.posted_parts(claim.id)] == ["m0"]
        with pytest.raises(LeaseLostError):
            await store.deliveries.finish(claim.id, worker_id="old")
        await store.deliveries.finish(claim.id, worker_id="new")
    assert (await store.listing.counts())["delivered"] == 1


async def test_record_part_is_idempotent_and_parts_list_in_order(store: Store) -> None:
    await store.deliveries.enqueue(build_story(1), platform="slack", workspace="T", channel="C")
    (claim,) = await store.deliveries.claim_due(worker_id="w", limit=1, lease=LEASE)
    for index, thread in ((1, "m0"), (0, None), (1, "m0")):
        await store.deliveries.record_part(
            claim.id,
            worker_id="w",
            part_index=index,
            message_id=f"m{index}",
            thread_id=thread,
            lease=LEASE,
        )
    parts = await store.deliveries.posted_parts(claim.id)
    assert [(p.part_index, p.message_id, p.thread_id) for p in parts] == [
        (0, "m0", None),
        (1, "m1", "m0"),
    ]


async def test_retry_release_dead_letter_and_requeue(store: Store) -> None:
    queued = await store.deliveries.enqueue(
        build_story(1), platform="slack", workspace="T", channel="C"
    )
    (claim,) = await store.deliveries.claim_due(worker_id="w", limit=1, lease=LEASE)
    later = utcnow() + timedelta(minutes=5)
    await store.deliveries.retry_later(claim.id, worker_id="w", error="429 slow down", at=later)
    assert await store.deliveries.claim_due(worker_id="w", limit=1, lease=LEASE) == []
    with time_machine.travel(later + timedelta(seconds=1), tick=True):
        (claim,) = await store.deliveries.claim_due(worker_id="w", limit=1, lease=LEASE)
        assert claim.attempts == 2
        await store.deliveries.release(claim.id, worker_id="w")
        (claim,) = await store.deliveries.claim_due(worker_id="w", limit=1, lease=LEASE)
        assert claim.attempts == 2
        await store.deliveries.dead_letter(claim.id, worker_id="w", error="channel_not_found")
    info = await store.listing.get(queued.id)
    assert info is not None
    assert (info.state, info.last_error, info.attempts) == ("dead", "channel_not_found", 2)
    await store.deliveries.requeue(queued.id)
    assert (await store.listing.counts())["pending"] == 1
    with pytest.raises(UnknownDeliveryError):
        await store.deliveries.requeue(999_999)


async def test_listing_shows_headline_parts_and_filters(store: Store) -> None:
    story = build_story(7)
    queued = await store.deliveries.enqueue(story, platform="slack", workspace="T", channel="C")
    await store.deliveries.enqueue(build_story(8), platform="discord", workspace="G", channel="D")
    (claim, _) = await store.deliveries.claim_due(worker_id="w", limit=2, lease=LEASE)
    await store.deliveries.record_part(
        claim.id, worker_id="w", part_index=0, message_id="m", thread_id=None, lease=LEASE
    )
    (info,) = await store.listing.list(platform="slack")
    assert info.id == queued.id and info.headline == story.headline
    assert (info.state, info.parts_posted, info.attempts) == ("in_progress", 1, 1)
    assert [i.channel for i in await store.listing.list()] == ["D", "C"]
    assert await store.listing.list(state="dead") == []
    with pytest.raises(ValueError, match="unknown delivery state"):
        await store.listing.list(state="lost")


async def test_acks_are_once_per_user_and_find_their_message(store: Store) -> None:
    story = build_story(3)
    item = story.action_items[0]
    await store.deliveries.enqueue(story, platform="slack", workspace="T", channel="C")
    (claim,) = await store.deliveries.claim_due(worker_id="w", limit=1, lease=LEASE)
    await store.deliveries.record_part(
        claim.id, worker_id="w", part_index=0, message_id="p", thread_id=None, lease=LEASE
    )
    await store.deliveries.record_part(
        claim.id,
        worker_id="w",
        part_index=2,
        message_id="i",
        thread_id="p",
        item_id=item.id,
        lease=LEASE,
    )
    found = await store.acks.find_item_message(item.id, platform="slack", channel="C")
    assert found is not None
    assert (found.message_id, found.thread_id, found.part_index) == ("i", "p", 2)
    assert found.story_id == story.id
    assert await store.acks.find_item_message(item.id, platform="discord", channel="C") is None
    by_message = await store.acks.find_message("i", platform="slack", channel="C")
    assert by_message is not None and by_message.item_id == item.id
    assert await store.acks.find_message("p", platform="slack", channel="C") is None  # a parent
    assert await store.acks.find_message("i", platform="slack", channel="D") is None

    cutoff = utcnow() + timedelta(seconds=1)
    assert [m.item_id for m in await store.acks.unacked_items(posted_before=cutoff)] == [item.id]
    first = await store.acks.record(
        item.id, platform="slack", channel="C", user_id="U1", user_name="ada"
    )
    again = await store.acks.record(
        item.id, platform="slack", channel="C", user_id="U1", user_name="ada"
    )
    second = await store.acks.record(
        item.id, platform="slack", channel="C", user_id="U2", user_name="bob"
    )
    assert first.new and not again.new and second.new
    assert [a.user_name for a in second.acks] == ["ada", "bob"]
    assert await store.acks.unacked_items(posted_before=cutoff) == []
    assert await store.acks.record_reminder(item.id, channel="C")
    assert not await store.acks.record_reminder(item.id, channel="C")
