"""Releases by version, whatever the commit is called (issue #28, item 3).

A release is read from the shapes release tooling leaves ("chore: prepare Tokio v1.53.1",
"Bump 0.16.1", "🔖 Release version 0.140.0", "[ci] release", "axum-core 0.5.6", …), is never
counted as internal work, names every version it publishes in the headline or the lede, and
carries only the changes of its own product that landed before it.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path

import pytest

from digest.compose import compose
from digest.config import Project, WireConfig
from digest.model import Activity, FileChange, Story, Window
from digest.rank import RELEASE, carried, tier
from digest.reading.classify import classify, classify_one
from digest.reading.releases import release_of, stated_breaking
from digest.reading.shipping import is_own_change
from digest.reading.titles import split_title
from digest.sources.replay import ReplaySource
from tests.digest_data import ACTIVITY, DATA, days_and_weeks, example_config

START = datetime(2026, 5, 4, tzinfo=UTC)
AXUM_DAY = DATA / "releases" / "tokio-rs-axum-2026-04-03.jsonl"  # from the axum tuning file


def change(
    repo: str, title: str, *paths: str, n: int = 0, body: str = "", added: int = 1
) -> Activity:
    return Activity(
        repo=repo,
        sha=hashlib.sha1(f"{repo} {title} {n}".encode()).hexdigest(),
        number=100 + n,
        title=title,
        body=body,
        landed_at=START + timedelta(hours=n),
        files=tuple(FileChange(path=p, additions=added, deletions=1) for p in paths),
    )


def config(repo: str) -> WireConfig:
    return WireConfig(projects=(Project(repo=repo, name=repo.split("/")[1]),))


def story(activities: list[Activity], *, days: int = 1) -> Story:
    window = Window(since=START, until=START + timedelta(days=days))
    return compose(activities, config=config(activities[0].repo), window=window)


CHANGESETS_BODY = (
    "This PR was opened by the Changesets release GitHub action.\n\n# Releases\n"
    "## astro@5.12.3\n\n### Patch Changes\n\n- Fixes a thing\n\n"
    "## @astrojs/node@9.4.1\n\n### Patch Changes\n\n- Updated dependencies\n"
)
RELEASE_PLZ_BODY = (
    "## 🤖 New release\n\n* `axum`: 0.8.9 -> 0.8.10 (✓ API compatible changes)\n"
    "* `axum-core`: 0.5.6 -> 0.5.7 (✓ API compatible changes)\n"
)


@pytest.mark.parametrize(
    ("repo", "title", "paths", "body", "versions", "packages"),
    [
        (
            "tokio-rs/tokio",
            "chore: prepare Tokio v1.53.1 (#7801)",
            ("tokio/Cargo.toml", "tokio/CHANGELOG.md", "README.md"),
            "",
            ((None, "1.53.1"),),
            (),
        ),
        (
            "tokio-rs/tokio",
            "chore: prepare tokio-stream v0.1.19 (#7802)",
            ("tokio-stream/Cargo.toml", "tokio-stream/CHANGELOG.md"),
            "",
            (("tokio-stream", "0.1.19"),),
            (),
        ),
        (
            "astral-sh/ruff",
            "Bump 0.16.1 (#21000)",
            ("pyproject.toml", "crates/ruff/Cargo.toml", "CHANGELOG.md"),
            "",
            ((None, "0.16.1"),),
            (),
        ),
        (
            "fastapi/fastapi",
            "🔖 Release version 0.140.0",
            ("fastapi/__init__.py", "docs/en/docs/release-notes.md"),
            "",
            ((None, "0.140.0"),),
            (),
        ),
        ("acme/widgets", "4.3.3 (#20334)", ("package.json",), "", ((None, "4.3.3"),), ()),
        (
            "withastro/astro",
            "[ci] release (#14000)",
            ("packages/astro/CHANGELOG.md", "packages/integrations/node/CHANGELOG.md"),
            CHANGESETS_BODY,
            ((None, "5.12.3"), ("@astrojs/node", "9.4.1")),
            (),
        ),
        (  # in changesets' pre mode
            "withastro/astro",
            "[ci] release (beta) (#14001)",
            ("packages/astro/CHANGELOG.md",),
            "# Releases\n## astro@6.0.0-beta.2\n\n### Patch Changes\n\n- Fix it\n",
            ((None, "6.0.0-beta.2"),),
            (),
        ),
        (  # no headings to read: the packages whose changelogs it writes, versions unknown
            "withastro/astro",
            "ci: release",
            ("packages/astro/CHANGELOG.md", "packages/integrations/node/CHANGELOG.md"),
            "",
            (),
            (None, "node"),
        ),
        (
            "pytest-dev/widgets",
            "Prepare release version 9.1.0 (#13000)",
            ("doc/en/changelog.rst", "src/widgets/_version.py"),
            "",
            ((None, "9.1.0"),),
            (),
        ),
        ("numpy/widgets", "REL: 2.3.0", ("pavement.py",), "", ((None, "2.3.0"),), ()),
        (
            "numpy/widgets",
            "REL: Prepare 2.3.0 release",
            ("doc/changelog/2.3.0-changelog.rst",),
            "",
            ((None, "2.3.0"),),
            (),
        ),
        (
            "numpy/numpy",
            "REL: Prepare for the NumPy 2.3.1 release [wheel build]",
            ("pyproject.toml", "doc/source/release/2.3.1-notes.rst"),
            "",
            ((None, "2.3.1"),),
            (),
        ),
        ("acme/widgets", "Cut v3.5.0-rc.0", ("VERSION",), "", ((None, "3.5.0-rc.0"),), ()),
        (
            "tokio-rs/axum",
            "axum 0.8.9",
            ("Cargo.lock", "axum-extra/Cargo.toml", "axum/Cargo.toml"),
            "",
            ((None, "0.8.9"),),
            (),
        ),
        (
            "tokio-rs/axum",
            "axum-core 0.5.6",
            ("Cargo.lock", "axum-core/Cargo.toml", "axum/Cargo.toml"),
            "",
            (("axum-core", "0.5.6"),),
            (),
        ),
        (
            "tokio-rs/axum",
            "axum-macros 0.5.1",
            ("Cargo.lock", "axum-macros/Cargo.toml", "axum/Cargo.toml"),
            "",
            (("axum-macros", "0.5.1"),),
            (),
        ),
        (
            "pola-rs/polars",
            "release pyo3-polars (#27931)",
            ("Cargo.lock", "Cargo.toml", "pyo3-polars/pyo3-polars/Cargo.toml"),
            "",
            (),
            ("pyo3-polars",),
        ),
        (
            "tokio-rs/axum",
            "chore: release (#3800)",
            ("axum/CHANGELOG.md", "axum/Cargo.toml", "axum-core/Cargo.toml"),
            RELEASE_PLZ_BODY,
            ((None, "0.8.10"), ("axum-core", "0.5.7")),
            (),
        ),
    ],
)
def test_a_release_is_read_from_the_shape_its_tooling_leaves(
    repo: str,
    title: str,
    paths: tuple[str, ...],
    body: str,
    versions: tuple[tuple[str | None, str], ...],
    packages: tuple[str | None, ...],
) -> None:
    event = classify_one(change(repo, title, *paths, body=body), config(repo).project(repo))
    assert event.kind == "release" and event.release is not None, title
    assert (event.release.versions, event.release.packages) == (versions, packages)
    # Never folded away: not internal work, not housekeeping, not a dependency bump.
    assert not event.internal and event.trivia is None and event.bump is None
    assert tier(event) == RELEASE and not event.ci_gate


@pytest.mark.parametrize(
    ("title", "paths"),
    [
        ("Bump requests from 2.32.4 to 2.33.0", ("pyproject.toml",)),
        ("Bump foo to 1.3", ("pyproject.toml",)),
        ("chore(deps): update dependency esbuild to v0.28.1", ("package.json",)),
        ("python 3.14", ("pyproject.toml",)),  # a name before a version, no folder of it
        ("Python 3.14", ("pyproject.toml",)),
        ("Prepare for Python 3.14", ("pyproject.toml",)),
        ("tokio-stream 0.1.19", ("Cargo.toml",)),  # no tokio-stream folder
        ("widgets 1.4.0", ("src/widgets/app.py",)),  # no version manifest among the files
        ("release notes", ("docs/release-notes.md",)),
        ("chore: release", ("src/a.py",)),  # nothing it publishes
        ("Bump version to 0.19.2.dev0 after release", ("setup.py",)),
        ("REL: Begin 2.4.0 development", ("pyproject.toml",)),
        ("Cut down the startup time by 1.5", ("src/a.py",)),
    ],
)
def test_titles_with_versions_that_publish_nothing_are_no_release(
    title: str, paths: tuple[str, ...]
) -> None:
    activity = change("acme/widgets", title, *paths)
    assert release_of(activity, split_title(title).subject, frozenset({"widgets"})) is None


def test_release_notes_count_the_breaking_changes_they_list() -> None:
    notes = (
        "## 0.12.0\n\n### Breaking changes\n\n- Drop Python 3.8\n- Rename `--foo`\n"
        "  (a second line of the item)\n- Remove `bar`\n\n### Bug fixes\n\n- Fix baz\n"
        "\n## astro@6.0.0\n\n### Major Changes\n\n- Remove the legacy API\n"
    )
    assert stated_breaking(notes) == 4
    assert stated_breaking("### Bug fixes\n\n- Fix baz\n") == 0


@cache
def _axum_day() -> tuple[Activity, ...]:
    return tuple(ReplaySource(AXUM_DAY).read_all())


def test_the_real_release_commits_of_the_tuning_files_are_releases() -> None:
    events = classify(_axum_day(), example_config())
    found = {e.activity.title: e.release.versions for e in events if e.release is not None}
    assert found == {
        "axum 0.8.9": ((None, "0.8.9"),),
        "axum-core 0.5.6": (("axum-core", "0.5.6"),),
        "axum-extra 0.12.6": (("axum-extra", "0.12.6"),),
        "axum-macros 0.5.1": (("axum-macros", "0.5.1"),),
    }
    polars = ReplaySource(ACTIVITY / "pola-rs-polars-2026-q2.jsonl").read_all()
    [pyo3] = [a for a in polars if a.title.startswith("release pyo3-polars")]
    [event] = classify([pyo3], example_config())
    assert event.release is not None and event.release.packages == ("pyo3-polars",)


def test_a_day_of_four_crate_releases_names_each_by_version() -> None:
    window = Window(since=datetime(2026, 4, 3, tzinfo=UTC), until=datetime(2026, 4, 4, tzinfo=UTC))
    told = compose(_axum_day(), config=example_config(), window=window)
    assert told.headline == "AXUM SHIPS FOUR RELEASES, AXUM 0.8.9 AMONG THEM"
    for version in ("0.8.9", "axum-core 0.5.6", "axum-macros 0.5.1", "axum-extra 0.12.6"):
        assert version in told.lede, told.lede
    assert told.checks is not None and told.checks.problems == ()


def test_a_prepared_release_is_out_not_prepared() -> None:
    told = story(
        [
            change("tokio-rs/tokio", "fix: avoid a panic in the timer wheel", "tokio/src/t.rs"),
            change(
                "tokio-rs/tokio",
                "chore: prepare Tokio v1.53.1 (#7801)",
                "tokio/Cargo.toml",
                "tokio/CHANGELOG.md",
                n=2,
            ),
        ]
    )
    assert told.headline == "TOKIO 1.53.1 IS OUT"
    assert "prepare" not in (told.headline + told.lede).lower()


def test_a_bare_bump_of_the_version_is_the_release_not_a_bump() -> None:
    told = story([change("astral-sh/ruff", "Bump 0.16.1 (#21000)", "pyproject.toml")])
    assert told.headline == "RUFF 0.16.1 IS OUT"


def test_a_run_of_one_products_releases_is_a_range() -> None:
    runs = [
        change("fastapi/fastapi", f"🔖 Release version 0.140.{i}", "fastapi/__init__.py", n=i * 40)
        for i in range(14)
    ]
    told = story(runs, days=28)
    assert told.headline == "FASTAPI 0.140.0 TO 0.140.13 ARE OUT"
    assert "0.140.0 to 0.140.13" in told.lede
    assert "14 releases in all" in " ".join(s.text for s in told.body)


def test_a_changesets_release_of_many_packages_is_counted_and_each_named() -> None:
    packages = ["node", "react", "vue", "svelte", "mdx", "sitemap", "vercel", "netlify"]
    body = "# Releases\n## astro@5.12.3\n\n### Patch Changes\n\n- Fix it\n\n" + "".join(
        f"## @astrojs/{p}@{i + 1}.0.{i}\n\n### Patch Changes\n\n- Updated dependencies\n\n"
        for i, p in enumerate(packages)
    )
    paths = [f"packages/integrations/{p}/CHANGELOG.md" for p in packages]
    told = story(
        [
            change("withastro/astro", "fix(node): handle trailing slashes", *paths[:1], n=1),
            change("withastro/astro", "[ci] release (#14000)", *paths, body=body, n=2),
        ]
    )
    assert told.headline == "ASTRO SHIPS NINE RELEASES, ASTRO 5.12.3 AMONG THEM"
    assert "5.12.3" in told.lede and "`@astrojs/netlify` 8.0.7" in told.lede
    assert "internal" not in told.lede
    assert told.checks is not None and told.checks.problems == ()


def test_a_release_counts_the_breaking_changes_its_notes_list() -> None:
    notes = "### Breaking changes\n\n" + "".join(f"- Change {i} breaks it\n" for i in range(6))
    told = story([change("astral-sh/uv", "Bump version to 0.12.0", "pyproject.toml", body=notes)])
    assert told.headline == "UV 0.12.0 IS OUT WITH SIX BREAKING CHANGES"
    [item] = told.action_items
    assert "its notes list six breaking changes" in item.text


VITE = "vitejs/vite"


def test_a_release_carries_only_its_own_products_changes_that_landed_before_it() -> None:
    vite_fix = change(VITE, "fix: reject windows alternate paths", "packages/vite/src/a.ts", n=1)
    template = change(VITE, "fix(create-vite): use type=button", "packages/create-vite/t.ts", n=2)
    create = change(
        VITE,
        "release: create-vite@9.1.0",
        "packages/create-vite/CHANGELOG.md",
        "packages/create-vite/package.json",
        n=3,
        added=6,
    )
    later = change(VITE, "fix: handle the later case", "packages/vite/src/b.ts", n=5)
    vite = change(
        VITE,
        "release: v8.1.0",
        "packages/vite/CHANGELOG.md",
        "packages/vite/package.json",
        n=4,
        added=6,
    )
    events = classify([vite_fix, template, create, vite, later], config(VITE))
    shipped = {sha: {e.activity.title for e in found} for sha, found in carried(events).items()}
    assert shipped[create.sha] == {template.title}
    assert shipped[vite.sha] == {vite_fix.title}


def test_a_release_that_consumes_changesets_carries_the_changes_that_added_them() -> None:
    astro = "withastro/astro"

    def with_changeset(title: str, name: str, status: str, n: int) -> Activity:
        made = change(astro, title, "packages/astro/src/core/x.ts", n=n)
        entry = FileChange(path=f".changeset/{name}.md", status=status, additions=3)
        return made.model_copy(update={"files": (*made.files, entry)})

    fix = with_changeset("fix: escape slot names", "escape-slot-names", "A", 1)
    feature = with_changeset("feat: add a markdown processor API", "markdown-api", "A", 2)
    unnoted = change(astro, "fix: keep the toolbar open", "packages/astro/src/t.ts", n=3)
    release = change(astro, "[ci] release (#100)", "packages/astro/CHANGELOG.md", n=4)
    release = release.model_copy(
        update={
            "files": (
                *release.files,
                FileChange(path=".changeset/escape-slot-names.md", status="D", deletions=3),
            )
        }
    )
    events = classify([fix, feature, unnoted, release], config(astro))
    shipped = {sha: {e.activity.title for e in found} for sha, found in carried(events).items()}
    # astro's #16885 carried two changesets, yet a story credited it with a feature of the
    # same days whose changeset waited for a later release. A change that wrote none is
    # shipped all the same: the release publishes the tree it landed in.
    assert shipped[release.sha] == {fix.title, unnoted.title}


def test_a_release_names_whose_change_it_ships_beside_another_products_release() -> None:
    days = [
        s
        for s in _vite_days()
        if "create-vite 9.0.6" in s.lede and "create-vite 9.0.6 with a fix that" in _text(s)
    ]
    assert days, "the create-vite template fix is told as create-vite's"
    assert all(", with a fix that uses `type=" not in _text(s) for s in _vite_days())


@cache
def _vite_days() -> tuple[Story, ...]:
    activities = tuple(ReplaySource(ACTIVITY / "vitejs-vite-2026-q2.jsonl").read_all())
    days = [datetime(2026, 4, 23, tzinfo=UTC), datetime(2026, 4, 20, tzinfo=UTC)]
    windows = [
        Window(since=d, until=d + timedelta(days=7 if d.weekday() == 0 else 1)) for d in days
    ]
    return tuple(compose(activities, config=example_config(), window=w) for w in windows)


def _text(told: Story) -> str:
    return " ".join(s.text for s in told.body)


def test_a_change_to_several_packages_is_no_change_to_the_project_itself() -> None:
    # "…, with a change to Astro that fixes …" of a "fix(cloudflare,svelte)" change
    widgets = "acme/widgets"
    cut = change(
        widgets,
        "[ci] release (#14000)",
        "packages/integrations/cloudflare/CHANGELOG.md",
        "packages/integrations/svelte/CHANGELOG.md",
        "packages/widgets/CHANGELOG.md",
        n=5,
    )
    both = change(
        widgets,
        "fix(cloudflare,svelte): keep props on hydration",
        "packages/integrations/cloudflare/src/a.ts",
        "packages/integrations/svelte/src/b.ts",
        n=1,
    )
    core = change(widgets, "fix: keep the toolbar open", "packages/widgets/src/c.ts", n=2)
    events = classify([cut, both, core], config(widgets))
    releases = [e for e in events if e.release is not None]
    told = {e.activity.sha: is_own_change(e, releases) for e in events if e.release is None}
    assert told == {both.sha: False, core.sha: True}


def test_a_pre_release_comes_before_its_release() -> None:
    # vite: "Vite ships 8.1.0, 8.1.0-beta.0, plugin-legacy 8.1.0 to 8.1.0-beta.0"
    runs = [
        change("vitejs/vite", "release: v8.1.0-beta.0", "packages/vite/package.json", n=0),
        change("vitejs/vite", "release: v8.1.0", "packages/vite/package.json", n=90),
        change("vitejs/vite", "release: v8.1.1", "packages/vite/package.json", n=180),
    ]
    told = story(runs, days=14)
    assert "8.1.0-beta.0, 8.1.0 and 8.1.1" in told.lede, told.lede
    assert told.headline == "VITE 8.1.0-beta.0, 8.1.0 AND 8.1.1 ARE OUT", told.headline


# ------------------------------------------------- every release, named in headline or lede

_RANGE = re.compile(r"(\d+(?:\.\d+)+(?:-[a-z]+\.?\d*)?) to (\d+(?:\.\d+)+(?:-[a-z]+\.?\d*)?)")


def _order(version: str) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
    """By the numbers, a pre-release ("8.1.0-beta.0") before its release ("8.1.0")."""
    base, _, pre = version.partition("-")
    numbers = tuple(int(n) for n in re.findall(r"\d+", base))
    return numbers, 0 if pre else 1, tuple(int(n) for n in re.findall(r"\d+", pre))


def named(text: str, package: str | None, version: str) -> bool:
    """True when `text` names `version` (of `package`, whose name it must hold too), itself
    or inside a range ("0.140.0 to 0.140.13")."""
    text = text.lower()
    if package is not None and package.lower() not in text:
        return False
    if re.search(rf"(?<![\w.]){re.escape(version.lower())}(?!\w|\.\d)", text):
        return True
    return any(
        _order(low)[0][:1] == _order(version)[0][:1]
        and _order(low) <= _order(version) <= _order(high)
        for low, high in _RANGE.findall(text)
    )


def test_every_release_of_every_day_and_week_is_named_in_its_headline_or_lede() -> None:
    faults = []
    files = [*sorted(ACTIVITY.glob("*.jsonl")), AXUM_DAY]
    for path in files:
        activities = tuple(ReplaySource(Path(path)).read_all())
        if not any(a.title.startswith(("release", "Version Packages", "axum")) for a in activities):
            continue  # no release shape in it: nothing to name
        for span in days_and_weeks(activities):
            inside = [a for a in activities if span.contains(a.landed_at)]
            releases = [e for e in classify(inside, example_config()) if e.release is not None]
            if not releases:
                continue
            told = compose(activities, config=example_config(), window=span)
            top = f"{told.headline} {told.lede}"
            for event in releases:
                assert event.release is not None
                for package, version in event.release.versions:
                    if not named(top, package, version):
                        faults.append(f"{path.name} {span.label()}: {package} {version}")
                for package in event.release.packages:
                    if package is not None and package.lower() not in top.lower():
                        faults.append(f"{path.name} {span.label()}: {package}")
    assert faults == [], "\n".join(faults)


def test_a_release_outranked_by_what_landed_after_it_is_still_named_in_the_lede() -> None:
    acme = "acme/widgets"
    told = story(
        [
            change(acme, "release: v1.2.0", "package.json", "CHANGELOG.md", n=1),
            change(acme, "fix: prevent XSS in the widget renderer", "src/render.ts", n=2),
            change(acme, "fix: prevent path traversal in the file server", "src/serve.ts", n=3),
            change(acme, "feat: add a dark theme", "src/theme.ts", n=4, added=40),
            change(acme, "feat: add keyboard shortcuts", "src/keys.ts", n=5, added=40),
        ]
    )
    assert "1.2.0" in f"{told.headline} {told.lede}", (told.headline, told.lede)


@pytest.mark.parametrize(
    ("title", "version"),
    [
        ("Update main after 2.4.5 release (#31500)", "2.4.5"),
        ("MAINT: Update main after Widgets 2.5.0 release", "2.5.0"),
        ("MAINT: Update main after 2.5.0 release.", "2.5.0"),  # a full stop after it
        ("Forward-port main with the 1.2.3 release notes", "1.2.3"),
    ],
)
def test_a_release_cut_on_a_maintenance_branch_is_named_from_the_note_that_brings_it_back(
    title: str, version: str
) -> None:
    from digest.config import Project
    from digest.reading.classify import classify_one
    from tests.test_audience import change

    event = classify_one(
        change(title, "doc/release/notes.rst", "doc/changelog.rst"),
        Project(repo="acme/widgets", name="widgets"),
    )
    assert event.release is not None and event.release.version == version


def test_a_series_brought_back_to_main_is_named_by_the_notes_files_it_adds() -> None:
    from digest.config import Project
    from digest.reading.classify import classify_one
    from tests.test_audience import change as widget_change

    paths = (
        "doc/release/2.4.5-notes.rst",
        "doc/release/2.4.6-notes.rst",
        "doc/changelog/2.4.6-changelog.rst",
    )
    event = classify_one(
        widget_change("MAINT: Update main after 2.4.x release", *paths),
        Project(repo="acme/widgets", name="widgets"),
    )
    assert event.release is not None and event.release.versions == (
        (None, "2.4.5"),
        (None, "2.4.6"),
    )
    # No notes file of the series: no version to name, and no release.
    bare = widget_change("MAINT: Update main after 2.4.x release", "doc/index.rst")
    assert classify_one(bare, Project(repo="acme/widgets", name="widgets")).release is None


def test_packages_released_with_no_version_said_are_new_releases_not_new_products() -> None:
    paths = [f"packages/integrations/{p}/CHANGELOG.md" for p in ("cloudflare", "mdx", "svelte")]
    told = story([change("withastro/astro", "[ci] release (#14000)", *paths, n=1)])
    text = " ".join([told.headline.lower(), told.lede, *(s.text for s in told.body)])
    assert "a new cloudflare" not in text and "a new mdx" not in text
    assert "new releases of cloudflare, mdx and svelte" in text
    assert told.checks is not None and told.checks.problems == ()
    beta = story([change("withastro/astro", "[ci] release (beta) (#14001)", *paths, n=1)])
    assert beta.headline == "ASTRO SHIPS NEW PRERELEASES OF CLOUDFLARE, MDX AND SVELTE"


def test_a_pre_mode_release_counts_its_packages_as_prereleases_too() -> None:
    # a beta round of seven packages read "new prereleases of a, b and c and releases of
    # four more packages", as though four were final
    names = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta")
    paths = [f"packages/integrations/{p}/CHANGELOG.md" for p in names]
    told = story([change("acme/widgets", "[ci] release (beta) (#14001)", *paths, n=1)])
    text = " ".join([told.lede, *(s.text for s in told.body)])
    assert "new prereleases of seven packages, among them alpha" in told.lede, told.lede
    assert " releases of" not in text, text


def test_a_lede_names_three_packages_whose_versions_nothing_says_and_counts_the_rest() -> None:
    names = ("cloudflare", "mdx", "svelte", "node", "vercel", "react", "vue")
    paths = [f"packages/integrations/{p}/CHANGELOG.md" for p in names]
    told = story([change("withastro/astro", "[ci] release (#14000)", *paths, n=1)])
    # one count, its first three named: "new releases of cloudflare, mdx and svelte and
    # releases of four more packages" read as a list of lists
    assert "new releases of seven packages, among them cloudflare, mdx and svelte" in told.lede
    assert "vercel" not in told.lede
    # … and so does the body's sentence: a list of twenty names read as no sentence
    [sentence] = [s.text for s in told.body if "releases of" in s.text]
    assert "seven packages, among them cloudflare, mdx and svelte" in sentence, sentence
    assert "vercel" not in sentence, sentence
    # one more is named rather than counted
    four = [f"packages/integrations/{p}/CHANGELOG.md" for p in names[:4]]
    told = story([change("withastro/astro", "[ci] release (#14000)", *four, n=1)])
    assert "cloudflare, mdx, svelte and node" in " ".join(s.text for s in told.body)


@pytest.mark.parametrize(
    ("landed", "says"),
    [
        # the HMR fix landed after the cut: no release ships it yet
        (
            ["XSS in error overlay", "path traversal in /@fs/", "v8.0.16", "XSS in the HMR client"],
            "it ships two security fixes",
        ),
        # the traversal fix landed after 8.0.16, before a later prerelease: "Upgrade to
        # 8.0.16 or later: it ships two security fixes" counted it in 8.0.16
        (
            ["XSS in error overlay", "v8.0.16", "path traversal in /@fs/", "v8.1.0-beta.0"],
            "it ships a security fix",
        ),
    ],
)
def test_a_release_ships_only_the_security_fixes_that_landed_before_it(
    landed: list[str], says: str
) -> None:
    titles = {
        "XSS in error overlay": "fix: prevent XSS in error overlay",
        "path traversal in /@fs/": "fix: reject path traversal in /@fs/",
        "XSS in the HMR client": "fix: prevent XSS in the HMR client",
    }
    told = story(
        [
            change(
                VITE,
                f"release: {what}" if what.startswith("v") else titles[what],
                "packages/vite/package.json"
                if what.startswith("v")
                else f"packages/vite/src/{n}.ts",
                n=n,
            )
            for n, what in enumerate(landed, 1)
        ]
    )
    [item] = [i for i in told.action_items if "security" in i.text]
    assert item.text.startswith(f"Upgrade vite to 8.0.16 or later: {says}"), item.text
    assert "HMR client" not in item.text
    if "v8.1.0-beta.0" not in landed:
        assert told.headline == "VITE 8.0.16 IS OUT WITH TWO SECURITY FIXES", told.headline


def test_a_release_that_promotes_its_candidate_ships_none_of_the_default_branch_changes() -> None:
    """A final release whose changelog edit renames the candidate's heading (one line in,
    one out) was cut on its branch: fixes that landed on main before it are not in it."""
    widgets = "acme/widgets"
    fixes = [
        change(widgets, "Update module x/crypto to v0.52.0 [SECURITY]", "go.mod", n=1),
        change(widgets, "chore(deps): update module x/crypto to v0.52.0 [security]", "go.mod", n=2),
        change(widgets, "Update module x/net to v0.55.0 [SECURITY]", "go.mod", n=3),
    ]
    cut = change(widgets, "release: cut 3.12.0", "CHANGELOG.md", "VERSION", n=4)
    told = story([*fixes, cut])
    events = classify([*fixes, cut], config(widgets))
    assert carried(events)[cut.sha] == []
    assert "3.12.0" in told.lede and "3.12.0 is out with" not in " ".join(s.text for s in told.body)
    assert not [i for i in told.action_items if i.urgency == "immediate"]
    # x/crypto landed twice: two security fixes, each said with its label
    [item] = [i for i in told.action_items if "security" in i.text]
    assert "two security fixes" in item.text and item.urgency == "monitor"
    body = " ".join(s.text for s in told.body)
    assert body.count("a security update") == 2  # of a dependency: its update, not our fix
    # A release that lists what it adds in its changelog ships the fixes before it.
    listed = change(widgets, "release: cut 3.12.0", "CHANGELOG.md", "VERSION", n=4, added=12)
    assert carried(classify([*fixes, listed], config(widgets)))[listed.sha]


def test_only_the_packages_a_pre_mode_release_published_are_called_prereleases() -> None:
    def notes(*packages: str) -> list[str]:
        return [f"packages/integrations/{p}/CHANGELOG.md" for p in packages]

    told = story(
        [
            change("withastro/astro", "[ci] release (#14000)", *notes("cloudflare", "mdx"), n=1),
            change("withastro/astro", "[ci] release (beta) (#14001)", *notes("mdx", "svelte"), n=2),
        ]
    )
    text = " ".join([told.headline.lower(), told.lede, *(s.text for s in told.body)])
    assert "new releases of cloudflare and mdx and a new prerelease of svelte" in text
    assert "prereleases of cloudflare" not in text


def test_a_security_fix_a_versionless_release_ships_asks_for_that_release_not_a_later_one() -> None:
    told = story(
        [
            change(
                "withastro/astro",
                "fix(node): prevent path traversal in static file serving",
                "packages/integrations/node/src/serve-static.ts",
                n=1,
            ),
            change(
                "withastro/astro",
                "[ci] release (#14000)",
                "packages/integrations/node/CHANGELOG.md",
                n=2,
            ),
        ]
    )
    [item] = [i for i in told.action_items if "security" in i.text]
    assert item.urgency == "immediate"
    assert item.text.startswith(
        "Upgrade astro's Node integration to its latest release: it ships a security fix"
    )
    assert "once a release carries" not in item.text


def test_a_lede_past_many_versionless_releases_says_publishes_not_ships_new_releases() -> None:
    packages = [f"plugin-{n}" for n in "abcdefghijklmn"]
    paths = [f"packages/{p}/CHANGELOG.md" for p in packages]
    told = story([change("withastro/astro", "[ci] release (#14000)", *paths, n=1)], days=7)
    assert "publishes new releases of 14 packages, among them plugin-a" in told.lede
    assert "ships new releases" not in told.lede


def test_a_day_a_release_leads_is_no_quiet_day() -> None:
    told = story(
        [
            change(VITE, "fix: keep the HMR port on restart", "packages/vite/src/a.ts", n=1),
            change(VITE, "release: v8.0.16", "packages/vite/package.json", n=2),
        ]
    )
    assert "quiet" not in told.lede.lower(), told.lede
    assert "8.0.16" in told.lede, told.lede
    assert told.checks is not None and told.checks.problems == ()


def test_a_security_item_asks_for_the_latest_stable_release_that_ships_the_fixes() -> None:
    titles = (
        "fix: prevent XSS in error overlay",
        "release: v8.0.15",
        "fix: reject path traversal in /@fs/",
        "release: v8.0.16",
        "release: v8.1.0-beta.0",
    )
    told = story(
        [
            change(
                VITE,
                t,
                "packages/vite/" + ("package.json" if "release" in t else f"src/{n}.ts"),
                n=n,
            )
            for n, t in enumerate(titles, 1)
        ]
    )
    [item] = [i for i in told.action_items if "security" in i.text]
    assert item.text.startswith("Upgrade vite to 8.0.16 or later: it ships two security fixes")


def test_a_release_names_the_fix_it_ships_without_saying_fix_twice() -> None:
    polars = tuple(ReplaySource(ACTIVITY / "pola-rs-polars-2026-q2.jsonl").read_all())
    day = Window(since=datetime(2026, 6, 29, tzinfo=UTC), until=datetime(2026, 6, 30, tzinfo=UTC))
    text = _text(compose(polars, config=example_config(), window=day))
    # "Polars 1.42.1 is out [1], with a fix that fixes a panic on scan_parquet …"
    assert "a fix that fixes" not in text
    assert re.search(r"1\.42\.1 is out \[1\], with a change that fixes a panic", text), text


def test_a_patch_release_carries_no_breaking_change_or_feature_of_the_default_branch() -> None:
    repo = "acme/tsdb"
    removal = change(repo, "Remove the deprecated `DELETE /api/v1/series` endpoint", "web/api.go")
    removal = removal.model_copy(update={"labels": ("breaking-change",)})
    fix = change(repo, "Fix a crash in the compactor", "tsdb/compact.go", n=1)
    # a feature on the default branch waits for the next minor release too
    feature = change(repo, "Add an endpoint for the widget metrics", "web/metrics.go", n=2)
    patch = change(repo, "Release 3.11.1", "VERSION", "CHANGELOG.md", n=3, added=4)
    minor = change(repo, "Release 3.12.0", "VERSION", "CHANGELOG.md", n=4, added=30)
    events = classify([removal, fix, feature, patch, minor], config(repo))
    shipped = {sha: {e.activity.title for e in found} for sha, found in carried(events).items()}
    # prometheus' "3.11.0 and 3.11.1 are out with … a breaking change" for a removal on main
    assert shipped[patch.sha] == {fix.title}
    assert shipped[minor.sha] == {removal.title, feature.title}


def test_a_breaking_change_is_immediate_once_a_release_ships_it_and_planned_for_until_then() -> (
    None
):
    breaking = change(VITE, "feat!: drop support for Node 18", "packages/vite/src/a.ts", n=1)
    unreleased = story([breaking])
    [item] = [i for i in unreleased.action_items if "Node 18" in i.text]
    assert (item.urgency, item.text.split(":")[0]) == (
        "plan",
        "Check your use of vite before its next release",
    )
    released = story([breaking, change(VITE, "release: v9.0.0", "packages/vite/package.json", n=2)])
    [item] = [i for i in released.action_items if "Node 18" in i.text]
    assert (item.urgency, item.text.split(":")[0]) == (
        "immediate",
        "Check your use of vite before upgrading",
    )


def test_a_release_cut_on_a_maintenance_branch_carries_none_of_the_default_branchs_changes() -> (
    None
):
    fix = change("acme/widgets", "BUG: make string comparison use memcmp", "src/core/cmp.c", n=1)
    sync = change(
        "acme/widgets", "MAINT: Update main after 2.5.0 release", "doc/release/2.5.0-notes.rst", n=2
    )
    later = change("acme/widgets", "REL: Prepare for the 2.6.0 release", "pyproject.toml", n=3)
    events = classify([fix, sync, later], config("acme/widgets"))
    by_sha = {sha: [e.activity.sha for e in found] for sha, found in carried(events).items()}
    assert by_sha[sync.sha] == []  # 2.5.0 was cut on its own branch
    assert by_sha[later.sha] == [fix.sha]  # the fix waits for the next release from main


def test_the_projects_own_package_is_named_among_releases_whose_versions_nothing_says() -> None:
    def notes(*packages: str) -> list[str]:
        own = ["packages/astro/CHANGELOG.md", "packages/astro/package.json"]
        return own + [f"packages/integrations/{p}/CHANGELOG.md" for p in packages]

    told = story(
        [
            change("withastro/astro", "[ci] release (#14000)", *notes("cloudflare"), n=1),
            change("withastro/astro", "[ci] release (#14001)", *notes("react"), n=2),
        ],
        days=7,
    )
    text = " ".join([told.lede, *(s.text for s in told.body)])
    assert "new releases of astro, cloudflare and react" in text, text
    # two release commits, each publishing astro and one integration: four releases
    assert "four releases in all" in text, text
    # The project's own package comes first, however the releases fall.
    told = story(
        [
            change("withastro/astro", "[ci] release (#14000)", *notes("cloudflare")[2:], n=1),
            change("withastro/astro", "[ci] release (#14001)", *notes("react"), n=2),
        ],
        days=7,
    )
    body = " ".join(s.text for s in told.body)
    assert "new releases of astro, cloudflare and react" in body, body


def test_a_release_sentence_cites_the_unversioned_release_that_ships_its_security_fix() -> None:
    astro = "withastro/astro"
    own = ("packages/astro/CHANGELOG.md", "packages/astro/package.json")
    releases = [
        change(astro, f"[ci] release (#{14000 + n})", *own, f"packages/{p}/CHANGELOG.md", n=n)
        for n, p in ((1, "mdx"), (3, "node"), (7, "vue"), (9, "react"))
    ]
    fix = change(
        astro,
        "fix(security): escape slot names to prevent XSS",
        "packages/astro/src/runtime/slots.ts",
        ".changeset/escape-slot-names.md",
        n=4,
    )
    carrier = change(astro, "[ci] release (#14005)", *own, "packages/svelte/CHANGELOG.md", n=5)
    carrier = carrier.model_copy(
        update={
            "files": (
                *carrier.files,
                FileChange(path=".changeset/escape-slot-names.md", status="D", deletions=3),
            )
        }
    )
    told = story([*releases, fix, carrier], days=7)
    numbers = {r.sha: r.n for r in told.references}
    [sentence] = [s for s in told.body if "security fix" in s.text and "new releases of" in s.text]
    assert f"[{numbers[carrier.sha]}]" in sentence.text, sentence.text


def test_a_security_fix_names_the_advisory_its_description_gives() -> None:
    fix = change(
        VITE,
        "fix: treat service account keys as secrets",
        "packages/vite/src/node/config.ts",
        n=1,
        body="Fixes GHSA-39J6-789Q-QXVH: the keys were shown in plain text on the config page.",
    )
    told = story([fix, change(VITE, "fix: keep the HMR port", "packages/vite/src/a.ts", n=2)])
    text = " ".join(s.text for s in told.body)
    assert "a security fix for GHSA-39j6-789q-qxvh" in text, text


def test_a_headline_names_the_news_beside_package_releases_no_version_names() -> None:
    def notes(*packages: str) -> list[str]:
        return [f"packages/integrations/{p}/CHANGELOG.md" for p in packages]

    fix = change(
        "withastro/astro", "fix: keep props reactive on hydration", "packages/astro/src/a.ts", n=1
    )
    release = change("withastro/astro", "[ci] release (#14000)", *notes("mdx", "node"), n=2)
    told = story([fix, release])
    assert told.headline == "ASTRO KEEPS PROPS REACTIVE ON HYDRATION", told.headline
    assert "new releases of mdx and node" in told.lede


def test_a_security_fix_a_release_ships_is_told_as_that_fix_not_another() -> None:
    fix = change(VITE, "fix: reject path traversal in /@fs/", "packages/vite/src/b.ts", n=1)
    release = change(VITE, "release: v8.0.16", "packages/vite/package.json", n=2)
    told = story([fix, release])
    [sentence] = [s.text for s in told.body if "path traversal" in s.text]
    assert "a security fix that the new release ships" in sentence, sentence
    assert not sentence.startswith(("Separately", "Beyond", "In addition", "Elsewhere")), sentence


def test_a_security_fix_committed_twice_is_one_fix() -> None:
    title = "fix: prevent stored XSS in the error overlay"
    twice = [change(VITE, title, "packages/vite/src/a.ts", n=n) for n in (1, 3)]
    told = story([*twice, change(VITE, "fix: keep the HMR port", "packages/vite/src/b.ts", n=2)])
    [item] = [i for i in told.action_items if "security fix" in i.text]
    assert "this security fix" in item.text and "two security fixes" not in item.text, item.text
    # … and a release that ships it ships one
    release = change(VITE, "release: v8.0.16", "packages/vite/package.json", n=4)
    told = story([*twice, release])
    text = " ".join([told.headline, told.lede, *(s.text for s in told.body)])
    assert "with a security fix" in text and "two security fixes" not in text.lower(), text


def test_a_security_fix_in_one_package_asks_for_that_packages_release() -> None:
    astro = "withastro/astro"
    fix = change(
        astro,
        "fix(db): bump drizzle-orm version for CVE-2026-39356",
        "packages/db/package.json",
        ".changeset/db-fix.md",
        n=1,
    )
    release = change(
        astro, "[ci] release (#14000)", "packages/db/CHANGELOG.md", "packages/mdx/CHANGELOG.md", n=2
    )
    deleted = FileChange(path=".changeset/db-fix.md", status="D", deletions=3)
    release = release.model_copy(update={"files": (*release.files, deleted)})
    [item] = [i for i in story([fix, release]).action_items if "security fix" in i.text]
    # upgrading astro itself does nothing for a fix its db package ships
    assert item.text.startswith("Upgrade astro's db package to its latest release:"), item.text


def test_of_two_releases_the_one_that_ships_the_fix_is_named() -> None:
    told = story(
        [
            change(VITE, "release: v8.0.15", "packages/vite/package.json", n=1),
            change(VITE, "fix: reject path traversal in /@fs/", "packages/vite/src/b.ts", n=2),
            change(VITE, "release: v8.0.16", "packages/vite/package.json", n=3),
        ]
    )
    first, second = (s.text for s in told.body[:2])
    assert first.startswith("vite 8.0.15 and 8.0.16 are out; 8.0.16 ships a security fix"), first
    assert "a security fix that the new release ships" in second, second


def test_a_security_item_cites_each_fix_it_counts() -> None:
    fixes = [
        change(VITE, f"fix: prevent XSS in the {where}", f"packages/vite/src/{where}.ts", n=n)
        for n, where in ((1, "overlay"), (2, "client"), (3, "server"))
    ]
    told = story(fixes)
    [item] = [i for i in told.action_items if "security fixes" in i.text]
    assert "three security fixes" in item.text and len(item.refs) == 3, item.text


def test_a_change_a_release_ships_says_so_and_cites_the_release() -> None:
    # vite's week of 2026-04-20: "Away from that", "On another front" before changes that
    # 8.0.9 shipped cut the release off from what it carried
    fix = change(
        VITE,
        "fix: reject HMR patch requests from other origins",
        "packages/vite/src/a.ts",
        n=1,
        body="Any page could fetch the patches, so their code was open to other sites.",
    )
    feat = change(
        VITE,
        "fix: show the file name in CSS warnings",
        "packages/vite/src/b.ts",
        n=2,
        body="Users could not tell which stylesheet a warning came from in large projects.",
    )
    release = change(VITE, "release: v8.0.9", "packages/vite/CHANGELOG.md", n=3, added=9)
    later = change(
        VITE,
        "fix: keep the HMR port on restart",
        "packages/vite/src/c.ts",
        n=4,
        # (a fourth change is named when its sentence can say why)
        body="Restarting the server picked another port, so open browsers lost their updates.",
    )
    told = story([fix, feat, release, later])
    body = [s.text for s in told.body]
    [first] = [s for s in body if "HMR patch requests" in s]
    [second] = [s for s in body if "file name in CSS" in s]
    [third] = [s for s in body if "HMR port" in s]
    said = sorted(
        "ships"
        if re.search(r"that vite 8\.0\.9 ships( \[|; )", s)
        else "likewise"
        if re.search(r"likewise in 8\.0\.9( \[|; )", s)
        else ""
        for s in (first, second)
    )
    assert said == ["likewise", "ships"], (first, second)
    assert "8.0.9" not in third  # landed after the cut: no release ships it yet
    number = {r.title: n for n, r in enumerate(told.references, 1)}[release.title]
    assert f"[{number}]" in first and f"[{number}]" in second
    assert not any(
        s.startswith(("Elsewhere", "Away from that", "Separately")) for s in (first, second)
    )
    assert told.checks is not None and told.checks.problems == ()


def test_an_upgrade_names_a_release_cut_after_the_fix_and_waits_for_a_stable_one() -> None:
    widgets = "acme/widgets"
    cut = change(widgets, "release: cut 3.12.0", "CHANGELOG.md", "VERSION", n=1)  # a promotion
    fix = change(widgets, "Update module x/crypto to v0.52.0 [SECURITY]", "go.mod", n=2)
    candidate = change(
        widgets, "chore: prepare 3.13.0-rc.0 release", "CHANGELOG.md", "VERSION", n=3, added=40
    )
    [item] = [i for i in story([cut, fix, candidate]).action_items if "security" in i.text]
    # 3.12.0 landed before the fix, and only a candidate carries it: nothing to upgrade to
    assert "3.12.0" not in item.text and item.urgency == "monitor", item.text
    assert item.text.startswith(
        "Upgrade widgets once a stable release carries this security fix, as 3.13.0-rc.0 does"
    )
    stable = change(widgets, "Release 3.13.0", "CHANGELOG.md", "VERSION", n=4, added=40)
    [item] = [i for i in story([cut, fix, candidate, stable]).action_items if "security" in i.text]
    assert (
        item.text.startswith("Upgrade widgets to 3.13.0 or later") and item.urgency == "immediate"
    )


def test_a_release_sentence_that_cites_some_releases_names_the_rest_after_it() -> None:
    # vite's "Vite 8.0.15, 8.0.16 and 8.1.0-beta.0 are out, four releases in all [1][2][3]"
    # left readers looking for plugin-legacy 8.1.0-beta.0
    def release(title: str, folder: str, n: int) -> Activity:
        return change(VITE, title, f"packages/{folder}/CHANGELOG.md", n=n, added=9)

    releases = [
        release("release: v8.0.15", "vite", 1),
        release("release: v8.0.16", "vite", 2),
        release("release: v8.1.0-beta.0", "vite", 3),
        release("release: plugin-legacy@8.1.0-beta.0", "plugin-legacy", 4),
    ]
    told = story(releases)
    body = " ".join(s.text for s in told.body)
    for version in ("8.0.15", "8.0.16", "8.1.0-beta.0", "plugin-legacy 8.1.0-beta.0"):
        assert version in body, body
    assert {r.title for r in told.references} >= {a.title for a in releases}
    assert told.checks is not None and told.checks.problems == ()


def test_a_change_is_not_said_to_ship_in_a_release_candidate() -> None:
    # prometheus' "a fix that Prometheus 3.13.0-rc.1 ships" for a change that landed on the
    # default branch after rc.0 was cut on its branch
    fix = change(VITE, "fix: keep the HMR port on restart", "packages/vite/src/c.ts", n=1)
    candidate = change(VITE, "release: v8.1.0-beta.1", "packages/vite/CHANGELOG.md", n=2, added=9)
    body = " ".join(s.text for s in story([fix, candidate]).body)
    assert "ships" not in body.replace("is out", "") and "likewise in" not in body, body


def test_a_release_is_said_to_ship_a_change_twice_at_most() -> None:
    # svelte's "likewise in 5.56.0" three times over read as a form
    titles = (
        "feat: show the file name in CSS warnings",
        "fix: keep the HMR port on restart",
        "perf: cache resolved aliases between builds",
        "feat: accept a custom logger in preview",
    )
    shipped = [
        change(VITE, title, f"packages/vite/src/{n}.ts", n=n) for n, title in enumerate(titles, 1)
    ]
    release = change(VITE, "release: v8.0.9", "packages/vite/CHANGELOG.md", n=5, added=9)
    body = " ".join(s.text for s in story([*shipped, release]).body)
    assert body.count("that vite 8.0.9 ships") + body.count("likewise in 8.0.9") <= 2, body
    assert body.count("likewise in 8.0.9") <= 1, body


def test_a_release_sentence_cites_the_release_that_ships_the_change_it_names() -> None:
    # Four releases no version names, of which the sentence cites the first and the last;
    # the change it names shipped in the third, which it must cite too.
    repo, paths = "acme/widgets", ("packages/widgets/CHANGELOG.md", "packages/widgets/package.json")
    releases = [change(repo, "ci: release", *paths, n=n) for n in (1, 3, 5, 7)]
    feature = change(
        repo, "feat: add a markdown processor API", "packages/widgets/src/md.ts", n=4, added=400
    )
    fixes = [
        change(
            repo, f"fix: handle trailing slashes in route {k}", f"packages/widgets/src/r{k}.ts", n=8
        )
        for k in range(12)
    ]
    told = story([*releases, feature, *fixes])
    number = {r.title: r.n for r in told.references if r.title != "ci: release"}
    sentence = next(s.text for s in told.body if "markdown" in s.text)
    cited = [r for r in told.references if f"[{r.n}]" in sentence and r.title == "ci: release"]
    third = releases[2].sha
    assert any(r.sha == third for r in cited), sentence
    assert f"[{number['feat: add a markdown processor API']}]" in sentence


def test_a_release_of_the_project_alone_whose_version_nothing_says_is_counted() -> None:
    # a changesets release that writes only the project's own changelog publishes one
    # release; counted as none, "36 releases in all" fell two short of the window's 38
    repo = "acme/widgets"
    own = change(repo, "[ci] release", "packages/widgets/CHANGELOG.md", n=1)
    adapters = (
        "packages/integrations/node/CHANGELOG.md",
        "packages/integrations/react/CHANGELOG.md",
    )
    told = story([own, change(repo, "[ci] release", *adapters, n=3)])
    assert "three releases in all" in told.body[0].text, told.body[0].text


def test_of_several_releases_the_one_that_ships_the_named_change_is_said() -> None:
    # svelte's "avoid false positives for reactivity loss warning" landed after 5.55.2 and
    # before 5.55.3: "5.55.2 and 5.55.3 are out, with a fix that …" gave it to both
    activities = tuple(ReplaySource(ACTIVITY / "sveltejs-svelte-2026-q2.jsonl").read_all())
    week = Window(since=datetime(2026, 4, 6, tzinfo=UTC), until=datetime(2026, 4, 13, tzinfo=UTC))
    first = compose(activities, config=example_config(), window=week).body[0].text
    assert re.search(
        r"5\.55\.2 and 5\.55\.3 are out \[\d\]\[\d\], 5\.55\.3 with a fix that avoids false "
        r"positives for reactivity loss warning \[\d\]",
        first,
    ), first


def test_a_lede_tells_a_security_fix_its_release_carries_once() -> None:
    # "ships 3.11.3 with a security fix and fixes stored XSS in …": one fix told twice
    fix = change(VITE, "fix: prevent stored XSS in heatmap labels", "packages/vite/src/a.ts", n=1)
    release = change(VITE, "release: v8.0.5", "packages/vite/CHANGELOG.md", n=2, added=9)
    feature = change(VITE, "feat: add a `--port` option", "packages/vite/src/b.ts", n=3)
    told = story([fix, release, feature], days=14)
    assert "8.0.5 with a security fix" in told.lede, told.lede
    assert "XSS" not in told.lede and "`--port`" in told.lede, told.lede


def test_a_dependencys_security_update_leads_no_story_of_the_projects_own_news() -> None:
    bump = change(
        VITE,
        "fix(deps): update dependency sanitize-html to v2.17.4 [security]",
        "packages/vite/package.json",
        n=1,
    )
    feature = change(VITE, "feat: add a `--port` option", "packages/vite/src/b.ts", n=2)
    told = story([bump, feature], days=7)
    headline = told.headline.lower()
    assert "sanitize" not in headline and "port" in headline, told.headline
    assert "security update" in " ".join(s.text for s in told.body)


def test_the_body_counts_as_many_more_packages_as_the_lede() -> None:
    # astro: the lede's "releases of 16 more packages" beside the body's "14 more", which
    # counted only the release commits the sentence cites
    names = [f"pkg{n}" for n in range(16)]
    commits = [
        change(
            "withastro/astro",
            f"[ci] release (#{14000 + n})",
            *(f"packages/integrations/{p}/CHANGELOG.md" for p in names[4 * n : 4 * n + 4]),
            n=n + 1,
        )
        for n in range(4)
    ]
    told = story(commits, days=14)
    [body] = [s.text for s in told.body if "releases of" in s.text]
    counts = [re.search(r"releases of (\w+) packages", t) for t in (told.lede, body)]
    assert all(counts) and counts[0][1] == counts[1][1], (told.lede, body)  # type: ignore[index]


def test_a_release_after_its_candidate_carries_nothing_merged_since() -> None:
    # prometheus: 3.13 was credited with changes merged to main after its candidates, which
    # were cut from the release branch
    from digest.rank import carried

    repo = "acme/widgets"
    before = change(repo, "feat: add a retry option", "src/retry.go", n=1)
    rc0 = change(repo, "Prepare release 3.13.0-rc.0", "CHANGELOG.md", n=2, added=9)
    after = change(repo, "feat: add histogram chunk encoding", "src/chunk.go", n=3)
    rc1 = change(repo, "Prepare release 3.13.0-rc.1", "CHANGELOG.md", n=4, added=3)
    later = change(repo, "fix: clear targets of vanished compartments", "src/sd.go", n=5)
    final = change(repo, "Prepare release 3.13.0", "CHANGELOG.md", n=6, added=3)
    events = classify([before, rc0, after, rc1, later, final], config(repo))
    ships = {sha: [e.activity.title for e in found] for sha, found in carried(events).items()}
    # the first candidate, cut from main, carries what came before it
    assert ships[rc0.sha] == ["feat: add a retry option"], ships
    # … the second and the release itself, cut from the candidate's branch, nothing since
    assert ships[rc1.sha] == [] and ships[final.sha] == [], ships
    # a second candidate had a first, whether or not it is at hand
    alone = classify([after, rc1], config(repo))
    assert carried(alone)[rc1.sha] == []


@pytest.mark.parametrize(("between", "watched"), [("v1.1.0", True), ("v1.0.1", False)])
def test_a_back_out_in_the_window_is_watched_only_when_a_release_shipped_its_change(
    between: str, watched: bool
) -> None:
    # a feature promoted and backed out within four weeks, with only a patch release cut
    # between them: no release had it, yet "Check whether … still does what you rely on"
    widgets = "acme/widgets"
    feature = "feat: add a retry budget to the client"
    told = story(
        [
            change(widgets, "release: v1.0.0", "package.json", n=0),
            change(widgets, feature, "src/a.ts", n=30),
            change(widgets, f"release: {between}", "package.json", n=40),
            change(widgets, f'Revert "{feature}"', "src/a.ts", n=50),
            change(widgets, "feat: add streaming uploads", "src/b.ts", n=60),
        ],
        days=7,
    )
    items = [i.text for i in told.action_items if i.urgency == "monitor"]
    assert bool(items) == watched, items


def test_a_fix_landed_on_the_release_branch_and_on_main_is_the_one_the_release_ships() -> None:
    # "3.11.1 is out with a security fix [1]. Beyond that, it fixes stored XSS … [2][3]"
    # told one fix as two, and "Upgrade once a release carries this security fix" waited
    # for a release the window had
    widgets = "acme/widgets"
    fix = "fix: prevent stored XSS via unescaped metric names in the UI"
    told = story(
        [
            change(widgets, fix, "web/ui/a.ts", n=1),
            change(widgets, "release: v3.11.1", "VERSION", n=3),
            change(widgets, fix, "web/ui/a.ts", n=6),
            change(widgets, "feat: add a search endpoint", "web/api.go", n=8),
        ],
        days=7,
    )
    body = " ".join(s.text for s in told.body)
    assert "a security fix that the new release ships" in body, body
    assert "XSS" not in told.lede, told.lede  # "3.11.1 with a security fix" says it
    [item] = [i for i in told.action_items if "security" in i.text]
    assert item.text.startswith("Upgrade widgets to 3.11.1 or later"), item.text
    assert item.urgency == "immediate"


def test_a_range_of_releases_counts_the_many_that_carry_a_fix() -> None:
    # "ships 3.11.0 to 3.11.3, 3.11.1, 3.11.2 and 3.11.3 with two security fixes" said
    # three versions twice
    steps = [
        "release: v8.0.10",
        "fix: prevent XSS in error overlay",
        "release: v8.0.11",
        "fix: reject path traversal in /@fs/",
        "release: v8.0.12",
        "fix: prevent XSS in the HMR client",
        "release: v8.0.13",
        "release: v8.0.14",
    ]
    told = story(
        [
            change(
                VITE,
                title,
                "packages/vite/package.json" if title.startswith("release") else f"src/{n}.ts",
                n=n * 10,
            )
            for n, title in enumerate(steps)
        ],
        days=14,
    )
    assert "8.0.10 to 8.0.14, three of them with three security fixes" in told.lede, told.lede
