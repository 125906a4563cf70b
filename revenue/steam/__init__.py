"""Best goods deliveries of the board game Steam (Martin Wallace) and of Age of Steam.

`deliveries(request)` answers, for the acting player: the best legal delivery, the top K deliveries,
why each cube that cannot be delivered cannot, and the best plan for the Move Goods phase's two rounds.
The request and the answer are proto3-JSON-shaped dicts of `revenue.v1.DeliveriesRequest` and
`DeliveriesResponse` (proto/revenue/v1/steam.proto). The rules are in docs/steam.md.

The search itself is a Numba kernel (revenue.steam.kernel); this module validates the request, builds
the arrays and decodes the kernel's answer.
"""
from __future__ import annotations

import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field, replace

import numpy as np

from revenue.bounds import MAX_NAME_CHARS
from revenue.cache import STEAM_CACHE_BYTES, ByteLRU
from revenue.errors import InputError, Interrupted
from revenue.steam import kernel

__all__ = ["COLOURS", "RULESETS", "deliveries", "deliveries_proto", "format_text"]

COLOURS = ("red", "blue", "yellow", "purple", "black", "gray")
KINDS = ("city", "town")
RULESETS = ("steam", "age_of_steam")
# ruleset -> (own_majority, require_own_link) defaults; Steam's own-link rule is an open point (rule note §6).
RULE_DEFAULTS = {"steam": (True, True), "age_of_steam": (False, False)}
DEFAULT_MAX_LEVEL = 6
DEFAULT_TOP_K = 10
# Limits that keep one request's compute bounded (the search is exponential in the level).
MAX_LEVEL_CAP = 12
MAX_STOPS = 5000
MAX_LINKS = 50000
MAX_PLAYERS = 64
MAX_TOP_K = 1000
MAX_CUBES = 10000

# The memory cap of one call (MB, as revenue.optimizer.search's MEMORY_MB). A delivery search stores a few entries
# per cube group and per listed delivery; what grows is the board itself: the request as a dict, its
# parse, the adjacency, the reasons' walks. Measured with tracemalloc on random boards of 2,000-8,000
# links (benchmarks.steam.large_map, the request converted from its message as the server does): about
# 1 KB a link, all included. The estimate takes 1.1 KB a link, 0.6 KB a stop, 0.3 KB a cube entry and
# the top K's rows: 50,000 links (the limit) come to about 55 MB.
MEMORY_MB = 256
LINK_BYTES, STOP_BYTES, CUBE_BYTES, LISTED_BYTES = 1100, 600, 300, 16 * (MAX_LEVEL_CAP + 1) * 2

_FIELDS = {
    "": {"stops", "links", "cubes", "players", "player", "ruleset", "own_majority", "require_own_link",
         "max_level", "top_k", "round"},
    "stops": {"id", "kind", "colour", "hex"},
    "links": {"id", "a", "b", "owner", "complete"},
    "cubes": {"stop", "colour", "count"},
    "players": {"id", "level", "upgraded"},
}


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m.group(1).lower(), name)


@dataclass
class _Problem:
    """A validated request, as indices and arrays."""
    stop_ids: list[str]
    stop_colour: np.ndarray          # int8 per stop: colour index of a city, -1 for a town
    link_ids: list[str]
    link_owner: np.ndarray           # int32 per link: player index, -1 unowned
    player_ids: list[str]
    levels: list[int]
    upgraded: list[bool]
    player: int
    ruleset: str
    own_majority: bool
    require_own_link: bool
    max_level: int
    top_k: int
    round: int
    adj_ptr: np.ndarray
    adj_to: np.ndarray
    adj_link: np.ndarray
    adj_owner: np.ndarray
    groups: list[tuple[int, int, int]] = field(default_factory=list)  # (stop, colour, count)
    edges: tuple = ()                # (src, dst, link) of each complete link, both ways, unsorted
    dist: np.ndarray | None = None   # colour_distances, once per board


def _for_player(pb: _Problem, player: int) -> _Problem:
    """The problem seen by `player`: per stop, the player's own links first, so that good deliveries are
    found early and the kernel's bounds cut more."""
    src, dst, lnk = pb.edges
    owner = pb.link_owner
    order = np.lexsort((owner[lnk] != player, src)) if len(lnk) else np.zeros(0, np.int64)
    return replace(pb, player=player, adj_to=dst[order], adj_link=lnk[order],
                   adj_owner=owner[lnk[order]] if len(lnk) else np.zeros(0, np.int32))


