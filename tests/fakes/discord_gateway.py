"""A loopback Discord: the REST fake plus what a connected bot needs, and a gateway.

`FakeDiscordAPI` extends the REST fake (tests/fakes/discord_rest.py) with the routes a
discord.py client calls to connect and to answer people: `GET /gateway/bot` and `/gateway`
(the loopback WebSocket URL and shard count), application command sync (`PUT` of global and
guild commands, validated against Discord's OpenAPI description like every other body),
`GET /channels/{id}` (a thread names its parent), and interaction follow-ups
(`POST /webhooks/{application}/{token}`).

`FakeGateway` is the WebSocket end: it says HELLO (op 10), expects IDENTIFY (op 2) with the
right token, intents without privileged ones and a valid shard, answers every heartbeat
(op 1) with op 11, then sends READY and one GUILD_CREATE per guild of the shard. A test then
`dispatch`es events — INTERACTION_CREATE and MESSAGE_REACTION_ADD built by the helpers here
in the shapes Discord documents — to the session of the guild's shard, and reads the
answers the bot POSTed (`FakeDiscordAPI.callbacks`, `.followups`). Frames are JSON text, which
discord.py reads as it reads Discord's compressed binary ones. What the gateway refuses is
listed in `problems`, as the REST fake does.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web
from aiohttp.test_utils import TestServer

from tests.fakes.discord_rest import BOT_ID, FakeDiscord, json_response

HELLO, IDENTIFY, HEARTBEAT, HEARTBEAT_ACK, RESUME, DISPATCH = 10, 2, 1, 11, 6, 0
INVALID_SESSION = 9
# GUILD_MEMBERS, GUILD_PRESENCES, MESSAGE_CONTENT need the developer portal's approval
PRIVILEGED_INTENTS = (1 << 1) | (1 << 8) | (1 << 15)
ADMINISTRATOR = 1 << 3
MANAGE_CHANNELS = 1 << 4
EVERYONE_PERMISSIONS = (1 << 10) | (1 << 11) | (1 << 31)  # view, send, use app commands


@dataclass
class FakeDiscordAPI(FakeDiscord):
    """The REST fake plus gateway discovery, command sync, channel lookup and follow-ups."""

    gateway_url: str = ""
    shards: int = 1
    commands: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    followups: list[dict[str, Any]] = field(default_factory=list)
    roles: list[dict[str, Any]] = field(default_factory=list)
    _command_ids: itertools.count = field(default_factory=lambda: itertools.count(1))

    def app(self) -> web.Application:
        app = super().app()
        api = "/api/v10"
        app.router.add_get(f"{api}/gateway", self._gateway)
        app.router.add_get(f"{api}/gateway/bot", self._gateway_bot)
        app.router.add_put(f"{api}/applications/{{application_id}}/commands", self._sync)
        app.router.add_put(
            f"{api}/applications/{{application_id}}/guilds/{{guild_id}}/commands", self._sync
        )
        app.router.add_get(f"{api}/channels/{{channel_id}}", self._get_channel)
        app.router.add_post(f"{api}/webhooks/{{application_id}}/{{token}}", self._followup)
        return app

    @staticmethod
    def _route(request: web.Request) -> tuple[str, str]:
        # follow-ups are authorised by the interaction token, like callbacks
        if request.path.startswith("/api/v10/webhooks/"):
            return "interactions", ""
        return FakeDiscord._route(request)

    def command(self, name: str, *, guild_id: str | None = None) -> dict[str, Any] | None:
        """The synced application command `name` (of the guild, else global), if any."""
        for scope in ([guild_id] if guild_id else []) + ["global"]:
            for command in self.commands.get(scope, []):
                if command["name"] == name:
                    return command
        return None

    async def _gateway(self, request: web.Request) -> web.Response:
        return json_response({"url": self.gateway_url})

    async def _gateway_bot(self, request: web.Request) -> web.Response:
        limit = {"total": 1000, "remaining": 999, "reset_after": 14400000, "max_concurrency": 1}
        return json_response(
            {"url": self.gateway_url, "shards": self.shards, "session_start_limit": limit}
        )

    async def _sync(self, request: web.Request) -> web.Response:
        application_id = request.match_info["application_id"]
        guild_id = request.match_info.get("guild_id")
        path = (
            "/applications/{application_id}/guilds/{guild_id}/commands"
            if guild_id
            else "/applications/{application_id}/commands"
        )
        body, error = await self._body(request, path)
        if error:
            return error
        if application_id != BOT_ID:
            return self._not_found("Application", 10002)
        synced = []
        for command in body or []:
            entry = {
                "type": 1,
                "default_member_permissions": None,
                "nsfw": False,
                **command,
                "id": str(next(self._command_ids) + 1_400_000_000_000_000_000),
                "application_id": application_id,
                "version": self.snowflake(),
            }
            if guild_id:
                entry["guild_id"] = guild_id
            synced.append(entry)
        self.commands[guild_id or "global"] = synced
        return json_response(synced)

    async def _get_channel(self, request: web.Request) -> web.Response:
        channel = self._channel(request.match_info["channel_id"])
        if channel is None:
            return self._not_found("Channel", 10003)
        return json_response(channel)

    async def _followup(self, request: web.Request) -> web.Response:
        body, error = await self._body(request, "/webhooks/{webhook_id}/{webhook_token}")
        if error:
            return error
        self.followups.append({"token": request.match_info["token"], **body})
        message = self._message("0", body, self.snowflake())
        message["webhook_id"] = request.match_info["application_id"]
        return json_response(message)

    # ---- the guild as the gateway describes it -------------------------------------------

    def role(self, name: str, *, permissions: int = 0) -> str:
        """A role of the guild; returns its id."""
        role_id = self.snowflake()
        self.roles.append(_role(role_id, name, permissions, position=len(self.roles) + 1))
        return role_id

    def guild_create(self) -> dict[str, Any]:
        """The GUILD_CREATE payload of the guild: its roles, channels and active threads."""
        return {
            "id": self.guild_id,
            "name": "Wire Test",
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": "1100000000000000002",
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [
                _role(self.guild_id, "@everyone", EVERYONE_PERMISSIONS, position=0),
                *self.roles,
            ],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "preferred_locale": "en-US",
            "public_updates_channel_id": None,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "joined_at": "2026-01-01T00:00:00+00:00",
            "large": False,
            "unavailable": False,
            "member_count": 3,
            "voice_states": [],
            "members": [],
            "channels": list(self.channels.values()),
            "threads": list(self.threads.values()),
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }


def _role(role_id: str, name: str, permissions: int, *, position: int) -> dict[str, Any]:
    return {
        "id": role_id,
        "name": name,
        "color": 0,
        "hoist": False,
        "icon": None,
        "unicode_emoji": None,
        "position": position,
        "permissions": str(permissions),
        "managed": False,
        "mentionable": True,
        "flags": 0,
    }


@dataclass
class Session:
    """One bot connection: its shard, its sequence number and its socket."""

    socket: web.WebSocketResponse
    shard: tuple[int, int] = (0, 1)
    sequence: int = 0
    identified: asyncio.Event = field(default_factory=asyncio.Event)

    async def send(self, op: int, data: Any = None, event: str | None = None) -> None:
        frame: dict[str, Any] = {"op": op, "d": data, "s": None, "t": event}
        if op == DISPATCH:
            self.sequence += 1
            frame["s"] = self.sequence
        await self.socket.send_str(json.dumps(frame))


@dataclass
class FakeGateway:
    """The gateway WebSocket of `api` (see the module doc)."""

    api: FakeDiscordAPI
    heartbeat_interval_ms: int = 41250
    url: str = ""
    sessions: list[Session] = field(default_factory=list)
    identifies: list[dict[str, Any]] = field(default_factory=list)
    heartbeats: int = 0
    resumes: int = 0  # RESUMEs received (each answered INVALID_SESSION: identify anew)
    problems: list[str] = field(default_factory=list)
    _session_ids: itertools.count = field(default_factory=lambda: itertools.count(1))

    def app(self) -> web.Application:
        """The aiohttp application serving the WebSocket at `/`."""
        app = web.Application()
        app.router.add_get("/", self._connect)
        return app

    def shard_of(self, guild_id: str, count: int) -> int:
        """The shard that carries a guild's events, by Discord's formula."""
        return (int(guild_id) >> 22) % count

    @property
    def ready(self) -> list[Session]:
        """Sessions that identified and are still open."""
        return [s for s in self.sessions if s.identified.is_set() and not s.socket.closed]

    async def wait_ready(self, count: int = 1, timeout: float = 10.0) -> None:
        """Wait until `count` sessions have identified."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while len(self.ready) < count:
            if loop.time() > deadline:
                raise AssertionError(f"{len(self.ready)} of {count} sessions identified")
            await asyncio.sleep(0.01)

    async def dispatch(self, event: str, payload: dict[str, Any]) -> None:
        """Send a DISPATCH of `event` to the session carrying the payload's guild."""
        guild_id = payload.get("guild_id") or self.api.guild_id
        targets = [s for s in self.ready if s.shard[0] == self.shard_of(guild_id, s.shard[1])]
        if not targets:
            raise AssertionError(f"no identified session carries guild {guild_id}")
        await targets[0].send(DISPATCH, payload, event)

    async def _connect(self, request: web.Request) -> web.WebSocketResponse:
        if request.query.get("v") != "10" or request.query.get("encoding") != "json":
            self.problems.append(f"gateway URL query {dict(request.query)}")
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        session = Session(socket)
        self.sessions.append(session)
        await session.send(HELLO, {"heartbeat_interval": self.heartbeat_interval_ms})
        async for message in socket:
            if message.type != WSMsgType.TEXT:
                continue
            frame = json.loads(message.data)
            op = frame.get("op")
            if op == HEARTBEAT:
                self.heartbeats += 1
                await session.send(HEARTBEAT_ACK)
            elif op == IDENTIFY:
                await self._identify(session, frame.get("d") or {})
            elif op == RESUME:
                self.resumes += 1
                await session.send(INVALID_SESSION, False)
        return socket

    async def _identify(self, session: Session, data: dict[str, Any]) -> None:
        """Check IDENTIFY as Discord does (closing with its codes), then READY and guilds."""
        intents = data.get("intents")
        shard = data.get("shard") or [0, 1]
        if data.get("token") != self.api.token:
            self.problems.append("IDENTIFY with a wrong token")
            await session.socket.close(code=4004, message=b"Authentication failed.")
            return
        if not isinstance(intents, int):
            self.problems.append(f"IDENTIFY without intents: {intents!r}")
            await session.socket.close(code=4013, message=b"Invalid intent(s).")
            return
        if intents & PRIVILEGED_INTENTS:
            self.problems.append(f"IDENTIFY asks for privileged intents: {intents}")
            await session.socket.close(code=4014, message=b"Disallowed intent(s).")
            return
        if not (len(shard) == 2 and 0 <= shard[0] < shard[1]):
            self.problems.append(f"IDENTIFY with an invalid shard {shard!r}")
            await session.socket.close(code=4010, message=b"Invalid shard.")
            return
        self.identifies.append(data)
        session.shard = (shard[0], shard[1])
        mine = self.shard_of(self.api.guild_id, shard[1]) == shard[0]
        ready = {
            "v": 10,
            "user": self.api._bot_user(),
            "guilds": [{"id": self.api.guild_id, "unavailable": True}] if mine else [],
            "session_id": f"session-{next(self._session_ids)}",
            "resume_gateway_url": self.url,
            "shard": list(shard),
            "application": {"id": BOT_ID, "flags": 0},
        }
        await session.send(DISPATCH, ready, "READY")
        if mine and intents & 1:  # GUILDS
            await session.send(DISPATCH, self.api.guild_create(), "GUILD_CREATE")
        session.identified.set()


