"""The pipeline reads each change while its source still streams: the story must be the one
the composer makes from the whole window at once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

from digest.compose import compose
from digest.model import Activity, FileChange, Window
from digest.pipeline import compose_window, gather
from digest.reading.classify import classify, read_change
from tests.digest_data import SECTIONED_WEEK, both_files, example_config, executorch, window


class TrickleSource:
    """A source that hands over its activities one at a time with a pause between them,
    as `git log` does, so the composer is loaded long before the last one arrives."""

    def __init__(self, activities: tuple[Activity, ...], pause: float = 0.002) -> None:
        self.activities, self.pause = activities, pause
        self.description = "trickle"

    async def fetch(self, window: Window) -> AsyncIterator[Activity]:
        for activity in self.activities:
            await asyncio.sleep(self.pause)
            if window.contains(activity.landed_at):
                yield activity


def test_readings_taken_ahead_classify_as_the_whole_window_does() -> None:
    config = example_config()
    activities = both_files()
    readings = {a.key: read_change(a, config.project(a.repo)) for a in activities}
    ahead = classify(activities, config, readings)
    assert ahead == classify(activities, config)
    # Containers and spellings come from the window, so the topics are not in the readings.
    assert all(r.event.topics == () for r in readings.values())
    assert any(e.topics for e in ahead)


def test_a_partial_set_of_readings_classifies_the_rest_itself() -> None:
    config = example_config()
    activities = executorch()
    half = {a.key: read_change(a, config.project(a.repo)) for a in activities[::2]}
    assert classify(activities, config, half) == classify(activities, config)


async def test_a_streamed_window_tells_the_story_of_the_whole_window() -> None:
    config, week = example_config(), window(*SECTIONED_WEEK)
    in_week = tuple(a for a in executorch() if week.contains(a.landed_at))
    streamed = await compose_window([TrickleSource(in_week)], config=config, window=week)
    at_once = compose(in_week, config=config, window=week)
    assert streamed.model_dump() == at_once.model_dump()
    assert len(streamed.references) > 5


async def test_gather_calls_each_once_per_kept_activity_as_it_arrives() -> None:
    week = window(*SECTIONED_WEEK)
    in_week = tuple(a for a in executorch() if week.contains(a.landed_at))[:30]
    seen: list[str] = []
    # The same source twice: the second copy of every change is a duplicate and not kept.
    kept = await gather(
        [TrickleSource(in_week), TrickleSource(in_week)], week, lambda a: seen.append(a.sha)
    )
    assert seen == [a.sha for a in in_week]  # in arrival order, duplicates left out
    assert [a.sha for a in kept] == [a.sha for a in sorted(in_week, key=lambda a: a.landed_at)]


async def test_a_local_source_reads_the_weeks_before_a_window_for_how_a_project_writes_its_name(
    tmp_path: Path,
) -> None:
    """A quiet day says nothing of how the project spells itself; the weeks before it do,
    and a clone or a recording gives them for nothing. They are read, never told."""
    from datetime import UTC, datetime, timedelta

    from digest.config import WireConfig
    from digest.sources.replay import ReplaySource, write_replay_line

    day = Window(since=datetime(2026, 5, 20, tzinfo=UTC), until=datetime(2026, 5, 21, tzinfo=UTC))

    def landed(n: int, title: str, body: str, at: datetime) -> Activity:
        files = (FileChange(path="src/widgetkit/core.py", additions=9, deletions=2),)
        return Activity(
            repo="acme/widgetkit",
            sha=f"{n:040x}",
            number=n,
            title=title,
            body=body,
            landed_at=at,
            files=files,
        )

    earlier = [
        landed(
            n,
            f"Fix the layout of panel {n}",
            "WidgetKit now lays the panel out once.",
            day.since - timedelta(days=n),
        )
        for n in range(1, 6)
    ]
    today = landed(9, "Fix the float printer", "", day.since + timedelta(hours=3))
    recording = tmp_path / "widgetkit.jsonl"
    recording.write_text("".join(write_replay_line(a) + "\n" for a in [*earlier, today]))

    config = WireConfig()
    local = await compose_window([ReplaySource(recording)], config=config, window=day)
    assert "for WidgetKit:" in local.lede, local.lede
    assert [r.sha for r in local.references] == [today.sha]
    # A network source gives the window alone: nothing to learn the spelling from.
    remote = await compose_window([TrickleSource((*earlier, today))], config=config, window=day)
    assert "for Widgetkit:" in remote.lede, remote.lede  # a capital, no inner one
    assert [r.sha for r in remote.references] == [today.sha]
