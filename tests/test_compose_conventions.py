"""A title's own conventions reach the story: its type prefix gives the change's kind and
verb, a product tag becomes the subject, a tool update is counted as lint, and a related
change says what it does."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from digest.compose import compose
from digest.compose.actions import write_actions
from digest.compose.body import Openings
from digest.compose.counts import summary_sentences
from digest.compose.housekeeping import languages_in
from digest.config import Project, WireConfig
from digest.english.clauses import clause, shorten
from digest.model import Activity, FileChange, Window
from digest.rank import rank
from digest.reading.classify import classify, classify_one
from digest.select import ProjectPick, Unit, group_units
from digest.sources.replay import ReplaySource
from tests.digest_data import ACTIVITY, example_config

TOOL = Project(repo="acme/tool", name="tool")
START = datetime(2026, 5, 4, 9, tzinfo=UTC)
DAY = Window(since=START.replace(hour=0), until=START.replace(hour=0) + timedelta(days=1))


def change(title: str, *paths: str, n: int = 0, body: str = "") -> Activity:
    return Activity(
        repo="acme/tool",
        sha=f"{n + 1:040x}",
        number=100 + n,
        title=title,
        body=body,
        landed_at=START + timedelta(minutes=n),
        files=tuple(FileChange(path=p, additions=40, deletions=5) for p in paths or ("src/a.py",)),
    )


def config() -> WireConfig:
    return WireConfig(projects=(TOOL,))


def test_an_upper_case_fix_prefix_makes_a_noun_phrase_title_a_fix() -> None:
    event = classify_one(change("FIX BEFT example dataset", "src/peft/beft.py"), TOOL)
    assert (event.kind, event.title_kind) == ("fix", "fix")
    assert event.predicate.startswith("fixes ")


def test_a_chore_prefix_is_a_chore_whatever_its_verb() -> None:
    event = classify_one(change("CHORE: Add a cache for the build", "src/a.py"), TOOL)
    assert event.kind == "chore"
    assert classify_one(change("Add a cache for the build", "src/a.py"), TOOL).kind == "feature"


def test_updating_a_linter_is_counted_as_lint_however_many_files_it_touches() -> None:
    paths = [f"src/tool/m{i}.py" for i in range(30)]
    event = classify_one(change("CHORE: Upgrade ruff 0.15.12", *paths), TOOL)
    assert event.trivia == "lint"
    other = classify_one(change("Upgrade the resolver to PubGrub 2", *paths), TOOL)
    assert other.trivia is None


@pytest.mark.parametrize(
    ("title", "trivia"),
    [
        ("Fix Clippy 0.1.95 warnings", "lint"),
        ("Resolve remaining mypy errors", "lint"),
        ("fix: silence compiler warnings", "lint"),
        ("MAINT: fix implicit conversion warnings", "lint"),  # a compiler's class of warning
        ("Fix unused variable warnings in the parser", "lint"),
        # A warning users see is behaviour, not lint.
        ("Fix deprecation warnings raised by model_copy", None),
        ("Fix warnings in the CLI output", None),
    ],
)
def test_silencing_a_linters_findings_is_lint(title: str, trivia: str | None) -> None:
    paths = [f"src/tool/m{i}.rs" for i in range(6)]
    assert classify_one(change(title, *paths), TOOL).trivia == trivia


def test_a_week_does_not_lead_with_a_linter_upgrade() -> None:
    paths = [f"src/tool/m{i}.py" for i in range(30)]
    week = Window(since=DAY.since, until=DAY.since + timedelta(days=7))
    story = compose(
        [
            change("CHORE: Upgrade ruff 0.15.12", *paths, n=0),
            change("ENH Add streaming export to the CLI", "src/tool/cli.py", n=1),
            change("TST Make GPU tests pass", "tests/test_gpu.py", n=2),
        ],
        config=config(),
        window=week,
    )
    assert "STREAMING EXPORT" in story.headline
    assert "streaming export" in story.body[0].text


def test_a_product_that_lives_in_the_repository_is_the_sentence_subject() -> None:
    activity = change("[ty] Respect `rules` in PEP 723 script metadata", "crates/ty/src/lib.rs")
    event = classify_one(activity, TOOL)
    assert event.product == "ty"
    story = compose([activity], config=config(), window=DAY)
    assert story.body[0].text.startswith("ty respects `rules`")


def test_a_tag_not_backed_by_the_changed_paths_is_no_subject() -> None:
    event = classify_one(change("[ty] Respect `rules`", "docs/rules.md", "src/a.py"), TOOL)
    assert event.product is None


def test_a_related_change_says_what_it_does() -> None:
    story = compose(
        [
            change("feat: Process batched `list.eval` on overflow boundaries", "src/eval.rs", n=0),
            change("feat: Process batched `arr.eval` on overflow boundaries", "src/eval.rs", n=1),
            change("fix: Support duplicate names in `over`", "src/over.rs", n=2),
            change("feat: Add LazyFrame.gather", "src/frame.rs", n=3),
            change("perf: Stop doing fused-multiply-add on scalars", "src/math.rs", n=4),
        ],
        config=config(),
        window=DAY,
    )
    body = " ".join(s.text for s in story.body)
    assert "related change" not in body
    assert "`arr.eval`" in body


def test_one_change_told_twice_is_one_clause_with_both_citations() -> None:
    story = compose(
        [
            change("Add a shop space for comparing methods", "src/shop/app.py", n=0),
            change("FIX Shop deployment workflow error", "src/shop/deploy.py", n=1),
            change("FIX Shop deployment workflow error 2", "src/shop/deploy.py", n=2),
        ],
        config=config(),
        window=DAY,
    )
    body = " ".join(s.text for s in story.body)
    assert body.count("deployment workflow error") == 1, body
    assert re.search(r"deployment workflow error(?: 2)? \[\d\]\[\d\]", body), body


def test_housekeeping_is_counted_in_a_clause_of_what_it_did_never_named() -> None:
    week = Window(since=DAY.since, until=DAY.since + timedelta(days=7))
    work = [change(f"feat: Add export format {n}", f"src/export/f{n}.py", n=n) for n in range(6)]
    translations = [
        change(f"Update {code} translation", f"docs/locales/{code}.json", n=10 + i)
        for i, code in enumerate(("fr", "ja", "pt-BR", "de"))
    ]
    changelog = change("Update CHANGELOG for the next release", "CHANGELOG.md", n=20)
    story = compose([*work, *translations, changelog], config=config(), window=week)
    told = " ".join(s.text for s in story.body)
    assert "updates translations in four languages" in told, told
    assert "updates the changelog and release notes" in told, told
    assert "translation" not in story.headline.lower()
    assert not any("Update fr translation" in s.text for s in story.body)


def test_languages_are_read_from_locale_folders_only() -> None:
    paths = ["i18n/pt_BR/messages.po", "locales/fr.json", "src/io/ja.py", "docs/lang/ja/index.md"]
    assert languages_in(paths) == {"pt-br", "fr", "ja"}


def test_a_shortened_title_drops_a_subordinate_clause_whole() -> None:
    cut = shorten(
        "Stop making a `FastCount` for csv if `pre_slice` is set by the reader", max_words=9
    )
    assert cut == "Stop making a `FastCount` for csv"


def test_a_clause_a_few_words_past_the_cut_is_kept_whole_or_dropped_whole() -> None:
    # "binding when strictPort is set but wildcard port" said the opposite of the title
    title = "binding when strictPort is set but wildcard port is in use"
    assert shorten(title, max_words=8) == title
    assert shorten(title, max_words=6) == "binding"
    assert shorten("Stop marking deriveds while an effect is updating", max_words=6) == (
        "Stop marking deriveds while an effect is updating"
    )
    # what limits the claim stays: "raises a warning when `f()` is called" said every call
    limited = "raises a warning when `widget()` is called without a specific unit"
    assert shorten(limited, max_words=8) == limited
    longer = f"{limited} or any other argument of the widget factory"
    assert shorten(longer, max_words=8) == "raises a warning"
    # "for better performance | on free-threading" claimed it of every build
    where = "uses the raw allocator instead of malloc for better performance on free-threading"
    assert shorten(where, max_words=10) == where


def test_a_crate_or_package_folder_is_no_place_in_a_sentence() -> None:
    polars = tuple(ReplaySource(ACTIVITY / "pola-rs-polars-2026-q2.jsonl").read_all())
    week = Window(since=datetime(2026, 5, 25, tzinfo=UTC), until=datetime(2026, 6, 1, tzinfo=UTC))
    story = compose(polars, config=example_config(), window=week)
    body = " ".join(s.text for s in story.body)
    assert len(story.body) >= 5
    assert not re.search(r"\bin (py-)?polars-[a-z]+ \[", body), body
    # … but a crate that says more than its section does may be the sentence's subject.
    assert re.search(r"(^|\. )(py-)?polars-[a-z]+ [a-z]+s ", body), body


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        # the imperative "error", as "warn on X": the change adds the error
        ("error on invalid bind targets", "raises an error on invalid bind targets"),
        (
            "error at compile time on duplicate tag definitions",
            "raises an error at compile time on duplicate tag definitions",
        ),
        # "error when X" may name the bug as well: no guess
        ("error when loading an empty config", "fixes error when loading an empty config"),
        # the title's own "fixes" is ours to say
        ("`{#await}` and async dependencies fixes", "fixes `{#await}` and async dependencies"),
    ],
)
def test_a_fix_titled_error_on_adds_the_error_and_says_fixes_once(
    title: str, expected: str
) -> None:
    assert clause(title, kind="fix") == expected


def test_a_fix_titled_by_its_bug_is_fixed_and_an_upgrade_names_one_version() -> None:
    assert clause("lazy props reactivity", kind="fix") == "fixes lazy props reactivity"
    vite = tuple(ReplaySource(ACTIVITY / "vitejs-vite-2026-q2.jsonl").read_all())
    month = Window(since=datetime(2026, 4, 1, tzinfo=UTC), until=datetime(2026, 5, 1, tzinfo=UTC))
    story = compose(vite, config=example_config(), window=month)
    # the project is not configured: its prose over the quarter writes "Vite"
    (upgrade,) = [i.text for i in story.action_items if i.text.startswith("Upgrade Vite")]
    assert re.match(r"Upgrade Vite to \d+\.\d+\.\d+ or later: ", upgrade), upgrade


def plan_items(*activities: Activity) -> list[str]:
    """The [plan] items written for `activities`, before a story leaves out those whose
    quotation its body gives."""
    picks = group_units(rank(classify(list(activities), config())), per_project=5)
    return [
        text for text, urgency, _, _ in write_actions(picks, config=config()) if urgency == "plan"
    ]


@pytest.mark.parametrize(
    ("title", "body", "opening"),
    [
        (
            "Add support for Conv2d to AdaLoRA",
            "AdaLoRA can now adapt vision models, which are mostly convolutions.",
            "Try Conv2d in tool: the change adds support",
        ),
        # An item that only says the change again ("Try Conv2d: the change adds Conv2d
        # support") is no advice: without a reason from the description, no item.
        ("Add support for Conv2d to LoKr", "", None),
        # "Try it" names nothing to try: without a reason from the description, no item.
        ("Add MLX backend support for Gemma 4 31B", "", None),
        # Part of a thing is no thing to try: the end of a list, or a lone modifier.
        ("Add cat op + ValueList graph support", "", None),
        ("Add extended support from the new flow for Clamp", "", None),
        (
            "Support a `strict` option in the loader",
            "Lets users fail fast on unknown keys instead of ignoring them silently.",
            "Consider the new setting if you",
        ),
        (
            "Support streaming exports",
            "## Why\n\nLarge exports no longer need the whole table in memory at once.",
            "Try it in tool: the change supports streaming exports; its description says "
            "“Large exports no longer need the whole table in memory at once”",
        ),
    ],
)
def test_an_item_says_what_to_do_in_the_changes_own_terms(
    title: str, body: str, opening: str | None
) -> None:
    items = plan_items(change(title, "src/tool/x.py", body=body))
    if opening is None:
        assert items == []
    else:
        assert len(items) == 1 and items[0].startswith(opening), items


def test_an_item_that_quotes_what_the_body_quoted_is_left_out() -> None:
    # pydantic's "Try PyEmscripten platform tag in pydantic: the change adds … ; its
    # description says “…”" below a body sentence with the same quotation.
    why = "## Why\n\nLarge exports no longer need the whole table in memory at once."
    crash = "The loader crashed when a file had no rows, which broke nightly imports."
    work = [
        change("Support streaming exports", "src/tool/x.py", body=why, n=0),
        change("Fix a crash in the loader on empty files", "src/tool/y.py", body=crash, n=1),
        change("Add a `strict` flag to the CLI", "src/tool/z.py", n=2),
        change("Speed up the parser for long lines", "src/tool/p.py", n=3),
    ]
    story = compose(work, config=config(), window=DAY)
    said = "Large exports no longer need the whole table in memory at once"
    assert any(said in s.text for s in story.body), story.body
    assert not any(said in i.text for i in story.action_items), story.action_items
    # The item as written, before the story leaves it out.
    (item,) = plan_items(work[0])
    assert said in item


def test_the_first_sentence_under_a_heading_opens_with_no_connective() -> None:
    # peft's week: "In brief / Separately, PEFT makes six documentation … changes."
    work = [change("Improve type annotations in utility modules", "src/tool/utils.py", n=0)]
    work += [change(f"Fix typo in guide page {i}", f"docs/page{i}.md", n=i) for i in range(1, 4)]
    work += [change(f"TST Make test {i} pass", f"tests/test_{i}.py", n=10 + i) for i in range(1, 4)]
    week = Window(since=DAY.since, until=DAY.since + timedelta(days=7))
    story = compose(work, config=config(), window=week)
    (brief,) = [s for s in story.sections if s.heading == "In brief"]
    assert story.body[brief.start].text == "tool makes six documentation and internal changes."


def test_a_cut_that_falls_inside_a_phrase_drops_the_phrase_whole() -> None:
    title = "Fully resolve remaining `ResourceWarning` leaks in database/iceberg tests"
    assert shorten(title, max_words=6) == "Fully resolve remaining `ResourceWarning` leaks"
    # One word over, the phrase is kept whole rather than cut to strand a word.
    assert shorten(title, max_words=7) == title
    # … unless what is left says nothing: "support" is news only with what it supports.
    assert shorten("Add MLX backend support for Gemma 4 31B", max_words=6) == (
        "Add MLX backend support for Gemma"
    )
    assert shorten("Resolved build options should be kept as a getter", max_words=7) == (
        "Resolved build options should be kept"
    )
    # Nor does it end on a word that points on to what it dropped: a particle, a participle.
    title = "Move comparison helpers to their own files out of the assertion module"
    assert shorten(title, max_words=8) == "Move comparison helpers to their own files"
    title = "Undo deprecation for the `dtype()` signature used by old pickles"
    assert shorten(title, max_words=7) == "Undo deprecation for the `dtype()` signature"
    # A relative clause is kept whole a few words past the cut, or dropped whole: svelte's
    # "stops hanging on a tag whose expression ends [13]".
    title = "Stop hanging on a tag whose expression ends with a trailing slash"
    assert shorten(title, max_words=9) == title
    assert shorten(title + " in long nested templates", max_words=9) == "Stop hanging on a tag"


def test_a_part_named_after_its_project_is_placed_by_its_own_name() -> None:
    """ "Try it in tool-sql", not "Try it in tool-sql in tool"."""
    feature = change(
        "Add support for the SQL `FILTER` clause",
        "crates/tool-sql/src/filter.rs",
        body="Aggregates can now skip rows without a subquery, as in PostgreSQL.",
    )
    (item,) = plan_items(feature)
    assert item.startswith("Try the SQL `FILTER` clause in tool-sql: the change adds"), item


def test_single_counts_share_a_sentence_with_one_one_and_articles_after() -> None:
    day = [
        change("feat: Add the export command", "src/cli.py", n=0),
        change("feat: Add the import command", "src/importer.py", n=1),
        change("feat: Add a json exporter", "src/json.py", n=2),
        change("Fix typo in the tutorial", "docs/tutorial.md", n=3),
        change("Bump ruff-like-lib from 1.0.0 to 1.0.1", "requirements.txt", n=4),
    ]
    told = " ".join(s.text for s in compose(day, config=config(), window=DAY).body)
    assert re.search(
        r"tool makes a documentation change \[\d\] and updates a dependency \[\d\]", told
    ), told
    assert "It makes one" not in told and "It updates one" not in told


def test_a_cut_never_ends_on_a_word_that_opens_a_clause() -> None:
    cut = shorten(
        "fixes a parser crash when a nested code block appears inside a list", max_words=4
    )
    assert cut == "fixes a parser crash"
    assert (
        shorten("drops the cache that a stale worker holds open", max_words=4) == "drops the cache"
    )


def test_counts_by_place_say_every_number_and_never_as_many() -> None:
    from digest.compose.counts import spread_over_places

    spread = spread_over_places([("PromQL", 2), ("the web", 1)], 1)
    assert spread == "two in PromQL, one in the web and one elsewhere"
    assert spread_over_places([("Arm", 3), ("CI", 1), ("Docs", 1)], 4) == (
        "three in Arm, one each in CI and Docs and four elsewhere"
    )


def test_a_back_out_counted_beyond_the_named_ones_is_one_change_whatever_it_absorbed() -> None:
    # one revert whose original landed in the window read "backs out two more changes [11]"
    # beside the lede's "in all, one change was backed out"
    feature = change("feat: add a retry budget to the client", n=1)
    back = change('Revert "feat: add a retry budget to the client"', n=2)
    [undo] = [e for e in classify([feature, back], config()) if e.kind == "revert"]
    assert undo.linked, "the revert absorbs the change it undoes"
    pick = ProjectPick(repo=TOOL.repo, units=(), extra=(), landed=2, topic_counts=())
    said = summary_sentences(
        pick,
        name="tool",
        openings=Openings(),
        max_topics=3,
        counted_extras=[Unit(lead=undo, score=1.0)],
    )
    assert any("backs out one more change" in s for s in said), said
