"""What the service's own behaviours cost per call: Solve served by a bare sync grpc.server with the
service's own steps (reading and checking the request, the search, the answer's conversion, the log
line), against `revenue serve` with its defaults (the sync grpc.server too since service10; grpc.aio
before, when this measured what grpc.aio cost), both loaded by benchmarks.load with fresh boards,
alternating; for each run the calls per second, p99, and the server processes' CPU per call (/proc).

    python -m benchmarks.sync_solve [--rounds 2] [--seconds 10] [--clients 8] [--threads 2]

The sync server here is a measurement, not a service: one process per core sharing the port, a pool of
`--threads` per process, each call searched on the pool's thread that took it; Solve only, without the
service's queue, cancellation, streams, HTTP, health or auth. docs/service.md quotes what it measured."""
from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from concurrent import futures

import click
import grpc

from .load import ROOT, _free_port, _Server, run


def serve(port: int, threads: int) -> None:
    """The sync server of one process (until killed)."""
    from revenue import api
    from revenue.solve import Cancel
    from revenue.v1 import revenue_pb2
    from revenue.server.app import configure_logging
    from revenue.server.calls import Call
    from revenue.server.service import SERVICE_NAME, RouteService
    from revenue.server.warmup import warm_up

    configure_logging()
    logging._srcfile = None      # as `revenue serve` does for its log lines
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    routes = RouteService(workers=threads)
    warm_up(routes)

    def solve(request, context):
        call = Call("Solve", context, routes.stopping)
        try:
            req, ends, key = routes.prepare_solve(request, context, call)
            result = routes.solve_work(request, req, ends, call, Cancel(), key=key)
            return api.to_message(result, revenue_pb2.SolveResponse)
        finally:
            call.finish()

    handler = grpc.method_handlers_generic_handler(SERVICE_NAME, {"Solve": grpc.unary_unary_rpc_method_handler(
        solve, request_deserializer=revenue_pb2.SolveRequest.FromString,
        response_serializer=revenue_pb2.SolveResponse.SerializeToString)})
    server = grpc.server(futures.ThreadPoolExecutor(threads), handlers=[handler], options=[("grpc.so_reuseport", 1)])
    server.add_insecure_port(f"127.0.0.1:{port}")
    server.start()
    print('{"event": "serving"}', file=sys.stderr, flush=True)
    server.wait_for_termination()


def _cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def _sync_run(clients: int, seconds: float, threads: int) -> tuple[dict, float]:
    port, processes = _free_port(), len(os.sched_getaffinity(0))
    logs = [tempfile.TemporaryFile(mode="a+") for _ in range(processes)]
    procs = [subprocess.Popen([sys.executable, "-m", f"{__package__}.sync_solve", "--serve", str(port), str(threads)],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log) for log in logs]
    try:
        started = time.perf_counter()
        while not all(_serving(log) for log in logs):
            if time.perf_counter() - started > 300 or any(p.poll() is not None for p in procs):
                raise RuntimeError("the sync server did not start")
            time.sleep(0.2)
        before = _cpu_seconds([p.pid for p in procs])
        report = run(clients, seconds, target=f"127.0.0.1:{port}", fresh=True)
        return report, _cpu_seconds([p.pid for p in procs]) - before
    finally:
        for p in procs:
            p.terminate()
            p.wait()


def _serving(log) -> bool:
    log.seek(0)
    return '"event": "serving"' in log.read()


def _service_run(clients: int, seconds: float) -> tuple[dict, float]:
    server = _Server(None, 64)
    try:
        server.wait_serving(300)
        before = server.cpu_seconds()
        report = run(clients, seconds, target=server.target, fresh=True)
        return report, server.cpu_seconds() - before
    finally:
        server.stop()


@click.command()
@click.option("--rounds", default=2, show_default=True, type=click.IntRange(1, 100))
@click.option("--seconds", default=10.0, show_default=True, type=click.FloatRange(0.5, 600))
@click.option("--clients", default=8, show_default=True, type=click.IntRange(1, 256))
@click.option("--threads", default=2, show_default=True, type=click.IntRange(1, 64),
              help="The sync server's thread pool per process.")
def main(rounds: int, seconds: float, clients: int, threads: int) -> None:
    """Solve on a bare sync grpc.server against `revenue serve`, fresh boards, alternating."""
    for _ in range(rounds):
        for kind in ("service", "sync"):
            with open("/proc/loadavg") as f:
                load = f.read().split()[0]
            report, cpu = _service_run(clients, seconds) if kind == "service" else _sync_run(clients, seconds, threads)
            click.echo(json.dumps({"server": kind, "load_average": load, "calls_per_s": report["throughput_per_s"],
                                   "p50_ms": report["p50_ms"], "p99_ms": report["p99_ms"], "errors": report["errors"],
                                   "server_cpu_ms_per_call": round(1000 * cpu / report["calls"], 3),
                                   "generator_cpu_ms_per_call": report["generator_cpu_ms_per_call"]}))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(int(sys.argv[2]), int(sys.argv[3]))
    else:
        main(prog_name=f"python -m {__package__}.sync_solve")
