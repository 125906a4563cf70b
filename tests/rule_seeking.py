"""Rule-seeking random cases for the generic route rules (DataRules in the reference, RouteRules and
RunRules in the library): a linked random board (boards.linked_board), its best run without any rule
(found by the optimizer: this only aims the rule), then one rule placed where it decides the optimum
often: on the nodes of the unconstrained best routes (forbid, no_end, groups, metro, merge, flag caps,
bonuses, alternative multiplier), away from them (required ends, flag minimums), on a city in the middle
of a best route that is then filled with other companies' tokens (bypass), or on a run whose routes do not
meet (connected) or that leaves a hex and comes back to it (no_reentry). The rule is never checked against
the answer it should change; the hit-rate tests measure how often taking it out (`without`) does change
the reference's optimum (`optimum`)."""
from __future__ import annotations

import random

from revenue.optimizer import solve

from .boards import linked_board
from .ref_board import ref_board
from .reference import DataRules, best_run, node_name, track_graph

MECHANISMS = ("forbid", "no_end", "need", "groups", "alt", "merge", "metro", "bypass", "flag_max", "flag_min",
              "connected", "bonuses", "no_reentry")


def reference_trains(trains):
    return [{"name": t["name"], "distance": t.get("distance") or t["rows"]} for t in trains]


def base_case(seed: int, chains: bool = False):
    """A linked board whose unconstrained best run earns something: (board, company, trains, its best
    routes as node-name lists[, each route's hexes in walking order, as its chains give them])."""
    for k in range(50):
        board, company, trains = linked_board(seed * 101 + k, width=(3, 5), height=(3, 4), link=0.65)
        best = solve({"board": board, "company": company})
        if best["revenue"] > 0:
            routes = [r["nodes"] for r in best["routes"]]
            walks = [[h.split()[0] for c in r["connections"] for h in c["hexes"]] for r in best["routes"]]
            return (board, company, trains, routes) + ((walks,) if chains else ())
    raise AssertionError(f"no linked board with a run for seed {seed}")


def reenters(hexes) -> bool:
    """A walk (hex names in order) that leaves a hex and comes back to it."""
    runs = [h for i, h in enumerate(hexes) if i == 0 or hexes[i - 1] != h]
    return len(runs) != len(set(runs))


def node_names(board) -> list[str]:
    """Every node on the board's track, by name."""
    g = track_graph(ref_board(board))
    return sorted(node_name(g, v) for v in g if v[0] == "node")


