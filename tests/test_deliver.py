"""The delivery worker on real SQLite and PostgreSQL, posting to a recording platform."""

from __future__ import annotations

import asyncio
import contextlib
import random
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
import time_machine
from pydantic import ValidationError
from sqlalchemy import update

from bot.delivery.attempts import backoff
from bot.delivery.followups import refresh_item, send_reminders
from bot.delivery.listing import describe, list_deliveries
from bot.delivery.parts import ActionItemPart, Part, ReminderPart, parts_of
from bot.delivery.worker import Worker
from bot.errors import PermanentError, RetryableError
from bot.settings_sections import DeliverySettings
from bot.store import Store, utcnow
from bot.store.tables import StoryRow
from tests.conftest import build_story

FAST = DeliverySettings(backoff_base=0.001, backoff_cap=0.001, max_attempts=3)


@dataclass
class Post:
    channel: str
    part: Part
    thread: str | None
    key: str
    message_id: str


@dataclass
class RecordingPlatform:
    """A chat platform at the far edge: keeps posts, honours idempotency keys, and raises
    the scripted errors first."""

    name: str = "chat"
    failures: list[Exception] = field(default_factory=list)
    posts: list[Post] = field(default_factory=list)
    updates: list[tuple[str, str, Part]] = field(default_factory=list)
    after_post: asyncio.Event | None = None
    stop_after: int | None = None
    delay: float = 0.0

    async def post(self, channel: str, part: Part, thread: str | None, *, key: str) -> str:
        await asyncio.sleep(self.delay)
        if self.failures:
            raise self.failures.pop(0)
        for earlier in self.posts:
            if earlier.key == key:
                return earlier.message_id
        message_id = f"m{len(self.posts) + 1}"
        self.posts.append(Post(channel, part, thread, key, message_id))
        if self.after_post is not None and len(self.posts) == self.stop_after:
            self.after_post.set()
        return message_id

    async def update(self, channel: str, message_id: str, part: Part) -> None:
        self.updates.append((channel, message_id, part))


async def enqueue(store: Store, n: int, *, platform: str = "chat", **story_args) -> int:
    story = build_story(n, **story_args)
    queued = await store.deliveries.enqueue(story, platform=platform, workspace="W", channel="C")
    return queued.id


async def test_parts_are_posted_in_order_as_one_thread(store: Store) -> None:
    delivery_id = await enqueue(store, 1, items=2)
    chat = RecordingPlatform()
    summary = await Worker(store, [chat], settings=FAST).run_once()
    assert (summary.claimed, summary.delivered, summary.parts_posted) == (1, 1, 5)
    assert [(p.part.kind, p.part.index) for p in chat.posts] == [
        ("parent", 0),
        ("body", 1),
        ("action_item", 2),
        ("action_item", 3),
        ("references", 4),
    ]
    parent = chat.posts[0].message_id
    assert [p.thread for p in chat.posts] == [None, parent, parent, parent, parent]
    assert [p.key for p in chat.posts] == [f"{delivery_id}.{i}" for i in range(5)]
    recorded = await store.deliveries.posted_parts(delivery_id)
    assert [(r.message_id, r.thread_id) for r in recorded] == [
        (p.message_id, p.thread) for p in chat.posts
    ]
    assert recorded[2].item_id == build_story(1, items=2).action_items[0].id
    (info,) = await list_deliveries(store)
    assert (info.state, info.parts_posted) == ("delivered", 5)
    assert describe(info).startswith(f"#{delivery_id} delivered   chat:C attempts=1 parts=5")


async def test_a_no_news_story_posts_its_parent_only(store: Store) -> None:
    await enqueue(store, 2, items=0, body=False)
    chat = RecordingPlatform()
    await Worker(store, [chat]).run_once()
    assert [p.part.kind for p in chat.posts] == ["parent"]


