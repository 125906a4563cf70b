"""Deadlines under load (issue 15): the answer leaves before the client's deadline even when the CPU is
contended, by a margin measured from what answers take after their search stops."""
from __future__ import annotations

import subprocess
import sys

import grpc
import pytest
from google.protobuf import json_format

from revenue.v1 import revenue_pb2
from server.app import _die_with_parent
from server.calls import SEND_SECONDS, Margin

from .server_helpers import CALL_LOG, heavy_request, running, stub, unproved_request, wait_until


@pytest.fixture
def cpu_competitors():
    """Two CPU-bound processes competing with the server for the cores while the test runs (ended with
    the test process even if it crashes)."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=_die_with_parent)
             for _ in range(2)]
    yield
    for proc in procs:
        proc.kill()
        proc.wait()


def test_margin_follows_what_answers_take():
    margin = Margin(low=0.010, high=0.250, start=0.100)
    assert margin.seconds() == 0.100
    margin.add(0.001)                                # one quick answer does not shrink it...
    assert margin.seconds() == 0.100
    margin.add(0.040)                                # ... a slow one grows it at once
    assert margin.seconds() == pytest.approx(3 * 0.040 + SEND_SECONDS)
    for _ in range(Margin.SAMPLES):
        margin.add(-0.020)                           # answers ready before their search was to stop
    assert margin.seconds() == 0.010                 # never below `low`
    for _ in range(32):
        margin.add(0.030)                            # answers got slower (a contended CPU)
    assert margin.seconds() == pytest.approx(3 * 0.030 + SEND_SECONDS)
    for _ in range(300):
        margin.add(1.0)
    assert margin.seconds() == 0.250                 # never above `high`
    for _ in range(Margin.SAMPLES):
        margin.add(0.001)                            # only the last SAMPLES count
    assert margin.seconds() == pytest.approx(3 * 0.001 + SEND_SECONDS)


def test_margin_trusts_a_few_quick_answers_only_after_several():
    margin = Margin(low=0.010, high=0.250, start=0.100)
    for _ in range(Margin.TRUSTED - 1):
        margin.add(0.0)
        assert margin.seconds() == 0.100
    margin.add(0.0)
    assert margin.seconds() == pytest.approx(SEND_SECONDS)


@pytest.mark.slow
def test_best_so_far_arrives_before_the_deadline_on_a_contended_cpu(cpu_competitors):
    # Each search runs into its deadline (a first run within about 0.15 s on an idle machine, a proof after
    # many seconds, and a run answered even before the routes are known): the server must stop, build and
    # send its best run in time, every time. (Late answers came from the margin: one early answer shrank
    # it to its floor at once, and an answer too late for its client was never measured.)
    message = json_format.ParseDict(unproved_request(), revenue_pb2.SolveRequest())
    with running(workers=2, max_queue=8) as s:
        service, channel = stub(s)
        before = len(CALL_LOG.calls("Solve"))
        for _ in range(2):      # the margin is measured: these calls measure it on this contended CPU
            try:
                service.Solve(message, timeout=1.5)
            except grpc.RpcError:
                pass
        # (a call the client gave up on may be logged after the client moved on: count it first)
        assert wait_until(lambda: len(CALL_LOG.calls("Solve")) - before == 2)
        before += 2
        for _ in range(6):
            got = service.Solve(message, timeout=1.5)          # DEADLINE_EXCEEDED would raise here
            assert got.routes and not got.optimal and got.stats.timed_out
            assert got.revenue == sum(r.revenue for r in got.routes) <= got.upper_bound
        assert wait_until(lambda: len(CALL_LOG.calls("Solve")) - before == 6)
        assert {r["code"] for r in CALL_LOG.calls("Solve")[before:]} == {"OK"}
        assert s.service.margin.seconds() >= 0.010
        channel.close()


def test_a_call_answered_late_is_not_logged_ok_when_the_client_gave_up():
    # Not a timing claim: with no time left to search, the server says so instead of answering late.
    message = json_format.ParseDict(heavy_request(), revenue_pb2.SolveRequest())
    with running(workers=1, max_queue=2) as s:
        service, channel = stub(s)
        try:
            got = service.Solve(message, timeout=0.02)
        except grpc.RpcError as err:
            assert err.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        else:    # the heuristic's first run made it within the 20 ms: a run, unproved, within its bound
            assert got.routes and not got.optimal and got.revenue <= got.upper_bound
        channel.close()


def test_a_first_call_stopped_before_the_trains_bounds_still_answers_with_a_bound(monkeypatch):
    # A process's first search loads the kernels on a worker thread, which no flag interrupts: when the
    # deadline passed before it had the trains' bounds (revenue.optimizer.relax), the answer's bound raised KeyError
    # (seen in fresh processes with deadlines of 0.1-1.5 s on the busy machine). Slow bounds stand in for
    # the loading here.
    import threading

    from revenue.optimizer import search as search_module, solve

    slow = threading.Event()
    real = search_module.type_bounds

    def slow_type_bounds(*args, **kwargs):
        if threading.current_thread().name == "revenue-solve":      # the worker, as while loading
            slow.wait(2.0)
        return real(*args, **kwargs)

    monkeypatch.setattr(search_module, "type_bounds", slow_type_bounds)
    monkeypatch.setattr(search_module, "_compiled", threading.Event())    # as in a fresh process
    result = solve(unproved_request(), deadline=0.05, cancel=threading.Event())
    slow.set()
    assert result["routes"] == [] and not result["optimal"] and result["stats"]["timed_out"]
    # the bound is the trains' relaxation: what a finished search's answer never exceeds
    assert result["upper_bound"] >= solve(unproved_request(), deadline=0.5)["upper_bound"] > 0