# ---- documented payloads ------------------------------------------------------------------


def member(user_id: str, name: str, *, permissions: int = EVERYONE_PERMISSIONS) -> dict:
    """A guild member as an interaction or reaction carries it (`permissions` is the
    member's total permissions in the channel, as Discord computes them)."""
    user = {
        "id": user_id,
        "username": name.lower(),
        "discriminator": "0",
        "global_name": name,
        "avatar": None,
        "public_flags": 0,
    }
    return {
        "user": user,
        "roles": [],
        "nick": None,
        "premium_since": None,
        "joined_at": "2026-01-01T00:00:00+00:00",
        "deaf": False,
        "mute": False,
        "pending": False,
        "flags": 0,
        "permissions": str(permissions),
    }


def _interaction(
    api: FakeDiscordAPI, kind: int, *, channel_id: str, who: dict, data: dict
) -> dict[str, Any]:
    """The envelope Discord documents for an INTERACTION_CREATE in a guild channel."""
    return {
        "id": api.snowflake(),
        "application_id": BOT_ID,
        "type": kind,
        "token": f"interaction-token-{api.snowflake()}",
        "version": 1,
        "guild_id": api.guild_id,
        "channel_id": channel_id,
        "channel": api._channel(channel_id),
        "member": who,
        "data": data,
        "app_permissions": str((1 << 11) | (1 << 38) | (1 << 14)),
        "attachment_size_limit": 10485760,
        "locale": "en-US",
        "guild_locale": "en-US",
        "entitlements": [],
        "authorizing_integration_owners": {"0": api.guild_id},
        "context": 0,
    }


