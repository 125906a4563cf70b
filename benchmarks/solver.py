"""Benchmark of the optimizer: every title scenario and random custom boards, warm and cold.

    python -m benchmarks            (or: revenue bench)

Per scenario: candidate routes, warm solve time (median and max of repeated runs, the whole library
call from the request dict), whether the answer is proved optimal, and the peak memory the solve adds
(measured in a forked child). The cold start is benchmarks.cold's.
"""
from __future__ import annotations

import os
import statistics
import time

from revenue.optimizer import solve

from .scenarios import Scenario, dense_custom, title_scenarios


def custom_scenarios() -> list[Scenario]:
    """Random custom boards: a small and a large dense map, limited and unlimited trains."""
    four, six, d = ({"name": "4", "distance": 4}, {"name": "6", "distance": 6}, {"name": "D", "distance": 999})
    boards = [
        dense_custom(11, 5, 5, [four], ["4", "4", "4"], link=0.7),
        dense_custom(12, 7, 7, [four, six], ["4", "6"], link=0.65),
        dense_custom(13, 10, 10, [four, six], ["4", "4", "6"], link=0.55),
        dense_custom(14, 7, 7, [d], ["D", "D"], link=0.55),
    ]
    for sc, label in zip(boards, ["small", "medium", "large", "medium 2xD"]):
        sc.name = f"custom {label}"
    return boards


def scenarios() -> list[Scenario]:
    return title_scenarios() + custom_scenarios()


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _peak_memory_mb(request: dict) -> float:
    """Extra resident memory of one solve: in a forked child, the high-water mark is reset to the
    current size (/proc/self/clear_refs), then read back after the solve (Linux only; NaN elsewhere)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            with open("/proc/self/clear_refs", "w") as fh:
                fh.write("5")
            base = _status_kb("VmRSS")
            solve(request)
            os.write(write, str(_status_kb("VmHWM") - base).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as fh:
        text = fh.read()
    os.waitpid(pid, 0)
    return int(text) / 1024 if text else float("nan")


def measure(sc: Scenario, repeats: int, budget_s: float = 10.0) -> dict:
    first = solve(sc.request)          # warm: compiled, cached arrays of the title built
    times = []
    started = time.perf_counter()
    for _ in range(repeats):
        t = time.perf_counter()
        result = solve(sc.request)
        times.append((time.perf_counter() - t) * 1000)
        if time.perf_counter() - started > budget_s:
            break
    return {"scenario": sc.name, "trains": sc.trains, "revenue": first["revenue"],
            "candidate_routes": int(first["stats"]["candidate_routes"]), "optimal": bool(result["optimal"]),
            "median_ms": statistics.median(times), "max_ms": max(times), "runs": len(times),
            "peak_mb": _peak_memory_mb(sc.request) if hasattr(os, "fork") else float("nan")}


def run(repeats: int = 20, only: str = "", progress=None) -> list[dict]:
    rows = []
    chosen = [sc for sc in scenarios() if only.lower() in sc.name.lower()]
    for sc in chosen:
        rows.append(measure(sc, repeats))
        if progress:
            progress(sc.name)
    return rows
