"""`POST /github/webhook`: verify, store, answer at once; the work happens in the background.

    receiver = WebhookReceiver(store=store, secret=secret, path="/github/webhook", wake=wake)
    receiver.mount(app)

A body is read only when its delivery could be genuine, and no further than `max_body`:
at most `concurrency` bodies are read at once, so forged deliveries, however many arrive,
hold at most `concurrency` × `max_body` bytes (2 × 25 MB by default). The HMAC is computed
chunk by chunk as the body arrives. Answers, in the order they are decided:

* 413 when Content-Length is over `max_body` (GitHub's 25 MB cap by default);
* 401 when `X-Hub-Signature-256` is missing or is no `sha256=` signature at all;
* 503 with Retry-After when `concurrency` bodies are being read and no place frees up within
  `wait` seconds (GitHub itself sends deliveries one after another);
* 413 when the body (chunked, without Content-Length) runs past `max_body`: reading stops;
* 401 when the signature is not the body's HMAC-SHA256 under the secret (compared in
  constant time) — nothing is stored;
* 400 when `X-GitHub-Event` or `X-GitHub-Delivery` is missing, or the body is not the JSON
  payload its event announces;
* 200 `duplicate` for a delivery id stored before (GitHub's redeliveries do nothing twice);
* 202 otherwise, after the delivery is committed: handled events are `pending` until the
  processor judges them, every other event is stored as `ignored` (it still proves that the
  repository's webhook works, so the repository is not polled).

The first three are decided before a byte of the body is read (aiohttp then reads what the
client still sends and throws it away, for a few seconds, so that the client hears the
answer). Every refusal is one log line saying why; the secret and the signature are never
logged. Each delivery is counted in `wire_webhook_events` (`bot.metrics`) by event and
outcome; an unverified one only as "unverified", since its headers are not to be trusted.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re

from aiohttp import web
from pydantic import SecretStr

from bot import metrics
from bot.realtime.payloads import Hint, MalformedPayload, read_delivery
from bot.realtime.signature import Signing, looks_like_signature
from bot.store import Store

log = logging.getLogger("wire.realtime.webhook")
# An event name or delivery id as GitHub sends them (a GUID); anything else is refused before
# it reaches a log line or the database.
_HEADER_VALUE = re.compile(r"[A-Za-z0-9_.-]{1,100}", re.ASCII)
MAX_BODY = 25 * 1024 * 1024  # GitHub caps payloads at 25 MB
CONCURRENCY = 2  # bodies read at once
WAIT = 1.0  # seconds a delivery waits for a place before it is told to come back
RETRY_AFTER = 5  # seconds, in the 503's Retry-After
_CHUNK = 64 * 1024


class WebhookReceiver:
    """The aiohttp handler of GitHub's webhook deliveries."""

    def __init__(
        self,
        *,
        store: Store,
        secret: SecretStr,
        path: str,
        wake: asyncio.Event | None = None,
        max_body: int = MAX_BODY,
        concurrency: int = CONCURRENCY,
        wait: float = WAIT,
    ) -> None:
        self.store = store
        self._secret = secret
        self.path = path
        self.wake = wake
        self.max_body = max_body
        self.concurrency = concurrency
        self.wait = wait
        self._places = asyncio.Semaphore(concurrency)  # bodies being read and handled
        self.received = 0  # deliveries stored by this process

    def mount(self, app: web.Application) -> bool:
        """Add the route to the service's web server."""
        app.router.add_post(self.path, self.handle)
        return True

    async def handle(self, request: web.Request) -> web.Response:
        """Answer one delivery (see the module docstring)."""
        delivery = request.headers.get("X-GitHub-Delivery", "")
        signature = request.headers.get("X-Hub-Signature-256")
        if request.content_length is not None and request.content_length > self.max_body:
            return self._too_large(delivery)
        if not looks_like_signature(signature):
            why = "no X-Hub-Signature-256 header" if not signature else "no sha256 signature"
            return _unverified(delivery, why)
        if not await self._take_place():
            log.warning(
                "webhook delivery %r refused: %d bodies are being read already",
                delivery[:100],
                self.concurrency,
            )
            metrics.webhook_event("unverified", "busy")
            response = _answer(503, "busy: try again later")
            response.headers["Retry-After"] = str(RETRY_AFTER)
            return response
        try:
            return await self._receive(request, delivery, signature)
        finally:
            self._places.release()

    async def _take_place(self) -> bool:
        """Wait up to `wait` seconds for one of the places to read a body in; False if none
        came free."""
        if self._places.locked() and self.wait <= 0:
            return False
        try:
            async with asyncio.timeout(self.wait or None):
                await self._places.acquire()
        except TimeoutError:
            return False
        return True

    def _too_large(self, delivery: str) -> web.Response:
        log.warning(
            "webhook delivery %r refused: body over %d bytes", delivery[:100], self.max_body
        )
        metrics.webhook_event("unverified", "too_large")
        return _answer(413, f"payload too large: the limit is {self.max_body} bytes")

    async def _receive(
        self, request: web.Request, delivery: str, signature: str | None
    ) -> web.Response:
        """Read the body (holding a place), verify it, and store the delivery."""
        event = request.headers.get("X-GitHub-Event", "")
        signing = Signing(self._secret.get_secret_value())
        body = await _read_capped(request, self.max_body, signing)
        if body is None:
            return self._too_large(delivery)
        if not signing.matches(signature):
            return _unverified(delivery, "a wrong signature")
        if not (_HEADER_VALUE.fullmatch(event) and _HEADER_VALUE.fullmatch(delivery)):
            log.warning(
                "webhook delivery refused: X-GitHub-Event or X-GitHub-Delivery missing or "
                "not a name (ASCII letters, digits, '-', '_', '.'; at most 100)"
            )
            metrics.webhook_event("none", "malformed")
            return _answer(400, "X-GitHub-Event and X-GitHub-Delivery are required")
        try:
            payload = json.loads(body)
            meaning = read_delivery(event, payload)
        except (ValueError, RecursionError, MalformedPayload) as error:
            # RecursionError: JSON nested deeper than the interpreter's stack
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


async def _read_capped(request: web.Request, limit: int, signing: Signing) -> bytearray | None:
    """The body, fed to `signing` as it arrives; None once it runs past `limit` bytes (read
    no further than that). With a Content-Length (at most `limit`, checked before) the
    buffer is taken once at that size: growing it chunk by chunk would copy it on the way
    and leave the allocator holding about twice as much."""
    announced = request.content_length
    if announced is None:
        body = bytearray()
        while chunk := await request.content.read(_CHUNK):
            if len(body) + len(chunk) > limit:
                return None
            signing.update(chunk)
            body += chunk
        return body
    body = bytearray(announced)
    view = memoryview(body)
    filled = 0
    while filled < announced and (chunk := await request.content.read(announced - filled)):
        view[filled : filled + len(chunk)] = chunk
        signing.update(chunk)
        filled += len(chunk)
    view.release()
    del body[filled:]  # aiohttp ends the body at Content-Length; this is only for safety
    return body


def _unverified(delivery: str, why: str) -> web.Response:
    log.warning("webhook delivery %r refused: %s", delivery[:100], why)
    metrics.webhook_event("unverified", "refused")  # its headers are not to be trusted
    return _answer(401, "signature missing or wrong")


def _answer(status: int, text: str) -> web.Response:
    return web.json_response({"status": text}, status=status)
