"""Hostile requests to every route of the service's web server, as the service mounts them:
each is answered below 500, with at most one log line and never a traceback.

The real service runs on loopback with Slack over HTTP (its loopback API), the archive (with
a token and one stored story), `/metrics`, `/healthz` and the GitHub webhook. Requests go
over raw sockets, so headers can carry any byte an HTTP parser lets through (0xFF
included). The named cases are the ones once answered 500 with a traceback; the fuzz then
sends a few hundred seeded requests per route: junk and forged ones, and, for Slack and the
webhook, hostile bodies signed with the test secret so they get past the signature check.
Discord talks over its gateway and mounts no HTTP route, which a test pins.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import hmac
import json
import logging
import random
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from aiohttp import web

from bot.chat.adapters import health_routes
from bot.discord.adapter import DiscordAdapter
from bot.settings import load_settings
from bot.slack.inbound import MAX_DEPTH
from tests.fakes.slack_server import FakeSlack
from tests.slack_requests import SECRET, TOKEN, recorded, slack_service, slash_command
from tests.webhook_payloads import example

SEED = 20260527
REQUESTS_PER_ROUTE = 300
WEBHOOK_SECRET = "webhook-secret-for-hostile-tests"
ARCHIVE_TOKEN = "archive-token-for-hostile-tests"
SLACK_PATH = "/slack/events"
WEBHOOK_PATH = "/github/webhook"
FORM = b"application/x-www-form-urlencoded"
JSON = b"application/json"
Header = tuple[bytes, bytes]


# ---------------------------------------------------------------- raw HTTP


@dataclass
class Answer:
    status: int
    body: bytes


async def send(
    base: str, method: str, target: str | bytes, headers: list[Header] = (), body: bytes = b""
) -> Answer:
    """One HTTP/1.1 request written byte for byte to the server at `base`; its answer."""
    host, port = base.removeprefix("http://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        target = target.encode() if isinstance(target, str) else target
        head = [method.encode() + b" " + target + b" HTTP/1.1", b"Host: " + host.encode()]
        head += [b"Connection: close", b"Content-Length: " + str(len(body)).encode()]
        head += [name + b": " + value for name, value in headers]
        writer.write(b"\r\n".join(head) + b"\r\n\r\n" + body)
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(), timeout=30)
    finally:
        writer.close()
    status_line, _, rest = raw.partition(b"\r\n")
    return Answer(status=int(status_line.split(b" ")[1]), body=rest.partition(b"\r\n\r\n")[2])


def slack_signed(body: bytes, content_type: bytes = JSON) -> list[Header]:
    """Headers Slack would send with `body`, signed with the test signing secret now."""
    timestamp = str(int(time.time())).encode()
    base = b"v0:" + timestamp + b":" + body
    digest = hmac.new(SECRET.encode(), base, hashlib.sha256).hexdigest()
    return [
        (b"Content-Type", content_type),
        (b"X-Slack-Request-Timestamp", timestamp),
        (b"X-Slack-Signature", f"v0={digest}".encode()),
    ]


def github_signed(body: bytes, event: bytes, delivery: bytes) -> list[Header]:
    """Headers GitHub would send with `body`, signed with the test webhook secret (an empty
    event or delivery is left out)."""
    digest = hmac.new(WEBHOOK_SECRET.encode(), body, hashlib.sha256).hexdigest()
    headers = [
        (b"Content-Type", JSON),
        (b"X-GitHub-Event", event),
        (b"X-GitHub-Delivery", delivery),
        (b"X-Hub-Signature-256", f"sha256={digest}".encode()),
    ]
    return [(name, value) for name, value in headers if value]


# ---------------------------------------------------------------- logs


def tracebacks(records: list[logging.LogRecord]) -> list[str]:
    """The records that carry a traceback, as "logger: message"."""
    return [
        f"{r.name}: {r.getMessage()} ({r.exc_info[1]!r})" if r.exc_info else r.getMessage()
        for r in records
        if r.exc_info or r.exc_text or r.stack_info or "Traceback" in r.getMessage()
    ]


def loud(records: list[logging.LogRecord]) -> list[logging.LogRecord]:
    return [r for r in records if r.levelno >= logging.WARNING]


def assert_quiet(caplog: pytest.LogCaptureFixture, capfd, *, requests: int) -> None:
    """No traceback anywhere, at most one warning or error per request, each one line."""
    assert tracebacks(caplog.records) == []
    warnings = loud(caplog.records)
    assert len(warnings) <= requests, [r.getMessage() for r in warnings]
    assert [r.getMessage() for r in warnings if "\n" in r.getMessage()] == []
    assert "Traceback" not in capfd.readouterr().err


# ---------------------------------------------------------------- the service


@dataclass
class Wire:
    url: str
    story_id: str
    hook: Callable[[str], str]  # a response_url on the loopback Slack
    routes: set[tuple[str, str]] = field(default_factory=set)


@pytest.fixture
async def wire(tmp_path: Path, make_story, caplog) -> AsyncIterator[Wire]:
    """The real service, Slack over HTTP, the archive with a token, metrics, the webhook."""
    caplog.set_level(logging.INFO)
    slack = FakeSlack(tokens=[TOKEN], per_channel_interval=0.02)
    async with slack:
        running = slack_service(
            tmp_path,
            slack.url,
            github={"webhook_secret": WEBHOOK_SECRET, "api_url": "http://127.0.0.1:9"},
            web={"enabled": True, "metrics": True, "token": ARCHIVE_TOKEN},
            subscribing={"open": "config"},  # nothing typed reaches GitHub
        )
        async with running as (service, _sender):
            story = make_story(1)
            await service.store.stories.save(story)
            app = web.Application()  # what `Frontends.open` mounts, to list the routes
            health_routes(app, started=datetime.now(UTC))
            for mounted in [*service.frontends.adapters.values(), *service.frontends.sites]:
                mounted.mount(app)
            routes = {
                (r.method, r.resource.canonical)
                for r in app.router.routes()
                if r.method != "HEAD" and r.resource is not None
            }
            assert service.web_url is not None
            yield Wire(url=service.web_url, story_id=story.id, hook=slack.hook_url, routes=routes)
            await asyncio.sleep(0.2)  # listeners bolt runs after its ack finish logging


# ---------------------------------------------------------------- the cases once answered 500


async def test_unsigned_malformed_json_to_slack_is_refused_in_one_line(
    wire: Wire, caplog, capfd
) -> None:
    answer = await send(wire.url, "POST", SLACK_PATH, [(b"Content-Type", JSON)], b"{")
    assert answer.status == 401
    assert_quiet(caplog, capfd, requests=1)
    assert [r.getMessage() for r in loud(caplog.records)] == [
        "Slack request refused (401): X-Slack-Request-Timestamp is missing or not a number"
    ]


async def test_signed_malformed_json_to_slack_is_refused_with_400(
    wire: Wire, caplog, capfd
) -> None:
    answer = await send(wire.url, "POST", SLACK_PATH, slack_signed(b"{"), b"{")
    assert answer.status == 400
    assert_quiet(caplog, capfd, requests=1)


async def test_a_slack_timestamp_that_is_not_a_number_is_refused(wire: Wire, caplog, capfd) -> None:
    body = slash_command(
        "list", channel="C1", user_id="U1", user_name="ana", response_url="http://127.0.0.1:9/"
    ).encode()
    headers = [
        (name, b"abc" if name == b"X-Slack-Request-Timestamp" else value)
        for name, value in slack_signed(body, FORM)
    ]
    answer = await send(wire.url, "POST", SLACK_PATH, headers, body)
    assert answer.status == 401
    assert_quiet(caplog, capfd, requests=1)


async def test_a_signed_slack_body_nested_100000_deep_is_refused_with_400(
    wire: Wire, caplog, capfd
) -> None:
    body = b"[" * 100_000 + b"]" * 100_000
    answer = await send(wire.url, "POST", SLACK_PATH, slack_signed(body), body)
    assert answer.status == 400
    assert_quiet(caplog, capfd, requests=1)
    [line] = [r.getMessage() for r in loud(caplog.records)]
    assert f"deeper than {MAX_DEPTH} levels" in line


async def test_a_signed_block_actions_whose_actions_is_a_string_is_refused_with_400(
    wire: Wire, caplog, capfd
) -> None:
    payload = recorded("block_actions")
    payload["actions"] = "wire_ack"
    body = urlencode({"payload": json.dumps(payload)}).encode()
    answer = await send(wire.url, "POST", SLACK_PATH, slack_signed(body, FORM), body)
    assert answer.status == 400
    assert_quiet(caplog, capfd, requests=1)
    [line] = [r.getMessage() for r in loud(caplog.records)]
    assert "payload.actions is not a list of objects" in line


async def test_a_command_whose_reply_fails_at_once_is_still_acked_at_once(
    wire: Wire, caplog, capfd
) -> None:
    body = slash_command(
        "help", channel="C1", user_id="U1", user_name="ana", response_url="not-a-url"
    ).encode()
    started = time.monotonic()
    answer = await send(wire.url, "POST", SLACK_PATH, slack_signed(body, FORM), body)
    assert (answer.status, answer.body) == (200, b"")
    assert time.monotonic() - started < 2  # not bolt's three seconds, then a 404
    await asyncio.sleep(0.2)
    assert_quiet(caplog, capfd, requests=1)
    [line] = [r.getMessage() for r in loud(caplog.records)]
    assert line.startswith("Slack /wire failed: InvalidUrlClientError")


@pytest.mark.parametrize(
    "header",
    [(b"Authorization", b"Bearer \xff"), (b"Cookie", b"wire_archive=\xff")],
    ids=["bearer", "cookie"],
)
async def test_a_non_utf8_archive_credential_is_no_token_rather_than_a_500(
    wire: Wire, caplog, capfd, header: Header
) -> None:
    page = await send(wire.url, "GET", "/", [header])
    story = await send(wire.url, "GET", f"/stories/{wire.story_id}.json", [header])
    assert (page.status, story.status) == (200, 200)  # public: served as to any reader
    assert b"Set-Cookie" not in page.body
    assert_quiet(caplog, capfd, requests=2)


# ---------------------------------------------------------------- what stays out of reach


async def test_discord_mounts_no_http_route() -> None:
    settings = load_settings(env_file=None, platforms=("discord",), discord={"bot_token": "x"})
    adapter = DiscordAdapter.from_settings(settings)
    app = web.Application()
    assert adapter.mount(app) is False and list(app.router.routes()) == []
    await adapter.close()


async def test_every_route_the_service_serves_is_fuzzed(wire: Wire) -> None:
    assert wire.routes == {(ROUTES[name].method, ROUTES[name].route) for name in ROUTES}


async def test_a_signed_webhook_body_nested_100000_deep_is_refused_with_400(
    wire: Wire, caplog, capfd
) -> None:
    body = b"[" * 100_000 + b"]" * 100_000
    headers = github_signed(body, b"pull_request", b"deep-1")
    answer = await send(wire.url, "POST", WEBHOOK_PATH, headers, body)
    assert answer.status == 400
    assert_quiet(caplog, capfd, requests=1)


@pytest.mark.parametrize("header", [b"X-GitHub-Delivery", b"X-GitHub-Event"])
async def test_a_signed_webhook_delivery_with_byte_ff_in_a_header_is_refused_with_400(
    wire: Wire, caplog, capfd, header: bytes
) -> None:
    body = json.dumps(example("ping")).encode()
    headers = [
        (name, b"\xff" if name == header else value)
        for name, value in github_signed(body, b"ping", b"ff-1")
    ]
    answer = await send(wire.url, "POST", WEBHOOK_PATH, headers, body)
    assert answer.status == 400
    assert_quiet(caplog, capfd, requests=1)


@pytest.mark.parametrize(
    "request_head",
    [
        b"GET /\xff HTTP/1.1",
        b"GET / HTTP/1.1\r\nX-Junk: a\x01b",
        b"GET / HTTP/1.1\r\nX\xff: 1",
        b"POST /slack/events HTTP/1.1\r\nContent-Type: a\r\nContent-Type: b",
        b"GET /?page=" + b"9" * 9000 + b" HTTP/1.1",
    ],
    ids=[
        "non-ascii-target",
        "control-byte-in-header",
        "non-ascii-header-name",
        "two-content-types",
        "request-line-over-8190-bytes",
    ],
)
async def test_a_request_aiohttp_cannot_parse_is_refused_in_one_line(
    wire: Wire, caplog, capfd, request_head: bytes
) -> None:
    host, port = wire.url.removeprefix("http://").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(request_head + b"\r\nHost: x\r\nConnection: close\r\n\r\n")
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), timeout=30)
    writer.close()
    assert answer.startswith(b"HTTP/1.0 400") or answer.startswith(b"HTTP/1.1 400")
    assert_quiet(caplog, capfd, requests=1)


# ---------------------------------------------------------------- the fuzz

HOSTILE_BYTES = [
    b"",
    b"\xff",
    b"\xff\xfe\xfd",
    b"\x80abc",
    b"\xed\xa0\x80",  # a UTF-16 surrogate, encoded
    b"\xc0\xaf",  # an overlong "/"
    b"caf\xc3\xa9",
    "١٢٣٤".encode(),  # digits int() takes but Slack never sends
    b"\t",
    b"a" * 7000,
    b"%ff%00",
    b'"',
    b"\\",
    b"=;,;=",
    b"-1",
    b"0",
    b" 1700000000 ",
    b"1e10",
    b"99999999999999999999999999",
    b"NaN",
    b"Bearer",
    b"Bearer \xff",
    b"Bearer " + ARCHIVE_TOKEN[:-1].encode(),
    b"Basic \xff\xfe",
    b"v0=" + b"0" * 64,
    b"v0=\xff",
    b"sha256=" + b"f" * 64,
    b"wire_archive=\xff",
    b'wire_archive="unterminated',
    b"wire_archive=; wire_archive=x; =\xff",
    b"application/json; charset=\xff",
    b"text/plain; charset=no-such-charset",
    b"multipart/form-data; boundary=\xff",
]
HEADER_NAMES = [
    b"Content-Type",
    b"Authorization",
    b"Cookie",
    b"Accept",
    b"Accept-Encoding",
    b"If-None-Match",
    b"If-Modified-Since",
    b"Range",
    b"Origin",
    b"X-Forwarded-For",
    b"X-Slack-Request-Timestamp",
    b"X-Slack-Signature",
    b"X-Slack-Retry-Num",
    b"X-Slack-Bolt-Lazy-Only",
    b"X-GitHub-Event",
    b"X-GitHub-Delivery",
    b"X-Hub-Signature-256",
]
JSON_VALUES: list[Any] = [
    None,
    True,
    0,
    -1,
    1e308,
    10**30,
    "",
    "x",
    "\ud800",
    "\x00",
    "<!channel>",
    "wire_ack",
    "block_actions",
    "event_callback",
    "reaction_added",
    "message",
    "white_check_mark",
    "http://127.0.0.1:9/hook",
    [],
    [1],
    ["wire_ack"],
    [{}],
    [{"action_id": 5}],
    {},
    {"id": 5},
    {"id": ["U1"]},
    {"type": 1},
    {"type": "message", "channel": {}, "ts": 1},
]
JUNK_BODIES = [
    b"",
    b"{",
    b"[",
    b"}",
    b"null",
    b"[]",
    b'"text"',
    b"1",
    b"{}",
    b"\xff\xfe\x00{",
    b"9" * 5000,
    b'{"a": 1e999}',
    b'{"type": "\\ud800"}',
    b"payload=",
    b"payload={",
    b"payload=%ff%fe",
    b"payload=[1]",
    b"payload=" + quote(json.dumps({"type": "block_actions", "actions": []})).encode(),
    b"a=%ff&b=%zz&&&==",
    b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1),
    b'{"a":' * 5000 + b"1" + b"}" * 5000,
]
QUERY_VALUES = [
    "",
    "1",
    "-1",
    "0",
    "9" * 4400,  # over the 4,300 digits int() reads
    "1e9",
    "%ff",
    "%00",
    "%ed%a0%80",
    "%c0%af",
    quote("<script>alert(1)</script>"),
    "executorch",
    "pytorch%2Fexecutorch",
    "x" * 2000,
    "%",
    "%zz",
    "=",
    quote(ARCHIVE_TOKEN[:-1]),
]
QUERY_KEYS = ["page", "project", "topic", "token", "x", "%ff"]


def hostile_headers(rng: random.Random, at_most: int = 4, *, taken: bool = False) -> list[Header]:
    """Up to `at_most` hostile headers; a Content-Type only when `taken` is False (aiohttp's
    parser refuses a second one itself: see the test of what it cannot parse)."""
    names = [n for n in HEADER_NAMES if not (taken and n == b"Content-Type")]
    headers: dict[bytes, bytes] = {}
    for _ in range(rng.randint(0, at_most)):
        headers[rng.choice(names)] = rng.choice(HOSTILE_BYTES)
    return list(headers.items())


def hostile_query(rng: random.Random) -> str:
    """A query of up to three hostile pairs, within aiohttp's 8,190 bytes of request line
    (a longer one its parser refuses itself: see the test of what it cannot parse)."""
    pairs = [
        f"{rng.choice(QUERY_KEYS)}={rng.choice(QUERY_VALUES)}" for _ in range(rng.randint(0, 3))
    ]
    query = "?" + "&".join(pairs) if pairs else ""
    return query if len(query) < 7000 else query[:7000]


def mutate(rng: random.Random, payload: Any) -> Any:
    """A copy of `payload` with one to three values, at any depth, replaced, dropped, or
    added as hostile ones."""
    payload = copy.deepcopy(payload)
    for _ in range(rng.randint(1, 3)):
        slots: list[tuple[Any, Any]] = []
        stack = [payload]
        while stack:
            node = stack.pop()
            keys = (
                list(node)
                if isinstance(node, dict)
                else range(len(node))
                if isinstance(node, list)
                else []
            )
            for key in keys:
                slots.append((node, key))
                stack.append(node[key])
        if not slots:
            return copy.deepcopy(rng.choice(JSON_VALUES))
        node, key = rng.choice(slots)
        roll = rng.random()
        if roll < 0.15 and isinstance(node, dict):
            del node[key]
        elif roll < 0.3 and isinstance(node, dict):
            node[
                rng.choice(
                    [
                        "actions",
                        "user",
                        "channel",
                        "event",
                        "item",
                        "team",
                        "authorizations",
                        "response_urls",
                        "enterprise",
                        "message",
                        "view",
                        "command",
                    ]
                )
            ] = copy.deepcopy(rng.choice(JSON_VALUES))
        else:
            node[key] = copy.deepcopy(rng.choice(JSON_VALUES))
    return payload


def _text(value: Any) -> bytes:
    return json.dumps(value).encode()


def slack_bases(response_url: str) -> dict[str, Any]:
    """Slack's recorded payloads, their response_url on the loopback Slack."""
    actions = recorded("block_actions")
    actions["response_url"] = response_url
    actions["actions"][0]["action_id"] = "wire_ack"
    event = recorded("event_callback")
    return {
        "block_actions": actions,
        "event": event,
        "url_verification": recorded("url_verification"),
    }


