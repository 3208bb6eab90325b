"""[immediate] must be right: the classifier against hand-labelled real changes.

`tests/data/urgency_labels.jsonl` holds changes from shared/data/activity, each labelled by
reading its title and body (revert, ci_gate, breaking, deprecation, new_support, none) with
a one-line reason; `picked` says whether it was chosen by hand (every label and the hard
cases) or drawn at random from changes nobody had looked at. The test runs the real classifier on those changes, prints the confusion
table (in the terminal summary, from tests/conftest.py; on stdout and in any failure message) and holds the
classifier to: precision of [immediate] ≥ 0.95, recall of reverts and CI gates = 1.0.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path

import pytest

from digest.compose import compose
from digest.config import Project, WireConfig
from digest.model import Activity, FileChange, Window
from digest.reading.classify import classify_one
from digest.reading.event import Event
from digest.sources.replay import ReplaySource
from tests.digest_data import ACTIVITY, example_config

LABELS_FILE = Path(__file__).parent / "data" / "urgency_labels.jsonl"
LABELS = ("revert", "ci_gate", "breaking", "deprecation", "new_support", "none")
IMMEDIATE = {"ci_gate", "breaking"}


@cache
def labelled() -> tuple[dict[str, str], ...]:
    return tuple(json.loads(line) for line in LABELS_FILE.read_text().splitlines() if line)


@cache
def activity_by_sha() -> dict[str, Activity]:
    found: dict[str, Activity] = {}
    for path in sorted(ACTIVITY.glob("*.jsonl")):
        for activity in ReplaySource(path).read_all():
            found[activity.sha] = activity
    return found


def predicted(event: Event) -> str:
    """The label the classifier gives, most urgent first (as compose picks the item)."""
    if event.kind in ("revert", "reland"):
        return "revert"
    if event.ci_gate:
        return "ci_gate"
    if event.breaking:
        return "breaking"
    if event.deprecation:
        return "deprecation"
    if event.new_support:
        return "new_support"
    return "none"


@cache
def outcomes() -> tuple[tuple[dict[str, str], str], ...]:
    config = example_config()
    activities = activity_by_sha()
    return tuple(
        (r, predicted(classify_one(activities[r["sha"]], config.project(r["repo"]))))
        for r in labelled()
    )


def confusion_table() -> str:
    pairs = Counter((r["label"], guess) for r, guess in outcomes())
    width = max(len(label) for label in LABELS) + 2
    lines = [
        "urgency confusion table (rows: hand label, columns: classifier)",
        " " * width + "".join(f"{label:>{width}}" for label in LABELS),
    ]
    for truth in LABELS:
        row = "".join(f"{pairs[(truth, guess)]:>{width}}" for guess in LABELS)
        lines.append(f"{truth:<{width}}{row}")
    wrong = [
        f"  {r['repo']} {r['sha'][:9]} {r['label']} → {guess}: {r['title'][:70]}"
        for r, guess in outcomes()
        if guess != r["label"]
    ]
    lines.append(f"immediate precision {immediate_precision():.3f}; misses:")
    return "\n".join(lines + (wrong or ["  none"]))


def immediate_precision() -> float:
    flagged = [r["label"] for r, guess in outcomes() if guess in IMMEDIATE]
    return sum(label in IMMEDIATE for label in flagged) / len(flagged) if flagged else 1.0


def recall(label: str) -> float:
    truths = [guess for r, guess in outcomes() if r["label"] == label]
    return sum(guess == label for guess in truths) / len(truths)


def test_the_labelled_set_is_real_varied_and_explained() -> None:
    records = labelled()
    assert len(records) >= 60
    assert {r["label"] for r in records} == set(LABELS)
    assert {r["repo"] for r in records} == {
        "pytorch/executorch",
        "pytorch/ci-infra",
        "pydantic/pydantic",
    }
    assert len({r["sha"] for r in records}) == len(records)
    activities = activity_by_sha()
    for record in records:
        assert record["sha"] in activities, record
        assert activities[record["sha"]].title == record["title"], record
        assert len(record["reason"]) > 15, record
        assert record["picked"] in {"by hand", "random (seed 9)"}, record


def test_immediate_is_precise_and_no_revert_or_ci_gate_is_missed() -> None:
    table = confusion_table()
    print(table)
    assert immediate_precision() >= 0.95, table
    assert recall("revert") == 1.0, table
    assert recall("ci_gate") == 1.0, table


def test_plan_items_are_precise_and_find_most_new_support() -> None:
    table = confusion_table()
    wrongly_planned = [r for r, guess in outcomes() if guess == "new_support" != r["label"]]
    assert wrongly_planned == [], table
    assert recall("new_support") >= 0.8, table


# ---------------------------------------------------------------- what the data lacks

BARE = Project(repo="acme/widgets", name="widgets")


def change(
    title: str,
    *paths: str,
    body: str = "",
    labels: tuple[str, ...] = (),
    author: str = "",
) -> Activity:
    return Activity(
        repo="acme/widgets",
        sha=f"{abs(hash((title, body, labels))):040x}"[:40],
        title=title,
        body=body,
        author=author,
        labels=labels,
        landed_at=datetime(2026, 6, 1, tzinfo=UTC),
        files=tuple(FileChange(path=p, additions=10, deletions=2) for p in paths or ("src/a.py",)),
    )


def urgency(activity: Activity) -> str | None:
    return classify_one(activity, BARE).urgency


@pytest.mark.parametrize(
    "activity",
    [
        change("Rename the client options", body="Done.\n\nBREAKING CHANGE: `timeout` is gone."),
        change("Rename the client options", body="BREAKING-CHANGE: `timeout` is gone."),
        change("feat(api)!: drop the v1 endpoints"),
        change("Client cleanup (#12)", body="* fix: typo\n* feat(client)!: rename `timeout`\n"),
        change("Rename the client options", labels=("breaking change",)),
        change("Rename the client options", labels=("semver-major",)),
        change("Rename the client options", labels=("topic: bc breaking",)),
        change("Remove deprecated `parse_obj`"),
        change("Drop support for Python 3.8"),
        change("Remove Python 3.8 support"),
        change("Drop Node 18"),
        change(
            "fix: disallow frobbing after `await`",
            body="We restored context wrongly.\n\nIt's possible that this will be a breaking "
            "change for some people if they frob after an `await`.",
        ),
    ],
    ids=lambda a: a.title[:40],
)
def test_a_change_that_says_it_breaks_is_immediate(activity: Activity) -> None:
    assert urgency(activity) == "immediate"


@pytest.mark.parametrize(
    "activity",
    [
        change("Stop using deprecated PassManager"),
        change("Migrate off deprecated `torch.ao` quantization"),
        change("Remove usage of deprecated `datetime.utcnow`"),
        change("remove deprecated guard_size_oblivious from stride sorting logic"),
        change("Fix deprecation warnings in the loader"),
        change("Remove unused fp16 support code"),
        change("NXP backend: Remove broadcasting restrictions"),
        change("Fix breakage", body="A recent upstream change was breaking our build."),
        change("Tidy the options", body="This is a non-breaking change: old names still work."),
        # the project's own word that no contract breaks: the flag is experimental
        change(
            "fix: disallow frobbing after `await`",
            body="It's possible that this will be a breaking change (albeit not "
            "semver-violating, because `experimental`) for some people who frob.",
        ),
        change("Tidy the client options", labels=("non-breaking",)),
        change("Tidy the client options", labels=("potentially breaking",)),
        change("Tidy the client options", labels=("breaking change?",)),
        change("Tidy the client options", labels=("needs breaking-change review",)),
        change("Tidy the options", body="## Breaking changes\nNone"),
        change("Add quantization for BOFT", body="I would only suggest to deprecate and remove X."),
        change("Add quantization for BOFT", body="We could deprecate the old layers later."),
    ],
    ids=lambda a: a.title[:40],
)
def test_clean_up_and_breaking_words_in_passing_are_no_item(activity: Activity) -> None:
    assert urgency(activity) is None


def test_renaming_a_setting_users_write_is_planned_for() -> None:
    assert urgency(change("feat: rename `server.hmr` options to `server.ws` options")) == "plan"
    assert urgency(change("Rename `max_rows` to `limit`")) == "plan"
    # A refactor's renames are the project's own; a file's new name is no setting.
    assert urgency(change("refactor: Rename `agg_state.len` to `groups`")) is None
    assert urgency(change("Rename test_arm_baremetal.sh to test_arm_backend.sh")) is None
    # A function's own parameter is no setting: only one a user passes by name is.
    assert urgency(change("Rename confusing input param st -> t in the quantizer")) is None
    assert urgency(change("Rename the parameters of the internal lowering helpers")) is None
    assert urgency(change("Rename the `--out` CLI argument to `--output`")) == "plan"
    # A module's or a class's new name moves code; users configure neither.
    assert urgency(change("Rename `runner_util.py` to `runner.py`")) is None
    assert urgency(change("Rename `ExecutorRunner` -> `ProgramRunner`")) is None


@pytest.mark.parametrize(
    "title",
    [
        # vite, pydantic: moving off what another deprecated, silencing warnings
        "fix: refer to `rolldownOptions` instead of deprecated `rollupOptions` in messages",
        "Fix Clippy 0.1.95 warnings",
        # a deprecation taken back or made smaller leaves users less to move off
        "DEP: Undo deprecation of the positional `axis` argument",
        "DEP: narrow the `dtype=` deprecation to subclasses",
        "Un-deprecate `Widget.frob`",
        # the words of a warning already given: nothing new to move off
        "DEPR: adjust the widget setter deprecation warning (wrong version)",
        "DEP: fix typo in the `frob` deprecation message",
    ],
)
def test_what_undoes_or_avoids_a_deprecation_plans_nothing(title: str) -> None:
    assert urgency(change(title)) is None


def test_deprecating_a_public_api_is_planned_for() -> None:
    assert urgency(change("Deprecate `Model.dict()` in favour of `model_dump()`")) == "plan"
    assert urgency(change("Mark `parse_raw` as deprecated")) == "plan"
    assert urgency(change("DEP: update `frob` to emit a deprecation warning")) == "plan"
    body = "Deprecate `resetNative()` in favor of `close()`."
    assert urgency(change("Android: LlmModule lifecycle", body=body)) == "plan"


def test_only_changes_to_what_blocks_merges_are_ci_gates() -> None:
    assert classify_one(change("Require two reviews", ".github/merge_rules.yaml"), BARE).ci_gate
    stated = change(
        "Rework CI", ".github/workflows/ci.yml", body="`lint` is now a required status check."
    )
    assert classify_one(stated, BARE).ci_gate
    split = change("Split pre-merge CI into fast and slow gates", ".github/workflows/pre.yml")
    assert classify_one(split, BARE).ci_gate
    for quiet in (
        change("Gate the nightly build on a label", ".github/workflows/nightly.yml"),
        change("Add measurement", ".github/workflows/pull.yml", body="No gate change."),
        change("Increase load test timeout", ".github/workflows/load.yml"),
        change("Fix a flaky pre-merge smoke test", ".github/workflows/pre-merge.yml"),
        change("Cut merge queue wait", ".github/workflows/ci.yml", body="Queues move faster."),
        # Words about merges in a code change are not CI.
        change("Make required checks in the validator stricter", "src/validator.py"),
    ):
        assert not classify_one(quiet, BARE).ci_gate, quiet.title


def test_a_revert_is_watched_whatever_it_undoes() -> None:
    revert = change('Revert "feat!: drop v1"', labels=("breaking",))
    assert classify_one(revert, BARE).kind == "revert"
    assert urgency(revert) == "monitor"
    gate = change('Revert "Make lint a required check"', ".github/workflows/ci.yml")
    # Backing out CI work is internal where the users are a library's users: counted, not
    # watched; where the users are the maintainers (CI infrastructure), it is watched.
    assert urgency(gate) is None
    maintained = BARE.model_copy(update={"audience": "maintainers"})
    assert classify_one(gate, maintained).urgency == "monitor"
    back = change('Revert "Revert "Add widgets""')
    assert classify_one(back, BARE).kind == "reland"
    assert urgency(back) == "monitor"


def test_backing_out_what_no_user_runs_is_not_watched() -> None:
    # The undone change was internal by its own title, or touched only type stubs: nothing
    # users run moves back, so no [monitor] item interrupts them.
    assert urgency(change('Revert "TST: skip flaky fetch test"', "src/fetch.py")) is None
    assert urgency(change('Revert "[refactor] Move helpers"', "src/helpers.py")) is None
    assert urgency(change('Revert "TYP: narrow `where` overloads"', "pkg/core.pyi")) is None
    assert urgency(change('Revert "Narrow types"', "types/index.d.ts")) is None
    # A back-out of code users run is still watched.
    assert urgency(change('Revert "Narrow `where` overloads"', "pkg/core.py")) == "monitor"


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Remove deprecated `Widget.frob`", "immediate"),
        ("Remove the deprecated `--legacy` CLI flag", "immediate"),
        ("Drop deprecated keyword arguments of `load`", "immediate"),
        # a workaround of its own, which no caller names, is no API removed
        ("MAINT: Remove deprecated retry workaround", None),
        ("Remove deprecated fallback code path", None),
    ],
)
def test_removing_something_deprecated_breaks_only_when_it_is_an_api(
    title: str, expected: str | None
) -> None:
    assert urgency(change(title)) == expected


@pytest.mark.parametrize(
    ("title", "body", "item"),
    [
        (
            "DEP: deprecate `Grid.resize`",
            "Use `Grid.reshape` instead, which copies nothing.\n\nMore detail.",
            "Plan to stop using `Grid.resize`, which widgets deprecates; use `Grid.reshape` "
            "instead [1]",
        ),
        (
            "Deprecate `Model.dict()` in favour of `model_dump()`",
            "",
            "Plan to stop using `Model.dict()`, which widgets deprecates; use `model_dump()` "
            "instead [1]",
        ),
        (
            # polars' "…, replace with new `how=…`" read "…, replaces with new `how=…`"
            "depr(python): Deprecate `strict` parameter of `concat`, replace with new `how='x'`",
            "",
            "Plan to stop using the `strict` parameter of `concat`, which widgets deprecates; use "
            "`how='x'` instead [1]",
        ),
        (
            # pytest's "… `console_main()` for removal in pytest 10, which pytest deprecates"
            "Deprecate `Grid.resize()` for removal in widgets 10",
            "",
            "Plan to stop using `Grid.resize()`, which widgets deprecates for removal in "
            "widgets 10 [1]",
        ),
        (
            # what a gerund names is stopped, not "used": "stop setting …"
            "DEP: deprecate setting the shape of a grid",
            "",
            "Plan to stop setting the shape of a grid, which widgets deprecates [1]",
        ),
        (
            # a successor only a quoted upstream note names is not the project's word
            "DEP: deprecate `Grid.resize`",
            "> Use `Other.thing` instead.\n\nWe follow upstream.",
            "Plan to stop using `Grid.resize`, which widgets deprecates [1]",
        ),
    ],
)
def test_a_deprecation_item_says_what_to_stop_using_and_what_to_use(
    title: str, body: str, item: str
) -> None:
    config = WireConfig(projects=(BARE,))
    since = datetime(2026, 6, 1, tzinfo=UTC)
    window = Window(since=since, until=since + timedelta(days=1))
    story = compose([change(title, "src/widgets/grid.py", body=body)], config=config, window=window)
    plans = [a.text for a in story.action_items if a.urgency == "plan"]
    assert plans == [item]


def test_every_deprecation_gets_its_item_and_new_support_one_a_project() -> None:
    # pytest's weeks of two deprecations carried an item for the first only.
    config = WireConfig(projects=(BARE,))
    since = datetime(2026, 6, 1, tzinfo=UTC)
    window = Window(since=since, until=since + timedelta(days=7))
    why = "Lets users stream rows without holding the table in memory, for large exports."
    work = [
        change("Deprecate `Grid.resize`", "src/widgets/grid.py"),
        change("Deprecate the `legacy` argument of `load`", "src/widgets/load.py"),
        change("Add support for streaming exports", "src/widgets/x.py", body=why),
        change("Add support for CSV imports", "src/widgets/y.py", body=why),
    ]
    story = compose(work, config=config, window=window)
    plans = [a.text for a in story.action_items if a.urgency == "plan"]
    assert sum(p.startswith("Plan to stop using") for p in plans) == 2, plans
    assert sum(p.startswith("Try") for p in plans) <= 1, plans


@pytest.mark.parametrize(
    ("fragment", "expected"),
    [
        ("changelog/1234.breaking.rst", "immediate"),
        ("changelog/1234.removal.rst", "immediate"),
        ("doc/release/upcoming_changes/1234.compatibility.rst", "immediate"),
        ("doc/release/upcoming_changes/1234.expired.rst", "immediate"),
        ("changelog/1234.deprecation.rst", "plan"),
        ("newsfragments/1234.bugfix.md", None),
        ("changelog/1234.feature.rst", None),
    ],
)
def test_a_news_fragments_type_is_the_projects_own_label(fragment: str, expected: str) -> None:
    # pytest's "remove holderobjseen check from parsefactories" came with a
    # `changelog/14533.breaking.rst`, and was told as plain work.
    title = "Drop the seen-holder check from the fixture parser"
    assert urgency(change(title, "src/widgets/fixtures.py", fragment)) == expected


def test_a_bugfix_fragment_files_an_untyped_title_as_a_fix() -> None:
    # pytest's "pytest undoes … deprecation due to mypy bug" (changelog/N.bugfix.rst) was
    # filed under "New and changed".
    fix = change(
        "Undo the type-check deprecation of argvalues", "src/a.py", "changelog/9.bugfix.rst"
    )
    assert classify_one(fix, BARE).kind == "fix"
    # The title's own type word wins over the fragment.
    typed = change("feat: add the `--max-warnings` option", "src/a.py", "changelog/9.bugfix.rst")
    assert classify_one(typed, BARE).kind == "feature"
