"""What leads, against an editor's labels: for 45 days and weeks of the activity files,
written down blind before the composer's output was read (`tests/data/lead_labels.md`):
how often the headline tells an accepted change, whether a must-not change is named, and
whether every release is mentioned. The table is printed; the floors are below."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from functools import cache

from digest.compose import compose
from digest.english.shapes import split_verb
from digest.english.similarity import content_words
from digest.model import Activity, Story, Window
from digest.reading.titles import split_title
from digest.sources.replay import ReplaySource
from tests.digest_data import ACTIVITY, DATA, example_config

LABELS = DATA / "lead_labels.jsonl"
# The target is 0.9 of windows with an accepted headline, no must-not change named and
# every release told. Measured when the labels were first run (blind): 31 of 45 (69 %),
# 19 windows naming a must-not change, 6 releases untold. Now 42 of 45 (93 %), none naming
# a must-not change, none untold; these floors hold what is reached, so each figure may
# rise and never fall. What is left is judgement among near equals: ci-infra's day of
# three new cluster features (the labels prefer two others), its week led by the pre-merge
# gate split (the product brief's own story leads with it), and executorch's day of
# backend ops (the labels prefer a 7-line race fix).
MIN_ACCEPTED = 0.93
MAX_WINDOWS_NAMING_MUST_NOT = 0
MAX_UNTOLD_RELEASES = 0
_CITE = re.compile(r"\[(\d+)\]")


@dataclass(frozen=True)
class Judged:
    """One labelled window and what the composer made of it."""

    label: dict
    story: Story
    lead_ok: bool
    named_must_not: tuple[str, ...]
    untold_releases: tuple[str, ...]

    def row(self) -> str:
        name = self.label["file"].rsplit("-", 2)[0]
        when = f"{self.label['since'][:10]} {self.label['kind']}"
        mark = "ok " if self.lead_ok else "NO "
        faults = [f"named {t}" for t in self.named_must_not]
        faults += [f"release {v} untold" for v in self.untold_releases]
        return f"{mark}{name:<26} {when:<16} {self.story.headline[:70]:<70} {'; '.join(faults)}"


@cache
def _activity(name: str) -> tuple[Activity, ...]:
    return tuple(ReplaySource(ACTIVITY / name).read_all())


def labels() -> list[dict]:
    return [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines() if line]


def is_named(activity: Activity, story: Story) -> bool:
    """True when a sentence that cites `activity` says what its title says (most of its
    content words), or the headline or lede does: the change is told, not counted."""
    _, obj = split_verb(split_title(activity.title).subject)
    own = content_words(" ".join([activity.repo.replace("/", " "), *story.repos]))
    words = content_words(obj.replace("_", " ")) - own
    if len(words) < 2:
        return False
    number = next((r.n for r in story.references if r.sha == activity.sha), None)
    texts = [story.headline.lower(), story.lede]
    texts += [s.text for s in story.body if number in s.refs]
    return any(len(words & content_words(t)) >= 0.6 * len(words) for t in texts)


def is_mentioned(version: str, release: Activity, story: Story) -> bool:
    """True when the story says the version, or counts the window's releases; for a release
    whose change names no version (the labels know it from later releases), when a sentence
    citing it calls it a release."""
    told = " ".join([story.headline, story.lede, *(s.text for s in story.body)])
    counted = re.search(r"\b\w+ releases in all\b", told) is not None
    said = version.lower().removeprefix("v").replace("@", " ")  # "plugin-legacy 8.0.2"
    if said in told.lower() or counted:
        return True
    if said in f"{release.title} {release.body}".lower():
        return False
    number = next((r.n for r in story.references if r.sha == release.sha), None)
    return any(number in s.refs and "release" in s.text for s in story.body)


def judge(label: dict) -> Judged:
    window = Window(
        since=datetime.fromisoformat(label["since"]), until=datetime.fromisoformat(label["until"])
    )
    activity = _activity(label["file"])
    story = compose(activity, config=example_config(), window=window)
    first = story.lead[0].split("@", 1)[0] if story.lead else ""
    lead = {key.split("@", 1)[1] for key in story.lead if key.startswith(first + "@")}
    accepted = {item["sha"] for item in label["accept"]}
    by_sha = {a.sha: a for a in activity}
    named = tuple(
        f"#{item['number']}" if item["number"] else item["sha"][:8]
        for item in label["must_not"]
        if is_named(by_sha[item["sha"]], story)
    )
    untold = tuple(
        item["version"]
        for item in label["releases"]
        if not is_mentioned(item["version"], by_sha[item["sha"]], story)
    )
    return Judged(label, story, bool(lead & accepted), named, untold)


def test_the_labels_cover_forty_windows_of_six_files_each_change_in_its_window() -> None:
    found = labels()
    assert len(found) >= 40
    assert len({label["file"] for label in found}) >= 6
    for label in found:
        shas = {a.sha: a for a in _activity(label["file"])}
        window = Window(
            since=datetime.fromisoformat(label["since"]),
            until=datetime.fromisoformat(label["until"]),
        )
        items = label["accept"] + label["must_not"] + label["releases"]
        assert all(window.contains(shas[item["sha"]].landed_at) for item in items), label
        assert label["accept"] and label["blind"] is True


def test_the_headline_tells_an_accepted_change_and_no_must_not_change_is_named() -> None:
    judged = [judge(label) for label in labels()]
    accepted = sum(j.lead_ok for j in judged)
    share = accepted / len(judged)
    print(f"\nheadline's change accepted in {accepted} of {len(judged)} windows ({share:.0%})")
    print("\n".join(j.row() for j in judged))
    named = [
        f"{j.label['file']} {j.label['since'][:10]}: {j.named_must_not}"
        for j in judged
        if j.named_must_not
    ]
    untold = [
        f"{j.label['file']} {j.label['since'][:10]}: {j.untold_releases}"
        for j in judged
        if j.untold_releases
    ]
    print(f"must-not named in {len(named)} windows; releases untold in {len(untold)}")
    assert share >= MIN_ACCEPTED
    assert len(named) <= MAX_WINDOWS_NAMING_MUST_NOT, named
    assert len(untold) <= MAX_UNTOLD_RELEASES, untold
