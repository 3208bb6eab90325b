"""A loopback Slack Web API: chat.postMessage, chat.update, reactions.add/remove, auth.test,
conversations.history (paged by cursor, as Slack pages it), conversations.replies and
users.info, with Slack's auth errors and rate limits; and the response_url webhooks that
slash commands and interactions answer through.

Every request is checked against Slack's OpenAPI description (peers/slack-api-specs): the
method must exist, its required parameters be present and no parameter be unknown, except
the few the 2020 spec lacks (`metadata`, `include_all_metadata`; see peers/README.md). Every
`blocks` value (a JSON string in a form body, a list in a JSON body) must parse and validate
with slack-sdk's Block Kit models, 50 blocks at most. What is invalid is answered with
`invalid_arguments` and listed in `problems`, which tests assert stays empty.

Limits: chat.postMessage takes one message per channel per `per_channel_interval` seconds
and `per_minute` messages a minute per workspace; past either it answers HTTP 429
`ratelimited` with a Retry-After header, as Slack does. `fail` scripts the next answers of a
method (5xx, Slack errors, 429s) before any real handling.

response_url: `hook_url(name)` is a URL like Slack's `https://hooks.slack.com/commands/…`
that accepts the JSON messages Slack documents (text and/or blocks, `response_type`
"ephemeral" or "in_channel", `replace_original`, …), at most five per URL; they are kept
in `responses` and checked like posted blocks.

Socket Mode: apps.connections.open, called with an app-level token, answers with a
`ws://` URL on this server. A WebSocket there gets Slack's `hello`; `send_envelope` then
pushes an envelope (a slash command, an interaction, an event) to the open connections, and
the app's acks (`{"envelope_id": …}`) are kept in `envelope_acks`.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import itertools
import json
import math
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from aiohttp import WSMsgType, web
from slack_sdk.models.blocks import Block

from tests.peers import PEERS

WEB_OPENAPI = PEERS / "slack-api-specs/web-api/slack_web_openapi_v2.json"
SPEC_MISSING = {  # parameters Slack accepts that the frozen 2020 spec does not list
    "chat.postMessage": {"metadata"},
    "chat.update": {"metadata"},
    "conversations.replies": {"include_all_metadata"},
    "conversations.history": {"include_all_metadata"},
}
# slack-sdk adds the workspace's `team_id` to every call of a client made for one request
# (as bolt does), which Slack accepts on any method; the 2020 spec lists it on few
ANY_METHOD = {"token", "team_id"}
REALLY_REQUIRED = {  # the spec marks none required
    "conversations.history": {"channel"},
    "conversations.replies": {"channel", "ts"},
    "users.info": {"user"},
}
RESPONSE_FIELDS = {
    "text",
    "blocks",
    "attachments",
    "response_type",
    "replace_original",
    "delete_original",
    "unfurl_links",
    "unfurl_media",
    "thread_ts",
    "metadata",
}
RESPONSES_PER_URL = 5
HISTORY_LIMIT_MAX = 999  # conversations.history answers at most this many a page
TEAM_ID, BOT_USER, BOT_ID = "T0WIRE0001", "U0WIRE0001", "B0WIRE0001"


# Socket Mode (2021) came after the spec froze; this method takes no parameter but its token
NEWER_METHODS: dict[str, tuple[set[str], set[str]]] = {"apps.connections.open": (set(), set())}
APP_LEVEL_METHODS = {"apps.connections.open"}  # only an app-level token (xapp-…) may call


@functools.cache
def web_methods() -> dict[str, tuple[set[str], set[str]]]:
    """method → (parameter names, required parameter names), `token` left out."""
    spec = json.loads(WEB_OPENAPI.read_text(encoding="utf-8"))
    methods = {}
    for path, operations in spec["paths"].items():
        names: set[str] = set()
        required: set[str] = set()
        for operation in operations.values():
            for param in operation.get("parameters", []):
                if param["name"] == "token":
                    continue
                names.add(param["name"])
                if param.get("required"):
                    required.add(param["name"])
        methods[path.lstrip("/")] = (names, required)
    return methods | NEWER_METHODS


@dataclass
class Message:
    """A message the fake holds: what was posted, and every later edit."""

    channel: str
    ts: str
    text: str
    blocks: list[dict[str, Any]]
    thread_ts: str | None = None
    metadata: dict[str, Any] | None = None
    params: dict[str, Any] = field(default_factory=dict)
    edits: list[dict[str, Any]] = field(default_factory=list)
    reactions: dict[str, set[str]] = field(default_factory=dict)

    def as_api(self, *, with_metadata: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "message",
            "user": BOT_USER,
            "bot_id": BOT_ID,
            "text": self.text,
            "ts": self.ts,
            "team": TEAM_ID,
            "blocks": self.blocks,
        }
        if self.thread_ts:
            out["thread_ts"] = self.thread_ts
        if with_metadata and self.metadata:
            out["metadata"] = self.metadata
        return out


@dataclass
class Scripted:
    method: str
    status: int
    error: str
    retry_after: int | None


@dataclass
class Response:
    """A message posted to a response_url."""

    name: str
    body: dict[str, Any]

    @property
    def ephemeral(self) -> bool:
        return self.body.get("response_type", "ephemeral") == "ephemeral"

    def texts(self) -> list[str]:
        """The text and every text object of the blocks, in order."""
        return [self.body.get("text") or "", *block_texts(self.body.get("blocks") or [])]


def block_texts(blocks: list[dict[str, Any]]) -> list[str]:
    """Every `text` string found anywhere in `blocks`, in order."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "text" and isinstance(value, str):
                    found.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(blocks)
    return found


