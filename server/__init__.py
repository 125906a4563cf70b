"""The service revenue.v1.RouteService over gRPC and HTTP/JSON (docs/service.md): `revenue serve`, or in
code (the repository's server/ installs as revenue.server)

    from revenue.server import Config, RouteServer
    server = RouteServer(Config(port=0, http_port=0)).start(); server.wait_ready(); ...; server.stop(1)
"""
from __future__ import annotations

import importlib

# Imported when first named (PEP 562): the command line registers `revenue serve` from this package, and
# `revenue solve` or `evaluate` should not pay for loading gRPC and the HTTP stack they never use.
_EXPORTS = {"Config": "app", "RouteServer": "app", "configure_logging": "app", "serve": "app",
            "Limits": "limits", "RouteService": "service"}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
