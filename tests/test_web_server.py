"""The service's web server under misuse: the address it binds, idle and slow connections,
a cap on open connections, uploads cut off halfway, and the security headers every answer
carries (not only the archive's pages).

Every test runs the real server (`bot.app.frontends.Frontends`, or the stand-in of
`bot.app.resilience` while the database is down) on a free loopback port, with small
timeouts from `[http]`, and talks to it over real sockets: raw ones where a client must
misbehave, aiohttp where it behaves.
"""

from __future__ import annotations

import asyncio
import io
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from pydantic import SecretStr

from bot.app.frontends import Frontends
from bot.app.resilience import start_when_database_answers
from bot.app.service import Service
from bot.chat.adapters import Hub
from bot.commands.handlers import Commands
from bot.realtime.receiver import WebhookReceiver
from bot.settings import load_settings
from bot.settings_sections import HttpSettings
from bot.store import Store
from bot.store.engine import UnreachableError
from bot.web.site import CONTENT_SECURITY_POLICY
from digest.config import load_config
from tests.webhook_payloads import SECRET

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "config" / "demo.toml"
HOOK = "/github/webhook"
BASELINE = ("Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy")


def _hub(store: Store) -> Hub:
    settings = load_settings(env_file=None)
    config = load_config(DEMO)
    commands = Commands(store=store, config=config, settings=settings, source_for=lambda p: None)
    return Hub(store=store, commands=commands, settings=settings, platforms={})


@pytest.fixture
async def serve(store: Store) -> AsyncIterator:
    """Start a `Frontends` web server with the webhook receiver mounted and the given
    [http] settings (on a free loopback port); yields a function returning (host, port)."""
    opened: list[Frontends] = []

    async def start(**http: object) -> tuple[str, int]:
        receiver = WebhookReceiver(store=store, secret=SecretStr(SECRET), path=HOOK)
        frontends = Frontends(
            {},
            hub=_hub(store),
            http=HttpSettings(**{"host": "127.0.0.1", "port": 0, **http}),
            engine=store.engine,
            sites=[receiver],
        )
        await frontends.open()
        opened.append(frontends)
        assert frontends.url is not None
        host, _, port = frontends.url.removeprefix("http://").rpartition(":")
        return host, int(port)

    yield start
    for frontends in opened:
        await frontends.close()


async def _closed_by_server(reader: asyncio.StreamReader, *, within: float) -> bytes | None:
    """What the server sent before closing the connection, or None if it kept it open."""
    try:
        async with asyncio.timeout(within):
            return await reader.read()
    except TimeoutError:
        return None


async def _healthz(host: str, port: int) -> int:
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"http://{host}:{port}/healthz", timeout=aiohttp.ClientTimeout(total=5)) as got,
    ):
        return got.status


async def test_the_server_listens_on_loopback_unless_the_configuration_names_another_address(
    store: Store,
) -> None:
    assert HttpSettings().host == "127.0.0.1"
    frontends = Frontends(
        {},
        hub=_hub(store),
        http=HttpSettings(port=0),
        engine=store.engine,
        sites=[WebhookReceiver(store=store, secret=SecretStr(SECRET), path=HOOK)],
    )
    await frontends.open()
    try:
        assert frontends.url is not None and frontends.url.startswith("http://127.0.0.1:")
    finally:
        await frontends.close()


async def test_a_connection_that_sends_no_headers_is_closed_after_the_header_timeout(
    serve,
) -> None:
    host, port = await serve(header_timeout=0.3)
    silent_reader, silent = await asyncio.open_connection(host, port)
    slow_reader, slow = await asyncio.open_connection(host, port)
    slow.write(b"GET /healthz HTTP/1.1\r\nHost: wire\r\n")  # the headers never end
    await slow.drain()
    started = time.monotonic()
    assert await _closed_by_server(silent_reader, within=3) == b""
    assert await _closed_by_server(slow_reader, within=3) == b""
    assert time.monotonic() - started < 2
    for writer in (silent, slow):
        writer.close()


async def test_connections_over_the_cap_are_refused_and_healthz_answers_once_idle_ones_close(
    serve,
) -> None:
    host, port = await serve(max_connections=4, header_timeout=0.5)
    idle = [await asyncio.open_connection(host, port) for _ in range(4)]
    await asyncio.sleep(0.1)  # all four accepted
    reader, writer = await asyncio.open_connection(host, port)
    refused = await _closed_by_server(reader, within=2)
    assert refused is not None and refused.startswith(b"HTTP/1.1 503 ")
    writer.close()
    for idle_reader, _ in idle:  # the header timeout frees the places
        assert await _closed_by_server(idle_reader, within=3) == b""
    assert await _healthz(host, port) == 200
    for _, idle_writer in idle:
        idle_writer.close()


