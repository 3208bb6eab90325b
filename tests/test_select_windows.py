"""What a story covers as its window grows: the budget, rule 7's limits, folded bumps,
quiet windows and the cap on must-act units."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from itertools import pairwise

import pytest

from digest.budget import body_limits, story_budget, window_days
from digest.check.proofread_rules import CONNECTIVES
from digest.compose import compose
from digest.config import DigestSettings, WireConfig
from digest.model import Activity, FileChange, Story, Window
from digest.rank import rank
from digest.reading.classify import classify
from digest.select import bump_count, group_units, is_folded_bump
from digest.sources.replay import ReplaySource
from tests.digest_data import ACTIVITY, example_config

START = datetime(2026, 6, 1, tzinfo=UTC)


def span(**length: float) -> Window:
    return Window(since=START, until=START + timedelta(**length))


def change(n: int, title: str, *, author: str = "dev", path: str = "src/app/core.py") -> Activity:
    return Activity(
        repo="acme/widget",
        sha=f"{n:040x}",
        number=n,
        title=title,
        author=author,
        landed_at=START + timedelta(hours=1, minutes=n),
        files=(FileChange(path=path, additions=10 + n, deletions=2),),
    )


@pytest.mark.parametrize(
    ("length", "days", "budget"),
    [
        ({"hours": 24}, 1, 5),
        ({"hours": 36}, 1, 5),  # a late run is still a day
        ({"hours": 37}, 2, 6),
        ({"days": 3}, 3, 6),
        ({"days": 7}, 7, 8),
        ({"weeks": 3}, 21, 9),
        ({"days": 365}, 365, 10),  # never more than MAX_BUDGET
    ],
)
def test_the_budget_grows_with_the_window(length: dict, days: int, budget: int) -> None:
    assert window_days(span(**length)) == days
    assert story_budget(span(**length)) == budget


def test_rule_7_limits_scale_with_the_budget_and_relax_for_a_quiet_window() -> None:
    config = example_config()
    day = body_limits(span(days=1), config, changes=20)
    assert (day.min_sentences, day.max_sentences, day.max_words) == (4, 8, 180)
    week = body_limits(span(days=7), config, changes=100)
    assert (week.min_sentences, week.max_sentences, week.max_words) == (4, 11, 240)
    quiet = body_limits(span(days=1), config, changes=2)
    # a sentence a change, one for the counted bumps and one for the counted trivia
    assert (quiet.min_sentences, quiet.max_sentences) == (1, 4)
    assert body_limits(span(days=1), config, changes=None).min_sentences == 4
    # One sentence tells up to three changes of one shape: four of them may take two.
    assert body_limits(span(days=1), config, changes=4).min_sentences == 2
    assert body_limits(span(days=1), config, changes=12).min_sentences == 4
    # Each project beyond the first brings room for its units, its count and its clauses.
    three = body_limits(span(days=1), config, changes=20, projects=3)
    assert (three.max_sentences, three.max_words) == (14, 270)
    assert body_limits(span(days=1), config, changes=2, projects=2).max_sentences == 6


def test_a_busy_day_of_every_followed_project_fits_rule_7_and_so_is_delivered() -> None:
    """One channel following all seven repositories reads one story of them all; a story
    that failed rule 7 would be held back from delivery, so it must fit."""
    everything = [
        a for path in sorted(ACTIVITY.glob("*.jsonl")) for a in ReplaySource(path).read_all()
    ]
    for day in (7, 13, 21):
        since = datetime(2026, 5, day, tzinfo=UTC)
        for length in (1, 2, 7):
            window = Window(since=since, until=since + timedelta(days=length))
            story = compose(everything, config=example_config(), window=window)
            assert len({r.repo for r in story.references}) >= 5
            assert story.checks is not None and story.checks.problems == (), (day, length)


def test_routine_bumps_fold_but_major_and_security_ones_stay() -> None:
    config = WireConfig()
    events = classify(
        [
            change(1, "Bump aiohttp from 3.13.4 to 3.14.0", author="dependabot[bot]"),
            change(2, "Bump django from 4.2.1 to 5.0.0", author="dependabot[bot]"),
            change(3, "Bump requests from 2.31.0 to 2.32.0 (security fix)"),
            change(4, 'Revert "Bump yarl from 1.9.0 to 1.9.1"'),
            change(5, "Add a cache for parsed schemas"),
        ],
        config,
    )
    folded = {e.activity.number: is_folded_bump(e) for e in events}
    assert folded == {1: True, 2: False, 3: False, 4: False, 5: False}


def test_nine_bumps_become_one_counted_clause() -> None:
    bumps = [
        change(n, f"Bump lib{n} from 1.{n}.0 to 1.{n}.1", author="dependabot[bot]")
        for n in range(1, 10)
    ]
    work = [
        change(20, "Add streaming validation for nested models"),
        change(21, "Fix a crash on empty aliases", path="src/app/alias.py"),
        change(22, "Speed up schema generation", path="src/app/schema.py"),
        change(23, "Support Python 3.15 wheels", path="build/wheels.py"),
    ]
    story = compose([*bumps, *work], config=WireConfig(), window=span(days=1))
    text = " ".join(s.text for s in story.body)
    assert "updates nine dependencies" in text
    assert " from 1." not in text  # no bump gets a sentence of its own
    assert story.checks is not None and story.checks.problems == ()


def test_a_workspace_file_beside_the_lockfile_ships_nothing_either() -> None:
    # astro's "[SECURITY] Update dependency postcss" on pnpm-lock.yaml and
    # pnpm-workspace.yaml was told as a security fix its releases carried.
    (bump,) = classify(
        [
            change(
                1, "[SECURITY] Update dependency postcss to v8.5.10", path="pnpm-lock.yaml"
            ).model_copy(
                update={
                    "files": (
                        FileChange(path="pnpm-lock.yaml", additions=9),
                        FileChange(path="pnpm-workspace.yaml", additions=1),
                    ),
                    "author": "renovate[bot]",
                }
            )
        ],
        WireConfig(),
    )
    assert bump.bump is not None and bump.bump.security and not bump.bump.shipped
    assert not bump.security and bump.urgency is None


def test_a_lockfile_security_update_is_counted_by_name_without_an_item() -> None:
    """A security update that only moves a lockfile ships nothing to users (no item, no
    sentence of its own), but a reader scanning for advisories still finds it in the count."""
    lock = "pnpm-lock.yaml"
    bumps = [
        change(1, "chore(deps): update dependency ws to v8.20.1 [security]", path=lock),
        change(2, "chore(deps): update dependency @scope/router to v7.1.2 [security]", path=lock),
        change(3, "chore(deps): update dependency prettier to v3.6.1", path=lock),
    ]
    work = [
        change(20, "Add streaming validation for nested models"),
        change(21, "Fix a crash on empty aliases", path="src/app/alias.py"),
    ]
    mixed = compose([*bumps, *work], config=WireConfig(), window=span(days=1))
    only = compose([bumps[0], *work], config=WireConfig(), window=span(days=1))
    again = change(4, "chore(deps): update dependency ws to v8.20.2 [security]", path=lock)
    twice = compose([bumps[0], again, *work], config=WireConfig(), window=span(days=1))
    names = r"`(ws|@scope/router)` and `(?!\1)(ws|@scope/router)`"
    for story, clause in (
        (
            mixed,
            rf"updates three dependencies, among them security updates to {names} (\[\d\]){{3}}",
        ),
        (only, r"applies a security update to `ws` \[\d\]"),
        (twice, r"applies security updates to `ws` \[\d\]\[\d\]"),
    ):
        text = " ".join(s.text for s in story.body)
        assert re.search(clause, text), text
        assert story.action_items == ()
        assert story.checks is not None and story.checks.problems == ()


def day_with_news(bumps: list[Activity]) -> Story:
    """A day of `bumps` and one change users see."""
    news = change(9, "Preserve `RootModel` core metadata")
    return compose([*bumps, news], config=WireConfig(), window=span(days=1))


def test_one_change_among_routine_bumps_is_told_among_them() -> None:
    bumps = [
        change(n, f"Bump lib{n} from 2.{n}.0 to 2.{n}.1", author="dependabot[bot]")
        for n in range(1, 7)
    ]
    story = day_with_news(bumps)
    # Seven changes landed: no quiet day, but the news, then what the rest of it was.
    assert story.lede.startswith("Widget "), story.lede
    assert story.lede.endswith("; six dependency updates landed as well."), story.lede
    # The count follows the change, "it" standing in for the project's name.
    last = [s.text for s in story.body][-1]
    assert re.fullmatch(r"(It also|[A-Z][\w ]*, it) updates six dependencies\.", last), last
    assert story.checks is not None and story.checks.problems == ()


def test_a_ledes_counts_are_of_changes_so_their_parts_never_exceed_the_whole() -> None:
    grouped = change(
        1, "Bump the pip group across 1 directory with 4 updates", author="dependabot[bot]"
    )
    bumps = [grouped, *(change(n, f"Bump lib{n} from 2.{n}.0 to 2.{n}.1") for n in range(2, 6))]
    story = day_with_news(bumps)
    # A grouped bump is one change of the six, whatever it updates.
    assert story.lede.endswith("; five dependency updates landed as well."), story.lede


def test_a_window_of_only_bumps_still_tells_them() -> None:
    bumps = [
        change(n, f"Bump lib{n} from 1.0.{n} to 1.0.{n + 1}", author="renovate[bot]")
        for n in (1, 2)
    ]
    story = compose(bumps, config=WireConfig(), window=span(days=1))
    assert len(story.references) == 2
    assert story.lede.startswith("A quiet day for Widget")


@pytest.mark.parametrize("count", [1, 2, 3])
def test_a_quiet_day_gets_a_short_story_that_says_so(count: int) -> None:
    titles = ["Add a retry budget to the client", "Fix the retry delay", "Document retries"]
    paths = ["src/client/retry.py", "src/client/delay.py", "docs/retries.md"]
    story = compose(
        [change(n, titles[n], path=paths[n]) for n in range(count)],
        config=WireConfig(),
        window=span(days=1),
    )
    assert story.lede.startswith("A quiet day for Widget")
    assert 1 <= len(story.body) <= count
    assert len(story.references) == count
    assert story.checks is not None and story.checks.problems == ()


def test_four_changes_are_no_quiet_day() -> None:
    titles = ["Add a retry budget", "Fix the retry delay", "Rename the pool", "Drop Python 3.9"]
    story = compose(
        [change(n, t, path=f"src/m{n}/x.py") for n, t in enumerate(titles)],
        config=WireConfig(),
        window=span(days=1),
    )
    assert "quiet" not in story.lede
    assert len(story.body) >= 4


def test_a_long_window_caps_the_units_spent_on_must_act_changes() -> None:
    reverts = [change(n, f'Revert "Add feature {n}"') for n in range(1, 9)]
    features = [
        change(20 + n, f"Add exporter number {n} for metrics", path=f"src/x{n}/a.py")
        for n in range(6)
    ]
    ranked = rank(classify([*reverts, *features], WireConfig()))
    (pick,) = group_units(ranked, per_project=12, max_must_act=4)
    assert sum(u.lead.must_act for u in pick.units) == 4
    assert len(pick.extra) == 4 and all(u.lead.must_act for u in pick.extra)
    (uncapped,) = group_units(ranked, per_project=12)
    assert sum(u.lead.must_act for u in uncapped.units) == 8


_WORK = [
    ("Add a TOML parser", "widget/parser/toml.py"),
    ("Add a YAML parser", "widget/parser/yaml.py"),
    ("Fix a crash on empty aliases", "widget/core.py"),
    ("Fix the retry delay", "widget/retry.py"),
    ("Fix a leak in the pool", "widget/pool.py"),
    ("Add JSON lines export", "widget/export.py"),
    ("Support Python 3.15 wheels", "setup.py"),
    ("Add streaming validation", "widget/validate.py"),
]
_TRIVIA = [
    ("Fix docstring typo", "widget/model.py"),
    ("Fix typos in the tutorial", "docs/tutorial.md"),
    ("Update Widget People", "docs/people.yml"),
    ("Apply lint fixes", "widget/lint.py"),
]


# A week's layout of every unit it names: each is named, however little its description
# says (by default only three are, and beyond them those that say why).
NAMING_ALL = WireConfig(digest=DigestSettings(stories_per_project=8))


def _week(titles: list[tuple[str, str]]) -> Story:
    activity = [change(n, title, path=path) for n, (title, path) in enumerate(titles)]
    return compose(activity, config=NAMING_ALL, window=span(days=7))


def _subject(sentence: str) -> str:
    """The sentence's subject word, after a connective."""
    text = re.sub(rf"^({'|'.join(CONNECTIVES)}), ", "", sentence, flags=re.I)
    return text.split()[0].lower()