def slash(
    api: FakeDiscordAPI,
    path: str,
    *,
    channel_id: str,
    who: dict,
    options: dict[str, str] | None = None,
    focused: str | None = None,
) -> dict[str, Any]:
    """An application command (type 2) — or, with `focused`, its autocomplete (type 4) —
    for `path` ("wire subscribe"), with string `options`, as synced to the guild or
    globally. The command id is the one the fake handed out at sync."""
    name, *subcommands = path.split()
    command = api.command(name, guild_id=api.guild_id)
    if command is None:
        raise AssertionError(f"/{name} was never synced")
    leaf = [
        {"type": 3, "name": key, "value": value, **({"focused": True} if key == focused else {})}
        for key, value in (options or {}).items()
    ]
    for subcommand in reversed(subcommands):
        leaf = [{"type": 1, "name": subcommand, "options": leaf}]
    data = {"id": command["id"], "name": name, "type": 1, "options": leaf}
    if "guild_id" in command:
        data["guild_id"] = command["guild_id"]
    kind = 4 if focused else 2
    return _interaction(api, kind, channel_id=channel_id, who=who, data=data)


def button_press(api: FakeDiscordAPI, message: dict, *, who: dict) -> dict[str, Any]:
    """A MESSAGE_COMPONENT interaction (type 3) pressing the first button of `message`;
    the REST fake is told which message its UPDATE_MESSAGE callback would edit."""
    button = message["components"][0]["components"][0]
    payload = _interaction(
        api,
        3,
        channel_id=message["channel_id"],
        who=who,
        data={"custom_id": button["custom_id"], "component_type": 2},
    )
    payload["message"] = message
    api.expect_interaction(payload["id"], message["id"])
    return payload


