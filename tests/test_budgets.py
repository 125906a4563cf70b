"""Budgets of every stage of a call (issue 40): hostile boards within the documented limits end within their
deadline and memory cap in the library and on the command line, Evaluate takes a deadline, a server
process always ends after SIGTERM's grace, and its health says NOT_SERVING while it cannot take work."""
from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time

import pytest

import revenue
from revenue import budget, evaluation
from revenue.errors import InputError, Interrupted
from revenue.optimizer import Cancel
from server.admission import Admission

from .hostile_boards import all_pairs_board, evaluate_request, mixed_board
from .server_helpers import ROOT, running, stub, violations, wait_until

SLACK = 1.0     # seconds past its deadline a call may take to end
# A walk past its step cap (revenue.budget.MAX_WALK_STEPS, a few seconds) ends as bad input: on a fast
# machine that may come before a deadline of a second or two.
ENDED = (Interrupted, InputError)


def timed(fn, *args, **kwargs):
    started = time.perf_counter()
    try:
        return fn(*args, **kwargs), time.perf_counter() - started
    except Exception as exc:
        return exc, time.perf_counter() - started


def test_all_pairs_junction_board_ends_at_its_deadline():
    revenue.solve(all_pairs_board(4))       # (compiled and loaded first)
    outcome, seconds = timed(revenue.solve, all_pairs_board(20), deadline=1.0)
    assert isinstance(outcome, ENDED) and seconds < 1.0 + SLACK, (outcome, seconds)
    # the graph of a board stopped before it was built is not remembered: the same board stops again
    outcome, seconds = timed(revenue.solve, all_pairs_board(20), deadline=0.3)
    assert isinstance(outcome, Interrupted) and seconds < 0.3 + SLACK


def test_a_cancel_stops_the_track_graph():
    cancel = Cancel()
    threading.Timer(0.3, cancel.set).start()
    outcome, seconds = timed(revenue.solve, all_pairs_board(20), cancel=cancel)
    assert isinstance(outcome, Interrupted) and seconds < 0.3 + SLACK


def test_mixed_board_is_refused_within_the_memory_cap():
    outcome, seconds = timed(revenue.solve, mixed_board(400), deadline=10.0, memory_mb=256)
    assert isinstance(outcome, InputError), outcome
    assert outcome.field == "board" and "memory cap of 256 MB" in outcome.description
    assert seconds < 10.0 + SLACK


def test_the_walk_has_a_step_cap_without_a_deadline(monkeypatch):
    monkeypatch.setattr(budget, "MAX_WALK_STEPS", 100_000)
    with pytest.raises(InputError) as err:
        revenue.solve(all_pairs_board(20))
    assert err.value.field == "board" and "100,000 steps" in err.value.description


def test_evaluate_takes_a_deadline():
    request = evaluate_request(all_pairs_board(16))
    outcome, seconds = timed(revenue.evaluate, request, deadline=1.0)
    assert isinstance(outcome, ENDED) and seconds < 1.0 + SLACK
    small = evaluate_request(all_pairs_board(4))
    assert revenue.evaluate(small, deadline=30.0) == revenue.evaluate(small)


def test_the_checks_of_given_routes_stop_at_a_cancel_and_past_their_step_cap(monkeypatch):
    """The searches that check routes (the track a route given by its stops may take, one choice per route
    sharing no track) read the call's cancel and count their steps: here every step is read."""
    request = json.loads((ROOT / "examples" / "evaluate_1830.json").read_text())
    assert revenue.evaluate(request)["legal"]
    monkeypatch.setattr(budget, "CHECK_EVERY", 1)
    cancel = threading.Event()
    original = evaluation.compile_problem

    def compiled_then_cancelled(*args):       # the board's graph and arrays built, then the client goes
        problem = original(*args)
        cancel.set()
        return problem
    monkeypatch.setattr(evaluation, "compile_problem", compiled_then_cancelled)
    with pytest.raises(Interrupted, match="while checking the track a route may take"):
        revenue.evaluate(request, cancel=cancel)
    monkeypatch.setattr(evaluation, "compile_problem", original)
    monkeypatch.setattr(budget, "MAX_CHECK_STEPS", 2)
    with pytest.raises(InputError) as err:
        revenue.evaluate(request)
    assert err.value.field == "routes" and "more than 2 steps" in err.value.description


