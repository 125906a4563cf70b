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
    forming one network (10 of them parallel), 2 cubes per city, 90% of links complete, 5% unowned."""
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
    # A connected network (the shortest links that join the pieces, Kruskal), then the shortest others.
    component = list(range(n_stops))

    def root(v):
        while component[v] != v:
            v = component[v]
        return v

    chosen = []
    for _, i, j in pairs:
        if root(i) != root(j):
            component[root(i)] = root(j)
            chosen.append((i, j))
    rest = [(i, j) for _, i, j in pairs if (i, j) not in set(chosen)]
    chosen += rest[:n_links - 10 - len(chosen)]
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


def _scenario(name: str, board: dict, repeats: int) -> list[dict]:
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
        {"scenario": f"{name}: one player's full answer (best own points {best})", "players": 1,
         "warm_median_ms": statistics.median(per_player), "max_ms": max(per_player), "cold_ms": cold},
        {"scenario": f"{name}: every player in turn", "players": len(PLAYERS),
         "warm_median_ms": statistics.median(all_players), "max_ms": max(all_players), "cold_ms": cold},
    ]


def run(repeats: int = 20) -> list[dict]:
    """Rows: scenario, players, warm median ms, max ms, cold/JIT ms (cold: the first call only)."""
    return (_scenario("level 6", large_map(level=6), repeats)
            + _scenario("level 5, plan searches level 6 too", large_map(level=5), repeats))


def main() -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Steam goods deliveries, large map (60 stops, 150 links, 4 players)")
    for col in ("scenario", "players", "warm median ms", "max ms", "cold/JIT ms"):
        table.add_column(col, justify="left" if col == "scenario" else "right")
    for row in run():
        table.add_row(row["scenario"], str(row["players"]), f"{row['warm_median_ms']:.2f}",
                      f"{row['max_ms']:.2f}", f"{row['cold_ms']:.1f}")
    Console().print(table)


if __name__ == "__main__":
    main()