def reaction_add(
    api: FakeDiscordAPI, message: dict, *, who: dict, emoji: str = "✅"
) -> dict[str, Any]:
    """A MESSAGE_REACTION_ADD of a unicode `emoji` on `message` by member `who`."""
    return {
        "user_id": who["user"]["id"],
        "channel_id": message["channel_id"],
        "message_id": message["id"],
        "guild_id": api.guild_id,
        "member": who,
        "emoji": {"id": None, "name": emoji},
        "message_author_id": message["author"]["id"],
        "burst": False,
        "burst_colors": [],
        "type": 0,
    }


class LoopbackDiscord:
    """The REST API and the gateway served on loopback ports, for `async with`:

    async with LoopbackDiscord() as discord_:
        discord_.api_url, discord_.api, discord_.gateway
    """

    def __init__(self, api: FakeDiscordAPI | None = None) -> None:
        self.api = api or FakeDiscordAPI()
        self.gateway = FakeGateway(self.api)
        self._servers: list[TestServer] = []
        self.api_url = ""

    async def __aenter__(self) -> LoopbackDiscord:
        rest = TestServer(self.api.app(), host="127.0.0.1")
        socket = TestServer(self.gateway.app(), host="127.0.0.1")
        for server in (rest, socket):
            await server.start_server()
            self._servers.append(server)
        self.api_url = str(rest.make_url("/api/v10"))
        self.api.base = self.api_url
        self.gateway.url = self.api.gateway_url = f"ws://127.0.0.1:{socket.port}/"
        return self

    async def __aexit__(self, *_exc: object) -> None:
        for server in reversed(self._servers):
            await server.close()

    @property
    def problems(self) -> list[str]:
        """Everything either end refused."""
        return self.api.problems + self.gateway.problems
