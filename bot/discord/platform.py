"""The Discord platform: posts a story's parts as a thread and edits them, over REST.

Thin on purpose: `bot.discord.render` makes the payloads, discord.py's `HTTPClient.request`
sends them (so its per-route buckets and 429 retries apply), `bot.pacing.Pacer` keeps all
requests under Discord's global budget, and this module only picks the routes and
translates Discord's answers into `RetryableError` / `PermanentError`.

Message ids are "<channel id>/<message id>" for every message, so an edit knows which
channel (or thread) to PATCH, and a reaction's (channel_id, message_id) names the stored id.
A parent is posted to the channel and a thread is started from it; the thread's channel id
is the parent's message id, and every reply (`thread` = the parent's id) is posted there.
A part that renders to several payloads posts the first as *its* message and the rest
after it, in the thread.

Idempotency (the `key` of `Platform.post`): every message carries the key as its `nonce`
(follow-ups "<key>+1", "<key>+2", …; hashed when longer than Discord's 25 characters) with
`enforce_nonce`, so Discord answers a repeated post within a few minutes with the first
message; keys posted by this process are also remembered (a bounded map), and a thread that
already exists for the parent (code 160004) counts as created. A retry after a crash between
posting a parent and starting its thread therefore ends with one parent and one thread.

Discord keeps a nonce only those few minutes, and a killed process's delivery is retried only
once its lease (5 minutes) has passed, or a lost answer's after a back-off of up to 15: the
nonce alone would post such a parent again. So a parent that may have been posted (an
earlier attempt of its delivery, `may_have_posted`, or a post whose answer never came) is
first looked for among the channel's latest 100 messages: one by this bot with the parent's
embeds is taken as posted (Discord returns no nonce when reading messages, so the content is
the key; one story goes to a channel once). While that read fails for a reason that passes
(no answer, 5xx, 429) nothing is posted; a refused read posts anyway, with a warning.

Never provoking Cloudflare's invalid-request ban (10,000 answers 401, 403 or 429 in ten
minutes): a 401 (bad token) stops every later request of this platform, and a 403 stops
requests to that channel for `refused_for` seconds; both raise `PermanentError` at once.

The pacer's budget is this process's: Discord counts the global limit per bot, so replicas
sharing one token must share the 50 requests a second between them.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from typing import Any

import aiohttp
import discord
from discord.http import HTTPClient, Route

from bot import metrics
from bot.delivery.pacing import Pacer
from bot.delivery.parts import ParentPart, Part
from bot.delivery.platform import RecentKeys
from bot.discord.limits import Payload
from bot.discord.render import edit_payload, render, thread_name
from bot.errors import PermanentError, PlatformError, RetryableError, retry_after_header

log = logging.getLogger(__name__)


class _CountRateLimits(logging.Filter):
    """Counts each 429 Discord answers (`bot.metrics`): discord.py waits them out inside its
    HTTP client and logs one warning per 429, whether it retries or gives up."""

    def filter(self, record: logging.LogRecord) -> bool:
        if str(record.msg).startswith("We are being rate limited."):
            metrics.rate_limited("discord")
        return True


logging.getLogger("discord.http").addFilter(_CountRateLimits())

NONCE_MAX = 25
HISTORY_LIMIT = 100  # the most messages Discord returns in one read of a channel
THREAD_EXISTS = 160004
AUTO_ARCHIVE_MINUTES = 1440
EXPLAINED = {
    10003: "the channel does not exist or was deleted",
    10008: "the message no longer exists",
    50001: "the bot cannot see the channel (it lacks View Channel there or left the server)",
    50035: "Discord rejected the message's form",
    50083: "the thread is archived",
    160005: "the thread is locked",
}
LIKELY_MISSING = {
    "post": "Send Messages (Send Messages in Threads for a reply) or Embed Links",
    "start a thread in": "Create Public Threads",
    "edit a message in": "View Channel or Send Messages in Threads",
    "read": "View Channel",
}


def discord_pacer(requests_per_second: float) -> Pacer:
    """A pacer for Discord's global limit: an even `requests_per_second`, no burst (a burst
    on top of a steady rate could put more than 50 requests into one second)."""
    return Pacer(per_channel_interval=0, per_minute=requests_per_second * 60, burst=1)


def nonce_of(key: str) -> str:
    """The message nonce for an idempotency key: the key itself when it fits Discord's 25
    characters, else "h" and 24 hex digits of its SHA-256."""
    if len(key) <= NONCE_MAX:
        return key
    return "h" + hashlib.sha256(key.encode()).hexdigest()[: NONCE_MAX - 1]


def same_message(message: dict[str, Any], payload: Payload) -> bool:
    """Whether a message Discord returned shows `payload`: the same content and the same
    embed titles, descriptions and footers (Discord adds fields of its own to an embed)."""

    def shown(embeds: Any) -> list[tuple[Any, Any, Any]]:
        return [
            (e.get("title"), e.get("description"), (e.get("footer") or {}).get("text"))
            for e in embeds or []
        ]

    return (message.get("content") or "") == (payload.get("content") or "") and shown(
        message.get("embeds")
    ) == shown(payload.get("embeds"))


def message_ref(message_id: str) -> tuple[str, str]:
    """(channel id, message id) of a message id "<channel id>/<message id>"."""
    channel_id, slash, message = message_id.partition("/")
    if not slash or not channel_id.isdigit() or not message.isdigit():
        raise PermanentError(f"{message_id!r} is not a Discord message id '<channel>/<message>'")
    return channel_id, message


def translate_error(exc: BaseException, *, action: str, channel: str) -> PlatformError:
    """A discord.py or network failure as a `RetryableError` or a `PermanentError` whose
    message says where and what went wrong (never the token). `action` is a verb phrase
    ("post", "start a thread in", "edit a message in")."""
    where = f"Discord: could not {action} channel {channel}"
    if isinstance(exc, discord.RateLimited):  # counted as it was logged, if Discord sent it
        return RetryableError(f"{where}: rate limited", retry_after=exc.retry_after)
    if isinstance(exc, discord.DiscordServerError):
        return RetryableError(f"{where}: Discord failed (HTTP {exc.status})")
    if isinstance(exc, discord.HTTPException):
        status, code = exc.status, exc.code
        if status == 429:
            if not getattr(exc.response, "headers", {}).get("Via"):
                metrics.rate_limited("discord")  # Cloudflare's: discord.py logs none
            return RetryableError(
                f"{where}: rate limited",
                retry_after=retry_after_header(getattr(exc.response, "headers", None)),
            )
        if status >= 500:
            return RetryableError(f"{where}: Discord failed (HTTP {status})")
        if status == 401:
            return PermanentError(f"{where}: the bot token is not valid (401 Unauthorized)")
        if code == 50013:
            missing = LIKELY_MISSING.get(action, "a permission this call needs")
            reason = f"the bot lacks a permission there, likely {missing}"
        else:
            reason = EXPLAINED.get(code) or (exc.text.splitlines()[0] if exc.text else "")
        detail = f"{code} {reason}".strip() if code else reason or "refused"
        return PermanentError(f"{where}: {detail} (HTTP {status})")
    if isinstance(exc, aiohttp.ClientError | asyncio.TimeoutError | OSError):
        return RetryableError(f"{where}: the request did not complete ({type(exc).__name__})")
    raise exc


class DiscordPlatform:
    """Posts parts as messages in a thread and edits them (the Platform protocol)."""

    name = "discord"

    def __init__(
        self,
        http: HTTPClient,
        *,
        oncall_role_id: int | None = None,
        pacer: Pacer | None = None,
        remember: int = 10_000,
        refused_for: float = 600.0,
    ) -> None:
        self.http = http
        self.oncall_role_id = oncall_role_id
        self.pacer = pacer if pacer is not None else discord_pacer(45)
        self._refused_for = refused_for
        self._sent: RecentKeys[str] = RecentKeys(remember)
        self._threads: RecentKeys[None] = RecentKeys(remember)
        self._unanswered: RecentKeys[str] = RecentKeys(remember)  # parent key → channel
        self._bot_id: str | None = None
        self._refused: dict[str, tuple[float, str]] = {}
        self._unauthorized: str | None = None

    async def post(self, channel: str, part: Part, thread: str | None, *, key: str) -> str:
        """Post `part` (as a reply in `thread`, the parent's id, when given) and return its
        message id "<channel>/<message>"; a key posted before returns that id and posts
        only what is still missing (see the module doc)."""
        payloads = render(part, oncall_role_id=self.oncall_role_id)
        if thread is None and key in self._unanswered and key not in self._sent:
            await self._recover_parent(channel, key, payloads[0])
        if thread is None:
            first = await self._send(channel, channel, payloads[0], key)
            target = channel
            if isinstance(part, ParentPart):
                await self._start_thread(channel, first, thread_name(part))
                target = message_ref(first)[1]
        else:
            target = message_ref(thread)[1]
            first = await self._send(channel, target, payloads[0], key)
        for i, payload in enumerate(payloads[1:], start=1):
            await self._send(channel, target, payload, f"{key}+{i}")
        return first

    def may_have_posted(self, channel: str, key: str) -> None:
        """An earlier attempt at parent `key` may have posted it: the next post of the key
        reads the channel's latest messages first (see the module doc)."""
        if key not in self._sent:
            self._unanswered.note(key, channel)

    async def update(self, channel: str, message_id: str, part: Part) -> None:
        """Make message `message_id` ("<channel or thread>/<message>") show `part`, e.g.
        with who acknowledged it; whom it may ping stays as when it was posted."""
        target, message = message_ref(message_id)
        payload = edit_payload(part, oncall_role_id=self.oncall_role_id)
        route = Route(
            "PATCH",
            "/channels/{channel_id}/messages/{message_id}",
            channel_id=target,
            message_id=message,
        )
        await self._request(route, payload, channel=channel, action="edit a message in")

    async def _send(self, channel: str, target: str, payload: Payload, key: str) -> str:
        """POST one message to `target` (the channel or a thread) unless `key` was sent."""
        if key in self._sent:
            return self._sent[key]
        body = {**payload, "nonce": nonce_of(key), "enforce_nonce": True}
        route = Route("POST", "/channels/{channel_id}/messages", channel_id=target)
        try:
            answer = await self._request(route, body, channel=channel, action="post")
        except RetryableError as error:
            if target == channel and not isinstance(error.__cause__, discord.HTTPException):
                self._unanswered.note(key, channel)  # no answer: the parent may be there
            raise
        message_id = f"{target}/{answer['id']}"
        self._sent.note(key, message_id)
        return message_id

    async def _recover_parent(self, channel: str, key: str, payload: Payload) -> None:
        """Look among the channel's latest messages for parent `key`, posted by an attempt
        whose answer was lost or whose process died: a message of this bot with the same
        embeds (see the module doc)."""
        self._unanswered.pop(key, None)
        self._check_allowed(channel, "read")
        try:
            if self._bot_id is None:
                await self.pacer.wait(None)
                me = await self.http.request(Route("GET", "/users/@me"))
                self._bot_id = str(me["id"])
            await self.pacer.wait(None)
            route = Route("GET", "/channels/{channel_id}/messages", channel_id=channel)
            messages = await self.http.request(route, params={"limit": HISTORY_LIMIT})
        except Exception as exc:
            error = translate_error(exc, action="read", channel=channel)
            if isinstance(error, RetryableError):
                self._unanswered.note(key, channel)  # the parent may be there: post nothing
                raise error from exc
            # Refused: waiting will not help, and a story posted twice beats one never posted.
            log.warning("could not read Discord channel %s to resume: %s", channel, error)
            return
        for message in messages or []:
            if str((message.get("author") or {}).get("id")) == self._bot_id and same_message(
                message, payload
            ):
                self._sent.note(key, f"{channel}/{message['id']}")
                return

    async def _start_thread(self, channel: str, parent: str, name: str) -> None:
        """Start the thread of message `parent`; one that already exists is fine."""
        if parent in self._threads:
            return
        target, message = message_ref(parent)
        route = Route(
            "POST",
            "/channels/{channel_id}/messages/{message_id}/threads",
            channel_id=target,
            message_id=message,
        )
        body = {"name": name, "auto_archive_duration": AUTO_ARCHIVE_MINUTES}
        action = "start a thread in"
        await self._request(route, body, channel=channel, action=action, fine=THREAD_EXISTS)
        self._threads.note(parent, None)

    async def _request(
        self, route: Route, body: Payload, *, channel: str, action: str, fine: int | None = None
    ) -> Any:
        """One paced request through discord.py; failures translated, 401/403 remembered.
        An error with Discord code `fine` is taken as success (the answer is then None)."""
        self._check_allowed(channel, action)
        await self.pacer.wait(None)
        try:
            return await self.http.request(route, json=body)
        except discord.HTTPException as exc:
            if fine is not None and exc.code == fine:
                return None
            raise self._refusal(exc, channel=channel, action=action) from exc
        except Exception as exc:
            raise self._refusal(exc, channel=channel, action=action) from exc

    def _refusal(self, exc: Exception, *, channel: str, action: str) -> PlatformError:
        """`exc` translated; a 401 stops all requests, a 403 those to `channel`."""
        error = translate_error(exc, action=action, channel=channel)
        if isinstance(exc, discord.HTTPException) and exc.status == 401:
            self._unauthorized = str(error)
        elif isinstance(exc, discord.HTTPException) and exc.status == 403:
            self._refused[channel] = (time.monotonic() + self._refused_for, str(error))
        return error

    def _check_allowed(self, channel: str, action: str) -> None:
        """Refuse at once what Discord refused with 401 (anywhere) or 403 (in `channel`)."""
        if self.http.token is None:
            raise RetryableError(f"Discord: could not {action} channel {channel}: not logged in")
        if self._unauthorized is not None:
            raise PermanentError(f"{self._unauthorized}; no request is sent until a restart")
        refused = self._refused.get(channel)
        if refused is not None:
            until, reason = refused
            if time.monotonic() < until:
                raise PermanentError(f"{reason}; not retried for {self._refused_for:g} s")
            del self._refused[channel]
