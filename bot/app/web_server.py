"""The service's web server, as `bot.app.frontends` and the stand-in of `bot.app.resilience`
run it: an aiohttp application with the guards every route shares, served on `[http]`.

    app = web_application(settings.http)
    health_routes(app, …); site.mount(app)
    runner = await serve(app, settings.http)     # listening; runner.cleanup() stops it

An address it cannot listen on (the port taken, a privileged port, a host that is not this
machine's) is a `ListenError`: one sentence naming the address and the setting to change,
which `wire run` prints and exits 2 with.

The guards, each set in `[http]`:

* it binds `host` only: loopback unless the configuration names another address;
* at most `max_connections` connections are open at once; one more is answered 503 (with
  Retry-After) and closed at once, so idle connections cannot use up the process's file
  descriptors (one warning when the cap is reached, one line when connections are taken
  again);
* a connection is closed when it has not sent a request's headers `header_timeout` seconds
  after it opened or after its last answer (aiohttp's keep-alive timer, which runs from the
  moment a connection opens);
* a request whose body and answer take longer than `request_timeout` seconds is answered
  408 and its connection closed;
* a request HTTP cannot parse (aiohttp answers it 400) and an upload the client cuts off
  halfway are each one warning line, not aiohttp's ERROR with a traceback (handlers are not cancelled when a client leaves: a delivery being stored
  finishes);
* every answer — 404s, 405s, `/healthz` and `/metrics` included — carries the security
  headers; a route that sets its own (the archive's stricter policy) keeps them.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import socket
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.typedefs import Handler

from bot.settings_sections import HttpSettings
from digest.errors import WireError

log = logging.getLogger("wire.http")

# For answers that are not the archive's pages: nothing may load, frame or be sniffed.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
BUSY_RETRY_AFTER = 5  # seconds, in the 503 of a connection over the cap
_BUSY_TEXT = b"too many connections: try again later\n"
_BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\n"
    b"Content-Type: text/plain; charset=utf-8\r\n"
    + f"Retry-After: {BUSY_RETRY_AFTER}\r\n".encode()
    + b"".join(f"{name}: {value}\r\n".encode() for name, value in SECURITY_HEADERS.items())
    + f"Connection: close\r\nContent-Length: {len(_BUSY_TEXT)}\r\n\r\n".encode()
    + _BUSY_TEXT
)


class ListenError(WireError):
    """The web server cannot listen on `[http] host`:`port`; the message says which setting
    to change."""


def web_application(http: HttpSettings) -> web.Application:
    """An application whose every answer carries the security headers and whose handlers
    run under `http.request_timeout`."""
    app = web.Application(middlewares=[_guard(http.request_timeout)])
    app.on_response_prepare.append(_secure)
    return app


async def serve(app: web.Application, http: HttpSettings) -> web.AppRunner:
    """Serve `app` on `http.host`:`http.port` with the limits of `[http]`; the runner is
    listening when this returns (`ListenError` if it cannot listen there)."""
    runner = web.AppRunner(
        app,
        access_log=None,
        logger=_ParseErrors(logging.getLogger("aiohttp.server"), {}),
        keepalive_timeout=http.header_timeout,
        shutdown_timeout=http.request_timeout,
    )
    await runner.setup()
    try:
        await CappedSite(runner, http.host, http.port, max_connections=http.max_connections).start()
    except OSError as error:
        await runner.cleanup()
        raise ListenError(cannot_listen(http.host, http.port, error)) from error
    return runner


def cannot_listen(host: str, port: int, error: OSError) -> str:
    """One sentence on why nothing can listen on `host`:`port`, naming the setting to change."""
    if error.errno == errno.EADDRINUSE:
        free = _free_port(host)
        example = f" (e.g. WIRE_HTTP__PORT={free})" if free else ""
        return f"port {port} on {host} is already in use; set [http] port to a free one{example}"
    if error.errno == errno.EACCES:
        return (
            f"this user may not listen on port {port} on {host} (ports below 1024 need "
            "privileges); set [http] port (WIRE_HTTP__PORT) to 1024 or above"
        )
    if error.errno == errno.EADDRNOTAVAIL or isinstance(error, socket.gaierror):
        return (
            f"cannot listen on {host}: not an address of this machine; set [http] host "
            "(WIRE_HTTP__HOST) to one of its addresses, e.g. 127.0.0.1 or 0.0.0.0"
        )
    why = error.strerror or str(error)
    return f"cannot listen on {host}:{port} ({why}); check [http] host and port"


def _free_port(host: str) -> int | None:
    """A port nothing listens on at `host` just now (the system's pick), or None."""
    try:
        with socket.create_server((host, 0)) as probe:
            port: int = probe.getsockname()[1]
            return port
    except OSError:
        return None


class _ParseErrors(logging.LoggerAdapter[logging.Logger]):
    """aiohttp's server logger, less its traceback for a request it could not parse (a
    control byte in a header, two Content-Types, a request line over 8,190 bytes): aiohttp
    answers those 400 itself, and a stranger's malformed bytes are one warning line."""

    def exception(self, msg: object, *args: object, exc_info: Any = True, **kwargs: Any) -> None:
        if isinstance(exc_info, HttpProcessingError):
            where = args[0] if args else "?"
            why = " ".join(str(exc_info).split())  # aiohttp's own text spans lines
            why = why if len(why) <= 200 else why[:199] + "…"
            log.warning("refused a request from %s that HTTP cannot parse: %s", where, why)
            return
        super().exception(msg, *args, exc_info=exc_info, **kwargs)


async def _secure(_request: web.BaseRequest, response: web.StreamResponse) -> None:
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)


