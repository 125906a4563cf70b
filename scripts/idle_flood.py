"""Idle HTTP connections against `python -m server` with its defaults (issue 40's flood): COUNT connections
(default 22,000) that each send a request line and nothing more, opened by processes of 11,000 each (a
process's descriptor limit is often 20,000); /healthz and gRPC health timed meanwhile, and the server's log
lines during the flood printed.

    python scripts/idle_flood.py [COUNT]
"""
import pathlib
import socket
import subprocess
import sys
import threading
import time

import grpc
import httpx
from grpc_health.v1 import health_pb2, health_pb2_grpc

ROOT = pathlib.Path(__file__).resolve().parents[1]
COUNT = int(sys.argv[1]) if len(sys.argv) > 1 else 22_000
PER_PROCESS = 11_000


def free():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


port, hport = free(), free()
srv = subprocess.Popen([sys.executable, "-m", "server", "--port", str(port), "--http-port", str(hport)],
                       cwd=ROOT, stderr=subprocess.PIPE, text=True)
lines = []
threading.Thread(target=lambda: [lines.append(l) for l in srv.stderr], daemon=True).start()
while not any('"serving"' in l for l in lines):
    time.sleep(0.5)
n0 = len(lines)
flood = f"""
import socket, time, sys
socks = []
for i in range({{n}}):
    try:
        s = socket.create_connection(("127.0.0.1", {hport}), timeout=5); s.sendall(b"GET /healthz HTTP/1.1\\r\\n"); socks.append(s)
    except OSError as e:
        print("open failed at", i, e, flush=True); break
print("opened", len(socks), flush=True)
time.sleep(30)
"""
sizes = [min(PER_PROCESS, COUNT - k) for k in range(0, COUNT, PER_PROCESS)]
procs = [subprocess.Popen([sys.executable, "-c", flood.replace("{n}", str(n))], stdout=subprocess.PIPE, text=True)
         for n in sizes]
time.sleep(8)
ch = grpc.insecure_channel(f"127.0.0.1:{port}"); hs = health_pb2_grpc.HealthStub(ch)
for i in range(5):
    t = time.perf_counter()
    try:
        r = httpx.get(f"http://127.0.0.1:{hport}/healthz", timeout=5).json(); a = time.perf_counter() - t
    except Exception as e:
        r, a = repr(e), time.perf_counter() - t
    t = time.perf_counter(); g = hs.Check(health_pb2.HealthCheckRequest(), timeout=5).status; b = time.perf_counter() - t
    print(f"healthz {r} {a*1000:.0f} ms; grpc health {g} {b*1000:.0f} ms", flush=True)
    time.sleep(2)
for p in procs:
    print(p.communicate()[0].strip())
srv.terminate(); srv.wait(30)
new = lines[n0:]
print(len(new), "log lines during the flood and the stop:")
print("".join(new[:8])[:2000])
