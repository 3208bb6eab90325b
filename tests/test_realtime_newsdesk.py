"""The newsdesk on a real store: which channels a landed change reaches as a bulletin, by the
same subscription filters as the digest (repository, topic, exclusions), and when it does
not (too old, not immediate, already judged, already posted there)."""

from __future__ import annotations

from datetime import timedelta

from bot.realtime.bulletins import Newsdesk, bulletin_of, bulletin_window
from bot.store import Store
from digest.compose import compose
from digest.config import load_config
from digest.sources.replay import ReplaySource
from tests.slack_requests import ROOT

CONFIG = load_config(ROOT / "config/demo.toml")
ACTIVITY = ReplaySource(ROOT / "demo/activity.jsonl").read_all()
GATE = next(a for a in ACTIVITY if a.number == 619)  # CI gate: topics CI, OSDC, Docs
JUST_AFTER = GATE.landed_at + timedelta(minutes=1)


async def follow(store: Store, channel: str, **target) -> None:
    await store.subscriptions.add(platform="console", workspace="local", channel=channel, **target)


async def channels_with_bulletins(store: Store) -> set[str]:
    return {info.channel for info in await store.listing.list()}


def test_a_bulletin_is_cut_from_the_one_change_story_the_digest_writes() -> None:
    story = compose([GATE], config=CONFIG, window=bulletin_window(GATE), repos=(GATE.repo,))
    bulletin = bulletin_of(story)
    assert bulletin is not None and bulletin.headline == story.headline
    assert [i.urgency for i in bulletin.action_items] == ["immediate"]
    assert {i.id for i in bulletin.action_items} <= {i.id for i in story.action_items}
    assert len(bulletin.body) == 1 and bulletin.body[0].refs
    assert [r.url for r in bulletin.references] == [GATE.link]
    assert "05:18 UTC" in bulletin.lede
    quiet = next(a for a in ACTIVITY if a.repo == GATE.repo and a.number != 619)
    plain = compose([quiet], config=CONFIG, window=bulletin_window(quiet), repos=(quiet.repo,))
    assert not any(i.urgency == "immediate" for i in plain.action_items)
    assert bulletin_of(plain) is None


async def test_topics_and_exclusions_decide_as_for_the_digest(store: Store) -> None:
    await follow(store, "repo", repo="pytorch/ci-infra")
    await follow(store, "topic", topic="OSDC")  # a topic of the change, in any project
    await follow(store, "repo-topic", repo="pytorch/ci-infra", topic="CI")
    await follow(store, "other-topic", topic="Grafana")
    await follow(store, "other-repo", repo="pytorch/executorch")
    await follow(store, "excluded", repo="pytorch/ci-infra", excludes=("author:Jean Schmidt",))
    await follow(store, "twice", repo="pytorch/ci-infra")
    await follow(store, "twice", topic="CI")  # two filters match: still one bulletin
    desk = Newsdesk(store=store, config=CONFIG, max_age=timedelta(hours=1))
    judged = await desk.judge([GATE], via="webhook", now=JUST_AFTER)
    assert judged.changes == 1 and judged.immediate == 1
    assert await channels_with_bulletins(store) == {"repo", "topic", "repo-topic", "twice"}
    twice = [i for i in await store.listing.list() if i.channel == "twice"]
    assert len(twice) == 1 and judged.queued == 4  # one bulletin of one story per channel
    # judged once: the same change again (a push after the merge, a poll) does nothing
    again = await desk.judge([GATE], via="poll", now=JUST_AFTER)
    assert again.changes == 0 and len(await store.listing.list()) == 4


async def test_an_old_change_or_a_quiet_one_makes_no_bulletin(store: Store) -> None:
    await follow(store, "ci", repo="pytorch/ci-infra")
    await follow(store, "et", repo="pytorch/executorch")
    desk = Newsdesk(store=store, config=CONFIG, max_age=timedelta(hours=1))
    late = await desk.judge([GATE], via="poll", now=GATE.landed_at + timedelta(hours=2))
    assert late.changes == 1 and late.stale == 1 and await store.listing.list() == []
    quiet = [a for a in ACTIVITY if a.repo == "pytorch/executorch"][:5]
    judged = await desk.judge(quiet, via="poll", now=max(a.landed_at for a in quiet))
    assert judged.queued == 0 and await store.listing.list() == []


async def test_a_channel_that_already_got_the_item_in_a_digest_gets_no_bulletin(
    store: Store,
) -> None:
    await follow(store, "ci", repo="pytorch/ci-infra")
    story = compose([GATE], config=CONFIG, window=bulletin_window(GATE), repos=(GATE.repo,))
    queued = await store.deliveries.enqueue(
        story, platform="console", workspace="local", channel="ci"
    )
    [claim] = await store.deliveries.claim_due(worker_id="w", limit=1, lease=timedelta(minutes=1))
    urgent = next(i for i in story.action_items if i.urgency == "immediate")
    index = 2 + [i.id for i in story.action_items].index(urgent.id)
    await store.deliveries.record_part(
        claim.id, worker_id="w", part_index=index, message_id="m", thread_id="t", item_id=urgent.id
    )
    desk = Newsdesk(store=store, config=CONFIG, max_age=timedelta(hours=1))
    judged = await desk.judge([GATE], via="webhook", now=JUST_AFTER)
    assert judged.queued == 0 and "already posted" in " ".join(judged.skipped)
    assert [info.id for info in await store.listing.list()] == [queued.id]
