"""Every deprecation of a window reaches its readers as a [plan] item: one ranked below the
named changes is never folded into a count, and one a release's sentence names as what it
ships asks the same move as one told in a sentence of its own."""

from __future__ import annotations

from datetime import timedelta

from digest.compose import compose
from digest.model import Story
from digest.sources.replay import ReplaySource
from tests.digest_data import ACTIVITY, example_config, window


def _planned(story: Story) -> set[str]:
    """The titles the story's [plan] items cite."""
    titles = {r.n: r.title for r in story.references}
    return {titles[n] for item in story.action_items if item.urgency == "plan" for n in item.refs}


def _fortnight(since: str, until: str) -> Story:
    """A polars story of the window, composed with the four weeks before it as history."""
    span = window(f"{since}T00:00:00+00:00", f"{until}T00:00:00+00:00")
    activity = [
        a
        for a in ReplaySource(ACTIVITY / "pola-rs-polars-2026-q2.jsonl").read_all()
        if span.since - timedelta(days=28) <= a.landed_at < span.until
    ]
    return compose(activity, config=example_config(), window=span)


def test_a_deprecation_ranked_below_the_named_changes_keeps_its_plan_item() -> None:
    # "depr: Deprecate casts from string to temporal dtypes" ranks below the two features
    # named; it was one of "36 more changes"
    story = _fortnight("2026-06-10", "2026-06-24")

    planned = _planned(story)
    assert any("Deprecate casts from string to temporal" in t for t in planned), planned


def test_a_deprecation_a_release_ships_is_planned_for_as_well() -> None:
    # 1.41.0's sentence names "Deprecate the StringCache" as the change it ships
    story = _fortnight("2026-05-11", "2026-05-25")

    assert any("Deprecate the StringCache" in t for t in _planned(story)), story.action_items
