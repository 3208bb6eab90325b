"""Shared test data for the digest engine: the real activity files and the example config."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path

from digest.compose import compose
from digest.config import WireConfig, load_config
from digest.model import Activity, Story, Window
from digest.sources.replay import ReplaySource

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"  # vendored: a clone needs nothing beside it
ACTIVITY = DATA / "activity"
EXECUTORCH = ACTIVITY / "pytorch-executorch-2026-q2.jsonl"
CI_INFRA = ACTIVITY / "pytorch-ci-infra-2026-05.jsonl"
SHOWCASE = DATA / "showcase.txt"
EXAMPLE_CONFIG = ROOT / "config" / "wire.example.toml"


@cache
def example_config() -> WireConfig:
    return load_config(EXAMPLE_CONFIG)


@cache
def executorch() -> tuple[Activity, ...]:
    return tuple(ReplaySource(EXECUTORCH).read_all())


@cache
def both_files() -> tuple[Activity, ...]:
    return executorch() + tuple(ReplaySource(CI_INFRA).read_all())


def window(since: str, until: str) -> Window:
    return Window(since=datetime.fromisoformat(since), until=datetime.fromisoformat(until))


SHOWCASE_WINDOW = ("2026-05-25T00:00:00+00:00", "2026-05-26T12:00:00+00:00")
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

# A Monday-to-Monday week of executorch: a sectioned story (Back-outs and relands, Arm, …).
SECTIONED_WEEK = ("2026-05-18T00:00:00+00:00", "2026-05-25T00:00:00+00:00")


@cache
def sectioned_story() -> Story:
    """The executorch story of SECTIONED_WEEK, composed with the example configuration."""
    return compose(executorch(), config=example_config(), window=window(*SECTIONED_WEEK))


def days_and_weeks(activities: tuple[Activity, ...]) -> list[Window]:
    """Every UTC day, then every Monday-to-Monday week, from the first change to the last."""
    first = min(a.landed_at for a in activities).astimezone(UTC)
    last = max(a.landed_at for a in activities)
    day = first.replace(hour=0, minute=0, second=0, microsecond=0)
    monday = day - timedelta(days=day.weekday())
    found = []
    while day <= last:
        found.append(Window(since=day, until=day + timedelta(days=1)))
        day += timedelta(days=1)
    while monday <= last:
        found.append(Window(since=monday, until=monday + timedelta(days=7)))
        monday += timedelta(days=7)
    return found


@cache
def every_story() -> tuple[tuple[str, Story], ...]:
    """The story of every UTC day and Monday-to-Monday week of every activity file, composed
    with the example configuration, labelled "<file> <since>+<days>d"."""
    config = example_config()
    stories = []
    for path in sorted(ACTIVITY.glob("*.jsonl")):
        activity = tuple(ReplaySource(path).read_all())
        for span in days_and_weeks(activity):
            label = f"{path.stem} {span.since:%Y-%m-%d}+{(span.until - span.since).days}d"
            stories.append((label, compose(activity, config=config, window=span)))
    return tuple(stories)


def hourly_changes(*titles: str, repo: str = "acme/widgetry") -> list[Activity]:
    """One change of `repo` for each of `titles`, an hour apart from 4 May 2026, each in a
    file of its own: a day of activity a test tells a story of."""
    from digest.model import FileChange

    start = datetime(2026, 5, 4, tzinfo=UTC)
    name = repo.split("/")[1]
    return [
        Activity(
            repo=repo,
            sha=f"{n:040x}",
            number=n,
            title=title,
            landed_at=start + timedelta(hours=n),
            files=(FileChange(path=f"src/{name}/m{n}.py", additions=20, deletions=2),),
        )
        for n, title in enumerate(titles, 1)
    ]
