"""Places a reader could follow (issue #28): the "… in X" of a sentence, a section's heading
and the counts of "In brief" name a product, crate or package, backend or area the project
itself names, in the project's own case; never a commit type, a path, a tooling folder or a
fragment of a word. Synthetic titles in the shapes of every convention (upper-case type
words, `area: title` prefixes, `type(scope):`, `[TAG]`), real commits of the tuning files,
and every place of every story of those files."""

from __future__ import annotations

import itertools
import re
from datetime import UTC, datetime, timedelta
from functools import cache

import pytest

from digest.check.proofread import proofread_sentences
from digest.compose import compose
from digest.compose.layout import (
    BACK_OUTS,
    BREAKING,
    IN_BRIEF,
    MAINTENANCE,
    OTHER,
    RELEASES,
    RELEASES_AND_SECURITY,
    SECURITY,
)
from digest.compose.phrases import area_of, names_a_place, place_phrase, topic_of
from digest.config import PACKAGE_FOLDERS, Project, TopicRule, WireConfig, topic_key
from digest.model import Activity, Story, Window
from digest.reading.classify import classify
from digest.reading.event import Event
from digest.reading.title_tags import reads_as_word
from digest.sources.replay import ReplaySource
from tests.digest_data import ACTIVITY, days_and_weeks, every_story, example_config
from tests.test_topics import change

BARE = WireConfig()


def topics(*activities: Activity) -> list[tuple[str, ...]]:
    return [e.topics for e in classify(list(activities), BARE)]


# ---------------------------------------------------------------- commit types


@pytest.mark.parametrize(
    ("title", "paths"),
    [
        ("SECURITY: Reject oversized headers", ("web/api/server.go",)),
        ("[SECURITY] Reject oversized headers", ("web/api/server.go",)),
        ("[REFACTOR] Split the head block", ("tsdb/head.go",)),
        ("Refactor: Split the head block", ("tsdb/head.go",)),
        ("Deprecate: the old flag", ("cmd/server/main.go",)),
        ("Enhancement: faster label matching", ("model/labels/matcher.go",)),
        ("perf(promql): Cache the parser", ("promql/parser/lex.go",)),
        # peft's shape: a title's clause taken for a prefix
        ("Refactor layer initialization: PR 2960 continued", ("src/peft/tuners/lora/layer.py",)),
        ("SEC HRA example: bump Diffusers version", ("examples/hra_dreambooth/train.py",)),
    ],
)
def test_a_commit_type_is_never_a_place(title: str, paths: tuple[str, ...]) -> None:
    (found,) = topics(change(*paths, title=title))
    words = {w.lower() for t in found for w in t.split()}
    assert not words & {"security", "refactor", "deprecate", "enhancement", "perf", "sec"}, found


def test_a_folder_named_for_a_commit_type_is_no_place() -> None:
    # numpy's shape: TYP: a change to stubs under `typing/` and to the core beside it.
    stubs = change("numlib/typing/__init__.pyi", "numlib/linalg/x.py", repo="acme/numlib")
    assert topics(stubs) == [("linalg",)]
    assert topics(change("numlib/typing/x.pyi", title="TYP: Add stubs", repo="acme/numlib")) == [()]
    assert topics(change("Cargo.toml", labels=("area: refactor", "area: tsdb"))) == [("tsdb",)]


# ---------------------------------------------------------------- tags and scopes


