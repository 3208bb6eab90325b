"""What leads a story and what only gets counted, rule by rule: a version bump that names no
version is still a release, a change landed and backed out in one window reached nobody,
build settings are not features, a dropped platform is a breaking change, and a project's
own benchmark folder is internal when its configuration says so."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from digest.compose import compose
from digest.config import DigestSettings, Project, WireConfig
from digest.model import Activity, FileChange, Story, Window
from digest.rank import rank
from digest.reading.classify import classify, classify_one
from digest.reading.event import Event
from tests.digest_data import example_config, executorch, window

WIDGETS = Project(repo="acme/widgets", name="Widgets")
CONFIG = WireConfig(projects=(WIDGETS,))
START = datetime(2026, 5, 4, tzinfo=UTC)
DAY = Window(since=START, until=START + timedelta(days=1))


def change(title: str, *files: tuple[str, int], n: int = 0, body: str = "") -> Activity:
    """A change of acme/widgets landing `n` hours into DAY; `files` as (path, lines added)."""
    return Activity(
        repo="acme/widgets",
        sha=f"{n + 1:040x}",
        number=200 + n,
        title=title,
        body=body,
        landed_at=START + timedelta(hours=n),
        files=tuple(FileChange(path=p, additions=a, deletions=a // 2) for p, a in files),
    )


def story_of(*activities: Activity) -> Story:
    return compose(list(activities), config=CONFIG, window=DAY)


def lead_shas(story: Story) -> set[str]:
    return {key.split("@", 1)[1] for key in story.lead}


# ---------------------------------------------------------------- a release without a number

VERSION_FILES = (("py/pyproject.toml", 2), ("Cargo.lock", 2), ("py/src/widgets/_version.py", 1))


@pytest.mark.parametrize(
    "title", ["chore: Bump Python Widgets version (#27315)", "Bump version", "Update the version"]
)
def test_a_bump_of_the_projects_own_version_is_a_release_though_it_names_none(title: str) -> None:
    event = classify_one(change(title, *VERSION_FILES), WIDGETS)
    assert event.release is not None and event.release.versions == ()


@pytest.mark.parametrize(
    ("title", "files"),
    [
        ("Bump numpy version", VERSION_FILES),  # another package's version: a dependency
        ("Bump version", (("src/widgets/core.py", 40), ("pyproject.toml", 1))),  # real code
        ("Bump version after release", VERSION_FILES),  # a development version
        ("Bump version", (("src/widgets/core.py", 1),)),  # no version manifest
    ],
)
def test_a_bump_that_is_no_release_of_the_project_stays_none(
    title: str, files: tuple[tuple[str, int], ...]
) -> None:
    assert classify_one(change(title, *files), WIDGETS).release is None


def test_a_release_without_a_number_leads_and_says_so_without_inventing_one() -> None:
    release = change("chore: Bump Python Widgets version", *VERSION_FILES, n=5)
    feature = change("feat: Add spill-to-disk memory manager", ("src/widgets/ooc.rs", 300), n=1)
    story = story_of(feature, release)
    assert story.lead == (f"acme/widgets@{release.sha}",)
    assert story.headline == "WIDGETS PUBLISHES A RELEASE"
    assert story.body[0].text.startswith("Widgets publishes a release [1]")
    assert "releases in all" not in " ".join(s.text for s in story.body)


# ---------------------------------------------------------------- landed and backed out

ORIGINAL = change("Add heap profiling at runtime", ("src/widgets/profile.cc", 400), n=1)
REVERT = change('Revert "Add heap profiling at runtime"', ("src/widgets/profile.cc", 400), n=6)


def back_out(*others: Activity) -> Event:
    """The revert's event, classified with ORIGINAL and `others` in one window."""
    return next(e for e in classify([ORIGINAL, *others, REVERT], CONFIG) if e.kind == "revert")


def test_a_change_landed_and_backed_out_in_the_window_never_leads_and_asks_nothing() -> None:
    original, revert = ORIGINAL, REVERT
    # A small change, which a back-out of 400 lines would outrank within one tier.
    feature = change("Add a retry option to the client", ("src/widgets/client.py", 20), n=3)
    events = classify([original, revert, feature], CONFIG)
    undone = back_out(feature)
    assert undone.withdrawn and not undone.must_act and undone.urgency is None
    assert rank(events)[0][0].activity.sha == feature.sha
    story = story_of(original, revert, feature)
    assert lead_shas(story) == {feature.sha}
    assert not any(item.urgency == "monitor" for item in story.action_items)


def test_a_back_out_of_a_change_a_release_shipped_is_still_news() -> None:
    undone = back_out(change("release: v2.3.0", ("package.json", 1), n=2))
    assert not undone.withdrawn and undone.must_act and undone.urgency == "monitor"


def test_a_back_out_of_a_change_from_before_the_window_is_watched() -> None:
    event = classify_one(REVERT, WIDGETS)
    assert not event.withdrawn and event.urgency == "monitor"


