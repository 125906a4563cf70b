"""docs/nginx.conf run by nginx in front of given servers, on free ports of its own (skipped when nginx is
not installed; .ci/run installs it)."""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
from pathlib import Path
from typing import Iterator, NamedTuple

import pytest

from .server_helpers import ROOT, wait_until

NGINX_CONF = ROOT / "docs" / "nginx.conf"


class Nginx(NamedTuple):
    grpc_port: int
    http_port: int
    error_log: Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def running_nginx(grpc_ports: tuple[int, int], http_ports: tuple[int, int], folder: Path) -> Iterator[Nginx]:
    """nginx with docs/nginx.conf, its two gRPC and two HTTP upstreams at these localhost ports."""
    binary = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    if binary is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI must run the nginx tests: nginx is not installed")
        pytest.skip("nginx is not installed (.ci/run installs it)")
    grpc_port, http_port = free_port(), free_port()
    conf = NGINX_CONF.read_text()
    for old, new in (("127.0.0.1:50051", f"127.0.0.1:{grpc_ports[0]}"),
                     ("127.0.0.1:50052", f"127.0.0.1:{grpc_ports[1]}"),
                     ("127.0.0.1:8081", f"127.0.0.1:{http_ports[0]}"),
                     ("127.0.0.1:8082", f"127.0.0.1:{http_ports[1]}"),
                     ("listen 127.0.0.1:50050 ", f"listen 127.0.0.1:{grpc_port} "),
                     ("listen 127.0.0.1:8000;", f"listen 127.0.0.1:{http_port};")):
        assert old in conf, old
        conf = conf.replace(old, new)
    (folder / "revenue.conf").write_text(conf)
    user = "user root;\n" if os.geteuid() == 0 else ""    # its workers write the temp folders below
    (folder / "nginx.conf").write_text(f"""{user}daemon off;
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    include {folder}/revenue.conf;
}}
""")
    proc = subprocess.Popen([binary, "-p", str(folder), "-c", str(folder / "nginx.conf")],
                            stderr=subprocess.PIPE, text=True)
    try:
        def listening():
            with socket.create_connection(("127.0.0.1", http_port), timeout=1):
                return True
        assert wait_until(lambda: proc.poll() is None and _quietly(listening), timeout=10), proc.stderr.read()
        yield Nginx(grpc_port, http_port, folder / "error.log")
    finally:
        proc.send_signal(signal.SIGQUIT)          # nginx's graceful stop
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _quietly(predicate) -> bool:
    try:
        return predicate()
    except OSError:
        return False