Request = tuple[str, str, list[Header], bytes]


@dataclass(frozen=True)
class Route:
    method: str
    route: str
    make: Callable[[random.Random, Wire], Request]


def _slack(rng: random.Random, body: bytes, content_type: bytes) -> Request:
    if rng.random() < 0.65:  # signed: past the signature check
        headers = slack_signed(
            body, rng.choice([content_type, content_type, JSON, FORM, b"text/plain"])
        )
        headers += hostile_headers(rng, at_most=1, taken=True)
    else:
        headers = [(b"Content-Type", content_type), *hostile_headers(rng, taken=True)]
    return "POST", SLACK_PATH + rng.choice(["", "", hostile_query(rng)]), headers, body


def slack_event(rng: random.Random, wire: Wire) -> Request:
    bases = slack_bases(wire.hook(f"fuzz-{rng.random()}"))
    if rng.random() < 0.2:
        return _slack(rng, rng.choice(JUNK_BODIES), JSON)
    body = mutate(rng, bases[rng.choice(["event", "event", "url_verification"])])
    return _slack(rng, _text(body), JSON)


def slack_command(rng: random.Random, wire: Wire) -> Request:
    if rng.random() < 0.2:
        return _slack(rng, rng.choice(JUNK_BODIES), FORM)
    text = rng.choice(
        [
            "list",
            "help",
            "subscribe executorch",
            "topics",
            "ack item_x",
            "mute 4h",
            "bulletins off",
            "subscribe <!channel>",
            "\x00",
            "x" * 3000,
            "",
        ]
    )
    hook = wire.hook(f"fuzz-{rng.random()}")
    body = slash_command(text, channel="C0FUZZ", user_id="U0FUZZ", user_name="f", response_url=hook)
    fields = dict(pair.split("=", 1) for pair in body.split("&"))
    for _ in range(rng.randint(0, 3)):
        fields[rng.choice([*fields, "payload", "command"])] = rng.choice(QUERY_VALUES)
    return _slack(rng, "&".join(f"{k}={v}" for k, v in fields.items()).encode(), FORM)