# A release before it all: the history shows how the project ships.
PAST_RELEASE = change("release: v2.2.0", ("package.json", 1), n=-1)


def earlier_back_out(*between: Activity, original: Activity = ORIGINAL) -> Event:
    """The revert's event when `original` and `between` landed before its window, a day on."""
    later = REVERT.model_copy(update={"landed_at": REVERT.landed_at + timedelta(days=1)})
    earlier = [PAST_RELEASE, original, *between]
    return next(e for e in classify([later], CONFIG, earlier=earlier) if e.kind == "revert")


def test_a_back_out_of_an_earlier_change_no_release_shipped_asks_nothing() -> None:
    undone = earlier_back_out(change("Add a retry option to the client", ("src/c.py", 20), n=3))
    assert undone.withdrawn and undone.urgency is None


def test_where_the_history_shows_no_release_the_default_branch_is_what_users_take() -> None:
    later = REVERT.model_copy(update={"landed_at": REVERT.landed_at + timedelta(days=1)})
    undone = next(iter(classify([later], CONFIG, earlier=[ORIGINAL])))
    assert not undone.withdrawn and undone.urgency == "monitor"


@pytest.mark.parametrize(
    ("release", "shipped"),
    [
        ("release: v2.3.0", True),
        ("release: v2.3.1", False),  # a patch release carries fixes, not a new feature
        ("Update main after 2.2.4 release", False),  # cut on a maintenance branch
    ],
)
def test_a_release_between_an_earlier_change_and_its_back_out_decides_the_item(
    release: str, shipped: bool
) -> None:
    undone = earlier_back_out(change(release, ("package.json", 1), n=2))
    assert undone.withdrawn is not shipped
    assert (undone.urgency == "monitor") is shipped


def test_a_patch_release_between_an_earlier_fix_and_its_back_out_shipped_the_fix() -> None:
    fix = change("Fix heap profiling at runtime", ("src/widgets/profile.cc", 40), n=1)
    revert = 'Revert "Fix heap profiling at runtime"'
    later = change(revert, ("src/widgets/profile.cc", 40), n=30)
    patch = change("release: v2.3.1", ("package.json", 1), n=2)
    undone = next(iter(classify([later], CONFIG, earlier=[PAST_RELEASE, fix, patch])))
    assert not undone.withdrawn


def test_executorchs_back_out_of_an_earlier_change_is_watched_as_it_ships_from_main() -> None:
    # "Wire target_config Buck deps on cmsis_nn_py" landed on 15 May and was backed out on
    # the 18th. The history shows no ExecuTorch release at all (its releases are cut on
    # branches): what lands on main is what its users take, and the back-out is watched.
    day = window("2026-05-18T00:00:00+00:00", "2026-05-19T00:00:00+00:00")
    story = compose(executorch(), config=example_config(), window=day)
    revert = next(r for r in story.references if r.title.startswith('Revert "Wire target_config'))
    assert any(i.urgency == "monitor" and revert.n in i.refs for i in story.action_items)


# ---------------------------------------------------------------- build settings, platforms


def test_a_change_of_build_settings_alone_ranks_below_an_api_of_the_same_size() -> None:
    flag = change(
        "feat(rust): Add fast_alloc feature flag, remove default_alloc",
        ("crates/widgets-ooc/Cargo.toml", 6),
        ("py/runtime/Cargo.toml", 6),
        ("py/runtime/rust-toolchain.toml", 1),
        ("crates/widgets-ooc/src/alloc.rs", 2),
    )
    api = change("feat: Add `merge_sorted` for many frames", ("py/src/widgets/eager.py", 9), n=1)
    ranked = rank(classify([flag, api], CONFIG))
    assert [e.activity.sha for e, _ in ranked] == [api.sha, flag.sha]


@pytest.mark.parametrize(
    "title",
    [
        "Add CUDA 13.2 support and drop unsupported 12.8/12.9",
        "Add Python 3.14 wheels and drop support for Python 3.9",
    ],
)
def test_dropping_a_platform_in_a_titles_second_half_is_a_breaking_change(title: str) -> None:
    event = classify_one(
        change(title, ("install_utils.py", 3), (".github/workflows/cuda.yml", 2)), WIDGETS
    )
    assert event.breaking and event.urgency == "immediate"
    # The code it changes is the project's own, so it is not filed under its CI file.
    assert "CI" not in event.topics


