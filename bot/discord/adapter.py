"""Discord as an adapter of `wire run`: the platform that posts stories and the gateway
session that takes `/wire`, buttons and reactions (see `bot.chat.adapters`).

    adapter = DiscordAdapter.from_settings(settings)   # no I/O
    await adapter.start(hub)    # log in, sync /wire, connect, wait until READY
    await adapter.close()

discord.py's REST base URL is `settings.discord.api_url`, and the gateway is the one
`GET /gateway/bot` names, so the whole client can be pointed elsewhere by one setting
(discord.py keeps both addresses as class attributes: one Discord per process). The
gateway session is exclusive (`bot.app.frontends`): every session of a bot receives every
event, so only one replica runs it. The platform logs in by itself when it posts first
(`wire run --once` starts no front end), and both share one login.

discord.py resumes a dropped session by itself (and identifies anew when Discord refuses
the resume). When the session ends for good (a close code it does not retry, an error it
does not expect), the adapter logs why with the traceback, reports "discord" unhealthy,
and starts a new session (a new client: log in, connect, identify) with exponential
back-off until one is ready again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import aiohttp
import discord
import yarl
from aiohttp import web
from discord.gateway import DiscordWebSocket
from discord.http import Route

from bot.chat.adapters import Hub
from bot.delivery.parts import Part
from bot.discord.frontend import WireBot
from bot.discord.platform import DiscordPlatform, discord_pacer
from bot.errors import PermanentError, RetryableError, SettingsError
from bot.settings import Settings

log = logging.getLogger("wire.discord")


class DiscordStartError(PermanentError):
    """The Discord front end could not start; the message says why in one sentence."""


class TokenRefused(DiscordStartError):
    """Discord answered the bot token with 401: nothing works until it is replaced."""


def oncall_role(settings: Settings) -> int | None:
    """The on-call role id a reminder mentions (`acks.oncall.discord`), if configured."""
    raw = settings.acks.oncall.discord
    if raw is None or raw == "":
        return None
    cleaned = raw.strip().removeprefix("<@&").removesuffix(">")
    if not cleaned.isdigit():
        raise SettingsError([f"acks.oncall.discord {raw!r} is not a Discord role id"])
    return int(cleaned)


class LoginFirstPlatform(DiscordPlatform):
    """The Discord platform, logging the shared client in before its first request, and
    giving up on a post or edit Discord does not answer within `timeout` seconds (a
    retryable failure: the retry's nonce makes Discord answer with a message it did post).
    discord.py itself waits as long as the connection stays open."""

    def __init__(
        self,
        *args: Any,
        login: Callable[[], Awaitable[None]],
        timeout: float = 60.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self._login = login
        self.timeout = timeout

    async def post(self, channel: str, part: Part, thread: str | None, *, key: str) -> str:
        await self._login()
        async with self._answered("post to", channel):
            return await super().post(channel, part, thread, key=key)

    async def update(self, channel: str, message_id: str, part: Part) -> None:
        await self._login()
        async with self._answered("edit a message in", channel):
            await super().update(channel, message_id, part)

    @contextlib.asynccontextmanager
    async def _answered(self, action: str, channel: str) -> AsyncIterator[None]:
        try:
            async with asyncio.timeout(self.timeout):
                yield
        except TimeoutError:
            raise RetryableError(
                f"Discord: no answer within {self.timeout:.0f} s to {action} channel {channel}"
            ) from None


class DiscordAdapter:
    """The Discord platform and front end (see the module doc)."""

    name = "discord"
    exclusive = True
    guild_ready_timeout = 2.0  # seconds without GUILD_CREATE before discord.py says READY
    ready_timeout = 60.0
    request_timeout = 60.0  # seconds a post or edit may take, pacing included
    reconnect_base = 1.0  # seconds before the first new session; doubled up to the cap
    reconnect_cap = 60.0

    def __init__(self, settings: Settings) -> None:
        self.settings = settings.discord
        if self.settings.bot_token is None:
            raise SettingsError(["discord.bot_token is required to run on Discord"])
        Route.BASE = str(self.settings.api_url).rstrip("/")
        self.bot = WireBot(self.settings, guild_ready_timeout=self.guild_ready_timeout)
        self.platform = LoginFirstPlatform(
            self.bot.client.http,
            oncall_role_id=oncall_role(settings),
            pacer=discord_pacer(self.settings.requests_per_second),
            login=self._login_for_platform,
            timeout=self.request_timeout,
        )
        self._login_lock = asyncio.Lock()
        self._logged_in = False
        self._session: asyncio.Task[None] | None = None
        self._keeper: asyncio.Task[None] | None = None
        self.sessions_started = 0  # gateway sessions opened, the first one included

    @classmethod
    def from_settings(cls, settings: Settings) -> DiscordAdapter:
        """The adapter for `settings`; checks them, connects nothing."""
        return cls(settings)

    def mount(self, app: web.Application) -> bool:
        """Discord talks over the gateway: no HTTP route to serve."""
        return False

    async def start(self, hub: Hub) -> None:
        """Log in, sync `/wire`, open the gateway session and wait until READY; a refused
        token, a refused intent or an unreachable Discord is one clear `DiscordStartError`."""
        if self._session is not None:
            return
        self.bot.bind(hub)
        await self._login()
        client = self.bot.client
        try:
            await self.bot.sync_commands()
            _shards, url, _limits = await client.http.get_bot_gateway()
        except (discord.HTTPException, discord.GatewayNotFound, aiohttp.ClientError) as error:
            await self._shut()
            raise DiscordStartError(
                f"Discord: could not register /wire or find the gateway: {error}"
            ) from error
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(url)
        self._session = self._connect()
        failure = await self._until_ready(self._session)
        if failure is None:
            log.info("connected to Discord as %s", client.user)
            self._keeper = asyncio.create_task(self._keep_session(), name="discord keeper")
            return
        session, self._session = self._session, None
        if not session.done():
            session.cancel()
        await self._shut()
        raise DiscordStartError(self._why(failure)) from (
            None if isinstance(failure, _NotReady) else failure
        )

    def _connect(self) -> asyncio.Task[None]:
        self.sessions_started += 1
        return asyncio.create_task(self.bot.client.connect(reconnect=True), name="discord gateway")

    async def _until_ready(self, session: asyncio.Task[None]) -> BaseException | None:
        """None once the client is READY; else why not (the session's error, or time)."""
        ready = asyncio.create_task(self.bot.client.wait_until_ready())
        done, _ = await asyncio.wait(
            {session, ready}, timeout=self.ready_timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if ready in done:
            return None
        ready.cancel()
        if session in done:
            return session.exception() or _NotReady("the gateway session ended before READY")
        return _NotReady(f"the gateway did not become ready within {self.ready_timeout:.0f} s")

    async def _keep_session(self) -> None:
        """Watch the session; when it ends by itself, open a new one with back-off."""
        failures = 0
        while self._session is not None:
            session = self._session
            with contextlib.suppress(Exception):
                await asyncio.shield(session)
            if self._session is not session:  # closed meanwhile
                return
            failures += 1
            delay = min(self.reconnect_cap, self.reconnect_base * 2 ** (failures - 1))
            error = None if session.cancelled() else session.exception()
            why = type(error).__name__ if error is not None else "closed"
            log.error(
                "the Discord gateway session ended (%s); a new one in %.1f s",
                why,
                delay,
                exc_info=error,
            )
            if self.bot.hub is not None:
                self.bot.hub.health.problem(
                    "discord", f"the gateway session ended ({why}); reconnecting"
                )
            await asyncio.sleep(delay)
            if self._session is not session:
                return
            try:
                await self._shut()
                await self._login()
                self._session = self._connect()
                failure = await self._until_ready(self._session)
            except Exception as exc:  # Discord unreachable: the next round tries again
                failure = exc
            if failure is None:
                log.info("a new Discord gateway session is ready")
                failures = 0
            elif not self._session.done():
                self._session.cancel()

    def _why(self, failure: BaseException) -> str:
        if isinstance(failure, _NotReady):
            return f"Discord: {failure}"
        if isinstance(failure, discord.PrivilegedIntentsRequired):
            return "Discord: the gateway refused the intents asked for (privileged intents)"
        if isinstance(failure, discord.ConnectionClosed):
            return f"Discord: the gateway closed the session (code {failure.code})"
        return f"Discord: could not connect to the gateway ({type(failure).__name__})"

    async def _login(self) -> None:
        """Log the client in once (REST only); a refused token is a `DiscordStartError`."""
        async with self._login_lock:
            if self._logged_in:
                return
            if self.bot.client.is_closed():
                self._renew()
            token = self.settings.bot_token
            assert token is not None, "__init__ refuses settings without a bot token"
            try:
                await self.bot.client.login(token.get_secret_value())
            except discord.LoginFailure:
                await self.bot.client.close()  # so the next attempt starts from a new client
                raise TokenRefused(
                    "Discord refused the bot token (401 Unauthorized): check discord.bot_token"
                ) from None
            except (discord.HTTPException, aiohttp.ClientError, OSError) as error:
                await self.bot.client.close()
                raise DiscordStartError(
                    f"Discord: could not log in ({type(error).__name__})"
                ) from None
            self._logged_in = True

    def _renew(self) -> None:
        """A new client in place of a closed one (a discord.py client is not reopened), with
        the same hub; the platform posts through the new client's HTTP session."""
        hub = self.bot.hub
        self.bot = WireBot(self.settings, guild_ready_timeout=self.guild_ready_timeout)
        if hub is not None:
            self.bot.bind(hub)
        self.platform.http = self.bot.client.http

    async def _login_for_platform(self) -> None:
        """Log in before posting; an unreachable Discord is retried like a failed post."""
        try:
            await self._login()
        except TokenRefused:
            raise
        except DiscordStartError as error:
            raise RetryableError(str(error)) from error

    async def _shut(self) -> None:
        """Close the client; the next login starts from a new one."""
        await self.bot.client.close()
        self._logged_in = False

    async def close(self) -> None:
        """Close the gateway session and the client's HTTP session; safe to call twice."""
        session, self._session = self._session, None
        keeper, self._keeper = self._keeper, None
        if keeper is not None:
            keeper.cancel()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await keeper
        if self._logged_in or session is not None:
            await self._shut()
        if session is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(session, timeout=5)


class _NotReady(Exception):
    """The gateway session did not become ready (it ended cleanly, or time ran out)."""