def test_a_week_counts_its_trivia_instead_of_telling_it() -> None:
    story = _week(_WORK + _TRIVIA)
    text = " ".join(s.text for s in story.body)
    # The people page is housekeeping, not documentation.
    assert "Widget makes three documentation and lint changes" in text
    assert "updates its contributor page" in text
    assert not re.search(r"typo|tutorial|People|lint fixes", text)
    # The three trivia fit beside the named work's citations; the people page does not.
    assert len(story.references) == len(_WORK) + 3
    assert story.checks is not None and story.checks.problems == ()


def test_trivia_is_told_when_nothing_else_happened() -> None:
    story = _week(_TRIVIA)
    text = " ".join(s.text for s in story.body)
    assert "fixes a docstring typo" in text and "makes" not in text
    assert len(story.references) == len(_TRIVIA)


def test_trivia_beside_news_is_counted_on_a_busy_and_a_quiet_day_alike() -> None:
    busy = [change(n, t, path=p) for n, (t, p) in enumerate(_WORK[:4] + _TRIVIA[:2])]
    told = " ".join(s.text for s in compose(busy, config=WireConfig(), window=span(days=1)).body)
    assert "docstring" not in told and "makes two documentation changes" in told
    quiet = [change(n, t, path=p) for n, (t, p) in enumerate(_WORK[:1] + _TRIVIA[:1])]
    told = " ".join(s.text for s in compose(quiet, config=WireConfig(), window=span(days=1)).body)
    assert "docstring" not in told and "makes a documentation change [2]" in told
    # with no news beside it, the trivia is what the day tells
    alone = [change(0, _TRIVIA[0][0], path=_TRIVIA[0][1])]
    told = " ".join(s.text for s in compose(alone, config=WireConfig(), window=span(days=1)).body)
    assert "fixes a docstring typo" in told, told


