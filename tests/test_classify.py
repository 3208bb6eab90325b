"""Title normalization and classification: the rules N1–N8 of DIGEST.md on real titles."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from digest.config import Project, TopicRule, WireConfig
from digest.english.clauses import nominalize
from digest.english.shapes import split_verb, third_person
from digest.model import Activity, FileChange
from digest.reading.bodies import clean_body
from digest.reading.classify import classify, classify_one, undo_target
from digest.reading.signals import is_new_support
from digest.reading.titles import split_title
from digest.sources.commits import split_message
from tests.digest_data import example_config

EXECUTORCH = example_config().project("pytorch/executorch")


def change(
    title: str, *paths: str, body: str = "", repo: str = "pytorch/executorch", sha: str = ""
) -> Activity:
    return Activity(
        repo=repo,
        sha=sha or f"{abs(hash(title)):040x}"[:40],
        title=title,
        body=body,
        landed_at=datetime(2026, 5, 25, tzinfo=UTC),
        files=tuple(FileChange(path=p, additions=10, deletions=2) for p in paths),
    )


@pytest.mark.parametrize(
    ("message", "title", "number"),
    [
        ("Set test seed per-test (#19744)", "Set test seed per-test", 19744),
        (
            "Harden against concurrency violations (#19734) (#19734)",
            "Harden against concurrency violations",
            19734,
        ),
        (
            "Add Buck deps\n\nPull Request resolved: https://github.com/pytorch/executorch/pull/20642",
            "Add Buck deps",
            20642,
        ),
        ("Collapse annotation onto a single line", "Collapse annotation onto a single line", None),
    ],
)
def test_n1_pr_number_from_title_or_trailer(message: str, title: str, number: int | None) -> None:
    assert split_message(message)[0] == title
    assert split_message(message)[2] == number


@pytest.mark.parametrize(
    ("title", "subject", "tags"),
    [
        ("[executorch][webgpu] Add matmul shader", "Add matmul shader", ("executorch", "webgpu")),
        ("[1/N][ez] Move helpers", "Move helpers", ()),
        (
            "Arm backend: Validate TOSA resize parameters",
            "Validate TOSA resize parameters",
            ("Arm",),
        ),
        (
            "Qualcomm AI Engine Direct - Refactor llama runner",
            "Refactor llama runner",
            ("Qualcomm AI Engine Direct",),
        ),
        ("fix(runtime): guard null method", "guard null method", ("runtime",)),
        ("Cortex-M backend: enable M0+ builds", "enable M0+ builds", ("Cortex-M",)),
    ],
)
def test_n2_n3_tags_and_prefixes_are_split_off(
    title: str, subject: str, tags: tuple[str, ...]
) -> None:
    parts = split_title(title)
    assert parts.subject == subject
    assert parts.tags == tags


def test_n2_n3_prefixes_become_configured_topics_with_case_variants_merged() -> None:
    for title in (
        "NXP backend: Enable Sub Tensor",
        "NXP Backend: Enable Sub Tensor",
        "[nxp] Enable Sub Tensor",
    ):
        assert classify_one(change(title), EXECUTORCH).topics == ("NXP",)
    vulkan = classify_one(change("[et-vk][ops] Add conv2d"), EXECUTORCH)
    assert vulkan.topics == ("Vulkan",)


def test_n4_back_out_is_a_revert_linked_by_its_quoted_title() -> None:
    event = classify_one(
        change(
            'Back out "Globally serialize XNNPACK execution, add logging"',
            "backends/xnnpack/runtime/XNNExecutor.cpp",
        ),
        EXECUTORCH,
    )
    assert event.kind == "revert"
    assert event.reverts_title == "Globally serialize XNNPACK execution, add logging"
    assert event.topics == ("XNNPACK",)
    assert event.predicate.startswith("backs out ")


def test_unquoted_revert_is_a_revert_too() -> None:
    assert undo_target("Revert PyTorch 2.12 pin bump") == (1, "PyTorch 2.12 pin bump")
    assert undo_target("Revert change to default timeout") == (1, "change to default timeout")


@pytest.mark.parametrize(
    "title",
    ["revert es-module-lexer to 2.1.0", "Revert preview release to single job, skip cache"],
)
def test_revert_x_to_a_state_returns_x_to_it_and_backs_nothing_out(title: str) -> None:
    # "backs out “es-module-lexer to 2.1.0”" and a [monitor] item misread the verb
    assert undo_target(title) == (0, title)


@pytest.mark.parametrize(
    "title",
    [
        'Revert "Revert "Add int4 kernels""',
        "Reland XNNPACK update",
        "Re-land XNNPACK update",
        "Reapply PyTorch 2.12 pin with CI fixes",
    ],
)
def test_n5_relands(title: str) -> None:
    assert classify_one(change(title), EXECUTORCH).kind == "reland"


@pytest.mark.parametrize(
    ("imperative", "third"),
    [
        ("add", "adds"),
        ("fix", "fixes"),
        ("back out", "backs out"),
        ("split", "splits"),
        ("apply", "applies"),
        ("do", "does"),
        ("switch", "switches"),
    ],
)
def test_n6_third_person(imperative: str, third: str) -> None:
    assert third_person(imperative) == third


def test_n6_gerunds_and_past_forms_are_verbs_and_nouns_are_not() -> None:
    assert split_verb("Adding Qwen3 support") == ("add", "Qwen3 support")
    assert split_verb("Fixed flaky test") == ("fix", "flaky test")
    assert split_verb("Yolo26 in test matrix")[0] is None
    assert (
        classify_one(change("Yolo26 in test matrix"), EXECUTORCH).predicate
        == "adds Yolo26 in test matrix"
    )


def test_nominal_table_turns_a_reverted_title_into_a_noun_phrase() -> None:
    assert (
        nominalize("Globally serialize XNNPACK execution, add logging") == "XNNPACK serialization"
    )
    assert nominalize("Frobnicate the widgets") is None


def test_n7_paths_give_topics_by_glob_and_top_level_dirs_without_rules() -> None:
    event = classify_one(
        change("Tune kernels", "backends/arm/quantizer.py", "backends/cortex_m/ops.py"), EXECUTORCH
    )
    assert set(event.topics) == {"Arm", "Cortex-M"}
    bare = Project(repo="acme/widgets", name="Widgets")
    assert classify_one(
        change("Tune", "engine/core.py", "README.md", repo="acme/widgets"), bare
    ).topics == ("Engine",)


def test_n8_revert_and_original_in_one_window_become_one_event() -> None:
    original = change(
        "Globally serialize XNNPACK execution, add logging", "backends/xnnpack/a.cpp", sha="a" * 40
    )
    revert = change(
        'Back out "Globally serialize XNNPACK execution, add logging"',
        "backends/xnnpack/a.cpp",
        sha="b" * 40,
    )
    events = classify([original, revert], example_config())
    assert len(events) == 1
    assert events[0].activity.sha == "b" * 40
    assert events[0].linked == (original,)


def test_clean_body_strips_trailers_stacks_and_test_plans() -> None:
    body = (
        "Stack from [ghstack] (oldest at bottom):\n* #123\n* __->__ #124\n\n"
        "Moves the allocator onto the caller stream.\n\n"
        "Differential Revision: D1\nPull Request resolved: https://github.com/o/r/pull/1\n"
        "cc @alice @bob\nSigned-off-by: A <a@b>\n\n## Test plan\nran it"
    )
    assert clean_body(body) == "Moves the allocator onto the caller stream."


def test_ci_gate_and_breaking_changes_are_flagged() -> None:
    ci = Project(
        repo="pytorch/ci-infra",
        name="ci-infra",
        topics=(TopicRule(name="CI", paths=(".github/**",)),),
    )
    gate = classify_one(
        change(
            "Split pre-merge CI into fast and slow gates",
            ".github/workflows/pre-merge.yml",
            repo="pytorch/ci-infra",
        ),
        ci,
    )
    assert gate.ci_gate
    breaking = classify_one(
        change(
            "Remove legacy runner API", "runtime/a.cpp", body="BC-breaking: callers must migrate."
        ),
        EXECUTORCH,
    )
    assert breaking.breaking
    assert not classify_one(change("Add docs page", "docs/source/a.md"), EXECUTORCH).ci_gate


def test_kinds_from_paths_and_verbs() -> None:
    assert (
        classify_one(change("Improve docs", "docs/source/a.md", "docs/b.rst"), EXECUTORCH).kind
        == "docs"
    )
    assert (
        classify_one(change("Fix crash on empty input", "runtime/core/a.cpp"), EXECUTORCH).kind
        == "fix"
    )
    assert classify_one(change("Bump torch pin", "torch_pin.py"), EXECUTORCH).kind == "bump"
    assert (
        classify_one(change("Add new op", "kernels/portable/op.cpp"), EXECUTORCH).kind == "feature"
    )


def test_unconfigured_repository_gets_its_name_from_the_slug() -> None:
    assert WireConfig().project("acme/widgets").name == "widgets"


def test_a_reverted_title_loses_its_own_prefix() -> None:
    event = classify_one(
        change('Revert "Qualcomm AI Engine Direct - heap profiling at runtime with HTP backend"'),
        EXECUTORCH,
    )
    assert event.kind == "revert"
    assert event.obj == "heap profiling at runtime with HTP backend"


def bump(title: str, *paths: str, author: str = "dependabot[bot]", body: str = "") -> Activity:
    activity = change(title, *paths, repo="acme/widgets", body=body)
    return activity.model_copy(update={"author": author})


WIDGETS = Project(repo="acme/widgets", name="widgets")


def test_a_bump_is_labelled_by_the_projects_own_words_not_the_dependencys() -> None:
    """Breaking and security labels of a bump need the project's own title, labels or (from
    a person) body: a bot's body quotes the dependency's release notes, and a name that
    contains "security" is a name."""
    quoted = bump(
        "chore(deps): update conda-incubator/setup-miniconda action to v3.3.0",
        ".github/workflows/ci.yml",
        "pyproject.toml",
        author="renovate[bot]",
        body="### Release notes\n\n#### BREAKING CHANGE: drops Node 16.\n\nIt's not a security fix;"
        " see GHSA-aaaa-bbbb-cccc for the old one.",
    )
    event = classify_one(quoted, WIDGETS)
    assert event.kind == "bump" and not event.breaking and not event.security
    named = classify_one(
        bump("Update dependency open-security-tools/ost-simple-sts to v1.4.0", "package.json"),
        WIDGETS,
    )
    assert named.bump is not None and not named.bump.security and not named.security
    tagged = classify_one(
        bump("chore(deps): update dependency ws to v8.20.1 [security]", "package.json"), WIDGETS
    )
    assert tagged.bump is not None and tagged.bump.security and tagged.security
    labelled = bump("Bump idna from 3.6 to 3.7", "requirements.txt").model_copy(
        update={"labels": ("dependencies", "security")}
    )
    assert classify_one(labelled, WIDGETS).security
    bot_body = bump(
        "Bump urllib3 from 2.6.3 to 2.6.4", "requirements.txt", body="Fixes CVE-2026-1234."
    )
    assert not classify_one(bot_body, WIDGETS).security


def test_dependency_bumps_are_kind_bump_with_major_security_and_shipped_flags() -> None:
    minor = classify_one(bump("Bump aiohttp from 3.13.4 to 3.14.0", "uv.lock"), WIDGETS)
    assert minor.kind == "bump" and minor.bump is not None
    assert not minor.bump.major and not minor.bump.stands_alone
    shipped = classify_one(bump("Bump pyo3 from 0.28.2 to 0.29.0", "core/Cargo.toml"), WIDGETS)
    assert shipped.bump is not None and shipped.bump.major and shipped.bump.stands_alone
    # A major bump of a CI action or a dev-only lock file is not something users install.
    action = classify_one(
        bump("Bump actions/checkout from 4 to 5", ".github/workflows/ci.yml"), WIDGETS
    )
    assert action.kind == "bump" and action.bump is not None
    assert action.bump.major and not action.bump.shipped and not action.bump.stands_alone
    dev = classify_one(bump("Bump black from 24.10.0 to 26.3.1", "uv.lock"), WIDGETS)
    assert dev.bump is not None and dev.bump.major and not dev.bump.stands_alone
    example = bump("Bump lodash from 3.10.1 to 4.18.1", "examples/demo-app/package.json")
    assert not classify_one(example, WIDGETS).bump.shipped
    security = bump(
        "Bump urllib3 from 2.6.3 to 2.6.4",
        "requirements.txt",
        body="Fixes CVE-2026-1234.",
        author="Ana Lima",  # a person's own body: the project's word
    )
    fixed = classify_one(security, WIDGETS).bump
    assert fixed is not None and fixed.security and not fixed.major and fixed.stands_alone
    pin = classify_one(
        change("Update PyTorch pin to the 2026-06-01 nightly", "torch_pin.py"), EXECUTORCH
    )
    assert pin.kind == "bump"
    # Not every "bump" is a dependency: a replica count is configuration.
    for title in (
        "Bump node-compactor resource limits",
        "Bump ARC prepare-job timeout to 2h",
        "Bump BuildKit replicas_per_arch from 5 to 12",
    ):
        assert classify_one(change(title, "osdc/a.yaml"), EXECUTORCH).kind != "bump", title


def test_routine_bumps_rank_below_real_work() -> None:
    from digest.rank import rank

    routine = classify_one(
        bump("Bump idna from 3.10 to 3.15", "uv.lock", "requirements.txt"), WIDGETS
    )
    fix = classify_one(
        change("Fix validation of `Fraction` subclasses", "src/w/a.py", repo="acme/widgets"),
        WIDGETS,
    )
    major = classify_one(
        bump("Bump pyo3 from 0.28.2 to 0.29.0", "core/Cargo.toml", "core/Cargo.lock"), WIDGETS
    )
    order = [e.activity.title for e, _ in rank([routine, fix, major])]
    assert order.index(fix.activity.title) < order.index(routine.activity.title)
    assert order.index(major.activity.title) < order.index(routine.activity.title)


@pytest.mark.parametrize(
    "partial",
    [
        "core: streaming cache: initial code and benchmarks",
        "Groundwork for the streaming cache",
        "Scaffolding for the streaming cache",
        "Prep for the streaming cache",
    ],
)
def test_a_step_of_work_under_way_ranks_below_the_finished_work_beside_it(partial: str) -> None:
    from digest.rank import rank

    step = classify_one(change(partial, "src/w/cache.py", repo="acme/widgets"), WIDGETS)
    whole = classify_one(
        change("Add a timeout to the streaming reader", "src/w/reader.py", repo="acme/widgets"),
        WIDGETS,
    )
    order = [e.activity.title for e, _ in rank([step, whole])]
    assert order == [whole.activity.title, partial], order


@pytest.mark.parametrize(
    ("title", "new"),
    [
        ("Add int4 support for XNNPACK linear", True),
        ("Accept `None` in `MultiHostUrl.build()`'s `hosts` parameter", True),
        ("Allow periods in unquoted `NameEmail` display names", True),
        ("Recognise `WindowsPath` as a schema type", True),
        ("Accept review suggestions", False),  # no input named
        ("Allow", False),
        ("Remove int4 support for XNNPACK linear", False),
    ],
)
def test_new_support_includes_input_newly_accepted(title: str, new: bool) -> None:
    assert is_new_support(title) is new


def test_a_deprecation_type_that_removes_what_was_deprecated_deprecates_nothing_new() -> None:
    from tests.test_audience import USERS, change

    expired = classify_one(change("DEP: Remove warnings from `read_rows`", "src/io.py"), USERS)
    assert not expired.deprecation
    fresh = classify_one(change("DEP: Deprecate setting the dtype of an array", "src/a.py"), USERS)
    assert fresh.deprecation


def test_a_revert_is_named_by_a_noun_phrase_only_when_its_object_is_one() -> None:
    from digest.english.clauses import nominalize

    assert nominalize("Globally serialize XNNPACK execution, add logging") == (
        "XNNPACK serialization"
    )
    assert nominalize("Enable ruff linting in test_linalg.py") is None


def test_a_tools_revert_and_restore_titles_are_a_back_out_and_a_reland() -> None:
    from tests.test_audience import USERS, change

    revert = 'fix: revert, "fix: escape ids with multiple null bytes (#22687)"'
    assert undo_target(split_subject(revert)) == (1, "fix: escape ids with multiple null bytes")
    restore = 'fix: restore, "fix: resolve the lockfile from the workspace root (#22700)"'
    assert classify_one(change(restore, "src/a.ts"), USERS).kind == "reland"


def split_subject(title: str) -> str:
    from digest.reading.titles import split_title

    return split_title(title).subject


def test_backing_out_a_change_its_title_says_did_harm_asks_no_watching() -> None:
    from tests.test_audience import USERS, change

    harm = "Revert isNode detection that caused Cloudflare build regression"
    event = classify_one(change(harm, "packages/cloudflare/src/a.ts"), USERS)
    assert (event.kind, event.filed_as_fix, event.must_act) == ("revert", True, False)
    plain = classify_one(change('Revert "Add heap profiling"', "src/a.c"), USERS)
    assert plain.must_act and not plain.filed_as_fix


def test_a_package_deprecated_by_its_release_note_alone_is_a_deprecation() -> None:
    from tests.test_audience import USERS, change

    # a changeset and a README notice: no code, and still the package's news, no changelog
    noted = change(
        "feat: deprecate @acme/db", ".changeset/deprecate-db.md", "packages/db/README.md"
    )
    event = classify_one(noted, USERS)
    assert (event.deprecation, event.trivia) == (True, None)
    guide = classify_one(change("docs: deprecate the old guide", "docs/guide.md"), USERS)
    assert not guide.deprecation


@pytest.mark.parametrize(
    ("title", "body", "predicate"),
    [
        # peft's "FIX State dict injection with weight conversion": the body says "the
        # state_dict", so "State" opens a noun phrase and the fix fixes it
        (
            "FIX State dict injection with weight conversion",
            "When a model is loaded, the state_dict needs to be converted first.",
            "fixes state dict injection with weight conversion",
        ),
        (
            "feat: Cache key derivation for remote plugins",
            "Each cache key now holds the plugin's version.",
            "adds cache key derivation for remote plugins",
        ),
        # the body never names the words as a thing: the title's verb stands
        (
            "fix: Cache the parsed config between runs",
            "Parsing took a second on every run.",
            "caches the parsed config between runs",
        ),
    ],
)
def test_a_title_whose_first_words_its_body_names_as_a_thing_opens_with_no_verb(
    title: str, body: str, predicate: str
) -> None:
    event = classify_one(change(title, "src/widgets/core.py", body=body), EXECUTORCH)
    assert event.predicate == predicate