def test_a_scope_is_a_place_only_where_the_project_has_that_part() -> None:
    # `feat(ui)` is the place "ui" on web/ui/, and none on a change with no ui/ folder.
    assert topics(change("web/ui/src/App.tsx", title="feat(ui): Add dark mode")) == [("ui", "Web")]
    assert topics(change("src/foo/server/app.py", title="feat(ui): Add dark mode")) == [("Server",)]
    # A type and a scope joined by a slash name the scope, never the path "feat/ui".
    assert topics(change("web/ui/src/App.tsx", title="feat/ui: Add dark mode"))[0][0] == "ui"
    # polars' `fix(rust):` names no folder: its crate is the place.
    assert topics(change("crates/foo-plan/src/lib.rs", title="fix(rust): Skip nulls")) == [
        ("foo-plan",)
    ]
    # A file of that name shows the part too (vite's `fix(css):` on plugins/css.ts), as
    # another title of the window writes it.
    css = "packages/vite/src/node/plugins/css.ts"
    window = [
        change(css, title="fix(css): Keep sass errors", repo="vitejs/vite"),
        change(css, title="Show CSS warnings", repo="vitejs/vite", n=1),
    ]
    assert topics(*window) == [("CSS", "Node"), ("Node",)]


def test_a_misspelt_type_word_is_no_place() -> None:
    # "BEG:" for "BUG:" names no part of the project.
    (event,) = classify(
        [change("numlib/_core/src/umath.c", title="BEG: Fix overflow", repo="acme/numlib")], BARE
    )
    assert event.topics == ("_core",) and topic_of(event) is None


def test_a_tag_a_change_without_files_gives_is_taken_at_its_word() -> None:
    assert topics(change(title="promql: Fix the lexer")) == [("promql",)]
    assert topics(change(title="Refactor: Fix the lexer")) == [()]


def test_an_undone_title_gives_its_prefix_where_the_files_show_it() -> None:
    (revert,) = classify(
        [change("src/foo/kernels/arm/sdpa.py", title='Revert "Arm backend: Add bf16 SDPA"')], BARE
    )
    assert revert.obj == "Add bf16 SDPA" and revert.topics == ("Arm", "Kernels")
    (elsewhere,) = classify(
        [change("src/foo/kernels/sdpa.py", title='Revert "Arm backend: Add bf16 SDPA"')], BARE
    )
    assert elsewhere.topics == ("Kernels",)


# ---------------------------------------------------------------- case


@pytest.mark.parametrize(
    ("window", "expected"),
    [
        # prometheus' `area: title`: the area as the project writes it.
        ([change("promql/engine.go", title="promql: Fix the lexer")], ["promql"]),
        ([change("tsdb/head.go", title="tsdb: Compact sooner")], ["tsdb"]),
        (
            [
                change("promql/engine.go", title="promql: Fix the lexer"),
                change("promql/parser/lex.go", title="Speed up PromQL parsing", n=1),
            ],
            ["PromQL", "PromQL"],
        ),
        # A product's crate keeps its case; an English word reads as a name.
        ([change("crates/ty/src/lib.rs")], ["ty"]),
        ([change("crates/uv/src/lib.rs")], ["uv"]),
        ([change("src/foo/compiler/x.py")], ["Compiler"]),
        ([change("src/foo/runtime/x.py")], ["Runtime"]),
        # An acronym as the titles write it, else no place ("Cpu", "Aws", "Ali", "Ma").
        ([change("backends/cpu/gemm.c", title="Speed up CPU kernels")], ["CPU"]),
        ([change("backends/cpu/gemm.c", title="Speed up kernels")], [None]),
        ([change("aws/cluster.tf", title="Add AWS cluster")], ["AWS"]),
        ([change("ali/aws/windows.tf", title="Update windows AMI")], [None]),
        ([change("ma/x.py", title="Tune the ma solver")], [None]),
        ([change("src/foo/x.py", title="ma: Tune")], [None]),
        # … unless the project writes it both as a prefix and as a folder, like `feat(ui)`.
        ([change("ma/x.py", title="ma: Tune")], ["ma"]),
        ([change("rl/grpo.py", title="[RL] Add GRPO trainer")], ["RL"]),
    ],
)
def test_a_place_keeps_the_projects_own_case(
    window: list[Activity], expected: list[str | None]
) -> None:
    assert [t[0] if t else None for t in topics(*window)] == expected


# ---------------------------------------------------------------- tooling and private folders


