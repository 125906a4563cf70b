"""Assembly of the server: RouteService over gRPC (the sync grpc.server, with health, reflection,
bearer-token auth and TLS) and over HTTP/JSON (server/http.py, served by uvicorn on an event loop in a
thread of its own), logging, and graceful shutdown."""
from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import signal
import socket
import sys
import threading
import time
from concurrent import futures
from dataclasses import dataclass, field, replace

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from .auth import BearerAuth
from .calls import exception_line
from .connections import ConnectionGuard, HttpProtocol, raise_descriptor_limit, throttle_logs
from .limits import Limits
from .service import SERVICE_NAME, RouteService
from .warmup import warm_up

log = logging.getLogger("revenue.server")

# Calls beyond workers + queue, for those that need no compute slot (ListTitles, health, reflection).
SPARE_THREADS = 8
# The kernel gives each connection to one process by a hash: of 8 connections to 2 processes, 6 or more
# go to one 29% of the time (all 8: 0.8%), and stay there as long as they live.
CONNECTION_AGE_SECONDS = 5.0
PING_INTERVAL_MS = 10_000
# Health says NOT_SERVING while every compute turn is held by a call this long past the compute cap.
STUCK_SECONDS = 5.0
STUCK_POLL_SECONDS = 0.5
# After the grace and the calls' cancel, how long a stop waits for threads still computing before it
# leaves without them.
ABANDON_SECONDS = 1.0
# Arrays of at least this many bytes get pages of their own from the kernel, given back when freed: with
# glibc's default (a threshold that rises to 32 MB after the first large free) the large arrays of
# distinct large boards fragment the heap, and the process's memory climbs board after board.
MMAP_THRESHOLD_BYTES = 1 << 20


@dataclass
class Config:
    host: str = "127.0.0.1"
    port: int = 50051                  # 0 = any free port
    workers: int = field(default_factory=lambda: os.cpu_count() or 2)
    max_queue: int = 32
    max_compute_ms: int = 10_000
    max_memory_mb: float = 256          # routes one search stores (revenue.optimizer.bounded)
    max_message_bytes: int = 4 * 1024 * 1024
    tls_cert: str | None = None        # PEM files; both or neither
    tls_key: str | None = None
    auth_token: str | None = None
    grace_seconds: float = 5.0
    processes: int | None = None       # server processes sharing the port; None: default_processes()
    # gRPC connections older than this are asked to reconnect (GOAWAY; their calls finish first), so that
    # the kernel deals them out to the processes again; None: CONNECTION_AGE_SECONDS with more than one
    # process, else never; 0: never
    max_connection_age_s: float | None = None
    limits: Limits = field(default_factory=Limits)
    http_port: int | None = None       # HTTP/JSON and the page on this port (0 = any free port); None = none
    cors_origins: tuple[str, ...] = () # origins whose pages may call the HTTP API (CORS)
    # Connections (server/connections.py, docs/service.md): HTTP connections open at once; gRPC's (None:
    # half the process's descriptor limit); the seconds a request's headers may take (gRPC: its TLS
    # handshake); the seconds an HTTP connection is kept open for another request; the seconds a gRPC
    # connection without calls is kept; gRPC calls at once on one connection.
    max_connections: int = 1024
    max_grpc_connections: int | None = None
    header_timeout_s: float = 5.0
    keep_alive_s: float = 5.0
    idle_connection_s: float = 300.0
    max_streams: int = 100


