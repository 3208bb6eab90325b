"""How often a label The Wire gives a change is true, on 326 changes of all twelve activity
files labelled by hand from their sources alone (tests/data/label_truth.md).

A breaking, security or deprecation label, a release and an [immediate] item are what a
subscriber acts on: each must be true at least 95 times in 100 (precision), and releases
and security fixes must be found at least 80 times in 100 (recall). The changes of the
files kept out of tuning are measured with the rest; their misses are counted, not shown,
so no rule is written from them."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache

import pytest

from digest.reading.classify import classify_one
from digest.reading.event import Event
from digest.sources.replay import ReplaySource
from tests.digest_data import DATA, example_config

TRUTH = DATA / "label_truth.jsonl"
ACTIVITY = DATA / "label_activity.jsonl"  # the labelled commits, as the activity files hold them
# Repositories kept out of tuning: their labels measure, never tune.
KEPT_OUT = ("numpy/numpy", "prometheus/prometheus", "pytest-dev/pytest", "withastro/astro")
MIN_PRECISION = 0.95
MIN_RECALL = {"release": 0.8, "security": 0.8}
LABELS = ("release", "breaking", "security", "deprecation", "immediate")
# Labels below the target today, with the figures of the last measurement: the test
# fails (strict) the day one reaches it, so the gap is closed here, not forgotten.
BELOW_TARGET = {
    "breaking": "precision 0.75 (6 of 8): 1 false in kept-out files, and 'Remove support for"
    " `eval_type_backport()`', a removal no supported user notices",
    "immediate": "precision 0.90 (19 of 21): 1 false in kept-out files, and one removal",
}


def labels_of(event: Event) -> dict[str, bool]:
    """The labels a story gives this change."""
    return {
        "release": event.release is not None,
        "breaking": event.breaking,
        # a story calls a bump "a security update" even where what it updates is not shipped
        "security": event.security or bool(event.bump and event.bump.security),
        "deprecation": event.deprecation,
        "immediate": event.urgency == "immediate",
    }


@cache
def outcomes() -> dict[str, Counter[str]]:
    """Per label: true and false positives and false negatives; misses of tuning files."""
    config = example_config()
    truth = {
        (t["repo"], t["sha"]): t
        for t in map(json.loads, TRUTH.read_text(encoding="utf-8").splitlines())
    }
    counts = {label: Counter[str]() for label in LABELS}
    for activity in ReplaySource(ACTIVITY).read_all():
        expected = truth[(activity.repo, activity.sha)]
        given = labels_of(classify_one(activity, config.project(activity.repo)))
        for label in LABELS:
            outcome = {(True, True): "tp", (True, False): "fp", (False, True): "fn"}.get(
                (given[label], bool(expected[label]))
            )
            if outcome:
                counts[label][outcome] += 1
                if activity.repo in KEPT_OUT:
                    counts[label][f"{outcome} kept out"] += 1
                else:
                    counts[label][f"{outcome}: {activity.repo} {activity.title[:70]}"] += 1
    return counts


def test_the_labelled_set_covers_every_file_and_label() -> None:
    rows = [json.loads(line) for line in TRUTH.read_text(encoding="utf-8").splitlines()]
    assert len(rows) >= 150
    assert len({r["repo"] for r in rows}) == 12
    for label in LABELS:
        assert sum(r[label] for r in rows) >= 10, label


@pytest.mark.parametrize(
    "label",
    [
        pytest.param(label, marks=pytest.mark.xfail(reason=BELOW_TARGET[label], strict=True))
        if label in BELOW_TARGET
        else label
        for label in LABELS
    ],
)
def test_a_label_is_true_at_least_95_times_in_100(label: str) -> None:
    counts = outcomes()[label]
    given = counts["tp"] + counts["fp"]
    precision = counts["tp"] / given if given else 1.0
    recall = counts["tp"] / (counts["tp"] + counts["fn"]) if counts["tp"] + counts["fn"] else 1.0
    misses = sorted(k for k in counts if k.startswith(("fp", "fn")) and k not in ("fp", "fn"))
    print(f"\n{label}: precision {precision:.2f} ({counts['tp']}/{given}), recall {recall:.2f}")
    print("\n".join(f"{k} ×{counts[k]}" if "kept out" in k else k for k in misses))
    assert precision >= MIN_PRECISION, misses
    assert recall >= MIN_RECALL.get(label, 0.0), misses
