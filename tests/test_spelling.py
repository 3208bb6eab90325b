"""An unconfigured project is called as its own prose spells it ("Polars", not "polars"),
never by a spelling its code uses ("import polars", "polars.DataFrame")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from digest.compose import compose
from digest.config import DigestSettings, Project, WireConfig
from digest.model import Activity, FileChange, Window
from digest.reading.spelling import own_spelling
from tests.digest_data import ACTIVITY

START = datetime(2026, 5, 4, tzinfo=UTC)


def change(n: int, title: str, body: str = "", *, path: str = "") -> Activity:
    return Activity(
        repo="acme/widgetry",
        sha=f"{n:040x}",
        number=n,
        title=title,
        body=body,
        landed_at=START + timedelta(hours=n),
        files=(FileChange(path=path or f"src/widgetry/m{n}.py", additions=20, deletions=2),),
    )


def test_the_spelling_of_the_projects_own_prose_names_it() -> None:
    from digest.sources.replay import ReplaySource

    polars = list(ReplaySource(next(ACTIVITY.glob("pola-rs-polars*"))).read_all())
    assert own_spelling("polars", polars) == "Polars"
    code_only = [
        change(1, "Speed up `widgetry.load`", "Calls to widgetry.load() and import widgetry."),
        change(2, "Fix widgetry/cli.py", "See packages/widgetry/ and `widgetry`."),
    ]
    assert own_spelling("widgetry", code_only) is None  # code, paths: no prose spelling


def test_a_story_of_an_unconfigured_project_uses_its_own_spelling_and_a_configured_one_keeps_its_name() -> (
    None
):
    prose = "WidgetRy now retries. WidgetRy users asked for it; WidgetRy docs explain it."
    activity = [
        change(1, "Add a retry option to the client", prose),
        change(2, "Fix crash on exit"),
    ]
    window = Window(since=START, until=START + timedelta(days=1))
    story = compose(activity, config=WireConfig(), window=window)
    assert "WidgetRy" in story.lede and "widgetry" not in story.lede, story.lede
    configured = WireConfig(projects=(Project(repo="acme/widgetry", name="widgetry"),))
    story = compose(activity, config=configured, window=window)
    assert "widgetry" in story.lede and "WidgetRy" not in story.lede, story.lede


def test_a_quiet_week_is_spelled_as_the_projects_history_spells_it() -> None:
    earlier = [
        change(n, f"Document how Widgetry caches result {n}", "Widgetry now caches results.")
        for n in range(1, 4)
    ]
    week_start = START + timedelta(days=7)
    quiet = Activity(
        repo="acme/widgetry",
        sha="f" * 40,
        number=99,
        title="Add a retry option to the client",
        landed_at=week_start + timedelta(hours=1),
        files=(FileChange(path="src/widgetry/client.py", additions=20, deletions=2),),
    )
    week = Window(since=week_start, until=week_start + timedelta(days=7))
    story = compose([*earlier, quiet], config=WireConfig(), window=week)
    # nothing in the week spells the name; its history does
    assert story.body[0].text.startswith("Widgetry adds a retry option"), story.body[0].text


def test_capitals_win_over_lower_case_keys_scopes_and_modules() -> None:
    activity = [
        change(
            1, "fix(widgetry): retry on reset", '---\n"widgetry": patch\n---\nSee widgetry:assets.'
        ),
        change(2, "Document the cache", "Widgetry now caches results."),
    ]
    assert own_spelling("widgetry", activity) == "Widgetry"  # one use in prose is enough
    lower = [change(1, "Document the cache", "widgetry now caches results. Widgetry docs too.")]
    lower.append(change(2, "Add a guide", "widgetry is a library."))
    assert own_spelling("widgetry", lower) is None  # the project writes itself in lower case


def test_a_sentence_opens_with_a_capital_unless_the_project_keeps_its_name_in_lower_case() -> None:
    window = Window(since=START, until=START + timedelta(days=1))
    silent = [change(1, "Add a retry option to the client"), change(2, "Fix crash on exit")]
    story = compose(silent, config=WireConfig(), window=window)
    assert story.body[0].text.startswith("Widgetry fixes"), story.body[0].text
    # and so within a sentence: "Widgetry fixes …" beside "for widgetry" read as a slip
    # (vite's and svelte's "Vite 8.0.14 is out" beside "a fix that vite 8.0.14 ships")
    assert "for Widgetry" in story.lede, story.lede
    # a capital the prose writes inside the name is the name's, though lower case prevails
    inner = [
        change(1, "Add a retry option to the client", "WidgetRy clients now retry."),
        change(2, "Fix crash on exit", "the widgetry CLI and widgetry run, widgetry again."),
    ]
    story = compose(inner, config=WireConfig(), window=window)
    assert "for WidgetRy" in story.lede and "Widgetry" not in story.lede, story.lede
    once = [
        change(1, "Add a retry option to the client", "The widgetry CLI now retries."),
        silent[1],
    ]
    story = compose(once, config=WireConfig(), window=window)
    assert story.body[0].text.startswith("Widgetry fixes"), story.body[0].text  # one use: thin
    # within sentences it is the program's name ("the widgetry binary"): no word on how a
    # sentence opens, however often
    named = [*once, change(3, "Shrink the binary", "The widgetry binary and widgetry run.")]
    story = compose(named, config=WireConfig(), window=window)
    assert not any(s.text.startswith("widgetry ") for s in story.body), story.body
    # … unless it is written so again and again, and hardly ever with a capital
    often = [*once, change(3, "Shrink the binary", "Run widgetry. " * 5, path="docs/r.md")]
    story = compose(often, config=WireConfig(), window=window)
    assert story.body[0].text.startswith("widgetry "), story.body[0].text
    lower = [*once, change(3, "Document retries", "widgetry is a client.", path="docs/r.md")]
    story = compose(lower, config=WireConfig(), window=window)
    assert story.body[0].text.startswith("widgetry fixes"), story.body[0].text
    assert "for widgetry" in story.lede, story.lede


def test_a_package_that_is_the_subject_is_spelled_as_the_prose_spells_it() -> None:
    activity = [
        change(
            1,
            "tsdb: fix a panic when the log is empty",
            "The TSDB head panicked.",
            path="tsdb/wal.go",
        ),
        change(2, "mixin: add a latency panel", "The mixin gains a panel.", path="mixin/dash.go"),
        change(3, "Add a retry option to the client", path="client/retry.go"),
        change(4, "Fix crash on exit", path="client/exit.go"),
    ]
    window = Window(since=START, until=START + timedelta(days=7))
    # (all four named, however little their descriptions say)
    config = WireConfig(digest=DigestSettings(stories_per_project=4))
    body = " ".join(s.text for s in compose(activity, config=config, window=window).body)
    assert "TSDB fixes a panic" in body and "tsdb fixes" not in body, body
    assert "Separately, mixin adds a latency panel" in body, body  # written in lower case: kept


def test_a_spelling_with_inner_capitals_wins_over_a_plain_capital() -> None:
    activity = [
        change(1, "Document the cache", "Widgetry now caches results. Widgetry docs too."),
        change(2, "Add a guide", "WidgetRy is a library."),
    ]
    assert own_spelling("widgetry", activity) == "WidgetRy"


def test_a_word_of_english_beside_the_name_is_no_misspelling_of_it() -> None:
    """The headline word "STABILIZES" is two letters from "Stabilizer", and a verb: the story that says
    "STABILIZER STABILIZES …" is told, not refused as misspelling its project's name."""
    config = WireConfig(projects=[Project(repo="acme/widgetry", name="Stabilizer")])
    activity = [change(1, "Stabilize the retry loop", "Retries no longer spin.")]
    window = Window(since=START, until=START + timedelta(days=1))
    story = compose(activity, config=config, window=window)
    assert "STABILIZES" in story.headline, story.headline
    assert story.checks.canonical_names == 1.0


def test_capitals_win_when_the_prose_writes_them_more_than_half_as_often() -> None:
    # astro's window: "Astro" 12 times, "astro" 13 (commands and packages the prose names in
    # lower case): readers took "astro adds …" mid-sentence for a slip
    capital = [change(n, "Document the cache", "Widgetry caches results.") for n in range(4)]
    lower = [change(10 + n, "Add a guide", "Run widgetry to start.") for n in range(5)]
    assert own_spelling("widgetry", [*capital, *lower]) == "Widgetry"
    # … but not a name written so twice as often as with a capital, as pytest writes its own
    assert own_spelling("widgetry", [*capital[:2], *lower[:4]]) is None
