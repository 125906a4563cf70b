"""The answer to a Steam delivery request: the search kernel run for the acting player's level (and the
next, for an upgrade), its answer decoded into the best deliveries, the reasons why the other cubes cannot
be delivered, and the plans for the phase."""
from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass

import numpy as np

from revenue.errors import InputError, Interrupted

from .kernel import search as kernel_search
from .request import COLOURS, MEMORY_MB, NO_STOP, Problem, check_memory, parse_cached

@dataclass
class _Search:
    """The kernel's answer for one level, decoded lazily."""
    g_key: np.ndarray
    g_len: np.ndarray
    g_links: np.ndarray
    g_stops: np.ndarray
    g_found: np.ndarray
    t_key: np.ndarray
    t_len: np.ndarray
    t_links: np.ndarray
    t_stops: np.ndarray
    t_group: np.ndarray
    t_size: int
    explored: int


def _run(pb: Problem, level: int, top_k: int, dist: np.ndarray, require_own_link: bool,
         only_groups: list[int] | None = None, stop: np.ndarray = NO_STOP) -> _Search:
    n_col = len(COLOURS)
    origins = sorted({s for s, _, _ in pb.groups})
    pos = {s: i for i, s in enumerate(origins)}
    origin_groups = np.full((len(origins), n_col), -1, np.int32)
    for g, (s, c, _) in enumerate(pb.groups):
        if only_groups is None or g in only_groups:
            origin_groups[pos[s], c] = g
    out = kernel_search(pb.adj_ptr, pb.adj_to, pb.adj_link, pb.adj_owner, pb.stop_colour, dist,
                        np.array(origins, np.int32), origin_groups, len(pb.groups), pb.player,
                        len(pb.player_ids), level, pb.own_majority, require_own_link, top_k, stop)
    if stop[0]:
        raise Interrupted("the search was stopped before it had an answer")
    return _Search(*out[:10], int(out[10]), int(out[11]))


def _delivery(pb: Problem, group: int, length: int, links: np.ndarray, stops: np.ndarray) -> dict:
    _, colour, _ = pb.groups[group]
    link_idx = [int(x) for x in links[:length]]
    path = [pb.stop_ids[int(x)] for x in stops[:length + 1]]
    points: dict[str, int] = {}
    for li in link_idx:
        o = int(pb.link_owner[li])
        if o >= 0:
            points[pb.player_ids[o]] = points.get(pb.player_ids[o], 0) + 1
    own = points.get(pb.player_ids[pb.player], 0)
    return {
        "colour": COLOURS[colour],
        "stops": path,
        "links": [pb.link_ids[li] for li in link_idx],
        "destination": path[-1],
        "own_points": own,
        "other_points": sum(points.values()) - own,
        "points_by_owner": points,
    }


def _group_bests(pb: Problem, res: _Search) -> list[tuple[int, int]]:
    """(key, group) of every group's best delivery, one entry per cube that could use it (at most
    two: a phase has two moves), best first; ties keep group order."""
    out = []
    for g, (_, _, count) in enumerate(pb.groups):
        if res.g_key[g] >= 0:
            out += [(int(res.g_key[g]), g)] * min(count, 2)
    out.sort(key=lambda t: -t[0])
    return out


