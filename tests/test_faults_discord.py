"""The Discord gateway session survives what it cannot handle: a malformed event is logged
with its type and traceback and dropped; a dropped connection resumes (and identifies anew
when the resume is refused); a session that ends for good is replaced, with back-off, and
reported unhealthy meanwhile. Against the loopback Discord of tests/fakes/."""

from __future__ import annotations

import logging

import pytest

from bot import metrics
from bot.discord.adapter import DiscordAdapter
from tests import test_discord_frontend as served
from tests.fakes.discord_gateway import slash

# the running service as the front end's own tests have it (`loopback` is tests/conftest's)
restore_discord_py_globals = served.restore_discord_py_globals  # autouse
ADMIN, interact, running, settings_for, until = (
    served.ADMIN,
    served.interact,
    served.running,
    served.settings_for,
    served.until,
)


async def subscribe_answered(loopback, service) -> None:
    """A `/wire subscribe` through the session is answered and stored."""
    payload = slash(
        loopback.api,
        "wire subscribe",
        channel_id=loopback.channel,
        who=ADMIN,
        options={"target": "executorch"},
    )
    callback = await interact(loopback, payload)
    assert "Subscribed this channel to ExecuTorch" in callback["data"]["content"]


def unhealthy_gauge(part: str) -> float | None:
    return metrics.active().registry.get_sample_value("wire_unhealthy", {"part": part})


def adapter_of(service) -> DiscordAdapter:
    adapter = service.adapters["discord"]
    assert isinstance(adapter, DiscordAdapter)
    return adapter


async def test_an_event_the_client_cannot_handle_is_logged_and_dropped(
    loopback, tmp_path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="wire.discord")
    async with running(settings_for(loopback, tmp_path)) as service:
        broken = {"guild_id": loopback.api.guild_id, "channel_id": loopback.channel}  # no emoji
        await loopback.gateway.dispatch("MESSAGE_REACTION_ADD", broken)
        await until(lambda: adapter_of(service).bot.dropped)
        await subscribe_answered(loopback, service)  # the same session carries on
        assert adapter_of(service).bot.dropped == ["MESSAGE_REACTION_ADD"]
        assert len(loopback.gateway.identifies) == 1 and adapter_of(service).sessions_started == 1
        assert service.hub.health.problems == {}
    (record,) = [r for r in caplog.records if "could not be handled" in r.getMessage()]
    assert record.getMessage() == (
        "dropped a Discord gateway event MESSAGE_REACTION_ADD that could not be handled"
    )
    assert record.exc_info is not None and record.exc_info[0] is KeyError


async def test_a_dropped_connection_resumes_then_identifies(loopback, tmp_path) -> None:
    async with running(settings_for(loopback, tmp_path)) as service:
        await loopback.gateway.sessions[-1].socket.close(code=4000)  # "unknown error": resume
        seen: list[dict[str, str]] = []

        def identified_again() -> bool:
            seen.append(service.hub.health.problems)
            return len(loopback.gateway.identifies) == 2 and len(loopback.gateway.ready) == 1

        await until(identified_again)
        await until(lambda: not service.hub.health.problems)  # READY again: healthy
        assert any("discord" in problems for problems in seen)  # unhealthy meanwhile
        await subscribe_answered(loopback, service)
        assert loopback.gateway.resumes == 1  # resume first; refused, so identify
        assert adapter_of(service).sessions_started == 1  # discord.py's own reconnect
        assert service.hub.health.problems == {}
    faults = 1
    print(f"faults injected: {faults} gateway close (4000)")


async def test_a_session_that_ends_is_replaced_with_back_off_and_reported(
    loopback, tmp_path, monkeypatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(DiscordAdapter, "reconnect_base", 0.2)
    caplog.set_level(logging.ERROR, logger="wire.discord")
    async with running(settings_for(loopback, tmp_path)) as service:
        # 4011 (sharding required) is a close discord.py does not retry: the session ends
        await loopback.gateway.sessions[-1].socket.close(code=4011)
        ended = "the gateway session ended (ConnectionClosed); reconnecting"
        await until(lambda: service.hub.health.problems.get("discord") == ended)
        assert unhealthy_gauge("discord") == 1  # an alert can fire on the metric
        await until(
            lambda: len(loopback.gateway.identifies) == 2 and not service.hub.health.problems
        )
        await subscribe_answered(loopback, service)
        assert adapter_of(service).sessions_started == 2
        assert unhealthy_gauge("discord") == 0
    (record,) = [r for r in caplog.records if "session ended" in r.getMessage()]
    assert record.getMessage() == (
        "the Discord gateway session ended (ConnectionClosed); a new one in 0.2 s"
    )
    assert record.exc_info is not None
    print("faults injected: 1 gateway close (4011)")
