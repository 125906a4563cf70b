"""The gRPC service revenue.v1.RouteService (docs/service.md): `revenue serve`, or in code

    from server import Config, RouteServer
    server = RouteServer(Config(port=0)).start(); server.wait_ready(); ...; server.stop(1)
"""
from .app import Config, RouteServer, configure_logging, serve
from .service import Limits, RouteService

__all__ = ["Config", "Limits", "RouteServer", "RouteService", "configure_logging", "serve"]
