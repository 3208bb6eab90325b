"""Shared fixtures: a migrated store on real SQLite (a file under tmp_path) and on real
PostgreSQL (a database created for the session and dropped afterwards), and story builders.

Tests that take `database_url` or `store` run once per backend; the PostgreSQL run is
marked `postgres` and skipped only when WIRE_TEST_POSTGRES_URL is unset.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import secrets
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime

import asyncpg
import pytest
from sqlalchemy.engine import make_url

from bot.logs import WireHandler
from bot.store import Store, upgrade_database
from digest.model import ActionItem, CheckFigures, Reference, Sentence, Story, Window, stable_id
from tests.discord_loopback import loopback  # noqa: F401  (a fixture of the Discord tests)
from tests.leaks import fail_on_leaked_resources  # noqa: F401  (autouse: a leak fails its test)
from tests.scratch_database import admin_dsn, drop_database

POSTGRES_URL = os.environ.get("WIRE_TEST_POSTGRES_URL")
TABLES = (
    "subscriptions, channel_settings, stories, deliveries, posted_parts, acks, reminders, "
    "webhook_events, realtime_changes, bulletins, channel_bulletins, open_projects, withdrawn_repos"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--no-skip",
        action="store_true",
        help="fail any test that would skip (make chaos: a round that skipped proved nothing)",
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> pytest.TestReport:
    report = yield
    if report.skipped and item.config.getoption("--no-skip"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped under --no-skip: {reason}"
    return report


NOT_EXERCISED = pytest.StashKey[str | None]()
# What a skip reason says is missing → how the summary names it. `bash .ci/run` installs
# and starts each of them.
MISSING_PARTS = {
    "PostgreSQL": ("WIRE_TEST_POSTGRES_URL", "PostgreSQL"),
    "browser": ("Chromium", "playwright"),
}


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The urgency confusion table at the end of any run that ran its tests, and one line
    naming the parts of the machine a run could not exercise. Both are written here, by the
    process that prints the summary, because under pytest-xdist the tests themselves run in
    worker processes."""
    reports = [r for key in ("passed", "failed") for r in terminalreporter.stats.get(key, [])]
    if any(r.nodeid.startswith("tests/test_urgency.py") for r in reports):
        from tests.test_urgency import confusion_table

        terminalreporter.write_sep("-", "urgency labels")
        terminalreporter.write_line(confusion_table())
    if any(r.nodeid.startswith("tests/test_why.py") for r in reports):
        from tests.test_why import why_table

        terminalreporter.write_sep("-", "why, from the description")
        terminalreporter.write_line(why_table())
    skipped = terminalreporter.stats.get("skipped", [])
    if lines := skip_lines(skipped):
        terminalreporter.write_sep("=", "skipped, by reason")
        for line in lines:
            terminalreporter.write_line(line)
    terminalreporter.config.stash[NOT_EXERCISED] = not_exercised(skipped)


def pytest_unconfigure(config: pytest.Config) -> None:
    """The line of what was not exercised comes last, after pytest's own count, where a
    person finishing `make test` reads."""
    line = config.stash.get(NOT_EXERCISED, None)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if line and reporter is not None:
        reporter.write_line(line, yellow=True, bold=True)


def _skip_reason(report: pytest.TestReport) -> str:
    reason = str(report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr)
    return reason.removeprefix("Skipped: ")


def skip_lines(skipped: list[pytest.TestReport]) -> list[str]:
    """One line per reason a test skipped, most frequent first: "SKIPPED (93)
    WIRE_TEST_POSTGRES_URL is not set" rather than a line for each of the 93 tests (pytest's
    own `-rs` lists every test location, which buries the summary)."""
    counts = Counter(_skip_reason(r) for r in skipped if r.skipped)
    return [f"SKIPPED ({n}) {reason}" for reason, n in counts.most_common()]


def not_exercised(skipped: list[pytest.TestReport]) -> str | None:
    """One line naming what the skipped tests needed and did not find, with the command that
    installs it: "PostgreSQL and browser tests skipped (42): run `bash .ci/run`, …"."""
    counts = dict.fromkeys(MISSING_PARTS, 0)
    for report in skipped:
        reason = _skip_reason(report)
        for part, signs in MISSING_PARTS.items():
            if any(sign in reason for sign in signs):
                counts[part] += 1
                break
    counts = {part: n for part, n in counts.items() if n}
    if not counts:
        return None
    parts = " and ".join(counts)
    both = "installs both" if len(counts) > 1 else "installs it"
    return (
        f"{parts} tests skipped ({sum(counts.values())}): run `bash .ci/run`, which {both} "
        "and runs the whole suite"
    )