async def test_a_body_that_never_ends_is_answered_408_after_the_request_timeout(serve) -> None:
    host, port = await serve(request_timeout=0.5)
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(
        (
            f"POST {HOOK} HTTP/1.1\r\nHost: wire\r\nContent-Length: 100000\r\n"
            "X-Hub-Signature-256: sha256=" + "0" * 64 + "\r\n\r\n"
        ).encode()
    )
    writer.write(b"{" * 1000)
    await writer.drain()
    answer = await _closed_by_server(reader, within=3)
    assert answer is not None and answer.startswith(b"HTTP/1.1 408 ")
    writer.close()


async def test_an_upload_cut_off_halfway_is_one_warning_without_a_traceback(serve, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    host, port = await serve()
    for framing in ("Content-Length: 100000", "Transfer-Encoding: chunked"):
        _reader, writer = await asyncio.open_connection(host, port)
        writer.write(
            (
                f"POST {HOOK} HTTP/1.1\r\nHost: wire\r\n{framing}\r\n"
                "X-Hub-Signature-256: sha256=" + "0" * 64 + "\r\n\r\n"
            ).encode()
        )
        writer.write(b"3e8\r\n" + b"x" * 1000 + b"\r\n")
        await writer.drain()
        await asyncio.sleep(0.1)
        writer.close()
        await writer.wait_closed()
    await asyncio.sleep(0.3)  # the server notices
    assert [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info] == []
    aborted = [r for r in caplog.records if "cut off" in r.getMessage()]
    assert len(aborted) == 2 and all(r.levelno == logging.WARNING for r in aborted)
    assert HOOK in aborted[0].getMessage()
    assert await _healthz(host, port) == 200


@pytest.fixture
async def demo(tmp_path: Path) -> AsyncIterator[str]:
    """The demo service with the archive and /metrics, serving on a free port: its URL."""
    settings = load_settings(
        config=DEMO,
        env_file=None,
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'wire.db'}",
        http={"host": "127.0.0.1", "port": 0},
    )
    service = await Service.start(settings=settings, config=load_config(DEMO), stream=io.StringIO())
    async with service:
        await service.start_frontends()
        assert service.web_url is not None
        yield service.web_url


async def test_every_answer_carries_the_security_headers_and_the_archive_keeps_its_policy(
    demo: str,
) -> None:
    async with aiohttp.ClientSession() as http:
        for method, path, status in [
            ("GET", "/metrics", 200),
            ("GET", "/healthz", 200),
            ("GET", "/no/such/page", 404),
            ("POST", "/healthz", 405),
        ]:
            async with http.request(method, demo + path) as answer:
                assert answer.status == status, path
                missing = [name for name in BASELINE if name not in answer.headers]
                assert missing == [], f"{method} {path} lacks {missing}"
                assert answer.headers["X-Content-Type-Options"] == "nosniff"
                assert "default-src 'none'" in answer.headers["Content-Security-Policy"]
        async with http.get(demo + "/") as page:
            assert page.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY


async def test_the_standin_server_also_carries_the_headers_and_closes_idle_connections() -> None:
    http = HttpSettings(host="127.0.0.1", port=0, header_timeout=0.3)
    stop = asyncio.Event()
    urls: list[str] = []

    async def unreachable() -> None:
        raise UnreachableError("the database does not answer")

    waiting = asyncio.create_task(
        start_when_database_answers(
            unreachable, stop=stop, http=http, base=30, on_standin=urls.append
        )
    )
    try:
        while not urls:
            await asyncio.sleep(0.01)
        async with aiohttp.ClientSession() as client, client.get(urls[0] + "/healthz") as answer:
            assert answer.status == 503
            assert all(name in answer.headers for name in BASELINE)
        host, _, port = urls[0].removeprefix("http://").rpartition(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        assert await _closed_by_server(reader, within=3) == b""
        writer.close()
    finally:
        stop.set()
        await waiting


def test_an_http_host_from_the_environment_keeps_the_files_port(monkeypatch, tmp_path) -> None:
    """How the container opens the server to its network: WIRE_HTTP__HOST with the port of
    whatever configuration file it runs."""
    config = tmp_path / "wire.toml"
    config.write_text("[http]\nport = 4321\n", encoding="utf-8")
    monkeypatch.setenv("WIRE_HTTP__HOST", "0.0.0.0")
    settings = load_settings(config=config, env_file=None)
    assert (settings.http.host, settings.http.port) == ("0.0.0.0", 4321)