def grpc_options(config: Config, descriptors: int | None = None) -> list[tuple[str, int]]:
    """The gRPC server's channel arguments for `config` (`descriptors`: the process's limit on open
    descriptors). gRPC closes a connection beyond its cap at once, and never one that stays silent
    before HTTP/2's preface (no option of its own times that out): a low cap would let a few silent
    connections shut gRPC out, none would let them take every descriptor, HTTP's included. Half the
    limit keeps the other half for HTTP and the rest of the process."""
    shared = (config.processes or 1) > 1
    options = [("grpc.max_receive_message_length", config.max_message_bytes),
               ("grpc.max_send_message_length", 4 * config.max_message_bytes),
               ("grpc.so_reuseport", 1 if shared else 0),
               ("grpc.max_concurrent_streams", config.max_streams),
               ("grpc.server_handshake_timeout_ms", max(1, round(config.header_timeout_s * 1000))),
               ("grpc.max_connection_idle_ms", max(1, round(config.idle_connection_s * 1000))),
               # keep-alive pings: at most one each 10 s, and none on a connection without calls (a
               # client that pings more is sent GOAWAY)
               ("grpc.http2.min_ping_interval_without_data_ms", PING_INTERVAL_MS),
               ("grpc.keepalive_permit_without_calls", 0)]
    most = config.max_grpc_connections or (descriptors or 0) // 2
    if most > 0:
        options.append(("grpc.max_allowed_incoming_connections", most))
    age = config.max_connection_age_s
    if age is None:
        age = CONNECTION_AGE_SECONDS if shared else 0
    if age > 0:     # (gRPC adds +-10% jitter, so that the clients' connections do not all end at once)
        options.append(("grpc.max_connection_age_ms", max(1, round(age * 1000))))
    return options