async def _admin(sql: str) -> None:
    assert POSTGRES_URL is not None
    conn = await asyncpg.connect(admin_dsn(POSTGRES_URL))
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


async def _drop(name: str) -> None:
    assert POSTGRES_URL is not None
    conn = await asyncpg.connect(admin_dsn(POSTGRES_URL))
    try:
        await drop_database(conn, name)
    finally:
        await conn.close()


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A fresh, migrated PostgreSQL database for this session, dropped at the end."""
    if not POSTGRES_URL:
        pytest.skip("WIRE_TEST_POSTGRES_URL is not set")
    name = f"wire_t_{os.getpid()}_{secrets.token_hex(4)}"
    asyncio.run(_admin(f'CREATE DATABASE "{name}"'))
    url = make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    try:
        asyncio.run(upgrade_database(url))
        yield url
    finally:
        asyncio.run(_drop(name))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest, tmp_path) -> tuple[str, str]:
    """(backend name, URL): a SQLite file under tmp_path, or the session's PostgreSQL database."""
    if request.param == "sqlite":
        return "sqlite", f"sqlite+aiosqlite:///{tmp_path / 'wire.db'}"
    return "postgres", request.getfixturevalue("postgres_url")


@pytest.fixture
async def database_url(backend: tuple[str, str]) -> str:
    """A migrated, empty database on the backend under test."""
    name, url = backend
    if name == "sqlite":
        await upgrade_database(url)
        return url
    conn = await asyncpg.connect(admin_dsn(url))
    try:
        await conn.execute(f"TRUNCATE {TABLES} RESTART IDENTITY CASCADE")
    finally:
        await conn.close()
    return url


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[Store]:
    """A Store on the backend under test."""
    opened = Store.from_url(database_url)
    try:
        yield opened
    finally:
        await opened.close()


WINDOW = Window(
    since=datetime(2026, 3, 2, 9, tzinfo=UTC), until=datetime(2026, 3, 3, 9, tzinfo=UTC)
)


def build_story(
    n: int = 0,
    *,
    items: int = 1,
    body: bool = True,
    problems: tuple[str, ...] | None = None,
    window: Window = WINDOW,
) -> Story:
    """A small story with a body, `items` action items and two references; `problems`
    gives it failed checks; `body=False` with no items makes a "no news" story."""
    refs = (
        Reference(
            n=1,
            repo="pytorch/executorch",
            number=1000 + n,
            title=f"Fix XNNPACK crash {n}",
            url=f"https://github.com/pytorch/executorch/pull/{1000 + n}",
        ),
        Reference(
            n=2,
            repo="pytorch/executorch",
            number=2000 + n,
            title=f"Arm backend: quantize {n}",
            url=f"https://github.com/pytorch/executorch/pull/{2000 + n}",
        ),
    )
    sentences = (
        Sentence(text=f"XNNPACK no longer crashes on model {n}.", refs=(1,)),
        Sentence(text="The Arm backend quantizes depthwise convolutions.", refs=(2,)),
    )
    action_items = tuple(
        ActionItem(
            id=stable_id("item", n, i),
            text=f"Rebuild the XNNPACK delegate ({i})",
            urgency="immediate" if i == 0 else "monitor",
            repo="pytorch/executorch",
            refs=(1,),
        )
        for i in range(items)
    )
    checks = None
    if problems is not None:
        checks = CheckFigures(
            dangling_citations=len(problems),
            attribution=1.0,
            action_integrity=1.0,
            canonical_names=1.0,
            coverage=1.0,
            reverts_cited=1.0,
            redundancy=0.0,
            headline_chars=30,
            body_sentences=2,
            body_words=16,
            problems=problems,
        )
    news = body or items
    return Story(
        id=stable_id("story", n, window.since.isoformat()),
        window=window,
        repos=("pytorch/executorch",),
        headline=f"EXECUTORCH FIXES XNNPACK CRASH {n}" if news else "NO NEWS IN EXECUTORCH",
        lede=f"A fix lands for crash {n}." if news else "Nothing landed in this window.",
        body=sentences if body else (),
        action_items=action_items,
        references=refs if news else (),
        checks=checks,
    )


@pytest.fixture
def make_story() -> Callable[..., Story]:
    """`build_story` as a fixture."""
    return build_story


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    """The root logger's lines go here for the test; the handler is removed afterwards."""
    stream = io.StringIO()
    level = logging.getLogger().level
    yield stream
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, WireHandler)]:
        root.removeHandler(handler)
    root.setLevel(level)