def slack_interaction(rng: random.Random, wire: Wire) -> Request:
    if rng.random() < 0.2:
        return _slack(rng, rng.choice(JUNK_BODIES), FORM)
    payload = mutate(rng, slack_bases(wire.hook(f"fuzz-{rng.random()}"))["block_actions"])
    body = urlencode({"payload": json.dumps(payload)}).encode()
    return _slack(rng, body, FORM)


def _archive(
    path: Callable[[random.Random, Wire], str],
) -> Callable[[random.Random, Wire], Request]:
    def make(rng: random.Random, wire: Wire) -> Request:
        method = rng.choice(["GET", "GET", "GET", "HEAD", "POST", "OPTIONS"])
        body = rng.choice(JUNK_BODIES) if method == "POST" else b""
        return method, path(rng, wire) + hostile_query(rng), hostile_headers(rng), body

    return make


STORY_IDS = ["", "x" * 64, "x" * 65, "..", "%2e%2e", "%ff", "a%00b", "-_-", "0"]


def story_path(suffix: str) -> Callable[[random.Random, Wire], str]:
    def path(rng: random.Random, wire: Wire) -> str:
        return f"/stories/{rng.choice([wire.story_id, wire.story_id, *STORY_IDS])}{suffix}"

    return path


def github_webhook(rng: random.Random, _wire: Wire) -> Request:
    bases = {
        "ping": example("ping"),
        "pull_request": example("pull_request.closed"),
        "push": example("push"),
    }
    event = rng.choice([*bases, "issues", ""])
    junk = rng.random() < 0.2
    body = rng.choice(JUNK_BODIES) if junk else _text(mutate(rng, bases.get(event, bases["ping"])))
    if rng.random() < 0.65:  # signed: past the signature check
        delivery = rng.choice(
            [b"", b"x" * 101, b"%ff", b"\xff", b"\t", f"fuzz-{rng.random()}".encode()]
        )
        headers = github_signed(body, event.encode(), delivery)
    else:
        headers = [(b"Content-Type", JSON), *hostile_headers(rng, taken=True)]
    return "POST", WEBHOOK_PATH, headers, body


