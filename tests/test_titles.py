"""Title normalization (N1–N3) and dependency bumps, on written and on real titles."""

from __future__ import annotations

import json
import re
import unicodedata

import pytest

from digest.reading.titles import BumpInfo, is_dependency_bump, split_title, strip_decoration
from tests.digest_data import ACTIVITY


@pytest.mark.parametrize(
    ("title", "subject", "tags"),
    [
        ("feat(parser): add TOML tables", "add TOML tables", ("parser",)),
        ("fix!: drop Python 3.9", "drop Python 3.9", ()),
        ("chore(deps): bump ruff from 0.5.0 to 0.6.0", "bump ruff from 0.5.0 to 0.6.0", ()),
        ("docs(core, cli): explain caching", "explain caching", ("core", "cli")),
        ("[executorch][webgpu] Add matmul shader", "Add matmul shader", ("executorch", "webgpu")),
        ("[1/N][ez] Move helpers", "Move helpers", ()),
        ("2/x: Introduce a model cache", "Introduce a model cache", ()),
        ("(3/4) Split the planner", "Split the planner", ()),
        ("Split the planner (3/4)", "Split the planner", ()),
        (
            "Arm backend: Validate TOSA resize parameters",
            "Validate TOSA resize parameters",
            ("Arm",),
        ),
        ("[CRCR] Retry flaky uploads", "Retry flaky uploads", ("CRCR",)),
        (
            "Qualcomm AI Engine Direct - Refactor llama runner",
            "Refactor llama runner",
            ("Qualcomm AI Engine Direct",),
        ),
        ("NXP backend - added support for `aten.abs`", "added support for `aten.abs`", ("NXP",)),
        (
            "gemma4_31b (MLX): don't copy the KV cache",
            "don't copy the KV cache",
            ("gemma4_31b", "MLX"),
        ),
        ("Use standard library `LazyLock` (#13171)", "Use standard library `LazyLock`", ()),
        ("Generic numeric debugging (#19317) (#19317)", "Generic numeric debugging", ()),
        ("👥 Update Pydantic People", "Update Pydantic People", ()),
        (":sparkles: Add dark mode", "Add dark mode", ()),
        ("Add dark mode :tada:", "Add dark mode", ()),
        ("✨ feat(ui): add dark mode 🎉", "add dark mode", ("ui",)),
        ("Fix the race [ghstack-poisoned]", "Fix the race", ()),
        ("Fix Foo - part 2", "Fix Foo - part 2", ()),
        ('Revert "Arm backend: Add X"', 'Revert "Arm backend: Add X"', ()),
    ],
)
def test_split_title_takes_off_everything_but_the_subject(
    title: str, subject: str, tags: tuple[str, ...]
) -> None:
    parts = split_title(title)
    assert parts.subject == subject
    assert parts.tags == tags


def test_conventional_commit_kind_scope_and_breaking_marker() -> None:
    parts = split_title("feat(resolver)!: require explicit indexes")
    assert (parts.kind, parts.scope, parts.breaking_marker) == ("feat", "resolver", True)
    assert not split_title("fix(resolver): keep order").breaking_marker
    assert split_title("Add X (#42)").number == 42
    assert split_title("revert: feat: add X").subject == "Revert feat: add X"


def test_a_branch_name_for_a_title_gives_its_kind_and_no_area() -> None:
    # astro's "astro adds Fix/16633 noimagemetadata for svg …"
    parts = split_title("Fix/16633 noimagemetadata for svg with zero height")
    assert (parts.kind, parts.subject, parts.tags) == (
        "fix",
        "noimagemetadata for svg with zero height",
        (),
    )
    # A path in a title's words is no branch name.
    assert split_title("Handle fix/feat folders").subject == "Handle fix/feat folders"


def test_a_hostile_run_of_pr_numbers_is_taken_off_whole() -> None:
    parts = split_title("Add X" + " (#7)" * 3000)
    assert (parts.subject, parts.number) == ("Add X", 7)
    assert split_title("(#1)" * 2500 + "x)").subject.endswith("x)")


def test_strip_decoration_keeps_code_spans_and_punctuation() -> None:
    assert strip_decoration("🚀 Use `LazyLock`") == "Use `LazyLock`"
    assert strip_decoration("Add ^ operator") == "Add ^ operator"
    assert strip_decoration("👩‍💻 Add X 👍🏽") == "Add X"


