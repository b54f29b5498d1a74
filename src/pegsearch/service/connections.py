"""HTTP connections as uvicorn serves them, with a limit on waiting for the first request.

uvicorn closes a kept-alive connection that sends nothing for `timeout_keep_alive` seconds after
a response, but starts no clock when a connection opens: one that never sends a request stays
open for ever (300 idle connections were all still open 8 s later), and enough of them exhaust
the server's file descriptors. Here the same clock starts when the connection opens, and, as
between requests, the first bytes received stop it.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.h11_impl import H11Protocol


class FirstRequestTimeout(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, closing a connection that sends nothing in its first
    `timeout_keep_alive` seconds."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive,
                                                            self.timeout_keep_alive_handler)
