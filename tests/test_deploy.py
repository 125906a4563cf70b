"""Several servers behind one address (docs/deploy.md): a gRPC client balancing round robin over two
`python -m server` processes, and nginx in front of them (docs/nginx.conf, when nginx is installed), both
while one server stops gracefully (SIGTERM) under load: every call answers, the stopping server's calls
in flight finish, new ones go to the other."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading

import httpx
import pytest

from revenue.client import BALANCED_OPTIONS, RouteClient
from revenue.optimizer import solve

from .error_log import server_log_line
from .nginx import free_port, running_nginx
from .server_helpers import ROOT, stream_request, wait_until

pytestmark = pytest.mark.slow         # two servers to start and warm up: 10 s and more
REQUEST = stream_request()           # some 0.1 s of search: calls are in flight when a server stops


class Server:
    """`python -m server` on free gRPC and HTTP ports, one process, its JSON log lines as they come."""

    def __init__(self):
        self.port, self.http_port = free_port(), free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server", "--port", str(self.port), "--http-port", str(self.http_port),
             "--processes", "1", "--workers", "2", "--grace-seconds", "10"],
            cwd=ROOT, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.lines: list[dict] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stderr:
            if line.startswith("{"):
                self.lines.append(json.loads(line))
            else:
                server_log_line(line, f"`python -m server` process {self.proc.pid}")

    def serving(self) -> bool:
        return any(r.get("event") == "serving" for r in self.lines)

    def calls(self, method: str) -> list[dict]:
        return [r for r in self.lines if r.get("method") == method]

    def stop(self) -> int:
        """SIGTERM, and the exit status."""
        self.proc.send_signal(signal.SIGTERM)
        status = self.proc.wait(timeout=30)
        self._reader.join(5)
        return status

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def servers():
    pair = [Server(), Server()]
    try:
        assert wait_until(lambda: all(s.serving() for s in pair), timeout=180), [s.lines for s in pair]
        yield pair
    finally:
        for s in pair:
            s.kill()


def under_load(call, servers: list[Server], method: str, clients: int = 4) -> list:
    """Run `call()` from `clients` threads until the first server has answered some calls and the
    second has too, stop the first with SIGTERM meanwhile, and go on until the second has answered more
    calls since; the answers (or the exceptions) of every call."""
    results: list = []
    done = threading.Event()

    def loop():
        while not done.is_set():
            try:
                results.append(call())
            except Exception as exc:        # a failed call is the test's failure: kept to be shown
                results.append(exc)

    threads = [threading.Thread(target=loop) for _ in range(clients)]
    for t in threads:
        t.start()
    try:
        first, second = servers
        assert wait_until(lambda: len(first.calls(method)) >= 5 and len(second.calls(method)) >= 5, 60)
        assert first.stop() == 0
        after = len(second.calls(method))
        assert wait_until(lambda: len(second.calls(method)) >= after + 20, 60)
    finally:
        done.set()
        for t in threads:
            t.join(60)
    return results


def test_round_robin_over_two_servers_while_one_stops(servers):
    target = "ipv4:" + ",".join(f"127.0.0.1:{s.port}" for s in servers)
    expected = solve(REQUEST)["revenue"]
    with RouteClient(target, options=BALANCED_OPTIONS) as client:
        results = under_load(lambda: client.solve(REQUEST, timeout=30)["revenue"], servers, "Solve")
    assert results and results == [expected] * len(results), [r for r in results if r != expected][:3]
    first, second = servers
    # every call the stopping server took, it answered (those in flight when it began to stop too); the
    # other answered all the others
    assert {r["code"] for r in first.calls("Solve")} == {"OK"}
    events = [r.get("event") or r.get("method") for r in first.lines]
    assert "Solve" in events[events.index("stopping"):] and events[-1] == "stopped"
    assert len(first.calls("Solve")) + len(second.calls("Solve")) >= len(results)


@pytest.fixture
def nginx(servers, tmp_path):
    """nginx running docs/nginx.conf in front of the two servers."""
    with running_nginx((servers[0].port, servers[1].port), (servers[0].http_port, servers[1].http_port),
                       tmp_path) as proxy:
        yield proxy


def test_grpc_through_nginx_while_a_server_stops(servers, nginx):
    expected = solve(REQUEST)["revenue"]
    with RouteClient(f"127.0.0.1:{nginx.grpc_port}") as client:
        results = under_load(lambda: client.solve(REQUEST, timeout=30)["revenue"], servers, "Solve")
    assert results and results == [expected] * len(results), \
        ([r for r in results if r != expected][:3], nginx.error_log.read_text(), servers[0].lines[-20:])
    assert {r["code"] for r in servers[0].calls("Solve")} == {"OK"}


def test_http_through_nginx_while_a_server_stops(servers, nginx):
    expected = solve(REQUEST)["revenue"]
    with httpx.Client(base_url=f"http://127.0.0.1:{nginx.http_port}", timeout=30) as http:
        assert http.get("/healthz").json() == {"status": "SERVING"}

        def call():
            answer = http.post("/v1/solve", json=REQUEST)
            return answer.json()["revenue"] if answer.status_code == 200 else answer
        results = under_load(call, servers, "Solve")
    assert results and results == [expected] * len(results), \
        ([r for r in results if r != expected][:3], nginx.error_log.read_text(), servers[0].lines[-20:])
    assert {r["code"] for r in servers[0].calls("Solve")} == {"OK"}