class _Checker:
    """Collects every violation of a request, then raises them together."""

    def __init__(self):
        self.errors: list[tuple[str, str]] = []

    def add(self, path: str, description: str) -> None:
        self.errors.append((path, description))

    def obj(self, value, path: str, kind: str) -> dict:
        if not isinstance(value, dict):
            self.add(path, f"must be an object, not {type(value).__name__}")
            return {}
        out = {}
        allowed = _FIELDS[kind]
        for key, item in value.items():
            name = key if key in allowed or not isinstance(key, str) else _snake(key)
            if name not in allowed:
                self.add(f"{path}.{key}" if path else str(key), "unknown field")
            else:
                out[name] = item
        return out

    def string(self, d: dict, key: str, path: str, required: bool = False) -> str:
        value = d.get(key, "")
        if value is None:
            value = ""
        if not isinstance(value, str):
            self.add(path, f"must be a string, not {type(value).__name__}")
            return ""
        if len(value) > MAX_NAME_CHARS:
            self.add(path, f"{len(value)} characters; at most {MAX_NAME_CHARS} are allowed")
            return ""
        if required and not value:
            self.add(path, "is required")
        return value

    def integer(self, d: dict, key: str, path: str, default, low: int, high: int):
        value = d.get(key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            self.add(path, f"must be an integer, not {value!r}")
            return default
        if value < low:
            self.add(path, f"{value} is not >= {low}")
            return default
        if value > high:
            self.add(path, f"{value} is not <= {high}")
            return default
        return value

    def boolean(self, d: dict, key: str, path: str, default):
        value = d.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            self.add(path, f"must be true or false, not {value!r}")
            return default
        return value

    def items(self, d: dict, key: str, path: str, limit: int) -> list:
        value = d.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            self.add(path, "must be a list")
            return []
        if len(value) > limit:
            self.add(path, f"{len(value)} entries; at most {limit} are allowed")
            return []
        return value


_NO_STOP = np.zeros(1, np.int64)


def _poll(i: int, stop: np.ndarray) -> None:
    """Every 1024 entries of a long list, whether the deadline or a cancel has stopped the call."""
    if i % 1024 == 1023 and stop[0]:
        raise Interrupted("stopped while reading the request")


def _parse(request, stop: np.ndarray = _NO_STOP) -> _Problem:
    """The request checked and as arrays; `stop` set (a deadline or a cancel) interrupts it."""
    ck = _Checker()
    if not isinstance(request, dict):
        raise InputError("", "the request must be a JSON object")
    req = ck.obj(request, "", "")

    ruleset = ck.string(req, "ruleset", "ruleset") or "steam"
    if ruleset not in RULESETS:
        ck.add("ruleset", f"{ruleset!r} is not one of {', '.join(RULESETS)}")
        ruleset = "steam"
    majority_default, own_link_default = RULE_DEFAULTS[ruleset]
    own_majority = ck.boolean(req, "own_majority", "own_majority", majority_default)
    require_own_link = ck.boolean(req, "require_own_link", "require_own_link", own_link_default)
    max_level = ck.integer(req, "max_level", "max_level", DEFAULT_MAX_LEVEL, 1, MAX_LEVEL_CAP)
    top_k = ck.integer(req, "top_k", "top_k", 0, 0, MAX_TOP_K) or DEFAULT_TOP_K
    rnd = ck.integer(req, "round", "round", 0, 0, 2) or 1

    # Players first: links name their owners.
    player_ids, levels, upgraded = [], [], []
    player_index: dict[str, int] = {}
    for i, raw in enumerate(ck.items(req, "players", "players", MAX_PLAYERS)):
        path = f"players[{i}]"
        p = ck.obj(raw, path, "players")
        pid = ck.string(p, "id", f"{path}.id", required=True)
        if pid in player_index:
            ck.add(f"{path}.id", f"{pid!r} duplicates players[{player_index[pid]}].id")
        elif pid:
            player_index[pid] = len(player_ids)
        player_ids.append(pid)
        if p.get("level") is None:
            ck.add(f"{path}.level", "is required")
            levels.append(1)
        else:
            levels.append(ck.integer(p, "level", f"{path}.level", 1, 1, max_level))
        upgraded.append(ck.boolean(p, "upgraded", f"{path}.upgraded", False))

    acting = ck.string(req, "player", "player", required=True)
    player = player_index.get(acting, -1)
    if acting and player < 0:
        ck.add("player", f"{acting!r} is not a players[].id")

    stop_ids: list[str] = []
    stop_index: dict[str, int] = {}
    colours: list[int] = []
    for i, raw in enumerate(ck.items(req, "stops", "stops", MAX_STOPS)):
        _poll(i, stop)
        path = f"stops[{i}]"
        s = ck.obj(raw, path, "stops")
        sid = ck.string(s, "id", f"{path}.id", required=True)
        if sid in stop_index:
            ck.add(f"{path}.id", f"{sid!r} duplicates stops[{stop_index[sid]}].id")
        elif sid:
            stop_index[sid] = len(stop_ids)
        stop_ids.append(sid)
        kind = ck.string(s, "kind", f"{path}.kind")
        colour = ck.string(s, "colour", f"{path}.colour")
        ck.string(s, "hex", f"{path}.hex")
        if kind not in KINDS:
            ck.add(f"{path}.kind", f"{kind!r} is not city or town" if kind else "is required (city or town)")
            colours.append(-1)
        elif kind == "town":
            if colour:
                ck.add(f"{path}.colour", f"a town has no colour (got {colour!r}); a New City is a city")
            colours.append(-1)
        elif colour not in COLOURS:
            ck.add(f"{path}.colour", f"{colour!r} is not one of {', '.join(COLOURS)}"
                   if colour else f"a city needs a colour ({', '.join(COLOURS)})")
            colours.append(-1)
        else:
            colours.append(COLOURS.index(colour))

    link_ids: list[str] = []
    link_index: dict[str, int] = {}
    owners: list[int] = []
    edges: list[tuple[int, int, int]] = []  # complete links: (a, b, link index)
    # Parallel complete links of one owner are interchangeable (a delivery uses at most one link between
    # two stops, and they pay the same player): the first stands for them all, which keeps the search
    # linear in such links rather than quadratic.
    represented: set[tuple[int, int, int]] = set()
    for i, raw in enumerate(ck.items(req, "links", "links", MAX_LINKS)):
        _poll(i, stop)
        path = f"links[{i}]"
        lk = ck.obj(raw, path, "links")
        lid = ck.string(lk, "id", f"{path}.id", required=True)
        if lid in link_index:
            ck.add(f"{path}.id", f"{lid!r} duplicates links[{link_index[lid]}].id")
        elif lid:
            link_index[lid] = len(link_ids)
        link_ids.append(lid)
        ends = []
        for end in ("a", "b"):
            sid = ck.string(lk, end, f"{path}.{end}", required=True)
            if sid and sid not in stop_index:
                ck.add(f"{path}.{end}", f"{sid!r} is not a stops[].id")
            ends.append(stop_index.get(sid, -1))
        if ends[0] >= 0 and ends[0] == ends[1]:
            ck.add(f"{path}.b", "a link must join two different stops")
        owner = ck.string(lk, "owner", f"{path}.owner")
        if owner and owner not in player_index:
            ck.add(f"{path}.owner", f"{owner!r} is not a players[].id (leave it empty for an unowned link)")
        owners.append(player_index.get(owner, -1))
        complete = ck.boolean(lk, "complete", f"{path}.complete", True)
        if complete and ends[0] >= 0 and ends[1] >= 0 and ends[0] != ends[1]:
            pair = (min(ends), max(ends), owners[-1])
            if pair not in represented:
                represented.add(pair)
                edges.append((ends[0], ends[1], len(link_ids) - 1))

    counts: dict[tuple[int, int], int] = {}
    for i, raw in enumerate(ck.items(req, "cubes", "cubes", MAX_CUBES)):
        _poll(i, stop)
        path = f"cubes[{i}]"
        c = ck.obj(raw, path, "cubes")
        sid = ck.string(c, "stop", f"{path}.stop", required=True)
        if sid and sid not in stop_index:
            ck.add(f"{path}.stop", f"{sid!r} is not a stops[].id")
        colour = ck.string(c, "colour", f"{path}.colour")
        if colour not in COLOURS:
            ck.add(f"{path}.colour", f"{colour!r} is not one of {', '.join(COLOURS)}"
                   if colour else "is required")
        n = ck.integer(c, "count", f"{path}.count", 1, 0, 1000)
        if sid in stop_index and colour in COLOURS and n > 0:
            key = (stop_index[sid], COLOURS.index(colour))
            counts[key] = counts.get(key, 0) + n

    if ck.errors:
        raise InputError(ck.errors[0][0], ck.errors[0][1], ck.errors[1:])

    n = len(stop_ids)
    src = np.array([e[0] for e in edges] + [e[1] for e in edges], np.int32)
    dst = np.array([e[1] for e in edges] + [e[0] for e in edges], np.int32)
    lnk = np.array([e[2] for e in edges] * 2, np.int32)
    link_owner = np.array(owners, np.int32).reshape(-1)
    adj_ptr = np.zeros(n + 1, np.int64)
    np.add.at(adj_ptr, src + 1, 1)
    stop_colour = np.array(colours, np.int8).reshape(-1)
    adj_ptr = np.cumsum(adj_ptr)
    order = np.lexsort((lnk, src)) if len(lnk) else np.zeros(0, np.int64)   # any order: distances only
    return _for_player(_Problem(
        stop_ids=stop_ids, stop_colour=stop_colour, link_ids=link_ids, link_owner=link_owner,
        player_ids=player_ids, levels=levels, upgraded=upgraded, player=player,
        ruleset=ruleset, own_majority=own_majority, require_own_link=require_own_link,
        max_level=max_level, top_k=top_k, round=rnd, adj_ptr=adj_ptr, adj_to=dst, adj_link=lnk, adj_owner=lnk,
        groups=[(s, c, counts[(s, c)]) for s, c in sorted(counts)], edges=(src, dst, lnk),
        dist=kernel.colour_distances(adj_ptr, dst[order], stop_colour, len(COLOURS))), player)


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


def _run(pb: _Problem, level: int, top_k: int, dist: np.ndarray, require_own_link: bool,
         only_groups: list[int] | None = None, stop: np.ndarray = _NO_STOP) -> _Search:
    n_col = len(COLOURS)
    origins = sorted({s for s, _, _ in pb.groups})
    pos = {s: i for i, s in enumerate(origins)}
    origin_groups = np.full((len(origins), n_col), -1, np.int32)
    for g, (s, c, _) in enumerate(pb.groups):
        if only_groups is None or g in only_groups:
            origin_groups[pos[s], c] = g
    out = kernel.search(pb.adj_ptr, pb.adj_to, pb.adj_link, pb.adj_owner, pb.stop_colour, dist,
                        np.array(origins, np.int32), origin_groups, len(pb.groups), pb.player,
                        len(pb.player_ids), level, pb.own_majority, require_own_link, top_k, stop)
    if stop[0]:
        raise Interrupted("the search was stopped before it had an answer")
    return _Search(*out[:10], int(out[10]), int(out[11]))


def _delivery(pb: _Problem, group: int, length: int, links: np.ndarray, stops: np.ndarray) -> dict:
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


def _group_bests(pb: _Problem, res: _Search) -> list[tuple[int, int]]:
    """(key, group) of every group's best delivery, one entry per cube that could use it (at most
    two: a phase has two moves), best first; ties keep group order."""
    out = []
    for g, (_, _, count) in enumerate(pb.groups):
        if res.g_key[g] >= 0:
            out += [(int(res.g_key[g]), g)] * min(count, 2)
    out.sort(key=lambda t: -t[0])
    return out


def _reasons(pb: _Problem, res: _Search, level: int, dist: np.ndarray, stop: np.ndarray = _NO_STOP) -> list[dict]:
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


def _plans(pb: _Problem, now: list[tuple[int, int]], up: list[tuple[int, int]] | None,
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


def _solve(pb: _Problem, stop: np.ndarray = _NO_STOP) -> dict:
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


def memory_bytes(stops: int, links: int, cubes: int, top_k: int) -> dict[str, int]:
    """The memory a call takes, estimated from the lengths of the request's lists, by what takes it."""
    return {"links": LINK_BYTES * links, "stops": STOP_BYTES * stops, "cubes": CUBE_BYTES * cubes,
            "top_k": LISTED_BYTES * (top_k or DEFAULT_TOP_K)}


def check_memory(stops: int, links: int, cubes: int, top_k: int, memory_mb: float) -> None:
    """InputError naming the request's largest part when a call on a request of these sizes would take
    more than `memory_mb` (memory_bytes): a delivery search has no smaller answer to fall back to.
    Sizes beyond the request limits count at the limit (the parse names those fields)."""
    parts = memory_bytes(min(stops, MAX_STOPS), min(links, MAX_LINKS), min(cubes, MAX_CUBES),
                         min(max(top_k, 0), MAX_TOP_K))
    need = sum(parts.values())
    if need > memory_mb * 2**20:
        largest = max(parts, key=parts.get)
        raise InputError(largest, f"a delivery search of this board takes about {need / 2**20:.1f} MB, over the "
                                  f"memory cap of {memory_mb:g} MB ({largest} take {parts[largest] / 2**20:.1f} MB)")


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
        return _solve(_parse_cached(request))
    from revenue.optimizer.watchdog import WATCHDOG

    stop = np.zeros(1, np.int64)
    ticket = WATCHDOG.watch(stop, time.perf_counter() + deadline if deadline is not None else None, cancel)
    try:
        if deadline is not None and deadline <= 0:
            raise Interrupted("no time left to search")
        # (a plain Event is only polled by the watchdog: one set before the call must not wait for that)
        if cancel is not None and cancel.is_set():
            raise Interrupted("cancelled before the search began")
        return _solve(_parse_cached(request, stop), stop)
    finally:
        WATCHDOG.release(ticket, cancel)


# At most 32 boards and STEAM_CACHE_BYTES by estimate (a parsed board takes about as much as its key).
_BOARDS: ByteLRU[_Problem] = ByteLRU(STEAM_CACHE_BYTES, most=32)


def _parse_cached(request, stop: np.ndarray = _NO_STOP) -> _Problem:
    """_parse, remembering the last boards: a game asks about one board for each player in turn, so only
    the acting player differs between those requests (and an invalid request is never remembered)."""
    try:   # repr: a cheap exact key for JSON data (a reordered but equal request just misses)
        key = repr([(k, v) for k, v in request.items() if k != "player"])
    except (AttributeError, TypeError, ValueError):
        return _parse(request, stop)
    board = _BOARDS.get(key)
    if board is None:
        problem = _parse(request, stop)
        _BOARDS.put(key, problem, 10_000 + 2 * len(key))
        return problem
    acting = request.get("player")
    if isinstance(acting, str) and acting in board.player_ids:
        return _for_player(board, board.player_ids.index(acting))
    return _parse(request, stop)    # the acting player is wrong: the full check names it


def deliveries_proto(request):
    """The same for protobuf messages: DeliveriesRequest in, DeliveriesResponse out (for the server)."""
    from google.protobuf import json_format
    from revenue.v1 import steam_pb2

    as_dict = json_format.MessageToDict(request, preserving_proto_field_name=True)
    return json_format.ParseDict(deliveries(as_dict), steam_pb2.DeliveriesResponse())


def _describe(d: dict, me: str) -> str:
    others = ", ".join(f"{o} {n}" for o, n in sorted(d.get("points_by_owner", {}).items()) if o != me)
    n = len(d.get("links", []))
    text = (f"{d['colour']} cube {' -> '.join(d['stops'])} ({n} link{'s' if n != 1 else ''}): "
            f"{d.get('own_points', 0)} for you")
    return text + (f"; others: {others}" if others else "")


def format_text(result: dict) -> str:
    """A DeliveriesResponse dict as text for a player at the command line."""
    me = result.get("player", "")
    rules = result.get("rules", {})
    flags = []
    if rules.get("own_majority"):
        flags.append("own links >= each other player's")
    if rules.get("require_own_link"):
        flags.append("at least one own link")
    lines = [f"Goods deliveries for {me}, locomotive level {result.get('level')} "
             f"({rules.get('ruleset', 'steam')} rules{': ' + ', '.join(flags) if flags else ''})"]
    best = result.get("best")
    lines.append(f"Best: {_describe(best, me)}" if best else "Best: no cube can be delivered")
    deliveries_ = result.get("deliveries", [])
    if len(deliveries_) > 1:
        lines.append(f"Top {len(deliveries_)}:")
        for i, d in enumerate(deliveries_, 1):
            lines.append(f"  {i:>2}. {_describe(d, me)}")
    plan = result.get("plan")
    if plan:
        lines.append(f"Plan for the phase ({plan['name']}): {plan.get('own_points', 0)} for you, "
                     f"{plan.get('other_points', 0)} for others, level {plan.get('level_after')} after")
        for step in plan.get("steps", []):
            what = step["action"]
            if what == "move":
                what = "move " + _describe(step["delivery"], me)
            elif what == "upgrade":
                what = f"upgrade the locomotive to level {step.get('level')}"
            lines.append(f"  round {step.get('round')}: {what}")
    stuck = result.get("undeliverable", [])
    if stuck:
        lines.append("Cannot be delivered:")
        for u in stuck:
            count = u.get("count", 1)
            lines.append(f"  {u['colour']} at {u['stop']}{f' (x{count})' if count > 1 else ''}: {u['detail']}")
    return "\n".join(lines)