def test_a_small_week_is_not_sorted_under_headings_of_kinds() -> None:
    # "Fixes" over one sentence and "Maintenance" over another read as a form
    story = _week([_WORK[0], _WORK[2], _WORK[5]])
    assert [heading for heading, _ in story.paragraphs()] == [None], story.paragraphs()
    told = [s.text for s in story.body]
    # one kind's changes run together: the fix that leads, then both features
    assert "crash" in told[0] and "JSON" in told[1] and "TOML" in told[2], told


def test_a_week_without_topics_is_told_by_theme_and_varies_its_subjects() -> None:
    story = _week(_WORK)
    headings = [heading for heading, _ in story.paragraphs()]
    assert headings == ["New and changed", "Fixes"]
    # Two parsers of one shape are one clause, each cited for its own slot.
    text = " ".join(s.text for s in story.body)
    assert re.search(r"adds (YAML|TOML) \[\d\] and (YAML|TOML) \[\d\] parsers", text), text
    for _, sentences in story.paragraphs():
        subjects = [_subject(s.text) for s in sentences]
        assert all(a != b for a, b in pairwise(subjects)), subjects
    assert {"it", "the"} <= {_subject(s.text) for s in story.body}
    assert story.checks is not None and story.checks.problems == ()


def test_dependency_updates_are_counted_as_event_bump_reads_them() -> None:
    events = classify(
        [
            change(1, "Bump the rust group with 6 updates", author="dependabot[bot]"),
            change(2, "Bump BuildKit replicas_per_arch from 5 to 12", path="k8s/buildkit.yaml"),
            change(3, "Bump ARC prepare-job timeout to 2h", path="k8s/arc.yaml"),
            change(4, "Update the pytorch pin", path=".ci/docker/ci_commit_pins/pytorch.txt"),
        ],
        WireConfig(),
    )
    by_number = {e.activity.number: e for e in events}
    assert bump_count([by_number[1]]) == 6
    assert by_number[2].bump is None and by_number[3].bump is None  # configuration
    assert bump_count([by_number[2], by_number[3]]) == 0
    assert bump_count([by_number[4]]) == 1  # a pin is one update