async def test_resume_after_the_last_recorded_part(store: Store) -> None:
    delivery_id = await enqueue(store, 3)
    story = build_story(3)
    chat = RecordingPlatform()
    # A worker that died after posting and recording the first two parts.
    (claim,) = await store.deliveries.claim_due(worker_id="dead", limit=1, lease=FAST.lease)
    thread = None
    for part in parts_of(story)[:2]:
        message_id = await chat.post("C", part, thread, key=f"{claim.id}.{part.index}")
        await store.deliveries.record_part(
            claim.id,
            worker_id="dead",
            part_index=part.index,
            message_id=message_id,
            thread_id=thread,
            lease=FAST.lease,
        )
        thread = thread or message_id
    worker = Worker(store, [chat], settings=FAST)
    assert (await worker.run_once()).claimed == 0  # the lease still holds
    with time_machine.travel(utcnow() + FAST.lease + timedelta(seconds=1), tick=True):
        summary = await worker.run_once()
    assert (summary.delivered, summary.parts_posted) == (1, 2)
    assert [p.part.index for p in chat.posts] == [0, 1, 2, 3]
    assert {p.thread for p in chat.posts[1:]} == {"m1"}
    assert len(await store.deliveries.posted_parts(delivery_id)) == 4


async def test_retry_after_is_honoured(store: Store) -> None:
    delivery_id = await enqueue(store, 4)
    chat = RecordingPlatform(failures=[RetryableError("rate limited", retry_after=120)])
    worker = Worker(store, [chat], settings=FAST)
    with time_machine.travel(utcnow(), tick=False) as clock:
        first = await worker.run_once()
        assert (first.retried, first.parts_posted) == (1, 0)
        info = await store.listing.get(delivery_id)
        assert info is not None and info.state == "pending" and info.last_error == "rate limited"
        assert info.next_attempt_at >= utcnow() + timedelta(seconds=120)
        clock.shift(119)
        assert (await worker.run_once()).claimed == 0
        clock.shift(2)
        second = await worker.run_once()
    assert (second.delivered, second.parts_posted) == (1, 4)
    info = await store.listing.get(delivery_id)
    assert info is not None and (info.state, info.attempts, info.last_error) == (
        "delivered",
        2,
        None,
    )


def test_backoff_is_full_jitter_capped_and_respects_retry_after() -> None:
    rng = random.Random(7)
    draws = [backoff(4, base=2, cap=60, retry_after=None, rng=rng) for _ in range(500)]
    assert all(0 <= d <= 16 for d in draws) and max(draws) > 12 and min(draws) < 4
    assert all(backoff(30, base=2, cap=60, retry_after=None, rng=rng) <= 60 for _ in range(100))
    assert backoff(1, base=2, cap=60, retry_after=90, rng=rng) == 90


async def test_dead_letter_after_max_attempts_keeps_the_error(store: Store) -> None:
    delivery_id = await enqueue(store, 5)
    chat = RecordingPlatform(failures=[RetryableError("503 from upstream")] * 10)
    worker = Worker(store, [chat], settings=FAST)
    with time_machine.travel(utcnow(), tick=False) as clock:
        for _ in range(5):
            await worker.run_once()
            clock.shift(1)
    info = await store.listing.get(delivery_id)
    assert info is not None and (info.state, info.attempts) == ("dead", 3)
    assert info.last_error == "gave up after 3 attempts: 503 from upstream"
    assert chat.posts == [] and len(chat.failures) == 7


async def test_permanent_error_dead_letters_at_once(store: Store) -> None:
    delivery_id = await enqueue(store, 6)
    chat = RecordingPlatform(failures=[PermanentError("channel_not_found")])
    summary = await Worker(store, [chat], settings=FAST).run_once()
    assert summary.dead == 1
    info = await store.listing.get(delivery_id)
    assert info is not None and (info.state, info.attempts) == ("dead", 1)
    assert info.last_error == "chat refused: channel_not_found"


async def test_a_story_that_failed_its_checks_is_never_delivered(store: Store) -> None:
    delivery_id = await enqueue(store, 7, problems=("headline names 'Executorch'",))
    chat = RecordingPlatform()
    worker = Worker(store, [chat], settings=FAST)
    assert (await worker.run_once()).claimed == 0
    await store.deliveries.requeue(delivery_id)  # an operator forces it: still refused
    assert (await worker.run_once()).dead == 1
    assert chat.posts == []
    info = await store.listing.get(delivery_id)
    assert info is not None and info.state == "dead"
    assert info.last_error == "story failed its checks: headline names 'Executorch'"


