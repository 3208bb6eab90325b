"""Slack as an adapter of `wire run` (see `bot.chat.adapters`): the platform the worker posts
through, and the bolt app that takes `/wire`, buttons and reactions.

HTTP mode (the default): Slack POSTs events, commands and interactivity to
`settings.slack.path` on the service's web server; any replica behind a load balancer can
answer. Socket Mode (`settings.slack.app_token` set): the app opens a WebSocket to Slack
instead and serves nothing over HTTP; nothing it receives is signed, so it needs no signing
secret.

Over HTTP each request passes `bot.slack.inbound.admit` before bolt sees it: one not signed
by Slack within five minutes is answered 401, a signed one whose body is not a payload of a
shape Slack sends 400, each with one warning and no traceback; a body over the web
server's limit (1 MiB) gets 413 from aiohttp.
"""

from __future__ import annotations

import logging
import time

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_bolt.adapter.socket_mode.aiohttp import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp

from bot.chat.adapters import Hub
from bot.delivery.pacing import Pacer
from bot.errors import SettingsError
from bot.settings import Settings
from bot.slack.escape import is_user_group_id
from bot.slack.frontend import build_app
from bot.slack.inbound import Refused, admit
from bot.slack.platform import SlackPlatform, slack_client

log = logging.getLogger("wire.slack")


class SlackAdapter:
    """The Slack platform and its front end, in HTTP mode or Socket Mode."""

    name = "slack"
    exclusive = False  # each request or envelope goes to one replica only

    def __init__(
        self,
        *,
        platform: SlackPlatform,
        signing_secret: str | None,
        path: str = "/slack/events",
        app_token: str | None = None,
    ) -> None:
        if signing_secret is None and app_token is None:
            raise ValueError("HTTP mode needs the signing secret to check Slack's requests")
        self.platform = platform
        self.path = path
        self._signing_secret = signing_secret
        self._app_token = app_token
        self.bolt: AsyncApp | None = None
        self._socket: AsyncSocketModeHandler | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> SlackAdapter:
        """The adapter the settings describe; no I/O. Raises `SettingsError` when the bot
        token is missing, the signing secret is missing in HTTP mode, or the on-call handle
        is not a Slack user-group id."""
        slack = settings.slack
        problems = []
        if slack.bot_token is None:
            problems.append("WIRE_SLACK__BOT_TOKEN: required for Slack, but not set")
        if slack.signing_secret is None and slack.app_token is None:
            problems.append(
                "WIRE_SLACK__SIGNING_SECRET: required for Slack in HTTP mode, but not set "
                "(Socket Mode, with WIRE_SLACK__APP_TOKEN, needs none)"
            )
        oncall = settings.acks.oncall.slack
        if oncall is not None and not is_user_group_id(oncall):
            problems.append(
                "WIRE_ACKS__ONCALL__SLACK: expected a Slack user-group id such as "
                f"'S0614TZR7' (reminders mention it as <!subteam^…>), got {oncall!r}"
            )
        if problems:
            raise SettingsError(problems)
        assert slack.bot_token is not None
        client = slack_client(slack.bot_token.get_secret_value(), base_url=slack.api_url)
        pacer = Pacer(
            per_channel_interval=slack.per_channel_interval,
            per_minute=slack.per_minute,
            burst=slack.burst,
        )
        return cls(
            platform=SlackPlatform(client, pacer=pacer),
            signing_secret=slack.signing_secret.get_secret_value()
            if slack.signing_secret
            else None,
            path=slack.path,
            app_token=slack.app_token.get_secret_value() if slack.app_token else None,
        )

    @property
    def socket_mode(self) -> bool:
        """True when the app connects out over a WebSocket instead of serving HTTP."""
        return self._app_token is not None

    def mount(self, app: web.Application) -> bool:
        """In HTTP mode add `POST <path>` for events, commands and interactivity."""
        if self.socket_mode:
            return False
        app.router.add_post(self.path, self._serve)
        return True

    async def _serve(self, request: web.Request) -> web.Response:
        if self.bolt is None:  # the web server starts just before the front end
            return web.Response(status=503, text="starting")
        body = await request.read()
        assert self._signing_secret is not None  # mounted in HTTP mode only, which has one
        try:
            admitted = admit(
                request.headers,
                body,
                query=request.query_string,
                secret=self._signing_secret,
                now=time.time(),
            )
        except Refused as refusal:
            log.warning("Slack request refused (%d): %s", refusal.status, refusal.why)
            return web.json_response({"error": refusal.why}, status=refusal.status)
        response = await self.bolt.async_dispatch(admitted)
        return await to_aiohttp_response(response)

    async def start(self, hub: Hub) -> None:
        """Build the bolt app on the hub; in Socket Mode also connect to Slack."""
        self.platform.open_session()
        self.bolt = build_app(
            client=self.platform.client, signing_secret=self._signing_secret, hub=hub
        )
        if self._app_token is not None:
            self._socket = AsyncSocketModeHandler(
                self.bolt, app_token=self._app_token, logger=log, web_client=self.platform.client
            )
            await self._socket.connect_async()  # type: ignore[no-untyped-call]  # slack_bolt leaves it unannotated

    async def close(self) -> None:
        """Disconnect Socket Mode and stop answering; safe to call twice."""
        socket, self._socket = self._socket, None
        self.bolt = None
        if socket is not None:
            await socket.close_async()  # type: ignore[no-untyped-call]  # slack_bolt leaves it unannotated
        await self.platform.close()
