"""Fair admission (issue 15): long searches cannot starve small calls of a thread or of a queue slot."""
from __future__ import annotations

import json
import threading
import time

import grpc
import pytest
from google.protobuf import json_format

from benchmarks.scenarios import title_scenarios
from revenue.v1 import revenue_pb2, steam_pb2
from revenue.optimizer import solve
from server.service import RouteService, cost_key

from .server_helpers import EXAMPLES, heavy_deliveries, heavy_request, running, stub, wait_until

SCENARIOS = title_scenarios()


def solve_message(request: dict) -> revenue_pb2.SolveRequest:
    return json_format.ParseDict(request, revenue_pb2.SolveRequest())


def test_small_calls_pass_long_searches():
    # Two workers and a queue of 8: long searches get one worker and 6 of the 8 slots.
    with running(workers=2, max_queue=8, max_compute_ms=10_000) as s:
        service, channel = stub(s)
        heavy = solve_message(heavy_request())
        futures = [service.Solve.future(heavy, timeout=60) for _ in range(7)]
        assert wait_until(lambda: s.service.admission.admitted == 7, timeout=10)
        for _ in range(3):
            with pytest.raises(grpc.RpcError) as err:
                service.Solve(heavy, timeout=60)
            assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert s.service.admission.running_large == 1
        # Small calls are all answered, each well within a 5 s deadline, while the long searches go on.
        for scenario in SCENARIOS[:6]:
            assert service.Solve(solve_message(scenario.request), timeout=5).optimal
        assert s.service.admission.admitted_large == 7
        for future in futures:
            future.cancel()
        assert wait_until(lambda: s.service.admission.admitted == 0, timeout=10)
        channel.close()


def test_one_worker_serves_a_small_call_before_later_long_ones():
    # With one worker there is no thread to keep: a small call waits for the running search, then goes
    # before long searches that came after it.
    with running(workers=1, max_queue=4, max_compute_ms=10_000) as s:
        service, channel = stub(s)
        running_search = service.Solve.future(solve_message(heavy_request()), timeout=60)
        assert wait_until(lambda: s.service.admission.admitted == 1)
        small = service.Solve.future(solve_message(SCENARIOS[0].request), timeout=60)
        assert wait_until(lambda: s.service.admission.admitted == 2)
        later = service.Solve.future(solve_message(heavy_request()), timeout=60)
        assert wait_until(lambda: s.service.admission.admitted == 3)
        time.sleep(0.2)
        assert not small.done()                       # the only worker is busy
        running_search.cancel()
        assert small.result(timeout=30).optimal       # before the later long search
        assert not later.done()
        later.cancel()
        assert wait_until(lambda: s.service.admission.admitted == 0, timeout=10)
        channel.close()


def test_what_counts_as_large():
    service = RouteService(workers=1, max_queue=1)
    try:
        title = solve_message(SCENARIOS[0].request)
        dense = solve_message(heavy_request())
        assert not service.expect_large(title) and service.expect_large(dense)
        # What a search of the same board and trains took overrides the guess from its shape.
        service.costs.put(cost_key(title), 0.5, 200)
        service.costs.put(cost_key(dense), 0.01, 200)
        assert service.expect_large(title) and not service.expect_large(dense)
        service.costs.put(cost_key(dense), float("inf"), 200)      # stopped unproved
        assert service.expect_large(dense)
    finally:
        service.admission.shutdown()


def test_long_deliveries_leave_room_for_small_ones():
    with running(workers=2, max_queue=4, max_compute_ms=10_000) as s:
        service, channel = stub(s)
        heavy = json_format.ParseDict(heavy_deliveries(), steam_pb2.DeliveriesRequest())
        futures = [service.Deliveries.future(heavy, timeout=60) for _ in range(4)]
        assert wait_until(lambda: s.service.admission.admitted_large == 4, timeout=10)
        with pytest.raises(grpc.RpcError) as err:
            service.Deliveries(heavy, timeout=60)
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        small = json_format.ParseDict(json.loads((EXAMPLES / "steam.json").read_text()), steam_pb2.DeliveriesRequest())
        assert service.Deliveries(small, timeout=5).best.own_points > 0
        for future in futures:
            future.cancel()
        assert wait_until(lambda: s.service.admission.admitted == 0, timeout=10)
        channel.close()


def _count_searches(service, monkeypatch) -> list:
    """Wraps the service's search of a Solve; the list gets the name of each search's thread."""
    searches = []
    search = service.solve_work

    def counting(*args, **kwargs):
        searches.append(threading.current_thread().name)
        return search(*args, **kwargs)
    monkeypatch.setattr(service, "solve_work", counting)
    return searches


def test_small_solve_is_searched_on_the_grpc_thread_that_took_it(monkeypatch):
    with running(workers=1, max_queue=2, max_compute_ms=10_000) as s:
        service, channel = stub(s)
        searches = _count_searches(s.service, monkeypatch)
        request = SCENARIOS[0].request
        got = service.Solve(solve_message(request), timeout=30)
        want = solve(request)
        assert (got.revenue, got.optimal) == (want["revenue"], True)
        assert len(searches) == 1 and searches[0].startswith("revenue-grpc")
        assert s.service.admission.admitted == 0
        # With the only worker busy, a small call waits for its turn (it passes no one in the queue).
        heavy = service.Solve.future(solve_message(heavy_request()), timeout=60)
        assert wait_until(lambda: s.service.admission.admitted == 1)
        small = service.Solve.future(solve_message(request), timeout=60)
        assert wait_until(lambda: s.service.admission.admitted == 2)
        time.sleep(0.2)
        assert len(searches) == 2 and not small.done()
        heavy.cancel()
        assert small.result(timeout=30).revenue == want["revenue"]
        assert len(searches) == 3 and all(name.startswith("revenue-grpc") for name in searches)
        assert wait_until(lambda: s.service.admission.admitted == 0, timeout=10)
        channel.close()


def test_a_solve_is_searched_once_within_its_own_limits(monkeypatch):
    # No first try with a shorter cap (as when small Solves were tried first on grpc.aio's event loop):
    # each call's one search has the call's own limit, here the compute cap.
    from server import service as service_module

    deadlines = []
    search = service_module.solve

    def recording(request, deadline=None, **kwargs):
        deadlines.append(deadline)
        return search(request, deadline=deadline, **kwargs)
    with running(workers=2, max_queue=2, max_compute_ms=10_000) as s:
        monkeypatch.setattr(service_module, "solve", recording)     # after the warm-up's solves
        service, channel = stub(s)
        for scenario in SCENARIOS[:3]:
            got = service.Solve(solve_message(scenario.request), timeout=30)
            want = search(scenario.request)
            assert (got.revenue, got.optimal) == (want["revenue"], True)
        assert len(deadlines) == 3 and all(d == 10.0 for d in deadlines), deadlines
        assert s.service.admission.admitted == 0
        channel.close()
