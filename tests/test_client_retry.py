"""RouteClient sends a call again when a server answers UNAVAILABLE or CANCELLED (a server shutting down:
gRPC's own server cancels the calls no handler had taken yet, grpc/grpc#41785), directly and through
docs/nginx.conf, and not on other errors; a servicer here answers with scripted statuses before the real
answer."""
from __future__ import annotations

from concurrent import futures

import grpc
import pytest

from revenue.client import BALANCED_OPTIONS, RouteClient, ServiceError
from revenue.v1 import revenue_pb2, service_pb2_grpc

from .nginx import running_nginx


class Scripted(service_pb2_grpc.RouteServiceServicer):
    """ListTitles answers each status of `failures` in turn, then a list of one title."""

    def __init__(self, failures: list[grpc.StatusCode]):
        self.failures = list(failures)
        self.calls = 0

    def ListTitles(self, request, context):
        self.calls += 1
        if self.failures:
            context.abort(self.failures.pop(0), "scripted")
        return revenue_pb2.ListTitlesResponse(titles=[revenue_pb2.TitleInfo(name="1830")])


@pytest.fixture
def scripted():
    def start(failures):
        servicer = Scripted(failures)
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        service_pb2_grpc.add_RouteServiceServicer_to_server(servicer, server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        started.append(server)
        return servicer, f"127.0.0.1:{port}"
    started: list[grpc.Server] = []
    yield start
    for server in started:
        server.stop(None)


@pytest.mark.parametrize("options", [None, BALANCED_OPTIONS], ids=["plain", "balanced"])
def test_sent_again_after_a_stopping_servers_answers(scripted, options):
    servicer, target = scripted([grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE])
    with RouteClient(target, options=options) as client:
        titles = client.list_titles(timeout=10)
    assert [t["name"] for t in titles["titles"]] == ["1830"]
    assert servicer.calls == 3


def test_sent_again_through_nginx(scripted, tmp_path):
    """nginx passes a server's CANCELLED on as the answer it is; the client's retry sends the call again."""
    servicer, target = scripted([grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE])
    port = int(target.rsplit(":", 1)[1])
    with running_nginx((port, port), (port, port), tmp_path) as proxy:
        with RouteClient(f"127.0.0.1:{proxy.grpc_port}") as client:
            titles = client.list_titles(timeout=10)
    assert [t["name"] for t in titles["titles"]] == ["1830"]
    assert servicer.calls == 3


def test_not_sent_again_after_other_errors(scripted):
    servicer, target = scripted([grpc.StatusCode.INTERNAL])
    with RouteClient(target) as client:
        with pytest.raises(ServiceError) as raised:
            client.list_titles(timeout=10)
    assert raised.value.code == grpc.StatusCode.INTERNAL and servicer.calls == 1


def test_gives_up_after_four_attempts(scripted):
    servicer, target = scripted([grpc.StatusCode.CANCELLED] * 5)
    with RouteClient(target) as client:
        with pytest.raises(ServiceError) as raised:
            client.list_titles(timeout=10)
    assert raised.value.code == grpc.StatusCode.CANCELLED and servicer.calls == 4
