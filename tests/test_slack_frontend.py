"""The Slack front end over HTTP: the real service serves the real bolt app, signed requests
with Slack's payload shapes are POSTed to it, and its answers (response_url messages, Web
API calls) land on the loopback Slack, which checks them against Slack's API description
and Block Kit."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import parse_qsl

import pytest
from aiohttp import web

from bot.commands.replies import Reply
from bot.errors import SettingsError
from bot.settings import load_settings
from bot.slack.adapter import SlackAdapter
from bot.slack.frontend import (
    COMMAND,
    button_ack,
    command_context,
    is_ack_reaction,
    reply_payloads,
)
from bot.slack.limits import MAX_BLOCKS
from digest.compose import compose
from tests.digest_data import SHOWCASE_WINDOW, example_config, executorch, window
from tests.fakes.slack_server import FakeSlack, block_texts
from tests.peers import PEERS
from tests.slack_requests import (
    ROOT,
    SECRET,
    SIGNATURE_VECTOR,
    TOKEN,
    block_actions,
    eventually,
    reaction_added,
    recorded,
    sign,
    slack_service,
    slash_command,
)

CHANNEL = "C0WIRE0001"


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    server = FakeSlack(tokens=[TOKEN], per_channel_interval=0.02, users={"U0ANA0001": "Ana"})
    async with server:
        yield server
    assert server.problems == []


@pytest.fixture
async def wire(tmp_path: Path, slack: FakeSlack):
    async with slack_service(tmp_path, slack.url) as running:
        yield running


def command(slack: FakeSlack, text: str, name: str, *, user: str = "U0ANA0001") -> str:
    return slash_command(
        text, channel=CHANNEL, user_id=user, user_name="ana", response_url=slack.hook_url(name)
    )


# ---------------------------------------------------------------- pure translation


def test_signing_reproduces_slacks_published_vector() -> None:
    vector = json.loads(SIGNATURE_VECTOR.read_text(encoding="utf-8"))
    headers = sign(vector["body"], secret=vector["signing_secret"], timestamp=vector["timestamp"])
    assert headers["X-Slack-Signature"] == vector["valid_signature"]


def test_payloads_translate_to_neutral_values() -> None:
    fields = dict(parse_qsl(recorded("slash_command")))
    ctx = command_context(fields)
    assert (ctx.platform, ctx.workspace, ctx.channel) == ("slack", "T111", "C111")
    assert (ctx.user_id, ctx.user_name) == ("W111", "primary-owner")
    body = recorded("block_actions")
    request = button_ack(body, body["actions"][0])
    assert request is not None
    assert (request.item_id, request.channel, request.user_id) == ("click_me_123", "C111", "W111")
    assert is_ack_reaction("white_check_mark") and is_ack_reaction("heavy_check_mark")
    assert is_ack_reaction("white_check_mark::skin-tone-4")
    assert not is_ack_reaction("heart_eyes") and not is_ack_reaction("x")


def test_a_long_preview_is_split_into_messages_of_at_most_50_blocks() -> None:
    story = compose(executorch(), config=example_config(), window=window(*SHOWCASE_WINDOW))
    # 60 lines too long to share a section, and one longer than a section
    lines = (
        "\n".join(f"line {i} <!channel> " + "word " * 570 for i in range(60)) + "\n" + "x" * 4000
    )
    payloads = reply_payloads(Reply(text=lines, story=story))
    assert len(payloads) >= 2
    assert all(1 <= len(p["blocks"]) <= MAX_BLOCKS for p in payloads)
    assert all(p["response_type"] == "ephemeral" for p in payloads)
    texts = [t for p in payloads for t in [p["text"], *block_texts(p["blocks"])]]
    assert not any("<!channel>" in t for t in texts)
    assert sum("&lt;!channel&gt;" in t for t in texts) >= 60
    assert any(story.headline in t for t in texts)


def test_a_reply_longer_than_five_messages_says_what_it_leaves_out() -> None:
    lines = [f"line {i} " + "word " * 590 for i in range(300)]  # one section each
    payloads = reply_payloads(Reply(text="\n".join(lines)))
    assert len(payloads) == 5  # Slack takes five messages per response_url
    shown = sum(len(p["blocks"]) for p in payloads) - 1
    note = payloads[-1]["blocks"][-1]["elements"][0]["text"]
    assert note == f"… and {300 - shown} more blocks: too long to show here."
    assert all(len(p["blocks"]) == MAX_BLOCKS for p in payloads)


def test_the_oncall_handle_must_be_a_user_group(tmp_path: Path) -> None:
    settings = load_settings(
        env_file=None,
        platforms=("slack",),
        slack={"bot_token": TOKEN, "signing_secret": SECRET},
        acks={"oncall": {"slack": "@here"}},
    )
    with pytest.raises(SettingsError, match="WIRE_ACKS__ONCALL__SLACK") as raised:
        SlackAdapter.from_settings(settings)
    assert TOKEN not in str(raised.value) and SECRET not in str(raised.value)


# ---------------------------------------------------------------- over HTTP


async def test_url_verification_is_answered_with_the_challenge(wire) -> None:
    _service, sender = wire
    body = recorded("url_verification")
    response = await sender.event(json.dumps(body))
    assert response.status_code == 200
    assert response.json() == {"challenge": body["challenge"]}


async def test_subscribe_is_acked_at_once_and_answered_in_the_channel(
    wire, slack: FakeSlack
) -> None:
    service, sender = wire
    started = time.monotonic()
    response = await sender.post(command(slack, "subscribe executorch", "sub"))
    assert response.status_code == 200 and time.monotonic() - started < 3
    [answer] = await eventually(lambda: slack.responses_to("sub"))
    assert answer.body["response_type"] == "in_channel"
    assert "Subscribed this channel to ExecuTorch" in answer.texts()[0]
    [sub] = await service.store.subscriptions.list(platform="slack", channel=CHANNEL)
    assert (sub.workspace, sub.repo, sub.created_by) == ("T0WIRE0001", "pytorch/executorch", "ana")


async def test_releases_of_a_repository_are_followed_listed_and_left_from_slack(
    wire, slack: FakeSlack
) -> None:
    service, sender = wire
    await sender.post(command(slack, "subscribe executorch releases", "releases"))
    [answer] = await eventually(lambda: slack.responses_to("releases"))
    assert answer.body["response_type"] == "in_channel"
    assert answer.texts()[0].startswith("Subscribed this channel to ExecuTorch releases")
    [sub] = await service.store.subscriptions.list(platform="slack", channel=CHANNEL)
    assert (sub.repo, sub.kind) == ("pytorch/executorch", "releases")
    await sender.post(command(slack, "list", "list"))
    [listed] = await eventually(lambda: slack.responses_to("list"))
    assert "ExecuTorch (releases only, as they land)" in " ".join(listed.texts())
    await sender.post(command(slack, "subscribe executorch relases", "typo"))
    [typo] = await eventually(lambda: slack.responses_to("typo"))
    assert typo.ephemeral and "did you mean `releases`?" in " ".join(typo.texts())
    await sender.post(command(slack, "unsubscribe executorch releases", "leave"))
    [left] = await eventually(lambda: slack.responses_to("leave"))
    assert "Unsubscribed this channel from ExecuTorch releases." in left.texts()[0]
    assert await service.store.subscriptions.list() == []


@pytest.mark.parametrize(
    "hostile", ["<!channel>", "<!here>", "<@U123>", "<https://evil.example|click>"]
)
async def test_a_bad_command_gets_the_usage_only_the_asker_sees(
    wire, slack: FakeSlack, hostile: str
) -> None:
    service, sender = wire
    await sender.post(command(slack, f"subscribe {hostile}", "bad"))
    [answer] = await eventually(lambda: slack.responses_to("bad"))
    assert answer.ephemeral
    texts = answer.texts()
    assert any("Usage: /wire subscribe" in t for t in texts)
    assert not any(hostile in t for t in texts)  # echoed, but it neither pings nor links
    escaped = hostile.replace("<", "&lt;").replace(">", "&gt;")
    assert any(escaped in t for t in texts)
    assert await service.store.subscriptions.list() == []


async def test_preview_shows_the_story_as_block_kit_to_the_asker(wire, slack: FakeSlack) -> None:
    _service, sender = wire
    response = await sender.post(command(slack, "preview ci-infra", "preview"))
    assert response.status_code == 200
    answers = await eventually(lambda: slack.responses_to("preview"))
    assert all(a.ephemeral for a in answers)
    blocks = [b for a in answers for b in a.body["blocks"]]
    assert blocks[0]["text"]["text"].startswith("Preview (")
    assert any(b["type"] == "header" for b in blocks)  # the story's parent
    buttons = [b["accessory"] for b in blocks if "accessory" in b]
    assert buttons and all(b["action_id"] == "wire_ack" for b in buttons)
    assert not slack.calls("chat.postMessage")  # a preview posts nothing to the channel


@pytest.mark.parametrize("forgery", ["signature", "stale"])
async def test_forged_or_stale_requests_are_refused_and_change_nothing(
    wire, slack: FakeSlack, forgery: str
) -> None:
    service, sender = wire
    kwargs = (
        {"secret": "not-the-signing-secret"}
        if forgery == "signature"
        else {"timestamp": int(time.time()) - 5 * 60 - 5}
    )
    refused = [
        await sender.post(command(slack, "subscribe executorch", "forged"), **kwargs),
        await sender.post(
            block_actions(
                value="item_x",
                channel=CHANNEL,
                message_ts="1780000000.000001",
                user_id="U0ANA0001",
                user_name="ana",
                response_url=slack.hook_url("forged"),
            ),
            **kwargs,
        ),
        await sender.event(
            reaction_added(
                "white_check_mark", channel=CHANNEL, ts="1780000000.000001", user_id="U0ANA0001"
            ),
            **kwargs,
        ),
    ]
    assert [r.status_code for r in refused] == [401, 401, 401]
    await sender.post(command(slack, "list", "after"))  # a genuine request still works
    await eventually(lambda: slack.responses_to("after"))
    assert slack.responses_to("forged") == []
    assert await service.store.subscriptions.list() == []
    assert [r.method for r in slack.requests] == ["auth.test"]  # only the genuine one's


async def test_acknowledging_an_item_not_posted_here_says_so(wire, slack: FakeSlack) -> None:
    _service, sender = wire
    body = block_actions(
        value="item_nothing",
        channel=CHANNEL,
        message_ts="1780000000.000001",
        user_id="U0ANA0001",
        user_name="ana",
        response_url=slack.hook_url("ack"),
    )
    assert (await sender.post(body)).status_code == 200
    [answer] = await eventually(lambda: slack.responses_to("ack"))
    assert answer.ephemeral and answer.body["replace_original"] is False
    assert "not posted in this channel" in answer.body["text"]
    assert not slack.calls("chat.update")


def test_socket_mode_serves_nothing_over_http() -> None:
    settings = load_settings(
        env_file=None,
        platforms=("slack",),
        slack={"bot_token": TOKEN, "signing_secret": SECRET, "app_token": "xapp-1-wire"},
    )
    adapter = SlackAdapter.from_settings(settings)
    app = web.Application()
    assert adapter.socket_mode and adapter.mount(app) is False
    assert len(app.router.routes()) == 0


# ---------------------------------------------------------------- the manifest

MANIFEST = ROOT / "config/slack-manifest.yml"
EVENTS_API = PEERS / "slack-api-specs/events-api/slack_events_api_async_v1.json"


def manifest() -> dict:
    """config/slack-manifest.yml, which is YAML in JSON's flow style: JSON without its
    comment lines."""
    lines = MANIFEST.read_text(encoding="utf-8").splitlines()
    return json.loads("\n".join(line for line in lines if not line.lstrip().startswith("#")))


def test_the_manifest_points_slack_at_what_the_app_serves() -> None:
    found = manifest()
    path = load_settings(env_file=None).slack.path
    [slash] = found["features"]["slash_commands"]
    assert slash["command"] == COMMAND and slash["usage_hint"].startswith("subscribe")
    settings = found["settings"]
    urls = {
        slash["url"],
        settings["event_subscriptions"]["request_url"],
        settings["interactivity"]["request_url"],
    }
    assert urls == {f"https://wire.example.com{path}"}
    assert settings["interactivity"]["is_enabled"] is True
    assert settings["socket_mode_enabled"] is False
    assert settings["event_subscriptions"]["bot_events"] == ["reaction_added"]
    scopes = set(found["oauth_config"]["scopes"]["bot"])
    topics = json.loads(EVENTS_API.read_text(encoding="utf-8"))["topics"]
    for event in settings["event_subscriptions"]["bot_events"]:  # Slack's own list of scopes
        assert set(topics[event.replace("_", ".")]["subscribe"]["x-scopes-required"]) <= scopes
    # posting and editing, the command, display names, reading a thread back to resume
    assert {"chat:write", "commands", "users:read", "channels:history"} <= scopes


async def test_every_request_the_manifest_subscribes_to_is_handled(wire, slack: FakeSlack) -> None:
    _service, sender = wire
    handled = [
        await sender.post(command(slack, "help", "help")),
        await sender.post(
            block_actions(
                value="item_nothing",
                channel=CHANNEL,
                message_ts="1780000000.000001",
                user_id="U0ANA0001",
                user_name="ana",
                response_url=slack.hook_url("press"),
            )
        ),
        *[
            await sender.event(
                reaction_added("eyes", channel=CHANNEL, ts="1.2", user_id="U0ANA0001").replace(
                    '"reaction_added"', json.dumps(event)
                )
            )
            for event in manifest()["settings"]["event_subscriptions"]["bot_events"]
        ],
    ]
    assert [r.status_code for r in handled] == [200] * len(handled)  # bolt 404s the unhandled
    await eventually(lambda: slack.responses_to("help") and slack.responses_to("press"))


# ---------------------------------------------------------------- Socket Mode

APP_TOKEN = "xapp-1-A0WIRE0001-wire-test"


async def test_socket_mode_takes_commands_over_the_websocket(tmp_path: Path) -> None:
    slack = FakeSlack(tokens=[TOKEN], app_tokens=[APP_TOKEN], per_channel_interval=0.02)
    async with slack:
        running = slack_service(
            tmp_path, slack.url, slack={"app_token": APP_TOKEN}, web={"enabled": False}
        )
        async with running as (service, _sender):
            assert service.web_url is None  # nothing to serve over HTTP (the archive is off)
            await eventually(lambda: slack.sockets)
            fields = dict(parse_qsl(command(slack, "subscribe executorch", "socket")))
            envelope = await slack.send_envelope("slash_commands", fields)
            await eventually(lambda: slack.envelope_acks)
            assert slack.envelope_acks == [{"envelope_id": envelope}]
            [answer] = await eventually(lambda: slack.responses_to("socket"))
            assert "Subscribed this channel to ExecuTorch" in answer.body["text"]
            [sub] = await service.store.subscriptions.list(platform="slack", channel=CHANNEL)
            assert sub.repo == "pytorch/executorch"
        await eventually(lambda: not slack.sockets)  # closing the service disconnects
        assert slack.socket_connections == 1
        # opened once, with the app-level token (the fake refuses any other)
        assert [r.error for r in slack.calls("apps.connections.open")] == [None]
        assert slack.problems == []
