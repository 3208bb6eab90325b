"""Every commit of a window is named or counted, reverts and relands included: in every
story of the activity files, the commits a story cites and the changes it counts add up to
at least the commits that landed (a count of dependency updates may count several in one
commit, so the sum may be larger, never smaller). Read from the story's text, as a reader
checks it."""

from __future__ import annotations

import re

from digest.english.numbers import COUNT_WORDS
from digest.model import Story
from tests.digest_data import ACTIVITY, days_and_weeks, example_config

# "lands three more changes", "lands one more fix", "makes 12 internal changes", "backs out or relands two more
# changes", "updates eight dependencies", "makes one documentation or lint change".
_COUNTED = re.compile(
    r"\b(?P<n>\d+|" + "|".join(COUNT_WORDS[1:]) + r")\s+(?:more\s+|related\s+)?"
    r"(?:(?:internal|housekeeping|documentation|lint|translation|type-stub|dependency),?\s+"
    r"(?:(?:or|and)\s+)?)*"
    r"(?P<noun>changes?|fix(?:es)?|dependenc(?:y|ies)|releases|(?<=dependency )updates)\b"
)
_UNCOUNTED_CONTEXT = re.compile(r"(?:among them|of them|of which)\s*$")


def counted(story: Story) -> int:
    """The changes a story counts without citing each: the sum of its count phrases."""
    total = 0
    for sentence in (story.lede, *(s.text for s in story.body)):
        for match in _COUNTED.finditer(sentence):
            if _UNCOUNTED_CONTEXT.search(sentence[: match.start()]):
                continue
            n = match["n"]
            total += int(n) if n.isdigit() else COUNT_WORDS.index(n)
    return total


def shortfalls() -> dict[str, str]:
    """Windows whose story names and counts fewer changes than landed."""
    from digest.compose import compose
    from digest.sources.replay import ReplaySource

    config = example_config()
    short = {}
    for path in sorted(ACTIVITY.glob("*.jsonl")):
        activity = tuple(ReplaySource(path).read_all())
        for span in days_and_weeks(activity):
            landed = [a for a in activity if span.contains(a.landed_at)]
            story = compose(activity, config=config, window=span)
            cited = {r.sha for r in story.references}
            uncited = [a for a in landed if a.sha not in cited]
            if counted(story) < len(uncited):
                label = f"{path.stem} {span.since:%Y-%m-%d}+{(span.until - span.since).days}d"
                short[label] = (
                    f"{len(landed)} landed, {len(landed) - len(uncited)} cited, "
                    f"{counted(story)} counted"
                )
    return short


def test_the_count_phrases_are_read_as_a_reader_reads_them() -> None:
    story = Story.model_validate(
        {
            "id": "x",
            "window": {"since": "2026-05-04T00:00:00Z", "until": "2026-05-05T00:00:00Z"},
            "repos": ("a/b",),
            "headline": "B ADDS X",
            "lede": "B added x.",
            "body": [
                {"text": "B adds x [1]. Besides these, it lands three more changes.", "refs": [1]},
                {
                    "text": "It makes 12 documentation, internal and lint changes and updates two dependencies.",
                    "refs": [],
                },
                {"text": "It ships five security fixes, among them one change to X.", "refs": []},
            ],
        }
    )
    assert counted(story) == 3 + 12 + 2


def test_every_commit_of_every_window_is_named_or_counted() -> None:
    short = shortfalls()
    assert short == {}, "\n".join(f"{k}: {v}" for k, v in sorted(short.items()))
