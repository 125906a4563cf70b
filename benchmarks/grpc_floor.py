"""gRPC's own cost per call on this machine, without the service: an echo server (bytes in, bytes out, the
sizes of a fresh board's Solve) in a subprocess, loaded by N clients on N connections for a few seconds,
reporting the calls per second and the CPU per call of the server process and of the client (this one).

    python -m benchmarks.grpc_floor [--server aio|sync] [--threads 2] [--client aio|futures]
                                    [--clients 8] [--seconds 5] [--rounds 2]

`--server aio` is grpc.aio (what the service runs), `sync` grpc.server with a pool of `--threads`;
`--client aio` awaits grpc.aio calls in one event loop, `futures` chains `future()` calls on blocking
channels (what benchmarks.load does). docs/service.md quotes what it measured."""
from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from concurrent import futures

import click
import grpc

from .load import _free_port

METHOD = "/floor.Echo/Echo"
REQUEST = b"x" * 760      # a fresh board's SolveRequest: 763 bytes on average
ANSWER = b"y" * 900


def _handler(asynchronous: bool) -> grpc.GenericRpcHandler:
    if asynchronous:
        async def echo(request, context):
            return ANSWER
    else:
        def echo(request, context):
            return ANSWER
    return grpc.method_handlers_generic_handler("floor.Echo", {"Echo": grpc.unary_unary_rpc_method_handler(echo)})


def serve(kind: str, threads: int, port: int) -> None:
    if kind == "aio":
        async def main() -> None:
            server = grpc.aio.server(handlers=[_handler(True)])
            server.add_insecure_port(f"127.0.0.1:{port}")
            await server.start()
            await server.wait_for_termination()
        asyncio.run(main())
    else:
        server = grpc.server(futures.ThreadPoolExecutor(threads), handlers=[_handler(False)])
        server.add_insecure_port(f"127.0.0.1:{port}")
        server.start()
        server.wait_for_termination()


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _aio_calls(target: str, clients: int, seconds: float) -> int:
    async def run() -> int:
        channels = [grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
                    for _ in range(clients)]
        for channel in channels:
            await channel.channel_ready()
        stop_at = time.perf_counter() + seconds
        calls = [0]

        async def client(channel) -> None:
            echo = channel.unary_unary(METHOD)
            while time.perf_counter() < stop_at:
                await echo(REQUEST, timeout=10)
                calls[0] += 1
        await asyncio.gather(*(client(c) for c in channels))
        for channel in channels:
            await channel.close()
        return calls[0]
    return asyncio.run(run())


def _future_calls(target: str, clients: int, seconds: float) -> int:
    channels = [grpc.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
                for _ in range(clients)]
    for channel in channels:
        grpc.channel_ready_future(channel).result(timeout=10)
    stop_at = time.perf_counter() + seconds
    calls, running, lock, done = [0], [clients], threading.Lock(), threading.Event()

    def send(echo, future=None) -> None:
        if future is not None:
            future.result()
            with lock:
                calls[0] += 1
        if time.perf_counter() < stop_at:
            echo.future(REQUEST, timeout=10).add_done_callback(lambda f: send(echo, f))
            return
        with lock:
            running[0] -= 1
            if not running[0]:
                done.set()
    for channel in channels:
        send(channel.unary_unary(METHOD))
    done.wait()
    for channel in channels:
        channel.close()
    return calls[0]


@click.command()
@click.option("--server", "server_kind", type=click.Choice(["aio", "sync"]), default="aio", show_default=True)
@click.option("--threads", default=2, show_default=True, type=click.IntRange(1, 64),
              help="The sync server's thread pool.")
@click.option("--client", "client_kind", type=click.Choice(["aio", "futures"]), default="futures",
              show_default=True)
@click.option("--clients", default=8, show_default=True, type=click.IntRange(1, 256))
@click.option("--seconds", default=5.0, show_default=True, type=click.FloatRange(0.5, 600))
@click.option("--rounds", default=2, show_default=True, type=click.IntRange(1, 100))
def main(server_kind: str, threads: int, client_kind: str, clients: int, seconds: float, rounds: int) -> None:
    """gRPC's floor per call: an echo server and its clients, CPU per call of each."""
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", f"{__package__}.grpc_floor", "--serve", server_kind,
                               str(threads), str(port)])
    try:
        target = f"127.0.0.1:{port}"
        with grpc.insecure_channel(target) as channel:
            grpc.channel_ready_future(channel).result(timeout=30)
        run = _aio_calls if client_kind == "aio" else _future_calls
        for _ in range(rounds):
            before, server_before, began = sum(os.times()[:2]), _cpu_seconds(server.pid), time.perf_counter()
            calls = run(target, clients, seconds)
            wall = time.perf_counter() - began
            client_cpu, server_cpu = sum(os.times()[:2]) - before, _cpu_seconds(server.pid) - server_before
            click.echo(f"server {server_kind}{threads if server_kind == 'sync' else ''}, client {client_kind}: "
                       f"{calls / wall:.0f} calls/s, server {1000 * server_cpu / calls:.3f} ms CPU per call, "
                       f"client {1000 * client_cpu / calls:.3f} ms")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        main(prog_name=f"python -m {__package__}.grpc_floor")