def test_a_breaking_change_opens_the_body_under_its_own_heading() -> None:
    breaking = change(
        "Add CUDA 13.2 support and drop unsupported 12.8/12.9", ("install_utils.py", 3), n=10
    )
    names = ["conv", "pool", "gelu", "tanh", "relu", "sigmoid", "clamp", "floor"]
    others = [
        change(f"Add the {name} operator", (f"src/{('arm', 'vulkan')[i % 2]}/{name}.cc", 80), n=i)
        for i, name in enumerate(names)
    ]
    week = Window(since=START, until=START + timedelta(days=7))
    story = compose([*others, breaking], config=CONFIG, window=week)
    assert lead_shas(story) == {breaking.sha}
    assert story.body[0].text.startswith("Widgets adds CUDA 13.2 support and drops")
    assert story.sections and story.sections[0].heading == "Breaking changes"
    assert story.sections[0].start == 0


# ---------------------------------------------------------------- the project's own folders


def test_a_projects_extra_internal_folders_add_to_the_defaults() -> None:
    bench = change("Add BEFT and HiRA results", ("method_comparison/results/beft.json", 300))
    script = change("Speed up the release script", ("scripts/release.sh", 30))
    plain = Project(repo="acme/widgets", name="Widgets")
    configured = Project(
        repo="acme/widgets", name="Widgets", extra_internal_folders=("method_comparison",)
    )
    assert not classify_one(bench, plain).internal
    assert classify_one(bench, configured).internal
    assert classify_one(script, configured).internal  # the defaults still hold


@pytest.mark.parametrize(
    "title",
    [
        "fix(python): Fully resolve remaining `ResourceWarning` leaks in database tests",
        "Close socket leaks in the integration tests",
    ],
)
def test_a_fix_of_the_test_suite_is_internal_whatever_else_it_touches(title: str) -> None:
    files = (("py/tests/unit/test_db.py", 60), ("py/src/widgets/io/db.py", 4))
    assert classify_one(change(title, *files), WIDGETS).internal


def test_a_setting_of_the_test_suite_is_internal_even_where_ci_is_the_product() -> None:
    ci = Project(repo="acme/widgets", name="Widgets", audience="maintainers")
    timeout = change("Increase load test timeout to 2 hours", (".github/workflows/deploy.yml", 1))
    gate = change("Split pre-merge CI into fast and slow gates", (".github/workflows/pr.yml", 70))
    assert classify_one(timeout, ci).internal and classify_one(timeout, WIDGETS).internal
    assert not classify_one(gate, ci).internal


def test_executorchs_week_of_dropped_cuda_versions_leads_with_them_not_a_back_out() -> None:
    activities = executorch()
    week = Window(since=datetime(2026, 6, 22, tzinfo=UTC), until=datetime(2026, 6, 29, tzinfo=UTC))
    story = compose(activities, config=example_config(), window=week)
    titles = {a.sha: a.title for a in activities}
    assert [titles[s].split(" (#")[0] for s in lead_shas(story)] == [
        "Add CUDA 13.2 support and drop unsupported 12.8/12.9"
    ]
    # Two coordinated verbs, then a third change: a comma says where the third begins.
    assert "drops unsupported 12.8/12.9, and backs out" in story.lede
    # no release of the week ships it: the next release's, planned for
    assert any(i.urgency == "plan" and "12.8/12.9" in i.text for i in story.action_items)


def test_a_projects_internal_folder_is_never_a_place_or_subject_in_a_sentence() -> None:
    configured = Project(
        repo="acme/widgets", name="Widgets", extra_internal_folders=("method_comparison",)
    )
    shop = change(
        "FEAT Add widget shop Gradio space",
        ("method_comparison/widget-shop/app.py", 1300),
        ("src/widgets/model.py", 1),
    )
    tuners = [
        change(f"FEAT Add the {name} tuner", (f"src/widgets/tuners/{name}.py", 90), n=1 + i)
        for i, name in enumerate(["frod", "lora", "vera"])
    ]
    week = Window(since=START, until=START + timedelta(days=7))
    story = compose([shop, *tuners], config=WireConfig(projects=(configured,)), window=week)
    told = [s.text for s in story.body]
    assert any(re.fullmatch(r"Widgets adds a widget shop Gradio space \[\d\]\.", t) for t in told)


def test_one_breaking_change_landed_twice_is_one_item_citing_both() -> None:
    title = "Add CUDA 13.2 support and drop unsupported 12.8/12.9"
    twice = [change(title, ("install_utils.py", 3), n=n) for n in (1, 5)]
    story = story_of(*twice, change("Add the gelu operator", ("src/widgets/gelu.cc", 40), n=3))
    items = [i for i in story.action_items if "12.8/12.9" in i.text]
    numbers = {r.sha: r.n for r in story.references}
    assert len(items) == 1, items
    assert items[0].text.startswith("Check your use of Widgets before its next release")
    assert all(f"[{numbers[a.sha]}]" in items[0].text for a in twice)


def test_a_breaking_removal_of_named_code_says_what_to_stop_relying_on() -> None:
    # pydantic's "Remove support for `eval_type_backport()`": "Check your use of pydantic"
    # gave a reader nothing to check
    gone = change("Remove support for `eval_type_backport()`", ("src/widgets/typing.py", 60), n=1)
    [item] = [i for i in story_of(gone).action_items if "eval_type_backport" in i.text]
    assert item.text.startswith(
        "Stop relying on `eval_type_backport()` before Widgets' next release: "
        "a breaking change removes support for it ["
    ), item.text
    assert item.urgency == "plan"