@pytest.mark.parametrize(
    "path",
    [
        "agents/reviewer.md",
        "skills/triage/run.py",
        "tools/commands/release.py",
        "experiments/sweep.py",
        "patches/dotenv-expand@13.0.0.patch",
        "benchmarking/compare/index.js",
    ],
)
def test_a_tooling_folder_is_no_place(path: str) -> None:
    assert topics(change(path)) == [()]


def _event(*paths: str, repo: str = "acme/foo", lines: tuple[int, ...] = ()) -> Event:
    (event,) = classify([change(*paths, repo=repo, lines=lines)], BARE)
    return event


def test_a_private_folder_that_leads_gives_no_place_and_no_later_one_stands_in() -> None:
    # numpy's `_core`: "in Typing" was named for a core change.
    core = _event(
        "numlib/_core/fromnumeric.py", "numlib/random/x.py", repo="acme/numlib", lines=(80, 2)
    )
    assert core.topics[0] == "_core" and topic_of(core) is None
    # An example's folder is no place, though it is the change's topic.
    example = _event("examples/sqlx-postgres/src/main.rs", repo="tokio-rs/axum")
    assert example.topics == ("sqlx-postgres",) and topic_of(example) is None


# ---------------------------------------------------------------- a place in a sentence


def test_a_plain_word_scope_is_no_name_and_reads_as_a_common_noun() -> None:
    # vite's "fix(server): handle malformed URI …" read "… middleware in Server".
    (server,) = classify(
        [change("src/node/server/memory.ts", title="fix(server): handle malformed URI")], BARE
    )
    assert not names_a_place("Server", server)
    assert place_phrase("Server", server) == "the server"
    # A prefix the project capitalises, or a word no dictionary has, is a name.
    (arm,) = classify([change("backends/arm/x.py", title="Arm backend: add bf16")], BARE)
    assert names_a_place("Arm", arm) and place_phrase("Arm", arm) == "Arm"
    (promql,) = classify([change("promql/parser/lex.go", title="promql: cache")], BARE)
    assert place_phrase("promql", promql) == "promql"


def test_counts_by_area_skip_a_plain_word_folder_that_no_topic_configures() -> None:
    # pytest's "three in the assertion, two in the mark": how the code is laid out, no area
    # a reader follows; a topic the project configures is one.
    titles = [
        *("Reject a trailing comma in each block", "Keep comments inside attribute values"),
        *("Allow await in snippet parameters", "Parse nested template literals"),
        *("Warn on unused labels", "Support spread in class directives"),
        *("Hoist static style tags", "Report the position of a bad tag"),
        *("Flush effects after a timeout", "Retry a failed hydration once"),
        *("Free listeners on unmount", "Batch updates inside microtasks"),
        *("Defer transitions until mount", "Reuse text nodes on update"),
        *("Track derived values lazily", "Resume outros after an abort"),
    ]
    work = [
        change(f"src/foo/{'compiler' if n <= 8 else 'runtime'}/m{n}.py", title=title, n=n)
        for n, title in enumerate(titles, start=1)
    ]
    since = datetime(2026, 6, 1, tzinfo=UTC)
    day = Window(since=since, until=since + timedelta(1))
    counted = next(
        s.text for s in compose(work, config=BARE, window=day).body if " more " in s.text
    )
    assert re.search(r"lands 1\d more changes[.,]", counted), counted
    assert "compiler" not in counted.lower()
    topics = (TopicRule(name="compiler", paths=("src/foo/compiler/**",)),)
    configured = WireConfig(projects=(Project(repo="acme/foo", name="foo", topics=topics),))
    story = compose(work, config=configured, window=day)
    counted = next(s.text for s in story.body if " more " in s.text)
    assert re.search(r"\bsix in (the )?compiler\b", counted), counted


