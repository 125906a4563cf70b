"""A small Python client of the revenue.v1.RouteService gRPC service (docs/service.md).

    from revenue.client import RouteClient
    with RouteClient("localhost:50051") as client:
        best = client.solve({"board": {...}, "company": {...}}, timeout=2.0)
        print(best["revenue"], best["optimal"], [r["nodes"] for r in best["routes"]])

Requests and answers are dicts in the proto3 JSON shape of the revenue.v1 messages (proto field names,
every field written out, 64-bit integers as strings as proto3 JSON has them). A request that does not fit
its message raises InputError naming the field before anything is sent; an error status from the server
raises ServiceError, whose `violations` lists the fields of an INVALID_ARGUMENT.
"""
from __future__ import annotations

import json
from typing import Any, Iterator

import grpc
from google.protobuf import json_format

from .api import parse_request
from .errors import InputError

__all__ = ["BALANCED_OPTIONS", "RETRY_OPTIONS", "RouteClient", "ServiceError", "InputError"]

# Every call is sent again (up to 3 more times, backing off from 50 ms) when a server answers UNAVAILABLE
# (it refused the call before beginning it) or CANCELLED (it shut down before or while computing it: gRPC's
# own server cancels the calls that arrived but that no handler had taken yet, grpc/grpc#41785). Every
# RouteService call is safe to send twice: nothing is written (docs/deploy.md).
RETRY_METHOD_CONFIG = {
    "name": [{"service": "revenue.v1.RouteService"}],
    "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.05s", "maxBackoff": "1s",
                    "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE", "CANCELLED"]},
}
RETRY_OPTIONS = [("grpc.service_config", json.dumps({"methodConfig": [RETRY_METHOD_CONFIG]})),
                 ("grpc.enable_retries", 1)]

# Channel options for a target of several servers (a DNS name of many addresses, or
# "ipv4:10.0.0.1:50051,10.0.0.2:50051"): calls spread round robin over the servers whose health service
# says SERVING (so a stopping server gets no new call), with the retries above.
BALANCED_SERVICE_CONFIG = {
    "loadBalancingConfig": [{"round_robin": {}}],
    "healthCheckConfig": {"serviceName": "revenue.v1.RouteService"},
    "methodConfig": [RETRY_METHOD_CONFIG],
}
BALANCED_OPTIONS = [("grpc.service_config", json.dumps(BALANCED_SERVICE_CONFIG)), ("grpc.enable_retries", 1)]


class ServiceError(Exception):
    """The server answered an error status: `code` (a grpc.StatusCode), `details` (its message), and for
    bad input `violations`, the [(field, description)] of the google.rpc.BadRequest."""

    def __init__(self, error: grpc.RpcError):
        self.code: grpc.StatusCode = error.code()
        self.details: str = error.details() or ""
        self.violations: list[tuple[str, str]] = _violations(error)
        super().__init__(f"{self.code.name}: {self.details}")


def _violations(error: grpc.RpcError) -> list[tuple[str, str]]:
    from google.rpc import error_details_pb2
    from grpc_status import rpc_status

    try:
        status = rpc_status.from_call(error)
    except (AttributeError, ValueError):   # not a call (e.g. a local failure), or inconsistent trailers
        return []
    out = []
    for detail in status.details if status else ():
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            out += [(v.field, v.description) for v in bad.field_violations]
    return out


def _as_dict(message) -> dict:
    return json_format.MessageToDict(message, preserving_proto_field_name=True,
                                     always_print_fields_with_no_presence=True)