# ---------------------------------------------------------------- the class of flaw first


def test_of_several_security_fixes_the_one_naming_its_flaw_is_told_first() -> None:
    """Readers of a security fix most need the class of flaw. The larger fix that names none
    still counts in the item, but the XSS fix is the one its sentence and the lede name."""
    src = ("src/widgets/render.py", 60)
    vague = change("security: harden attribute handling", src, n=1)
    xss = change("security: prevent XSS in rendered titles", ("src/widgets/title.py", 6), n=2)
    story = story_of(vague, xss)
    ranked = [e.activity.sha for e, _ in rank(classify([vague, xss], CONFIG))]
    assert ranked == [xss.sha, vague.sha]
    assert "XSS" in story.lede
    (item,) = story.action_items
    assert item.urgency == "monitor"  # no release ships them yet
    assert "two security fixes, among them one that prevents XSS" in item.text


# ---------------------------------------------------------------- nothing users see


def test_a_quiet_day_of_two_or_three_changes_says_two_of_them() -> None:
    # "… besides one internal change, two changes landed, the most notable of which kept …"
    fixes = [
        change("Keep resolved build options as a getter", ("src/widgets/build.py", 20), n=1),
        change("Warn on a deprecated `envFile`", ("src/widgets/env.py", 12), n=2),
    ]
    story = story_of(*fixes)
    assert story.lede.startswith("A quiet day for Widgets, which "), story.lede
    assert "keeps resolved build options as a getter" in story.lede, story.lede
    assert "warns on a deprecated `envFile`" in story.lede, story.lede
    assert "the most notable" not in story.lede
    third = change("Fix a crash on empty input", ("src/widgets/parse.py", 5), n=3)
    assert story_of(*fixes, third).lede.endswith("; one more change landed as well.")
    assert story.checks is not None and story.checks.problems == ()


def test_a_window_of_internal_work_alone_says_so_in_its_lede() -> None:
    """Four changes make no quiet day by count, but none of them reaches a user: the lede
    says that before it names the most notable, rather than reading as a day of news."""
    work = [
        change("ci: cache the wheel builds", (".github/workflows/wheels.yml", 30), n=0),
        change("test: cover empty frames in the reader", ("tests/test_reader.py", 40), n=1),
        change("refactor: split the planner into passes", ("src/widgets/plan.py", 90), n=2),
        change("Add a benchmark of the join kernels", ("benchmarks/join.py", 60), n=3),
    ]
    story = story_of(*work)
    assert story.lede.startswith(
        "A quiet day for Widgets: only internal work landed, four changes,"
    )
    assert story.checks is not None and story.checks.problems == ()
    # One change users see among five: no quiet day, and the lede tells the news as news.
    story = story_of(
        *work, change("Add `merge_sorted` for many frames", ("src/widgets/m.py", 9), n=4)
    )
    assert "quiet" not in story.lede
    assert story.lede == (
        "Widgets adds `merge_sorted` for many frames; four internal changes landed as well."
    )
    assert story.checks is not None and story.checks.problems == ()
    # … and one whose title reads too badly to name is counted behind a docs change that
    # leads, yet it is still no internal work (pytest's "only internal work landed").
    docs = change("docs: clarify the progress output", ("doc/en/how-to/sub.rst", 20), n=2)
    refactor = change("refactor: split the planner", ("src/widgets/plan.py", 90), n=3)
    garbled = change("fix: expr (-m/-k) + scanner idents", ("src/widgets/expr.py", 9), n=4)
    story = story_of(docs, refactor, garbled)
    # a fix counted is a fix, cited so that a reader finds it
    assert "lands one more fix [" in " ".join(s.text for s in story.body)
    assert "only internal work" not in story.lede, story.lede
    # after one named change, no "Beyond these": "It also lands one more fix [2]."
    body = " ".join(s.text for s in story_of(docs, garbled).body)
    assert "It also lands one more fix [2]." in body and "these" not in body, body


def test_a_quiet_window_of_internal_work_says_so_too() -> None:
    story = story_of(
        change("test: cover empty frames in the reader", ("tests/test_reader.py", 40), n=1),
        change("TST: make GPU tests pass with lots of memory", ("tests/test_gpu.py", 20), n=2),
    )
    assert story.lede.startswith("A quiet day for Widgets: only internal work landed, two")
    assert story.checks is not None and story.checks.problems == ()


