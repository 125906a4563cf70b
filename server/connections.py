"""The HTTP server's connections: uvicorn's HTTP/1.1 protocol with each answer written at once
(`HttpProtocol`), a bound on open connections and on the time and bytes a request's headers may take
(`ConnectionGuard`), and what keeps a flood of connections from flooding the log or running out of
descriptors (`Throttle`, `raise_descriptor_limit`).

A connection that is not working on a request (just opened, between requests, or partway through its
headers) is idle; one idle for longer than the header timeout (after an answer: the keep-alive time plus
the header timeout) is closed, as is one whose request body pauses that long or takes over
MAX_BODY_SECONDS, and at the cap on open connections the one idle the longest gives way to
a new one. Only when every open connection is working on a request is a new one answered 503 and closed.
So a client that opens connections and sends nothing (or headers without their end) holds no descriptor
for long and never shuts out /healthz. uvicorn's own limit_concurrency is not used: it counts idle
connections as well, and answers 503 only once a request has come in on a connection it accepted.
"""
from __future__ import annotations

import asyncio
import json
import logging
import os
import resource
import threading
import time
from collections import OrderedDict

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = logging.getLogger("revenue.server")

# The status line and headers of one request, at most: beyond, 431 and the connection is closed (httptools
# sets no bound of its own).
MAX_HEADER_BYTES = 64 * 1024
# The longest a request's body may take to come in; and no pause in it longer than the header timeout.
MAX_BODY_SECONDS = 60.0
# One log line a minute at most about connections refused, closed or given way (a flood would otherwise
# write one per connection).
LOG_EVERY_SECONDS = 60.0


