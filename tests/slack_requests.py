"""Requests as Slack sends them to an app: signed, with the payload shapes Slack documents.

The payloads start from the ones recorded in peers/slack-bolt-python-payloads (a slash
command's form fields, a `block_actions` payload, a `reaction_added` event callback) with
our values put in. `sign` is Slack's algorithm: `v0=` + hex HMAC-SHA256 of
`v0:{timestamp}:{body}` keyed with the signing secret.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import functools
import hashlib
import hmac
import json
import re
import time
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

import httpx

from bot.app.service import Service
from bot.settings import load_settings
from digest.config import load_config
from tests.peers import PEERS

PAYLOADS = PEERS / "slack-bolt-python-payloads/bolt_python_test_payloads.json"
SIGNATURE_VECTOR = PEERS / "slack-signature-vector/slack_signature_test_vector.json"
FORM = "application/x-www-form-urlencoded"


@functools.cache
def _recorded() -> dict[str, Any]:
    payloads = json.loads(PAYLOADS.read_text(encoding="utf-8"))["payloads"]
    found: dict[str, Any] = {}
    for entry in payloads:
        if (
            entry["kind"] == "event_callback"
            and entry["value"]["event"]["type"] != "reaction_added"
        ):
            continue
        found.setdefault(entry["kind"], entry["value"])
    return found


def recorded(kind: str) -> Any:
    """A fresh copy of the recorded payload of `kind` (block_actions, slash_command,
    event_callback (reaction_added), url_verification)."""
    return copy.deepcopy(_recorded()[kind])


def sign(body: str, *, secret: str, timestamp: int | None = None) -> dict[str, str]:
    """The X-Slack-Request-Timestamp and X-Slack-Signature headers of `body`."""
    ts = str(int(time.time()) if timestamp is None else timestamp)
    digest = hmac.new(secret.encode(), f"v0:{ts}:{body}".encode(), hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": f"v0={digest}"}


def slash_command(
    text: str,
    *,
    channel: str,
    user_id: str,
    user_name: str,
    response_url: str,
    team_id: str = "T0WIRE0001",
) -> str:
    """The form-encoded body of `/wire <text>` typed in `channel`."""
    fields = dict(parse_qsl(recorded("slash_command"), keep_blank_values=True))
    fields.update(
        command="/wire",
        text=text,
        team_id=team_id,
        channel_id=channel,
        channel_name="wire-news",
        user_id=user_id,
        user_name=user_name,
        response_url=response_url,
    )
    return urlencode(fields)


def block_actions(
    *,
    value: str,
    channel: str,
    message_ts: str,
    user_id: str,
    user_name: str,
    response_url: str,
    action_id: str = "wire_ack",
    team_id: str = "T0WIRE0001",
) -> str:
    """The form-encoded body (`payload=<JSON>`) of a button press on a channel message."""
    payload = recorded("block_actions")
    payload["user"].update(id=user_id, username=user_name, name=user_name, team_id=team_id)
    payload["team"]["id"] = team_id
    payload["container"].update(message_ts=message_ts, channel_id=channel, is_ephemeral=False)
    payload["channel"] = {"id": channel, "name": "wire-news"}
    payload["response_url"] = response_url
    payload["actions"][0].update(action_id=action_id, block_id="item", value=value)
    return urlencode({"payload": json.dumps(payload)})


def reaction_added(
    reaction: str, *, channel: str, ts: str, user_id: str, team_id: str = "T0WIRE0001"
) -> str:
    """The JSON body of a `reaction_added` event callback on a message."""
    payload = recorded("event_callback")
    payload["team_id"] = team_id
    payload["event"].update(
        user=user_id,
        reaction=reaction,
        item={"type": "message", "channel": channel, "ts": ts},
        item_user="U0WIRE0001",
        event_ts=f"{time.time():.6f}",
    )
    payload["event_id"] = f"Ev{time.monotonic_ns()}"
    payload["event_time"] = int(time.time())
    return json.dumps(payload)


class SlackSender:
    """POSTs bodies to an app's request URL as Slack does, signed with `secret`."""

    def __init__(self, url: str, *, secret: str) -> None:
        self.url = url
        self.secret = secret

    async def post(
        self,
        body: str,
        *,
        content_type: str = FORM,
        timestamp: int | None = None,
        secret: str | None = None,
    ) -> httpx.Response:
        headers = sign(body, secret=secret or self.secret, timestamp=timestamp)
        headers["Content-Type"] = content_type
        async with httpx.AsyncClient(timeout=10) as http:
            return await http.post(self.url, content=body, headers=headers)

    async def event(self, body: str, **kwargs: Any) -> httpx.Response:
        """POST an Events API JSON body."""
        return await self.post(body, content_type="application/json", **kwargs)


# ---------------------------------------------------------------- the service under test

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "xoxb-wire-test"
SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
DEMO_NOW = datetime(2026, 5, 27, tzinfo=UTC)
_SEEDS = re.compile(r"^\s*\[\[(?:demo\.)?subscriptions\]\]\n(?:^[ \t]*\w+ = .*\n)+", re.MULTILINE)


def demo_config(tmp_path: Path, *, activity: Path | None = None) -> Path:
    """config/demo.toml without its console seeds, reading `activity` (default: the demo's
    recorded activity) by absolute path, written under `tmp_path`."""
    text = _SEEDS.sub("", (ROOT / "config/demo.toml").read_text(encoding="utf-8"))
    source = activity or ROOT / "demo/activity.jsonl"
    text = text.replace("replay:demo/activity.jsonl", f"replay:{source}")
    assert "subscriptions]]" not in text and f"replay:{source}" in text
    path = tmp_path / "wire.toml"
    path.write_text(text, encoding="utf-8")
    return path


@contextlib.asynccontextmanager
async def slack_service(
    tmp_path: Path, slack_api_url: str, *, config: Path | None = None, **overrides: Any
) -> AsyncIterator[tuple[Service, SlackSender]]:
    """The real service with Slack as its only platform, its API at `slack_api_url`, its
    web server on a free loopback port; yields it and a sender to its request URL (none in
    Socket Mode). `slack=` adds to the Slack settings."""
    config = config or demo_config(tmp_path)
    settings = load_settings(
        config=config,
        env_file=None,
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'wire.db'}",
        http={"host": "127.0.0.1", "port": 0},
        slack={
            "bot_token": TOKEN,
            "signing_secret": SECRET,
            "api_url": slack_api_url,
            "per_channel_interval": 0.02,
            **overrides.pop("slack", {}),
        },
        platforms=("slack",),
        **overrides,
    )
    wire_config = load_config(config)
    async with await Service.start(settings=settings, config=wire_config) as service:
        await service.start_frontends()
        url = f"{service.web_url}{settings.slack.path}" if service.web_url else ""
        yield service, SlackSender(url, secret=SECRET)


async def eventually(check: Callable[[], Any], *, timeout: float = 10.0) -> Any:
    """Wait until `check()` is truthy (bolt finishes a listener after it acked); return it."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        found = check()
        if found:
            return found
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out waiting for the app to answer")
        await asyncio.sleep(0.01)