def test_a_folder_found_only_among_examples_is_no_place_in_a_sentence_or_item() -> None:
    """One install script under `examples/models/moshi/` among CI files and a root script:
    the back-out is no news of "Moshi", which is an example, not a part users follow."""
    undo = change(
        'Revert "Centralize the torch version pins"',
        (".ci/docker/build.sh", 17),
        ("examples/models/moshi/install_requirements.sh", 8),
        ("install_widgets.py", 12),
        n=2,
    )
    week = Window(since=START, until=START + timedelta(days=7))
    story = compose([undo], config=CONFIG, window=week)
    told = " ".join([s.text for s in story.body] + [i.text for i in story.action_items])
    assert "Moshi" not in told and "moshi" not in told, told
    (item,) = story.action_items
    assert item.text.startswith("Check whether Widgets still does what you rely on"), item.text


@pytest.mark.parametrize(
    "body",
    [
        "Reverts acme/widgets#201",  # GitHub's revert button
        f"This reverts commit {ORIGINAL.sha}.",  # git revert
    ],
)
def test_a_back_out_whose_title_is_reworded_finds_its_change_by_the_reference_it_gives(
    body: str,
) -> None:
    reworded = change(
        "Revert heap profiling at runtime", ("src/widgets/profile.cc", 400), n=6, body=body
    )
    undone = next(e for e in classify([ORIGINAL, reworded], CONFIG) if e.kind == "revert")
    assert undone.linked == (ORIGINAL,)
    assert undone.withdrawn and undone.urgency is None


@pytest.mark.parametrize(
    ("title", "files"),
    [
        ('Revert "axum-core 0.5.6"', ("axum-core/Cargo.toml", "axum-core/CHANGELOG.md")),
        ('Revert "Prepare release version 9.1.0"', ("pyproject.toml", "CHANGELOG.md")),
    ],
)
def test_a_back_out_of_a_release_commit_is_release_plumbing_with_nothing_to_watch(
    title: str, files: tuple[str, ...]
) -> None:
    revert = change(title, *((path, 3) for path in files), n=2)
    event = classify_one(revert, WIDGETS)
    assert event.kind == "revert" and event.internal
    assert not event.must_act and event.urgency is None


def test_a_change_with_its_own_release_note_outranks_one_without() -> None:
    noted = change(
        "Add a retry option to the client",
        ("src/widgets/client.py", 40),
        (".changeset/quiet-cats-retry.md", 5),
        n=1,
    )
    unnoted = change("Add a colour option to the theme", ("src/widgets/theme.py", 120), n=2)
    events = classify([noted, unnoted], CONFIG)
    assert rank(events)[0][0].activity.sha == noted.sha


# ---------------------------------------------------------------- a lede that claims no more


def test_a_quiet_day_with_one_change_beside_housekeeping_does_not_call_it_the_only_one() -> None:
    told = story_of(
        change("fix: keep trailing zeros in the printed float", ("src/widgets/fmt.py", 12)),
        change("BENCH: update the sort benchmarks", ("benchmarks/sort.py", 30), n=1),
    )
    assert told.lede == (
        "A quiet day for Widgets, which keeps trailing zeros in the printed float; "
        "one internal change landed as well."
    )


def test_a_lede_keeps_a_release_apart_from_a_change_it_does_not_ship() -> None:
    release = change("Release 2.13.0", ("pyproject.toml", 1), ("CHANGELOG.md", 40), n=1)
    before = change("feat: accept `None` hosts in `build()`", ("src/widgets/net.py", 30), n=0)
    after = change("feat: accept `None` hosts in `build()`", ("src/widgets/net.py", 30), n=2)
    apart = story_of(release, after)
    assert apart.lede == "Widgets ships 2.13.0 and, separately, accepts `None` hosts in `build()`."
    # landed before the cut, it ships in the release: one sentence, no "separately"
    shipped = story_of(before, release)
    assert "separately" not in shipped.lede and "2.13.0" in shipped.lede


def test_a_window_of_maintenance_alone_says_so_in_its_headline() -> None:
    # pytest's "PYTEST BUMPS actions/stale FROM 10.2.0 TO 10.3.0" told every subscriber of
    # a change none of them sees
    stale = change(
        "build(deps): Bump actions/stale from 10.2.0 to 10.3.0", (".github/workflows/stale.yml", 2)
    )
    assert story_of(stale).headline == "ONLY DEPENDENCY UPDATES LAND IN WIDGETS"
    docs = change("docs: clarify the progress output", ("doc/en/how-to/sub.rst", 20), n=1)
    assert story_of(docs).headline == "ONLY DOCUMENTATION CHANGES LAND IN WIDGETS"
    assert story_of(stale, docs).headline == "ONLY MAINTENANCE WORK LANDS IN WIDGETS"
    # one change users see, and the headline is its
    fix = change("fix: keep trailing zeros in the printed float", ("src/widgets/fmt.py", 12), n=2)
    told = story_of(stale, docs, fix)
    assert told.headline.startswith("WIDGETS KEEPS TRAILING ZEROS"), told.headline
    assert told.checks is not None and told.checks.problems == ()