def test_one_of_a_collection_is_the_subject_not_a_trailing_place() -> None:
    # astro's "astro keeps … in svelte" and "… in Cloudflare" for integrations' changes.
    integrations = [
        ("fix(cloudflare): handle OOM on Vite 8 builds", "cloudflare/src/index.ts"),
        ("fix(svelte): keep props reactive on hydration", "svelte/src/client.ts"),
        ("fix: stream large responses", "node/src/serve.ts"),
    ]
    core = [
        ("feat: add a `redirects` option to routing", "packages/foo/src/core/routing/x.ts"),
        ("fix: validate X-Forwarded-Host", "packages/foo/src/core/app/node.ts"),
        ("fix: keep the dev toolbar open across reloads", "packages/foo/src/toolbar/x.ts"),
    ]
    # (each integration's change says why, so that each is named beside the core's three)
    why = "Users of the {} integration saw their sites fail, because nothing handled it."
    work = [
        change(f"packages/integrations/{path}", title=title, n=n).model_copy(
            update={"body": why.format(path.split("/")[0])}
        )
        for n, (title, path) in enumerate(integrations)
    ] + [change(path, title=title, n=n + 10) for n, (title, path) in enumerate(core)]
    since = datetime(2026, 6, 1, tzinfo=UTC)
    story = compose(work, config=BARE, window=Window(since=since, until=since + timedelta(7)))
    body = " ".join(s.text for s in story.body)
    assert re.search(r"\b[Ff]oo's svelte integration keeps props reactive on hydration\b", body)
    assert re.search(r"[Ff]oo's [Cc]loudflare integration handles OOM", body), body
    assert not re.search(r" in ([Ss]velte|[Cc]loudflare|[Nn]ode) \[", body), body


def test_a_place_the_title_names_with_its_accents_is_not_named_again() -> None:
    # astro's "uses the Sätteri databag for data in satteri": the folder drops the accent.
    (event,) = classify(
        [change("packages/satteri/src/data.ts", title="Use the Sätteri databag for data")], BARE
    )
    assert area_of(event) is None
    assert topic_key("Sätteri") == topic_key("satteri") == "satteri"


# ---------------------------------------------------------------- the proofread


@pytest.mark.parametrize(
    ("bad", "good", "titles"),
    [
        ("polars fixes X in Refactor [1].", "polars fixes X in polars-plan [1].", ()),
        ("It lands three changes: two in SECURITY.", "It lands three changes: two in CI.", ()),
        ("prometheus adds Y in feat/ui [1].", "prometheus adds Y in ui [1].", ()),
        ("vite fixes Z in Ssr [1].", "vite fixes Z in SSR [1].", ("fix(ssr): Z", "SSR: W")),
        ("prometheus fixes W in Promql [1].", "prometheus fixes W in promql [1].", ("promql: W",)),
        ("It lands two: one each in create-vite and Css.", "… in create-vite and CSS.", ("CSS",)),
        ("uv adds V in Ty [1].", "uv adds V in ty [1].", ("[ty] V",)),
    ],
)
def test_the_proofread_catches_a_place_no_reader_follows(
    bad: str, good: str, titles: tuple[str, ...]
) -> None:
    assert [p.rule for p in proofread_sentences([bad], titles=titles)] == ["place"]
    assert "place" not in [p.rule for p in proofread_sentences([good], titles=titles)]


def test_a_titles_own_words_and_our_theme_headings_are_no_misplaced_place() -> None:
    said = "pytest fixes a typo in Refactor notes [1]."
    assert proofread_sentences([said], titles=["Fix a typo in Refactor notes"]) == []
    for bad in ("Refactor", "SECURITY", "feat/ui", "Promql"):
        found = proofread_sentences(["It adds X."], headings=[bad], titles=["promql: X"])
        assert [p.rule for p in found] == ["place"], bad
    themes = [BACK_OUTS, OTHER, MAINTENANCE, IN_BRIEF, RELEASES, SECURITY, BREAKING]
    themes += [RELEASES_AND_SECURITY, "New and changed", "Fixes", "promql"]
    assert proofread_sentences(["It adds X."], headings=themes, titles=["fix: Y"]) == []


# ---------------------------------------------------------------- the tuning files


