"""python -m benchmarks: the optimizer table, the Steam deliveries table, the games replayed (with --cluster
on Dask local clusters too), the next moves valued and the cold start."""
from __future__ import annotations

from .report import bench

if __name__ == "__main__":
    bench(prog_name="python -m benchmarks")
