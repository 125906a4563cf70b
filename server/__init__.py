"""The service revenue.v1.RouteService over gRPC and HTTP/JSON (docs/service.md): `revenue serve`, or in
code (the repository's server/ installs as revenue.server)

    from revenue.server import Config, RouteServer
    server = RouteServer(Config(port=0, http_port=0)).start(); server.wait_ready(); ...; server.stop(1)
"""
from .app import Config, RouteServer, configure_logging, serve
from .service import Limits, RouteService

__all__ = ["Config", "Limits", "RouteServer", "RouteService", "configure_logging", "serve"]
