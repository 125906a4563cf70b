"""Revenue and legality of routes chosen elsewhere (rules/base.md sections 4-6 and 8).

A route names its train and its visited nodes in order (`F9-0`), optionally with the 18xx.games
`connections` between them. Each route is checked in the engine's order; an illegal route gets the rule
it breaks, where, and the engine's message. The run is legal when every route is, and no two routes share
track.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from .budget import call_budget, current as current_budget
from .company import build_company
from .errors import InputError, short_repr
from .graph import Chain, Graph
from .graph_cache import graph_for
from .interop import action_routes, action_trains, read_route, train_name
from .problem import Problem, TrainSpec, compile_problem
from .route_price import all_paid, chain_hex_walk, price_route
from .titles.base import BYPASS_FLAG

NODE_PART = 6     # the tile registry's node table column of a node's part index (revenue.geometry.TileGeometry)


@dataclass
class RouteError:
    rule: str
    message: str
    where: str = ""   # node or hex concerned

    def to_dict(self) -> dict:
        return {"rule": self.rule, "message": self.message, **({"where": self.where} if self.where else {})}


@dataclass
class RouteCheck:
    train: str
    nodes: list[int]
    options: list[list[Chain]]           # candidate chains per consecutive pair
    error: RouteError | None = None
    broken: str = ""                     # why the given connections form no route
    choices: list[list[Chain]] = field(default_factory=list)   # legal chain sequences for this route alone
    halts: int | None = None             # 1860: the halts the player counts (None: the engine's default)


def _chain_options(problem: Problem, u: int, v: int) -> list[Chain]:
    """Every chain between nodes u and v (a route given by its nodes alone may take any of them)."""
    graph = problem.graph
    return [graph.chains[cid] for cid in graph.adjacency[u] if graph.chains[cid].other(u) == v]


def _route_choices(problem: Problem, nodes: list[int], options: list[list[Chain]], need_terminal: bool,
                   need_disjoint: bool, limit: int = 1024) -> list[list[Chain]]:
    """Chain sequences satisfying the terminal rule (and, if asked, not reusing track), up to `limit`."""
    k = len(options)
    out: list[list[Chain]] = []
    budget = current_budget()

    def ok_terminal(i: int, c: Chain) -> bool:
        u, v = nodes[i], nodes[i + 1]
        return not (c.terminal_inner or (c.terminal_at(u) and i > 0) or (c.terminal_at(v) and i < k - 1))

    seq: list[Chain] = []

    def enter(i: int) -> bool:
        """Whether the search goes on to the options of entry i, seq holding a chain of each entry before."""
        if len(out) >= limit:
            return False
        if i == k:
            out.append(list(seq))
            return False
        budget.step("checking the track a route may take", "routes")
        return True

    # Depth first with a stack, not recursion (a route may have a thousand connections): per entry entered,
    # the track its chains before it use and how many of its options were tried.
    stack = [[set(), 0]] if enter(0) else []
    while stack:
        i = len(stack) - 1
        used, j = stack[i]
        while j < len(options[i]):
            c = options[i][j]
            j += 1
            if need_terminal and not ok_terminal(i, c):
                continue
            if need_disjoint and used.intersection(c.keys):
                continue
            stack[i][1] = j
            seq.append(c)
            if enter(i + 1):
                stack.append([used | set(c.keys), 0])
                break
            seq.pop()
        else:
            stack.pop()
            if seq:
                seq.pop()
    return out


def _check_route(problem: Problem, spec: TrainSpec, check: RouteCheck) -> RouteError | None:
    graph, nodes = problem.graph, check.nodes
    names = [graph.nodes[v].name for v in nodes]
    if check.broken:
        return RouteError("not_connected", check.broken, names[0] if names else "")
    for i, opts in enumerate(check.options):
        if not opts:
            return RouteError("not_connected", f"no track joins {names[i]} to {names[i + 1]}"
                              " (along the given connection)", names[i + 1])
    if len(nodes) < 2:
        return RouteError("too_few_stops", "Route must have at least 2 stops")
    if not any(problem.token[v] for v in nodes):
        return RouteError("no_token", "Route must contain token")
    title = graph.board.title
    seen: set[str] = set()
    for v in nodes:
        labels = set(title.node_groups(spec.train, graph.nodes[v]))
        if seen & labels:
            return RouteError("group_reused", f"Cannot use group {sorted(seen & labels)[0]} more than once",
                              graph.nodes[v].name)
        seen |= labels
    if not _route_choices(problem, nodes, check.options, True, False, limit=1):
        return RouteError("terminal", "A terminal location (such as an off-board) may only begin or end a route")
    dup = next((v for i, v in enumerate(nodes) if v in nodes[:i]), None)
    if dup is not None:
        return RouteError("node_twice", f"Cannot use {graph.nodes[dup].hex} twice", graph.nodes[dup].name)
    for v in nodes:
        if spec.row[v] < 0:
            return RouteError("cannot_visit", f"a {spec.train.name} train cannot visit a {graph.nodes[v].kind}",
                              graph.nodes[v].name)
    rules = spec.rules
    merged = [i > 0 and spec.merge[v] >= 0 and spec.merge[v] == spec.merge[nodes[i - 1]] for i, v in enumerate(nodes)]
    met: set[int] = set()
    for i, v in enumerate(nodes):
        if spec.merge[v] >= 0 and not merged[i]:
            if int(spec.merge[v]) in met:
                return RouteError("merge_revisit", rules.merge_message, graph.nodes[v].name)
            met.add(int(spec.merge[v]))
    if spec.metro[nodes[0]] >= 0 and all(spec.metro[v] == spec.metro[nodes[0]] for v in nodes):
        return RouteError("single_metro", rules.metro_message, graph.nodes[nodes[0]].hex)
    rows = range(len(spec.row_visit))
    used = {r: sum(int(problem.cost[v]) for i, v in enumerate(nodes) if spec.row[v] == r and not merged[i])
            for r in rows}
    _, visit = spec.pay_and_visit({}, used)
    for r in rows:
        if used[r] > visit[r]:
            return RouteError("too_many_stops", f"Route has too many stops ({used[r]} {'/'.join(spec.train.rows[r].kinds)}"
                              f" for a {spec.train.name} train, at most {visit[r]})")
    for v in (nodes[0], nodes[-1]):
        if not spec.end_ok[v]:
            return RouteError("bad_end", f"Route cannot begin/end in a {graph.nodes[v].kind}", graph.nodes[v].name)
    if spec.need_ends and int(spec.need[nodes[0]]) + int(spec.need[nodes[-1]]) < spec.need_ends:
        return RouteError("bad_end", rules.need_message, names[0])
    check.choices = _route_choices(problem, nodes, check.options, True, True)
    if not check.choices:
        return RouteError("track_reused", "Route cannot reuse track", names[0])
    if spec.no_reentry:
        walks = [seq for seq in check.choices if _reentered(graph, nodes, seq) is None]
        if not walks:
            return RouteError("hex_reentry", rules.reentry_message, _reentered(graph, nodes, check.choices[0]))
        check.choices = walks
    passed = 0
    for v in nodes[1:-1]:
        if problem.blocks[v]:
            passed += 1
            if problem.bypassable[v] and passed <= spec.bypass:
                continue
            what = "an off-board" if graph.nodes[v].kind == "offboard" else "a city full of other companies' tokens"
            return RouteError("passes_blocked", f"Route cannot pass through {what} ({graph.nodes[v].name})",
                              graph.nodes[v].name)
    if price_route(problem, spec, nodes) is None:
        return RouteError("no_token", "No choice of paid stops includes a city with the company's token")
    return None


def _reentered(graph, nodes: list[int], chains: list[Chain]) -> str | None:
    """The first hex the route comes back to after leaving it, walking its chains in order, or None."""
    walk = [graph.nodes[nodes[0]].hex]
    for v, chain in zip(nodes, chains):
        hexes = chain_hex_walk(chain)
        walk.extend(hexes if chain.a == v else hexes[::-1])
    left: set[str] = set()
    for previous, hex_name in zip(walk, walk[1:]):
        if hex_name != previous:
            if hex_name in left:
                return hex_name
            left.add(previous)
    return None


def _joint_choice(checks: list[RouteCheck]) -> list[list[Chain]] | None:
    """One chain sequence per route such that no two routes share a track key."""
    picked: list[list[Chain]] = []
    budget = current_budget()

    def go(i: int, used: set[int]) -> bool:
        if i == len(checks):
            return True
        budget.step("choosing track the routes do not share", "routes")
        for seq in checks[i].choices:
            keys = {k for c in seq for k in c.keys}
            if used.isdisjoint(keys):
                picked.append(seq)
                if go(i + 1, used | keys):
                    return True
                picked.pop()
        return False

    return picked if go(0, set()) else None


def node_names(graph: Graph, nodes: list[int]) -> list[str]:
    """Graph.node_name of each node, read at these nodes alone: their hexes, and their parts from the tile
    registry's node table (an answer names ~10-20 nodes of a graph seen once: lists of every node, or a
    method call per node, cost more than the names; numpy calls on a few nodes more than reading each)."""
    track = graph.track
    hex_names, node_hex, node_reg, table = graph.sides.names, track.node_hex, track.node_reg, track.registry.node_table
    return [f"{hex_names[node_hex.item(v)]}-{table.item(node_reg.item(v), NODE_PART)}" for v in nodes]


def chain_connections(graph: Graph, chains: list[int], nodes: list[int]) -> list[list[str]]:
    """Graph.connection_of(c, v) of each chain c of a route and the node v before it (`nodes`, the route's
    nodes in visit order), read from the track's chain-id arrays at these chains alone (the arrays
    Track.ident reads: an 18xx.games chain id is the hexes walked, or "<hex> a.b" for one of several paths
    inside a hex), not from lists of every chain made for a track seen once."""
    track = graph.track
    hex_names, ident_hex, ident_start, ident_parts = graph.sides.names, track.ident_hex, track.ident_start, \
        track.ident_parts
    chain_a = graph.chain_a
    out = []
    for c, v in zip(chains, nodes):
        part = ident_parts.item(2 * c)
        if part >= 0:
            out.append([f"{hex_names[ident_hex.item(ident_start.item(c))]} {part}.{ident_parts.item(2 * c + 1)}"])
        else:
            walked = [hex_names[h] for h in ident_hex[ident_start.item(c):ident_start.item(c + 1)].tolist()]
            out.append(walked if v == chain_a.item(c) else walked[::-1])
    return out


def answer_entry(problem: Problem, spec: TrainSpec, path: np.ndarray, chains: list[int],
                 weights: tuple[int, int]) -> dict:
    """route_result of a route the optimizer found (`path`, its nodes as an array, and its chains), priced
    with `weights`: a route whose every stop is paid is written straight from the train's arrays at its
    nodes (revenue.route_price.all_paid, exact whatever the weights), any other by price_route."""
    nodes = path.tolist()
    graph = problem.graph
    connections = chain_connections(graph, chains, nodes)
    priced = all_paid(problem, spec, path, nodes)
    if priced is None:
        return route_result(problem, spec, nodes, connections, weights=weights)
    revenue, values, lines, subsidy, halts = priced
    names = node_names(graph, nodes)
    return _entry(spec, revenue, names, connections,
                  [{"node": name, "value": value, "paid": True} for name, value in zip(names, values)],
                  lines, halts, subsidy)


def _entry(spec: TrainSpec, revenue: int, names: list[str], connections: list[list[str]], stops: list[dict],
           bonuses: list[tuple[str, int]], halts: int, subsidy: int) -> dict:
    """A route's result entry (revenue.v1.RouteResult's JSON shape)."""
    return {
        "train": spec.train.name,
        "revenue": revenue,
        "nodes": names,
        "connections": [{"hexes": hexes} for hexes in connections],
        "stops": stops,
        "bonuses": [{"name": name, "amount": amount} for name, amount in bonuses],
        "halts": halts,
        "subsidy": subsidy,
    }


def route_result(problem: Problem, spec: TrainSpec, nodes: list[int], connections: list[list[str]],
                 halts: int | None = None, weights: tuple[int, int] | None = None) -> dict:
    """The result entry of one legal route: revenue, stops, bonuses, halts and subsidy, and its 18xx.games
    `connections` (Graph.connection of each chain from the node before it). Priced as the optimizer
    scores it with `weights`, else with the player's `halts` (revenue.route_price.price_route)."""
    priced = price_route(problem, spec, nodes, halts, weights)
    names = node_names(problem.graph, nodes)
    return _entry(spec, priced.revenue, names, connections,
                  [{"node": name, "value": value if paid else 0, "paid": paid}      # (stops: the nodes in order)
                   for name, (_, value, paid) in zip(names, priced.stops)],
                  priced.bonuses, priced.halts, priced.subsidy)


