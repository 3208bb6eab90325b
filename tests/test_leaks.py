"""tests/leaks.py fails a test that leaks, and only such a test (run in a pytest of its own)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ASYNC = ("-o", "asyncio_mode=auto", "-o", "asyncio_default_fixture_loop_scope=function")

CASES = """
import gc

import aiohttp


async def test_closes_its_session():
    async with aiohttp.ClientSession():
        pass


async def test_leaks_a_session_it_drops():
    aiohttp.ClientSession()
    gc.collect()


async def test_leaks_a_session_it_keeps():
    KEPT.append(aiohttp.ClientSession())


async def test_leaks_a_connector():
    KEPT.append(aiohttp.TCPConnector())


async def work():
    pass


def test_forgets_to_await():
    work()


KEPT = []
"""


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The report of a pytest run over CASES with the leak fixture of conftest.py."""
    folder = tmp_path_factory.mktemp("leaks")
    (folder / "conftest.py").write_text(
        "from tests.leaks import fail_on_leaked_resources  # noqa: F401\n", encoding="utf-8"
    )
    (folder / "test_cases.py").write_text(CASES, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(folder), "-p", "no:cacheprovider", "-rA", *ASYNC],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
    )
    return done.stdout + done.stderr


def test_a_test_that_closes_what_it_opens_passes(outcome: str) -> None:
    assert "PASSED test_cases.py::test_closes_its_session" in outcome


@pytest.mark.parametrize(
    ("case", "reported"),
    [
        ("test_leaks_a_session_it_drops", "Unclosed client session"),
        ("test_leaks_a_session_it_keeps", "aiohttp.client.ClientSession left open"),
        ("test_leaks_a_connector", "aiohttp.connector.TCPConnector left open"),
        ("test_forgets_to_await", "coroutine 'work' was never awaited"),
    ],
)
def test_a_leak_fails_its_test_and_says_what_leaked(outcome: str, case: str, reported: str):
    assert f"ERROR test_cases.py::{case} - Failed: leaked resources" in outcome
    assert reported in section(outcome, f"ERROR at teardown of {case}"), outcome


def section(report: str, title: str) -> str:
    """The part of a pytest report under the `____ title ____` header."""
    parts = re.split(r"^_{3,} (.+?) _{3,}$", report, flags=re.MULTILINE)
    return next(body for head, body in zip(parts[1::2], parts[2::2], strict=True) if head == title)
