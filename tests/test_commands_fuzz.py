"""Fuzzing the command layer: no input raises, and every rejected input says what would work."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.commands.grammar import USAGE, parse
from bot.commands.parsed import Rejected
from tests.chat import WireChat, sqlite_store

WORDS = [
    "subscribe", "unsubscribe", "list", "topics", "preview", "schedule", "mute", "ack", "help",
    "all", "off", "daily", "weekdays", "weekly", "mon", "09:00", "25:61", "Europe/Berlin",
    "executorch", "pytorch/executorch", "pytorch/pytorch", "ci-infra", "topic:xnnpack",
    "topic:", "topic:nope", "-author:pytorchbot", "-topic:docs", "-topic:", "-x", "4h", "0m",
    "99999999999d", "item_0123456789abcdef", ":", "/", "`", "@everyone", "<!channel>",
]  # fmt: skip
TOKENS = st.one_of(st.sampled_from(WORDS), st.text(min_size=1, max_size=12))
COMMANDS = st.lists(TOKENS, max_size=6).map(lambda words: "/wire " + " ".join(words))
ANY_TEXT = st.one_of(COMMANDS, st.text(max_size=80))


@given(ANY_TEXT)
@settings(max_examples=600, deadline=None)
def test_parse_is_total_and_rejections_carry_a_usage(text: str) -> None:
    command = parse(text)
    if isinstance(command, Rejected):
        assert command.usage in USAGE.values()
        assert command.problem


@pytest.fixture(scope="module")
def runner():
    with asyncio.Runner() as running:
        yield running


@pytest.fixture(scope="module")
def chat(runner, tmp_path_factory) -> WireChat:
    store = runner.run(sqlite_store(tmp_path_factory.mktemp("fuzz")))
    yield WireChat(store)
    runner.run(store.close())


@given(COMMANDS)
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_every_command_gets_a_reply_and_rejections_name_what_works(runner, chat, text) -> None:
    reply = runner.run(chat(text))
    assert reply.text.strip()
    if not reply.ok:
        assert "Usage: /wire " in reply
    configured = {p.repo for p in chat.commands.config.projects}
    subscribed = runner.run(chat.store.subscriptions.list())
    assert {s.repo for s in subscribed if s.repo is not None} <= configured
