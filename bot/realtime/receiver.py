"""`POST /github/webhook`: verify, store, answer at once; the work happens in the background.

    receiver = WebhookReceiver(store=store, secret=secret, path="/github/webhook", wake=wake)
    receiver.mount(app)

Answers, in the order they are decided:

* 400 when the body is larger than GitHub's 25 MB cap (by Content-Length, or once read);
* 401 when `X-Hub-Signature-256` is missing or is not the body's HMAC-SHA256 under the
  secret (compared in constant time) — nothing is stored;
* 400 when `X-GitHub-Event` or `X-GitHub-Delivery` is missing, or the body is not the JSON
  payload its event announces;
* 200 `duplicate` for a delivery id stored before (GitHub's redeliveries do nothing twice);
* 202 otherwise, after the delivery is committed: handled events are `pending` until the
  processor judges them, every other event is stored as `ignored` (it still proves that the
  repository's webhook works, so the repository is not polled).

Every refusal is one log line saying why; the secret and the signature are never logged.
Each delivery is counted in `wire_webhook_events` (`bot.metrics`) by event and outcome; an
unverified one only as "unverified", since its headers are not to be trusted.
"""

from __future__ import annotations

import asyncio
import json
import logging

from aiohttp import web
from pydantic import SecretStr

from bot import metrics
from bot.realtime.payloads import Hint, MalformedPayload, read_delivery
from bot.realtime.signature import is_signed
from bot.store import Store

log = logging.getLogger("wire.realtime.webhook")
MAX_BODY = 25 * 1024 * 1024  # GitHub caps payloads at 25 MB
_CHUNK = 64 * 1024


class WebhookReceiver:
    """The aiohttp handler of GitHub's webhook deliveries."""

    def __init__(
        self, *, store: Store, secret: SecretStr, path: str, wake: asyncio.Event | None = None
    ) -> None:
        self.store = store
        self._secret = secret
        self.path = path
        self.wake = wake
        self.received = 0  # deliveries stored by this process

    def mount(self, app: web.Application) -> bool:
        """Add the route to the service's web server."""
        app.router.add_post(self.path, self.handle)
        return True

    async def handle(self, request: web.Request) -> web.Response:
        """Answer one delivery (see the module docstring)."""
        delivery = request.headers.get("X-GitHub-Delivery", "")
        event = request.headers.get("X-GitHub-Event", "")
        body = await _read_capped(request)
        if body is None:
            log.warning("webhook delivery %r refused: body over %d bytes", delivery[:100], MAX_BODY)
            metrics.webhook_event("unverified", "too_large")
            return _answer(400, "payload too large: GitHub's limit is 25 MB")
        signature = request.headers.get("X-Hub-Signature-256")
        if not is_signed(body, signature, self._secret.get_secret_value()):
            why = "no X-Hub-Signature-256 header" if not signature else "a wrong signature"
            log.warning("webhook delivery %r refused: %s", delivery[:100], why)
            metrics.webhook_event("unverified", "refused")  # its headers are not to be trusted
            return _answer(401, "signature missing or wrong")
        if not event or not delivery or len(delivery) > 100:
            log.warning("webhook delivery refused: X-GitHub-Event or X-GitHub-Delivery missing")
            metrics.webhook_event(event or "none", "malformed")
            return _answer(400, "X-GitHub-Event and X-GitHub-Delivery are required")
        try:
            payload = json.loads(body)
            meaning = read_delivery(event, payload)
        except (ValueError, MalformedPayload) as error:
            log.warning("webhook delivery %s (%s) refused: malformed: %s", delivery, event, error)
            metrics.webhook_event(event, "malformed")
            return _answer(400, f"malformed {event} payload")
        if isinstance(meaning, Hint):
            stored = await self.store.webhooks.record(
                delivery_id=delivery,
                event=event,
                repo=meaning.repo,
                hint=meaning.model_dump(mode="json"),
            )
        else:
            stored = await self.store.webhooks.record(
                delivery_id=delivery,
                event=event,
                repo=meaning.repo,
                hint={"reason": meaning.reason},
                state="ignored",
            )
        if not stored:
            log.info("webhook delivery %s (%s) was received before: nothing to do", delivery, event)
            metrics.webhook_event(event, "duplicate")
            return _answer(200, "duplicate")
        self.received += 1
        metrics.webhook_event(event, "accepted" if isinstance(meaning, Hint) else "ignored")
        if isinstance(meaning, Hint):
            log.info("webhook delivery %s: %s on %s, stored", delivery, event, meaning.repo)
            if self.wake is not None:
                self.wake.set()
        else:
            log.info("webhook delivery %s (%s) ignored: %s", delivery, event, meaning.reason)
        return _answer(202, "accepted" if isinstance(meaning, Hint) else "ignored")


async def _read_capped(request: web.Request) -> bytes | None:
    """The body, or None when it is larger than MAX_BODY (read no further than that)."""
    if request.content_length is not None and request.content_length > MAX_BODY:
        return None
    chunks: list[bytes] = []
    size = 0
    while chunk := await request.content.read(_CHUNK):
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _answer(status: int, text: str) -> web.Response:
    return web.json_response({"status": text}, status=status)
