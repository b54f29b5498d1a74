"""HTTP connections as uvicorn serves them, with bounds on waiting for a request and its headers.

uvicorn closes a kept-alive connection that sends nothing for `timeout_keep_alive` seconds after
a response, but starts no clock when a connection opens: one that never sends a request stays
open for ever (300 idle connections were all still open 8 s later), and enough of them exhaust
the server's file descriptors. Here the same clock starts when the connection opens, and, as
between requests, the first bytes received stop it. Nor does uvicorn bound the time a request's
headers take: 20 connections sending theirs a byte a second were open after 90 s. Here a request
line and headers begun must be whole within HEADERS seconds, as servers facing the internet
bound them (nginx's client_header_timeout), else the connection is answered 408 and closed.

A request h11 cannot read (not HTTP/1.1, or a request line and headers over its 16 KiB, such as a
URL of 100 KB) is answered 400 with the JSON error every other refusal has, not uvicorn's text.
"""

from __future__ import annotations

import asyncio
import json

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADERS = 10.0  # seconds from a request's first byte to the end of its headers


class GuardedConnection(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, closing a connection that sends nothing in its first
    `timeout_keep_alive` seconds or takes over HEADERS seconds to send a request's headers."""

    headers_task: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive,
                                                            self.timeout_keep_alive_handler)

    def data_received(self, data: bytes) -> None:
        if self.headers_task is None and self._reading_headers():
            self.headers_task = self.loop.call_later(HEADERS, self._headers_too_slow)
        super().data_received(data)
        if self.headers_task is not None and not self._reading_headers():
            self.headers_task.cancel()
            self.headers_task = None

    def connection_lost(self, exc: Exception | None) -> None:
        if self.headers_task is not None:
            self.headers_task.cancel()
            self.headers_task = None
        super().connection_lost(exc)

    def _reading_headers(self) -> bool:
        """Whether the client is between requests or inside one's request line and headers."""
        return self.conn.their_state is h11.IDLE

    def _headers_too_slow(self) -> None:
        self.headers_task = None
        if self._reading_headers() and not self.transport.is_closing():
            self._refuse(408, f"the request's headers took over {HEADERS:g} s")

    def send_400_response(self, msg: str) -> None:
        self._refuse(400, "not a valid HTTP/1.1 request (or its request line and headers are over"
                          " 16 KiB)")

    def _refuse(self, status: int, line: str) -> None:
        """Answer `status` with the service's JSON error and close, whatever h11's state."""
        body = json.dumps({"error": line}).encode()
        reason = {400: "Bad Request", 408: "Request Timeout"}[status]
        self.transport.write(f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
                             f"content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode() + body)
        self.transport.close()