@pytest.mark.parametrize(
    ("stem", "title", "place"),
    [
        # `ali/aws/…`: "in Ali" named a three-letter folder no title writes.
        ("pytorch-ci-infra", "Update windows AMI to 20260501125018", None),
        # a title's clause was the place: "in Refactor layer initialization"
        ("huggingface-peft", "Refactor layer initialization: PR 2960 continued", "Tuners"),
        # a prefix the files show: src/peft/tuners/mixed/model.py
        ("huggingface-peft", "FIX Mixed Model: honor bias='<prefix>_only'", "Mixed Model"),
        # `feat(rust):` names no part of polars: the crate does
        ("pola-rs-polars", "feat(rust): Add a GPU slot to OptFlags", "polars-lazy"),
        # a bump's `[security]` tag is no place
        ("vitejs-vite", "chore(deps): update dependency lodash to v4.18.1 [security]", None),
        # svelte's benchmark harness is tooling
        ("sveltejs-svelte", "chore: generate markdown tables of CPU profiles", None),
    ],
)
def test_real_commits_get_a_place_a_reader_follows(
    stem: str, title: str, place: str | None
) -> None:
    path = next(ACTIVITY.glob(f"{stem}*.jsonl"))
    activity = next(a for a in ReplaySource(path).read_all() if a.title.startswith(title))
    (event,) = classify([activity], example_config())
    assert topic_of(event) == place, event.topics


# Words that name a kind of work, written out here rather than taken from the code: the
# rule of docs/DIGEST.md, not its implementation.
_COMMIT_TYPES = {
    "feat", "feature", "fix", "bugfix", "hotfix", "bug", "refactor", "refactoring", "perf",
    "performance", "security", "sec", "deprecate", "deprecation", "deprecated", "typing",
    "typ", "chore", "maint", "mnt", "enh", "enhancement", "style", "revert", "release",
    "build", "bld", "test", "tst", "wip", "misc",
}  # fmt: skip


@cache
def _windows() -> dict[str, tuple[list[Event], list[str]]]:
    """Every day and week of the tuning files, by every_story's label: its events and the
    titles and paths of its changes, where a project writes its names."""
    config = example_config()
    found = {}
    for path in sorted(ACTIVITY.glob("*.jsonl")):
        activity = tuple(ReplaySource(path).read_all())
        for span in days_and_weeks(activity):
            label = f"{path.stem} {span.since:%Y-%m-%d}+{(span.until - span.since).days}d"
            window = [a for a in activity if span.contains(a.landed_at)]
            written = [a.title for a in window] + [f.path for a in window for f in a.files]
            found[label] = (classify(window, config), written)
    return found


def _named(story: Story) -> str:
    parts = [s.heading for s in story.sections]
    parts += [s.text for s in story.body] + [i.text for i in story.action_items]
    return "\n".join(parts)


def _wrong(place: str, event: Event, written: list[str]) -> str | None:
    """What is wrong with a place a story names, by the rule of docs/DIGEST.md."""
    if place.split()[0].lower() in _COMMIT_TYPES:
        return "a commit type"
    if "/" in place and not place.startswith("@"):
        return "a path"
    if event.project.topic_for_key(topic_key(place)) is not None:
        return None  # configured: the project's own name
    paths = [f.path.split("/") for f in event.activity.files]
    folders = {topic_key(p) for parts in paths for p in parts[:-1]}
    packages = {
        topic_key(part)
        for parts in paths
        for parent, part in itertools.pairwise(parts[:-1])
        if parent in PACKAGE_FOLDERS
    }
    key = topic_key(place)
    if len(key) <= 3 and not place.isupper() and key not in packages and key not in folders:
        return "a fragment"
    as_written = any(re.search(rf"(?<![\w-]){re.escape(place)}(?![\w-])", w) for w in written)
    if not as_written and not (place == place.capitalize() and reads_as_word(place)):
        return "a case of ours"
    return None