class RouteClient:
    """A connection to a RouteService server.

    target: "host:port", or several servers with options=BALANCED_OPTIONS. Options without a
    "grpc.service_config" get RETRY_OPTIONS' retries. token: the server's --auth-token, sent as
    `authorization: Bearer <token>`.
    For TLS give `root_certificates` (PEM bytes of the CA, or of a self-signed server certificate) or
    `secure=True` to trust the system's roots; `credentials` takes ready grpc.ChannelCredentials.
    """

    def __init__(self, target: str = "localhost:50051", token: str | None = None, *, secure: bool = False,
                 root_certificates: bytes | None = None, credentials: grpc.ChannelCredentials | None = None,
                 options: list[tuple[str, Any]] | None = None):
        from .v1 import service_pb2_grpc

        if credentials is None and (secure or root_certificates):
            credentials = grpc.ssl_channel_credentials(root_certificates=root_certificates)
        options = list(options or [])
        if not any(name == "grpc.service_config" for name, _ in options):
            options += RETRY_OPTIONS
        options.append(("grpc.max_receive_message_length", 64 * 1024 * 1024))
        self.channel = (grpc.secure_channel(target, credentials, options) if credentials
                        else grpc.insecure_channel(target, options))
        self.stub = service_pb2_grpc.RouteServiceStub(self.channel)
        self._metadata = (("authorization", f"Bearer {token}"),) if token else ()

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> "RouteClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def wait_ready(self, timeout: float = 10.0) -> None:
        """Block until the channel connects (grpc.FutureTimeoutError after `timeout` seconds)."""
        grpc.channel_ready_future(self.channel).result(timeout=timeout)

    def _call(self, method, request, timeout):
        try:
            return method(request, timeout=timeout, metadata=self._metadata)
        except grpc.RpcError as exc:
            raise ServiceError(exc) from None

    # ---- the methods -----------------------------------------------------------------------------------

    def solve(self, request: dict, timeout: float | None = None) -> dict:
        """The best routes (SolveResponse). `timeout` (seconds) is the call's deadline and the search's:
        when it passes after some routes were found, the answer is the best so far (optimal false)."""
        from .v1 import revenue_pb2

        message = self._message(request, revenue_pb2.SolveRequest)
        return _as_dict(self._call(self.stub.Solve, message, timeout))

    def solve_stream(self, request: dict, timeout: float | None = None) -> Iterator[dict]:
        """Each better answer as the search finds it, then the final one (with optimal and upper_bound).
        Stop iterating (or close the iterator) to cancel the search."""
        from .v1 import revenue_pb2

        message = self._message(request, revenue_pb2.SolveRequest)
        responses = self.stub.SolveStream(message, timeout=timeout, metadata=self._metadata)
        try:
            for response in responses:
                yield _as_dict(response)
        except grpc.RpcError as exc:
            raise ServiceError(exc) from None
        finally:
            responses.cancel()   # no-op when the stream is finished; stops the search when abandoned

    def evaluate(self, request: dict, timeout: float | None = None) -> dict:
        """Revenue and legality of given routes (EvaluateResponse)."""
        from .v1 import revenue_pb2

        message = self._message(request, revenue_pb2.EvaluateRequest)
        return _as_dict(self._call(self.stub.Evaluate, message, timeout))

    def list_titles(self, timeout: float | None = None) -> dict:
        """The titles served, with trains, phases and options (ListTitlesResponse)."""
        from .v1 import revenue_pb2

        return _as_dict(self._call(self.stub.ListTitles, revenue_pb2.ListTitlesRequest(), timeout))

    def deliveries(self, request: dict, timeout: float | None = None) -> dict:
        """Steam / Age of Steam goods deliveries (DeliveriesResponse)."""
        from .v1 import steam_pb2

        message = self._message(request, steam_pb2.DeliveriesRequest)
        return _as_dict(self._call(self.stub.Deliveries, message, timeout))

    def lays(self, request: dict, timeout: float | None = None) -> dict:
        """Every legal tile lay of the company, each valued by the best run it makes (LaysResponse)."""
        from .v1 import moves_pb2

        message = self._message(request, moves_pb2.LaysRequest)
        return _as_dict(self._call(self.stub.Lays, message, timeout))

    def tokens(self, request: dict, timeout: float | None = None) -> dict:
        """Every legal station token of the company, each valued likewise (TokensResponse)."""
        from .v1 import moves_pb2

        message = self._message(request, moves_pb2.TokensRequest)
        return _as_dict(self._call(self.stub.Tokens, message, timeout))

    @staticmethod
    def _message(request: dict, message_type):
        return json_format.ParseDict(parse_request(request, message_type), message_type())
