"""Load test of the service, over gRPC or (`--http`) HTTP/JSON: start `python -m revenue.server` in a subprocess, run N concurrent clients for a
bounded time on the title scenarios (early, mid and late game of every title), and report throughput,
latency percentiles and errors.

    python -m benchmarks.load [--clients 8] [--seconds 10] [--workers N] [--processes N]
                              [--shared-connection] [--http] [--fresh-boards] [--deadline-ms MS]
                              [--target HOST:PORT] [--json]

Each client has its own channel and connection (`--shared-connection`: one connection for all) and
sends Solve calls back to back, cycling through the scenarios from its own starting point. The load
generator keeps its own CPU use low on a machine it shares with the server: the requests are serialised
before the run, each gRPC answer sends its client's next call from gRPC's own thread (a chain of
futures, no event loop), and the timed loop only sends the requests and keeps the answers' bytes.
Every answer is then checked against the proved optimum the server gave for that scenario in the warm-up pass: a different revenue counts as an error. The report says what CPU the
generator took while it ran (`generator_cpu_share`, of all the machine's cores) and, for a server it
started, the server's CPU per call and each of its processes' share of it (`server_cpu_share_by_process`:
uneven when the kernel gave one process more of the connections). With `--http` the clients POST the same
requests as JSON to /v1/solve (aiohttp's client, one connection per client: it takes a third of the CPU
per call that httpx does, and the generator shares the machine with the server) and read the JSON
answers; its clients share one asyncio event loop. `run()` is what `revenue bench --load` calls.

With `--fresh-boards` every call carries a board the server has not seen, as a game server's calls do
(the board changes with every tile lay and token): the boards of games grown from the title scenarios
(benchmarks.scenarios.game_sequences), made before the run, the titles interleaved. No warm-up pass
gives their answers away: each answer is checked after the run against the library's proved optimum.
"""
from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter

import click
import grpc
from rich.console import Console
from rich.table import Table

from revenue.server.app import default_processes

from .scenarios import title_scenarios

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOLVE = "/revenue.v1.RouteService/Solve"
CALL_TIMEOUT = 10.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    i = min(len(sorted_values) - 1, max(0, round(q / 100 * len(sorted_values) + 0.5) - 1))
    return sorted_values[i]