def _reasons(pb: Problem, res: _Search, level: int, dist: np.ndarray, stop: np.ndarray = NO_STOP) -> list[dict]:
    """Why each cube group without a legal delivery has none (first matching cause in this order:
    no_link, no_destination, unreachable, too_far, own_link, own_majority)."""
    stuck = [g for g in range(len(pb.groups)) if res.g_found[g] == 0]
    if not stuck:
        return []
    me = pb.player_ids[pb.player]
    out: dict[int, dict] = {}
    ownership = []
    # Plain lists: this loop reads single entries, which numpy arrays make slow.
    adj_ptr, adj_to, stop_colour = pb.adj_ptr.tolist(), pb.adj_to.tolist(), pb.stop_colour.tolist()
    cities_of = [stop_colour.count(c) for c in range(len(COLOURS))]
    for g in stuck:
        s, c, count = pb.groups[g]
        colour = COLOURS[c]
        entry = {"stop": pb.stop_ids[s], "colour": colour, "count": count}
        out[g] = entry
        if adj_ptr[s] == adj_ptr[s + 1]:
            entry.update(reason="no_link", detail=f"no completed link leaves {pb.stop_ids[s]}")
            continue
        if cities_of[c] - (stop_colour[s] == c) == 0:
            entry.update(reason="no_destination", detail=f"there is no other {colour} city")
            continue
        # BFS from the origin: the nearest city of the colour is reached by a shortest path whose inner
        # stops are all nearer, hence not of the colour, so that path is a delivery.
        seen = {s: 0}
        queue = deque([s])
        nearest = None
        while queue and nearest is None:
            v = queue.popleft()
            for k in range(adj_ptr[v], adj_ptr[v + 1]):
                w = adj_to[k]
                if w not in seen:
                    seen[w] = seen[v] + 1
                    if stop_colour[w] == c:
                        nearest = seen[w]
                        break
                    queue.append(w)
        if nearest is None:
            entry.update(reason="unreachable", detail=f"no completed track reaches a {colour} city")
        elif nearest > level:
            entry.update(reason="too_far", links_needed=nearest,
                         detail=f"the nearest {colour} city is {nearest} links away; level is {level}")
        else:
            ownership.append(g)
    if ownership:
        relaxed = _run(pb, level, 0, dist, False, only_groups=ownership, stop=stop) if pb.require_own_link else None
        for g in ownership:
            if relaxed is not None and relaxed.g_found[g] > 0:
                out[g].update(reason="own_link",
                              detail=f"every route within {level} links uses none of {me}'s links")
            else:
                out[g].update(reason="own_majority",
                              detail=f"every route within {level} links uses more links of another "
                                     f"player than of {me}'s")
    return [out[g] for g in stuck]


_PLAN_RANK = {"move+move": 0, "move+upgrade": 1, "upgrade+move": 2, "move+pass": 3, "upgrade+pass": 4,
              "pass+pass": 5, "move": 0, "upgrade": 1, "pass": 2}


def _plans(pb: Problem, now: list[tuple[int, int]], up: list[tuple[int, int]] | None,
           decode_now, decode_up, level: int) -> list[dict]:
    """Every plan for the rest of the phase, best first: most own points, then fewest points for others,
    then fewest links; ties prefer moving early (the cube cannot be taken meanwhile) and then upgrading
    (free in this phase). Cubes moved first are gone for the second move; other players are ignored."""
    candidates = []

    def plan(name, steps):
        moves = [d for _, d in steps if d is not None]
        own = sum(d["own_points"] for d in moves)
        others = sum(d["other_points"] for d in moves)
        links = sum(len(d["links"]) for d in moves)
        out_steps, lvl = [], level
        for i, (action, d) in enumerate(steps):
            if action == "upgrade":
                lvl += 1
            step = {"round": pb.round + i, "action": action, "level": lvl}
            if d is not None:
                step["delivery"] = d
            out_steps.append(step)
        candidates.append(((own, -others, -links, -_PLAN_RANK[name]),
                           {"name": name, "steps": out_steps, "own_points": own, "other_points": others,
                            "level_after": lvl}))

    if pb.round == 1:
        if len(now) >= 2:
            plan("move+move", [("move", decode_now(now[0][1])), ("move", decode_now(now[1][1]))])
        if now and up is not None:
            plan("move+upgrade", [("move", decode_now(now[0][1])), ("upgrade", None)])
        if up:
            plan("upgrade+move", [("upgrade", None), ("move", decode_up(up[0][1]))])
        if now:
            plan("move+pass", [("move", decode_now(now[0][1])), ("pass", None)])
        if up is not None:
            plan("upgrade+pass", [("upgrade", None), ("pass", None)])
        plan("pass+pass", [("pass", None), ("pass", None)])
    else:
        if now:
            plan("move", [("move", decode_now(now[0][1]))])
        if up is not None:
            plan("upgrade", [("upgrade", None)])
        plan("pass", [("pass", None)])
    candidates.sort(key=lambda t: t[0], reverse=True)
    return [p for _, p in candidates]