def test_a_change_renamed_later_in_the_window_is_told_by_its_new_names() -> None:
    added = change("feat: add least() and greatest() scalar functions", ("src/widgets/f.py", 80))
    renamed = change("Rename greatest, least, to max_of, min_of", ("src/widgets/f.py", 20), n=5)
    told = story_of(added, renamed)
    text = " ".join([told.lede, *(s.text for s in told.body)])
    assert "min_of() and max_of() scalar functions" in text, text
    assert "least()" not in text and "greatest()" not in text
    [sentence] = [s for s in told.body if "max_of" in s.text]
    assert set(sentence.refs) == {1, 2}  # both cited, one sentence
    assert told.checks is not None and told.checks.problems == ()
    # renamed before it landed, nothing to fold: each is its own
    early = change("Rename greatest, least, to max_of, min_of", ("src/widgets/f.py", 20), n=0)
    late = change(
        "feat: add least() and greatest() scalar functions", ("src/widgets/f.py", 80), n=5
    )
    assert len(story_of(early, late).references) == 2


def test_a_ledes_count_of_back_outs_counts_every_one_once_users_saw_one() -> None:
    # astro's "in all, one change was backed out" over a window of two back-outs, one of a
    # change the window itself had landed (no user got it: counted as internal work)
    fix = change("fix: keep trailing zeros in the printed float", ("src/widgets/fmt.py", 12))
    withdrawn = change(
        'Revert "fix: keep trailing zeros in the printed float"', ("src/widgets/fmt.py", 12), n=3
    )
    older = change('Revert "feat: stream the reader"', ("src/widgets/read.py", 40), n=4)
    added = change("feat: add `merge_sorted` for many frames", ("src/widgets/m.py", 90), n=5)
    lede = story_of(fix, withdrawn, older, added).lede
    assert lede.endswith("in all, two changes were backed out."), lede
    # … once one of them undoes what users saw: a same-day revert of CI work is no news
    ci = change("ci: cache the wheel builds", (".github/workflows/wheels.yml", 30), n=1)
    undone = change(
        'Revert "ci: cache the wheel builds"', (".github/workflows/wheels.yml", 30), n=2
    )
    fixed = change("fix: keep the sign of negative zero", ("src/widgets/f.py", 9), n=6)
    lede = story_of(ci, undone, added, fixed).lede
    assert "backed out" not in lede, lede
    # four commits: the feature, the fix, and the CI change with its revert, counted once
    assert lede.endswith("; one more change and two internal changes landed as well."), lede


def test_a_bot_update_whose_title_has_no_verb_is_told_as_an_update() -> None:
    # pytest's "[pre-commit.ci] pre-commit autoupdate": "pytest pre-commits autoupdate"
    hooks = change("[pre-commit.ci] pre-commit autoupdate", (".pre-commit-config.yaml", 4))
    hooks = hooks.model_copy(update={"author": "pre-commit-ci[bot]"})
    told = story_of(hooks)
    text = " ".join([told.lede, *(s.text for s in told.body)])
    assert "pre-commits" not in text and "updates dependencies" in text, text


def test_a_change_to_a_product_of_the_repository_keeps_its_credit_when_joined() -> None:
    # vite's "It uses `moduleResolution: nodenext` …" of a feat(create-vite) change, joined
    # into a sentence about the project
    titles = (
        "feat: stream the reader in chunks",
        "fix: keep trailing zeros in the printed float",
        "feat: add `merge_sorted` for many frames",
        "fix: close the file handle after a failed read",
        "feat: support gzip input",
        "fix: reject empty frame names",
        "feat: allow custom separators",
        "fix: keep column order on join",
    )
    work = [change(t, (f"src/widgets/p{n}.py", 90 - n), n=n * 8) for n, t in enumerate(titles)]
    template = change(
        "feat(create-widget): use Oxlint for react templates",
        ("packages/create-widget/template-react/package.json", 30),
        ("packages/create-widget/src/index.ts", 20),
        n=70,
    )
    week = Window(since=START, until=START + timedelta(days=7))
    # (every change named, however little its description says: the joined ones too)
    naming_all = CONFIG.model_copy(update={"digest": DigestSettings(stories_per_project=8)})
    told = compose([*work, template], config=naming_all, window=week)
    [sentence] = [s.text for s in told.body if "Oxlint" in s.text]
    assert re.search(r"(^|, )create-widget uses Oxlint", sentence), sentence
    assert told.checks is not None and told.checks.problems == ()


def test_housekeeping_and_docs_never_share_a_quiet_lede_with_news_users_meet() -> None:
    # axum's quiet week: "which prevents `?&` in TypedPath query params and fixes the link
    # reference for pull request template", a CONTRIBUTING.md link beside a user's fix
    fix = change("fix: prevent `?&` in typed query params", ("src/widgets/typed.rs", 30))
    link = change("docs: fix link reference for pull request template", ("CONTRIBUTING.md", 1), n=1)
    told = story_of(fix, link)
    assert told.lede == (
        "A quiet day for Widgets, which prevents `?&` in typed query params; "
        "one documentation change landed as well."
    ), told.lede
    assert not any("template" in s.text for s in told.body), told.body