async def test_stop_finishes_the_part_in_flight_then_releases(store: Store) -> None:
    delivery_id = await enqueue(store, 8)
    stop = asyncio.Event()
    chat = RecordingPlatform(after_post=stop, stop_after=2)
    worker = Worker(store, [chat], settings=FAST)
    summary = await worker.run_once(stop=stop)
    assert (summary.released, summary.parts_posted) == (1, 2)
    info = await store.listing.get(delivery_id)
    assert info is not None and (info.state, info.attempts, info.parts_posted) == (
        "pending",
        0,
        2,
    )
    assert (await worker.run_once()).delivered == 1
    assert [p.part.index for p in chat.posts] == [0, 1, 2, 3]


async def test_run_forever_polls_until_stopped(store: Store) -> None:
    chat = RecordingPlatform()
    stop = asyncio.Event()
    worker = Worker(store, [chat], settings=DeliverySettings(poll_interval=0.01))
    running = asyncio.create_task(worker.run_forever(stop))
    await enqueue(store, 9)
    for _ in range(500):
        if len(chat.posts) == 4:
            break
        await asyncio.sleep(0.01)
    stop.set()
    total = await asyncio.wait_for(running, timeout=5)
    assert (total.delivered, total.parts_posted) == (1, 4)


async def test_rows_of_other_platforms_are_left_alone(store: Store) -> None:
    await enqueue(store, 10, platform="discord")
    assert (await Worker(store, [RecordingPlatform()]).run_once()).claimed == 0
    assert (await store.listing.counts())["pending"] == 1


async def test_two_workers_post_every_part_exactly_once(database_url: str) -> None:
    stores = [Store.from_url(database_url), Store.from_url(database_url)]
    chat = RecordingPlatform(delay=0.002)  # slow enough that both workers get rows
    try:
        for n in range(30):
            await enqueue(stores[0], 100 + n)
        settings = DeliverySettings(batch_size=3, workers=2)
        workers = [
            Worker(s, [chat], settings=settings, worker_id=f"w{i}") for i, s in enumerate(stores)
        ]
        results = await asyncio.gather(*(w.run_once() for w in workers))
    finally:
        for store in stores:
            await store.close()
    assert sum(r.delivered for r in results) == 30 and all(r.delivered for r in results)
    keys = [p.key for p in chat.posts]
    assert len(keys) == len(set(keys)) == 120


async def test_acks_refresh_the_item_and_reminders_go_once(store: Store) -> None:
    story = build_story(11, items=2)
    urgent, calm = story.action_items
    await store.deliveries.enqueue(story, platform="chat", workspace="W", channel="C")
    chat = RecordingPlatform()
    await Worker(store, [chat]).run_once()

    await store.acks.record(calm.id, platform="chat", channel="C", user_id="U1", user_name="ada")
    assert await refresh_item(store, chat, channel="C", item_id=calm.id)
    ((channel, message_id, part),) = chat.updates
    assert isinstance(part, ActionItemPart) and [a.user_name for a in part.acks] == ["ada"]
    assert (channel, message_id) == ("C", chat.posts[3].message_id)
    assert not await refresh_item(store, chat, channel="elsewhere", item_id=calm.id)

    platforms = {"chat": chat}
    args = dict(reminder_after=timedelta(minutes=30), oncall={"chat": "@oncall"})
    assert await send_reminders(store, platforms, **args) == 0
    with time_machine.travel(utcnow() + timedelta(minutes=31), tick=True):
        assert await send_reminders(store, platforms, **args) == 1
        assert await send_reminders(store, platforms, **args) == 0
    reminder = chat.posts[-1]
    assert isinstance(reminder.part, ReminderPart) and reminder.part.item == urgent
    assert reminder.thread == chat.posts[0].message_id and reminder.part.oncall == "@oncall"