def evaluate(request: dict, deadline: float | None = None, cancel: threading.Event | None = None,
             memory_mb: float | None = None) -> dict:
    """Check and price the routes of `request` (the proto3 JSON shape of revenue.v1.EvaluateRequest):
    its `routes`, or the routes of its `run_routes` action as 18xx.games stores it. `deadline` (seconds
    from now), `cancel` and `memory_mb` bound the board's track graph (revenue.budget): past the deadline
    or at a cancel it raises Interrupted, past the memory cap InputError; they bound the checks of the
    routes too (revenue.budget.Budget.step)."""
    with call_budget(deadline, cancel, memory_mb):
        return _evaluate(request)


def _evaluate(request: dict) -> dict:
    graph = graph_for(request.get("board") or {})
    board = graph.board
    routes, company_request = _routes_and_company(request)
    company = build_company(company_request, board)
    problem = compile_problem(graph, company)
    available = [t.name for t in company.trains]
    ids = {t["id"]: t["name"] for t in company_request.get("trains") or () if t.get("id") and t.get("name")}
    checks: list[RouteCheck] = []
    for i, route in enumerate(routes):
        where = f"{'run_routes.routes' if request.get('run_routes') else 'routes'}[{i}]"
        given = route.get("train") or ""
        train = train_name(given, set(available) | set(problem.specs), ids)
        if train not in available:
            owned = ", ".join(t.name for t in company.trains) or "none"
            reason = "is not a train of the company" if train is None else "is used by an earlier route"
            raise InputError(f"{where}.train", f"{short_repr(given)} {reason} (trains: {owned})")
        available.remove(train)
        read = read_route(graph, route, where)
        nodes = read.nodes
        if read.chains is not None:
            options = [[c] for c in read.chains]
        else:
            options = [_chain_options(problem, nodes[j], nodes[j + 1]) for j in range(len(nodes) - 1)]
        halts = route.get("halts")
        if halts is not None and (isinstance(halts, bool) or not isinstance(halts, int) or halts < 0):
            raise InputError(f"{where}.halts", f"{halts!r} is not a count (>= 0)")
        checks.append(RouteCheck(train, nodes, options, broken=read.broken, halts=halts))

    results = []
    for check in checks:
        check.error = _check_route(problem, problem.specs[check.train], check)
    legal = all(c.error is None for c in checks)
    joint = _joint_choice(checks) if legal else None
    if legal and joint is None:
        legal = False
        for check in checks:
            check.error = RouteError("track_reused", "Route cannot reuse track (another train of the company"
                                     " uses the same hex side)", graph.nodes[check.nodes[0]].name)
    run_error = _check_run(problem, checks) if legal and joint is not None else None
    legal = legal and run_error is None
    total = subsidy = 0
    for i, check in enumerate(checks):
        spec = problem.specs[check.train]
        if check.error is None and (joint is not None or check.choices):
            # A route legal by itself is priced even when the run is not (the run's total is then 0).
            chains = joint[i] if joint is not None else check.choices[0]
            entry = route_result(problem, spec, check.nodes,
                                 [graph.connection(c, check.nodes[j]) for j, c in enumerate(chains)], check.halts)
            total += entry["revenue"]
            subsidy += entry["subsidy"]
        else:
            entry = {"train": check.train, "revenue": 0, "nodes": [graph.nodes[v].name for v in check.nodes],
                     "connections": [], "stops": [], "bonuses": [],
                     "error": check.error.to_dict() if check.error else None}
        results.append(entry)
    out = {"legal": legal, "revenue": total if legal else 0, "subsidy": subsidy if legal else 0, "routes": results}
    if run_error is not None:
        out["run_error"] = run_error.to_dict()
    return out


