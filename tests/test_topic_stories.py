"""A channel that follows a topic (`/wire subscribe topic:arm`) reads one story of that
topic across every project. A story that fails its checks is not delivered, so each
configured topic's stories of the activity files must pass them, and the proofread too."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import cache

import pytest

from digest.check.proofread import proofread
from digest.compose import compose
from digest.model import Activity, Window
from digest.sources.replay import ReplaySource
from tests.digest_data import ACTIVITY, example_config

CONFIG = example_config()
TOPICS = sorted({t.name for p in CONFIG.projects for t in p.topics})
QUARTER = datetime(2026, 3, 30, tzinfo=UTC)  # a Monday; the files end before 2026-07-06


@cache
def everything() -> tuple[Activity, ...]:
    return tuple(
        a for path in sorted(ACTIVITY.glob("*.jsonl")) for a in ReplaySource(path).read_all()
    )


def windows() -> list[Window]:
    """Every Monday-to-Monday week of the quarter, and days that once failed."""
    weeks = [
        Window(since=QUARTER + timedelta(weeks=n), until=QUARTER + timedelta(weeks=n + 1))
        for n in range(14)
    ]
    days = [datetime(2026, 5, 15, tzinfo=UTC), datetime(2026, 4, 9, tzinfo=UTC)]
    return weeks + [Window(since=d, until=d + timedelta(days=1)) for d in days]


@pytest.mark.parametrize("topic", TOPICS)
def test_every_topic_story_passes_its_checks_and_the_proofread(topic: str) -> None:
    for window in windows():
        story = compose(everything(), config=CONFIG, window=window, topic=topic)
        assert story.checks is not None and story.checks.problems == (), (window, story.headline)
        assert proofread(story, config=CONFIG) == [], (window, story.headline)
