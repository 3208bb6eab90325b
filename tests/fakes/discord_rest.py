"""A loopback Discord REST API v10: messages, edits, threads from messages, reactions, the
bot's own user and interaction callbacks, with Discord's rate limits and errors.

Every JSON body is validated against the `requestBody` schema of the matching operation in
Discord's OpenAPI description (peers/discord-api-spec), plus the limits the description
leaves loose (content ≤ 2,000, ≤ 6,000 characters across a message's embeds). An invalid
request is answered as Discord answers it (400, code 50035 "Invalid Form Body") and listed in
`problems`, which tests assert stays empty; every JSON body is kept in `received`.

Rate limits follow Discord's rules: a global limit of `global_limit` requests a second
(429 with `"global": true`, `X-RateLimit-Global`, `X-RateLimit-Scope: global`) and one bucket
per route and channel (`X-RateLimit-Limit/-Remaining/-Reset/-Reset-After/-Bucket` on every
answer, 429 with `X-RateLimit-Scope: user` once spent). Every 429 carries `Via`, as
Discord's edge does: discord.py treats a 429 without it as a Cloudflare ban and gives up.
`script_429` makes the next requests of a route answer 429 whatever the buckets say;
`script_error` makes them answer another error (a 5xx, a 403 with its code…), and `deny`
answers 403 to every request in a channel and its threads.

A message posted with `nonce` and `enforce_nonce: true` is posted once: the same author,
channel and nonce within `nonce_window` seconds answers the first message (200), as Discord
does. Reading a channel's messages (`GET …/messages`, `limit` 1–100, `before`/`after`/`around`
one at most) answers them newest first without their nonce, which Discord does not keep.

Point discord.py at it by setting `discord.http.Route.BASE` to `fake.base` (the far edge of
the network: every REST call and interaction callback discord.py makes builds its URL from
that one class attribute).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import jsonschema
import referencing
from aiohttp import web

from tests.peers import PEERS

SPEC = PEERS / "discord-api-spec/specs/openapi.json"
DISCORD_EPOCH_MS = 1_420_070_400_000
CONTENT_MAX = 2000
EMBEDS_TOTAL_MAX = 6000
BOT_ID = "1100000000000000001"
NONCE_WINDOW = 300.0
ERROR_MESSAGES = {
    0: "401: Unauthorized",
    50001: "Missing Access",
    50013: "Missing Permissions",
    500: "Internal Server Error",
}


@functools.cache
def spec() -> dict[str, Any]:
    """Discord's OpenAPI description, loaded once.

    One correction: the description types a snowflake as a decimal string only, but Discord
    also takes a JSON integer (discord.py sends `allowed_mentions.roles` as integers), so a
    snowflake may be either here, still non-negative and decimal.
    """
    loaded = json.loads(SPEC.read_text(encoding="utf-8"))
    loaded["components"]["schemas"]["SnowflakeType"] = {
        "oneOf": [
            {"type": "string", "pattern": "^(0|[1-9][0-9]*)$"},
            {"type": "integer", "minimum": 0, "maximum": 2**64 - 1},
        ]
    }
    return loaded


@functools.cache
def validator(schema_name: str) -> jsonschema.Draft202012Validator:
    """A validator for one of the description's component schemas (refs resolved in-spec)."""
    resource = referencing.Resource.from_contents(
        spec(), default_specification=referencing.jsonschema.DRAFT202012
    )
    registry = referencing.Registry().with_resource("urn:discord", resource)
    ref = {"$ref": f"urn:discord#/components/schemas/{schema_name}"}
    return jsonschema.Draft202012Validator(ref, registry=registry)


def request_schema(path: str, method: str) -> dict[str, Any] | None:
    """The JSON requestBody schema of an operation, as written in the description."""
    operation = spec()["paths"][path][method.lower()]
    body = operation.get("requestBody")
    return body["content"]["application/json"]["schema"] if body else None


