"""`POST /github/webhook` on a real aiohttp server and a real store: signatures, caps, shapes,
redeliveries. What the receiver stores is what the processor will work on, so every test
reads the store back."""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp import web
from pydantic import SecretStr

from bot import metrics
from bot.realtime.payloads import Hint, read_delivery
from bot.realtime.receiver import MAX_BODY, WebhookReceiver
from bot.realtime.signature import is_signed, signature_of
from bot.store import Store
from digest.sources.replay import ReplaySource
from tests.slack_requests import ROOT
from tests.webhook_payloads import (
    SECRET,
    WebhookSender,
    closed_unmerged,
    example,
    merged_pull_request,
    ping,
    push,
    schema_errors,
)

PATH = "/github/webhook"


def demo_activity(number: int):
    return next(
        a for a in ReplaySource(ROOT / "demo/activity.jsonl").read_all() if a.number == number
    )


@pytest.fixture
async def served(store: Store) -> AsyncIterator[tuple[WebhookSender, Store]]:
    app = web.Application()
    WebhookReceiver(store=store, secret=SecretStr(SECRET), path=PATH).mount(app)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    async with WebhookSender(f"http://{host}:{port}{PATH}") as sender:
        yield sender, store
    await runner.cleanup()


@pytest.fixture
async def receiving(store: Store) -> AsyncIterator:
    """Serve a receiver built with the given limits; yields a function returning its
    (host, port)."""
    runners: list[web.AppRunner] = []

    async def start(**limits: float) -> tuple[str, int]:
        app = web.Application()
        receiver = WebhookReceiver(store=store, secret=SecretStr(SECRET), path=PATH, **limits)
        receiver.mount(app)
        runner = web.AppRunner(app)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        runners.append(runner)
        return runner.addresses[0][:2]

    yield start
    for runner in runners:
        await runner.cleanup()


