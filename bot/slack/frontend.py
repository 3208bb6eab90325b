"""The Slack front end: a slack-bolt `AsyncApp` taking `/wire`, Acknowledge buttons and ✅
reactions, answering through the shared command layer (`Hub`).

Pure translation at the edge, SDK wiring kept small: `command_context`, `reply_payloads`,
`button_ack` and `is_ack_reaction` turn Slack payloads into neutral values and replies into
response_url messages, without a network; `build_app` registers three listeners that call
them. Over HTTP, `bot.slack.inbound` lets through only requests Slack signed whose payload
has a shape Slack sends (401 and 400 otherwise); bolt verifies the signature again (HMAC-
SHA256 of `v0:{timestamp}:{body}` with the signing secret, at most five minutes old),
answers `url_verification` and ignores the app's own events (its ✅ reactions included).
A request no listener takes gets bolt's 404 and one warning; a listener's failure is one
error line, never a traceback.

Slack wants an ack within three seconds: each listener acks first, and bolt runs the rest
after the HTTP response (or the Socket Mode envelope ack) has gone.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_bolt.error import BoltUnhandledRequestError
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.web.async_client import AsyncWebClient

from bot.chat.adapters import Hub
from bot.commands.replies import Context, Reply
from bot.delivery.parts import parts_of
from bot.delivery.platform import RecentKeys
from bot.slack.limits import ACK_ACTION_ID, MAX_BLOCKS, Block, context
from bot.slack.render import notification_text, render, text_sections

log = logging.getLogger("wire.slack")

COMMAND = "/wire"
ACK_REACTIONS = frozenset({"white_check_mark", "heavy_check_mark"})
MAX_RESPONSES = 5  # Slack takes at most five messages per response_url
RESPONSE_TYPE = {"ephemeral": "ephemeral", "channel": "in_channel"}
NOT_POSTED_HERE = (
    "That action item was not posted in this channel, so it cannot be acknowledged here."
)
ALREADY_ACKED = "You had already acknowledged this item: nothing changed."


@dataclass(frozen=True, slots=True)
class AckRequest:
    """Someone pressed Acknowledge on an item (or reacted ✅ to it) in a channel."""

    item_id: str
    channel: str
    user_id: str
    user_name: str


def command_context(body: Mapping[str, Any]) -> Context:
    """Who typed a slash command, and where, from its form fields."""
    user_id = str(body.get("user_id") or "")
    return Context(
        platform="slack",
        workspace=str(body.get("team_id") or ""),
        channel=str(body.get("channel_id") or ""),
        user_id=user_id,
        user_name=str(body.get("user_name") or user_id),
    )


def command_text(body: Mapping[str, Any]) -> str:
    """The command line as the command layer reads it: "/wire" and what followed it."""
    return f"{COMMAND} {body.get('text') or ''}".strip()


def _payload(blocks: list[Block], text: str, response_type: str) -> dict[str, Any]:
    return {
        "text": text,
        "blocks": blocks,
        "response_type": response_type,
        "replace_original": False,
    }


def reply_payloads(reply: Reply) -> list[dict[str, Any]]:
    """The response_url messages of a reply: its text (escaped, since it echoes what was
    typed) and, for a preview, the story's blocks as they would be posted. Blocks beyond 50
    go into further messages; beyond Slack's five messages the last one says what is left."""
    text = notification_text(reply.text)
    blocks = text_sections(reply.text) or [context("(no reply)")]
    if reply.story is not None:
        blocks.append({"type": "divider"})
        blocks += [
            b
            for part in parts_of(reply.story, zone=reply.zone)
            for m in render(part)
            for b in m.blocks
        ]
    chunks = [blocks[i : i + MAX_BLOCKS] for i in range(0, len(blocks), MAX_BLOCKS)]
    if len(chunks) > MAX_RESPONSES:
        left = sum(len(c) for c in chunks[MAX_RESPONSES - 1 :])
        last = chunks[MAX_RESPONSES - 1][: MAX_BLOCKS - 1]
        left -= len(last)
        last.append(context(f"… and {left} more blocks: too long to show here."))
        chunks = [*chunks[: MAX_RESPONSES - 1], last]
    response_type = RESPONSE_TYPE[reply.visibility]
    return [_payload(chunk, text, response_type) for chunk in chunks]