def solve(pb: Problem, stop: np.ndarray = NO_STOP) -> dict:
    level = pb.levels[pb.player]
    dist = pb.dist
    res = _run(pb, level, pb.top_k, dist, pb.require_own_link, stop=stop)
    top = [_delivery(pb, int(res.t_group[i]), int(res.t_len[i]), res.t_links[i], res.t_stops[i])
           for i in range(res.t_size)]
    can_upgrade = not pb.upgraded[pb.player] and level < pb.max_level
    explored = res.explored
    up_res = None
    if can_upgrade:
        up_res = _run(pb, level + 1, 0, dist, pb.require_own_link, stop=stop)
        explored += up_res.explored

    def decoder(r):
        return lambda g: _delivery(pb, g, int(r.g_len[g]), r.g_links[g], r.g_stops[g])

    plans = _plans(pb, _group_bests(pb, res), _group_bests(pb, up_res) if up_res else None,
                   decoder(res), decoder(up_res) if up_res else None, level)
    result = {
        "deliveries": top,
        "undeliverable": _reasons(pb, res, level, dist, stop),
        "plan": plans[0],
        "plan_alternatives": plans,
        "player": pb.player_ids[pb.player],
        "level": level,
        "rules": {"ruleset": pb.ruleset, "own_majority": pb.own_majority,
                  "require_own_link": pb.require_own_link, "max_level": pb.max_level},
        "explored": explored,
    }
    if top:
        result["best"] = top[0]
    return result


def _length(request: dict, key: str) -> int:
    value = request.get(key) if isinstance(request, dict) else None
    return len(value) if isinstance(value, (list, tuple)) else 0


def deliveries(request: dict, deadline: float | None = None, cancel: threading.Event | None = None,
               memory_mb: float | None = None) -> dict:
    """Best deliveries, reasons and phase plan for `request` (a DeliveriesRequest as a proto3-JSON dict).

    Returns a DeliveriesResponse as a dict that `json_format.ParseDict` accepts.
    Raises InputError naming the offending field for bad input, and Interrupted when `deadline` (seconds
    from now) passes or `cancel` is set before the answer is complete (the search stops within
    microseconds: it has no partial answer worth giving). `memory_mb` (default MEMORY_MB) caps the
    memory of the call: a board that would take more is an InputError (check_memory)."""
    if memory_mb is not None and memory_mb <= 0:
        raise InputError("memory_mb", f"{memory_mb:g} is not > 0")
    top_k = request.get("top_k") if isinstance(request, dict) else 0
    check_memory(_length(request, "stops"), _length(request, "links"), _length(request, "cubes"),
                 top_k if isinstance(top_k, int) and not isinstance(top_k, bool) else 0,
                 MEMORY_MB if memory_mb is None else memory_mb)
    if deadline is None and cancel is None:
        return solve(parse_cached(request))
    from revenue.watchdog import WATCHDOG

    stop = np.zeros(1, np.int64)
    ticket = WATCHDOG.watch(stop, time.perf_counter() + deadline if deadline is not None else None, cancel)
    try:
        if deadline is not None and deadline <= 0:
            raise Interrupted("no time left to search")
        # (a plain Event is only polled by the watchdog: one set before the call must not wait for that)
        if cancel is not None and cancel.is_set():
            raise Interrupted("cancelled before the search began")
        return solve(parse_cached(request, stop), stop)
    finally:
        WATCHDOG.release(ticket, cancel)


def deliveries_proto(request):
    """The same for protobuf messages: DeliveriesRequest in, DeliveriesResponse out (for the server)."""
    from google.protobuf import json_format
    from revenue.v1 import steam_pb2

    as_dict = json_format.MessageToDict(request, preserving_proto_field_name=True)
    return json_format.ParseDict(deliveries(as_dict), steam_pb2.DeliveriesResponse())
