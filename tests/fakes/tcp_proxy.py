"""A loopback TCP forwarder whose connections a test can break, at the edge of the network.

    async with TcpProxy("127.0.0.1", 5432) as proxy:   # clients connect to proxy.port
        proxy.cut()                  # reset every open connection (RST), keep listening
        proxy.mode = "reset"         # new connections: accepted, then reset at once
        proxy.mode = "silent"        # new connections: accepted, read, never answered
        proxy.mode = "lose_answers"  # requests reach the server; its answer is dropped and
                                     # the client's connection reset (did it land? it did)
        await proxy.refuse()         # stop listening: connection refused
        await proxy.listen()         # listen again on the same port, forwarding
    proxy.faults                     # how many connections it broke, for the test's report

Only bytes pass through; nothing of the protocol (PostgreSQL, HTTP, WebSocket) is known.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from typing import Literal

Mode = Literal["forward", "reset", "silent", "lose_answers"]


def _reset(writer: asyncio.StreamWriter) -> None:
    """Close with RST instead of FIN: the peer reads ECONNRESET."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


class TcpProxy:
    """Forwards 127.0.0.1:`port` to `target_host`:`target_port` (see the module docstring)."""

    def __init__(self, target_host: str, target_port: int, *, port: int = 0) -> None:
        self.target = (target_host, target_port)
        self.port = port
        self.mode: Mode = "forward"
        self.faults = 0
        self.accepted = 0
        self._server: asyncio.Server | None = None
        # client side → the upstream side (None for a silent connection)
        self._open: dict[asyncio.StreamWriter, asyncio.StreamWriter | None] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def url_host(self) -> str:
        """host:port clients connect to."""
        return f"127.0.0.1:{self.port}"

    async def listen(self) -> None:
        """Accept connections on `port` (a free one the first time)."""
        if self._server is None:
            self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)
            self.port = self._server.sockets[0].getsockname()[1]

    async def refuse(self) -> None:
        """Stop listening and reset every open connection: new ones are refused."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        self.cut()

    def cut(self) -> int:
        """Reset every open connection now; returns how many."""
        cut = 0
        for writer, upstream in list(self._open.items()):
            _reset(writer)
            if upstream is not None:
                _reset(upstream)
            cut += 1
        self._open.clear()
        self.faults += cut
        return cut

    async def close(self) -> None:
        """Stop listening, drop every connection and the tasks copying bytes (not counted
        as faults: the test is over)."""
        faults = self.faults
        await self.refuse()
        self.faults = faults
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def __aenter__(self) -> TcpProxy:
        await self.listen()
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        if self.mode == "reset":
            self.faults += 1
            _reset(writer)
            return
        if self.mode == "silent":
            self.faults += 1
            self._open[writer] = None
            with contextlib.suppress(Exception):
                while await reader.read(65536):
                    pass  # swallow the request; the answer never comes
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            _reset(writer)
            return
        self._open[writer] = up_writer
        pipes = [
            asyncio.create_task(self._pipe(reader, up_writer)),
            asyncio.create_task(self._answers(up_reader, writer)),
        ]
        self._tasks.update(pipes)
        for pipe in pipes:
            pipe.add_done_callback(self._tasks.discard)
        await asyncio.wait(pipes, return_when=asyncio.FIRST_COMPLETED)
        for pipe in pipes:
            pipe.cancel()
        self._open.pop(writer, None)
        for end in (writer, up_writer):
            end.transport.abort()

    async def _answers(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """The server's bytes to the client; in "lose_answers" mode the first answer is
        dropped and the client reset instead."""
        with contextlib.suppress(Exception):
            while data := await reader.read(65536):
                if self.mode == "lose_answers":
                    self.faults += 1
                    _reset(writer)
                    return
                writer.write(data)
                await writer.drain()

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