def _object(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def button_ack(body: Mapping[str, Any], action: Mapping[str, Any]) -> AckRequest | None:
    """The ack a `block_actions` press of Acknowledge asks for (None when it names none, or
    names it in other types than Slack sends)."""
    user = _object(body.get("user"))
    channel = _text(_object(body.get("channel")).get("id")) or _text(
        _object(body.get("container")).get("channel_id")
    )
    item_id, user_id = _text(action.get("value")), _text(user.get("id"))
    if not (item_id and channel and user_id):
        return None
    name = _text(user.get("name")) or _text(user.get("username")) or user_id
    return AckRequest(item_id=item_id, channel=channel, user_id=user_id, user_name=name)


def is_ack_reaction(reaction: str) -> bool:
    """True for ✅ and ✔️, whatever skin tone ("white_check_mark::skin-tone-2")."""
    return reaction.split("::", 1)[0] in ACK_REACTIONS


class UserNames:
    """Display names of Slack users (users.info), remembered per user; the id on failure."""

    def __init__(self, client: AsyncWebClient, *, remember: int = 5_000) -> None:
        self.client = client
        self._names: RecentKeys[str] = RecentKeys(remember)

    async def name(self, user_id: str) -> str:
        """`user_id`'s display name, else real name, else handle, else the id itself."""
        if user_id in self._names:
            return self._names[user_id]
        try:
            response = await self.client.users_info(user=user_id)
        except (SlackApiError, SlackClientError, OSError) as error:
            log.warning("could not look up Slack user %s: %s", user_id, type(error).__name__)
            return user_id
        user = response.get("user") or {}
        profile = user.get("profile") or {}
        found = profile.get("display_name") or profile.get("real_name") or user.get("name")
        name = str(found or user_id)
        self._names.note(user_id, name)
        return name


@contextlib.contextmanager
def failures_logged(kind: str) -> Iterator[None]:
    """Around a listener's work after its ack: a failure is one error line, not raised.

    bolt must not see it: its runner, told of a failure in the moment the ack is given (a
    response_url that is no URL fails at once), forgets the ack, waits out Slack's three
    seconds and answers 404 with two more warnings."""
    try:
        yield
    except Exception as error:
        log.error("Slack %s failed: %s: %s", kind, type(error).__name__, error)


def build_app(*, client: AsyncWebClient, signing_secret: str | None, hub: Hub) -> AsyncApp:
    """The bolt app of The Wire: `/wire`, the Acknowledge button and ✅ reactions.
    `signing_secret` None is for Socket Mode only, whose requests are not signed."""
    # unhandled requests reach `log_error` (one line) instead of bolt's many-line warning
    app = AsyncApp(
        client=client,
        signing_secret=signing_secret or "",  # "": not bolt's SLACK_SIGNING_SECRET fallback
        request_verification_enabled=signing_secret is not None,
        logger=log,
        raise_error_for_unhandled_request=True,
    )
    names = UserNames(client)

    @app.command(COMMAND)
    async def wire_command(ack: AsyncAck, body: dict[str, Any], respond: AsyncRespond) -> None:
        await ack()
        with failures_logged(COMMAND):
            reply = await hub.commands.handle(command_text(body), context=command_context(body))
            for payload in reply_payloads(reply):
                await respond(**payload)

    @app.action(ACK_ACTION_ID)
    async def acknowledge_button(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], respond: AsyncRespond
    ) -> None:
        await ack()
        with failures_logged("Acknowledge button"):
            await _press(body, action, respond)

    async def _press(
        body: Mapping[str, Any], action: Mapping[str, Any], respond: AsyncRespond
    ) -> None:
        request = button_ack(body, action)
        if request is None:
            return
        outcome = await hub.acknowledge(
            item_id=request.item_id,
            platform="slack",
            channel=request.channel,
            user_id=request.user_id,
            user_name=request.user_name,
        )
        if outcome.result is not None and outcome.result.new:
            return  # the item's message now shows the ack
        answer = NOT_POSTED_HERE if outcome.result is None else ALREADY_ACKED
        if body.get("response_url"):
            await respond(text=answer, response_type="ephemeral", replace_original=False)

    @app.event("reaction_added")
    async def acknowledge_reaction(event: dict[str, Any]) -> None:  # bolt acks events first
        with failures_logged("reaction_added"):
            await _reaction(event)

    async def _reaction(event: Mapping[str, Any]) -> None:
        item = _object(event.get("item"))
        if not is_ack_reaction(str(event.get("reaction") or "")) or item.get("type") != "message":
            return
        channel, ts = _text(item.get("channel")), _text(item.get("ts"))
        user_id = _text(event.get("user"))
        if not (channel and ts and user_id):
            return
        found = await hub.store.acks.find_message(ts, platform="slack", channel=channel)
        if found is None:
            return  # not an action item's message
        await hub.acknowledge(
            item_id=found.item_id,
            platform="slack",
            channel=channel,
            user_id=user_id,
            user_name=await names.name(user_id),
        )

    @app.error
    async def log_error(error: Exception, body: dict[str, Any]) -> None:
        """What bolt itself raised before a listener ran; one line."""
        named = str(body.get("type") or body.get("command") or "request")[:100]
        kind = "".join(c if c.isprintable() else "?" for c in named)  # one line, always
        if isinstance(error, BoltUnhandledRequestError):
            log.warning("Slack %s not handled: no listener takes it", kind)
            return  # bolt answers 404
        log.error("Slack %s failed: %s: %s", kind, type(error).__name__, error)

    return app