@pytest.mark.parametrize("workers", [1, 4])
async def test_concurrency_within_one_worker(store: Store, workers: int) -> None:
    for n in range(12):
        await enqueue(store, 200 + n)
    chat = RecordingPlatform()
    settings = DeliverySettings(workers=workers, batch_size=5)
    summary = await Worker(store, [chat], settings=settings).run_once()
    assert (summary.delivered, summary.parts_posted) == (12, 48)
    by_story: dict[str, list[int]] = {}
    for post in chat.posts:
        by_story.setdefault(post.part.story_id, []).append(post.part.index)
    assert all(indexes == [0, 1, 2, 3] for indexes in by_story.values())


@dataclass
class GatedPlatform:
    """Holds every post to `slow_channel` until `gate` opens, fails a channel's first post
    when `failures` names it; counts posts in flight. With `crowd`, a post waits (up to
    half a second) until that many are in flight, so a peak does not depend on timing."""

    slow_channel: str
    gate: asyncio.Event = field(default_factory=asyncio.Event)
    others_done: asyncio.Event = field(default_factory=asyncio.Event)
    others_expected: int = 0
    name: str = "chat"
    posts: list[tuple[str, str]] = field(default_factory=list)
    failures: dict[str, Exception] = field(default_factory=dict)
    in_flight: int = 0
    peak: int = 0
    crowd: int = 0
    crowded: asyncio.Event = field(default_factory=asyncio.Event)

    async def post(self, channel: str, part: Part, thread: str | None, *, key: str) -> str:
        if channel in self.failures:
            raise self.failures.pop(channel)
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        if self.crowd and self.in_flight >= self.crowd:
            self.crowded.set()
        try:
            if channel == self.slow_channel:
                await self.gate.wait()
            elif self.crowd:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.crowded.wait(), 0.5)
            else:
                await asyncio.sleep(0.001)
        finally:
            self.in_flight -= 1
        self.posts.append((channel, key))
        if sum(1 for c, _ in self.posts if c != self.slow_channel) == self.others_expected:
            self.others_done.set()
        return f"m{len(self.posts)}"

    async def update(self, channel: str, message_id: str, part: Part) -> None:
        return None


async def enqueue_to(store: Store, n: int, channel: str) -> int:
    queued = await store.deliveries.enqueue(
        build_story(n), platform="chat", workspace="W", channel=channel
    )
    return queued.id


async def test_a_slow_delivery_does_not_hold_back_the_next_claims(store: Store) -> None:
    await enqueue_to(store, 300, "slow")  # claimed first: the oldest row
    for n in range(6):
        await enqueue_to(store, 301 + n, f"C{n}")
    chat = GatedPlatform(slow_channel="slow", others_expected=6 * 4)
    settings = DeliverySettings(workers=2, batch_size=2)
    running = asyncio.create_task(Worker(store, [chat], settings=settings).run_once())
    # One slot stays taken by the gated channel; the six others go through the other slot,
    # claimed as it frees, while the slow delivery is still on its first part.
    await asyncio.wait_for(chat.others_done.wait(), timeout=5)
    assert not running.done() and not any(c == "slow" for c, _ in chat.posts)
    chat.gate.set()
    summary = await asyncio.wait_for(running, timeout=5)
    assert (summary.claimed, summary.delivered, summary.parts_posted) == (7, 7, 28)
    assert [c for c, _ in chat.posts[-4:]] == ["slow"] * 4
    assert chat.peak == 2


async def test_deliveries_in_flight_never_exceed_the_workers(store: Store) -> None:
    for n in range(12):
        await enqueue_to(store, 400 + n, f"C{n}")
    chat = GatedPlatform(slow_channel="none", crowd=3)
    chat.gate.set()
    settings = DeliverySettings(workers=3, batch_size=5)
    summary = await Worker(store, [chat], settings=settings).run_once()
    assert (summary.claimed, summary.delivered, summary.parts_posted) == (12, 12, 48)
    assert chat.peak == 3
    assert len({key for _, key in chat.posts}) == 48