def seek(mechanism: str, seed: int):
    """(board, company, trains, rule data) with one rule of `mechanism` aimed at the best run."""
    rng = random.Random(seed * 31 + MECHANISMS.index(mechanism))
    board, company, trains, routes, chains = base_case(seed, chains=True)
    names = node_names(board)
    on_best = sorted({n for r in routes for n in r})
    off_best = [n for n in names if n not in on_best]
    route = rng.choice(routes)
    data: dict = {}
    if mechanism == "forbid":
        data["forbid"] = {rng.choice(route)}
    elif mechanism == "no_end":
        data["no_end"] = {rng.choice([route[0], route[-1]])} | ({route[0], route[-1]} if rng.random() < 0.5 else set())
    elif mechanism == "need":
        pool = [n for n in names if n not in {r[0] for r in routes} | {r[-1] for r in routes}] or names
        data["need"] = (set(rng.sample(pool, min(len(pool), rng.randint(1, 3)))), rng.choice([1, 1, 2]))
    elif mechanism == "groups":
        data["groups"] = {n: ["X"] for n in rng.sample(route, 2)}
    elif mechanism == "alt":
        ends = {route[0], route[-1]} | set(rng.sample(names, min(len(names), rng.randint(0, 2))))
        data["alt"] = (ends, {n: rng.choice([2, 3]) for n in rng.sample(route, min(len(route), 2))})
    elif mechanism == "merge":
        i = rng.randrange(len(route) - 1)
        merged = {route[i]: 0, route[i + 1]: 0}
        if rng.random() < 0.5 and off_best:
            merged.update({n: 1 for n in rng.sample(names, min(len(names), 2)) if n not in merged})
        data["merge"] = (merged, rng.choice([0, 10]))
    elif mechanism == "metro":
        data["metro"] = {n: 0 for n in route} | {n: 1 for n in rng.sample(off_best, min(len(off_best), 2))}
    elif mechanism == "bypass":
        data["bypass"] = 1
        board = block_a_middle_city(board, routes, rng)
    elif mechanism == "flag_max":
        bit = rng.choice([1, 2])
        flagged = [rng.choice(r) for r in routes]
        data["flags"] = {n: 1 << bit for n in flagged}
        data["flag_max"] = {bit: max(0, len(routes) - 1 - rng.randint(0, 1))}
    elif mechanism == "flag_min":
        bit = rng.choice([1, 2])
        data["flags"] = {n: 1 << bit for n in rng.sample(off_best or names, min(len(off_best or names), 2))}
        data["flag_min"] = {bit: 1}
    elif mechanism == "connected":
        data["connected"] = True
        if not disjoint(routes):        # another board, whose best run has routes that do not meet
            others = (base_case(seed * 7919 + k) for k in range(1, 40))
            board, company, trains, routes = next((c for c in others if disjoint(c[3])),
                                                  (board, company, trains, routes))
    elif mechanism == "no_reentry":
        data["no_reentry"] = True
        if not any(reenters(r) for r in chains):   # another board, whose best run leaves a hex and comes back
            others = (base_case(seed * 7919 + k, chains=True) for k in range(1, 40))
            board, company, trains, routes, chains = next((c for c in others if any(map(reenters, c[4]))),
                                                          (board, company, trains, routes, chains))
    elif mechanism == "bonuses":
        bonuses = []
        for _ in range(rng.randint(1, 2)):
            where = route if rng.random() < 0.6 else (off_best or names)
            clauses = [({n: rng.randint(0, 1) for n in rng.sample(where, min(len(where), rng.randint(1, 3)))},
                        rng.randint(1, 2)) for _ in range(rng.randint(1, 2))]
            bonuses.append((rng.choice([10, 20, 40]), clauses))
        data["bonuses"] = bonuses
    return board, company, trains, data


def disjoint(routes) -> bool:
    """Two or more routes, not all linked through shared nodes."""
    if len(routes) < 2:
        return False
    reached, grown = {0}, True
    while grown:
        grown = False
        for j in range(len(routes)):
            if j not in reached and any(set(routes[j]) & set(routes[i]) for i in reached):
                reached.add(j)
                grown = True
    return len(reached) < len(routes)


def block_a_middle_city(board, routes, rng):
    """The board with a city inside one of `routes` (not the company's) filled with other companies'
    tokens; unchanged if no route passes such a city."""
    laid = {lay["hex"]: lay["code"] for lay in board["tiles"]}
    codes = {h["hex"]: laid.get(h["hex"], h["code"]) for h in board["custom"]["hexes"]}
    ours = {t["hex"] for t in board["tokens"] if t["company"] == "A"}
    middle = [n for r in routes for n in r[1:-1] if n.rsplit("-", 1)[0] not in ours]
    cities = []
    for n in middle:
        h, part = n.rsplit("-", 1)
        parts = codes[h].split(";")
        if parts[int(part)].startswith("city="):
            index = sum(p.startswith("city=") for p in parts[:int(part)])
            cities.append((h, index, 2 if "slots:2" in parts[int(part)] else 1))
    if not cities:
        return board
    h, index, slots = rng.choice(cities)
    tokens = [t for t in board["tokens"] if (t["hex"], t["city"]) != (h, index)]
    tokens += [{"hex": h, "city": index, "company": f"C{j}"} for j in range(slots)]
    return {**board, "tokens": tokens}


def optimum(board, trains, data) -> int:
    return best_run(ref_board(board), "A", reference_trains(trains), DataRules(data))[0]


def without(mechanism: str, data: dict) -> dict:
    """The rule data with the mechanism's rule taken out (flags stay: without a cap or minimum they mean
    nothing)."""
    return {k: v for k, v in data.items() if k != mechanism}
