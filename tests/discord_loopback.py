"""The `loopback` fixture: discord.py's counterpart for a test, Discord's REST API and gateway
on 127.0.0.1 (tests/fakes/discord_gateway.py) with one text channel, `wire`.

Registered for every test module through tests/conftest.py, so the Discord tests share it
without importing it (an imported fixture used as a parameter reads as a redefinition).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.fakes.discord_gateway import LoopbackDiscord


@pytest.fixture
async def loopback() -> AsyncIterator[LoopbackDiscord]:
    """A started loopback Discord whose `channel` is the id of its `wire` channel; at the
    end, it must have seen no request Discord would refuse (`problems` stays empty).

    discord.py is imported here, not with conftest.py, so tests without Discord skip it."""
    from tests.fakes.discord_gateway import FakeDiscordAPI, LoopbackDiscord
    from tests.fakes.discord_rest import Limits

    api = FakeDiscordAPI(limits=Limits(messages=(5, 1.0), edits=(5, 1.0)))
    async with LoopbackDiscord(api) as served:
        served.channel = served.api.add_channel("wire")  # type: ignore[attr-defined]
        yield served
        assert served.problems == []