async def test_stop_releases_the_claims_not_yet_started(store: Store) -> None:
    ids = [await enqueue_to(store, 500 + n, f"C{n}") for n in range(3)]
    stop = asyncio.Event()
    chat = RecordingPlatform(after_post=stop, stop_after=1)
    worker = Worker(store, [chat], settings=DeliverySettings(workers=1, batch_size=3))
    summary = await worker.run_once(stop=stop)
    assert (summary.claimed, summary.released, summary.parts_posted) == (3, 3, 1)
    for delivery_id, parts in zip(ids, [1, 0, 0], strict=True):
        info = await store.listing.get(delivery_id)
        assert info is not None
        assert (info.state, info.attempts, info.parts_posted) == ("pending", 0, parts)
    again = await worker.run_once()
    assert (again.delivered, again.parts_posted) == (3, 11)
    assert len({p.key for p in chat.posts}) == 12


async def test_rows_that_come_due_during_a_run_are_delivered_in_it(store: Store) -> None:
    await enqueue_to(store, 600, "C0")
    chat = RecordingPlatform(failures=[RetryableError("busy")])
    settings = DeliverySettings(workers=4, backoff_base=1e-6, backoff_cap=1e-6)
    summary = await Worker(store, [chat], settings=settings).run_once()
    assert (summary.claimed, summary.retried, summary.delivered) == (2, 1, 1)
    assert [p.part.index for p in chat.posts] == [0, 1, 2, 3]


async def test_a_fault_in_one_delivery_lets_the_others_finish_then_is_raised(
    store: Store,
) -> None:
    broken = await enqueue_to(store, 700, "C0")
    good = await enqueue_to(store, 701, "C1")
    unstarted = await enqueue_to(store, 702, "C2")
    async with store.engine.begin() as conn:  # a story row nobody can read any more
        await conn.execute(
            update(StoryRow).where(StoryRow.id == build_story(700).id).values(json="{")
        )
    chat = RecordingPlatform(delay=0.01)
    worker = Worker(store, [chat], settings=DeliverySettings(workers=2, batch_size=3))
    with pytest.raises(ValidationError):
        await worker.run_once()
    assert [p.key for p in chat.posts] == [f"{good}.{i}" for i in range(4)]
    states = {i: (await store.listing.get(i)) for i in (broken, good, unstarted)}
    assert states[good] is not None and states[good].state == "delivered"
    assert states[unstarted] is not None
    assert (states[unstarted].state, states[unstarted].attempts) == ("pending", 0)
    assert states[broken] is not None and states[broken].state == "in_progress"


async def test_a_retry_that_comes_due_while_a_slow_delivery_is_in_flight_goes_at_once(
    store: Store,
) -> None:
    await enqueue_to(store, 800, "slow")
    await enqueue_to(store, 801, "C0")
    chat = GatedPlatform(slow_channel="slow", others_expected=4)
    chat.failures["C0"] = RetryableError("busy", retry_after=0.05)
    settings = DeliverySettings(workers=2, poll_interval=0.01, backoff_base=1e-6)
    running = asyncio.create_task(Worker(store, [chat], settings=settings).run_once())
    # C0 fails, is due again 0.05 s later, when the outbox already looked empty.
    await asyncio.wait_for(chat.others_done.wait(), timeout=5)
    assert not running.done() and [c for c, _ in chat.posts] == ["C0"] * 4
    chat.gate.set()
    summary = await asyncio.wait_for(running, timeout=5)
    assert (summary.claimed, summary.retried, summary.delivered) == (3, 1, 2)


async def test_a_delivery_whose_lease_ran_out_in_flight_is_not_claimed_again_by_its_worker(
    store: Store,
) -> None:
    # The slow delivery's lease (0.2 s) runs out while its first post is still unanswered
    # (a database outage, a slow channel); C0's retry, due 0.4 s later, makes the worker
    # claim again. Claimed again under the same worker id, the slow one would pass every
    # lease check and a second task would post its parts while the first posts them too.
    slow = await enqueue_to(store, 900, "slow")
    await enqueue_to(store, 901, "C0")
    chat = GatedPlatform(slow_channel="slow", others_expected=4)
    chat.failures["C0"] = RetryableError("busy", retry_after=0.4)
    settings = DeliverySettings(
        workers=10, batch_size=2, lease=timedelta(seconds=0.2), poll_interval=0.01
    )
    running = asyncio.create_task(Worker(store, [chat], settings=settings).run_once())
    await asyncio.wait_for(chat.others_done.wait(), timeout=5)
    chat.gate.set()
    summary = await asyncio.wait_for(running, timeout=5)
    keys = [key for _, key in chat.posts]
    assert sorted(k for k in keys if k.startswith(f"{slow}.")) == [f"{slow}.{i}" for i in range(4)]
    assert len(keys) == len(set(keys)) == 8
    assert (summary.claimed, summary.retried, summary.delivered, summary.lost) == (3, 1, 2, 0)
    info = await store.listing.get(slow)
    assert info is not None and (info.state, info.attempts) == ("delivered", 1)