def test_every_place_of_every_story_of_the_tuning_files_is_one_a_reader_follows() -> None:
    windows = _windows()
    problems = []
    for label, story in every_story():
        events, written = windows[label]
        text = _named(story)
        for event in events:
            place = topic_of(event)
            if place is None or not re.search(rf"(?<![\w-]){re.escape(place)}(?![\w-])", text):
                continue
            if why := _wrong(place, event, written):
                problems.append(f"{label}: {place!r} is {why} ({event.activity.title[:60]})")
    assert problems == [], "\n".join(sorted(set(problems)))


def test_a_folder_of_tests_is_no_collection_a_change_belongs_to() -> None:
    from digest.compose.phrases import collection_of
    from digest.config import Project
    from digest.reading.classify import classify_one
    from tests.test_audience import change

    users = Project(repo="acme/widgets", name="widgets")
    tested = change("Fix passing on allowed domains", "packages/core/test/units/manifest/a.test.js")
    assert collection_of("manifest", classify_one(tested, users)) is None
    shipped = change("Fix asset paths", "packages/integrations/netlify/src/a.ts")
    assert collection_of("netlify", classify_one(shipped, users)) == "integration"


def test_a_change_across_the_monorepos_packages_is_the_projects_not_one_packages() -> None:
    from datetime import UTC, datetime, timedelta

    from digest.compose import compose
    from digest.config import WireConfig
    from digest.model import Activity, FileChange, Window

    start = datetime(2026, 5, 4, tzinfo=UTC)

    def at(n: int, title: str, *paths: str) -> Activity:
        return Activity(
            repo="acme/widgetry",
            sha=f"{n:040x}",
            number=n,
            title=title,
            body="Fixes GHSA-4w7w-66w2-5vf9 in the bundler.",
            landed_at=start + timedelta(hours=n),
            files=tuple(FileChange(path=p, additions=80 if "/db/" in p else 20) for p in paths),
        )

    others = [
        at(2, "Fix crash on exit when the cache is missing", "packages/core/src/a.ts"),
        at(3, "Add a retry option to the client", "packages/core/src/b.ts"),
    ]
    window = Window(since=start, until=start + timedelta(days=1))
    spread = at(
        1,
        "Bump the bundler to its latest patch version",
        "packages/db/package.json",
        "packages/core/package.json",
        "packages/integrations/react/package.json",
    )
    body = " ".join(
        s.text for s in compose([spread, *others], config=WireConfig(), window=window).body
    )
    # (the update of a dependency ranks with the project's own changes: not first here)
    assert re.search(r"\b[Ww]idgetry bumps the bundler", body), body
    assert "db" not in body, body
    one = at(1, "Bump the bundler to its latest patch version", "packages/db/package.json")
    body = " ".join(
        s.text for s in compose([one, *others], config=WireConfig(), window=window).body
    )
    assert "db package bumps the bundler" in body, body


def test_a_few_changes_each_in_a_place_of_its_own_are_headed_by_their_places() -> None:
    # "Other changes" over a TSDB fix and a discovery feature named nothing a reader follows
    topics = tuple(
        TopicRule(name=name, paths=(f"src/{name.lower()}/**",)) for name in ("TSDB", "PromQL")
    )
    config = WireConfig(projects=(Project(repo="acme/foo", name="foo", topics=topics),))
    work = [
        change("src/tsdb/head.go", title="fix: stop a panic on an empty head", n=1),
        change("src/promql/engine.go", title="feat: add `info()` to queries", n=2),
        change("src/release/notes.md", title="release: v3.1.0", n=3),
    ]
    since = datetime(2026, 6, 1, tzinfo=UTC)
    story = compose(work, config=config, window=Window(since=since, until=since + timedelta(7)))
    headings = [heading for heading, _ in story.paragraphs()]
    assert any(h and re.fullmatch(r"(TSDB and PromQL|PromQL and TSDB)", h) for h in headings), (
        headings
    )
    # one without a place of its own leaves the catch-all as it was
    work[0] = change("src/misc.go", title="fix: stop a panic on an empty head", n=1)
    story = compose(work, config=config, window=Window(since=since, until=since + timedelta(7)))
    assert "TSDB and PromQL" not in [h for h, _ in story.paragraphs()]
