"""Bearer-token auth of the service, for both transports: `bearer_accepts` (HTTP checks it per request) and
`BearerAuth`, the gRPC server's interceptor."""
from __future__ import annotations

import hmac
import json
import logging

import grpc

from .service import SERVICE_NAME

log = logging.getLogger("revenue.server")


def bearer_accepts(given: str | bytes, token: bytes) -> bool:
    """Whether an `authorization` value is `Bearer <token>`: the scheme in any case and any spaces after
    it (RFC 6750, RFC 7235), the token compared in constant time. For both transports."""
    given = given.encode() if isinstance(given, str) else given
    scheme, _, rest = given.strip().partition(b" ")
    return scheme.lower() == b"bearer" and hmac.compare_digest(rest.lstrip(b" "), token)


class BearerAuth(grpc.ServerInterceptor):
    """UNAUTHENTICATED for RouteService calls without `authorization: Bearer <token>`; health and
    reflection stay open so that load balancers and tools can see the server."""

    def __init__(self, token: str):
        self._expected = token.encode()

    def accepts(self, given: str | bytes) -> bool:
        return bearer_accepts(given, self._expected)

    def intercept_service(self, continuation, details):
        handler = continuation(details)
        if handler is None or not details.method.startswith(f"/{SERVICE_NAME}/"):
            return handler
        given = next((v for k, v in details.invocation_metadata or () if k == "authorization"), "")
        if self.accepts(given):
            return handler
        method = details.method.rsplit("/", 1)[-1]

        def deny(request, context):
            log.info(json.dumps({"method": method, "code": "UNAUTHENTICATED", "elapsed_ms": 0.0,
                                 "error": "missing or wrong bearer token"}))
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or wrong bearer token "
                                                           "(metadata authorization: Bearer <token>)")

        if handler.response_streaming:
            def deny_stream(request, context):
                deny(request, context)
                yield  # pragma: no cover  (never reached: abort raises)
            return grpc.unary_stream_rpc_method_handler(deny_stream, handler.request_deserializer,
                                                        handler.response_serializer)
        return grpc.unary_unary_rpc_method_handler(deny, handler.request_deserializer, handler.response_serializer)