@pytest.mark.parametrize(
    ("title", "author", "labels", "expected"),
    [
        (
            "Bump aiohttp from 3.13.4 to 3.14.0",
            "dependabot[bot]",
            (),
            BumpInfo("aiohttp", "3.13.4", "3.14.0"),
        ),
        (
            "Bump cryptography from 46.0.7 to 48.0.1",
            "dependabot[bot]",
            (),
            BumpInfo("cryptography", "46.0.7", "48.0.1", major=True),
        ),
        (
            "Bump pyo3 from 0.28.2 to 0.29.0 in /pydantic-core",
            "me",
            (),
            BumpInfo("pyo3", "0.28.2", "0.29.0", major=True),
        ),
        ("Bump libc from 0.2.155 to 0.2.185", "me", (), BumpInfo("libc", "0.2.155", "0.2.185")),
        (
            "Bump mymindstorm/setup-emsdk from 14 to 16",
            "dependabot[bot]",
            (),
            BumpInfo("mymindstorm/setup-emsdk", "14", "16", major=True),
        ),
        (
            "Bump dtolnay/rust-toolchain from efa25f7f19611383d5b0 to 3c5f7ea28cd621ae0bf5",
            "dependabot[bot]",
            (),
            BumpInfo("dtolnay/rust-toolchain", "efa25f7f19611383d5b0", "3c5f7ea28cd621ae0bf5"),
        ),
        (
            "Bump CodSpeedHQ/action from 4.12.1 to 4.14.0, pytest-codspeed from 4.2.0 to 5.0.0",
            "dependabot[bot]",
            (),
            BumpInfo("CodSpeedHQ/action", "4.12.1", "4.14.0", major=True, count=2),
        ),
        (
            "Bump the rust-deps group across 1 directory with 6 updates",
            "dependabot[bot]",
            (),
            BumpInfo("rust-deps group", count=6),
        ),
        (
            "Update dependency eslint to v9",
            "renovate[bot]",
            (),
            BumpInfo("eslint", None, "v9", major=True),
        ),
        (
            "Update dependency eslint to v8.57.1",
            "renovate[bot]",
            (),
            BumpInfo("eslint", None, "v8.57.1"),
        ),
        ("chore(deps): update rust crate serde to 1.0.200", "renovate[bot]", (), BumpInfo(None)),
        (
            "chore(deps): bump tokio from 1.37.0 to 1.38.0",
            "me",
            (),
            BumpInfo("tokio", "1.37.0", "1.38.0"),
        ),
        ("Update `uuid` to 1.23.2", "Ben", (), BumpInfo("uuid", None, "1.23.2")),
        (
            "Bump requests from 2.31.0 to 2.32.0 (security fix for CVE-2024-35195)",
            "dependabot[bot]",
            (),
            BumpInfo("requests", "2.31.0", "2.32.0", security=True),
        ),
        (
            "Bump idna from 3.6 to 3.7",
            "dependabot[bot]",
            ("security",),
            BumpInfo("idna", "3.6", "3.7", security=True),
        ),
        ("Upgrade to pytest 9, use strict mode", "dependabot[bot]", (), BumpInfo(None)),
        ("Bump torch pin", "me", (), BumpInfo("torch")),
        ("Update to PyO3 0.29", "Victorien", (), BumpInfo("PyO3", to_version="0.29")),
    ],
)
def test_dependency_bumps(
    title: str, author: str, labels: tuple[str, ...], expected: BumpInfo
) -> None:
    assert is_dependency_bump(title, author, labels) == expected


@pytest.mark.parametrize(
    "title",
    [
        "Update documentation links",
        "Bump version to 2.13",
        'Revert "Bump aiohttp from 3.13.4 to 3.14.0"',
        "Add regression test for pickling",
        "Update contributing guide to replace pydocstyle with Ruff",
    ],
)
def test_changes_that_are_no_dependency_bump(title: str) -> None:
    assert is_dependency_bump(title, "Victorien") is None


# ---------------------------------------------------------------- real titles

_FILES = (
    "pydantic-pydantic-2026-q2.jsonl",
    "pytorch-executorch-2026-q2.jsonl",
    "pytorch-ci-infra-2026-05.jsonl",
)


def real_commits() -> list[dict[str, str]]:
    rows = []
    for name in _FILES:
        for line in (ACTIVITY / name).read_text().splitlines():
            row = json.loads(line)
            rows.append({"title": row["message"].splitlines()[0], "author": row["author_name"]})
    return rows


def test_real_subjects_carry_no_tag_marker_number_or_emoji() -> None:
    rows = real_commits()
    leftovers = []
    for row in rows:
        subject = split_title(row["title"]).subject
        if (
            re.match(
                r"^\s*\[|^\d+\s*/\s*(\d+|n|x)\b|^(feat|fix|chore|docs|ci|test)(\([^)]*\))?!?:\s",
                subject,
                re.I,
            )
            or re.search(r"\(#\d+\)\s*$", subject)
            or unicodedata.category(subject[0]) == "So"
            or subject != subject.strip()
        ):
            leftovers.append((row["title"], subject))
    assert len(rows) > 1300
    assert leftovers == []


def test_every_bot_bump_of_pydantic_is_a_bump_and_no_feature_is() -> None:
    rows = [r for r in real_commits() if "Victorien" in r["author"] or "bot]" in r["author"]]
    bumps = [r for r in rows if is_dependency_bump(r["title"], r["author"])]
    dependabot = [r for r in rows if r["author"].startswith("dependabot")]
    assert all(is_dependency_bump(r["title"], r["author"]) for r in dependabot)
    assert len(dependabot) >= 30
    assert not any(r["title"].startswith(("Fix ", "Add ", "Support ")) for r in bumps)