def query_parameters(path: str, method: str) -> set[str]:
    """The names of an operation's query parameters, as written in the description."""
    operation = spec()["paths"][path][method.lower()]
    return {p["name"] for p in operation.get("parameters", []) if p.get("in") == "query"}


def _schema_validator(path: str, method: str) -> jsonschema.Draft202012Validator | None:
    schema = request_schema(path, method)
    if schema is None:
        return None
    if "$ref" in schema:
        return validator(schema["$ref"].rsplit("/", 1)[1])
    resource = referencing.Resource.from_contents(
        spec(), default_specification=referencing.jsonschema.DRAFT202012
    )
    registry = referencing.Registry().with_resource("urn:discord", resource)
    rebased = json.loads(json.dumps(schema).replace('"#/components', '"urn:discord#/components'))
    return jsonschema.Draft202012Validator(rebased, registry=registry)


def _units(text: str | None) -> int:
    return len((text or "").encode("utf-16-le")) // 2


def json_response(
    body: Any, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    """A JSON answer typed exactly "application/json", as Discord's are (discord.py parses a
    body as JSON only when the content type is exactly that)."""
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    return web.Response(body=json.dumps(body).encode(), status=status, headers=all_headers)


@dataclass
class Bucket:
    """A fixed-window rate-limit bucket."""

    limit: int
    per: float
    remaining: int = 0
    reset_at: float = 0.0

    def take(self, now: float) -> bool:
        """Spend one request; False when the window is spent."""
        if now >= self.reset_at:
            self.remaining, self.reset_at = self.limit, now + self.per
        if self.remaining == 0:
            return False
        self.remaining -= 1
        return True


@dataclass
class Limits:
    """Requests allowed per window, per route name (and channel)."""

    messages: tuple[int, float] = (5, 5.0)
    edits: tuple[int, float] = (5, 5.0)
    threads: tuple[int, float] = (10, 10.0)
    reactions: tuple[int, float] = (1, 0.25)
    other: tuple[int, float] = (50, 1.0)


@dataclass
class FakeDiscord:
    """The fake's state: channels, messages, threads, reactions, and what went wrong."""

    token: str = "wire-test-token"
    guild_id: str = "1200000000000000001"
    global_limit: int = 50
    limits: Limits = field(default_factory=Limits)
    channels: dict[str, dict[str, Any]] = field(default_factory=dict)
    messages: dict[str, dict[str, Any]] = field(default_factory=dict)
    threads: dict[str, dict[str, Any]] = field(default_factory=dict)
    reactions: list[tuple[str, str, str]] = field(default_factory=list)
    callbacks: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    requests: Counter[str] = field(default_factory=Counter)
    rate_limited: list[tuple[str, bool]] = field(default_factory=list)
    denied: dict[str, int] = field(default_factory=dict)
    received: list[tuple[str, str, Any]] = field(default_factory=list)
    nonce_window: float = NONCE_WINDOW
    base: str = ""
    _nonces: dict[tuple[str, str], tuple[str, float]] = field(default_factory=dict)
    _errors: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    _scripted: dict[str, list[float]] = field(default_factory=dict)
    _scripted_global: bool = False
    _interactions: dict[str, str] = field(default_factory=dict)
    _buckets: dict[str, Bucket] = field(default_factory=dict)
    _global: Bucket | None = None
    _ids: itertools.count = field(default_factory=lambda: itertools.count(1))

    # ---- set-up ------------------------------------------------------------------------

    def snowflake(self) -> str:
        """A fresh id whose timestamp is now, as Discord's are."""
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        return str((ms << 22) | (next(self._ids) & 0x3FFFFF))

    def add_channel(self, name: str = "wire") -> str:
        """A guild text channel; returns its id."""
        channel_id = self.snowflake()
        self.channels[channel_id] = {
            "id": channel_id,
            "type": 0,
            "guild_id": self.guild_id,
            "name": name,
            "position": len(self.channels),
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": None,
            "topic": None,
            "rate_limit_per_user": 0,
            "last_message_id": None,
            "flags": 0,
        }
        return channel_id

    def script_429(self, route: str, *retry_after: float, is_global: bool = False) -> None:
        """The next len(retry_after) requests of `route` ("messages", "edits", …) get 429."""
        self._scripted.setdefault(route, []).extend(retry_after)
        self._scripted_global = is_global

    def script_error(self, route: str, status: int, code: int = 0, *, times: int = 1) -> None:
        """The next `times` requests of `route` get HTTP `status` with Discord error `code`."""
        self._errors.setdefault(route, []).extend([(status, code)] * times)

    def deny(self, channel_id: str, code: int = 50001) -> None:
        """Every later request in `channel_id` (or a thread of it) gets 403 with `code`
        (50001 Missing Access, 50013 Missing Permissions)."""
        self.denied[channel_id] = code

    def thread_messages(self, thread_id: str) -> list[dict[str, Any]]:
        """Messages posted in a thread (or channel), oldest first."""
        return [m for m in self.messages.values() if m["channel_id"] == thread_id]

    # ---- the application -----------------------------------------------------------

    def app(self) -> web.Application:
        """The aiohttp application serving `/api/v10/…`."""
        app = web.Application(middlewares=[self._limits_middleware])
        api = "/api/v10"
        app.router.add_get(f"{api}/users/@me", self._me)
        app.router.add_get(f"{api}/oauth2/applications/@me", self._application)
        app.router.add_post(f"{api}/channels/{{channel_id}}/messages", self._create)
        app.router.add_get(f"{api}/channels/{{channel_id}}/messages", self._list)
        app.router.add_patch(f"{api}/channels/{{channel_id}}/messages/{{message_id}}", self._edit)
        app.router.add_post(
            f"{api}/channels/{{channel_id}}/messages/{{message_id}}/threads", self._thread
        )
        app.router.add_put(
            f"{api}/channels/{{channel_id}}/messages/{{message_id}}/reactions/{{emoji}}/@me",
            self._react,
        )
        app.router.add_post(
            f"{api}/interactions/{{interaction_id}}/{{token}}/callback", self._callback
        )
        return app

    @staticmethod
    def _route(request: web.Request) -> tuple[str, str]:
        """(route name, major parameter) of a request, for buckets and scripts."""
        path, method = request.path, request.method
        if "/reactions/" in path:
            name = "reactions"
        elif path.endswith("/threads"):
            name = "threads"
        elif method == "PATCH":
            name = "edits"
        elif path.endswith("/messages") and method == "POST":
            name = "messages"
        elif path.endswith("/messages") and method == "GET":
            name = "history"
        elif "/interactions/" in path:
            name = "interactions"
        else:
            name = "other"
        return name, request.match_info.get("channel_id", "")

    @web.middleware
    async def _limits_middleware(self, request: web.Request, handler: Any) -> web.StreamResponse:
        name, major = self._route(request)
        self.requests[name] += 1
        if name != "interactions" and request.headers.get("Authorization") != f"Bot {self.token}":
            return json_response({"message": "401: Unauthorized", "code": 0}, status=401)
        now = time.monotonic()
        if name != "interactions":
            if self._global is None or self._global.limit != self.global_limit:
                self._global = Bucket(self.global_limit, 1.0)
            if not self._global.take(now):
                return self._too_many(self._global.reset_at - now, is_global=True)
        scripted = self._scripted.get(name)
        if scripted:
            return self._too_many(scripted.pop(0), is_global=self._scripted_global)
        error = self._error_for(name, major)
        if error is not None:
            return error
        limit, per = getattr(self.limits, name, self.limits.other)
        bucket_hash = hashlib.sha1(name.encode()).hexdigest()[:12]
        bucket = self._buckets.setdefault(f"{bucket_hash}:{major}", Bucket(limit, per))
        allowed = bucket.take(now)
        headers = {
            "X-RateLimit-Limit": str(bucket.limit),
            "X-RateLimit-Remaining": str(bucket.remaining),
            "X-RateLimit-Reset": f"{time.time() + bucket.reset_at - now:.3f}",
            "X-RateLimit-Reset-After": f"{bucket.reset_at - now:.3f}",
            "X-RateLimit-Bucket": bucket_hash,
        }
        if not allowed:
            return self._too_many(bucket.reset_at - now, is_global=False, headers=headers)
        response = await handler(request)
        response.headers.update(headers)
        return response

    def _error_for(self, name: str, major: str) -> web.Response | None:
        """A scripted error of route `name`, or 403 when the channel is denied."""
        scripted = self._errors.get(name)
        if scripted:
            status, code = scripted.pop(0)
        else:
            channel = self._channel(major) or {}
            parent = channel.get("parent_id") or major
            if major not in self.denied and parent not in self.denied:
                return None
            status, code = 403, self.denied.get(major, self.denied.get(parent, 50001))
        message = ERROR_MESSAGES.get(code, ERROR_MESSAGES.get(status, f"HTTP {status}"))
        return json_response({"message": message, "code": code}, status=status)

    def _too_many(
        self, retry_after: float, *, is_global: bool, headers: dict[str, str] | None = None
    ) -> web.Response:
        self.rate_limited.append((f"{retry_after:.3f}", is_global))
        extra = dict(headers or {})
        extra["Retry-After"] = str(max(1, round(retry_after)))
        extra["Via"] = "1.1 google"
        extra["X-RateLimit-Scope"] = "global" if is_global else "user"
        if is_global:
            extra["X-RateLimit-Global"] = "true"
        body = {
            "message": "You are being rate limited.",
            "retry_after": round(retry_after, 3),
            "global": is_global,
        }
        return json_response(body, status=429, headers=extra)

    # ---- validation --------------------------------------------------------------------

    async def _body(
        self, request: web.Request, path: str
    ) -> tuple[dict | None, web.Response | None]:
        """The JSON body if valid for the operation at `path`, else Discord's 400 answer."""
        try:
            body = await request.json()
        except json.JSONDecodeError:
            return None, self._invalid(request, ["body is not JSON"])
        self.received.append((request.method, request.path, body))
        check = _schema_validator(path, request.method)
        errors = (
            []
            if check is None
            else [
                f"{'/'.join(map(str, e.absolute_path)) or '(body)'}: {e.message}"
                for e in check.iter_errors(body)
            ]
        )
        if isinstance(body, dict):
            if _units(body.get("content")) > CONTENT_MAX:
                errors.append(f"content: {_units(body['content'])} chars exceed {CONTENT_MAX}")
            embeds = body.get("embeds") or []
            total = sum(
                _units(e.get("title"))
                + _units(e.get("description"))
                + _units((e.get("footer") or {}).get("text"))
                + sum(_units(f.get("name")) + _units(f.get("value")) for f in e.get("fields") or [])
                for e in embeds
                if isinstance(e, dict)
            )
            if total > EMBEDS_TOTAL_MAX:
                errors.append(f"embeds: {total} chars exceed {EMBEDS_TOTAL_MAX}")
        if errors:
            return None, self._invalid(request, errors)
        return body, None

    def _invalid(self, request: web.Request, errors: list[str]) -> web.Response:
        self.problems.extend(f"{request.method} {request.path}: {e}" for e in errors)
        body = {"code": 50035, "message": "Invalid Form Body", "errors": {"_errors": errors}}
        return json_response(body, status=400)

    @staticmethod
    def _not_found(what: str, code: int) -> web.Response:
        return json_response({"message": f"Unknown {what}", "code": code}, status=404)

    # ---- handlers ----------------------------------------------------------------------

    async def _me(self, request: web.Request) -> web.Response:
        return json_response(self._bot_user())

    async def _application(self, request: web.Request) -> web.Response:
        owner = {**self._bot_user(), "id": "1100000000000000002", "username": "owner", "bot": False}
        application = {
            "id": BOT_ID,
            "name": "The Wire",
            "description": "",
            "icon": None,
            "bot_public": False,
            "bot_require_code_grant": False,
            "owner": owner,
            "team": None,
            "verify_key": "0" * 64,
            "flags": 0,
            "bot": self._bot_user(),
        }
        return json_response(application)

    def _bot_user(self) -> dict[str, Any]:
        return {
            "id": BOT_ID,
            "username": "the-wire",
            "discriminator": "0",
            "global_name": None,
            "avatar": None,
            "bot": True,
            "flags": 0,
            "public_flags": 0,
        }

    def _channel(self, channel_id: str) -> dict[str, Any] | None:
        return self.channels.get(channel_id) or self.threads.get(channel_id)

    def _message(self, channel_id: str, body: dict[str, Any], message_id: str) -> dict[str, Any]:
        content = body.get("content") or ""
        mentions = body.get("allowed_mentions")
        parse = set(mentions.get("parse") or []) if mentions else {"everyone", "users", "roles"}
        allowed_roles = set((mentions or {}).get("roles") or [])
        mention_roles = [
            role
            for role in re.findall(r"<@&(\d+)>", content)
            if "roles" in parse or role in allowed_roles
        ]
        everyone = "everyone" in parse and bool(re.search(r"@(everyone|here)", content))
        return {
            "id": message_id,
            "channel_id": channel_id,
            "type": 0,
            "content": content,
            "author": self._bot_user(),
            "timestamp": datetime.now(UTC).isoformat(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": everyone,
            "mentions": [],
            "mention_roles": mention_roles,
            "attachments": [],
            "embeds": body.get("embeds") or [],
            "components": body.get("components") or [],
            "pinned": False,
            "flags": body.get("flags") or 0,
            "nonce": body.get("nonce"),
        }

    async def _create(self, request: web.Request) -> web.Response:
        channel_id = request.match_info["channel_id"]
        body, error = await self._body(request, "/channels/{channel_id}/messages")
        if error:
            return error
        if self._channel(channel_id) is None:
            return self._not_found("Channel", 10003)
        if not body.get("content") and not body.get("embeds") and not body.get("components"):
            return self._invalid(request, ["Cannot send an empty message"])
        nonce = body.get("nonce")
        enforced = body.get("enforce_nonce") and nonce is not None
        now = time.monotonic()
        if enforced:
            earlier = self._nonces.get((channel_id, str(nonce)))
            if earlier is not None and now - earlier[1] < self.nonce_window:
                return json_response(self.messages[earlier[0]])
        message = self._message(channel_id, body, self.snowflake())
        self.messages[message["id"]] = message
        if enforced:
            self._nonces[(channel_id, str(nonce))] = (message["id"], now)
        return json_response(message)

    async def _list(self, request: web.Request) -> web.Response:
        """A channel's messages, newest first, as GET /channels/{id}/messages answers."""
        channel_id = request.match_info["channel_id"]
        query = dict(request.query)
        self.received.append((request.method, request.path, query))
        known = query_parameters("/channels/{channel_id}/messages", "GET")
        errors = [f"unknown query parameter {name!r}" for name in sorted(set(query) - known)]
        anchors = [name for name in ("around", "before", "after") if name in query]
        if len(anchors) > 1:
            errors.append(f"only one of around, before and after: {anchors}")
        if not all(query[name].isdigit() for name in anchors):
            errors.append("around, before and after must be snowflakes")
        limit = query.get("limit", "50")
        if not limit.isdigit() or not 1 <= int(limit) <= 100:
            errors.append(f"limit must be 1 to 100: {limit!r}")
        if errors:
            return self._invalid(request, errors)
        if self._channel(channel_id) is None:
            return self._not_found("Channel", 10003)
        found = sorted(self.thread_messages(channel_id), key=lambda m: int(m["id"]), reverse=True)
        if "before" in query:
            found = [m for m in found if int(m["id"]) < int(query["before"])]
        elif "after" in query:
            found = [m for m in found if int(m["id"]) > int(query["after"])][-int(limit) :]
        elif "around" in query:
            older = [m for m in found if int(m["id"]) <= int(query["around"])]
            newer = [m for m in found if int(m["id"]) > int(query["around"])]
            found = newer[-(int(limit) // 2) :] + older
        kept = [{k: v for k, v in m.items() if k != "nonce"} for m in found[: int(limit)]]
        return json_response(kept)

    async def _edit(self, request: web.Request) -> web.Response:
        channel_id, message_id = request.match_info["channel_id"], request.match_info["message_id"]
        body, error = await self._body(request, "/channels/{channel_id}/messages/{message_id}")
        if error:
            return error
        old = self.messages.get(message_id)
        if old is None or old["channel_id"] != channel_id:
            return self._not_found("Message", 10008)
        return json_response(self._apply_edit(old, body))

    def _apply_edit(self, old: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        merged = {
            "content": old["content"],
            "embeds": old["embeds"],
            "components": old["components"],
            "allowed_mentions": body.get("allowed_mentions"),
        }
        merged.update({k: v for k, v in body.items() if k in {"content", "embeds", "components"}})
        message = self._message(old["channel_id"], merged, old["id"])
        message["edited_timestamp"] = datetime.now(UTC).isoformat()
        message["nonce"] = old.get("nonce")
        self.messages[old["id"]] = message
        return message

    async def _thread(self, request: web.Request) -> web.Response:
        channel_id, message_id = request.match_info["channel_id"], request.match_info["message_id"]
        path = "/channels/{channel_id}/messages/{message_id}/threads"
        body, error = await self._body(request, path)
        if error:
            return error
        message = self.messages.get(message_id)
        if message is None or message["channel_id"] != channel_id:
            return self._not_found("Message", 10008)
        if message_id in self.threads:
            answer = {
                "message": "A thread has already been created for this message",
                "code": 160004,
            }
            return json_response(answer, status=400)
        thread = {
            "id": message_id,
            "type": 11,
            "guild_id": self.guild_id,
            "parent_id": channel_id,
            "name": body["name"],
            "owner_id": BOT_ID,
            "last_message_id": None,
            "message_count": 0,
            "member_count": 1,
            "rate_limit_per_user": 0,
            "flags": 0,
            "total_message_sent": 0,
            "thread_metadata": {
                "archived": False,
                "locked": False,
                "auto_archive_duration": body.get("auto_archive_duration") or 1440,
                "archive_timestamp": datetime.now(UTC).isoformat(),
            },
        }
        self.threads[message_id] = thread
        return json_response(thread, status=201)

    async def _react(self, request: web.Request) -> web.Response:
        channel_id, message_id = request.match_info["channel_id"], request.match_info["message_id"]
        message = self.messages.get(message_id)
        if message is None or message["channel_id"] != channel_id:
            return self._not_found("Message", 10008)
        self.reactions.append((channel_id, message_id, request.match_info["emoji"]))
        return web.Response(status=204)

    async def _callback(self, request: web.Request) -> web.Response:
        """Interaction callbacks; type 7 (UPDATE_MESSAGE) edits `message_id` of the interaction
        registered with `expect_interaction`."""
        body, error = await self._body(
            request, "/interactions/{interaction_id}/{interaction_token}/callback"
        )
        if error:
            return error
        interaction_id = request.match_info["interaction_id"]
        self.callbacks.append({"interaction_id": interaction_id, **body})
        target = self._interactions.get(interaction_id)
        interaction = {"id": interaction_id, "type": 3}
        if body["type"] == 7 and target is not None:
            message = self._apply_edit(self.messages[target], body.get("data") or {})
            return json_response(
                {"interaction": interaction, "resource": {"type": 7, "message": message}}
            )
        return json_response({"interaction": interaction})

    def expect_interaction(self, interaction_id: str, message_id: str) -> None:
        """Say which message a component interaction came from (its callback may edit it)."""
        self._interactions[interaction_id] = message_id