@dataclass
class Recorded:
    method: str
    params: dict[str, Any]
    status: int
    error: str | None
    peer: tuple[str, int] | None = None  # the client's address and port: its connection


class FakeSlack:
    """Serves Slack's Web API under /api/ on 127.0.0.1; `url` is the base URL for clients."""

    def __init__(
        self,
        *,
        tokens: Iterable[str] = ("xoxb-wire-test",),
        channels: Iterable[str] = ("C0WIRE0001", "C0WIRE0002"),
        not_member: Iterable[str] = (),
        per_channel_interval: float = 1.0,
        per_minute: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
        users: dict[str, str] | None = None,
        app_tokens: Iterable[str] = (),
        delay: float = 0.0,
    ) -> None:
        # seconds each Web API answer takes after the call took effect: a client killed
        # meanwhile leaves a message posted that it never heard of
        self.delay = delay
        self.tokens = set(tokens)
        self.app_tokens = set(app_tokens)
        self.sockets: list[web.WebSocketResponse] = []
        self.envelope_acks: list[dict[str, Any]] = []
        self.socket_connections = 0
        self._envelopes = itertools.count(1)
        self.users = dict(users or {})  # user id → display name, for users.info
        self.channels = set(channels)
        self.not_member = set(not_member)
        self.per_channel_interval = per_channel_interval
        self.per_minute = per_minute
        self.clock = clock
        self.messages: dict[str, list[Message]] = {}
        self.requests: list[Recorded] = []
        self.problems: list[str] = []
        self.responses: list[Response] = []
        self._script: deque[Scripted] = deque()
        self.throttled: dict[str, tuple[int, int]] = {}  # channel → (after, retry_after)
        self._last_post: dict[str, float] = {}
        self._window: deque[float] = deque()
        self._ts = 1_780_000_000
        self._seq = 0
        self._runner: web.AppRunner | None = None
        self.url = ""

    # ---- scripting and reading -------------------------------------------------------------
    def fail(
        self,
        method: str,
        *,
        status: int = 200,
        error: str = "internal_error",
        retry_after: int | None = None,
        times: int = 1,
    ) -> None:
        """Answer the next `times` calls of `method` with `error` (HTTP `status`; a 429 with
        `retry_after` carries the Retry-After header)."""
        for _ in range(times):
            self._script.append(Scripted(method, status, error, retry_after))

    def throttle(self, channel: str, *, after: int = 0, retry_after: int = 1) -> None:
        """Answer every post to `channel` with 429 once it holds `after` messages, until
        `unthrottle` (a channel Slack keeps limiting, as under a flood of other apps)."""
        self.throttled[channel] = (after, retry_after)

    def unthrottle(self) -> None:
        """Let every channel post again."""
        self.throttled.clear()

    def thread(self, channel: str, ts: str) -> list[Message]:
        """The parent `ts` in `channel` and its replies, in posting order."""
        return [m for m in self.messages.get(channel, []) if m.ts == ts or m.thread_ts == ts]

    def calls(self, method: str) -> list[Recorded]:
        """The recorded calls of `method`, answered or not."""
        return [r for r in self.requests if r.method == method]

    def hook_url(self, name: str) -> str:
        """A response_url (as Slack puts in a command or interaction payload) named `name`."""
        return f"{self.url.removesuffix('/api/')}/hooks/commands/{TEAM_ID}/1/{name}"

    def responses_to(self, name: str) -> list[Response]:
        """The messages posted to the response_url `name`, in order."""
        return [r for r in self.responses if r.name == name]

    # ---- lifecycle -------------------------------------------------------------------------
    async def start(self) -> str:
        app = web.Application()
        app.router.add_route("*", "/api/{method}", self._handle)
        app.router.add_post("/hooks/commands/{team}/{id}/{name}", self._hook)
        app.router.add_get("/link/", self._socket)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}/api/"
        return self.url

    async def close(self) -> None:
        for socket in list(self.sockets):
            await socket.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def __aenter__(self) -> FakeSlack:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # ---- HTTP ------------------------------------------------------------------------------
    async def _params(self, request: web.Request) -> dict[str, Any]:
        params: dict[str, Any] = dict(request.query)
        raw = await request.read()
        if not raw:
            return params
        if request.content_type == "application/json":
            body = json.loads(raw)
            if not isinstance(body, dict):
                self.problems.append(f"{request.path}: JSON body is not an object")
                return params
            params.update(body)
        else:
            params.update(parse_qsl(raw.decode("utf-8"), keep_blank_values=True))
        return params

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        params = await self._params(request)
        status, body, headers = self._answer(method, params, request.headers)
        if self.delay:
            await asyncio.sleep(self.delay)
        peer = request.transport.get_extra_info("peername") if request.transport else None
        peer = tuple(peer[:2]) if peer else None
        self.requests.append(Recorded(method, params, status, body.get("error"), peer))
        return web.json_response(body, status=status, headers=headers)

    async def send_envelope(self, kind: str, payload: dict[str, Any]) -> str:
        """Push an envelope of `kind` ("slash_commands", "interactive", "events_api") to
        every open Socket Mode connection; returns its envelope id."""
        envelope_id = f"env-{next(self._envelopes)}"
        envelope = {
            "envelope_id": envelope_id,
            "type": kind,
            "payload": payload,
            "accepts_response_payload": kind != "events_api",
        }
        for socket in list(self.sockets):
            await socket.send_json(envelope)
        return envelope_id

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse()  # answers the client's pings
        await socket.prepare(request)
        if request.query.get("ticket") != "wire-ticket":
            self.problems.append(
                "socket mode: connected without a ticket from apps.connections.open"
            )
        self.socket_connections += 1
        self.sockets.append(socket)
        await socket.send_json(
            {
                "type": "hello",
                "num_connections": len(self.sockets),
                "debug_info": {"host": "applink-wire", "approximate_connection_time": 18060},
                "connection_info": {"app_id": "A0WIRE0001"},
            }
        )
        try:
            async for message in socket:
                if message.type != WSMsgType.TEXT:
                    continue
                data = json.loads(message.data)
                if not isinstance(data, dict) or "envelope_id" not in data:
                    self.problems.append(f"socket mode: not an envelope ack: {message.data:.80}")
                    continue
                self.envelope_acks.append(data)
        finally:
            self.sockets.remove(socket)
        return socket

    async def _hook(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        try:
            body = json.loads(await request.read())
        except ValueError:
            body = None
        problems = self._check_response(name, body)
        if problems:
            self.problems += problems
            return web.Response(status=400, text="invalid_payload")
        self.responses.append(Response(name, body))
        return web.Response(text="ok")

    def _check_response(self, name: str, body: Any) -> list[str]:
        where = f"response_url {name}"
        if not isinstance(body, dict):
            return [f"{where}: body is not a JSON object"]
        out = [f"{where}: unknown field {k!r}" for k in sorted(set(body) - RESPONSE_FIELDS)]
        if not body.get("text") and not body.get("blocks"):
            out.append(f"{where}: neither text nor blocks")
        if body.get("response_type", "ephemeral") not in ("ephemeral", "in_channel"):
            out.append(f"{where}: response_type {body['response_type']!r}")
        if "blocks" in body:
            out += self._check_blocks(where, body["blocks"])
        if len(self.responses_to(name)) >= RESPONSES_PER_URL:
            out.append(f"{where}: more than {RESPONSES_PER_URL} messages")
        return out

    def _answer(self, method: str, params: dict[str, Any], headers) -> tuple[int, dict, dict]:
        auth = headers.get("Authorization", "")
        token = auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else params.get("token")
        if not token:
            return 200, {"ok": False, "error": "not_authed"}, {}
        if method in APP_LEVEL_METHODS or token in self.app_tokens:
            if token not in self.app_tokens:
                return 200, {"ok": False, "error": "not_allowed_token_type"}, {}
            if method not in APP_LEVEL_METHODS:
                return 200, {"ok": False, "error": "not_allowed_token_type"}, {}
        elif token not in self.tokens:
            return 200, {"ok": False, "error": "invalid_auth"}, {}
        if method not in web_methods():
            return 404, {"ok": False, "error": "unknown_method"}, {}
        problems = self._check(method, params)
        if problems:
            self.problems += problems
            return 200, {"ok": False, "error": "invalid_arguments", "problems": problems}, {}
        for scripted in self._script:
            if scripted.method == method:
                self._script.remove(scripted)
                extra = (
                    {}
                    if scripted.retry_after is None
                    else {"Retry-After": str(scripted.retry_after)}
                )
                return scripted.status, {"ok": False, "error": scripted.error}, extra
        handler = getattr(self, "_" + method.replace(".", "_"), None)
        if handler is None:
            return 200, {"ok": False, "error": "not_implemented_in_fake"}, {}
        return handler(params)

    def _check(self, method: str, params: dict[str, Any]) -> list[str]:
        names, required = web_methods()[method]
        allowed = names | SPEC_MISSING.get(method, set()) | ANY_METHOD
        needed = required | REALLY_REQUIRED.get(method, set())
        out = [f"{method}: missing required parameter {p!r}" for p in sorted(needed - set(params))]
        out += [f"{method}: unknown parameter {p!r}" for p in sorted(set(params) - allowed)]
        if "blocks" in params:
            out += self._check_blocks(method, params["blocks"])
        if "metadata" in params:
            meta = params["metadata"]
            meta = json.loads(meta) if isinstance(meta, str) else meta
            if not (
                isinstance(meta, dict)
                and isinstance(meta.get("event_type"), str)
                and isinstance(meta.get("event_payload"), dict)
            ):
                out.append(f"{method}: metadata needs event_type and event_payload: {meta!r}")
        return out

    @staticmethod
    def _check_blocks(method: str, value: Any) -> list[str]:
        try:
            blocks = json.loads(value) if isinstance(value, str) else value
        except ValueError:
            return [f"{method}: blocks is not JSON"]
        if not isinstance(blocks, list) or not 1 <= len(blocks) <= 50:
            return [f"{method}: blocks must be a list of 1 to 50 blocks"]
        out = []
        for raw in blocks:
            parsed = Block.parse(raw)
            if parsed is None:
                out.append(f"{method}: unknown block {raw!r:.80}")
                continue
            try:
                parsed.validate_json()
            except Exception as exc:
                out.append(f"{method}: invalid block: {exc}")
        return out

    # ---- limits ----------------------------------------------------------------------------
    def _limited(self, channel: str) -> int | None:
        """Seconds to wait when a post to `channel` now would break a limit, else None."""
        now = self.clock()
        while self._window and self._window[0] <= now - 60:
            self._window.popleft()
        if len(self._window) >= self.per_minute:
            return max(1, math.ceil(self._window[0] + 60 - now))
        last = self._last_post.get(channel)
        if last is not None and now - last < self.per_channel_interval:
            return max(1, math.ceil(last + self.per_channel_interval - now))
        self._window.append(now)
        self._last_post[channel] = now
        return None

    def _channel_error(self, channel: str) -> str | None:
        if channel in self.not_member:
            return "not_in_channel"
        return None if channel in self.channels else "channel_not_found"

    def _next_ts(self) -> str:
        self._seq += 1
        return f"{self._ts + self._seq // 1_000_000}.{self._seq % 1_000_000:06d}"

    def _find(self, channel: str, ts: str) -> Message | None:
        return next((m for m in self.messages.get(channel, []) if m.ts == ts), None)

    @staticmethod
    def _decoded(params: dict[str, Any], name: str) -> Any:
        value = params.get(name)
        return (
            json.loads(value)
            if isinstance(value, str) and name in ("blocks", "metadata")
            else value
        )

    # ---- methods ---------------------------------------------------------------------------
    def _auth_test(self, params: dict[str, Any]) -> tuple[int, dict, dict]:
        return (
            200,
            {
                "ok": True,
                "url": "https://wire-test.slack.com/",
                "team": "Wire Test",
                "user": "wire",
                "team_id": TEAM_ID,
                "user_id": BOT_USER,
                "bot_id": BOT_ID,
            },
            {},
        )

    def _chat_postMessage(self, params: dict[str, Any]) -> tuple[int, dict, dict]:
        channel = str(params["channel"])
        error = self._channel_error(channel)
        if error:
            return 200, {"ok": False, "error": error}, {}
        text = str(params.get("text") or "")
        blocks = self._decoded(params, "blocks") or []
        if not text and not blocks:
            return 200, {"ok": False, "error": "no_text"}, {}
        if len(text) > 40_000:
            return 200, {"ok": False, "error": "msg_too_long"}, {}
        after, retry_after = self.throttled.get(channel, (None, 0))
        if after is not None and len(self.messages.get(channel, [])) >= after:
            return 429, {"ok": False, "error": "ratelimited"}, {"Retry-After": str(retry_after)}
        wait = self._limited(channel)
        if wait is not None:
            return 429, {"ok": False, "error": "ratelimited"}, {"Retry-After": str(wait)}
        thread_ts = params.get("thread_ts") or None
        if thread_ts is not None and self._find(channel, str(thread_ts)) is None:
            self.problems.append(
                f"chat.postMessage: thread_ts {thread_ts} is no message in {channel}"
            )
        message = Message(
            channel=channel,
            ts=self._next_ts(),
            text=text,
            blocks=blocks,
            thread_ts=thread_ts,
            metadata=self._decoded(params, "metadata"),
            params=params,
        )
        self.messages.setdefault(channel, []).append(message)
        return (
            200,
            {"ok": True, "channel": channel, "ts": message.ts, "message": message.as_api()},
            {},
        )

    def _chat_update(self, params: dict[str, Any]) -> tuple[int, dict, dict]:
        channel, ts = str(params["channel"]), str(params["ts"])
        error = self._channel_error(channel)
        if error:
            return 200, {"ok": False, "error": error}, {}
        message = self._find(channel, ts)
        if message is None:
            return 200, {"ok": False, "error": "message_not_found"}, {}
        message.edits.append(params)
        if "text" in params:
            message.text = str(params["text"])
        if "blocks" in params:
            message.blocks = self._decoded(params, "blocks")
        body = {
            "ok": True,
            "channel": channel,
            "ts": ts,
            "text": message.text,
            "message": message.as_api(),
        }
        return 200, body, {}

    def _reaction(self, params: dict[str, Any], *, add: bool) -> tuple[int, dict, dict]:
        channel, ts = str(params.get("channel", "")), str(params.get("timestamp", ""))
        message = self._find(channel, ts)
        if message is None:
            return 200, {"ok": False, "error": "message_not_found"}, {}
        users = message.reactions.setdefault(str(params["name"]), set())
        if add == (BOT_USER in users):
            return 200, {"ok": False, "error": "already_reacted" if add else "no_reaction"}, {}
        (users.add if add else users.discard)(BOT_USER)
        return 200, {"ok": True}, {}

    def _reactions_add(self, params: dict[str, Any]) -> tuple[int, dict, dict]:
        return self._reaction(params, add=True)

    def _reactions_remove(self, params: dict[str, Any]) -> tuple[int, dict, dict]:
        return self._reaction(params, add=False)

    def _apps_connections_open(self, params: dict[str, Any]) -> tuple[int, dict, dict]:
        base = self.url.removesuffix("/api/").replace("http://", "ws://", 1)
        return 200, {"ok": True, "url": f"{base}/link/?ticket=wire-ticket"}, {}

    def _users_info(self, params: dict[str, Any]) -> tuple[int, dict, dict]:
        user_id = str(params["user"])
        name = self.users.get(user_id)
        if name is None:
            return 200, {"ok": False, "error": "user_not_found"}, {}
        user = {
            "id": user_id,
            "team_id": TEAM_ID,
            "name": name.lower().replace(" ", "."),
            "real_name": name,
            "profile": {"display_name": name, "real_name": name},
        }
        return 200, {"ok": True, "user": user}, {}

    def _conversations_history(self, params: dict[str, Any]) -> tuple[int, dict, dict]:
        """The channel's messages outside threads (parents included), newest first, between
        `oldest` and `latest` (exclusive unless `inclusive`), `limit` at a time (at most
        999) with a `next_cursor` while more remain, as Slack pages them."""
        channel = str(params["channel"])
        error = self._channel_error(channel)
        if error:
            return 200, {"ok": False, "error": error}, {}
        bounds = {}
        for name in ("oldest", "latest"):
            try:
                bounds[name] = float(params[name]) if params.get(name) else None
            except ValueError:
                return 200, {"ok": False, "error": f"invalid_ts_{name}"}, {}
        inclusive = str(params.get("inclusive", "")).lower() in ("1", "true")
        try:
            limit = min(int(params.get("limit") or 100), HISTORY_LIMIT_MAX)
        except ValueError:
            limit = 0
        if limit < 1:
            return 200, {"ok": False, "error": "invalid_limit"}, {}
        try:
            cursor = str(params.get("cursor") or "")
            start = int(base64.b64decode(cursor).decode().removeprefix("next:")) if cursor else 0
        except ValueError:
            return 200, {"ok": False, "error": "invalid_cursor"}, {}

        def within(ts: float) -> bool:
            oldest, latest = bounds["oldest"], bounds["latest"]
            after = oldest is None or ts > oldest or (inclusive and ts == oldest)
            return after and (latest is None or ts < latest or (inclusive and ts == latest))

        with_metadata = str(params.get("include_all_metadata", "")).lower() in ("1", "true")
        top = [
            m
            for m in reversed(self.messages.get(channel, []))
            if m.thread_ts is None and within(float(m.ts))
        ]
        page = top[start : start + limit]
        body: dict[str, Any] = {
            "ok": True,
            "messages": [m.as_api(with_metadata=with_metadata) for m in page],
            "has_more": len(top) > start + limit,
            "pin_count": 0,
        }
        if body["has_more"]:
            cursor = base64.b64encode(f"next:{start + limit}".encode()).decode()
            body["response_metadata"] = {"next_cursor": cursor}
        return 200, body, {}

    def _conversations_replies(self, params: dict[str, Any]) -> tuple[int, dict, dict]:
        channel, ts = str(params["channel"]), str(params["ts"])
        error = self._channel_error(channel)
        if error:
            return 200, {"ok": False, "error": error}, {}
        found = self.thread(channel, ts)
        if not found:
            return 200, {"ok": False, "error": "thread_not_found"}, {}
        with_metadata = str(params.get("include_all_metadata", "")).lower() in ("1", "true")
        limit = int(params.get("limit") or 1000)
        messages = [m.as_api(with_metadata=with_metadata) for m in found[:limit]]
        return 200, {"ok": True, "messages": messages, "has_more": len(found) > limit}, {}