def _cli(args: list[str], request: dict) -> tuple[subprocess.CompletedProcess, float, float]:
    """`revenue ARGS FILE` on `request`: the process, its seconds and its own peak RSS (MB; os.wait4's
    rusage of this child alone: RUSAGE_CHILDREN holds the largest of every child the tests ran)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(request, fh)
    try:
        with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
            started = time.perf_counter()
            command = os.path.join(os.path.dirname(sys.executable), "revenue")
            child = subprocess.Popen([command, *args, fh.name], cwd=ROOT, stdout=out, stderr=err, text=True)
            _, status, usage = os.wait4(child.pid, 0)
            seconds = time.perf_counter() - started
            child.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            proc = subprocess.CompletedProcess(child.args, child.returncode, out.read(), err.read())
    finally:
        os.unlink(fh.name)
    return proc, seconds, usage.ru_maxrss / 1024


def _startup() -> float:
    """Seconds the command line takes to start and answer a small board (the import of the kernels)."""
    proc, seconds, _ = _cli(["solve", "--json"], all_pairs_board(4))
    assert proc.returncode == 0, proc.stderr
    return seconds


@pytest.mark.slow
def test_hostile_boards_on_the_command_line():
    startup = _startup()
    proc, seconds, _ = _cli(["solve", "--deadline-ms", "1000"], all_pairs_board(20))
    assert proc.returncode in (2, 3) and "track graph" in proc.stderr, proc.stderr
    assert seconds < startup + 1.0 + SLACK, (seconds, startup)
    proc, seconds, _ = _cli(["evaluate", "--deadline-ms", "1000"], evaluate_request(all_pairs_board(16)))
    assert proc.returncode in (2, 3), proc.stderr
    assert seconds < startup + 1.0 + SLACK, (seconds, startup)
    proc, seconds, peak_mb = _cli(["solve", "--deadline-ms", "10000", "--memory-mb", "256"], mixed_board(400))
    assert proc.returncode == 2 and "error: board: the track graph" in proc.stderr, proc.stderr
    assert seconds < startup + 10.0 + SLACK
    assert peak_mb < 256 + 256, peak_mb    # (the process's own ~200 MB of modules and kernels included)


@pytest.mark.slow
def test_hostile_boards_in_the_service_end_within_their_deadline_and_others_are_served():
    import grpc
    from google.protobuf import json_format

    from revenue.v1 import revenue_pb2

    def message(request: dict, kind):
        return json_format.ParseDict(request, kind())

    with running(workers=2, max_queue=4, max_compute_ms=10_000) as server:
        rpc, channel = stub(server)
        try:
            pairs = message(all_pairs_board(20), revenue_pb2.SolveRequest)
            calls = [rpc.Solve.future(pairs, timeout=2.0) for _ in range(2)]     # both workers
            started = time.perf_counter()
            for call in calls:
                with pytest.raises(grpc.RpcError) as err:
                    call.result()
                assert err.value.code() in (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.INVALID_ARGUMENT)
            assert time.perf_counter() - started < 2.0 + SLACK
            # the workers are free again at once
            assert rpc.Solve(message(all_pairs_board(4), revenue_pb2.SolveRequest), timeout=5).optimal
            with pytest.raises(grpc.RpcError) as err:
                rpc.Evaluate(message(evaluate_request(all_pairs_board(16)), revenue_pb2.EvaluateRequest), timeout=1.5)
            assert err.value.code() in (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.INVALID_ARGUMENT)
            started = time.perf_counter()
            with pytest.raises(grpc.RpcError) as err:
                rpc.Solve(message(mixed_board(400), revenue_pb2.SolveRequest), timeout=10)
            assert [f for f, _ in violations(err.value)] == ["board"]
            assert time.perf_counter() - started < 10.0
        finally:
            channel.close()


def test_admission_says_when_every_turn_is_stuck():
    admission = Admission(1, 0)
    release = threading.Event()
    try:
        future = admission.submit(lambda: release.wait(10))
        assert not admission.stuck(0.2)
        assert wait_until(lambda: admission.stuck(0.2), timeout=3)
        release.set()
        future.result(timeout=5)
        assert wait_until(lambda: not admission.stuck(0.2), timeout=3)
    finally:
        release.set()
        admission.shutdown()


_STUCK_SERVER = """
import sys, time
import revenue.evaluation

original = revenue.evaluation.evaluate

def evaluate(request, deadline=None, cancel=None, memory_mb=None):
    if not request.get("board"):    # the test's call: a stage that ignores its cancel
        time.sleep(600)
    return original(request, deadline, cancel, memory_mb)     # (the warm-up's)

revenue.evaluation.evaluate = evaluate
from server.app import Config, serve
serve(Config(port=int(sys.argv[1]), workers=1, grace_seconds=1.0, processes=1))
"""


@pytest.mark.slow
def test_sigterm_ends_a_server_whose_call_ignores_its_cancel():
    import grpc

    from revenue.v1 import revenue_pb2, service_pb2_grpc

    from .test_server import free_port

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-c", _STUCK_SERVER, str(port)], cwd=ROOT, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    lines: list[dict] = []
    reader = threading.Thread(target=lambda: lines.extend(json.loads(line) for line in proc.stderr
                                                          if line.startswith("{")), daemon=True)
    reader.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        assert wait_until(lambda: any(r.get("event") == "serving" for r in lines), timeout=120), lines
        stub = service_pb2_grpc.RouteServiceStub(channel)
        call = stub.Evaluate.future(revenue_pb2.EvaluateRequest(), timeout=60)
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        stopping = time.perf_counter()
        try:
            assert proc.wait(timeout=15) == 0, lines
        except subprocess.TimeoutExpired:
            raise AssertionError(f"no exit: {lines[-4:]}") from None
        assert time.perf_counter() - stopping < 1.0 + 1.0 + 3.0      # grace, abandon, slack
        reader.join(5)
        assert lines[-1]["event"] == "stopped" and lines[-1].get("abandoned") == 1, lines[-3:]
        with pytest.raises(grpc.RpcError):
            call.result(timeout=5)
    finally:
        channel.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