def test_a_people_page_change_is_said_as_what_it_is() -> None:
    # "which includes everyone in people page", "which updates evan's x handle"
    people = change("Include everyone in people page", (".github/actions/people/people.py", 9))
    team = change("docs: update evan's x handle", ("docs/_data/team.js", 1), n=1)
    for alone in (people, team):
        told = story_of(alone)
        assert told.headline.startswith("ONLY "), told.headline
        body = " ".join(s.text for s in told.body)
        assert "updates its contributor page" in body, body
        assert "everyone" not in body and "handle" not in body, body


def test_a_sponsor_link_is_no_contributor_page() -> None:
    # vite: "docs: fix sponsor link in README" read "updates its contributor and sponsor
    # pages", two pages where one link changed
    sponsor = change("docs: fix sponsor link in README", ("README.md", 2))
    body = " ".join(s.text for s in story_of(sponsor).body)
    assert "updates its sponsor listing" in body, body
    assert "contributor" not in body, body


def test_a_headline_credits_the_product_a_change_is_of() -> None:
    # "VITE REMOVES TSCONFIG `moduleResolution` OPTION" for a change to create-vite's
    # templates read as a removal from Vite itself
    scaffold = change(
        "fix(create-widgets): remove tsconfig `moduleResolution` option",
        ("packages/create-widgets/template-react/tsconfig.node.json", 1),
        ("packages/create-widgets/template-vue/tsconfig.node.json", 1),
    )
    told = story_of(scaffold)
    assert told.headline.startswith("CREATE-WIDGETS REMOVES"), told.headline
    assert told.body[0].text.startswith("create-widgets removes"), told.body[0].text
    fix = change("fix: keep trailing zeros in the printed float", ("src/widgets/f.py", 9), n=3)
    told = story_of(scaffold, fix)
    assert "`moduleResolution` option in create-widgets" in told.lede, told.lede
    # a component a title tag names keeps the project's name beside it
    tsdb = change("tsdb: skip clean series during head compaction", ("tsdb/head.go", 40))
    told = story_of(tsdb)
    assert told.headline.startswith("WIDGETS' TSDB SKIPS CLEAN SERIES"), told.headline
    assert "in tsdb" not in told.lede, told.lede


def test_a_quiet_day_of_one_change_says_it_once_in_headline_and_body() -> None:
    # "PEFT FIXES DUPLICATED …", "A quiet day for PEFT, whose only change fixes duplicated
    # …", "PEFT fixes duplicated …": one thing three times over
    fix = change("fix: keep trailing zeros in the printed float", ("src/widgets/f.py", 9))
    told = story_of(fix)
    assert told.headline.startswith("WIDGETS KEEPS TRAILING ZEROS"), told.headline
    assert told.lede == "A quiet day for Widgets: one change landed.", told.lede
    assert "trailing zeros" in told.body[0].text, told.body


def test_a_release_leads_over_a_security_update_of_a_dependency() -> None:
    # "PROMETHEUS UPDATES MODULE golang.org/x/crypto TO V0.52.0" over the window's release
    # read as a missed release: the update is the dependency's news
    release = change("Release 2.13.0", ("pyproject.toml", 1), ("CHANGELOG.md", 40), n=1)
    update = change(
        "fix(deps): update module golang.org/x/crypto to v0.52.0 [SECURITY]", ("go.mod", 2), n=3
    )
    told = story_of(release, update)
    assert told.headline == "WIDGETS 2.13.0 IS OUT", told.headline
    assert "golang.org/x/crypto" in told.lede or any(
        "golang.org/x/crypto" in s.text for s in told.body
    ), told
    # landed after the cut: the item waits for a release that carries it
    [item] = told.action_items
    assert item.urgency == "monitor" and "security fix" in item.text, item


def test_a_back_out_of_lint_settings_and_tests_is_internal_work() -> None:
    # numpy's [monitor] "Check whether NumPy still does what you rely on: “Enable ruff
    # linting in test_linalg.py” was backed out" watched how the project checks its code
    undone = change(
        "revert: MAINT: Enable ruff linting in test_widgets.py",
        ("src/widgets/tests/test_widgets.py", 40),
        ("ruff.toml", 3),
    )
    added = change("feat: add `merge_sorted` for many frames", ("src/widgets/m.py", 90), n=2)
    fixed = change("fix: keep trailing zeros in the printed float", ("src/widgets/f.py", 9), n=3)
    told = story_of(undone, added, fixed)
    assert not told.action_items, told.action_items
    assert "backs out" not in told.lede, told.lede


