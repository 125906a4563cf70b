"""`revenue serve`: the click command (registered by revenue/cli/main.py)."""
from __future__ import annotations

import os

import click


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (0.0.0.0 or [::] for every interface).")
@click.option("--port", default=50051, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on (0 = any free port; the log says which).")
@click.option("--workers", default=os.cpu_count() or 2, show_default=True, type=click.IntRange(1, 256),
              help="Searches that compute at once in each process (the kernels release the GIL).")
@click.option("--max-queue", default=32, show_default=True, type=click.IntRange(0, 10000),
              help="Calls that may wait for a worker; beyond that, RESOURCE_EXHAUSTED.")
@click.option("--max-compute-ms", default=10_000, show_default=True, type=click.IntRange(1),
              help="Longest search of one call, even when the client sets no deadline.")
@click.option("--max-memory-mb", default=256.0, show_default=True, type=click.FloatRange(min=1),
              help="Routes one search stores; beyond, it keeps those that can matter most (and may not prove).")
@click.option("--max-message-bytes", default=4 * 1024 * 1024, show_default=True, type=click.IntRange(1024),
              help="Largest request message.")
@click.option("--tls-cert", type=click.Path(exists=True, dir_okay=False), help="PEM certificate chain (with --tls-key).")
@click.option("--tls-key", type=click.Path(exists=True, dir_okay=False), help="PEM private key (with --tls-cert).")
@click.option("--auth-token", envvar="REVENUE_AUTH_TOKEN", show_envvar=True,
              help="Require metadata `authorization: Bearer <token>` (health stays open).")
@click.option("--grace-seconds", default=5.0, show_default=True, type=click.FloatRange(0),
              help="On SIGTERM/SIGINT, time in-flight calls get before they are cancelled.")
@click.option("--http-port", default=8080, show_default=True, type=click.IntRange(0, 65535),
              help="Port of the HTTP/JSON API and the auto-route page, on --host (0 = any free port; the log "
                   "says which).")
@click.option("--no-http", is_flag=True, help="Serve gRPC only.")
@click.option("--cors-origin", "cors_origins", multiple=True, metavar="ORIGIN",
              help="Let pages of this origin (e.g. https://example.org) call the HTTP API; repeatable. "
                   "[default: none]")
@click.option("--processes", type=click.IntRange(1, 64),
              help="Server processes sharing the port, each with its own workers: each call's Python work "
                   "holds its process's GIL. [default: one per core (at most 8) on Linux with a fixed "
                   "--port, else 1]")
@click.option("--max-connection-age-seconds", type=click.FloatRange(min=0),
              help="Ask gRPC clients to reconnect after this long (their calls finish first), so that the "
                   "kernel spreads their connections among the processes again; 0 = never. [default: 5 "
                   "with more than one process, else never]")
@click.option("--max-connections", default=1024, show_default=True, type=click.IntRange(1),
              help="HTTP connections open at once in each process; beyond, the one idle the longest is "
                   "closed (or, when all are busy, the new one is answered 503).")
@click.option("--max-grpc-connections", type=click.IntRange(1),
              help="gRPC connections open at once in each process; gRPC closes new ones beyond. [default: "
                   "half the process's limit on open descriptors]")
@click.option("--header-timeout-seconds", default=5.0, show_default=True, type=click.FloatRange(min=0.1),
              help="Time a connection has to send a request's headers (gRPC: to finish its handshake).")
@click.option("--keep-alive-seconds", default=5.0, show_default=True, type=click.FloatRange(min=0.1),
              help="Time an HTTP connection is kept open for another request.")
@click.option("--idle-connection-seconds", default=300.0, show_default=True, type=click.FloatRange(min=1),
              help="Time a gRPC connection without calls is kept open.")
def serve(host, port, workers, max_queue, max_compute_ms, max_memory_mb, max_message_bytes, tls_cert, tls_key,
          auth_token, grace_seconds, http_port, no_http, cors_origins, processes, max_connection_age_seconds,
          max_connections, max_grpc_connections, header_timeout_seconds, keep_alive_seconds,
          idle_connection_seconds):
    """Serve revenue.v1.RouteService over gRPC (Solve, SolveStream, Evaluate, ListTitles, Deliveries),
    with health checking and reflection, and over HTTP/JSON with the auto-route page at / (docs/service.md).
    Logs one JSON line per call on stderr."""
    from .app import Config, serve as run

    if bool(tls_cert) != bool(tls_key):
        raise click.UsageError("--tls-cert and --tls-key go together")
    try:
        run(Config(host=host, port=port, workers=workers, max_queue=max_queue, max_compute_ms=max_compute_ms,
                   max_memory_mb=max_memory_mb, max_message_bytes=max_message_bytes, tls_cert=tls_cert,
                   tls_key=tls_key, auth_token=auth_token or None, grace_seconds=grace_seconds, processes=processes,
                   max_connection_age_s=max_connection_age_seconds, max_connections=max_connections,
                   max_grpc_connections=max_grpc_connections,
                   header_timeout_s=header_timeout_seconds, keep_alive_s=keep_alive_seconds,
                   idle_connection_s=idle_connection_seconds,
                   http_port=None if no_http else http_port, cors_origins=tuple(cors_origins)))
    except OSError as exc:
        raise click.ClickException(str(exc)) from None