def test_a_week_of_one_change_among_docs_and_bumps_counts_them_first() -> None:
    docs = [
        change(n, f"docs: fix typo in the guide page {n}", path=f"docs/guide/p{n}.md")
        for n in range(1, 4)
    ]
    bumps = [
        change(n, f"Bump lib{n} from 2.{n}.0 to 2.{n}.1", author="dependabot[bot]")
        for n in range(4, 6)
    ]
    story = compose(
        [*docs, *bumps, change(9, "Show the direct path type in the bad character warning")],
        config=WireConfig(),
        window=span(days=7),
    )
    assert story.lede == (
        "Widget shows the direct path type in the bad character warning; three documentation "
        "changes and two dependency updates landed as well."
    ), story.lede
    assert story.checks.passed, story.checks.problems


@pytest.mark.parametrize(
    ("minutes", "said"),
    [
        (22, "minutes after it landed"),
        (75, "an hour after it landed"),
        (5 * 60 + 10, "five hours after it landed"),
        (26 * 60, "a day after it landed"),
        (3 * 24 * 60 + 21 * 60, "four days after it landed"),  # the nearest day
        (-250, "backs out"),  # a cherry-pick older than its original: no gap to state
    ],
)
def test_a_back_out_says_how_long_after_the_change_as_the_gap_was(minutes: int, said: str) -> None:
    """'hours after it landed' was said of back-outs 22 and 28 minutes after."""
    original = change(1, "Add a cache for parsed schemas")
    original = original.model_copy(update={"landed_at": original.landed_at + timedelta(days=1)})
    back_out = change(2, 'Revert "Add a cache for parsed schemas"').model_copy(
        update={"landed_at": original.landed_at + timedelta(minutes=minutes)}
    )
    story = compose([original, back_out], config=WireConfig(), window=span(days=7))
    text = " ".join(s.text for s in story.body)
    assert said in text, text
    assert (" after it landed" in text) == (minutes > 0), text
    assert story.checks is not None and story.checks.problems == ()