def test_a_shared_verb_never_follows_a_second_verb_of_the_lede() -> None:
    # "adds A and drops B, as well as C" reads as if C were dropped too
    cuda = change("Add CUDA 13.2 support and drop CUDA 12.8", ("src/cuda/build.cmake", 300), n=1)
    tosa = change("Add TOSA binary op visitors", ("src/arm/tosa.py", 200), n=2)
    lede = story_of(cuda, tosa).lede
    assert "drops CUDA 12.8, and adds TOSA binary op visitors" in lede, lede
    profile = change("Add heap profiling at runtime", ("src/widgets/profile.cc", 300), n=1)
    assert "TOSA binary op visitors, as well as heap profiling" in story_of(profile, tosa).lede


def noted(title: str, n: int, *, note: bool) -> Activity:
    """A fix of 40 lines in src/, with a changeset of its own when `note`."""
    files = [(f"src/widgets/part{n}.ts", 40)] + ([(f".changeset/fix-{n}.md", 4)] if note else [])
    return change(title, *files, n=n)


def test_where_a_project_notes_most_changes_one_without_a_note_ranks_below_them() -> None:
    # svelte writes a changeset for nearly every fix users see; its "fix: disallow effect
    # creation after `await`", with none, outranked noted fixes of the same size
    fixes = [noted(f"fix: handle empty slot {n}", n, note=True) for n in range(4)]
    why = "Users saw stale effects, because a discarded batch was never settled after it."
    files = [(f"src/widgets/batch{k}.ts", 400) for k in range(3)]
    bare = change("fix: settle a discarded batch of effects", *files, n=5, body=why)
    ranked = [e.activity.sha for e, _ in rank(classify([*fixes, bare], CONFIG))]
    assert ranked[-1] == bare.sha
    # one note in five is no habit: the change without one keeps its place by its size
    few = [noted(f"fix: handle empty slot {n}", n, note=n == 0) for n in range(4)]
    bigger = change("fix: settle a discarded batch of effects", *files, n=5, body=why)
    ranked = [e.activity.sha for e, _ in rank(classify([*few, bigger], CONFIG))]
    assert ranked[0] == bigger.sha


@pytest.mark.parametrize("earlier", [True, False])
def test_a_back_out_that_names_only_a_pull_request_is_named_by_the_change_it_undoes(
    earlier: bool,
) -> None:
    # "revert: PR 16708": told as "backs out an earlier change (#16708)" it said nothing
    original = change("fix: keep ssr deps optimized", ("src/widgets/ssr.ts", 40), n=1)
    revert = change(f"revert: PR {original.number}", ("src/widgets/ssr.ts", 40), n=20)
    events = (
        classify([revert], CONFIG, earlier=[original])
        if earlier
        else classify([original, revert], CONFIG)
    )
    [undone] = [e for e in events if e.kind == "revert"]
    assert undone.obj == "keep ssr deps optimized"
    if not earlier:
        body = " ".join(s.text for s in story_of(original, revert).body)
        assert "an earlier change" not in body and "keep ssr deps optimized" in body, body


@pytest.mark.parametrize("named", [True, False])
def test_a_back_out_of_a_fix_named_by_a_noun_phrase_undoes_a_fix_not_the_thing(named: bool) -> None:
    # "backs out cloudflare ssr deps optimization" read as the optimization's loss: the
    # change undone was "fix: cloudflare ssr deps optimization"
    from digest.compose.phrases import event_predicate

    original = change("fix: cloudflare ssr deps optimization", ("src/widgets/ssr.ts", 40), n=1)
    title = 'Revert "fix: cloudflare ssr deps optimization"' if named else "revert: PR 201"
    revert = change(title, ("src/widgets/ssr.ts", 40), n=20)
    [undone] = [e for e in classify([original, revert], CONFIG) if e.kind == "revert"]
    said = event_predicate(undone, max_words=12)
    assert said == "backs out a fix for cloudflare ssr deps optimization", said
    # a fix whose title says what it does is backed out by its words
    verb = change('Revert "fix: keep ssr deps optimized"', ("src/widgets/ssr.ts", 40), n=21)
    [undone] = [e for e in classify([verb], CONFIG) if e.kind == "revert"]
    assert "a fix for" not in event_predicate(undone, max_words=12)


def test_a_release_leads_over_a_breaking_change_it_does_not_ship() -> None:
    # what is out comes before what changes for a reader (EDITORIAL.md): a removal that
    # landed after the release led its day
    release = change("Prepare release version 2.5.0", ("CHANGELOG.md", 40), ("pyproject.toml", 1))
    removal = change(
        "BREAKING: remove the deprecated `load_all` function",
        ("src/widgets/io.py", 60),
        n=3,
    )
    told = story_of(release, removal)
    assert told.headline.startswith("WIDGETS 2.5.0 IS OUT"), told.headline
    assert "load_all" in told.lede, told.lede  # still told first after it
