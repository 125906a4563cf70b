"""Benchmark: Steam goods deliveries on a large random map (60 stops, 150 links, 4 players, level 6).

    python -m benchmarks.steam

Times `revenue.steam.deliveries` (the full answer: best delivery, top 10, reasons, two-round plan) for
every player. Target (issue 7): each player's answer under 10 ms warm.
"""
from __future__ import annotations

import random
import statistics
import time

from revenue import steam

PLAYERS = ["alice", "bob", "carol", "dave"]


def large_map(seed: int = 7, n_stops: int = 60, n_links: int = 150, level: int = 6) -> dict:
    """A seeded random board shaped like a Steam map: stops on a plane, links between near neighbours
    (a few parallel), 2 cubes per city, most links complete and owned."""
    rng = random.Random(seed)
    colours = ["red", "blue", "yellow", "purple", "gray"]
    stops, points = [], []
    for i in range(n_stops):
        is_city = i % 3 != 2  # two cities per town
        stops.append({"id": f"{'C' if is_city else 'T'}{i:02d}", "kind": "city" if is_city else "town",
                      **({"colour": rng.choice(colours)} if is_city else {})})
        points.append((rng.random(), rng.random()))
    pairs = sorted(((points[i][0] - points[j][0]) ** 2 + (points[i][1] - points[j][1]) ** 2, i, j)
                   for i in range(n_stops) for j in range(i + 1, n_stops))
    chosen = [(i, j) for _, i, j in pairs[:n_links - 10]]
    chosen += [rng.choice(chosen) for _ in range(10)]  # parallel links
    links = []
    for k, (i, j) in enumerate(chosen):
        owner = rng.choice(PLAYERS + [""]) if rng.random() < 0.95 else ""
        links.append({"id": f"L{k:03d}", "a": stops[i]["id"], "b": stops[j]["id"], "owner": owner,
                      "complete": rng.random() < 0.9})
    cubes = [{"stop": s["id"], "colour": rng.choice(colours), "count": 1}
             for s in stops if s["kind"] == "city" for _ in range(2)]
    return {"ruleset": "steam", "stops": stops, "links": links, "cubes": cubes,
            "players": [{"id": p, "level": level} for p in PLAYERS], "player": PLAYERS[0]}


def _time(request: dict) -> float:
    start = time.perf_counter()
    steam.deliveries(request)
    return (time.perf_counter() - start) * 1000


def run(repeats: int = 20) -> list[dict]:
    """Rows: scenario, players, warm median ms, max ms, cold/JIT ms."""
    board = large_map()
    requests = [{**board, "player": p} for p in PLAYERS]
    cold = _time(requests[0])  # first call in this process: loads (or compiles) the kernels
    per_player: list[float] = []
    all_players: list[float] = []
    for _ in range(repeats):
        times = [_time(r) for r in requests]
        per_player += times
        all_players.append(sum(times))
    best = [steam.deliveries(r).get("best", {}).get("own_points", 0) for r in requests]
    return [
        {"scenario": f"large map, one player's full answer (best own points {best})",
         "players": 1, "warm_median_ms": statistics.median(per_player), "max_ms": max(per_player),
         "cold_ms": cold},
        {"scenario": "large map, every player in turn", "players": len(PLAYERS),
         "warm_median_ms": statistics.median(all_players), "max_ms": max(all_players), "cold_ms": cold},
    ]


def main() -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Steam goods deliveries (60 stops, 150 links, level 6)")
    for col in ("scenario", "players", "warm median ms", "max ms", "cold/JIT ms"):
        table.add_column(col, justify="left" if col == "scenario" else "right")
    for row in run():
        table.add_row(row["scenario"], str(row["players"]), f"{row['warm_median_ms']:.2f}",
                      f"{row['max_ms']:.2f}", f"{row['cold_ms']:.1f}")
    Console().print(table)


if __name__ == "__main__":
    main()