def test_a_package_updated_twice_is_counted_by_its_changes_not_as_two_dependencies() -> None:
    bumps = [
        change(n, f"Bump {name} from 1.{n}.0 to 1.{n}.1", author="dependabot[bot]")
        for n, name in ((1, "libfoo"), (2, "libfoo"), (3, "libbar"), (4, "libbaz"), (5, "libfoo"))
    ]
    story = _day_of(*bumps, change(8, "Speed up schema validation of nested models"))
    text = " ".join(s.text for s in story.body)
    assert "updates dependencies in five changes" in text, text
    assert "five dependencies" not in text, text
    assert story.checks is not None and story.checks.problems == ()


def _day_of(*changes: Activity) -> Story:
    """A day's story of `changes` beside two changes users see."""
    work = [
        change(6, "Add a retry option to the client"),
        change(7, "Fix a crash when the cache directory is missing"),
    ]
    return compose([*changes, *work], config=WireConfig(), window=span(days=1))


def test_one_change_that_updates_two_packages_updates_two_dependencies() -> None:
    # pydantic's day of five bumps, one of them "Bump CodSpeedHQ/action from 4.12.1 to
    # 4.14.0, pytest-codspeed from 4.2.0 to 4.5.0", read "makes six dependency updates".
    bumps = [
        change(n, f"Bump lib{n} from 1.{n}.0 to 1.{n}.1", author="dependabot[bot]")
        for n in range(1, 5)
    ]
    pair = change(
        5, "Bump liba from 4.1.0 to 4.2.0, libb from 2.0 to 2.1", author="dependabot[bot]"
    )
    story = day_with_news([*bumps, pair])
    text = " ".join(s.text for s in story.body)
    assert "updates six dependencies" in text, text


def test_a_day_of_six_changes_is_no_quiet_day_though_only_three_are_news() -> None:
    bumps = [change(n, f"Bump lib{n} from 2.{n}.0 to 2.{n}.1") for n in (1, 2, 3)]
    news = [
        change(4, "Add a retry option to the client"),
        change(5, "Fix a crash when the cache directory is missing"),
        change(6, "Speed up schema validation of nested models"),
    ]
    story = compose([*bumps, *news], config=WireConfig(), window=span(days=1))
    # The news first, and the rest as it is: nothing claims all three reach users.
    assert story.lede.startswith("Widget "), story.lede
    assert story.lede.endswith("; two more changes and three dependency updates landed as well.")
    assert "users see" not in story.lede
    assert story.checks is not None and story.checks.problems == ()


def test_group_bumps_are_counted_by_their_changes() -> None:
    group = "Bump the tools group across 1 directory with 3 updates"
    bumps = [change(n, group, author="dependabot[bot]") for n in (1, 2)]
    bumps.append(change(3, "Bump libbar from 1.0.0 to 1.0.1", author="dependabot[bot]"))
    text = " ".join(s.text for s in _day_of(*bumps).body)
    assert "updates dependencies in three changes" in text, text


def test_type_stub_changes_are_counted_in_a_busy_window() -> None:
    stubs = [
        change(n, f"TYP: shape-typing for `{name}`", path=f"src/widgets/{name}.pyi")
        for n, name in ((1, "sum"), (2, "prod"), (3, "mean"))
    ]
    work = [
        change(4, "Add a retry option to the client"),
        change(5, "Fix a crash when the cache directory is missing"),
        change(6, "Speed up schema validation of nested models"),
        change(7, "Add a timeout option to the server"),
    ]
    story = compose([*stubs, *work], config=WireConfig(), window=span(days=1))
    text = " ".join(s.text for s in story.body)
    assert "three type-stub changes" in text, text
    assert "shape-typing" not in text, text