async def _start_delivery(
    host: str, port: int, *, length: int, sent: bytes, signature: str | None
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Open a connection and send a delivery's headers and the first `sent` bytes of a body
    of `length` bytes, as a client on a slow line (or one that will never finish)."""
    reader, writer = await asyncio.open_connection(host, port)
    lines = [
        f"POST {PATH} HTTP/1.1",
        "Host: wire",
        "X-GitHub-Event: ping",
        f"X-GitHub-Delivery: {uuid.uuid4()}",
        f"Content-Length: {length}",
    ]
    if signature is not None:
        lines.append(f"X-Hub-Signature-256: {signature}")
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + sent)
    await writer.drain()
    return reader, writer


async def _status_within(reader: asyncio.StreamReader, seconds: float) -> int | None:
    """The status line's code the server answers within `seconds`, or None."""
    try:
        async with asyncio.timeout(seconds):
            line = await reader.readline()
    except TimeoutError:
        return None
    return int(line.split()[1]) if line else None


def test_the_signature_is_githubs_hmac_sha256_and_nothing_else_passes() -> None:
    # the example of GitHub's "Validating webhook deliveries" documentation
    expected = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    assert signature_of(b"Hello, World!", "It's a Secret to Everybody") == expected
    assert is_signed(b"Hello, World!", expected, "It's a Secret to Everybody")
    assert not is_signed(b"Hello, World?", expected, "It's a Secret to Everybody")
    assert not is_signed(b"Hello, World!", expected, "another secret")
    assert not is_signed(
        b"Hello, World!", expected.removeprefix("sha256="), "It's a Secret to Everybody"
    )
    assert not is_signed(b"Hello, World!", None, "It's a Secret to Everybody")
    assert not is_signed(b"Hello, World!", "sha1=" + expected[7:], "It's a Secret to Everybody")


def test_the_payloads_the_tests_send_are_valid_and_broken_ones_are_caught() -> None:
    gate = demo_activity(619)
    assert schema_errors("pull_request", merged_pull_request(gate)) == []
    assert schema_errors("push", push(gate)) == []
    broken = merged_pull_request(gate)
    del broken["pull_request"]["merged_at"]
    assert schema_errors("pull_request", broken)  # the schema notices what the test removed


def test_a_delivery_means_a_merge_a_push_or_nothing() -> None:
    gate = demo_activity(619)
    hint = read_delivery("pull_request", merged_pull_request(gate))
    assert isinstance(hint, Hint)
    assert (hint.repo, hint.number, hint.shas, hint.since) == (
        "pytorch/ci-infra",
        619,
        (gate.sha,),
        gate.landed_at,
    )
    pushed = read_delivery("push", push(gate))
    assert isinstance(pushed, Hint) and pushed.shas == (gate.sha,) and pushed.number is None
    assert not isinstance(read_delivery("pull_request", closed_unmerged(gate)), Hint)
    assert not isinstance(read_delivery("push", push(gate, branch="release/1.0")), Hint)
    opened = merged_pull_request(gate)
    opened["action"] = "opened"
    assert not isinstance(read_delivery("pull_request", opened), Hint)
    other_base = merged_pull_request(gate)
    other_base["pull_request"]["base"]["ref"] = "gh-pages"
    assert not isinstance(read_delivery("pull_request", other_base), Hint)


async def test_a_signed_merge_is_stored_pending_and_its_redelivery_does_nothing(served) -> None:
    sender, store = served
    gate = demo_activity(619)
    status, delivery = await sender.send("pull_request", merged_pull_request(gate))
    assert status == 202
    stored = await store.webhooks.get(delivery)
    assert stored is not None and stored.state == "pending" and stored.repo == "pytorch/ci-infra"
    assert Hint.model_validate(stored.hint).number == 619

    again, _ = await sender.send("pull_request", merged_pull_request(gate), delivery=delivery)
    assert again == 200
    assert (await store.webhooks.counts())["pending"] == 1


@pytest.mark.parametrize(
    "signature",
    ["", "sha256=" + "0" * 64, signature_of(b"another body", SECRET)],
    ids=["missing", "zeros", "of-another-body"],
)
async def test_a_missing_or_forged_signature_is_401_and_stores_nothing(
    served, signature, caplog
) -> None:
    sender, store = served
    caplog.set_level(logging.INFO, logger="wire.realtime")
    status, delivery = await sender.send(
        "pull_request", merged_pull_request(demo_activity(619)), signature=signature
    )
    assert status == 401
    assert await store.webhooks.get(delivery) is None
    forged, other = await sender.send(
        "pull_request", merged_pull_request(demo_activity(619)), secret="guessed"
    )
    assert forged == 401 and await store.webhooks.get(other) is None
    assert "refused" in caplog.text and SECRET not in caplog.text


async def test_unknown_and_ci_events_are_accepted_and_ignored(served) -> None:
    sender, store = served
    status, starred = await sender.send(
        "star", {"action": "created", "repository": ping("pytorch/ci-infra")["repository"]}
    )
    assert status == 202
    assert (await store.webhooks.get(starred)).state == "ignored"
    status, pinged = await sender.send("ping", ping("pytorch/ci-infra"))
    assert status == 202
    found = await store.webhooks.get(pinged)
    assert found.state == "ignored" and found.repo == "pytorch/ci-infra"
    heard = await store.webhooks.last_received(["pytorch/ci-infra", "pytorch/executorch"])
    assert list(heard) == ["pytorch/ci-infra"]  # a ping proves the webhook works
    status, unmerged = await sender.send("pull_request", closed_unmerged(demo_activity(619)))
    assert status == 202 and (await store.webhooks.get(unmerged)).state == "ignored"


async def test_malformed_bodies_are_400_with_a_log_line(served, caplog) -> None:
    sender, store = served
    caplog.set_level(logging.INFO, logger="wire.realtime")
    status, not_json = await sender.send("pull_request", b"{not json")
    assert status == 400 and await store.webhooks.get(not_json) is None
    shapeless = merged_pull_request(demo_activity(619))
    del shapeless["pull_request"]["number"]
    status, missing = await sender.send("pull_request", shapeless)
    assert status == 400 and await store.webhooks.get(missing) is None
    assert "malformed" in caplog.text and "pull_request.number" in caplog.text
    status, _ = await sender.send("", example("ping"))
    assert status == 400
    assert sum((await store.webhooks.counts()).values()) == 0


async def test_a_body_over_25_mb_is_413_and_not_stored(served, caplog) -> None:
    sender, store = served
    caplog.set_level(logging.INFO, logger="wire.realtime")
    payload = ping("pytorch/ci-infra")
    payload["zen"] = "x" * MAX_BODY
    body = json.dumps(payload).encode()
    status, delivery = await sender.send("ping", body)
    assert status == 413 and await store.webhooks.get(delivery) is None
    assert "over 26214400 bytes" in caplog.text
    # exactly at the cap is fine
    payload["zen"] = ""
    payload["zen"] = "x" * (MAX_BODY - len(json.dumps(payload).encode()))
    status, fine = await sender.send("ping", json.dumps(payload).encode())
    assert status == 202 and await store.webhooks.get(fine) is not None


async def test_deliveries_are_counted_by_event_and_outcome(served) -> None:
    sender, _store = served
    previous = metrics.active()
    counted = metrics.install(metrics.Metrics())
    try:
        gate = merged_pull_request(demo_activity(619))
        _, delivery = await sender.send("pull_request", gate)
        await sender.send("pull_request", gate, delivery=delivery)
        await sender.send("pull_request", gate, secret="guessed")
        await sender.send("ping", ping("pytorch/ci-infra"))
    finally:
        metrics.install(previous)

    def count(event: str, outcome: str) -> float | None:
        labels = {"event": event, "outcome": outcome}
        return counted.registry.get_sample_value("wire_webhook_events_total", labels)

    assert count("pull_request", "accepted") == 1
    assert count("pull_request", "duplicate") == 1
    assert count("unverified", "refused") == 1
    assert count("ping", "ignored") == 1


async def test_an_unsigned_delivery_is_401_before_its_body_is_read(receiving) -> None:
    host, port = await receiving()
    for signature in (None, "sha1=" + "0" * 40, "sha256=not-hex"):
        reader, writer = await _start_delivery(
            host, port, length=10_000_000, sent=b"{" * 1000, signature=signature
        )
        # the other 9,999,000 bytes never come: the answer cannot wait for them
        assert await _status_within(reader, 2) == 401, signature
        writer.close()


async def test_a_body_over_the_limit_is_413_by_its_length_or_once_read_past_it(
    receiving, store
) -> None:
    payload = ping("pytorch/ci-infra")
    limit = len(json.dumps(payload).encode()) + 100
    host, port = await receiving(max_body=limit)
    reader, writer = await _start_delivery(
        host, port, length=limit + 1, sent=b"", signature="sha256=" + "0" * 64
    )
    assert await _status_within(reader, 2) == 413  # the length says so: nothing is read
    writer.close()
    async with WebhookSender(f"http://{host}:{port}{PATH}") as sender:
        status, fits = await sender.send("ping", payload)
        assert status == 202 and await store.webhooks.get(fits) is not None
        payload["zen"] = "x" * 200
        status, delivery = await sender.send("ping", json.dumps(payload).encode())
        assert status == 413 and await store.webhooks.get(delivery) is None

        async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: chunked
            for _ in range(10):
                yield b"x" * limit

        headers = {"X-Hub-Signature-256": "sha256=" + "0" * 64}
        async with (
            aiohttp.ClientSession() as http,
            http.post(sender.url, data=chunks(), headers=headers) as answer,
        ):
            assert answer.status == 413


async def test_at_most_n_bodies_are_read_at_once_and_one_more_is_told_to_retry(
    receiving, store
) -> None:
    host, port = await receiving(concurrency=2, wait=0.2)
    forged = "sha256=" + "0" * 64
    slow = [
        await _start_delivery(host, port, length=100_000, sent=b"{" * 100, signature=forged)
        for _ in range(2)
    ]
    await asyncio.sleep(0.1)  # both are being read
    async with WebhookSender(f"http://{host}:{port}{PATH}") as sender:
        url = sender.url
        async with aiohttp.ClientSession() as http:
            async with http.post(url, data=b"{}", headers={"X-Hub-Signature-256": forged}) as busy:
                assert busy.status == 503 and int(busy.headers["Retry-After"]) > 0
            for _, writer in slow:  # the slow senders give up: their places come back
                writer.close()
            await asyncio.sleep(0.1)
        status, delivery = await sender.send("ping", ping("pytorch/ci-infra"))
        assert status == 202 and await store.webhooks.get(delivery) is not None
