"""HTTP connections as uvicorn serves them, with bounds on waiting for a request and its headers.

uvicorn closes a kept-alive connection that sends nothing for `timeout_keep_alive` seconds after
a response, but starts no clock when a connection opens: one that never sends a request stays
open for ever (300 idle connections were all still open 8 s later), and enough of them exhaust
the server's file descriptors. Here the same clock starts when the connection opens, and, as
between requests, the first bytes received stop it. Nor does uvicorn bound the time a request's
headers take: 20 connections sending theirs a byte a second were open after 90 s. Here a request
line and headers begun must be whole within HEADERS seconds, as servers facing the internet
bound them (nginx's client_header_timeout), else the connection is answered 408 and closed.

A request's body, once its headers are in, must be whole within BODY seconds too (a body that
never came, after `Content-Length: 1000` and one byte, held its connection past 240 s; 500 of them,
508 file descriptors): else 408 and closed.

A request h11 cannot read (not HTTP/1.1, or a request line and headers over its 16 KiB, such as a
URL of 100 KB) is answered 400 with the JSON error every other refusal has, not uvicorn's text.
h11 measures its 16 KiB only while a request is incomplete, so a whole request that came in one
write was read at any size (a 20 KB header answered 200): here the request line and headers are
counted as they arrive, however they are cut.
"""

from __future__ import annotations

import asyncio
import json

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADERS = 10.0  # seconds from a request's first byte to the end of its headers
BODY = 10.0  # seconds from the end of a request's headers to the end of its body
HEADERS_BYTES = 16 * 1024  # a request line and headers at most (uvicorn's h11 limit)


class GuardedConnection(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, closing a connection that sends nothing in its first
    `timeout_keep_alive` seconds, takes over HEADERS seconds to send a request's headers or BODY
    seconds to send its body, or sends headers over HEADERS_BYTES."""

    headers_task: asyncio.TimerHandle | None = None
    body_task: asyncio.TimerHandle | None = None
    header_bytes = 0  # of the request line and headers being read

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive,
                                                            self.timeout_keep_alive_handler)

    def data_received(self, data: bytes) -> None:
        if self._reading_headers():
            if self.headers_task is None:
                self.headers_task = self.loop.call_later(HEADERS, self._headers_too_slow)
            end = data.find(b"\r\n\r\n")
            self.header_bytes += end + 4 if end >= 0 else len(data)
            if self.header_bytes > HEADERS_BYTES:
                self.send_400_response("")
                return
        super().data_received(data)
        if not self._reading_headers():
            self.header_bytes = 0
            self._stop("headers_task")
            if self.body_task is None and self._reading_body():
                self.body_task = self.loop.call_later(BODY, self._body_too_slow)
        if not self._reading_body():
            self._stop("body_task")

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop("headers_task")
        self._stop("body_task")
        super().connection_lost(exc)

    def _stop(self, timer: str) -> None:
        handle = getattr(self, timer)
        if handle is not None:
            handle.cancel()
            setattr(self, timer, None)

    def _reading_headers(self) -> bool:
        """Whether the client is between requests or inside one's request line and headers."""
        return self.conn.their_state is h11.IDLE

    def _reading_body(self) -> bool:
        return self.conn.their_state is h11.SEND_BODY

    def _body_too_slow(self) -> None:
        """408 if no answer has begun (the application waits for the body), else only closed."""
        self.body_task = None
        if not self._reading_body() or self.transport.is_closing():
            return
        if self.conn.our_state is h11.SEND_RESPONSE:
            self._refuse(408, f"the request's body took over {BODY:g} s")
        else:
            self.transport.close()

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
