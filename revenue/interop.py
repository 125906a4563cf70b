"""Routes in and out in the shape of an 18xx.games `run_routes` action (rules/base.md section 8).

Reading follows the engine: a route is rebuilt from its `connections` alone, each entry the id of one
chain written in either direction, consecutive entries joined at the node they share; `nodes` (in visit
order or in the order of the chains' ends) only choose between chains that fit the same entry. Without
connections, `nodes` are the visited nodes in order (the project's short form).

Writing follows the engine too: each entry is the chain id walked in the route's direction, so `nodes` in
visit order are also the chains' ends in order, and the engine rebuilds exactly the route written.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import InputError, short_repr
from .graph import Chain, Graph

_TRAIN_ID = re.compile(r"^(?P<name>.+)-(?P<copy>\d+)$")


@dataclass
class ReadRoute:
    """A route as read: its visited nodes in order and, when connections fixed them, its chains."""
    nodes: list[int]
    chains: list[Chain] | None      # None: only nodes were given, any track between them may do
    broken: str = ""                # why the connections do not form one route ("" when they do)


def read_route(graph: Graph, route: dict, where: str) -> ReadRoute:
    """The nodes and chains of one route of a request (a Route message as a dict)."""
    hint = []
    for j, name in enumerate(route.get("nodes") or ()):
        if name not in graph.by_name:
            raise InputError(f"{where}.nodes[{j}]", f"{short_repr(name)} is not a node of this board "
                             "(nodes are <hex>-<part index> of a city, town, halt or off-board with track)")
        hint.append(graph.by_name[name])
    entries = [list(c.get("hexes") or ()) if isinstance(c, dict) else list(c)
               for c in route.get("connections") or ()]
    if not entries:
        return ReadRoute(hint, None)
    candidates = []
    for j, entry in enumerate(entries):
        fits = graph.chains_for(entry) or _sorted_fits(graph, entry)
        if not fits:
            raise InputError(f"{where}.connections[{j}]", f"{short_repr(entry)} is the id of no track between two "
                             "nodes of this board (hexes in walking order, either way; a junction's hex once; "
                             "\"<hex> i.j\" for one of several in-hex paths)")
        candidates.append(fits)
    return _join(graph, candidates, hint)


def _sorted_fits(graph: Graph, entry: list[str]) -> list:
    """The chains whose hexes, sorted by name, are those of `entry`. Exports of 2020 wrote each connection's
    hexes so (["B5", "B7", "C4"] for Ohzu C4 - B5 - Uwajima B7 in the engine's fixture 1889/956.json); read
    only when no chain's id matches the entry in walking order."""
    index = graph.track.shared.get("chain_sorted_ids")
    if index is None:
        index = {}
        for c in graph.chains:
            index.setdefault(tuple(sorted(c.ident)), []).append(c)
        graph.track.shared["chain_sorted_ids"] = index
    return index.get(tuple(sorted(entry)), [])


def _join(graph: Graph, candidates: list[list[Chain]], hint: list[int]) -> ReadRoute:
    """Chains, one per entry, joined end to end: the route they form, with its nodes in visit order.

    Among chains that fit one entry, those whose ends are both named in `nodes` are tried first."""
    named = set(hint)
    ordered = [sorted(fits, key=lambda c: (c.a not in named) + (c.b not in named)) for fits in candidates]
    # The route's first node is the end of the first chain that the second does not continue from; for a
    # one-chain route, the first of its ends named in `nodes` (else the chain's own first end).
    for first in ordered[0]:
        starts = [first.a, first.b]
        if len(ordered) == 1 and hint and hint[0] == first.b:
            starts.reverse()
        for start in starts:
            found = _extend(ordered, [start, first.other(start)], [first])
            if found:
                return found
    names = ", ".join("/".join(c.ident) for c in ordered[0][:1] + [fits[0] for fits in ordered[1:]])
    return ReadRoute([c.a for c in ordered[0][:1]], None,
                     f"the connections do not join end to end into one route ({names})")


def _extend(ordered: list[list[Chain]], nodes: list[int], chains: list[Chain]) -> ReadRoute | None:
    """The route `nodes`, `chains` (one chain of each of the first entries) continued with one chain of each
    entry after them, each joined at the route's last node: the first such route depth first, trying each
    entry's chains in order; None when there is none. A loop with a stack, not recursion: a route may have
    a thousand connections."""
    tried = [0]      # per entry continued so far, and the one now: how many of its chains were tried
    while True:
        i = len(chains)
        if i == len(ordered):
            return ReadRoute(nodes, chains)
        at, fits, j = nodes[-1], ordered[i], tried[-1]
        while j < len(fits) and at not in (fits[j].a, fits[j].b):
            j += 1
        if j < len(fits):
            tried[-1] = j + 1
            nodes.append(fits[j].other(at))
            chains.append(fits[j])
            tried.append(0)
            continue
        tried.pop()
        if not tried:
            return None
        nodes.pop()
        chains.pop()


def train_name(given: str, names: set[str], ids: dict[str, str]) -> str | None:
    """A route's train as a train name: a name itself, a train id of the company (Company.Train.id), or an
    18xx.games id `<name>-<copy>`; None when it is none of these."""
    if given in ids:
        return ids[given]
    if given in names:
        return given
    match = _TRAIN_ID.match(given)
    if match and match["name"] in names:
        return match["name"]
    return None


def action_routes(action: dict, where: str = "run_routes") -> list[dict]:
    """The routes of a stored 18xx.games `run_routes` action (a RunRoutesAction as a dict) as Route dicts."""
    kind = action.get("type") or "run_routes"
    if kind != "run_routes":
        raise InputError(f"{where}.type", f"{short_repr(kind)} is not a run_routes action")
    routes = []
    for i, route in enumerate(action.get("routes") or ()):
        entry = {k: v for k, v in route.items() if k != "connections"}
        entry["connections"] = []
        for j, c in enumerate(route.get("connections") or ()):
            # a ListValue over gRPC holds any JSON value; the JSON path refuses the same when parsing
            if not isinstance(c, (list, tuple)) or not all(isinstance(h, str) for h in c):
                raise InputError(f"{where}.routes[{i}].connections[{j}]",
                                 f"must be a list of hex names (strings), not {short_repr(c)}")
            entry["connections"].append({"hexes": list(c)})
        routes.append(entry)
    return routes


def action_trains(action: dict) -> list[dict]:
    """The company's trains as the action names them (`<name>-<copy>` ids), for a request without them."""
    out = []
    for route in action.get("routes") or ():
        given = route.get("train") or ""
        match = _TRAIN_ID.match(given)
        out.append({"name": match["name"] if match else given, "id": given})
    return out


def run_routes_action(company: dict, routes: list[dict]) -> dict:
    """An 18xx.games `run_routes` action of `routes` (result entries), ready to submit: each route's train
    id taken from `company.trains[].id` in order of the trains of that name, else `<name>-<n>`."""
    ids: dict[str, list[str]] = {}
    for t in company.get("trains") or ():
        if isinstance(t, dict):
            ids.setdefault(t.get("name", ""), []).append(t.get("id", ""))
        else:
            ids.setdefault(t, []).append("")
    used: dict[str, int] = {}
    out = []
    for route in routes:
        name = route["train"]
        n = used[name] = used.get(name, -1) + 1
        given = ids.get(name, [])
        entry = {"train": (given[n] if n < len(given) and given[n] else f"{name}-{n}"),
                 "connections": [list(c["hexes"]) for c in route.get("connections", ())],
                 "nodes": list(route["nodes"])}
        if route.get("halts"):
            entry["halts"] = route["halts"]
        out.append(entry)
    return {"type": "run_routes", "entity": company.get("id", ""), "entity_type": "corporation",
            "routes": out}

