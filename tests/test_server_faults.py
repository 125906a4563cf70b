"""A search that raises is a fault whenever it happens, over gRPC and HTTP: INTERNAL (HTTP 500) with a
generic message and no trace of the exception, logged at ERROR with its type, message and traceback,
even when its deadline passed or its call was cancelled meanwhile (a search that stops normally by its
deadline or a cancel keeps DEADLINE_EXCEEDED or CANCELLED: tests/test_server.py, tests/test_http.py);
and a fault after the call ended (its client gone) is still logged."""
from __future__ import annotations

import json
import logging
import time

import grpc
import httpx
import pytest
from google.protobuf import json_format

from benchmarks.scenarios import title_scenarios
from revenue.v1 import revenue_pb2
from server import service as service_module
from server.app import LogFormat

from .server_helpers import CALL_LOG, running, stub, wait_until

pytestmark = pytest.mark.allow_error_log    # each test provokes an ERROR and checks it
SECRET = "secret detail"


@pytest.fixture(scope="module")
def server():
    with running(workers=2, max_queue=8, max_compute_ms=10_000, http_port=0) as s:
        yield s


class ErrorRecords(logging.Handler):
    def __init__(self):
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def errors():
    """The ERROR records of the server's logger during the test."""
    handler = ErrorRecords()
    logger = logging.getLogger("revenue.server")
    logger.addHandler(handler)
    yield handler.records
    logger.removeHandler(handler)


def raising_after_the_deadline(request, deadline=None, cancel=None, **kwargs):
    time.sleep(deadline + 0.05)
    raise RuntimeError(SECRET)


def raising_after_a_cancel(request, deadline=None, cancel=None, **kwargs):
    cancel.set()
    raise RuntimeError(SECRET)


def raising_once_cancelled(request, deadline=None, cancel=None, **kwargs):
    cancel.wait(30)
    raise RuntimeError(SECRET)


def request(deadline_ms: int = 50) -> dict:
    return {**title_scenarios()[0].request, "deadline_ms": deadline_ms}


def solve_message(deadline_ms: int = 50) -> revenue_pb2.SolveRequest:
    return json_format.ParseDict(request(deadline_ms), revenue_pb2.SolveRequest())


def assert_logged(errors: list, method: str) -> str:
    """The one ERROR record of a fault in `method`: a line with its type and message, its traceback at
    ERROR too. Its incident id."""
    assert wait_until(lambda: len(errors) >= 1), "no ERROR logged"
    assert len(errors) == 1, [r.getMessage() for r in errors]
    record = errors[0]
    message = record.getMessage()
    assert record.levelno == logging.ERROR and "\n" not in message
    assert f" in {method}: RuntimeError: {SECRET}" in message, message
    assert record.exc_info is not None and record.exc_info[0] is RuntimeError
    text = LogFormat("%(message)s").format(record)
    assert text.startswith("ERROR incident ") and "Traceback (most recent call last)" in text
    return message.split()[1]


def assert_generic(message: str, incident: str) -> None:
    assert f"incident {incident}" in message
    assert SECRET not in message and "Traceback" not in message and "RuntimeError" not in message


@pytest.mark.parametrize("search", [raising_after_the_deadline, raising_after_a_cancel])
def test_a_solve_whose_search_raises_is_internal(server, errors, monkeypatch, search):
    monkeypatch.setattr(service_module, "solve", search)
    rpc, channel = stub(server)
    with pytest.raises(grpc.RpcError) as err:
        rpc.Solve(solve_message(), timeout=30)
    channel.close()
    assert err.value.code() == grpc.StatusCode.INTERNAL
    assert_generic(err.value.details(), assert_logged(errors, "Solve"))
    assert wait_until(lambda: CALL_LOG.calls("Solve")[-1]["code"] == "INTERNAL")


@pytest.mark.parametrize("search", [raising_after_the_deadline, raising_after_a_cancel])
def test_a_stream_whose_search_raises_is_internal(server, errors, monkeypatch, search):
    monkeypatch.setattr(service_module, "solve", search)
    rpc, channel = stub(server)
    with pytest.raises(grpc.RpcError) as err:
        list(rpc.SolveStream(solve_message(), timeout=30))
    channel.close()
    assert err.value.code() == grpc.StatusCode.INTERNAL
    assert_generic(err.value.details(), assert_logged(errors, "SolveStream"))


@pytest.mark.parametrize("search", [raising_after_the_deadline, raising_after_a_cancel])
def test_http_whose_search_raises_is_500(server, errors, monkeypatch, search):
    monkeypatch.setattr(service_module, "solve", search)
    with httpx.Client(base_url=f"http://127.0.0.1:{server.http_port}", timeout=30) as client:
        response = client.post("/v1/solve", json=request())
        assert response.status_code == 500
        body = response.json()
        assert body["code"] == grpc.StatusCode.INTERNAL.value[0]
        incident = assert_logged(errors, "Solve")
        assert_generic(response.text, incident)
        errors.clear()
        with client.stream("POST", "/v1/solve:stream", json=request()) as stream:
            assert stream.status_code == 500
            text = stream.read().decode()
        assert json.loads(text)["code"] == grpc.StatusCode.INTERNAL.value[0]
        assert_generic(text, assert_logged(errors, "SolveStream"))


def test_a_fault_after_the_client_went_away_is_logged(server, errors, monkeypatch):
    # The client leaves; its call is cancelled, and the search raises on seeing that, with no one
    # waiting for its outcome any more.
    monkeypatch.setattr(service_module, "solve", raising_once_cancelled)
    assert wait_until(lambda: server.service.admission.admitted == 0)
    with httpx.Client(base_url=f"http://127.0.0.1:{server.http_port}") as client:
        with pytest.raises(httpx.ReadTimeout):
            client.post("/v1/solve", json=request(0), timeout=httpx.Timeout(30, read=0.5))
    assert_logged(errors, "Solve")
    errors.clear()
    rpc, channel = stub(server)
    with pytest.raises(grpc.RpcError) as err:
        rpc.Solve(solve_message(0), timeout=0.5)
    channel.close()
    assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED     # gRPC ended the call itself
    assert_logged(errors, "Solve")
    assert wait_until(lambda: server.service.admission.admitted == 0)


def test_the_log_format_marks_all_but_info_lines_with_their_level():
    form = LogFormat("%(message)s")
    info = logging.LogRecord("revenue.server", logging.INFO, "", 0, '{"event": "serving"}', (), None)
    assert form.format(info) == '{"event": "serving"}'
    warning = logging.LogRecord("revenue.server", logging.WARNING, "", 0, "slow", (), None)
    assert form.format(warning) == "WARNING slow"
