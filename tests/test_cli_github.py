"""`wire digest --source github:…` end to end: the real CLI process against the loopback GitHub."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from tests.fakes.github import FakeGitHub
from tests.test_source_github import TOKEN, pulls_on

REPO = "pytorch/executorch"
DAY = datetime(2026, 5, 25, tzinfo=UTC)
WIRE = [sys.executable, "-m", "bot.app.cli"]


@pytest.fixture
async def github() -> AsyncIterator[FakeGitHub]:
    server = FakeGitHub(tokens=[TOKEN])
    async with server:
        server.add_pulls(REPO, pulls_on(DAY, 3))
        yield server


async def wire(github: FakeGitHub, *args: str, token: str) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_TOKEN", "WIRE_GITHUB__TOKEN")}
    env |= {"WIRE_GITHUB__TOKEN": token, "WIRE_GITHUB__API_URL": github.url}
    process = await asyncio.create_subprocess_exec(
        *WIRE, "digest", *args, "--since", "2026-05-25T00:00:00Z", "--until", "2026-05-26T00:00:00Z",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env,
    )  # fmt: skip
    out, err = await process.communicate()
    return process.returncode or 0, out.decode(), err.decode()


async def test_a_story_from_github(github: FakeGitHub) -> None:
    code, out, err = await wire(
        github, "--source", f"github:{REPO}", "--format", "json", token=TOKEN
    )
    assert code == 0, err
    story = json.loads(out)
    assert {r["repo"] for r in story["references"]} == {REPO}
    assert len(story["references"]) == 3
    assert TOKEN not in out + err


async def test_a_bad_token_is_one_sentence_naming_the_setting(github: FakeGitHub) -> None:
    code, out, err = await wire(github, "--source", f"github:{REPO}", token="ghp_wrong")
    assert code == 2
    assert err.strip() == (
        "wire: GitHub rejected the token (401 Bad credentials); "
        "set GITHUB_TOKEN or WIRE_GITHUB__TOKEN to a valid token"
    )
    assert "ghp_wrong" not in out + err


async def test_an_unknown_repository_is_one_sentence(github: FakeGitHub) -> None:
    code, _, err = await wire(github, "--source", "github:pytorch/nosuch", token=TOKEN)
    assert code == 2
    assert err.startswith("wire: GitHub has no repository pytorch/nosuch")
    assert "Traceback" not in err