async def test_a_claim_that_fails_lets_the_deliveries_in_flight_finish_then_is_raised(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The database went away between two claims. Cancelling the delivery in flight would
    # cut off a post that may have gone out, unrecorded and unknown to the platform's
    # memory of keys: its retry would post the part a second time.
    slow = await enqueue_to(store, 910, "slow")
    await enqueue_to(store, 911, "C0")
    chat = GatedPlatform(slow_channel="slow", others_expected=4)
    claim_due, claims, failed = store.deliveries.claim_due, [0], asyncio.Event()

    async def claim_until_the_database_goes(**kwargs):
        claims[0] += 1
        if claims[0] == 3:
            failed.set()
            raise ConnectionError("unexpected connection_lost() call")
        return await claim_due(**kwargs)

    monkeypatch.setattr(store.deliveries, "claim_due", claim_until_the_database_goes)
    worker = Worker(store, [chat], settings=DeliverySettings(workers=2, batch_size=1))
    running = asyncio.create_task(worker.run_once())
    await asyncio.wait_for(failed.wait(), timeout=5)
    chat.gate.set()
    with pytest.raises(ConnectionError):
        await asyncio.wait_for(running, timeout=5)
    assert [key for channel, key in chat.posts if channel == "slow"] == [
        f"{slow}.{i}" for i in range(4)
    ]
    info = await store.listing.get(slow)
    assert info is not None and info.state == "delivered"


async def test_a_delivery_queued_while_the_worker_idles_is_posted_without_waiting_a_poll(
    store: Store,
) -> None:
    """The worker waits `poll_interval` (here a minute) between empty polls, but a delivery
    queued in this process (a bulletin, a story) rings the outbox and is claimed at once."""
    chat = RecordingPlatform(after_post=asyncio.Event(), stop_after=4)
    worker = Worker(store, [chat], settings=DeliverySettings(poll_interval=60))
    stop = asyncio.Event()
    running = asyncio.create_task(worker.run_forever(stop))
    try:
        await asyncio.sleep(0.2)  # the outbox was empty: the worker is idling
        assert chat.posts == []
        queued_at = asyncio.get_running_loop().time()
        await enqueue(store, 1, items=1)
        await asyncio.wait_for(chat.after_post.wait(), timeout=5)
        assert asyncio.get_running_loop().time() - queued_at < 2
    finally:
        stop.set()
        summary = await asyncio.wait_for(running, timeout=5)
    assert summary.delivered == 1 and len(chat.posts) == 4


async def test_a_delivery_queued_while_another_is_in_flight_takes_the_free_slot_at_once(
    store: Store,
) -> None:
    """With one slow delivery in flight and a slot free, a new one does not wait for the
    poll either: it is posted while the slow one is still going."""
    slow = RecordingPlatform(name="slow", delay=0.5)
    fast = RecordingPlatform(name="fast", after_post=asyncio.Event(), stop_after=4)
    worker = Worker(store, [slow, fast], settings=DeliverySettings(workers=2, poll_interval=60))
    await enqueue(store, 1, items=1, platform="slow")
    stop = asyncio.Event()
    running = asyncio.create_task(worker.run_forever(stop))
    try:
        while not slow.posts:
            await asyncio.sleep(0.01)
        await enqueue(store, 2, items=1, platform="fast")
        await asyncio.wait_for(fast.after_post.wait(), timeout=5)
        assert len(slow.posts) < 4  # the slow delivery is still under way
    finally:
        stop.set()
        summary = await asyncio.wait_for(running, timeout=10)
    assert len(fast.posts) == 4
    assert summary.delivered + summary.released == 2