def raise_descriptor_limit() -> int:
    """Raise this process's soft limit on open descriptors to its hard limit (each connection takes one);
    the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


class Throttle(logging.Filter):
    """Lets through one record a minute of each kind that starts with one of `prefixes` (asyncio's
    "socket.accept() out of system resource" comes once per attempt while descriptors run out, a
    traceback each), noting how many were held back; other records pass."""

    def __init__(self, prefixes: tuple[str, ...], every: float = LOG_EVERY_SECONDS):
        super().__init__()
        self.prefixes, self.every = prefixes, every
        self._last: dict[str, float] = {}
        self._held: dict[str, int] = {}
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        message = str(record.msg)
        kind = next((p for p in self.prefixes if message.startswith(p)), None)
        if kind is None:
            return True
        now = time.monotonic()
        with self._lock:
            if now - self._last.get(kind, -self.every) < self.every:
                self._held[kind] = self._held.get(kind, 0) + 1
                return False
            self._last[kind] = now
            held = self._held.pop(kind, 0)
        if held:
            record.msg = f"{message} ({held} more like it in the last minute, not logged)"
        return True


THROTTLED = {"asyncio": ("socket.accept() out of system resource", "Unknown child process pid"),
             "uvicorn.error": ("Invalid HTTP request received", "Exceeded concurrency limit")}


def throttle_logs() -> None:
    """Throttle (once) the records that a flood of connections repeats, on asyncio's and uvicorn's loggers."""
    for name, prefixes in THROTTLED.items():
        logger = logging.getLogger(name)
        if not any(isinstance(f, Throttle) for f in logger.filters):
            logger.addFilter(Throttle(prefixes))


class ConnectionGuard:
    """The HTTP connections of one server (used on its event loop only): at most `most` open, each idle
    one closed after `header_timeout` seconds (`keep_alive` more after an answer)."""

    def __init__(self, most: int, header_timeout: float, keep_alive: float):
        self.most, self.header_timeout, self.keep_alive = most, header_timeout, keep_alive
        self.open = 0
        self.idle: OrderedDict[HttpProtocol, None] = OrderedDict()    # the longest idle first
        self.counts = {"refused": 0, "gave_way": 0, "timed_out": 0, "headers_too_large": 0, "body_timed_out": 0}
        self._logged = -LOG_EVERY_SECONDS
        self._flush: asyncio.TimerHandle | None = None

    def note(self, what: str) -> None:
        """Count a connection refused or closed; log the counts at most once a minute."""
        self.counts[what] += 1
        now = time.monotonic()
        if now - self._logged >= LOG_EVERY_SECONDS:
            self._write(now)
        elif self._flush is None:
            self._flush = asyncio.get_running_loop().call_later(self._logged + LOG_EVERY_SECONDS - now, self._write)

    def _write(self, now: float | None = None) -> None:
        self._flush = None
        self._logged = time.monotonic() if now is None else now
        counts = {k: v for k, v in self.counts.items() if v}
        if counts:
            log.info(json.dumps({"event": "http_connections", "pid": os.getpid(), "open": self.open,
                                 "most": self.most, **counts}))
        for key in self.counts:
            self.counts[key] = 0


class HttpProtocol(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 protocol (httptools), each response's headers and body written at once, its
    connections under the server's ConnectionGuard (`guard`, set by `guarded`)."""

    guard: ConnectionGuard | None = None
    _timer: asyncio.TimerHandle | None = None
    _header_bytes = 0
    _counted = False       # in guard.open
    _body_timer: asyncio.TimerHandle | None = None
    _body_started = 0.0

    @classmethod
    def guarded(cls, guard: ConnectionGuard) -> type["HttpProtocol"]:
        """The protocol class of one server."""
        return type(cls.__name__, (cls,), {"guard": guard})

    def connection_made(self, transport: asyncio.Transport) -> None:
        super().connection_made(_OneWrite(transport))
        guard = self.guard
        if guard is None:
            return
        guard.open += 1
        self._counted = True
        self._idle(guard.header_timeout)
        if guard.open > guard.most:
            oldest = next((c for c in guard.idle if c is not self), None)
            if oldest is not None:
                oldest._drop()
                guard.note("gave_way")
            else:
                body = b'{"code":14,"message":"the server has too many connections; retry later","details":[]}'
                transport.write(b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
                                b"content-length: %d\r\nconnection: close\r\nretry-after: 1\r\n\r\n%s"
                                % (len(body), body))
                self._drop()
                guard.note("refused")

    def connection_lost(self, exc: Exception | None) -> None:
        self._uncount()
        super().connection_lost(exc)

    def _uncount(self) -> None:
        self._end_body()
        if self._counted:
            self._counted = False
            self._busy()
            self.guard.open -= 1

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._timer is not None and self.guard is not None:     # still reading the headers
            self._header_bytes += len(data)
            if self._header_bytes > MAX_HEADER_BYTES and self.transport is not None:
                self.transport.write(b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n"
                                     b"connection: close\r\n\r\n")
                self._drop()
                self.guard.note("headers_too_large")

    def on_headers_complete(self) -> None:
        self._busy()
        super().on_headers_complete()
        if self._counted:       # its body (if any) must keep coming: on_body re-arms, the end disarms
            self._body_started = self.loop.time()
            self._body_timer = self.loop.call_later(self.guard.header_timeout, self._body_late)

    def on_body(self, body: bytes) -> None:
        super().on_body(body)
        if self._body_timer is not None:
            self._body_timer.cancel()
            left = self._body_started + MAX_BODY_SECONDS - self.loop.time()
            self._body_timer = self.loop.call_later(max(0.0, min(self.guard.header_timeout, left)), self._body_late)

    def on_message_complete(self) -> None:
        self._end_body()
        super().on_message_complete()

    def _end_body(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None

    def _body_late(self) -> None:
        """The body stalled (header timeout without a byte) or took over MAX_BODY_SECONDS: the call sees its
        client gone."""
        self._body_timer = None
        self.guard.note("body_timed_out")
        self._drop()

    def on_response_complete(self) -> None:
        pipelined = bool(self.pipeline)      # the next request starts now
        super().on_response_complete()
        if self._counted and not pipelined and not self.transport.is_closing():
            self._idle(self.guard.keep_alive + self.guard.header_timeout)

    def _idle(self, seconds: float) -> None:
        self._busy()
        self._header_bytes = 0
        self.guard.idle[self] = None
        self._timer = self.loop.call_later(seconds, self._timed_out)

    def _busy(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
            self.guard.idle.pop(self, None)

    def _timed_out(self) -> None:
        self._timer = None
        self.guard.idle.pop(self, None)
        self.guard.note("timed_out")
        self._drop()

    def _drop(self) -> None:
        self._uncount()         # its descriptor is closed on the loop's next turn
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()


class _OneWrite:
    """A connection's transport as uvicorn sees it, holding back the status line and headers of a
    response until its body is written, so that an answer leaves in one send() rather than two. Each
    send() is a system call on the event-loop thread that lets a compute thread take the GIL, which the
    loop must then wait to win back (and one more segment for the client to read). Headers with no
    body written in the same turn of the loop (a stream, a file) leave on the loop's next turn."""

    __slots__ = ("_transport", "_loop", "_held", "_later")

    def __init__(self, transport: asyncio.Transport):
        self._transport, self._loop = transport, asyncio.get_running_loop()
        self._held: bytes | None = None
        self._later: asyncio.Handle | None = None

    def write(self, data) -> None:
        if self._held is not None:
            data = self._held + data
            self._held = None
            self._later.cancel()
        elif data[:5] == b"HTTP/" and data[-4:] == b"\r\n\r\n":
            self._held = bytes(data)
            self._later = self._loop.call_soon(self._release)
            return
        self._transport.write(data)

    def _release(self) -> None:
        if self._held is not None:
            held, self._held = self._held, None
            self._later.cancel()
            self._transport.write(held)

    def close(self) -> None:
        self._release()
        self._transport.close()

    def abort(self) -> None:
        self._held = None
        self._transport.abort()

    def __getattr__(self, name: str):
        return getattr(self._transport, name)
