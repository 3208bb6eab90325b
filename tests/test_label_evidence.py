"""A label a subscriber acts on needs the project's own words (docs/DIGEST.md, "Label
evidence"): a flaw that is a hole, not a wrong sum; a deprecation this change makes, not
one it plans; a breaking change only where users can see the change."""

from __future__ import annotations

import pytest

from digest.reading.classify import classify_one
from tests.test_audience import USERS, change


@pytest.mark.parametrize(
    ("title", "body", "security"),
    [
        # memory safety, by name
        ("Out-of-bounds read in validateTensorLayout", "", True),
        ("[ET-VK] Fix use-after-free in PrepackNode", "", True),
        # an integer overflow guarding memory, or one the project says an attacker can reach
        ("Fix integer overflow in data loader bounds checks", "", True),
        (
            "Fix integer overflow in Vulkan multiply_integers",
            "An attacker could craft a file.",
            True,
        ),
        # an integer overflow in arithmetic: a wrong result
        ("BUG: fix integer overflow in sum of int8 arrays", "The result wrapped around.", False),
        ("fix: avoid stack overflow on `hot.invalidate()`", "", False),
        # a name is a name
        ("chore(deps): bump open-security-tools/ost-simple-sts to v2", "", False),
    ],
)
def test_a_security_fix_is_named_by_the_project(title: str, body: str, security: bool) -> None:
    event = classify_one(change(title, "src/a.c", body=body), USERS)
    assert event.security is security
    assert (event.urgency == "immediate") is security


@pytest.mark.parametrize(
    ("title", "body", "deprecation"),
    [
        ("depr(python): Deprecate the StringCache", "", True),
        ("fix: warn on deprecated envFile", "", True),
        ("Add Closeable", "Deprecate `resetNative()` in favor of `close()`.", True),
        # a plan, a condition or history is no deprecation this change makes
        (
            "feat: allow declarations in the template",
            "Allows `{let ...}` where `{@const ...}` is allowed (which will eventually get "
            "deprecated in favor of this new feature).",
            False,
        ),
        ("feat: add a parser", "Once `parse_v1` is deprecated, we can remove the shim.", False),
        ("fix: a crash", "`old_api` was deprecated in 1.2, so this calls `new_api`.", False),
        ("refactor: stop using deprecated `asyncio.get_event_loop`", "", False),
    ],
)
def test_a_deprecation_is_one_this_change_makes(title: str, body: str, deprecation: bool) -> None:
    assert classify_one(change(title, "src/a.py", body=body), USERS).deprecation is deprecation


def test_an_internal_change_breaks_nothing_of_the_users() -> None:
    removal = "Remove support for the legacy runner"
    assert classify_one(change(removal, "src/runner.py"), USERS).breaking
    internal = classify_one(change(removal, "tests/test_runner.py", "ci/run.sh"), USERS)
    assert internal.internal and not internal.breaking
    assert internal.urgency != "immediate"


@pytest.mark.parametrize(
    ("title", "paths", "internal"),
    [
        ("[refactor] Move comparison helpers to their own files", ("src/a.py",), True),
        ("Refactor fixture closure computation", ("src/fixtures.py",), True),
        ("MAINT: add tests for conj", ("src/core.py", "src/tests/test_conj.py"), True),
        # a release note says users will read of it, whatever the title's type
        (
            "refactor: simplify the option parser",
            ("src/options.py", ".changeset/soft-moments-exist.md"),
            False,
        ),
        ("chore: tidy scripts", ("src/a.py", "changelog/14608.bugfix.rst"), False),
        ("Add streaming decoder", ("src/decoder.py",), False),
    ],
)
def test_reworked_code_is_internal_and_a_release_note_is_news(
    title: str, paths: tuple[str, ...], internal: bool
) -> None:
    assert classify_one(change(title, *paths), USERS).internal is internal


@pytest.mark.parametrize(
    ("title", "paths", "trivia"),
    [
        ("docs(zh): update translations", ("docs/zh/guide/locales/zh.json",), "translations"),
        # the code that serves another language is no translation
        (
            "fix(i18n): respect trailingSlash in URL helpers",
            ("packages/astro/src/i18n/utils.ts", ".changeset/brave-dogs.md"),
            None,
        ),
    ],
)
def test_translations_are_files_of_another_language_not_its_code(
    title: str, paths: tuple[str, ...], trivia: str | None
) -> None:
    assert classify_one(change(title, *paths), USERS).trivia == trivia


def test_a_merge_commit_is_read_by_its_pull_requests_title() -> None:
    merged = change(
        "Merge pull request #31488 from luhenry/riscv",
        "src/core.c",
        body="BUG: fix memory leak in the zeros constructor\n\nThe buffer was never freed.",
    )
    event = classify_one(merged, USERS)
    assert event.kind == "fix"
    assert event.predicate == "fixes memory leak in the zeros constructor"
    assert event.body.startswith("The buffer was never freed")