def _routes_and_company(request: dict) -> tuple[list[dict], dict]:
    """The routes to check and the company request: with a run_routes action, its routes, and the
    company's trains and id taken from the action when the request leaves them out."""
    company = dict(request.get("company") or {})
    action = request.get("run_routes")
    if not action:
        return list(request.get("routes") or ()), company
    if request.get("routes"):
        raise InputError("run_routes", "give the routes either as routes or as a run_routes action, not both")
    if not company.get("id") and action.get("entity"):
        company["id"] = action["entity"]
    if not company.get("trains"):
        company["trains"] = action_trains(action)
    return action_routes(action), company


def route_flags(problem: Problem, spec: TrainSpec, nodes: list[int]) -> int:
    """The flag bits of a legal route (revenue.titles.base.RunRules): bypass, and those of its nodes."""
    flags = BYPASS_FLAG if any(problem.blocks[v] for v in nodes[1:-1]) else 0
    for v in nodes:
        flags |= int(spec.flag_on[v])
    return flags


def _check_run(problem: Problem, checks: list[RouteCheck]) -> RouteError | None:
    """The run-level rules over the (individually legal) routes of a run."""
    run = problem.run
    if not checks:
        return None
    flags = [route_flags(problem, problem.specs[c.train], c.nodes) for c in checks]
    for bit, cap in run.flag_max.items():
        if sum((f >> bit) & 1 for f in flags) > cap:
            return RouteError("run_flag_max", run.messages["flag_max"])
    for bit, least in run.flag_min.items():
        if sum((f >> bit) & 1 for f in flags) < least:
            return RouteError("run_flag_min", run.messages["flag_min"])
    if run.connected:
        sets = [set(c.nodes) for c in checks]
        reached, grown = {0}, True
        while grown:
            grown = False
            for j in range(len(sets)):
                if j not in reached and any(sets[j] & sets[i] for i in reached):
                    reached.add(j)
                    grown = True
        if len(reached) < len(sets):
            return RouteError("run_connected", run.messages["connected"])
    return None