class RouteServer:
    """A started server: `port`, `wait_ready()`, `stop()`.

    gRPC runs on the sync grpc.server: each call is handled on a thread of its pool, which reads and
    checks the request, waits for a turn (the service's Admission) and searches on that same thread (a
    stream's search runs on one of the service's compute threads, its generator handing on the
    improvements); gRPC's C core does the I/O without the interpreter's lock. HTTP, when on, runs on
    uvicorn in an event loop of its own thread, its searches on the compute threads (the kernels
    release the GIL). The methods here are for ordinary threads."""

    def __init__(self, config: Config):
        self.config = config
        self.service = RouteService(config.workers, config.max_queue, config.max_compute_ms, config.limits,
                                    config.max_memory_mb)
        self._loop: asyncio.AbstractEventLoop | None = None    # HTTP's, when it is on
        self._ready = threading.Event()      # warmed up and SERVING
        self._settled = threading.Event()    # warm-up over, whether it worked or not
        self._terminated = threading.Event()
        self._stopping: threading.Event | None = None
        self._stuck = False                   # every compute turn held past the compute cap (_watch_stuck)
        self.http = None                      # the uvicorn server, with http_port, when HTTP is on
        self.http_port: int | None = None
        self._stop_lock = threading.Lock()
        self.warm_error: BaseException | None = None
        self.descriptors = raise_descriptor_limit()
        throttle_logs()
        try:
            self._build()
            if config.http_port is not None:
                self._loop = asyncio.new_event_loop()
                threading.Thread(target=self._run_loop, name="revenue-http", daemon=True).start()
                self._build_http()
        except BaseException:
            if self._loop is not None:
                self._loop.call_soon_threadsafe(self._loop.stop)
            if getattr(self, "server", None) is not None:
                self.server.stop(None)
                self._pool.shutdown(wait=False)
            self.service.admission.shutdown()
            raise

    def _run_loop(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()
        self._loop.close()

    def _call(self, coroutine, timeout: float | None = 60):
        """Run `coroutine` on HTTP's event loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    def _build(self) -> None:
        config = self.config
        options = grpc_options(config, self.descriptors)
        interceptors = [BearerAuth(config.auth_token)] if config.auth_token else []
        # A thread for every call gRPC lets in: each admitted call waits for its turn on its own thread.
        # Beyond the admission queue and a few spare calls (ListTitles, health, reflection), gRPC itself
        # refuses calls (RESOURCE_EXHAUSTED) instead of queueing them.
        calls = config.workers + config.max_queue + SPARE_THREADS
        self._pool = futures.ThreadPoolExecutor(calls, thread_name_prefix="revenue-grpc")
        self.server = grpc.server(self._pool, handlers=[self.service.handler()], interceptors=interceptors,
                                  options=options, maximum_concurrent_rpcs=calls)
        self.health = health.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        for name in ("", SERVICE_NAME):
            self.health.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
        reflection.enable_server_reflection(
            (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME),
            self.server)
        address = f"{config.host}:{config.port}"
        if config.tls_cert or config.tls_key:
            if not (config.tls_cert and config.tls_key):
                raise ValueError("TLS needs both a certificate and a key")
            with open(config.tls_key, "rb") as k, open(config.tls_cert, "rb") as c:
                credentials = grpc.ssl_server_credentials([(k.read(), c.read())])
            self.port = self.server.add_secure_port(address, credentials)
        else:
            self.port = self.server.add_insecure_port(address)
        if not self.port:
            raise OSError(f"cannot listen on {address}")

    def _build_http(self) -> None:
        """uvicorn serving the HTTP API (server/http.py) on its own socket, on HTTP's event loop."""
        import uvicorn

        from .http import HttpApi

        config = self.config
        self.http_api = HttpApi(self.service, self._state, auth_token=config.auth_token,
                                cors_origins=tuple(config.cors_origins), max_message_bytes=config.max_message_bytes)
        host = config.host.strip("[]")
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        # IPPROTO_TCP named: asyncio sets TCP_NODELAY on the accepted connections only then (with proto 0
        # an answer's body waits for the client's delayed ACK of its headers, some 40 ms per call).
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if (config.processes or 1) > 1:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        try:
            sock.bind((host, config.http_port))
        except OSError as exc:
            sock.close()
            raise OSError(f"cannot listen on {config.host}:{config.http_port} (HTTP): {exc.strerror}") from None
        sock.listen(2048)
        sock.setblocking(False)
        self._http_socket = sock
        self.http_port = sock.getsockname()[1]
        self.connections = ConnectionGuard(config.max_connections, config.header_timeout_s, config.keep_alive_s)
        self.http = uvicorn.Server(uvicorn.Config(
            self.http_api.app, http=HttpProtocol.guarded(self.connections), log_config=None, access_log=False,
            lifespan="off", ws="none", server_header=False, timeout_keep_alive=config.keep_alive_s,
            timeout_graceful_shutdown=max(config.grace_seconds, 0.1), ssl_certfile=config.tls_cert,
            ssl_keyfile=config.tls_key))

    def _state(self) -> str:
        """SERVING once warmed up and until shutdown starts, while some compute turn is free or held by a
        call within the compute cap (what health checking and /healthz say)."""
        return "SERVING" if self._ready.is_set() and self._stopping is None and not self._stuck else "NOT_SERVING"

    def _watch_stuck(self) -> None:
        """Health NOT_SERVING while every compute turn is held by a call past the compute cap and
        STUCK_SECONDS (it cannot take work), SERVING again once one ends."""
        seconds = self.config.max_compute_ms / 1000 + STUCK_SECONDS
        while not self._terminated.wait(STUCK_POLL_SECONDS):
            stuck = self.service.admission.stuck(seconds)
            if stuck == self._stuck:
                continue
            self._stuck = stuck
            log.warning(json.dumps({"event": "stuck" if stuck else "unstuck", "pid": os.getpid(),
                                    "workers": self.config.workers}))
            if self._ready.is_set() and self._stopping is None:
                try:
                    for name in ("", SERVICE_NAME):
                        self.health.set(name, health_pb2.HealthCheckResponse.NOT_SERVING if stuck
                                        else health_pb2.HealthCheckResponse.SERVING)
                except RuntimeError:   # the server stopped meanwhile
                    pass

    def start(self) -> "RouteServer":
        self.server.start()
        if self.http is not None:
            self._call(self._start_http())
        threading.Thread(target=self._warm_up, name="revenue-warmup", daemon=True).start()
        threading.Thread(target=self._watch_stuck, name="revenue-stuck", daemon=True).start()
        log.info(json.dumps({"event": "listening", "pid": os.getpid(),
                             "address": f"{self.config.host}:{self.port}",
                             "tls": bool(self.config.tls_cert), "auth": bool(self.config.auth_token),
                             "workers": self.config.workers, "max_queue": self.config.max_queue,
                             "max_compute_ms": self.config.max_compute_ms,
                             "max_memory_mb": self.config.max_memory_mb,
                             "max_connections": self.config.max_connections, "descriptors": self.descriptors,
                             **({"http": f"{self.config.host}:{self.http_port}"} if self.http else {})}))
        return self

    async def _start_http(self) -> None:
        self._http_task = asyncio.ensure_future(self.http.serve(sockets=[self._http_socket]))
        while not self.http.started:
            if self._http_task.done():      # it failed to start: raise its error
                self._http_task.result()
                raise OSError("the HTTP server stopped while starting")
            await asyncio.sleep(0.01)

    def _warm_up(self) -> None:
        started = time.perf_counter()
        try:
            warm_up(self.service)
        except BaseException as exc:   # stays NOT_SERVING: a server that cannot solve must not take work
            self.warm_error = exc
            log.error("warm-up failed, health stays NOT_SERVING: %s", exception_line(exc), exc_info=exc)
            self._settled.set()
            return
        # Everything loaded so far (modules, title data, compiled kernels) lives as long as the server:
        # keep it out of the garbage collector's scans, which otherwise add pauses to calls.
        gc.freeze()
        if self._stopping is None:
            try:
                for name in ("", SERVICE_NAME):
                    self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
            except RuntimeError:   # the server stopped meanwhile
                pass
        self._ready.set()
        self._settled.set()
        log.info(json.dumps({"event": "serving", "pid": os.getpid(),
                             "warm_up_ms": round((time.perf_counter() - started) * 1000, 1)}))

    def wait_ready(self, timeout: float | None = None) -> bool:
        """True once SERVING; False if the warm-up failed (see warm_error) or `timeout` passed."""
        self._settled.wait(timeout)
        return self._ready.is_set()

    def stop(self, grace: float | None = None) -> threading.Event:
        """Stop accepting calls; in-flight calls get `grace` seconds, then are cancelled (which stops
        their searches). The event returned is set once the server has stopped."""
        grace = self.config.grace_seconds if grace is None else grace
        with self._stop_lock:
            if self._stopping is not None:
                return self._terminated
            self._stopping = threading.Event()
        log.info(json.dumps({"event": "stopping", "pid": os.getpid(), "grace_seconds": grace}))

        def stop() -> None:
            try:
                self.service.stopping.set()
                self.health.enter_graceful_shutdown()
                if self.http is not None:
                    self.http.config.timeout_graceful_shutdown = max(grace, 0.1)
                    self.http.should_exit = True
                # gRPC refuses new calls at once and cancels those still running after `grace` (their
                # callbacks set each call's cancel event, which stops its search or withdraws it).
                stopped = self.server.stop(grace)
                if self.http is not None:
                    self._call(self._stop_http(grace), timeout=None)
                stopped.wait()
            finally:
                self.service.admission.shutdown()
                self._pool.shutdown(wait=False)
                self._terminated.set()
                if self._loop is not None:
                    self._loop.call_soon_threadsafe(self._loop.stop)

        threading.Thread(target=stop, name="revenue-stop", daemon=True).start()
        return self._terminated

    async def _stop_http(self, grace: float) -> None:
        await asyncio.wait_for(asyncio.shield(self._http_task), grace + 5)
        await self._close_http()
        await _finish_tasks()

    async def _close_http(self) -> None:
        """After uvicorn's shutdown: let the calls it cancelled end (they stop their searches) and close
        what connections remain, before this loop stops; a connection left open would keep its client
        waiting."""
        tasks = list(self.http.server_state.tasks)
        if tasks:
            await asyncio.wait(tasks, timeout=2)
        for connection in list(self.http.server_state.connections):
            transport = getattr(connection, "transport", None)
            if transport is not None:
                transport.close()
        await asyncio.sleep(0.01)       # the transports' close callbacks

    def wait_for_termination(self, timeout: float | None = None) -> bool:
        """True if `timeout` passed before the server terminated (gRPC's convention)."""
        return not self._terminated.wait(timeout)


async def _finish_tasks(timeout: float = 2.0) -> None:
    """Let the HTTP calls that uvicorn's stop cancelled run to their end (each writes its log line), then
    close the asynchronous generators, so that no task is destroyed while pending when the loop stops."""
    loop = asyncio.get_running_loop()
    pending = [t for t in asyncio.all_tasks(loop) if t is not asyncio.current_task()]
    if pending:
        _, still = await asyncio.wait(pending, timeout=timeout)
        for task in still:
            task.cancel()
        if still:
            await asyncio.wait(still, timeout=timeout)
    await loop.shutdown_asyncgens()


class LogFormat(logging.Formatter):
    """A record at INFO (a call's or an event's) is its JSON line as it is; one of any other level starts
    with its level's name (`ERROR incident ...`), so that a fault stands out in the log."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        return text if record.levelno == logging.INFO else f"{record.levelname} {text}"


def configure_logging(level: int = logging.INFO) -> None:
    """One line per call on stderr, the JSON record as the line; a fault's line starts with ERROR."""
    logger = logging.getLogger("revenue.server")
    if not any(getattr(h, "_revenue", False) for h in logger.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(LogFormat("%(message)s"))
        handler._revenue = True
        logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False


MAX_DEFAULT_PROCESSES = 8


def default_processes(port: int) -> int:
    """One server process per core (at most MAX_DEFAULT_PROCESSES) on Linux, where the kernel spreads
    the connections to a shared port among them; one elsewhere, or on an ephemeral port (0)."""
    if not sys.platform.startswith("linux") or port == 0:
        return 1
    return max(1, min(MAX_DEFAULT_PROCESSES, len(os.sched_getaffinity(0))))


def _die_with_parent() -> None:
    """Have the kernel send SIGTERM to this forked process when its parent dies (Linux), so that a
    killed server leaves no process behind holding the port."""
    import ctypes

    PR_SET_PDEATHSIG = 1
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


def _fixed_mmap_threshold() -> None:
    """glibc's mmap threshold fixed at MMAP_THRESHOLD_BYTES (elsewhere nothing to do)."""
    import ctypes

    M_MMAP_THRESHOLD = -3
    try:
        ctypes.CDLL(None).mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
    except (OSError, AttributeError):
        pass


def serve(config: Config) -> None:
    """Run until SIGTERM or SIGINT, then shut down gracefully (a call still computing after the grace
    is abandoned: the process ends all the same). With more than one process, they share the port (the
    kernel spreads connections among them) because each call's Python work holds its process's GIL; the
    first process forwards signals to the others."""
    configure_logging()
    _fixed_mmap_threshold()
    # A log line per call, whose message is all it prints: in the server's own process, no caller frame,
    # thread or process names are looked up for each record (the logging HOWTO's "Optimization").
    logging._srcfile = None
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    # HTTP on any free port (0) would be a different port in each process: one process then.
    processes = config.processes or (1 if config.http_port == 0 else default_processes(config.port))
    if processes > 1 and config.http_port == 0:
        raise OSError("--processes needs a fixed --http-port (or --no-http)")
    config = replace(config, processes=processes)
    children = []
    if processes > 1:
        if not config.port:
            raise OSError("--processes needs a fixed --port")
        parent = os.getpid()
        for _ in range(processes - 1):   # before any gRPC object exists: gRPC and fork do not mix
            pid = os.fork()
            if pid == 0:
                children = None
                _die_with_parent()
                if os.getppid() != parent:    # the parent died before the line above took effect
                    os._exit(0)
                break
            children.append(pid)
    server = RouteServer(config).start()
    stopped = threading.Event()

    def on_signal(signum, frame):
        if stopped.is_set():
            return
        stopped.set()
        log.info(json.dumps({"event": "signal", "signal": signal.Signals(signum).name, "pid": os.getpid()}))
        for pid in children or ():
            try:
                os.kill(pid, signum)
            except ProcessLookupError:
                pass
        server.stop()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    # Wake up now and then so that signals are handled promptly in the main thread (True = timed out).
    while server.wait_for_termination(timeout=0.5):
        pass
    for pid in children or ():
        os.waitpid(pid, 0)
    # The calls were cancelled after the grace, which stops their searches within milliseconds; a thread
    # still computing then (a stage that does not look at its cancel) is abandoned, not waited for.
    admission = server.service.admission
    ends = time.monotonic() + ABANDON_SECONDS
    while admission.running and time.monotonic() < ends:
        time.sleep(0.01)
    abandoned = admission.running
    log.info(json.dumps({"event": "stopped", "pid": os.getpid(), **({"abandoned": abandoned} if abandoned else {})}))
    if children is None or abandoned:
        # a forked server process leaves without running the parent's exit handlers; a process with a
        # thread still computing leaves without waiting for it
        for handler in logging.getLogger("revenue.server").handlers:
            handler.flush()
        sys.stdout.flush()
        os._exit(0)