def _guard(timeout: float) -> Any:
    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        """The handler's answer within `timeout` seconds (else 408), and an upload cut off
        halfway as one warning (else aiohttp logs an ERROR with a traceback)."""
        try:
            async with asyncio.timeout(timeout) as deadline:
                return await handler(request)
        except TimeoutError:
            if not deadline.expired():
                raise  # the handler's own timeout, not the request's
            log.warning(
                "%s %s from %s: no answer within %g s; closed",
                request.method,
                request.path,
                request.remote,
                timeout,
            )
            # answered and closed at once: aiohttp would otherwise linger, reading the slow
            # body for up to ten more seconds
            response = _closing(408, "request timeout: the body or the answer took too long")
            with contextlib.suppress(ConnectionError):  # the client left meanwhile
                await response.prepare(request)
                await response.write_eof()
            if request.transport is not None:
                request.transport.close()
            return response
        except (ConnectionResetError, web.RequestPayloadError) as error:
            if isinstance(error, ConnectionResetError) and not _client_left(request):
                raise  # a connection of ours (a database's, an API's) failed
            log.warning(
                "%s %s from %s: the upload was cut off (%s)",
                request.method,
                request.path,
                request.remote,
                error,
            )
            return _closing(400, "the request body was cut off")

    return guard


def _client_left(request: web.Request) -> bool:
    transport = request.transport
    return transport is None or transport.is_closing()


def _closing(status: int, text: str) -> web.Response:
    response = web.json_response({"status": text}, status=status)
    response.force_close()
    return response


class CappedSite(web.TCPSite):
    """A TCP site that keeps at most `max_connections` connections open: one more is
    answered 503 and closed before a byte of its request is read."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, *, max_connections: int):
        super().__init__(runner, host, port)
        self.max_connections = max_connections
        self.open = 0  # connections being served
        self.refused = 0  # connections refused since the cap was last reached

    async def start(self) -> None:
        """Listen, with each connection counted (see the class docstring)."""
        await web.BaseSite.start(self)  # registers the site with the runner
        server = self._runner.server
        assert server is not None
        self._server = await asyncio.get_running_loop().create_server(
            lambda: _Counted(self, server), self._host, self._port, backlog=self._backlog
        )
        self._bound_port = self._server.sockets[0].getsockname()[1]

    def admit(self) -> bool:
        """Count a new connection in if there is room; False refuses it."""
        if self.open >= self.max_connections:
            if self.refused == 0:
                log.warning(
                    "%d connections open, [http] max_connections: refusing new ones",
                    self.open,
                )
            self.refused += 1
            return False
        if self.refused:
            log.info("taking connections again; %d were refused meanwhile", self.refused)
            self.refused = 0
        self.open += 1
        return True

    def release(self) -> None:
        """A counted connection closed."""
        self.open -= 1


class _Counted(asyncio.Protocol):
    """One connection: handed to aiohttp's own protocol if the site admits it, otherwise
    answered 503 and closed."""

    def __init__(self, site: CappedSite, server: web.Server) -> None:
        self._site = site
        self._server = server
        self._inner: asyncio.Protocol | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if not self._site.admit():
            assert isinstance(transport, asyncio.Transport)
            transport.write(_BUSY)
            transport.close()
            return
        self._inner = self._server()
        self._inner.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._inner is not None:
            self._site.release()
            self._inner.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._inner is not None:
            self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received() if self._inner is not None else None

    def pause_writing(self) -> None:
        if self._inner is not None:
            self._inner.pause_writing()

    def resume_writing(self) -> None:
        if self._inner is not None:
            self._inner.resume_writing()