class Server:
    """`python -m server` on a free port, until stopped (SIGTERM, then the logs are dropped)."""

    def __init__(self, workers: int | None, max_queue: int, processes: int | None = None):
        self.port, self.http_port = _free_port(), _free_port()
        self.processes = processes or default_processes(self.port)
        self.log = tempfile.TemporaryFile(mode="a+")   # O_APPEND: reading it moves no write offset
        args = [sys.executable, "-m", "revenue.server", "--port", str(self.port), "--http-port", str(self.http_port),
                "--max-queue", str(max_queue)]
        if workers:
            args += ["--workers", str(workers)]
        if processes:
            args += ["--processes", str(processes)]
        self.proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=self.log)
        self.target = f"127.0.0.1:{self.port}"
        self.http_target = f"127.0.0.1:{self.http_port}"

    def wait_serving(self, timeout: float) -> float:
        """Seconds until every server process has warmed up and health checking says SERVING."""
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        started = time.perf_counter()
        while time.perf_counter() - started < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited ({self.proc.returncode}):\n{self.tail()}")
            # Health checking reaches one of the processes; each logs its own "serving" event.
            if self.tail(10_000).count('"event": "serving"') < self.processes:
                time.sleep(0.1)
                continue
            # A fresh channel each time: a channel that failed to connect backs off for longer and longer.
            with grpc.insecure_channel(self.target) as channel:
                try:
                    if health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=1).status \
                            == health_pb2.HealthCheckResponse.SERVING:
                        return time.perf_counter() - started
                except grpc.RpcError:
                    pass
            time.sleep(0.1)
        raise RuntimeError(f"the server was not SERVING after {timeout:g} s:\n{self.tail()}")

    def cpu_seconds(self) -> float | None:
        """CPU time of the server's processes so far (the first and those it forked), or None where
        /proc does not tell."""
        by_process = self.cpu_by_process()
        return None if by_process is None else sum(by_process.values())

    def cpu_by_process(self) -> dict[int, float] | None:
        """cpu_seconds() of each server process (pid -> seconds; the first process first), or None: how
        evenly the kernel spread the connections among them shows in a run's differences of these."""
        try:
            pids = [self.proc.pid]
            with open(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children") as f:
                pids += [int(p) for p in f.read().split()]
            seconds = {}
            for pid in pids:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                seconds[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")   # utime, stime
            return seconds
        except (OSError, ValueError):
            return None

    def tail(self, n: int = 20) -> str:
        self.log.seek(0)
        return "".join(self.log.readlines()[-n:])

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def cpu_spent(before: dict[int, float], after: dict[int, float] | None) -> list[float] | None:
    """Each process's CPU seconds between two Server.cpu_by_process() readings, in the order of `after`
    (a process forked meanwhile counts from 0)."""
    return None if after is None else [after[pid] - before.get(pid, 0.0) for pid in after]


def shares(seconds: list[float]) -> list[float] | None:
    """Each part's share of the total (3 decimals), or None for a total of 0."""
    total = sum(seconds)
    return [round(s / total, 3) for s in seconds] if total > 0 else None


FRESH_RATE = 2000     # --fresh-boards: boards made per second of the run (more than it can serve)


def fresh_boards(count: int) -> list[tuple[str, dict]]:
    """`count` distinct boards (or as many as the games hold), each (title, SolveRequest dict): the boards
    of game_sequences for seed after seed, each one tile lay or token away from the one before."""
    from .scenarios import game_sequences

    scenarios = title_scenarios()
    seen: set[str] = set()
    boards: list[tuple[str, dict]] = []
    seed = 0
    while len(boards) < count and seed < 1000:
        for title, games in game_sequences(seed, scenarios).items():
            for board in games:
                key = json.dumps(board.request["board"], sort_keys=True)
                if key not in seen:
                    seen.add(key)
                    boards.append((title, board.request))
        seed += 1
    # interleave the titles, as a server of many games sees them
    by_title: dict[str, list] = {}
    for title, request in boards:
        by_title.setdefault(title, []).append((title, request))
    mixed = [b for group in zip(*by_title.values()) for b in group]
    mixed += [b for group in by_title.values() for b in group[len(mixed) // len(by_title):]]
    return mixed[:count]


def run(clients: int = 8, seconds: float = 10.0, workers: int | None = None, target: str | None = None,
        max_queue: int = 64, start_timeout: float = 300.0, processes: int | None = None,
        shared_connection: bool = False, http: bool = False, fresh: bool = False,
        deadline_ms: int | None = None) -> dict:
    """Run the load test; returns throughput, latency percentiles (ms), errors and per-scenario numbers.
    Each client has a connection of its own, like separate game servers; with `shared_connection` all
    calls share one connection, like one front end with many calls in flight. With `http` the calls go
    to the HTTP/JSON API (`target` is then its HOST:PORT).

    With `fresh`, every call carries a board the server has not seen (fresh_boards; the rows per
    scenario become rows per title, with the best revenue among its boards), and every answer is checked
    after the run against the library's proved optimum for its board."""
    from google.protobuf import json_format

    from revenue.v1 import revenue_pb2

    if fresh:
        boards = fresh_boards(int(seconds * FRESH_RATE) + 100)
        titles = list(dict.fromkeys(title for title, _ in boards))
        groups = [titles.index(title) for title, _ in boards]
        requests = [request for _, request in boards]
    else:
        scenarios = title_scenarios()
        groups = list(range(len(scenarios)))
        requests = [s.request for s in scenarios]
    if http:
        payloads = bodies = [json.dumps(request).encode() for request in requests]
    else:
        payloads = bodies = [json_format.ParseDict(request, revenue_pb2.SolveRequest()).SerializeToString()
                             for request in requests]
    server = None if target else Server(workers, max_queue, processes)
    try:
        startup = server.wait_serving(start_timeout) if server else 0.0
        target = target or (server.http_target if http else server.target)
        # Warm-up pass: the optimum of each scenario (the reference for every later answer).
        expected = []
        answers: dict[int, tuple[int, bool]] = {}     # fresh boards: board -> answer, checked after the run
        next_board = [0]

        board_lock = threading.Lock()

        def pick(i: int) -> int:
            """The payload of a client's next call: with fresh boards the next board no call has carried
            (no two clients take the same), else the client's next scenario."""
            if fresh:
                with board_lock:
                    next_board[0] += 1
                    return (next_board[0] - 1) % len(payloads)
            return i % len(payloads)

        def check(k: int, j: int, revenue: int, optimal: bool, bound: int) -> None:
            if fresh:
                answers[j] = (revenue, optimal)
            elif deadline_ms and not optimal and revenue <= expected[j][0] <= bound:
                unproved[k] += 1       # stopped by the deadline with a valid bound: an answer, not proved
            elif (revenue, optimal) != expected[j]:
                errors[k]["WRONG_ANSWER"] += 1

        if fresh:
            pass
        elif http:
            expected = _http_expected(target, bodies)
        else:
            with grpc.insecure_channel(target) as channel:
                solve = channel.unary_unary(SOLVE)
                for payload in payloads:
                    answer = revenue_pb2.SolveResponse.FromString(solve(payload, timeout=60))
                    expected.append((answer.revenue, answer.optimal))

        latencies: list[list[tuple[int, float]]] = [[] for _ in range(clients)]
        errors: list[Counter] = [Counter() for _ in range(clients)]
        unproved = [0] * clients
        timeout = deadline_ms / 1000.0 if deadline_ms else CALL_TIMEOUT
        # The answers as they came (client, payload, bytes), read and checked after the run: the
        # generator shares the machine with the server, so its timed loop only sends and receives.
        received: list[tuple[int, int, bytes]] = []

        async def http_client(k: int, session, go: asyncio.Event, stop_at: list[float]) -> None:
            i = k
            await go.wait()
            while time.perf_counter() < stop_at[0]:
                j = pick(i)
                i += 1
                t = time.perf_counter()
                try:
                    async with session.post("/v1/solve", data=bodies[j]) as response:
                        content = await response.read()
                except Exception as exc:    # aiohttp.ClientError, timeouts
                    errors[k][type(exc).__name__] += 1
                    continue
                if response.status != 200:
                    errors[k][f"HTTP {response.status}"] += 1
                    continue
                latencies[k].append((j, (time.perf_counter() - t) * 1000))
                received.append((k, j, content))

        async def drive(run_client, connections) -> float:
            """Start one client per connection at the same moment, stop them `seconds` later; the wall time."""
            go, stop_at = asyncio.Event(), [time.perf_counter() + seconds]
            tasks = [asyncio.create_task(run_client(k, c, go, stop_at)) for k, c in enumerate(connections)]
            began = time.perf_counter()
            stop_at[0] = began + seconds
            go.set()
            await asyncio.gather(*tasks)
            return time.perf_counter() - began

        async def http_load() -> float:
            import aiohttp

            # One connection per client (like separate game servers), all in one event loop.
            sessions = [aiohttp.ClientSession(f"http://{target}", connector=aiohttp.TCPConnector(limit=1),
                                              timeout=aiohttp.ClientTimeout(total=CALL_TIMEOUT),
                                              headers={"content-type": "application/json"})
                        for _ in range(clients)]
            wall = await drive(http_client, sessions)
            for session in sessions:
                await session.close()
            return wall

        def grpc_load() -> float:
            """The gRPC clients, each a chain of calls: a call's answer, on gRPC's own thread, sends the
            client's next call: less of the generator's CPU per call than awaiting grpc.aio calls in one event
            loop."""
            # Channels to one target share one connection unless each has a subchannel pool of its own.
            options = [] if shared_connection else [("grpc.use_local_subchannel_pool", 1)]
            channels = [grpc.insecure_channel(target, options=options) for _ in range(clients)]
            for channel in channels:
                grpc.channel_ready_future(channel).result(timeout=10)
            solves = [channel.unary_unary(SOLVE) for channel in channels]
            stop_at = time.perf_counter() + seconds
            running = [clients]
            all_done = threading.Event()

            def send(k: int, i: int, answer: tuple | None = None) -> None:
                """Client k's calls from its i-th on, until the run's end, after taking the `answer` (call,
                start, future) of the one before: each call sent when the one before is answered, in the
                thread that takes that answer."""
                try:
                    if answer is not None:
                        answered(k, *answer)
                    while time.perf_counter() < stop_at:
                        j = pick(i)
                        i += 1
                        started = time.perf_counter()
                        future = solves[k].future(payloads[j], timeout=timeout)
                        if not future.done():    # as a rule: its answer takes the chain on
                            future.add_done_callback(lambda f, j=j, i=i, started=started: send(k, i, (j, started, f)))
                            return
                        answered(k, j, started, future)
                except Exception as exc:    # the chain ends (counted), rather than leave the run waiting
                    errors[k][type(exc).__name__] += 1
                with board_lock:
                    running[0] -= 1
                    if not running[0]:
                        all_done.set()

            def answered(k: int, j: int, started: float, future) -> None:
                ms = (time.perf_counter() - started) * 1000
                error = future.exception()
                if error is not None:
                    errors[k][error.code().name if isinstance(error, grpc.RpcError) else type(error).__name__] += 1
                    return
                latencies[k].append((j, ms))
                received.append((k, j, future.result()))

            began = time.perf_counter()
            stop_at = began + seconds
            for k in range(clients):
                send(k, k)
            all_done.wait()
            wall = time.perf_counter() - began
            for channel in channels:
                channel.close()
            return wall

        cpu = os.times()
        server_cpu_before = server.cpu_by_process() if server else None
        wall = asyncio.run(http_load()) if http else grpc_load()
        # CPU seconds of the run: this process's (all its threads: gRPC's, aiohttp's) and the server's
        generator_cpu = sum(os.times()[:2]) - sum(cpu[:2])
        server_cpu_by_process = cpu_spent(server_cpu_before, server.cpu_by_process()) \
            if server_cpu_before is not None else None
        server_cpu = None if server_cpu_by_process is None else sum(server_cpu_by_process)
        for k, j, content in received:
            if http:
                answer = json.loads(content)
                check(k, j, answer.get("revenue", 0), answer.get("optimal", False), answer.get("upper_bound", 0))
            else:
                answer = revenue_pb2.SolveResponse.FromString(content)
                check(k, j, answer.revenue, answer.optimal, answer.upper_bound)
    finally:
        if server:
            server.stop()

    everything = sorted(ms for per in latencies for _, ms in per)
    error_count = Counter()
    for c in errors:
        error_count.update(c)
    per_scenario = []
    if fresh:
        from revenue.optimizer import solve as library_solve

        best: dict[int, int] = {}
        for j, got in answers.items():
            want = library_solve(requests[j])
            if got != (want["revenue"], True) or not want["optimal"]:
                error_count["WRONG_ANSWER"] += 1
            best[groups[j]] = max(best.get(groups[j], 0), got[0])
        for g, title in enumerate(titles):
            values = sorted(ms for per in latencies for j, ms in per if groups[j] == g)
            per_scenario.append({"scenario": f"{title} games", "trains": "", "revenue": best.get(g, 0),
                                 "optimal": True, "calls": len(values), "p50_ms": round(_percentile(values, 50), 2),
                                 "p99_ms": round(_percentile(values, 99), 2)})
    else:
        for j, s in enumerate(scenarios):
            values = sorted(ms for per in latencies for jj, ms in per if jj == j)
            per_scenario.append({"scenario": s.name, "trains": s.trains, "revenue": expected[j][0],
                                 "optimal": expected[j][1], "calls": len(values),
                                 "p50_ms": round(_percentile(values, 50), 2),
                                 "p99_ms": round(_percentile(values, 99), 2)})
    report = {
        "transport": "http" if http else "grpc",
        "clients": clients, "connections": 1 if shared_connection else clients, "seconds": round(wall, 2),
        "server_workers": workers or os.cpu_count(), "server_processes": server.processes if server else processes,
        "cores": os.cpu_count(), "startup_s": round(startup, 2), "calls": len(everything),
        "throughput_per_s": round(len(everything) / wall, 1) if wall else 0.0,
        "p50_ms": round(_percentile(everything, 50), 2), "p90_ms": round(_percentile(everything, 90), 2),
        "p99_ms": round(_percentile(everything, 99), 2), "max_ms": round(everything[-1], 2) if everything else None,
        "errors": sum(error_count.values()), "errors_by_code": dict(error_count), "scenarios": per_scenario,
        "deadline_ms": deadline_ms, "unproved": sum(unproved),
        "ok_before_deadline_share": round(len(everything) / (len(everything) + sum(error_count.values())), 5)
        if everything else 0.0,
    }
    # What the load generator took of the machine's CPU while it ran (it shares the cores with the
    # server), and the server's CPU per call (its processes, when it was started here, on Linux).
    report["generator_cpu_share"] = round(generator_cpu / (wall * (os.cpu_count() or 1)), 3) if wall else 0.0
    report["generator_cpu_ms_per_call"] = round(1000 * generator_cpu / len(everything), 3) if everything else None
    report["server_cpu_ms_per_call"] = round(1000 * server_cpu / len(everything), 3) \
        if everything and server_cpu is not None else None
    # Each server process's part of the server's CPU in the run: far from even when the kernel gave one
    # process more of the connections than the other (SO_REUSEPORT spreads them by a hash).
    report["server_cpu_share_by_process"] = shares(server_cpu_by_process) if server_cpu_by_process else None
    if fresh:
        # boards sent more than once (only when the run outlasts the boards made for it)
        report["fresh_boards"] = len(payloads)
        report["boards_repeated"] = max(0, next_board[0] - len(payloads))
    return report


def _http_expected(target: str, bodies: list[bytes]) -> list[tuple[int, bool]]:
    try:
        import aiohttp
    except ImportError:
        raise click.ClickException("--http needs aiohttp (pip install -e '.[test]')") from None

    async def ask() -> list[tuple[int, bool]]:
        expected = []
        async with aiohttp.ClientSession(f"http://{target}", timeout=aiohttp.ClientTimeout(total=60)) as session:
            for body in bodies:
                async with session.post("/v1/solve", data=body, headers={"content-type": "application/json"}) as r:
                    r.raise_for_status()
                    answer = json.loads(await r.read())
                expected.append((answer["revenue"], answer["optimal"]))
        return expected
    return asyncio.run(ask())


def print_report(report: dict, console: Console | None = None) -> None:
    console = console or Console(highlight=False)
    transport = "HTTP/JSON" if report.get("transport") == "http" else "gRPC"
    console.print(f"{transport} load: {report['clients']} clients, {report['connections']} connections, "
                  f"{report['seconds']} s; server {report['server_processes'] or '?'} processes x "
                  f"{report['server_workers']} workers, {report['cores']} cores")
    summary = Table()
    for column in ("calls", "throughput/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "errors"):
        summary.add_column(column, justify="right")
    errors = str(report["errors"]) + (f" {report['errors_by_code']}" if report["errors"] else "")
    summary.add_row(str(report["calls"]), f"{report['throughput_per_s']:.1f}", f"{report['p50_ms']:.2f}",
                    f"{report['p90_ms']:.2f}", f"{report['p99_ms']:.2f}", f"{report['max_ms']:.2f}", errors)
    console.print(summary)
    cpu = f"load generator: {100 * report['generator_cpu_share']:.1f}% of the machine's CPU " \
          f"({report['generator_cpu_ms_per_call']} ms per call)"
    if report.get("server_cpu_ms_per_call") is not None:
        cpu += f"; server: {report['server_cpu_ms_per_call']} ms of CPU per call"
        if report.get("server_cpu_share_by_process"):
            cpu += f" (its processes' shares: {', '.join(f'{100 * x:.0f}%' for x in report['server_cpu_share_by_process'])})"
    console.print(cpu)
    if report.get("deadline_ms"):
        console.print(f"deadline {report['deadline_ms']} ms: {100 * report['ok_before_deadline_share']:.2f}% of calls "
                      f"answered OK before it ({report['unproved']} of them stopped unproved)")
    table = Table(title="per scenario (Solve, proved optimum checked on every answer)")
    for column, justify in (("scenario", "left"), ("trains", "left"), ("revenue", "right"), ("calls", "right"),
                            ("p50 ms", "right"), ("p99 ms", "right")):
        table.add_column(column, justify=justify)
    for s in report["scenarios"]:
        table.add_row(s["scenario"], s["trains"], f"{s['revenue']}{'' if s['optimal'] else ' (not proved)'}",
                      str(s["calls"]), f"{s['p50_ms']:.2f}", f"{s['p99_ms']:.2f}")
    console.print(table)


@click.command()
@click.option("--clients", default=8, show_default=True, type=click.IntRange(1, 256))
@click.option("--seconds", default=10.0, show_default=True, type=click.FloatRange(0.5, 3600))
@click.option("--workers", type=click.IntRange(1, 256), help="Server workers (default: one per core).")
@click.option("--processes", type=click.IntRange(1, 64),
              help="Server processes sharing the port (revenue serve --processes; default: its default).")
@click.option("--shared-connection", is_flag=True,
              help="All clients on one connection (one front end with many calls in flight).")
@click.option("--deadline-ms", type=click.IntRange(1), help="Set this gRPC deadline on every call.")
@click.option("--http", is_flag=True, help="Call POST /v1/solve over HTTP/JSON instead of gRPC.")
@click.option("--fresh-boards", "fresh", is_flag=True,
              help="Every call a board the server has not seen (games grown from the title scenarios).")
@click.option("--target", help="Load an already running server at HOST:PORT (its HTTP port with --http) "
                               "instead of starting one.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def main(clients: int, seconds: float, workers: int | None, processes: int | None, shared_connection: bool,
         http: bool, fresh: bool, deadline_ms: int | None, target: str | None, as_json: bool) -> None:
    """Load test of the service (gRPC, or HTTP/JSON with --http) on the title scenarios."""
    if http and deadline_ms:
        raise click.UsageError("--deadline-ms is for gRPC")
    if http and shared_connection:
        raise click.UsageError("--shared-connection is for gRPC (HTTP/1.1 has one call at a time per connection)")
    report = run(clients=clients, seconds=seconds, workers=workers, target=target, processes=processes,
                 shared_connection=shared_connection, http=http, fresh=fresh, deadline_ms=deadline_ms)
    if as_json:
        click.echo(json.dumps(report, indent=2))
    else:
        print_report(report)
    if report["errors"]:
        sys.exit(1)


if __name__ == "__main__":
    main(prog_name=f"python -m {__package__}.load")
