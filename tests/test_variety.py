"""Stories of a feed do not read as one template: no connective and no run of sentence
openings in a third or more of the busy stories of every day and week of the activity files."""

from __future__ import annotations

from datetime import UTC, datetime

from digest.check.proofread_rules import CONNECTIVES
from digest.check.variety import scaffold, variety
from digest.compose.body import OPENINGS
from digest.model import Sentence, Story, Window
from tests.digest_data import every_story, example_config

WINDOW = Window(since=datetime(2026, 5, 4, tzinfo=UTC), until=datetime(2026, 5, 5, tzinfo=UTC))


def story(*sentences: str) -> Story:
    return Story(
        id="story_x",
        window=WINDOW,
        repos=("acme/widgets",),
        headline="WIDGETS",
        lede="Widgets.",
        body=tuple(Sentence(text=s, refs=()) for s in sentences),
    )


TEMPLATE = (
    "widgets adds X [1].",
    "It also fixes Y [2].",
    "In addition, widgets drops Z [3].",
    "Elsewhere, widgets moves W [4].",
)


def test_a_template_corpus_is_measured_as_one() -> None:
    measured = variety([story(*TEMPLATE)] * 3, ["widgets"])
    assert measured.stories == 3
    assert measured.scaffold == ("P", "It also", "In addition,", "Elsewhere,")
    assert measured.scaffold_share == 1.0
    assert measured.connectives == {"also": 1.0, "in addition": 1.0, "elsewhere": 1.0}


def test_an_adverb_of_place_and_short_stories_are_not_counted() -> None:
    counted = story(
        "widgets adds X [1].", "widgets lands six more changes, two elsewhere.", *TEMPLATE[:2]
    )
    short = story(*TEMPLATE[:3])
    measured = variety([counted, short], ["widgets"])
    assert measured.stories == 1
    assert "elsewhere" not in measured.connectives
    assert scaffold(counted, ["widgets"])[:2] == ("P", "P")


def test_every_opening_the_composer_uses_is_a_connective_the_proofread_knows() -> None:
    for opening in OPENINGS:
        connective = opening.split(" {s}")[0].rstrip(",").lower()
        assert connective in CONNECTIVES or opening.startswith("{s} also")


def test_no_connective_or_scaffold_runs_through_a_third_of_the_feed() -> None:
    config = example_config()
    stories = [story for _, story in every_story()]
    names = {config.project(repo).name for story in stories for repo in story.repos}
    measured = variety(stories, names)
    worst, share = measured.worst_connective()
    print(
        f"\n{measured.stories} busy stories: commonest connective {worst!r} in {share:.0%}, "
        f"commonest scaffold {measured.scaffold} in {measured.scaffold_share:.0%}"
    )
    assert measured.stories > 200
    assert share < 1 / 3, measured.connectives
    assert measured.scaffold_share < 1 / 3, measured.scaffold