ROUTES: dict[str, Route] = {
    "slack-events": Route("POST", SLACK_PATH, slack_event),
    "slack-commands": Route("POST", SLACK_PATH, slack_command),
    "slack-interactivity": Route("POST", SLACK_PATH, slack_interaction),
    "archive-index": Route("GET", "/", _archive(lambda rng, wire: "/")),
    "archive-story": Route("GET", "/stories/{story_id}", _archive(story_path(""))),
    "archive-story-json": Route("GET", "/stories/{story_id}.json", _archive(story_path(".json"))),
    "archive-stylesheet": Route(
        "GET", "/static/archive.css", _archive(lambda rng, wire: "/static/archive.css")
    ),
    "metrics": Route("GET", "/metrics", _archive(lambda rng, wire: "/metrics")),
    "healthz": Route("GET", "/healthz", _archive(lambda rng, wire: "/healthz")),
    "github-webhook": Route("POST", WEBHOOK_PATH, github_webhook),
}


@pytest.mark.parametrize("name", list(ROUTES))
async def test_hostile_requests_get_no_5xx_and_no_traceback(
    wire: Wire, caplog, capfd, name: str
) -> None:
    rng = random.Random(f"{SEED}:{name}")
    statuses: dict[int, int] = {}
    for _ in range(REQUESTS_PER_ROUTE):
        method, target, headers, body = ROUTES[name].make(rng, wire)
        answer = await send(wire.url, method, target, headers, body)
        statuses[answer.status] = statuses.get(answer.status, 0) + 1
        assert answer.status < 500, (method, target, headers, body[:200], answer.body[:300])
    await asyncio.sleep(0.5)  # what bolt runs after its ack logs by now
    assert_quiet(caplog, capfd, requests=REQUESTS_PER_ROUTE)
    with capfd.disabled():  # the statuses seen, for `pytest -s`
        print(f"\n{name}: {dict(sorted(statuses.items()))}")
    if name.startswith("slack-"):  # both sides of the signature check were reached
        assert {400, 401} <= set(statuses) and statuses.keys() & {200, 404}
