"""The Slack platform: posts and edits rendered parts through the Web API (slack-sdk).

Thin on purpose: `bot.slack.render.render` makes the messages, `bot.pacing.Pacer`
spaces them, and this module only calls chat.postMessage / chat.update and translates
Slack's answers into `RetryableError` / `PermanentError`.

A part may render to several messages (see `render`): the first is the part's message and
its ts is the message id returned; the others follow in the same thread (the thread the
part was posted in, or the part's own message when it is a parent).

Idempotency (the `key` of `Platform.post`): Slack has no client message id, so
- every message carries the key as message metadata (event_type "wire_part", payload
  {"key": …}; follow-ups "<key>+1", "<key>+2", …);
- keys posted by this process are remembered (a bounded map), so a retry after a timeout
  or a failed follow-up returns the first message's ts and posts only what is missing;
- before the first reply into a thread this process did not start (a worker resuming after
  a crash, a reminder), the thread's replies are read once with their metadata
  (conversations.replies, include_all_metadata) and any key found there is taken as posted;
  while that read fails for a reason that passes (no answer, 5xx, 429) nothing is posted in
  the thread, since the reply may be there already;
- a post whose answer never came (the connection broke or timed out after the request
  went out) may have been posted: the next post of that key reads again first, the
  thread's replies for a reply, the channel's latest messages (conversations.history) for
  a parent. slack-sdk's own retry of connection errors is not used for that reason: it
  would repeat such a post blindly.
- a parent of a delivery attempted before (`may_have_posted`: the worker says so, since a
  process that died after Slack accepted the parent and before recording it leaves no
  memory of it) is looked for among the channel's latest messages first (up to 1,000, a
  page of 200 at a time, stopping once found), so a restart posts no second parent. While
  that read fails for a reason that passes nothing is posted; a refused read (a missing
  scope) posts anyway, with a warning, rather than never.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from bot import metrics
from bot.delivery.pacing import Pacer
from bot.delivery.parts import Part
from bot.delivery.platform import RecentKeys
from bot.errors import PermanentError, PlatformError, RetryableError, retry_after_header
from bot.slack.limits import SlackMessage
from bot.slack.render import render

log = logging.getLogger(__name__)

EVENT_TYPE = "wire_part"
# A parent is looked for among the channel's latest HISTORY_PAGES × HISTORY_PAGE messages:
# far more than a channel takes between an attempt and its retry (a lease, a back-off).
HISTORY_PAGE = 200
HISTORY_PAGES = 5
RETRYABLE_ERRORS = {
    "ratelimited",
    "rate_limited",
    "internal_error",
    "fatal_error",
    "service_unavailable",
    "request_timeout",
}
EXPLAINED = {
    "channel_not_found": "the channel does not exist or the app cannot see it",
    "not_in_channel": "the app is not a member of the channel; invite it with /invite",
    "is_archived": "the channel is archived",
    "invalid_auth": "the bot token is not valid",
    "not_authed": "no bot token was sent",
    "token_revoked": "the bot token was revoked",
    "account_inactive": "the app's token belongs to a deactivated account",
    "missing_scope": "the app lacks an OAuth scope this call needs",
    "message_not_found": "the message to edit no longer exists",
    "cant_update_message": "the app cannot edit that message",
    "msg_too_long": "the message is longer than Slack accepts",
    "invalid_blocks": "Slack rejected the message's blocks",
}


class CountedRateLimitRetry(AsyncRateLimitErrorRetryHandler):
    """slack-sdk's retry after a 429, counting the 429 (`bot.metrics`); a 429 it does not
    retry surfaces as an error and is counted by `translate_error`."""

    async def prepare_for_next_attempt_async(self, **kwargs: Any) -> None:
        metrics.rate_limited("slack")
        await super().prepare_for_next_attempt_async(**kwargs)


def default_retry_handlers() -> list[AsyncRetryHandler]:
    """slack-sdk's own retries, kept small: the delivery worker retries whole parts. No
    retry of connection errors: a post whose connection broke may have been posted, and
    only `SlackPlatform` checks before posting again (see the module doc)."""
    return [
        CountedRateLimitRetry(max_retry_count=1),
        AsyncServerErrorRetryHandler(max_retry_count=2),
    ]


def attach_retry_handlers(client: AsyncWebClient) -> AsyncWebClient:
    """Add to `client` each default retry handler whose kind it does not have yet."""
    kinds = tuple(type(handler) for handler in client.retry_handlers)
    client.retry_handlers += [h for h in default_retry_handlers() if not isinstance(h, kinds)]
    return client


def slack_client(
    token: str, *, base_url: str = "https://slack.com/api/", timeout: int = 30
) -> AsyncWebClient:
    """An AsyncWebClient with the default retry handlers."""
    return AsyncWebClient(
        token=token, base_url=base_url, timeout=timeout, retry_handlers=default_retry_handlers()
    )


def translate_error(exc: Exception, *, method: str, channel: str) -> PlatformError:
    """A slack-sdk or network failure as a `RetryableError` or a `PermanentError` whose
    message says what went wrong (never the token)."""
    where = f"Slack {method} in {channel}"
    if isinstance(exc, SlackApiError):
        status = exc.response.status_code
        error = str(exc.response.get("error") or f"HTTP {status}")
        if status == 429 or error in ("ratelimited", "rate_limited"):
            metrics.rate_limited("slack")
            retry_after = retry_after_header(exc.response.headers)
            return RetryableError(f"{where} was rate limited", retry_after=retry_after)
        if status >= 500 or error in RETRYABLE_ERRORS:
            return RetryableError(f"{where} failed: {error} (HTTP {status})")
        reason = EXPLAINED.get(error)
        return PermanentError(f"{where} refused: {error}" + (f" ({reason})" if reason else ""))
    if isinstance(exc, aiohttp.ClientError | asyncio.TimeoutError | SlackClientError):
        return RetryableError(f"{where} did not complete: {type(exc).__name__}")
    raise exc


class SlackPlatform:
    """Posts parts as Block Kit messages in threads and edits them (the Platform protocol)."""

    name = "slack"

    def __init__(
        self, client: AsyncWebClient, *, pacer: Pacer | None = None, remember: int = 10_000
    ) -> None:
        self.client = attach_retry_handlers(client)
        self.pacer = pacer if pacer is not None else Pacer()
        self._sent: RecentKeys[str] = RecentKeys(remember)
        self._threads: RecentKeys[None] = RecentKeys(remember)
        self._unanswered: RecentKeys[str] = RecentKeys(remember)  # parent key → channel
        self._own_session: aiohttp.ClientSession | None = None

    def open_session(self) -> None:
        """Give the client one long-lived HTTP session (kept-alive connections) unless it
        has one; without it slack-sdk opens a connection, TLS handshake included, per call.
        Needs a running event loop; `close` ends it."""
        if self.client.session is None or self.client.session.closed:
            self._own_session = aiohttp.ClientSession()
            self.client.session = self._own_session

    async def close(self) -> None:
        """Close the HTTP session `open_session` opened; safe to call twice."""
        session, self._own_session = self._own_session, None
        if session is not None:
            if self.client.session is session:
                self.client.session = None
            await session.close()

    async def post(self, channel: str, part: Part, thread: str | None, *, key: str) -> str:
        """Post `part` (as a reply in `thread` when given) and return its message's ts; a
        key posted before returns that ts and posts only what is still missing."""
        self.open_session()
        messages = render(part)
        if thread is not None and key not in self._sent:
            await self._recover(channel, thread)
        elif thread is None and key in self._unanswered and key not in self._sent:
            await self._recover_parent(channel, key)
        first = await self._send(channel, messages[0], thread, key)
        follow = thread or first
        self._threads.note(follow, None)
        for i, message in enumerate(messages[1:], start=1):
            await self._send(channel, message, follow, f"{key}+{i}")
        return first

    def may_have_posted(self, channel: str, key: str) -> None:
        """An earlier attempt at parent `key` may have posted it: the next post of the key
        reads the channel's latest messages first (see the module docstring)."""
        if key not in self._sent:
            self._unanswered.note(key, channel)

    async def update(self, channel: str, message_id: str, part: Part) -> None:
        """Replace the content of message `message_id` with `part` (e.g. to show acks). A
        part that renders to more than one message cannot be an edit of one message."""
        messages = render(part)
        if len(messages) != 1:
            raise PermanentError(
                f"this {part.kind} part needs {len(messages)} Slack messages; "
                "an edit can replace only one"
            )
        self.open_session()
        await self.pacer.wait(None)
        try:
            await self.client.chat_update(channel=channel, ts=message_id, **messages[0].payload())
        except Exception as exc:
            raise translate_error(exc, method="chat.update", channel=channel) from exc

    async def _send(self, channel: str, message: SlackMessage, thread: str | None, key: str) -> str:
        if key in self._sent:
            return self._sent[key]
        try:
            async with self.pacer.slot(channel):
                response = await self.client.chat_postMessage(
                    channel=channel,
                    thread_ts=thread,
                    unfurl_links=False,
                    unfurl_media=False,
                    metadata={"event_type": EVENT_TYPE, "event_payload": {"key": key}},
                    **message.payload(),
                )
        except Exception as exc:
            error = translate_error(exc, method="chat.postMessage", channel=channel)
            if isinstance(error, RetryableError) and error.retry_after:
                self.pacer.pause(error.retry_after, channel=channel)
            if not isinstance(exc, SlackApiError):  # no answer: it may have been posted
                if thread is None:
                    self._unanswered.note(key, channel)
                else:
                    self._threads.pop(thread, None)  # read the thread again first
            raise error from exc
        ts = str(response["ts"])
        self._sent.note(key, ts)
        return ts

    async def _recover_parent(self, channel: str, key: str) -> None:
        """Look for a parent posted under `key` whose answer was lost (or whose poster
        died) among the channel's latest messages, newest first, a page at a time."""
        self._unanswered.pop(key, None)
        cursor: str | None = None
        for _ in range(HISTORY_PAGES):
            try:
                response = await self.client.conversations_history(
                    channel=channel, include_all_metadata=True, limit=HISTORY_PAGE, cursor=cursor
                )
            except Exception as exc:
                error = translate_error(exc, method="conversations.history", channel=channel)
                if isinstance(error, RetryableError):
                    # Not readable just now: the parent may be there, so post nothing yet.
                    self._unanswered.note(key, channel)
                    raise error from exc
                # Refused (no channels:history scope, say): waiting will not help, and a
                # story posted twice is better than one never posted.
                log.warning("could not read Slack channel %s to resume: %s", channel, exc)
                return
            self._learn(response.get("messages") or [])
            cursor = (response.get("response_metadata") or {}).get("next_cursor")
            if key in self._sent or not response.get("has_more") or not cursor:
                return

    def _learn(self, messages: list[dict[str, Any]]) -> None:
        for message in messages:
            metadata = message.get("metadata") or {}
            key = (metadata.get("event_payload") or {}).get("key")
            if metadata.get("event_type") == EVENT_TYPE and isinstance(key, str):
                self._sent.note(key, str(message["ts"]))

    async def _recover(self, channel: str, thread: str) -> None:
        """Learn the keys already posted in `thread` (once per thread and process)."""
        if thread in self._threads:
            return
        try:
            response = await self.client.conversations_replies(
                channel=channel, ts=thread, include_all_metadata=True, limit=200
            )
        except Exception as exc:
            error = translate_error(exc, method="conversations.replies", channel=channel)
            if isinstance(error, RetryableError):
                # Not readable just now (no answer, 5xx, 429): posting blind could repeat a
                # reply whose answer was lost, so this attempt waits for a later one.
                raise error from exc
            # Refused (a missing scope, say): waiting will not help, so post without resuming.
            log.warning("could not read Slack thread %s in %s to resume: %s", thread, channel, exc)
        else:
            self._learn(response.get("messages") or [])
        self._threads.note(thread, None)
