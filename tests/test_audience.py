"""Stories lead with what reaches a repository's users: releases, security fixes, then what
users see; internal work, housekeeping and back-outs of internal work are counted."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from functools import cache

import pytest

from digest.compose import compose
from digest.config import Project, WireConfig
from digest.model import Activity, FileChange, Story, Window
from digest.reading.audience import housekeeping_of
from digest.reading.classify import classify, classify_one
from digest.reading.releases import release_of
from digest.sources.replay import ReplaySource
from tests.digest_data import ACTIVITY, days_and_weeks, example_config

USERS = Project(repo="acme/widgets", name="widgets")
START = datetime(2026, 5, 4, tzinfo=UTC)


def change(
    title: str, *paths: str, body: str = "", n: int = 0, labels: tuple[str, ...] = ()
) -> Activity:
    return Activity(
        repo="acme/widgets",
        sha=f"{n:040x}",
        number=100 + n,
        title=title,
        body=body,
        landed_at=START + timedelta(hours=n),
        labels=labels,
        files=tuple(FileChange(path=p, additions=10, deletions=2) for p in paths or ("src/a.py",)),
    )


@pytest.mark.parametrize(
    ("title", "paths", "body", "expected"),
    [
        ("release: v8.0.16", ("packages/vite/package.json",), "", ((None, "8.0.16"),)),
        ("release: create-vite@9.1.0", ("x/package.json",), "", (("create-vite", "9.1.0"),)),
        ("chore(release): 1.2.3", ("package.json",), "", ((None, "1.2.3"),)),
        ("Release 0.19.0 (#3155)", ("setup.py",), "", ((None, "0.19.0"),)),
        ("Prepare release v2.14.0a1 (#13224)", ("HISTORY.md",), "", ((None, "2.14.0a1"),)),
        ("Bump version to 0.12.4", ("setup.py",), "", ((None, "0.12.4"),)),
        ("v1.2.3", ("package.json",), "", ((None, "1.2.3"),)),
        ("Widgets 1.42.1 (#28128)", ("py/pyproject.toml",), "", ((None, "1.42.1"),)),
        (
            "Version Packages (#18220)",
            (".changeset/a.md", "packages/widgets/CHANGELOG.md"),
            "# Releases\n## widgets@5.55.7\n\n### Patch Changes\n## @acme/kit@1.0.0\n",
            ((None, "5.55.7"), ("@acme/kit", "1.0.0")),
        ),
    ],
)
def test_release_commits_are_found_by_their_shape(
    title: str, paths: tuple[str, ...], body: str, expected: tuple
) -> None:
    event = classify_one(change(title, *paths, body=body), USERS)
    assert event.kind == "release" and event.release is not None
    assert event.release.versions == expected
    assert event.bump is None and not event.trivia


@pytest.mark.parametrize(
    "title",
    [
        "Bump version to 0.19.2.dev0 after release (#3178)",
        "chore(deps): update dependency esbuild to v0.28.1",
        "Bump requests from 2.32.4 to 2.33.0",
        "docs: Add Polars On-Prem 0.5.0 release",
        "Widgets 1.42.1",  # no version manifest among its files
    ],
)
def test_other_titles_with_versions_are_no_release(title: str) -> None:
    assert release_of(change(title, "src/a.py"), title, USERS.own_keys) is None


def test_a_move_to_a_development_version_is_housekeeping() -> None:
    dev = classify_one(
        change("Bump version to 0.19.2.dev0 after release", "setup.py", "src/w/__init__.py"),
        USERS,
    )
    assert dev.release is None and dev.trivia == "version"


@pytest.mark.parametrize(
    "paths",
    [
        ("playground/fs-serve/root/a.ts", "playground/fs-serve/__tests__/b.spec.ts"),
        ("packages/x/src/__tests__/a.spec.ts",),
        ("tests/unit/test_a.py", ".github/workflows/ci.yml"),
        ("scripts/release.sh", "benchmarks/run.py", "e2e/app.ts"),
        ("crates/core/src/a_test.go",),
        ("fuzzing/dictionary.txt", "benches/parse.rs"),
        (".claude/settings.json", ".agents/triage.md"),
        # any hidden folder or file at the top: a tool's, a bot's, a hook's settings
        (".flue/workflows/triage.ts",),
        (".vscode/settings.json", ".husky/pre-commit", ".editorconfig"),
    ],
)
def test_a_change_touching_only_tests_tooling_or_ci_is_internal(paths: tuple[str, ...]) -> None:
    assert classify_one(change("Make it faster", *paths), USERS).internal


def test_a_change_that_says_it_lives_in_ci_is_internal_with_the_manifests_its_jobs_use() -> None:
    # pydantic's "Use locked dependencies in CI": workflows, pyproject.toml and uv.lock
    ci = ("Use locked dependencies in CI", ".github/workflows/ci.yml", "pyproject.toml", "uv.lock")
    assert classify_one(change(*ci), USERS).internal
    # the manifest alone, with no word of CI, is what users install
    assert not classify_one(
        change("Use locked dependencies", "pyproject.toml", "uv.lock"), USERS
    ).internal
    # … and "in CI" beside source code does not make the code internal
    shipped = change("Fix the parser crash seen in CI", "src/widgets/parse.py", "uv.lock")
    assert not classify_one(shipped, USERS).internal


def test_a_fix_mostly_in_fixtures_is_user_visible_and_takes_its_topic_from_its_source() -> None:
    fix = change(
        "fix: reject windows alternate paths",
        "packages/vite/src/node/server/middlewares/static.ts",
        "playground/fs-serve/__tests__/commonTests.ts",
        "playground/fs-serve/root/src/index.html",
        "playground/fs-serve/root/vite.config-base.js",
    )
    event = classify_one(fix, USERS)
    assert not event.internal
    assert all("playground" not in t.lower() for t in event.topics)


def test_a_refactor_is_internal_but_nothing_is_for_a_maintainers_project() -> None:
    refactor = change("refactor(rust): Move Quantile to FunctionIRExpr", "crates/plan/src/a.rs")
    assert classify_one(refactor, USERS).internal
    maintained = USERS.model_copy(update={"audience": "maintainers"})
    assert not classify_one(change("Bump timeout", ".github/workflows/ci.yml"), maintained).internal


@pytest.mark.parametrize(
    ("title", "body", "labels"),
    [
        ("Merge commit from fork", "", ()),
        ("fix: avoid path traversal with optimize deps sourcemap handler", "", ()),
        ("Mitigate CVE-2026-31431 across all clusters", "", ()),
        ("fix(security): escape attribute names", "", ()),
        ("Escape attribute names", "", ("security",)),
        ("Escape attribute names", "See GHSA-f3cj-j4f6-wq85.", ()),
        ("fix: prevent XSS on hydratable", "", ()),
        # a security scope's change that skips something, not a check of it
        ("fix(security): skip symlinks outside the project root", "", ()),
        ("fix(security): skip the origin check", "Fixes GHSA-f3cj-j4f6-wq85.", ()),
    ],
)
def test_security_fixes_are_found_and_must_be_acted_on(
    title: str, body: str, labels: tuple[str, ...]
) -> None:
    event = classify_one(change(title, body=body, labels=labels), USERS)
    assert event.security and event.must_act and event.urgency == "immediate"


@pytest.mark.parametrize(
    "title",
    [
        "docs: explain XSS in templates",
        "test: add a path traversal case",
        "Add widgets",
        # the scope names the area; skipping or silencing a check there closes no hole
        "fix(security): skip allowedDomains header check for prerendered routes",
        "fix(security): silence the insecure-origin warning in dev",
    ],
)
def test_words_about_a_flaw_that_fix_none_are_no_security_fix(title: str) -> None:
    assert not classify_one(change(title), USERS).security


def test_an_internal_back_out_is_counted_not_watched() -> None:
    revert = classify_one(change('Revert "Add flaky test"', "tests/test_a.py"), USERS)
    assert revert.kind == "revert" and revert.internal
    assert not revert.must_act and revert.urgency is None
    user = classify_one(change('Revert "Add widgets"', "src/widgets.py"), USERS)
    assert user.must_act and user.urgency == "monitor"


def test_a_back_out_the_project_files_as_a_fix_asks_no_watching() -> None:
    # pytest's back-out with a `changelog/N.bugfix.rst` got a [monitor] item in four stories.
    title = 'Revert "Drop a special case of the parametrize hook"'
    filed = classify_one(change(title, "src/widgets/hooks.py", "changelog/91.bugfix.rst"), USERS)
    assert filed.kind == "revert" and not filed.must_act and filed.urgency is None
    bare = classify_one(change(title, "src/widgets/hooks.py"), USERS)
    assert bare.must_act and bare.urgency == "monitor"


def test_a_back_out_that_deletes_its_changes_changeset_undoes_what_no_user_got() -> None:
    # svelte's revert of a perf change deletes `.changeset/swift-sets-lookup.md`: no release
    # consumed it, so there is nothing to watch, wherever the change itself landed.
    revert = change('Revert "perf: use a Set for lookups"', "src/widgets/utils.js")
    entry = FileChange(path=".changeset/swift-sets.md", status="D", deletions=5)
    revert = revert.model_copy(update={"files": (*revert.files, entry)})
    event = classify_one(revert, USERS)
    assert event.kind == "revert" and event.withdrawn and event.urgency is None
    (linked,) = classify([revert], WireConfig(projects=(USERS,)))
    assert linked.withdrawn


def test_backing_out_ci_work_is_ci_work_whatever_else_it_touches() -> None:
    # astro's back-out of a preview-release workflow change got a [monitor] item: it also
    # touched the root manifest's scripts.
    files = (".github/workflows/preview.yml", "package.json")
    original = change("ci: preview release in a single job", *files)
    revert = change('Revert "preview release in a single job"', *files)
    revert = revert.model_copy(update={"sha": "b" * 40, "number": 2})
    assert not classify_one(revert, USERS).internal  # alone, its files say users see it
    events = classify([original, revert], WireConfig(projects=(USERS,)))
    (told,) = [e for e in events if e.kind == "revert"]
    assert told.internal and told.urgency is None


def test_a_back_out_relanded_in_the_window_is_told_as_such() -> None:
    activities = [
        change("Add widget cache", "src/cache.py", n=0),
        change('Revert "Add widget cache"', "src/cache.py", n=1),
        change('Reland "Add widget cache"', "src/cache.py", n=2),
        change("Add widget store", "src/store.py", n=3),
        change("Add widget shelf", "src/shelf.py", n=4),
    ]
    config = WireConfig(projects=(USERS,))
    events = classify(activities, config)
    revert = next(e for e in events if e.kind == "revert")
    assert revert.relanded and not revert.must_act and len(revert.linked) == 2
    assert not any(e.kind == "reland" for e in events)
    story = compose(
        activities, config=config, window=Window(since=START, until=START + timedelta(days=1))
    )
    text = " ".join(s.text for s in story.body)
    assert "briefly backs out and relands “Add widget cache”" in text
    assert not any(i.urgency == "monitor" for i in story.action_items)


def test_housekeeping_is_counted_on_a_day_too() -> None:
    activities = [
        change("Add widgets", n=0),
        change("Add gadgets", "src/g.py", n=1),
        change("Add sprockets", "src/s.py", n=2),
        change("Add cogs", "src/c.py", n=3),
        change("Update French translations", "docs/locales/fr/index.md", n=4),
        change("Update the changelog", "CHANGELOG.md", n=5),
    ]
    story = compose(
        activities, config=WireConfig(), window=Window(since=START, until=START + timedelta(days=1))
    )
    text = " ".join(s.text for s in story.body)
    # Counted in a clause of what was done, never by title.
    assert "French" not in text and "Update the changelog" not in text
    assert "updates translations" in text and "updates the changelog and release notes" in text
    assert story.checks is not None and story.checks.problems == ()


# ---------------------------------------------------------------- real windows


@cache
def _file(name: str) -> tuple[Activity, ...]:
    return tuple(ReplaySource(ACTIVITY / name).read_all())


def _week(name: str, monday: str) -> Story:
    since = datetime.fromisoformat(f"{monday}T00:00:00+00:00")
    return compose(
        _file(name),
        config=example_config(),
        window=Window(since=since, until=since + timedelta(days=7)),
    )


def test_svelte_leads_with_its_releases_and_the_security_fixes_they_ship() -> None:
    story = _week("sveltejs-svelte-2026-q2.jsonl", "2026-05-11")
    assert story.headline == "SVELTE 5.55.6 AND 5.55.7 ARE OUT WITH FOUR SECURITY FIXES"
    text = " ".join(s.text for s in story.body)
    assert "merges commit from fork" not in text and "versions Packages" not in text
    assert "prevents XSS on `hydratable` from user contents" in text
    [item] = [i for i in story.action_items if i.urgency == "immediate"]
    # the project is not configured, and its prose over the quarter writes "svelte" most
    assert item.text.startswith("Upgrade Svelte to 5.55.7 or later: it ships four security fixes")
    assert story.checks is not None and story.checks.problems == ()


def test_vite_leads_with_its_release_and_files_the_traversal_fix_under_no_playground() -> None:
    story = _week("vitejs-vite-2026-q2.jsonl", "2026-06-01")
    assert story.headline.startswith("VITE 8.0.15 AND 8.0.16 ARE OUT")
    assert all("playground" not in s.heading.lower() for s in story.sections)
    first = story.body[0].text
    assert (
        first.startswith("Vite 8.0.15 and 8.0.16 are out")
        and "rejects windows alternate paths" in first
    )
    assert story.checks is not None and story.checks.problems == ()


def test_a_security_fix_is_pinned_on_the_release_that_ships_it_not_on_all_of_the_day() -> None:
    # Vite 8.0.4 and create-vite 9.0.4 came out before the traversal fix; 8.0.5 after it.
    since = datetime.fromisoformat("2026-04-06T00:00:00+00:00")
    day = Window(since=since, until=since + timedelta(days=1))
    story = compose(_file("vitejs-vite-2026-q2.jsonl"), config=example_config(), window=day)
    first = story.body[0].text
    number = {r.title: r.n for r in story.references}
    fixed_in = number["release: v8.0.5"]
    assert f"; 8.0.5 ships a security fix [{fixed_in}]." in first, first
    before = first.partition(";")[0]
    assert f"[{fixed_in}]" not in before and f"[{number['release: v8.0.4']}]" in before
    # and the lede says which of the day's releases carries it
    assert "8.0.4, 8.0.5 and create-vite 9.0.4, 8.0.5 with a security fix" in story.lede
    assert story.checks is not None and story.checks.problems == ()


def test_polars_names_no_internal_refactor_while_users_got_features() -> None:
    story = _week("pola-rs-polars-2026-q2.jsonl", "2026-05-04")
    titles = {r.title for r in story.references}
    assert not any(t.startswith("refactor") for t in titles), titles
    assert "LazyFrame.gather" in story.headline or "`over`" in story.headline
    assert story.checks is not None and story.checks.problems == ()


def test_a_reland_with_a_cut_or_longer_title_still_folds_its_back_out() -> None:
    activities = [
        change('Revert "PyTorch 2.12 pin bump"', "install_requirements.py", n=0),
        change("Reapply PyTorch 2.12 pin with CI fixes", "install_requirements.py", n=1),
        change('Revert "Qualcomm - heap profiling at runtime with HTP backend"', "src/q.py", n=2),
        change('Revert "Revert "Qualcomm - heap profiling at runtime…', "src/q.py", n=3),
    ]
    events = classify(activities, WireConfig(projects=(USERS,)))
    assert [e.kind for e in events] == ["revert", "revert"]
    assert all(e.relanded and not e.must_act for e in events)


def test_backing_out_docs_or_hardening_ci_asks_nothing_of_users() -> None:
    docs = classify_one(change('Revert "Update iOS docs for 1.0"', "docs/ios.md"), USERS)
    assert docs.kind == "revert" and docs.urgency is None
    hardening = change("SEC Add 7 day cooldown to Dependabot", ".github/dependabot.yml")
    assert not classify_one(hardening, USERS).security


def test_a_week_of_many_releases_names_the_latest_and_counts_them() -> None:
    story = _week("vitejs-vite-2026-q2.jsonl", "2026-05-11")
    assert story.headline == "VITE 8.0.12 AND 8.0.13 ARE OUT"
    assert "four releases in all" in " ".join(s.text for s in story.body)
    assert story.checks is not None and story.checks.problems == ()


@pytest.mark.parametrize("month", [4, 5, 6])
def test_a_month_of_each_project_passes_the_checks_and_reads_its_releases(month: int) -> None:
    """A month holds many releases of one project: their count is the story's own ("vite
    8.0.4 to 8.0.10 … are out, 10 releases in all"), and their sentence keeps the project's
    name before the versions ("svelte 5.55.2 to 5.55.5 are out", never "it 5.55.2 …")."""
    span = Window(
        since=datetime(2026, month, 1, tzinfo=UTC), until=datetime(2026, month + 1, 1, tzinfo=UTC)
    )
    for path in sorted(ACTIVITY.glob("*.jsonl")):
        story = compose(_file(path.name), config=example_config(), window=span)
        assert story.checks is not None and story.checks.problems == (), path.name
        for sentence in story.body:
            assert not re.search(r"\b(it|the project) v?\d", sentence.text, re.I), sentence.text


def _every_window() -> list[tuple[str, tuple[Activity, ...], Window]]:
    """Every UTC day and Monday-to-Monday week of every activity file."""
    return [
        (path.name, activities, span)
        for path in sorted(ACTIVITY.glob("*.jsonl"))
        for activities in [_file(path.name)]
        for span in days_and_weeks(activities)
    ]


def test_across_the_corpus_releases_are_told_and_internal_work_never_leads() -> None:
    from digest.rank import rank
    from digest.select import group_units

    faults = []
    for name, activities, span in _every_window():
        inside = [a for a in activities if span.contains(a.landed_at)]
        if not inside:
            continue
        events = classify(inside, example_config())
        story = compose(activities, config=example_config(), window=span)
        label = f"{name} {span.label()}"
        cited = {r.sha for r in story.references}
        for event in events:
            if event.release is not None and event.activity.sha not in cited:
                # Named, or counted: "vite 8.0.4 to 8.0.8 … are out, six releases in all".
                versions = [v for _, v in event.release.versions]
                told = " ".join([story.headline, story.lede, *(s.text for s in story.body)])
                counted = re.search(r"\b(\w+) releases in all\b", told)
                if not (versions and any(v in told for v in versions)) and not counted:
                    faults.append(f"{label}: release {event.activity.title} untold")
        picks = group_units(rank(events), per_project=5)
        lead = picks[0].lead.lead
        visible = [e for e in events if not e.internal and e.bump is None and e.trivia is None]
        if lead.internal and visible:
            faults.append(f"{label}: internal {lead.activity.title} leads")
        backed_out = lead.kind == "revert" and not lead.relanded
        if backed_out and lead.internal and visible:
            faults.append(f"{label}: an internal back-out leads")
    assert faults == [], "\n".join(faults)


def test_a_source_can_feed_releases_in_as_tags() -> None:
    from digest.reading.releases import tag_activity

    assert tag_activity("acme/widgets", "nightly", START) is None
    tag = tag_activity("acme/widgets", "v1.4.0", START + timedelta(hours=5))
    other = tag_activity("acme/widgets", "widgets-cli@2.0.0", START + timedelta(hours=6))
    assert tag is not None and other is not None
    commit = change("release: v1.4.0", "package.json", n=4)
    config = WireConfig(projects=(USERS,))
    events = classify([commit, tag, other, change("Add widgets", n=1)], config)
    releases = [e for e in events if e.release is not None]
    # The release commit tells v1.4.0; the tag of a version no commit tells stays.
    assert sorted(e.activity.title for e in releases) == ["release: v1.4.0", "widgets-cli@2.0.0"]
    assert [e.release.versions for e in releases if e.activity is other] == [
        (("widgets-cli", "2.0.0"),)
    ]
    assert other.link == "https://github.com/acme/widgets/releases/tag/widgets-cli@2.0.0"


@pytest.mark.parametrize(
    ("title", "paths", "internal", "security", "trivia"),
    [
        ("TST FIX Make test pass with more than 2 accelerators", ("src/a.py",), True, False, None),
        ("FIX CI Remove invalid arg in nightly GPU test call", ("src/a.py",), True, False, None),
        ("CI GPU run: Remove gptmodel from Dockerfile", ("docker/Dockerfile",), True, False, None),
        ("Fix Cadence test failures", ("backends/c/runtime.py", "tests/t.py"), True, False, None),
        ("Add a test helper for fixtures", ("src/helpers.py",), False, False, None),
        (
            "Run RISC-V tests with multiple RVV QEMU configurations",
            (".ci/scripts/test_riscv.sh", "backends/xnnpack/CMakeLists.txt"),
            True,
            False,
            None,
        ),
        ("Enable backend test suite + x86 CI", ("backends/webgpu/setup.py",), True, False, None),
        ("Enable test mode in the CLI", ("src/cli.py",), False, False, None),
        ("testing: ignore warnings from a helper", ("pyproject.toml",), True, False, None),
        ("Revert PyTorch 2.12 pin bump", (".ci/pins.txt", "setup.py"), True, False, None),
        ("Out-of-bounds read in validateTensorLayout", ("runtime/t.cpp",), False, True, None),
        (
            "Fix integer overflow in data loader bounds checks",
            ("runtime/d.cpp",),
            False,
            True,
            None,
        ),
        ("fix: avoid stack overflow on `hot.invalidate()`", ("src/hmr.ts",), False, False, None),
        ("Fix out_of_bounds_read in parse_header", ("runtime/h.cpp",), False, True, None),
        ("chore: dedupe dependencies", ("pnpm-lock.yaml",), False, False, "housekeeping"),
        (
            "chore: enable pnpm v11 defaults",  # the bot's settings and the package manager's
            (".github/renovate.json5", "pnpm-workspace.yaml"),
            True,
            False,
            "housekeeping",
        ),
        (
            "chore: Disable mypy type checking for `pyarrow` calls",
            ("src/frame.py",),
            False,
            False,
            "lint",
        ),
        ("chore: migrate to Oxfmt", ("src/a.ts", "src/b.ts"), False, False, "lint"),
        ("Documentation re-structure", ("docs/a.md", "src/a.py"), False, False, "docs"),
        # a rework by its wording, with no type word to say so
        ("code: minor code cleanup to `Parser`", ("src/parser.py",), True, False, None),
        ("Remove unused argument `strict` of `_load`", ("src/load.py",), True, False, None),
        ("Drop dead code in the resolver", ("src/resolve.py",), True, False, None),
        ("Remove unused options from the CLI", ("src/cli.py",), False, False, None),
        ("Remove deprecated `strict` argument", ("src/load.py",), False, False, None),
        # one branch merged into another: plumbing, whatever it carries
        ("Merge main into next", ("src/a.ts", "src/b.ts"), False, False, "housekeeping"),
        ("Merge branch 'main' into next", ("src/a.ts",), False, False, "housekeeping"),
        ("Merge sort helpers into the table module", ("src/a.ts",), False, False, None),
        # a changeset's settings are no changelog: astro's exit from pre mode, `baseBranch`
        ("chore: exit prerelease mode", (".changeset/pre.json",), True, False, None),
        ("Add a changeset for the fix", (".changeset/brave-cats.md",), False, False, "changelog"),
        # prose about a version is documentation, no dependency update
        ("docs: update tox python version to 3.12", ("doc/dev/env.rst",), False, False, "docs"),
        # links to the docs, in code and prose alike: pydantic's "Update documentation links"
        # led a fortnight as "PYDANTIC UPDATES DOCUMENTATION LINKS"
        ("Update documentation links", ("README.md", "src/a.py"), False, False, "docs"),
        # tests with the toolchain they run on: axum's "use a more recent nightly for
        # axum-macros tests" (`rust-toolchain` and test snapshots) led a fortnight
        (
            "chore: use a more recent nightly for macro tests",
            ("macros/rust-toolchain", "macros/tests/fail/x.stderr"),
            True,
            False,
            None,
        ),
        ("Fix dead link to the API reference", ("src/errors.py",), False, False, "docs"),
        ("Fix link handling in the router", ("src/router.py",), False, False, None),
        # how the source is written down: line endings, trailing whitespace
        ("Replace CRLF with LF in the generator", ("src/gen/a.c",), False, False, "lint"),
        ("Strip trailing whitespace from the parser", ("src/parse.c",), False, False, "lint"),
        # the project's own version moved beside its VERSION file: no dependency update
        (
            "bump UI version",
            ("VERSION", "web/ui/package.json", "web/ui/package-lock.json"),
            False,
            False,
            "version",
        ),
        # a typo in old release notes, its title's subject after a colon
        (
            "Fix typo in release notes: 'have have' → 'have'",
            ("doc/release/1.2.0-notes.rst",),
            False,
            False,
            "docs",
        ),
    ],
)
def test_who_a_change_reaches_is_read_from_its_title_and_paths(
    title: str, paths: tuple[str, ...], internal: bool, security: bool, trivia: str | None
) -> None:
    event = classify_one(change(title, *paths), USERS)
    assert (event.internal, event.security, event.trivia) == (internal, security, trivia)


def test_a_title_that_updates_to_a_package_version_is_a_dependency_update() -> None:
    event = classify_one(change("Update to PyO3 0.29", "Cargo.toml", "Cargo.lock"), USERS)
    assert event.kind == "bump" and event.bump is not None and not event.bump.stands_alone


def test_the_maintainers_own_tests_are_internal_even_where_ci_is_the_product() -> None:
    ci = Project(repo="acme/widgets", name="widgets", audience="maintainers")
    load = change("Exclude GPUs from load tests", "osdc/integration-tests/load/run.py")
    assert classify_one(load, ci).internal
    gate = change("Split pre-merge CI into fast and slow gates", ".github/workflows/pr.yml")
    assert not classify_one(gate, ci).internal


def test_where_tests_now_run_is_news_only_where_ci_is_the_product() -> None:
    title, paths = "Run ROCm tests on the MI300 runners", (".github/workflows/rocm.yml", "src/a.py")
    ci = Project(repo="acme/widgets", name="widgets", audience="maintainers")
    assert not classify_one(change(title, *paths), ci).internal
    assert classify_one(change(title, *paths), USERS).internal


def test_a_security_fix_no_release_ships_yet_is_watched_not_an_interruption() -> None:
    since = datetime.fromisoformat("2026-04-01T00:00:00+00:00")
    story = compose(
        _file("pytorch-executorch-2026-q2.jsonl"),
        config=example_config(),
        window=Window(since=since, until=since + timedelta(days=1)),
    )
    assert not any(i.urgency == "immediate" for i in story.action_items)
    [item] = [i for i in story.action_items if "security fix" in i.text]
    assert item.urgency == "monitor"
    assert item.text.startswith("Upgrade ExecuTorch once a release carries this security fix: it")
    assert story.checks is not None and story.checks.problems == ()


@pytest.mark.parametrize(
    ("title", "said"),
    [
        ("docs: Add Polars On-Prem 0.5.0 release", "changelog"),
        ("vite 8.1 post", "changelog"),
        ("Add alice as the 2.7 release manager", None),  # who runs a release: no notes
        ("chore: volunteer for release shepherd of 3.14", "housekeeping"),  # the rota
    ],
)
def test_a_document_that_writes_up_a_release_is_its_notes_and_one_on_who_runs_it_is_not(
    title: str, said: str | None
) -> None:
    event = classify_one(change(title, "RELEASE.md", "docs/blog/release.md"), USERS)
    assert event.trivia == said or (said is None and event.trivia != "changelog"), event.trivia


def test_a_docs_change_that_names_versions_is_no_update_but_a_docs_bump_is() -> None:
    prose = classify_one(
        change("docs: update tox python from 3.9 to 3.12", "doc/dev/env.rst"), USERS
    )
    assert (prose.kind, prose.bump) == ("docs", None)
    pinned = classify_one(
        change("docs: bump sphinx from 7.1 to 7.2", "docs/requirements.txt"), USERS
    )
    assert pinned.kind == "bump" and pinned.bump is not None


@pytest.mark.parametrize(
    "path",
    ["deny.toml", "clippy.toml", ".pre-commit-config.yaml", "eslint.config.js", "biome.json"],
)
def test_a_checkers_own_settings_are_housekeeping(path: str) -> None:
    # "polars updates `deny.toml` configuration" was told under "Other changes"
    event = classify_one(change(f"chore: update {path} configuration", path), USERS)
    assert event.trivia in ("housekeeping", "lint")  # both counted in every window


@pytest.mark.parametrize(
    "path", ["release-plz.toml", "release-please-config.json", "cliff.toml", ".goreleaser.yml"]
)
def test_the_release_toolings_own_settings_are_housekeeping(path: str) -> None:
    # "AXUM WRITES CHANGELOGS MANUALLY" made a release-plz setting the day's headline
    event = classify_one(change("write changelogs manually", path), USERS)
    assert event.trivia == "housekeeping"


@pytest.mark.parametrize(
    ("title", "internal", "trivia"),
    [
        ("Retrigger CI", True, None),  # an empty commit that runs CI again
        ("chore: update comments", False, "docs"),
        ("tsdb: add TODOs for ST-in-WAL work", False, "docs"),
        ("Fix the comment parser", False, None),  # a parser of comments is code
    ],
)
def test_comments_and_ci_reruns_are_no_news(title: str, internal: bool, trivia: str | None) -> None:
    event = classify_one(change(title, "src/a.go"), USERS)
    assert (event.internal, event.trivia) == (internal, trivia)


def test_a_typo_in_the_notes_or_a_changeset_beside_a_docs_fix_is_no_changelog_update() -> None:
    # "updates the changelog and release notes [13]" for README links and a doubled word
    assert housekeeping_of("Fix typo in the changelog", ["CHANGELOG.md"]) is None
    readme = ["packages/widgets/README.md", ".changeset/brave-owls.md"]
    assert housekeeping_of("docs: replace stale repository links", readme) is None
    assert housekeeping_of("Update the changelog for 2.1", ["CHANGELOG.md"]) == "changelog"


def test_a_security_update_of_a_dependency_is_told_as_an_update_not_a_fix_of_ours() -> None:
    bump = change("Update module golang.org/x/net to v0.55.0 [SECURITY]", "go.mod", "go.sum", n=1)
    fix = change("fix: escape slot names in hydration attributes", "src/slots.ts", n=2)
    story = compose(
        [bump, fix],
        config=WireConfig(projects=(USERS,)),
        window=Window(since=START, until=START + timedelta(days=1)),
    )
    text = " ".join(s.text for s in story.body)
    assert "golang.org/x/net to v0.55.0, a security update" in text, text
    assert "a security fix" not in text.split("golang.org/x/net")[1].split(".")[0]
