"""The line `make test` ends with when parts of the machine were missing."""

from __future__ import annotations

import pytest

from tests.conftest import not_exercised, skip_lines


def skipped(reason: str) -> pytest.TestReport:
    return pytest.TestReport(
        "tests/test_x.py::test_y", ("tests/test_x.py", 1, "test_y"), {}, "skipped",
        ("tests/test_x.py", 1, f"Skipped: {reason}"), "setup",
    )  # fmt: skip


def test_names_each_missing_part_once_with_the_command_that_installs_it() -> None:
    line = not_exercised(
        [
            skipped("WIRE_TEST_POSTGRES_URL is not set"),
            skipped("no PostgreSQL server binaries (bash .ci/start-postgres.sh installs them)"),
            skipped("no Chromium installed (run .ci/install-chromium.sh, or set WIRE_CHROMIUM)"),
        ]
    )
    assert line == (
        "PostgreSQL and browser tests skipped (3): run `bash .ci/run`, which installs both "
        "and runs the whole suite"
    )


def test_one_missing_part_and_other_skips() -> None:
    line = not_exercised([skipped("WIRE_TEST_POSTGRES_URL is not set"), skipped("slow")])
    assert line is not None and line.startswith("PostgreSQL tests skipped (1)")
    assert "installs it" in line


def test_says_nothing_when_every_part_was_there() -> None:
    assert not_exercised([skipped("not on this platform")]) is None
    assert not_exercised([]) is None


def test_skips_are_one_line_per_reason_most_frequent_first() -> None:
    reports = [skipped("WIRE_TEST_POSTGRES_URL is not set") for _ in range(93)]
    reports += [skipped("no Chromium installed") for _ in range(6)]
    assert skip_lines(reports) == [
        "SKIPPED (93) WIRE_TEST_POSTGRES_URL is not set",
        "SKIPPED (6) no Chromium installed",
    ]
